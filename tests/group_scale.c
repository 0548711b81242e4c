// SPDX-License-Identifier: GPL-2.0
/*
 * Group shares at scale and with long slices, and IDLEPRIO below nice 19
 * at every rr_interval.
 *
 * A. One CPU, one nice-0 hog in the root cgroup against N nice-0 hogs in a
 *    child cgroup of cpu.weight 100: the root hog competes like a group of
 *    weight 100 (as under EEVDF), so it gets half of the CPU, within 25 %
 *    (relative: 37.5 to 62.5 %), for N = 1, 4 and 32, at rr_interval 6
 *    (the default) and 100. A group of 32 needs a factor of 32 on its
 *    tasks' offsets (1.3 s at rr_interval 6), and at rr_interval 100 a
 *    nice-0 offset alone is 0.67 s: a scheduler that caps a group's
 *    offsets (at 0.5 s, or the task's own offset if longer) leaves the
 *    root hog a third or less at N = 32, and at rr_interval 100 such a cap
 *    drops the group factor, which gives the group the larger share from
 *    N = 2 on: both fail. Windows of 60 slices
 *    or more, and over a turn of every hog: settle 0.5 s and measure 2 s
 *    at rr_interval 6; settle 2 s and measure 6 s at 100 (10 s for 32).
 * B. One CPU, an IDLEPRIO (SCHED_IDLE) hog started after a NORMAL nice-19
 *    hog gets less than 3 % of the CPU at rr_interval 1, 6, 25, 100 and
 *    1000. A nice-19 offset is rr_interval * 1.1^39 (about 41 times
 *    rr_interval), more than the IDLEPRIO delay (1 s) from rr_interval 25
 *    on: a scheduler that sorts IDLEPRIO by that delay alone puts it
 *    before nice 19 there, and fails. Windows of at least 3 s and
 *    of 3 slices (settle 0.5 s and measure 3 s up to rr_interval 25, settle
 *    1 s and measure 3 s at 100, 4 s at 1000).
 *
 * Shares come from /proc/<pid>/schedstat run times over the window, the
 * hogs pinned to the last CPU. A failing point is measured once more. On
 * the vds=off boot (EEVDF, no kernel.rr_interval) A runs at the default
 * only, its rr_interval 100 points and B are skipped: EEVDF gives
 * SCHED_IDLE weight 3 against nice 19's 15, about 17 %. About 60 s when
 * every point passes, about 110 s if every one is measured twice.
 * rr_interval is restored, the cgroup removed and every hog killed on the
 * way out.
 */
#include "vds_test.h"
#include <math.h>

#define CG		"/sys/fs/cgroup"
#define GRP		"vds-gscale"
#define RR		"/proc/sys/kernel/rr_interval"
#define MAX_HOGS	40

static pid_t hogs[MAX_HOGS];
static int nhogs, on_vds, made_grp, cpu_enabled;
static pid_t main_pid;
static char old_rr[16];

/*
 * All killed first, then reaped: one at a time, each killed hog would wait
 * for its turn among the others, a round of 33 slices at rr_interval 100.
 */
static void kill_hogs(void)
{
	int i;

	for (i = 0; i < nhogs; i++)
		kill(hogs[i], SIGKILL);
	while (nhogs > 0)
		kill_wait(hogs[--nhogs]);
}

/* The group, once its hogs are reaped (a moment later if it is busy). */
static void remove_group(void)
{
	int i;

	for (i = 0; made_grp && i < 10; i++) {
		if (!rmdir(CG "/" GRP) || errno == ENOENT)
			made_grp = 0;
		else
			usleep(10000);
	}
}

/*
 * Every exit of the test (main's return, exit(), a signal): the hogs,
 * the cgroup, the cpu controller if the test enabled it, rr_interval.
 * Forked hogs inherit the handlers and do nothing here.
 */
static void cleanup(void)
{
	if (getpid() != main_pid)
		return;
	kill_hogs();
	remove_group();
	if (cpu_enabled && !write_file(CG "/cgroup.subtree_control", "-cpu"))
		cpu_enabled = 0;
	if (old_rr[0] && !write_file(RR, old_rr))
		old_rr[0] = 0;
}

static void on_signal(int sig)
{
	(void)sig;
	cleanup();
	_exit(1);
}

static int set_rr(int ms)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", ms);
	return write_file(RR, v);
}

static int cg_add(const char *procs, pid_t pid)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", pid);
	return write_file(procs, v);
}

/*
 * The group of part A, with the cpu controller: 0, or -errno and in
 * @why what failed. Only a controller that cannot be enabled is a skip.
 */
