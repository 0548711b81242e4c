// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics perf sched, latencytop-style tools and bug reports read,
 * with kernel.sched_schedstats on: a task's wait, sleep and block times in
 * /proc/<pid>/sched, and the sched_stat_wait, sched_stat_sleep and
 * sched_stat_blocked tracepoints. Wait time must agree with sched_info's
 * run delay (/proc/<pid>/schedstat, kept by the core for every class), the
 * sleep and block times with what the test slept. On VDS, /proc/<pid>/sched
 * also shows the task's VDS deadline, slice left and band, the vds_deadline
 * and vds_pick tracepoints fire with plausible fields, and
 * /sys/kernel/debug/sched/debug has a vds_rq block per CPU, and its task
 * table shows VDS's values for VDS tasks.
 */
#include "vds_test.h"

#define TR "/sys/kernel/tracing"

/* Sleep ms in an uninterruptible wait: vfork() waits for the child to exit. */
static void blocked_ms(unsigned int ms)
{
	pid_t c = vfork();

	if (c == 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		_exit(0);
	}
	if (c > 0)
		waitpid(c, NULL, 0);
}

static long count_events(const char *ev, pid_t pid)
{
	char line[512], needle[64];
	long n = 0;
	FILE *f = fopen(TR "/trace", "r");

	if (!f)
		return -1;
	snprintf(needle, sizeof(needle), "pid=%d ", pid);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, ev) && strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

static void trace_on(int on)
{
	static const char *const ev[] = { "sched_stat_wait", "sched_stat_sleep",
					   "sched_stat_blocked" };
	char path[128];
	unsigned int i;

	if (on) {
		write_file(TR "/trace", "");
		write_file(TR "/buffer_size_kb", "2048");
	}
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		snprintf(path, sizeof(path), TR "/events/sched/%s/enable", ev[i]);
		write_file(path, on ? "1" : "0");
	}
	write_file(TR "/tracing_on", on ? "1" : "0");
}

/*
 * sched/debug's table of runnable tasks shows VDS's values for VDS tasks:
 * vruntime 0, the band letter V (NORMAL), a deadline from now within 40
 * rr_intervals either way and the slice left, in EEVDF's columns. A
 * waiting hog's deadline can lie in the past (it passed while the hog
 * waited, by a few rr_intervals on a busy host); an absolute time, a count
 * in ns or an unset value is thousands of rr_intervals off.
 */
static void task_table(const pid_t *hogs, int n, long rr)
{
	char line[512], st[8], comm[64], el;
	int found = 0, bad = 0, pid, i;
	double vrt, dl, sl;
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%7s %63s %d %lf %c %lf %lf", st, comm, &pid,
			   &vrt, &el, &dl, &sl) != 7)
			continue;
		for (i = 0; i < n && hogs[i] != pid; i++)
			;
		if (i == n)
			continue;
		found++;
		if (vrt != 0 || el != 'V' || dl < -40 * rr || dl > 40 * rr ||
		    sl <= -rr || sl > rr + 0.001) {
			bad++;
			diag("implausible: %s", line);
		}
	}
	if (f)
		fclose(f);
	tap_ok(found > 0 && bad == 0,
	       "sched/debug's task table shows VDS's values for %d hog lines (vruntime 0, band V, deadline and slice in ms; %d implausible)",
	       found, bad);
}

/*
 * VDS's tracepoints and its block in sched/debug: hogs and a sleeper on
 * every CPU for half a second with events/vds enabled. vds_deadline gives
 * NORMAL tasks a deadline at most a few rr_intervals ahead and a full
 * slice; vds_pick reports a lag that is never negative.
 */
static void vds_trace_points(int m)
{
	char line[512];
	long nd = 0, np = 0, bad = 0, rr = read_long("/proc/sys/kernel/rr_interval", 6);
	int i, n = m + 1, blocks = 0;
	pid_t *hogs = calloc(n, sizeof(*hogs));
	FILE *f;

	if (!hogs) {
		for (i = 0; i < 3; i++)
			tap_ok(0, "%d hogs: out of memory", n);
		return;
	}
	write_file(TR "/trace", "");
	write_file(TR "/events/vds/enable", "1");
	write_file(TR "/tracing_on", "1");
	for (i = 0; i < n; i++)
		hogs[i] = spawn_hog(-1, 0);
	for (i = 0; i < 50; i++)
		usleep(10000);
	write_file(TR "/tracing_on", "0");
	write_file(TR "/events/vds/enable", "0");
	task_table(hogs, n, rr);
	for (i = 0; i < n; i++)
		kill_wait(hogs[i]);
	f = fopen(TR "/trace", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *d = strstr(line, "vds_deadline:"), *p = strstr(line, "vds_pick:");

		if (d && strstr(d, "prio=120 band=NORMAL")) {
			char *o = strstr(d, "deadline=now"), *sl = strstr(d, "slice=");
			long long off = o ? strtoll(o + 12, NULL, 10) : -1;
			long long slice = sl ? strtoll(sl + 6, NULL, 10) : -1;

			nd++;
			/* nice 0: one offset of about rr_interval, moved by at most one rr. */
			if (off < -rr * 1000000LL || off > 40 * rr * 1000000LL ||
			    slice != rr * 1000000LL)
				bad++;
		} else if (p) {
			char *l = strstr(p, "lag=");

			np++;
			if (!l || strtoll(l + 4, NULL, 10) < 0)
				bad++;
		}
	}
	if (f)
		fclose(f);
	write_file(TR "/trace", "");
	tap_ok(nd > 10 && np > 10 && bad == 0,
	       "vds_deadline and vds_pick fire with plausible fields (%ld and %ld events, %ld implausible)",
	       nd, np, bad);
	f = fopen("/sys/kernel/debug/sched/debug", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "vds_rq[", 7))
			blocks++;
	if (f)
		fclose(f);
	tap_ok(blocks == m, "sched/debug has a vds_rq block for each of the %d CPUs (%d)", m, blocks);
}

