// SPDX-License-Identifier: GPL-2.0
/*
 * A frame longer than a slice beside a CPU hog, on one CPU, the way a
 * program that renders does it: a video-like task, every 16.7 ms a frame of
 * 6.7 ms (40 % of the period, less than the half of the CPU that is its fair
 * share), and one nice-0 busy loop, all on the last CPU, then on CPU 0
 * (where device interrupts go). The task sleeps to
 * each period's start itself (clock_nanosleep(), a timer wakeup) and does
 * its work as a busy loop calibrated before the hog starts (work = a fixed
 * amount of computation, as a frame is), or, for comparison with
 * b_interactive, by thread CPU time (work = CPU time accounted to the
 * thread). A frame is met when its work ends before the next period starts;
 * periods that begin while a frame is still being worked on are skipped
 * and count as missed. Per work kind, 3 s (VDS_BENCHSECS x 300 ms), one
 * JSON line: frames met (%), the lateness of each frame's end past its
 * start plus its work (the time it waited: mean, p50, p99, max) and the
 * wakeup latency (timer target to running: p50, p99), the task's and the
 * hog's nonvoluntary switches per frame, and the CPU time a frame's work
 * took (work_cpu_us: 6700 when the loop is calibrated right).
 * b_frame [ms per kind]
 *
 * vds-bench: timeout 120
 * vds-metric: frame:* met_pct higher
 * vds-metric: frame:* work_cpu_us info
 * vds-metric: frame:* *_us lower
 * vds-metric: frame:* * info
 */
#include "bench.h"
#include <stdbool.h>

#define FRAME_NS	16700000ull
#define WORK_NS		6700000ull	/* 40 % */
#define HEAVY_NS	8000000ull	/* 48 % */

static volatile uint64_t sink;
static double loops_per_ns;

static void spin_loops(uint64_t n)
{
	uint64_t x = sink;

	while (n--)
		x = x * 6364136223846793005ull + 1;
	sink = x;
}

/* Loops per ns: the median of 21 runs of about 1 ms, the CPU to itself. */
static void calibrate(void)
{
	uint64_t n = 100000, t, runs[21];
	int i;

	for (;;) {
		t = now_ns();
		spin_loops(n);
		t = now_ns() - t;
		if (t > 1000000)
			break;
		n *= 2;
	}
	for (i = 0; i < 21; i++) {
		uint64_t c = thread_cpu_ns();

		spin_loops(n);
		runs[i] = thread_cpu_ns() - c;
	}
	qsort(runs, 21, sizeof(runs[0]), cmp_u64);
	loops_per_ns = (double)n / runs[10];
}

static void run(const char *kind, bool loop, uint64_t work, unsigned int ms, pid_t hog)
{
	uint64_t t0, t, target, end, *late, *wake, periods, met = 0, cpu = 0, c;
	double nv0, hnv0;
	long n = 0, maxn = ms * 1000000ull / FRAME_NS + 2;
	struct lstats ls, ws;

	late = calloc(maxn, sizeof(*late));
	wake = calloc(maxn, sizeof(*wake));
	nv0 = proc_field(getpid(), "status", "nonvoluntary_ctxt_switches");
	hnv0 = proc_field(hog, "status", "nonvoluntary_ctxt_switches");
	t0 = now_ns() + 20000000ull;
	end = t0 + ms * 1000000ull;
	target = t0;
	while (target + FRAME_NS <= end && n < maxn) {
		sleep_until(target);
		t = now_ns();
		wake[n] = t - target;
		c = thread_cpu_ns();
		if (loop)
			spin_loops((uint64_t)(work * loops_per_ns));
		else
			burn_cpu_ns(work);
		t = now_ns();
		cpu += thread_cpu_ns() - c;
		late[n++] = t - target > work ? t - target - work : 0;
		if (t <= target + FRAME_NS)
			met++;
		/* The next period not yet begun. */
		do
			target += FRAME_NS;
		while (target < t);
	}
	periods = (target - t0) / FRAME_NS;
	nv0 = proc_field(getpid(), "status", "nonvoluntary_ctxt_switches") - nv0;
	hnv0 = proc_field(hog, "status", "nonvoluntary_ctxt_switches") - hnv0;
	ls = lat_stats(late, n);
	ws = lat_stats(wake, n);
	printf("{\"bench\":\"frame:%s\",\"periods\":%llu,\"met_pct\":%.1f,"
	       "\"late_mean_us\":%.1f,\"late_p50_us\":%.1f,\"late_p99_us\":%.1f,\"late_max_us\":%.1f,"
	       "\"wake_p50_us\":%.1f,\"wake_p99_us\":%.1f,"
	       "\"work_cpu_us\":%.1f,\"task_nonvol_per_frame\":%.2f,\"hog_nonvol_per_frame\":%.2f}\n",
	       kind, (unsigned long long)periods, periods ? 100.0 * met / periods : 0,
	       ls.mean_us, ls.p50_us, ls.p99_us, ls.max_us, ws.p50_us, ws.p99_us,
	       n ? cpu / 1e3 / n : 0, n ? nv0 / n : 0, n ? hnv0 / n : 0);
	fflush(stdout);
	free(late);
	free(wake);
}

/* The task and a nice-0 hog on @cpu: one line per work kind. */
static void on_cpu(int cpu, unsigned int ms, bool cputime)
{
	char kind[32];
	pid_t hog;

	pin_to(0, cpu);
	calibrate();
	hog = spawn_hog(cpu, 0);
	sleep_ms(100);
	snprintf(kind, sizeof(kind), "loop40_hog_cpu%d", cpu);
	run(kind, true, WORK_NS, ms, hog);
	if (cputime) {
		run("cputime40_hog", false, WORK_NS, ms, hog);
		run("cputime48_hog", false, HEAVY_NS, ms, hog);
	}
	kill_wait(hog);
}

int main(int argc, char **argv)
{
	unsigned int ms = argc > 1 ? (unsigned int)atoi(argv[1]) :
			  (unsigned int)setting_long("VDS_BENCHSECS", 10) * 300;
	int last = ncpus_online() - 1;

	on_cpu(last, ms, true);
	if (last)
		on_cpu(0, ms, false);
	return 0;
}
