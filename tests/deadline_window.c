// SPDX-License-Identifier: GPL-2.0
/*
 * Every VDS deadline stays near now, whatever the cgroup weights. A group's
 * factor (its load over its weight, up to 1024) multiplies how far a fresh
 * deadline moves, and the CPU's average earliness feeds that move back: a
 * move that is not bounded grows with each used-up slice until deadlines
 * lie hours away (a task that waits for hours: starvation) or wrap into
 * the ISO band, and the product overflows.
 *
 * Four mixes of busy tasks on one CPU, two seconds each: a weight-1 group
 * of 8 hogs alone, the same beside a root hog, a weight-10000 group of one
 * hog beside 4 root hogs, and a weight-1 group nested in a weight-1 group.
 * Every 50 ms each hog's /proc/<pid>/sched must show the NORMAL band and a
 * deadline within 60 s of now. sched-vds.rst's window is much narrower
 * (about a second); 60 s leaves room for any wait a busy host adds, while
 * a runaway deadline is off by hours or lands in the ISO band.
 */
#include "vds_test.h"
#include <math.h>

#define CG	"/sys/fs/cgroup"
#define NH	9
#define BOUND_NS	(60.0 * 1e9)

struct mix {
	const char *name;
	const char *outer, *inner;	/* cpu.weight, NULL: no such group */
	int in_group, in_root;
};

static const struct mix mixes[] = {
	{ "8 hogs in a weight-1 group alone", "1", NULL, 8, 0 },
	{ "8 hogs in a weight-1 group beside a root hog", "1", NULL, 8, 1 },
	{ "1 hog in a weight-10000 group beside 4 root hogs", "10000", NULL, 1, 4 },
	{ "4 hogs in a weight-1 group inside a weight-1 group", "1", "1", 4, 0 },
};

static int run_mix(const struct mix *m, int cpu)
{
	const char *grp = m->inner ? CG "/vds-dlw/inner" : CG "/vds-dlw";
	pid_t hog[NH];
	int n = m->in_group + m->in_root, bad = 0, samples = 0;
	double worst = 0;
	char path[96], v[16];

	mkdir(CG "/vds-dlw", 0755);
	write_file(CG "/vds-dlw/cpu.weight", m->outer);
	if (m->inner) {
		write_file(CG "/vds-dlw/cgroup.subtree_control", "+cpu");
		mkdir(grp, 0755);
		snprintf(path, sizeof(path), "%s/cpu.weight", grp);
		write_file(path, m->inner);
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", grp);
	for (int i = 0; i < n; i++) {
		hog[i] = spawn_hog(cpu, 0);
		if (i < m->in_group) {
			snprintf(v, sizeof(v), "%d", hog[i]);
			write_file(path, v);
		}
	}
	for (int s = 0; s < 40; s++) {
		sleep_ms(50);
		for (int i = 0; i < n; i++) {
			double dl = proc_field(hog[i], "sched", "vds.deadline_from_now_ns");
			double band = proc_field(hog[i], "sched", "vds.band");

			samples++;
			if (fabs(dl) > worst)
				worst = fabs(dl);
			if (band != 1 || fabs(dl) > BOUND_NS) {
				if (bad++ < 3)
					diag("%s: hog %d band %.0f deadline %.0f ns from now",
					     m->name, i, band, dl);
			}
		}
	}
	/*
	 * All killed, then reaped: a killed hog of a weight-1 group runs to
	 * its exit at its turn, seconds away, and one at a time those add up.
	 */
	for (int i = 0; i < n; i++)
		kill(hog[i], SIGKILL);
	for (int i = 0; i < n; i++)
		kill_wait(hog[i]);
	if (m->inner)
		rmdir(grp);
	rmdir(CG "/vds-dlw");
	tap_ok(bad == 0,
	       "%s: %d of %d samples outside the NORMAL band or 60 s from now (farthest %.3f s)",
	       m->name, bad, samples, worst / 1e9);
	return bad;
}

int main(void)
{
	int cpu = ncpus_online() - 1;

	need_vds();
	tap_plan(sizeof(mixes) / sizeof(mixes[0]));
	write_file(CG "/cgroup.subtree_control", "+cpu");
	for (unsigned int i = 0; i < sizeof(mixes) / sizeof(mixes[0]); i++)
		run_mix(&mixes[i], cpu);
	write_file(CG "/cgroup.subtree_control", "-cpu");
	return tap_done();
}
