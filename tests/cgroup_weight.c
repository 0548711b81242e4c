// SPDX-License-Identifier: GPL-2.0
/*
 * Groups share the CPU by their weights: cgroup v2 cpu.weight, a nested
 * hierarchy, a weight changed while its tasks run, cpu.idle, and autogroup
 * (a session per setsid()) with kernel.sched_autogroup_enabled on and off.
 *
 * Runs on both schedulers against the same shares: EEVDF (vds=off) is the
 * control that shows the test measures what it claims. VDS folds a group's
 * weight and its number of runnable tasks into each task's deadline
 * offset (Documentation/scheduler/sched-vds.rst, "Groups"); under both, a
 * group's runnable tasks share what one task of the group's weight gets.
 *
 * Cases (CPU hogs; run time from /proc/<pid>/schedstat):
 *  - one CPU, equal weights, one hog in A and four in B: A about 1/2;
 *  - one CPU, weights 100 and 300, two hogs each: 1/4 and 3/4, then A's
 *    weight set to 300 while they run: 1/2;
 *  - one CPU, P (100) holding C1 (100, one hog) and C2 (300, two hogs),
 *    beside Q (100, one hog): Q 1/2, C1 1/8, C2 3/8;
 *  - CPUs 0-1, autogroup on: eight hogs in one session, one in another:
 *    each session about half of the two CPUs; autogroup off: nine equal
 *    shares.
 * A group's share must be within 25 % (relative) of the expected one
 * (a third either way for the autogroup cases, which depend on balancing
 * across two CPUs); a failing case is measured once more.
 */
#include "vds_test.h"
#include <math.h>

#define CG		"/sys/fs/cgroup"
#define MAX_HOGS	12

struct hog {
	pid_t pid;
	int grp;	/* index into the case's groups */
};

static int cg_write(const char *grp, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), CG "/%s/%s", grp, file);
	return write_file(path, val);
}

static int cg_make(const char *grp, int weight)
{
	char path[256], v[16];

	snprintf(path, sizeof(path), CG "/%s", grp);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(v, sizeof(v), "%d", weight);
	return cg_write(grp, "cpu.weight", v);
}

static int cg_add(const char *grp, pid_t pid)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", pid);
	return cg_write(grp, "cgroup.procs", v);
}

static void cg_remove(const char *grp)
{
	char path[256];

	snprintf(path, sizeof(path), CG "/%s", grp);
	rmdir(path);
}

/* Run time of every hog over @ms after @settle ms, summed per group. */
static void group_shares(struct hog *h, int n, int ngrp, unsigned int settle,
			 unsigned int ms, double *share)
{
	uint64_t r0[MAX_HOGS], sum = 0, g[8] = { 0 };
	int i;

	sleep_ms(settle);
	for (i = 0; i < n; i++)
		r0[i] = schedstat_run(h[i].pid);
	sleep_ms(ms);
	for (i = 0; i < n; i++) {
		uint64_t d = schedstat_run(h[i].pid) - r0[i];

		g[h[i].grp] += d;
		sum += d;
	}
	for (i = 0; i < ngrp; i++)
		share[i] = sum ? (double)g[i] / sum : 0;
}

static int judge(const char * const *name, int ngrp, const double *want,
		 const double *got, double tol, char *msg, size_t len)
{
	int ok = 1, i, off = 0;

	for (i = 0; i < ngrp; i++) {
		off += snprintf(msg + off, len - off, "%s%s %.1f%% (%.1f%%)",
				i ? ", " : "", name[i], 100 * got[i], 100 * want[i]);
		if (fabs(got[i] - want[i]) > tol * want[i])
			ok = 0;
	}
	return ok;
}

/*
 * One cgroup case: groups @grp (paths below CG, parents first) with
 * weights @weight; @count[i] hogs in group i, all pinned to CPU 0; the
 * shares of the groups @leaf[0..nleaf) are measured. If @rew is given,
 * group @rew_grp gets weight @rew_weight after the first measurement and
 * the second one is judged against @want2.
 */
struct cgcase {
	const char *what;
	int ngrp;
	const char *grp[6];
	int weight[6];
	int count[6];
	int nleaf;
	int leaf[4];
	const char *leafname[4];
	double want[4];
	int rew_grp, rew_weight;
	double want2[4];
};

