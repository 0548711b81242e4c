// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 cpu.max: a group's tasks get at most its quota per period,
 * cpu.stat counts the throttling, a throttled group leaves its CPUs to
 * other tasks, and writing "max" lifts the limit at once. A bad value is
 * refused and changes nothing.
 *
 * Runs on both schedulers with the same expectations: EEVDF (vds=off) is
 * the control. Four hogs in a group with cpu.max "50000 100000" (half a
 * CPU) on CPUs 0-1; usage is the group's run time (/proc/<pid>/schedstat)
 * over wall time, in CPUs. Each timed check is measured once more if it
 * fails (a busy host).
 */
#include "vds_test.h"

#define CG	"/sys/fs/cgroup"
#define GRP	CG "/vds-max"
#define NHOG	4

static pid_t hog[NHOG], roothog[2];

static uint64_t group_run(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < NHOG; i++)
		sum += schedstat_run(hog[i]);
	return sum;
}

/* Run time of the group and of the root hogs (if any) over @ms, in CPUs. */
static void usage(unsigned int ms, int with_root, double *grp, double *root)
{
	uint64_t g0 = group_run(), r0 = 0, t0 = now_ns(), r1 = 0, t;

	if (with_root)
		r0 = schedstat_run(roothog[0]) + schedstat_run(roothog[1]);
	sleep_ms(ms);
	t = now_ns() - t0;
	if (with_root)
		r1 = schedstat_run(roothog[0]) + schedstat_run(roothog[1]);
	*grp = (double)(group_run() - g0) / t;
	*root = with_root ? (double)(r1 - r0) / t : 0;
}

static long stat_field(const char *key)
{
	char buf[1024], *p;
	size_t kl = strlen(key);

	if (read_file(GRP "/cpu.stat", buf, sizeof(buf)))
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return atol(p + kl + 1);
	}
	return -1;
}

int main(void)
{
	char buf[64], v[16];
	double g, r;
	long thr0, us0, thr1, us1;
	int ok, r1, attempt;
	cpu_set_t set;

	if (ncpus_online() < 2)
		tap_skip_all("needs 2 CPUs");
	tap_plan(7);
	r1 = write_file(CG "/cgroup.subtree_control", "+cpu");
	mkdir(GRP, 0755);
	r1 = r1 ? r1 : write_file(GRP "/cpu.max", "50000 100000");
	read_file(GRP "/cpu.max", buf, sizeof(buf));
	tap_ok(r1 == 0 && !strncmp(buf, "50000 100000", 12),
	       "cpu.max set to 50000 100000 (%s; reads \"%.*s\")",
	       r1 ? strerror(-r1) : "ok", (int)strcspn(buf, "\n"), buf);
	r1 = write_file(GRP "/cpu.max", "-5 100000");
	read_file(GRP "/cpu.max", buf, sizeof(buf));
	tap_ok(r1 != 0 && !strncmp(buf, "50000 100000", 12),
	       "cpu.max \"-5 100000\" refused (%s), value unchanged (\"%.*s\")",
	       r1 ? strerror(-r1) : "accepted", (int)strcspn(buf, "\n"), buf);

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	for (int i = 0; i < NHOG; i++) {
		hog[i] = spawn_hog(-1, 0);
		sched_setaffinity(hog[i], sizeof(set), &set);
		snprintf(v, sizeof(v), "%d", hog[i]);
		write_file(GRP "/cgroup.procs", v);
	}
	sleep_ms(300);

	/* Alone: the group gets its quota and no more. */
	for (attempt = 0; attempt < 2; attempt++) {
		thr0 = stat_field("nr_throttled");
		us0 = stat_field("throttled_usec");
		usage(2000, 0, &g, &r);
		thr1 = stat_field("nr_throttled");
		us1 = stat_field("throttled_usec");
		ok = g <= 0.6 && g >= 0.3;
		if (ok)
			break;
		diag("first attempt: group used %.2f CPUs; measuring once more", g);
	}
	tap_ok(ok, "4 hogs under cpu.max 50000 100000 on 2 idle CPUs use %.2f CPUs (0.30-0.60)", g);
	tap_ok(thr1 - thr0 >= 5 && us1 - us0 > 100000,
	       "cpu.stat counts it: nr_throttled +%ld (>= 5 of 20 periods), throttled_usec +%ld (> 100000)",
	       thr1 - thr0, us1 - us0);

	/* With a hog of the root group on each CPU: they get what is left. */
	roothog[0] = spawn_hog(0, 0);
	roothog[1] = spawn_hog(1, 0);
	sleep_ms(300);
	for (attempt = 0; attempt < 2; attempt++) {
		usage(2000, 1, &g, &r);
		ok = r >= 1.2 && g <= 0.6;
		if (ok)
			break;
		diag("first attempt: root hogs %.2f, group %.2f CPUs; measuring once more", r, g);
	}
	tap_ok(ok, "beside a root hog per CPU: root hogs %.2f CPUs (>= 1.20), group %.2f (<= 0.60)", r, g);
	tap_ok(g >= 0.3, "the group still gets its quota: %.2f CPUs (>= 0.30)", g);
	kill_wait(roothog[0]);
	kill_wait(roothog[1]);

	/* "max": the limit goes at once. */
	r1 = write_file(GRP "/cpu.max", "max");
	for (attempt = 0; attempt < 2; attempt++) {
		sleep_ms(50);
		usage(1000, 0, &g, &r);
		ok = r1 == 0 && g >= 1.6;
		if (ok)
			break;
		diag("first attempt: group used %.2f CPUs after \"max\"; measuring once more", g);
	}
	tap_ok(ok, "after cpu.max \"max\" (%s) the group uses %.2f CPUs (>= 1.60)",
	       r1 ? strerror(-r1) : "ok", g);

	for (int i = 0; i < NHOG; i++)
		kill_wait(hog[i]);
	rmdir(GRP);
	write_file(CG "/cgroup.subtree_control", "-cpu");
	return tap_done();
}