static int setup_group(char *why, size_t len)
{
	int r;

	if (!cg_root_has_cpu()) {
		r = write_file(CG "/cgroup.subtree_control", "+cpu");
		if (r) {
			snprintf(why, len, "cgroup v2 cpu controller cannot be enabled (%s)",
				 strerror(-r));
			return 1;
		}
		cpu_enabled = 1;
	}
	if (mkdir(CG "/" GRP, 0755) && errno != EEXIST) {
		r = -errno;
		snprintf(why, len, "mkdir " CG "/" GRP ": %s", strerror(-r));
		return r;
	}
	made_grp = 1;
	r = write_file(CG "/" GRP "/cpu.weight", "100");
	if (r)
		snprintf(why, len, GRP "/cpu.weight = 100: %s", strerror(-r));
	return r;
}

/* A nice-@nice hog on @cpu, pinned by its parent as well (no wait). */
static pid_t hog_on(int cpu, int nice)
{
	pid_t pid = spawn_hog(cpu, nice);

	if (pid > 0) {
		pin_to(pid, cpu);
		hogs[nhogs++] = pid;
	}
	return pid;
}

/*
 * A root hog and @n hogs of the group on @cpu: the root hog's share of
 * their run time over @ms after @settle ms, -1 if they could not be set
 * up; @msg says what was measured.
 */
static double root_share(int cpu, int n, unsigned int settle, unsigned int ms,
			 char *msg, size_t len)
{
	uint64_t r0[MAX_HOGS], d, root = 0, sum = 0;
	int i, bad = 0;

	for (i = 0; i <= n; i++) {
		if (hog_on(cpu, 0) < 0 ||
		    cg_add(i ? CG "/" GRP "/cgroup.procs" : CG "/cgroup.procs",
			   hogs[nhogs - 1]))
			bad++;
	}
	if (bad) {
		kill_hogs();
		snprintf(msg, len, "%d of %d hogs not forked or not moved to their cgroup",
			 bad, n + 1);
		return -1;
	}
	sleep_ms(settle);
	for (i = 0; i < nhogs; i++)
		r0[i] = schedstat_run(hogs[i]);
	sleep_ms(ms);
	for (i = 0; i < nhogs; i++) {
		d = schedstat_run(hogs[i]) - r0[i];
		if (!i)
			root = d;
		sum += d;
	}
	if (on_vds)
		diag("group factors: root hog %.3f, a hog of the group %.3f",
		     proc_field(hogs[0], "sched", "vds.group_factor"),
		     proc_field(hogs[1], "sched", "vds.group_factor"));
	kill_hogs();
	snprintf(msg, len, "root hog %.1f%% (%.0f of %.0f ms run in %u ms)",
		 sum ? 100.0 * root / sum : 0.0, root / 1e6, sum / 1e6, ms);
	return sum ? (double)root / sum : 0;
}

static void group_point(int cpu, int rr, int n)
{
	unsigned int settle = rr >= 100 ? 2000 : 500;
	/* At rr_interval 100 a turn of 32 hogs and the root hog is 6.4 s. */
	unsigned int ms = rr < 100 ? 2000 : n > 4 ? 10000 : 6000;
	char what[128], msg[160], first[160] = "";
	int attempt, ok = 0, r;
	double share;

	snprintf(what, sizeof(what),
		 "%s %d ms, one root hog against %d hog%s of a cpu.weight 100 group on CPU %d",
		 on_vds ? "rr_interval" : "EEVDF, windows of rr_interval", rr,
		 n, n == 1 ? "" : "s", cpu);
	if (on_vds) {
		r = set_rr(rr);
		if (r) {
			tap_ok(0, "%s: rr_interval not set (%s)", what, strerror(-r));
			return;
		}
	}
	for (attempt = 0; attempt < 2 && !ok; attempt++) {
		share = root_share(cpu, n, settle, ms, msg, sizeof(msg));
		ok = share >= 0 && fabs(share - 0.5) <= 0.25 * 0.5;
		if (!ok) {
			snprintf(first, sizeof(first), "%s", msg);
			diag("%s, first attempt: %s; measuring once more", what, msg);
		}
	}
	tap_ok(ok, "%s: %s, expected 50%% within 25%% (37.5-62.5%%)%s%s", what, msg,
	       ok && *first ? "; first attempt " : "", ok ? first : "");
}

/* Forked after the nice-19 hog: SCHED_IDLE, spinning on @cpu. */
static pid_t idle_hog_on(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sched_param sp = { 0 };
		volatile uint64_t x = 0;

		pin_to(0, cpu);
		sched_setscheduler(0, SCHED_IDLE, &sp);
		for (;;)
			x++;
	}
	if (pid > 0) {
		pin_to(pid, cpu);
		hogs[nhogs++] = pid;
	}
	return pid;
}

/*
 * A nice-19 hog, then an IDLEPRIO hog, on @cpu: the IDLEPRIO hog's share
 * of their run time, -1 if they were not what they should be.
 */