static int run_cgcase(const struct cgcase *c, char *msg, size_t len,
		      char *msg2, size_t len2)
{
	struct hog h[MAX_HOGS];
	double got[4];
	int n = 0, i, k, ok, ok2 = 1;
	char v[16];

	for (i = 0; i < c->ngrp; i++) {
		cg_make(c->grp[i], c->weight[i]);
		/* A group that holds groups passes the controller on. */
		if (!c->count[i])
			cg_write(c->grp[i], "cgroup.subtree_control", "+cpu");
	}
	for (i = 0; i < c->nleaf; i++) {
		for (k = 0; k < c->count[c->leaf[i]]; k++) {
			h[n].pid = spawn_hog(0, 0);
			h[n].grp = i;
			cg_add(c->grp[c->leaf[i]], h[n].pid);
			n++;
		}
	}
	group_shares(h, n, c->nleaf, 400, 3000, got);
	ok = judge(c->leafname, c->nleaf, c->want, got, 0.25, msg, len);
	if (vds_active()) {
		/* What VDS multiplied the offsets of each group's tasks by. */
		char f[128];
		int off = 0;

		for (i = 0, k = 0; i < c->nleaf; k += c->count[c->leaf[i]], i++)
			off += snprintf(f + off, sizeof(f) - off, " %s %.3f", c->leafname[i],
					proc_field(h[k].pid, "sched", "vds.group_factor"));
		diag("%s: group factors%s", c->what, f);
	}
	if (c->rew_weight) {
		snprintf(v, sizeof(v), "%d", c->rew_weight);
		cg_write(c->grp[c->rew_grp], "cpu.weight", v);
		group_shares(h, n, c->nleaf, 300, 3000, got);
		ok2 = judge(c->leafname, c->nleaf, c->want2, got, 0.25, msg2, len2);
	}
	for (i = 0; i < n; i++)
		kill_wait(h[i].pid);
	for (i = c->ngrp - 1; i >= 0; i--)
		cg_remove(c->grp[i]);
	return ok && ok2;
}

static void cgcase(const struct cgcase *c)
{
	char msg[256], msg2[256] = "", first[512] = "";
	int attempt, ok = 0;

	for (attempt = 0; attempt < 2 && !ok; attempt++) {
		ok = run_cgcase(c, msg, sizeof(msg), msg2, sizeof(msg2));
		if (!ok) {
			snprintf(first, sizeof(first), "%s%s%s", msg,
				 *msg2 ? "; after the new weight " : "", msg2);
			diag("%s, first attempt: %s; measuring once more", c->what, first);
		}
	}
	tap_ok(ok, "%s: measured (expected) %s%s%s%s%s", c->what, msg,
	       *msg2 ? "; after the new weight " : "", msg2,
	       ok && *first ? "; first attempt " : "", ok ? first : "");
}

/*
 * Autogroup: a session of @big hogs and one of @small hogs, all allowed on
 * CPUs 0 and 1; the machine share of each session.
 */
static void sessions(int big, int small, double *share)
{
	struct hog *h = shared_mem(sizeof(*h) * MAX_HOGS);
	int sizes[2] = { big, small }, s, i, n = 0;
	uint64_t r0[MAX_HOGS], g[2] = { 0 }, sum = 0;
	pid_t leader[2];

	for (s = 0; s < 2; s++) {
		int base = n;

		leader[s] = fork();
		if (leader[s] == 0) {
			cpu_set_t set;
			volatile uint64_t x = 0;

			CPU_ZERO(&set);
			CPU_SET(0, &set);
			CPU_SET(1, &set);
			sched_setaffinity(0, sizeof(set), &set);
			setsid();
			for (i = 1; i < sizes[s]; i++) {
				pid_t p = fork();

				if (p == 0)
					for (;;)
						x++;
				h[base + i].pid = p;
			}
			for (;;)
				x++;
		}
		h[base].pid = leader[s];
		for (i = 0; i < sizes[s]; i++)
			h[n++].grp = s;
	}
	sleep_ms(500);
	for (i = 0; i < n; i++)
		r0[i] = h[i].pid > 0 ? schedstat_run(h[i].pid) : 0;
	sleep_ms(4000);
	for (i = 0; i < n; i++) {
		uint64_t d = h[i].pid > 0 ? schedstat_run(h[i].pid) - r0[i] : 0;

		g[h[i].grp] += d;
		sum += d;
	}
	/* The sessions' other hogs are not our children: kill by pid. */
	for (i = 0; i < n; i++)
		if (h[i].pid > 0 && h[i].pid != leader[0] && h[i].pid != leader[1])
			kill(h[i].pid, SIGKILL);
	kill_wait(leader[0]);
	kill_wait(leader[1]);
	munmap(h, sizeof(*h) * MAX_HOGS);
	for (s = 0; s < 2; s++)
		share[s] = sum ? (double)g[s] / sum : 0;
}