int main(void)
{
	int m = ncpus_online(), cpu = m - 1, i;
	char old[16] = "0";
	struct schedstat s0, s1;
	double w0, w1, wc0, wc1, sl0, sl1, bl0, bl1, wait_ms, delay_ms;
	pid_t me = getpid(), hog;

	tap_plan(10);
	read_file("/proc/sys/kernel/sched_schedstats", old, sizeof(old));
	if (!tap_ok(write_file("/proc/sys/kernel/sched_schedstats", "1") == 0,
		    "kernel.sched_schedstats can be switched on")) {
		for (i = 0; i < 8; i++)
			tap_ok(0, "no schedstats");
		return tap_done();
	}
	trace_on(1);

	/* Wait: this task and a hog share one CPU for a second. */
	pin_to(0, cpu);
	hog = spawn_hog(cpu, 0);
	sleep_ms(100);
	read_schedstat(me, &s0);
	w0 = proc_field(me, "sched", "wait_sum");
	wc0 = proc_field(me, "sched", "wait_count");
	{
		uint64_t end = now_ns() + 1000000000ull;
		volatile uint64_t x = 1;

		while (now_ns() < end)
			x = x * 6364136223846793005ull + 1;
	}
	read_schedstat(me, &s1);
	w1 = proc_field(me, "sched", "wait_sum");
	wc1 = proc_field(me, "sched", "wait_count");
	kill_wait(hog);
	wait_ms = w1 - w0;
	delay_ms = (s1.wait_ns - s0.wait_ns) / 1e6;
	diag("next to a hog for 1 s: wait_sum +%.1f ms in %.0f waits; sched_info run delay +%.1f ms",
	     wait_ms, wc1 - wc0, delay_ms);
	tap_ok(wait_ms > 200 && wait_ms < 1100 && wc1 - wc0 >= 5,
	       "wait_sum counts the wait behind a hog (+%.1f ms in %.0f waits, expect 200-1100 ms)",
	       wait_ms, wc1 - wc0);
	tap_ok(wait_ms > 0.75 * delay_ms - 10 && wait_ms < 1.25 * delay_ms + 10,
	       "wait_sum agrees with sched_info's run delay within 25 %% (%.1f vs %.1f ms)",
	       wait_ms, delay_ms);

	/* Sleep (interruptible) and block (uninterruptible), 300 ms each. */
	sl0 = proc_field(me, "sched", "sum_sleep_runtime");
	bl0 = proc_field(me, "sched", "sum_block_runtime");
	sleep_ms(300);
	sl1 = proc_field(me, "sched", "sum_sleep_runtime");
	blocked_ms(300);
	bl1 = proc_field(me, "sched", "sum_block_runtime");
	diag("sum_sleep_runtime +%.1f ms after a 300 ms sleep; sum_block_runtime +%.1f ms after a 300 ms vfork wait",
	     sl1 - sl0, bl1 - bl0);
	tap_ok(sl1 - sl0 > 250 && sl1 - sl0 < 1000,
	       "a 300 ms sleep adds 250-1000 ms to sum_sleep_runtime (+%.1f)", sl1 - sl0);
	tap_ok(bl1 - bl0 > 250 && bl1 - bl0 < 1000,
	       "a 300 ms uninterruptible wait adds 250-1000 ms to sum_block_runtime (+%.1f)",
	       bl1 - bl0);

	trace_on(0);
	{
		long nw = count_events("sched_stat_wait", me);
		long ns = count_events("sched_stat_sleep", me);
		long nb = count_events("sched_stat_blocked", me);

		tap_ok(nw > 0 && ns > 0 && nb > 0,
		       "sched_stat_wait, _sleep and _blocked fire for the task (%ld, %ld, %ld)",
		       nw, ns, nb);
	}
	write_file(TR "/trace", "");

	/* VDS's own fields in /proc/<pid>/sched. */
	if (vds_active()) {
		double slice = proc_field(me, "sched", "vds.time_slice_ns") / 1e6;
		double band = proc_field(me, "sched", "vds.band");
		double rr = read_long("/proc/sys/kernel/rr_interval", 6);

		/* Read while running: the tick may have just spent the slice. */
		tap_ok(slice > -rr && slice <= rr + 0.001 && band == 1,
		       "/proc/<pid>/sched shows the VDS slice left (%.3f ms of rr_interval %.0f) and band %.0f (NORMAL is 1)",
		       slice, rr, band);
	} else {
		tap_skip("VDS fields in /proc/<pid>/sched: VDS is not active");
	}
	if (vds_active())
		vds_trace_points(m);
	else
		for (i = 0; i < 3; i++)
			tap_skip("VDS tracepoints and sched/debug: VDS is not active");
	write_file("/proc/sys/kernel/sched_schedstats", old);
	return tap_done();
}
