// SPDX-License-Identifier: GPL-2.0
/*
 * Removing a cgroup whose cpu.max throttled it on every CPU. Each round
 * makes a group with the smallest quota ("1000 100000"), runs a hog in it
 * pinned to each CPU until the group is throttled there, empties it (the
 * hogs move to the root group, or are killed inside it) and removes it.
 *
 * A CPU keeps a list of the groups throttled on it, which its tick walks.
 * A group removed while it is on that list is freed under the tick's feet:
 * the KASAN kernel reports the use-after-free, and on any kernel the CPU's
 * nr_throttled in sched/debug stays above zero after every group is gone
 * (the removed group's period timer is cancelled, so nothing unthrottles
 * it). The last check asks that every CPU still runs a hog at once.
 *
 * Runs on both schedulers; the throttle and nr_throttled checks read VDS's
 * block of sched/debug and are skipped where VDS is not active.
 */
#include "vds_test.h"

#define CG	"/sys/fs/cgroup"
#define ROUNDS	24

static pid_t *hog;

/* Sum (and count of CPUs with a non-zero value) of vds_rq's .nr_throttled. */
static long vds_throttled(int *cpus)
{
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");
	char line[256];
	long sum = -1;

	*cpus = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ".nr_throttled");
		long v;

		/* cfs_rq blocks have no nr_throttled line; only vds_rq's. */
		if (!p || !(p = strchr(p, ':')))
			continue;
		v = strtol(p + 1, NULL, 10);
		sum = (sum < 0 ? 0 : sum) + v;
		if (v)
			(*cpus)++;
	}
	fclose(f);
	return sum;
}

int main(void)
{
	int n = ncpus_online(), vds = vds_active();
	int made = 0, removed = 0, thr_rounds = 0, cpus, attempt, ok = 0;
	long left = -1;
	char grp[64], path[96], v[16];
	double worst = 0;
	uint64_t *r0;

	hog = calloc(n, sizeof(*hog));
	r0 = calloc(n, sizeof(*r0));
	tap_plan(4);
	if (!hog || !r0) {
		for (int i = 0; i < 4; i++)
			tap_ok(0, "%d hogs: out of memory", n);
		return tap_done();
	}
	write_file(CG "/cgroup.subtree_control", "+cpu");

	for (int r = 0; r < ROUNDS; r++) {
		int kill_inside = r & 1;

		snprintf(grp, sizeof(grp), CG "/vds-rmdir-%d", r);
		if (mkdir(grp, 0755))
			break;
		snprintf(path, sizeof(path), "%s/cpu.max", grp);
		if (write_file(path, "1000 100000")) {
			rmdir(grp);
			break;
		}
		made++;
		snprintf(path, sizeof(path), "%s/cgroup.procs", grp);
		for (int c = 0; c < n; c++) {
			hog[c] = spawn_hog(c, 0);
			snprintf(v, sizeof(v), "%d", hog[c]);
			write_file(path, v);
		}
		/*
		 * 1 ms of quota for n CPUs: throttled on each within a tick or
		 * two, and then all the time but for a tick or so after each
		 * period's refill, when a CPU may run its share.
		 */
		for (int w = 0; w < 100; w++) {
			sleep_ms(10);
			if (!vds || vds_throttled(&cpus) < 0 || cpus >= n)
				break;
		}
		if (vds && vds_throttled(&cpus) >= 0 && cpus >= n)
			thr_rounds++;
		for (int c = 0; c < n; c++) {
			if (!kill_inside) {
				snprintf(v, sizeof(v), "%d", hog[c]);
				write_file(CG "/cgroup.procs", v);
			}
			kill_wait(hog[c]);
		}
		if (!rmdir(grp))
			removed++;
		else
			diag("rmdir %s: %s", grp, strerror(errno));
	}
	tap_ok(made == ROUNDS && removed == ROUNDS,
	       "%d of %d groups with cpu.max 1000 100000 made, %d removed after their hogs left (even rounds) or were killed inside (odd)",
	       made, ROUNDS, removed);

	/*
	 * The removals above are the test; this says they were made while
	 * the group was throttled everywhere, as they must be to catch a
	 * removed group left on a CPU's list. A CPU whose share of a period
	 * let its hog run on for a moment is not throttled then: half of
	 * the rounds are enough.
	 */
	if (vds)
		tap_ok(made > 0 && thr_rounds * 2 >= made,
		       "VDS throttled the group on all %d CPUs at once before its removal in %d of %d rounds (at least half)",
		       n, thr_rounds, made);
	else
		tap_skip("throttled on every CPU: VDS is not active");

	/* The groups' memory is freed after RCU grace periods: give it time. */
	if (vds) {
		for (int w = 0; w < 20; w++) {
			sleep_ms(100);
			left = vds_throttled(&cpus);
			if (left == 0)
				break;
		}
		tap_ok(left == 0,
		       "after every group is removed no CPU counts a throttled group (nr_throttled %ld on %d CPUs)",
		       left, cpus);
	} else {
		tap_skip("nr_throttled: VDS is not active");
	}

	/* And every CPU still runs what it is given. */
	for (attempt = 0; attempt < 2 && !ok; attempt++) {
		uint64_t t0, t;

		for (int c = 0; c < n; c++)
			hog[c] = spawn_hog(c, 0);
		sleep_ms(100);
		for (int c = 0; c < n; c++)
			r0[c] = schedstat_run(hog[c]);
		t0 = now_ns();
		sleep_ms(500);
		t = now_ns() - t0;
		worst = 1;
		for (int c = 0; c < n; c++) {
			double u = (double)(schedstat_run(hog[c]) - r0[c]) / t;

			if (u < worst)
				worst = u;
		}
		for (int c = 0; c < n; c++)
			kill_wait(hog[c]);
		ok = worst >= 0.5;
		if (!ok)
			diag("first attempt: the slowest CPU's hog ran %.2f of the time; once more", worst);
	}
	tap_ok(ok, "afterwards a hog pinned to each CPU runs: the slowest got %.2f of its CPU (>= 0.50)",
	       worst);
	write_file(CG "/cgroup.subtree_control", "-cpu");
	return tap_done();
}
