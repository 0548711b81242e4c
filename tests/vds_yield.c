// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.yield_type, on one CPU with a task A that calls sched_yield() in a
 * loop and a CPU hog B:
 *   0  sched_yield() does nothing: with B at nice 0, A keeps half the CPU.
 *   1  A steps aside once and keeps its deadline: with B at nice 0, B gets
 *      nearly all the CPU; with B at nice 19, still nearly all.
 *   2  A's slice expires and it gets a fresh, later deadline: with B at
 *      nice 0, B gets nearly all; with B at nice 19, A's new deadline is
 *      still earlier than B's, so B gets only its small nice 19 share.
 */
#include "vds_test.h"

static double share_b(int type, int nice_b, int cpu)
{
	char v[4];
	pid_t a, b;
	uint64_t ra, rb;

	snprintf(v, sizeof(v), "%d", type);
	write_file("/proc/sys/kernel/yield_type", v);
	b = spawn_hog(cpu, nice_b);
	a = fork();
	if (a == 0) {
		pin_to(0, cpu);
		for (;;)
			sched_yield();
	}
	run_pair(a, b, 300, 2000, &ra, &rb);
	return (double)rb / (double)(ra + rb);
}

int main(void)
{
	int cpu = ncpus_online() - 1;
	double s0 = share_b(0, 0, cpu), s0n = share_b(0, 19, cpu);
	double s1 = share_b(1, 0, cpu), s1n = share_b(1, 19, cpu);
	double s2 = share_b(2, 0, cpu), s2n = share_b(2, 19, cpu);

	write_file("/proc/sys/kernel/yield_type", "1");
	need_vds();
	tap_plan(6);
	diag("share of the hog B: type 0: %.1f%% (nice 19: %.1f%%), type 1: %.1f%% (%.1f%%), type 2: %.1f%% (%.1f%%)",
	     100 * s0, 100 * s0n, 100 * s1, 100 * s1n, 100 * s2, 100 * s2n);
	tap_ok(s0 > 0.35 && s0 < 0.65, "yield_type 0: the yielder keeps its share (B %.1f%%)", 100 * s0);
	tap_ok(s0n < 0.2, "yield_type 0: a nice 19 hog keeps its small share (B %.1f%%)", 100 * s0n);
	tap_ok(s1 > 0.8, "yield_type 1: the yielder steps aside (B %.1f%%)", 100 * s1);
	tap_ok(s1n > 0.8, "yield_type 1: it steps aside even for nice 19 (B %.1f%%)", 100 * s1n);
	tap_ok(s2 > 0.8, "yield_type 2: the yielder gives up its slice (B %.1f%%)", 100 * s2);
	tap_ok(s2n < 0.2, "yield_type 2: its new deadline still beats nice 19 (B %.1f%%)", 100 * s2n);
	return tap_done();
}
