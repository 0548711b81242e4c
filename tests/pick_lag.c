// SPDX-License-Identifier: GPL-2.0
/*
 * One deadline order without one queue: each CPU has its own queue, and
 * a CPU about to pick pulls an earlier task from another.
 *
 * 1. No CPU idles while a task it may run waits: one hog per CPU, all
 *    started on CPU 0 and then allowed everywhere. Over 2 s each hog
 *    waits on a runqueue (schedstat) less than 20 % of the time. A
 *    scheduler whose idle CPUs do not take work from a busy CPU leaves
 *    them waiting about (n-1)/n of it.
 * 2. Busy CPUs keep one order (VDS only): two hogs per CPU, three
 *    quarters of them started on CPU 0, plus one periodic task per two
 *    CPUs (1 ms of work every 10 ms). Idle CPUs pull one hog each to
 *    start with; without pulls between busy CPUs the queues would stay
 *    uneven and the hogs left on CPU 0 would wait far more than the
 *    others. Over
 *    3 s the hogs' waiting fractions lie within 0.3 of each other, and
 *    90 % of the picks lie within one rr_interval of the earliest deadline
 *    any CPU publishes (sched/vds/pick_lag).
 * Each part is measured once more before it fails.
 */
#include "vds_test.h"

#define LAG "/sys/kernel/debug/sched/vds/pick_lag"

/* Two hogs per CPU at most (part 2) and a periodic task per two CPUs. */
static pid_t *hogs, *ticks;
static int maxh, nh, nt;

static void periodic_child(void)
{
	for (;;) {
		uint64_t end = thread_cpu_ns() + 1000000ull;

		while (thread_cpu_ns() < end)
			;
		sleep_ms(10);
	}
}

/* Start @n hogs, the first @on0 of them on CPU 0, then allow them all. */
static void start_hogs(int n, int on0)
{
	int ncpu = ncpus_online(), i;
	unsigned long all = ncpu >= 64 ? ~0ul : (1ul << ncpu) - 1;

	for (i = 0; i < n && nh < maxh; i++) {
		hogs[nh] = spawn_hog(i < on0 ? 0 : i % ncpu, 0);
		nh++;
	}
	sleep_ms(100);
	for (i = 0; i < nh; i++)
		set_affinity_bits(hogs[i], all);
}

static void stop_all(void)
{
	while (nh)
		kill_wait(hogs[--nh]);
	while (nt)
		kill_wait(ticks[--nt]);
}

/* Waiting fraction of each hog over @ms; returns the largest, sets *min. */
static double wait_fractions(unsigned int ms, double *min, double *frac)
{
	struct schedstat *a = calloc(nh, sizeof(*a)), *b = calloc(nh, sizeof(*b));
	uint64_t t0, t1;
	double max = 0;
	int i;

	*min = 1;
	if (!a || !b) {
		diag("out of memory");
		return 1;
	}
	for (i = 0; i < nh; i++)
		read_schedstat(hogs[i], &a[i]);
	t0 = now_ns();
	sleep_ms(ms);
	t1 = now_ns();
	for (i = 0; i < nh; i++) {
		read_schedstat(hogs[i], &b[i]);
		frac[i] = (double)(b[i].wait_ns - a[i].wait_ns) / (t1 - t0);
		if (frac[i] > max)
			max = frac[i];
		if (frac[i] < *min)
			*min = frac[i];
	}
	free(a);
	free(b);
	return max;
}

static void print_fracs(const char *what, double *frac)
{
	char line[1024];
	int i, o = 0;

	for (i = 0; i < nh && o < (int)sizeof(line) - 16; i++)
		o += snprintf(line + o, sizeof(line) - o, " %.2f", frac[i]);
	diag("%s: waiting fractions%s", what, line);
}

