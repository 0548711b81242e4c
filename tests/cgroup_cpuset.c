// SPDX-License-Identifier: GPL-2.0
/*
 * cpusets and uclamp keep working for normal tasks. A hog moved into a
 * cgroup v2 cpuset is only ever seen on the cpuset's CPUs, and follows a
 * change of cpuset.cpus; a normal task accepts utilisation clamps through
 * sched_setattr() and reports them back through sched_getattr().
 */
#include "vds_test.h"

#ifndef SCHED_FLAG_UTIL_CLAMP_MIN
#define SCHED_FLAG_UTIL_CLAMP_MIN 0x20
#define SCHED_FLAG_UTIL_CLAMP_MAX 0x40
#endif
#define SCHED_FLAG_KEEP_ALL 0x18

struct shared {
	volatile int cpu;
	volatile uint64_t count;
};

/* Sample the hog's CPU for ms; count samples outside the mask. */
static int outside(struct shared *sh, unsigned long mask, int ms, int *samples)
{
	int bad = 0, i;

	*samples = 0;
	for (i = 0; i < ms; i++) {
		usleep(1000);
		(*samples)++;
		if (!(mask & (1ul << sh->cpu)))
			bad++;
	}
	return bad;
}

int main(void)
{
	const char *cg = "/sys/fs/cgroup/vds-test";
	struct shared *sh = shared_mem(sizeof(*sh));
	int m = ncpus_online(), n, bad, r;
	char path[128], v[32];
	struct vds_sched_attr attr;
	pid_t pid, *others = calloc(m, sizeof(*others));
	int i;

	tap_plan(5);
	if (m < 3) {
		for (i = 0; i < 5; i++)
			tap_skip("needs 3 CPUs");
		return 0;
	}
	if (!others || !sh) {
		for (i = 0; i < 5; i++)
			tap_ok(0, "out of memory");
		return tap_done();
	}
	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+cpuset");
	mkdir(cg, 0755);
	snprintf(path, sizeof(path), "%s/cpuset.cpus", cg);
	r = write_file(path, "1-2");
	tap_ok(r == 0, "cpuset.cpus = 1-2 (%s)", r ? strerror(-r) : "ok");
	pid = fork();
	if (pid == 0) {
		for (;;) {
			sh->cpu = sched_getcpu();
			sh->count++;
		}
	}
	for (i = 0; i < m; i++)
		others[i] = spawn_hog(-1, 0);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(v, sizeof(v), "%d", pid);
	write_file(path, v);
	sleep_ms(100);
	bad = outside(sh, 0x6, 1000, &n);
	tap_ok(bad == 0, "a task in cpuset 1-2 stays there under load (%d of %d samples outside)", bad, n);
	snprintf(path, sizeof(path), "%s/cpuset.cpus", cg);
	write_file(path, "0");
	sleep_ms(100);
	bad = outside(sh, 0x1, 1000, &n);
	tap_ok(bad == 0, "it follows cpuset.cpus = 0 (%d of %d samples outside)", bad, n);
	for (i = 0; i < m; i++)
		kill_wait(others[i]);
	kill_wait(pid);
	rmdir(cg);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sched_policy = SCHED_OTHER;
	attr.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP_MIN | SCHED_FLAG_UTIL_CLAMP_MAX;
	attr.sched_util_min = 256;
	attr.sched_util_max = 768;
	r = syscall(SYS_sched_setattr, 0, &attr, 0);
	tap_ok(r == 0, "sched_setattr sets uclamp 256..768 on a normal task (%s)", r ? strerror(errno) : "ok");
	memset(&attr, 0, sizeof(attr));
	r = syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0);
	tap_ok(r == 0 && attr.sched_util_min == 256 && attr.sched_util_max == 768,
	       "sched_getattr reports uclamp %u..%u", attr.sched_util_min, attr.sched_util_max);
	return tap_done();
}
