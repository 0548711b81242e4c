// SPDX-License-Identifier: GPL-2.0
/*
 * RT tasks preempt normal tasks at once, and an RT hog cannot starve a
 * normal task on its CPU forever: 6.12's fair deadline server gives normal
 * tasks 50 ms every second (VDS makes that server serve VDS tasks too).
 * On one CPU, a SCHED_FIFO hog and a normal hog for 4 s: the normal hog
 * gets some CPU (more than 1%) but far less than the RT hog (under 25%).
 */
#include "vds_test.h"

int main(void)
{
	int cpu = ncpus_online() - 1;
	struct sched_param sp = { .sched_priority = 10 };
	pid_t normal, rt;
	uint64_t rn, rr;
	double share;

	tap_plan(3);
	normal = spawn_hog(cpu, 0);
	sleep_ms(100);
	rt = fork();
	if (rt == 0) {
		volatile uint64_t x = 0;

		pin_to(0, cpu);
		for (;;)
			x++;
	}
	tap_ok(sched_setscheduler(rt, SCHED_FIFO, &sp) == 0, "RT hog is SCHED_FIFO");
	run_pair(normal, rt, 200, 4000, &rn, &rr);
	share = (double)rn / (double)(rn + rr);
	diag("normal hog got %.3f s, RT hog %.3f s (normal share %.1f%%)", rn / 1e9, rr / 1e9, 100 * share);
	tap_ok(share > 0.01, "the normal task is not starved by the RT hog (%.1f%% > 1%%)", 100 * share);
	tap_ok(share < 0.25, "the RT hog keeps most of the CPU (normal %.1f%% < 25%%)", 100 * share);
	return tap_done();
}
