// SPDX-License-Identifier: GPL-2.0
/*
 * VDS hotplug affinity. For tasks pinned to {3}, {2,3} and {1,3}: offline
 * the CPUs of the mask (3, and 2), the task keeps making progress elsewhere;
 * online them again, the mask reads exactly as requested and the task runs
 * inside it. A multi-threaded process whose threads have different masks
 * gets each one back. A sched_setaffinity() while displaced wins over the
 * remembered mask. All CPUs but CPU 0 offline and back, three times: every
 * task is restored. Needs 4 CPUs.
 */
#include "vds_test.h"
#include <pthread.h>

struct probe {
	volatile uint64_t count;
	volatile int cpu;
};



static pid_t spawn_probe(struct probe *pr, unsigned long m)
{
	pid_t pid = fork();

	if (pid == 0) {
		set_affinity_bits(0, m);
		for (;;) {
			pr->cpu = sched_getcpu();
			pr->count++;
		}
	}
	return pid;
}

/* Wait up to 2 s for the mask to read m; then watch it run inside m. */
static int restored(pid_t pid, struct probe *pr, unsigned long m, int *inside)
{
	int i;
	uint64_t c0;

	for (i = 0; i < 200 && affinity_bits(pid) != m; i++)
		sleep_ms(10);
	if (affinity_bits(pid) != m)
		return 0;
	sleep_ms(100);
	c0 = pr->count;
	*inside = 0;
	for (i = 0; i < 30; i++) {
		sleep_ms(10);
		if (m & (1ul << pr->cpu))
			(*inside)++;
	}
	return pr->count > c0;
}

static void case_mask(struct probe *pr, unsigned long m, unsigned long off)
{
	pid_t pid = spawn_probe(pr, m);
	uint64_t c0;
	int c, in = 0, ok;

	sleep_ms(100);
	for (c = 0; c < 64; c++)
		if (off & (1ul << c))
			set_cpu_online(c, 0);
	c0 = pr->count;
	sleep_ms(300);
	tap_ok(pr->count > c0 && !(off & (1ul << pr->cpu)),
	       "mask 0x%lx, CPUs 0x%lx offline: still runs (on CPU %d, mask now 0x%lx)",
	       m, off, pr->cpu, affinity_bits(pid));
	for (c = 0; c < 64; c++)
		if (off & (1ul << c))
			set_cpu_online(c, 1);
	ok = restored(pid, pr, m, &in);
	if (!ok) {
		char st[128];

		read_file("/sys/kernel/debug/sched/vds/hotplug_restore", st, sizeof(st));
		diag("hotplug_restore: %s", st);
	}
	tap_ok(ok && in >= 28, "mask 0x%lx restored exactly (reads 0x%lx) and the task runs inside it (%d/30)",
	       m, affinity_bits(pid), in);
	kill_wait(pid);
}

static unsigned long thread_masks[3] = { 0x8, 0xc, 0xa };

static void *thread_fn(void *arg)
{
	volatile uint64_t x = 0;

	set_affinity_bits(0, thread_masks[(long)arg]);
	for (;;)
		x++;
	return NULL;
}

int main(void)
{
	struct probe *pr = shared_mem(sizeof(*pr) * 8);
	int n = ncpus_online(), i, round, fails = 0;

	need_vds();
	tap_plan(10);
	if (n < 4) {
		for (i = 0; i < 10; i++)
			tap_skip("needs 4 CPUs");
		return 0;
	}
	if (read_long("/sys/kernel/debug/sched/vds/hotplug_restore", 0) != 1) {
		/* Planned on VDS boots only: there, no restore is a failure. */
		for (i = 0; i < 10; i++)
			tap_ok(0, "VDS hotplug restore is active (sched/vds/hotplug_restore reads 1)");
		return tap_done();
	}
	case_mask(&pr[0], 0x8, 0x8);
	case_mask(&pr[0], 0xc, 0xc);
	case_mask(&pr[0], 0xa, 0x8);

	/* Threads of one process with different masks. */
	{
		pid_t pid = fork();

		if (pid == 0) {
			pthread_t th[3];
			long t;

			for (t = 0; t < 3; t++)
				pthread_create(&th[t], NULL, thread_fn, (void *)t);
			for (;;)
				pause();
		}
		sleep_ms(200);
		set_cpu_online(3, 0);
		set_cpu_online(2, 0);
		sleep_ms(200);
		set_cpu_online(2, 1);
		set_cpu_online(3, 1);
		sleep_ms(500);
		{
			/* The child's threads are pid+1.. in a quiet guest. */
			unsigned long got = 0;
			char p[64], buf[64];
			int t, seen = 0;

			for (t = pid + 1; t < pid + 64 && seen < 3; t++) {
				snprintf(p, sizeof(p), "/proc/%d/task/%d/status", pid, t);
				if (read_file(p, buf, sizeof(buf)))
					continue;
				got |= 1ul << (affinity_bits(t) & 0xf);
				seen++;
			}
			/* bits 8, 12 and 10 stand for the masks 0x8, 0xc and 0xa */
			tap_ok(seen == 3 && got == ((1ul << 8) | (1ul << 12) | (1ul << 10)),
			       "each of 3 threads got its own mask back (%d seen, set 0x%lx)", seen, got);
		}
		kill_wait(pid);
	}

	/* A new mask set while displaced wins. */
	{
		pid_t pid = spawn_probe(&pr[1], 0x8);
		int in = 0;

		sleep_ms(100);
		set_cpu_online(3, 0);
		sleep_ms(100);
		tap_ok(set_affinity_bits(pid, 0x3) == 0, "sched_setaffinity(0x3) while displaced");
		set_cpu_online(3, 1);
		sleep_ms(500);
		tap_ok(affinity_bits(pid) == 0x3 && restored(pid, &pr[1], 0x3, &in),
		       "the new mask 0x3 stays after CPU 3 returns (reads 0x%lx)", affinity_bits(pid));
		kill_wait(pid);
	}

	/*
	 * Suspend-style: everything but CPU 0 offline and back, three times,
	 * with a task pinned to each of CPUs 1-8 (pr holds 8 probes; CPUs above
	 * 8 go offline and back too, without a task of their own).
	 */
	fails = 0;
	for (round = 0; round < 3; round++) {
		pid_t pids[8];
		unsigned long masks[8];
		int k;

		for (k = 0; k < n - 1 && k < 8; k++) {
			masks[k] = 1ul << (k + 1);
			pids[k] = spawn_probe(&pr[k], masks[k]);
		}
		sleep_ms(100);
		for (i = n - 1; i >= 1; i--)
			set_cpu_online(i, 0);
		sleep_ms(200);
		for (i = 1; i < n; i++)
			set_cpu_online(i, 1);
		for (k = 0; k < n - 1 && k < 8; k++) {
			int in = 0;

			if (!restored(pids[k], &pr[k], masks[k], &in) || in < 25)
				fails++;
			kill_wait(pids[k]);
		}
	}
	tap_ok(fails == 0, "all CPUs but CPU 0 offline and back, 3 times: every task restored (%d not)", fails);
	return tap_done();
}