/* Buckets of sched/vds/pick_lag: 0, <rr/4, <rr/2, <rr, <2rr, >=2rr. */
static int read_lag(unsigned long *b)
{
	char buf[512], *p;
	int i;

	if (read_file(LAG, buf, sizeof(buf)))
		return -1;
	p = strchr(buf, '\n');
	for (i = 0; i < 6 && p; i++) {
		while (*p == '\n')
			p++;
		p = strchr(p, ' ');
		if (!p)
			return -1;
		b[i] = strtoul(p, &p, 10);
	}
	return i == 6 ? 0 : -1;
}

static int part1(void)
{
	double *frac = calloc(maxh, sizeof(*frac)), max = 1, min;
	int n = ncpus_online(), tries;

	if (!frac)
		return tap_ok(0, "out of memory");
	for (tries = 0; tries < 2; tries++) {
		start_hogs(n, n);
		sleep_ms(1000);
		max = wait_fractions(2000, &min, frac);
		print_fracs("one hog per CPU, started on CPU 0", frac);
		stop_all();
		if (max < 0.2)
			break;
	}
	free(frac);
	return tap_ok(max < 0.2,
		      "%d hogs started on CPU 0 spread out: each waited %.0f %% of the time at most (< 20 %%)",
		      n, max * 100);
}

static void part2(void)
{
	double *frac = calloc(maxh, sizeof(*frac)), max = 1, min = 0;
	unsigned long lag[6] = { 0 }, total = 0, within = 0;
	int n = ncpus_online(), tries, i;

	if (!vds_active() || access(LAG, W_OK)) {
		tap_skip("pick lag: VDS only (sched/vds/pick_lag)");
		tap_skip("pick lag: VDS only");
		free(frac);
		return;
	}
	if (!frac) {
		tap_ok(0, "out of memory");
		tap_ok(0, "out of memory");
		return;
	}
	for (tries = 0; tries < 2; tries++) {
		start_hogs(2 * n, 2 * n * 3 / 4);
		for (i = 0; i < (n + 1) / 2 && nt < maxh; i++) {
			ticks[nt] = fork();
			if (ticks[nt] == 0)
				periodic_child();
			nt++;
		}
		sleep_ms(1000);
		write_file(LAG, "1");
		max = wait_fractions(3000, &min, frac);
		write_file(LAG, "0");
		print_fracs("two hogs per CPU, 3/4 started on CPU 0", frac);
		stop_all();
		total = within = 0;
		if (!read_lag(lag)) {
			for (i = 0; i < 6; i++)
				total += lag[i];
			within = lag[0] + lag[1] + lag[2] + lag[3];
		}
		diag("pick lag: 0 %lu, <rr/4 %lu, <rr/2 %lu, <rr %lu, <2rr %lu, >=2rr %lu",
		     lag[0], lag[1], lag[2], lag[3], lag[4], lag[5]);
		if (max - min < 0.3 && total && within >= total * 9 / 10)
			break;
	}
	tap_ok(max - min < 0.3,
	       "busy CPUs share the hogs: waiting fractions %.2f-%.2f (spread < 0.3)",
	       min, max);
	tap_ok(total > 100 && within >= total * 9 / 10,
	       "%lu of %lu picks within one rr_interval of the earliest published deadline (>= 90 %%)",
	       within, total);
	free(frac);
}

int main(void)
{
	tap_plan(3);
	/* Masks of the first 64 CPUs (affinity_bits()). */
	if (ncpus_online() < 2 || ncpus_online() > 64) {
		tap_skip("needs 2-64 CPUs");
		tap_skip("needs 2-64 CPUs");
		tap_skip("needs 2-64 CPUs");
		return tap_done();
	}
	maxh = 2 * ncpus_online();
	hogs = calloc(maxh, sizeof(*hogs));
	ticks = calloc(maxh, sizeof(*ticks));
	if (!hogs || !ticks) {
		for (int i = 0; i < 3; i++)
			tap_ok(0, "%d hogs: out of memory", maxh);
		return tap_done();
	}
	part1();
	part2();
	return tap_done();
}