static void autogroup_case(int on)
{
	static const char *names[2] = { "session of 8", "session of 1" };
	double want[2], got[2];
	char msg[256], first[256] = "";
	int attempt, ok = 0;

	want[0] = on ? 0.5 : 8.0 / 9;
	want[1] = on ? 0.5 : 1.0 / 9;
	write_file("/proc/sys/kernel/sched_autogroup_enabled", on ? "1" : "0");
	for (attempt = 0; attempt < 2 && !ok; attempt++) {
		sessions(8, 1, got);
		ok = judge(names, 2, want, got, 1.0 / 3, msg, sizeof(msg));
		if (!ok) {
			snprintf(first, sizeof(first), "%s", msg);
			diag("autogroup %s, first attempt: %s; measuring once more",
			     on ? "on" : "off", msg);
		}
	}
	tap_ok(ok, "autogroup %s, 9 hogs on CPUs 0-1: measured (expected) %s%s%s",
	       on ? "on" : "off", msg, ok && *first ? "; first attempt " : "",
	       ok ? first : "");
}

/*
 * cpu.idle: a group marked idle runs only when nothing else wants the CPU
 * (EEVDF: at the weight of SCHED_IDLE, 3 against 1024; VDS: in the
 * IDLEPRIO band, at worst a slice a second): under 3 % beside a hog.
 */
static void idle_case(void)
{
	struct hog h[2];
	double got[2];
	int attempt, ok = 0, r;

	cg_make("vds-a", 100);
	cg_make("vds-i", 100);
	r = cg_write("vds-i", "cpu.idle", "1");
	for (attempt = 0; attempt < 2 && !ok; attempt++) {
		for (int i = 0; i < 2; i++) {
			h[i].pid = spawn_hog(0, 0);
			h[i].grp = i;
			cg_add(i ? "vds-i" : "vds-a", h[i].pid);
		}
		group_shares(h, 2, 2, 400, 3000, got);
		ok = r == 0 && got[1] < 0.03 && got[0] > 0.95;
		for (int i = 0; i < 2; i++)
			kill_wait(h[i].pid);
		if (!ok)
			diag("cpu.idle, first attempt: %.1f%% against %.1f%%; measuring once more",
			     100 * got[1], 100 * got[0]);
	}
	tap_ok(ok, "a hog in a cpu.idle group beside one in another group, one CPU: %.2f%% against %.2f%% (< 3%%; cpu.idle write: %s)",
	       100 * got[1], 100 * got[0], r ? strerror(-r) : "ok");
	cg_remove("vds-i");
	cg_remove("vds-a");
}

int main(void)
{
	static const struct cgcase equal = {
		.what = "equal weights, 1 hog against 4, one CPU",
		.ngrp = 2, .grp = { "vds-a", "vds-b" }, .weight = { 100, 100 },
		.count = { 1, 4 }, .nleaf = 2, .leaf = { 0, 1 },
		.leafname = { "A", "B" }, .want = { 0.5, 0.5 },
	};
	static const struct cgcase weights = {
		.what = "weights 100 and 300, 2 hogs each, one CPU",
		.ngrp = 2, .grp = { "vds-a", "vds-b" }, .weight = { 100, 300 },
		.count = { 2, 2 }, .nleaf = 2, .leaf = { 0, 1 },
		.leafname = { "A", "B" }, .want = { 0.25, 0.75 },
		.rew_grp = 0, .rew_weight = 300, .want2 = { 0.5, 0.5 },
	};
	static const struct cgcase nested = {
		.what = "nested: P(100){C1(100) 1 hog, C2(300) 2 hogs}, Q(100) 1 hog",
		.ngrp = 4, .grp = { "vds-p", "vds-p/c1", "vds-p/c2", "vds-q" },
		.weight = { 100, 100, 300, 100 }, .count = { 0, 1, 2, 1 },
		.nleaf = 3, .leaf = { 1, 2, 3 }, .leafname = { "C1", "C2", "Q" },
		.want = { 0.125, 0.375, 0.5 },
	};
	char path[64];
	int r;

	if (ncpus_online() < 2)
		tap_skip_all("needs 2 CPUs");
	tap_plan(7);
	r = write_file(CG "/cgroup.subtree_control", "+cpu");
	tap_ok(r == 0, "cgroup v2 cpu controller enabled (%s)", r ? strerror(-r) : "ok");
	cgcase(&equal);
	cgcase(&weights);
	cgcase(&nested);
	idle_case();
	snprintf(path, sizeof(path), "/proc/sys/kernel/sched_autogroup_enabled");
	if (access(path, W_OK)) {
		tap_skip("no autogroup in this kernel");
		tap_skip("no autogroup in this kernel");
	} else {
		autogroup_case(1);
		autogroup_case(0);
		write_file(path, "1");
	}
	/* Later tests' cgroups get no cpu controller from this one. */
	write_file(CG "/cgroup.subtree_control", "-cpu");
	return tap_done();
}
