// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.max never freezes a task. A quota smaller than what its group's
 * CPUs could use (a systemd unit with CPUQuota=, docker run --cpus=0.5)
 * must still reach every CPU where the group has work, period after
 * period, and a task killed there must exit at once. A scheduler that
 * lets one CPU take each refill first starves the group's tasks on the
 * others: they never run again, not even to die of SIGKILL.
 *
 * 1. One hog pinned to each CPU in a group with cpu.max "1000 100000"
 *    (1 % of one CPU, throttled on every CPU). Over 4 s every hog must
 *    run (each gets some of the quota), and the group as a whole no more
 *    than its quota allows (with a period of slack per CPU).
 * 2. Then each hog in turn is killed: on VDS each must be reaped within
 *    5 periods (500 ms); EEVDF, which lets a killed task wait for its
 *    queue's turn in the distribution of runtime, within 4 s.
 * 3. A group with cpu.max "50000 100000" whose 8 threads run 2 ms and
 *    sleep 2 ms, unpinned, gets 0.5 CPU within 10 %: runtime a CPU took
 *    and did not use comes back to the pool, and the quota is not
 *    exceeded either.
 *
 * Runs on both schedulers (vds=off is the control), with the same
 * expectations but for the kill's bound. The timed checks are measured
 * once more if they fail.
 */
#include "vds_test.h"
#include <sys/wait.h>

#define CG	"/sys/fs/cgroup"
#define GRP	CG "/vds-kill"
#define GRP2	CG "/vds-kill-sw"
#define NSW	8

static pid_t *hog, sw[NSW];

static void join(const char *grp, pid_t pid)
{
	char path[96], v[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", grp);
	snprintf(v, sizeof(v), "%d", pid);
	write_file(path, v);
}

/* Run 2 ms, sleep 2 ms, forever: half a CPU if it had one to itself. */
static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { 0, 2000000 };

		for (;;) {
			uint64_t t = now_ns();

			while (now_ns() - t < 2000000)
				;
			nanosleep(&ts, NULL);
		}
	}
	return pid;
}

static double ms_since(uint64_t t0)
{
	return (now_ns() - t0) / 1e6;
}

int main(void)
{
	int n = ncpus_online(), attempt, ok = 0, starved = 0;
	uint64_t *r0 = calloc(n, sizeof(*r0)), r1, t0, t;
	double used = 0, worst = 0, first = 0, g = 0, limit;
	char buf[64];

	hog = calloc(n, sizeof(*hog));
	tap_plan(4);
	if (!hog || !r0) {
		for (int i = 0; i < 4; i++)
			tap_ok(0, "%d hogs: out of memory", n);
		return tap_done();
	}
	write_file(CG "/cgroup.subtree_control", "+cpu");
	mkdir(GRP, 0755);
	if (write_file(GRP "/cpu.max", "1000 100000"))
		diag("cannot set cpu.max of " GRP);
	for (int c = 0; c < n; c++) {
		hog[c] = spawn_hog(c, 0);
		join(GRP, hog[c]);
	}
	sleep_ms(500);
	/* 1 % of a CPU, plus a tick per CPU and period, plus 1 % of slack. */
	limit = 0.01 + n * (0.001 / 0.1) + 0.01;

	/* 1. Every hog runs, and the group stays within its quota. */
	for (attempt = 0; attempt < 2; attempt++) {
		uint64_t sum = 0;

		for (int c = 0; c < n; c++)
			r0[c] = schedstat_run(hog[c]);
		t0 = now_ns();
		sleep_ms(4000);
		t = now_ns() - t0;
		starved = 0;
		for (int c = 0; c < n; c++) {
			r1 = schedstat_run(hog[c]) - r0[c];
			sum += r1;
			if (!r1) {
				starved++;
				diag("the hog on CPU %d did not run in %.1f s", c, t / 1e9);
			}
		}
		used = (double)sum / t;
		ok = !starved && used <= limit;
		if (ok)
			break;
		diag("first attempt: %d starved, group used %.4f CPUs; once more", starved, used);
	}
	tap_ok(!starved, "cpu.max 1000 100000, a hog pinned on each of %d CPUs: every hog ran in 4 s (%d did not)",
	       n, starved);
	tap_ok(used <= limit, "and the group used %.4f CPUs (quota 0.01, at most %.4f)", used, limit);

	/*
	 * 2. Each hog, killed, is reaped, the first while the group is
	 * throttled on every CPU: on VDS within 5 periods, on EEVDF within 4 s.
	 */
	ok = 1;
	for (int c = n - 1; c >= 0; c--) {
		int st;
		pid_t w = 0;
		double ms;

		t0 = now_ns();
		kill(hog[c], SIGKILL);
		while (ms_since(t0) < 5000 && (w = waitpid(hog[c], &st, WNOHANG)) == 0)
			sleep_ms(2);
		ms = ms_since(t0);
		if (w != hog[c])
			diag("the hog on CPU %d was not reaped 5 s after SIGKILL", c);
		else
			hog[c] = 0;
		diag("the hog on CPU %d: reaped %.0f ms after SIGKILL", c, ms);
		if (c == n - 1)
			first = ms;
		if (ms > worst)
			worst = ms;
	}
	/*
	 * EEVDF lets a killed task wait for its queue's turn in the runtime
	 * distribution, which can take a second or more. VDS puts it back at
	 * its CPU's next kick, within a period.
	 */
	if (vds_active())
		tap_ok(worst <= 500,
		       "a hog killed in a group throttled on every CPU is reaped within 500 ms, 5 periods (first %.0f, worst %.0f)",
		       first, worst);
	else
		tap_ok(worst <= 4000,
		       "a hog killed in a group throttled on every CPU is reaped within 4 s (first %.0f, worst %.0f)",
		       first, worst);
	for (int c = 0; c < n; c++)
		if (hog[c])
			kill_wait(hog[c]);
	rmdir(GRP);

	/* 3. Sleepers and wakers across all CPUs get the quota: 0.5 CPU. */
	mkdir(GRP2, 0755);
	write_file(GRP2 "/cpu.max", "50000 100000");
	for (int i = 0; i < NSW; i++) {
		sw[i] = spawn_sleeper();
		join(GRP2, sw[i]);
	}
	sleep_ms(500);
	for (attempt = 0; attempt < 2; attempt++) {
		uint64_t s0 = 0, s1 = 0;

		for (int i = 0; i < NSW; i++)
			s0 += schedstat_run(sw[i]);
		t0 = now_ns();
		sleep_ms(4000);
		t = now_ns() - t0;
		for (int i = 0; i < NSW; i++)
			s1 += schedstat_run(sw[i]);
		g = (double)(s1 - s0) / t;
		ok = g >= 0.45 && g <= 0.55;
		if (ok)
			break;
		diag("first attempt: the group used %.3f CPUs; once more", g);
	}
	read_file(GRP2 "/cpu.max", buf, sizeof(buf));
	tap_ok(ok, "%d threads running 2 ms and sleeping 2 ms on %d CPUs under cpu.max %.*s use %.3f CPUs (0.45-0.55)",
	       NSW, n, (int)strcspn(buf, "\n"), buf, g);
	for (int i = 0; i < NSW; i++)
		kill_wait(sw[i]);
	rmdir(GRP2);
	return tap_done();
}
