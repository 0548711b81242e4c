// SPDX-License-Identifier: GPL-2.0
/*
 * Hotplug storm (8 CPUs): 12 tasks with random masks do work and check
 * their CPU with getcpu, while a driver offlines and onlines random CPUs
 * (never CPU 0, so never the last one) for 300 cycles. Every task keeps
 * running and, on VDS, every mask is restored exactly and no task is seen
 * outside its requested mask while a CPU of that mask has been online for a
 * while (250 ms of grace: the restore runs from a worker after the CPU is
 * active). Under vds=off the storm runs too, as the control for the kernel
 * log (mainline widens masks for good: those two points skip).
 */
#include "vds_test.h"

#define NT 12
#define GRACE_NS 250000000ull

struct shared {
	volatile unsigned long online;		/* bit per online CPU */
	volatile unsigned long moving;		/* bit per CPU in transition */
	volatile uint64_t changed[64];		/* last online/offline time */
	volatile uint64_t count[NT];
	volatile uint64_t violations[NT];
	volatile int bad_cpu[NT];
	unsigned long req[NT];
};

static void worker(struct shared *sh, int i)
{
	cpu_set_t set;
	int c;

	CPU_ZERO(&set);
	for (c = 0; c < 64; c++)
		if (sh->req[i] & (1ul << c))
			CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;) {
		uint64_t end = thread_cpu_ns() + 200000, now;
		unsigned long settled;
		int cpu;

		while (thread_cpu_ns() < end)
			;
		/*
		 * The time of the sample, taken before it: a task preempted
		 * between the two would otherwise judge where it was then by
		 * what was online long after.
		 */
		now = now_ns();
		cpu = sched_getcpu();
		sh->count[i]++;
		if (sh->req[i] & (1ul << cpu))
			continue;
		/* Outside: only fine if no CPU of the mask is settled online. */
		settled = 0;
		for (c = 0; c < 64; c++)
			if ((sh->req[i] & (1ul << c)) && (sh->online & (1ul << c)) &&
			    !(sh->moving & (1ul << c)) &&
			    (int64_t)(now - sh->changed[c]) > (int64_t)GRACE_NS)
				settled |= 1ul << c;
		if (settled) {
			sh->violations[i]++;
			sh->bad_cpu[i] = cpu;
		}
	}
}


int main(void)
{
	struct shared *sh = shared_mem(sizeof(*sh));
	int n = ncpus_online(), i, cycles = 0, errors = 0, wrong = 0, stuck = 0;
	unsigned int seed = (unsigned int)setting_long("VDS_SEED", 42);
	uint64_t viol = 0, c0[NT];
	pid_t pids[NT];
	int vds = vds_active();
	unsigned long all;

	tap_plan(4);
	if (n < 8 || (vds && read_long("/sys/kernel/debug/sched/vds/hotplug_restore", 0) != 1)) {
		for (i = 0; i < 4; i++)
			tap_skip("needs 8 CPUs and, on VDS, its hotplug restore");
		return 0;
	}
	/* The masks are bitmasks of the first 64 CPUs: the storm uses those. */
	if (n > 64) {
		diag("%d CPUs online: the storm uses CPUs 0-63", n);
		n = 64;
	}
	all = n == 64 ? ~0ul : (1ul << n) - 1;
	diag("seed %u", seed);
	sh->online = all;
	for (i = 0; i < NT; i++) {
		do {
			sh->req[i] = rand_r(&seed) & all;
		} while (!sh->req[i]);
	}
	for (i = 0; i < NT; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(sh, i);
	}
	sleep_ms(200);
	while (cycles < 300) {
		int c = 1 + rand_r(&seed) % (n - 1), on = !(sh->online & (1ul << c));

		sh->moving |= 1ul << c;
		if (set_cpu_online(c, on))
			errors++;
		if (on)
			sh->online |= 1ul << c;
		else
			sh->online &= ~(1ul << c);
		sh->changed[c] = now_ns();
		sh->moving &= ~(1ul << c);
		cycles++;
		if (rand_r(&seed) % 4 == 0)
			usleep(20000);
	}
	for (i = 1; i < n; i++) {
		if (!(sh->online & (1ul << i))) {
			sh->moving |= 1ul << i;
			set_cpu_online(i, 1);
			sh->online |= 1ul << i;
			sh->changed[i] = now_ns();
			sh->moving &= ~(1ul << i);
		}
	}
	sleep_ms(1500);
	for (i = 0; i < NT; i++)
		c0[i] = sh->count[i];
	sleep_ms(500);
	for (i = 0; i < NT; i++) {
		unsigned long m = affinity_bits(pids[i]);

		if (m != sh->req[i]) {
			wrong++;
			diag("task %d: mask 0x%lx, requested 0x%lx", i, m, sh->req[i]);
		}
		if (sh->count[i] == c0[i])
			stuck++;
		if (sh->violations[i])
			diag("task %d (mask 0x%lx): %llu samples outside, last on CPU %d", i, sh->req[i],
			     (unsigned long long)sh->violations[i], sh->bad_cpu[i]);
		viol += sh->violations[i];
	}
	for (i = 0; i < NT; i++)
		kill_wait(pids[i]);
	tap_ok(cycles >= 300 && errors == 0, "%d offline/online cycles, %d failed writes", cycles, errors);
	tap_ok(stuck == 0, "every task still runs after the storm (%d stuck)", stuck);
	if (!vds) {
		diag("vds=off: %d masks differ from the request, %llu samples outside (mainline widens)",
		     wrong, (unsigned long long)viol);
		tap_skip("masks restored: mainline widens them (vds=off)");
		tap_skip("no task outside its mask: mainline widens them (vds=off)");
		return tap_done();
	}
	tap_ok(wrong == 0, "every mask restored exactly (%d wrong)", wrong);
	tap_ok(viol == 0, "no task seen outside its mask while one of its CPUs was online (%llu samples)",
	       (unsigned long long)viol);
	return tap_done();
}
