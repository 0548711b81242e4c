// SPDX-License-Identifier: GPL-2.0
/*
 * CPU 1 goes offline while a task pinned to it runs: the task keeps making
 * progress on another CPU, and after CPU 1 is back it runs on CPU 1 again.
 * Mainline widens the mask of such a task for good, so on EEVDF the test
 * pins it again (as a user would); with VDS the mask must come back by
 * itself (sched/vds/hotplug_restore reads 1).
 */
#include "vds_test.h"

struct shared {
	volatile uint64_t count;
	volatile int cpu;
};

static int child_cpu_mask_is_only(pid_t pid, int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(pid, sizeof(set), &set))
		return 0;
	return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

/* Sample for ms milliseconds: did it progress, and was it always on cpu? */
static void watch(struct shared *sh, int ms, uint64_t *progress, int *seen_on, int cpu)
{
	uint64_t c0 = sh->count;
	int i;

	*seen_on = 0;
	for (i = 0; i < ms / 10; i++) {
		sleep_ms(10);
		if (sh->cpu == cpu)
			(*seen_on)++;
	}
	*progress = sh->count - c0;
}

int main(void)
{
	struct shared *sh = shared_mem(sizeof(*sh));
	uint64_t prog;
	int on, restore = read_long("/sys/kernel/debug/sched/vds/hotplug_restore", 0) == 1;
	pid_t pid;
	int r;

	tap_plan(6);
	if (ncpus_online() < 2 || !sh) {
		for (r = 0; r < 6; r++)
			tap_skip("needs 2 CPUs");
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		pin_to(0, 1);
		for (;;) {
			sh->cpu = sched_getcpu();
			sh->count++;
		}
	}
	sleep_ms(200);
	watch(sh, 300, &prog, &on, 1);
	tap_ok(prog > 0 && on > 0, "pinned task runs on CPU 1 (%d samples there)", on);

	r = set_cpu_online(1, 0);
	tap_ok(r == 0, "CPU 1 offlined (%s)", r ? strerror(-r) : "ok");
	watch(sh, 500, &prog, &on, 1);
	tap_ok(prog > 0 && on == 0, "task keeps running elsewhere while CPU 1 is offline (now on CPU %d)", sh->cpu);

	r = set_cpu_online(1, 1);
	tap_ok(r == 0, "CPU 1 back online (%s)", r ? strerror(-r) : "ok");
	sleep_ms(200);
	if (restore || vds_active()) {
		/* VDS without its restore is a broken VDS: fail, do not re-pin. */
		tap_ok(restore && child_cpu_mask_is_only(pid, 1),
		       "mask restored to exactly {1} by the kernel%s",
		       restore ? "" : " (VDS runs, but sched/vds/hotplug_restore is not 1)");
	} else {
		diag("mask after online: %s", child_cpu_mask_is_only(pid, 1) ? "{1}" : "widened (mainline behaviour)");
		tap_ok(pin_to(pid, 1) == 0, "task pinned to CPU 1 again");
	}
	watch(sh, 500, &prog, &on, 1);
	tap_ok(prog > 0 && on >= 40, "task runs on CPU 1 again (%d of 50 samples)", on);
	kill_wait(pid);
	return tap_done();
}
