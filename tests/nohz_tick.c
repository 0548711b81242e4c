// SPDX-License-Identifier: GPL-2.0
/*
 * Two CPU hogs pinned to the last CPU take turns: over 2 s each is
 * preempted at least (2 s / rr_interval) / 4 times (83 at the default 6 ms;
 * EEVDF's slices are shorter). On a nohz_full CPU (the vds-nohz boot of
 * make check) this needs the tick to stay on while they share the CPU; a
 * scheduler whose tasks do not count for sched_can_stop_tick() stops it,
 * and the hogs then switch only at the residual 1 Hz tick, 2 to 4 times.
 * Measured once more before it fails.
 */
#include "vds_test.h"

static long nonvoluntary(pid_t pid)
{
	return (long)proc_field(pid, "status", "nonvoluntary_ctxt_switches");
}

int main(void)
{
	int cpu = ncpus_online() - 1, tries;
	long rr = read_long("/proc/sys/kernel/rr_interval", 6), want, a = 0, b = 0;
	char iso[64] = "";
	pid_t h1, h2;

	tap_plan(1);
	read_file("/sys/devices/system/cpu/nohz_full", iso, sizeof(iso));
	diag("nohz_full CPUs: '%s'; hogs on CPU %d", iso, cpu);
	want = 2000 / rr / 4;
	h1 = spawn_hog(cpu, 0);
	h2 = spawn_hog(cpu, 0);
	sleep_ms(500);
	for (tries = 0; tries < 2; tries++) {
		long a0 = nonvoluntary(h1), b0 = nonvoluntary(h2);

		sleep_ms(2000);
		a = nonvoluntary(h1) - a0;
		b = nonvoluntary(h2) - b0;
		diag("try %d: %ld and %ld preemptions in 2 s", tries + 1, a, b);
		if (a >= want && b >= want)
			break;
	}
	kill_wait(h1);
	kill_wait(h2);
	tap_ok(a >= want && b >= want,
	       "two hogs sharing CPU %d are each preempted >= %ld times in 2 s (%ld, %ld)",
	       cpu, want, a, b);
	return tap_done();
}