static double idle_share(int cpu, int rr, char *msg, size_t len)
{
	unsigned int settle = rr >= 100 ? 1000 : 500;
	unsigned int ms = 4 * rr > 3000 ? 4 * rr : 3000;
	struct schedstat i0 = { 0 }, i1 = { 0 };
	uint64_t n0, idle, low, sum;
	int policy, nice, bad;

	if (hog_on(cpu, 19) < 0 || idle_hog_on(cpu) < 0) {
		int e = errno;

		kill_hogs();
		snprintf(msg, len, "fork: %s", strerror(e));
		return -1;
	}
	sleep_ms(settle);
	policy = sched_getscheduler(hogs[1]);
	nice = getpriority(PRIO_PROCESS, hogs[0]);
	n0 = schedstat_run(hogs[0]);
	bad = read_schedstat(hogs[1], &i0);
	sleep_ms(ms);
	low = schedstat_run(hogs[0]) - n0;
	bad |= read_schedstat(hogs[1], &i1);
	kill_hogs();
	idle = i1.run_ns - i0.run_ns;
	sum = idle + low;
	if (policy != SCHED_IDLE || nice != 19 || bad) {
		snprintf(msg, len, "policy %d (SCHED_IDLE is %d), nice %d (19)%s",
			 policy, SCHED_IDLE, nice, bad ? ", no schedstat" : "");
		return -1;
	}
	snprintf(msg, len, "IDLEPRIO %.2f%% (%.1f ms in %llu slices, nice 19 %.0f ms, in %u ms)",
		 sum ? 100.0 * idle / sum : 0.0, idle / 1e6,
		 (unsigned long long)(i1.slices - i0.slices), low / 1e6, ms);
	return sum ? (double)idle / sum : -1;
}

static void idle_point(int cpu, int rr)
{
	char what[96], msg[160], first[160] = "";
	int attempt, ok = 0, r;
	double share;

	snprintf(what, sizeof(what),
		 "rr_interval %d ms, an IDLEPRIO hog against a nice-19 hog on CPU %d", rr, cpu);
	r = set_rr(rr);
	if (r) {
		tap_ok(0, "%s: rr_interval not set (%s)", what, strerror(-r));
		return;
	}
	for (attempt = 0; attempt < 2 && !ok; attempt++) {
		share = idle_share(cpu, rr, msg, sizeof(msg));
		ok = share >= 0 && share < 0.03;
		if (!ok) {
			snprintf(first, sizeof(first), "%s", msg);
			diag("%s, first attempt: %s; measuring once more", what, msg);
		}
	}
	tap_ok(ok, "%s: %s, expected < 3%%%s%s", what, msg,
	       ok && *first ? "; first attempt " : "", ok ? first : "");
}

int main(void)
{
	static const int group_n[] = { 1, 4, 32 };
	static const int idle_rr[] = { 1, 6, 25, 100, 1000 };
	int cpu = ncpus_online() - 1, r;
	char why[160] = "";
	unsigned int i;

	main_pid = getpid();
	on_vds = vds_active();
	tap_plan(2 * 3 + 5);
	if (on_vds)
		read_file(RR, old_rr, sizeof(old_rr));
	atexit(cleanup);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	diag("%s, hogs on CPU %d, rr_interval %s", on_vds ? "VDS" : "EEVDF", cpu,
	     old_rr[0] ? old_rr : "none");

	/* A: a root hog against a group of N, at rr_interval 6 and 100. */
	r = setup_group(why, sizeof(why));
	for (i = 0; i < 3; i++) {
		if (r > 0)
			tap_skip("%s", why);
		else if (r < 0)
			tap_ok(0, "rr_interval 6 ms, a root hog against %d hogs of a group: %s",
			       group_n[i], why);
		else
			group_point(cpu, 6, group_n[i]);
	}
	for (i = 0; i < 3; i++) {
		if (!on_vds)
			tap_skip("rr_interval 100 ms, a root hog against %d hogs of a group: no kernel.rr_interval under EEVDF (vds=off)",
				 group_n[i]);
		else if (r > 0)
			tap_skip("%s", why);
		else if (r < 0)
			tap_ok(0, "rr_interval 100 ms, a root hog against %d hogs of a group: %s",
			       group_n[i], why);
		else
			group_point(cpu, 100, group_n[i]);
	}
	remove_group();

	/* B: IDLEPRIO below nice 19 at every rr_interval. */
	for (i = 0; i < sizeof(idle_rr) / sizeof(idle_rr[0]); i++) {
		if (!on_vds)
			tap_skip("rr_interval %d ms, IDLEPRIO against nice 19: EEVDF gives SCHED_IDLE weight 3 against nice 19's 15 (about 17%%)",
				 idle_rr[i]);
		else
			idle_point(cpu, idle_rr[i]);
	}
	cleanup();
	return tap_done();
}
