// SPDX-License-Identifier: GPL-2.0
/*
 * schedutil's input: VDS keeps a PELT utilisation per CPU (shown in
 * /sys/kernel/debug/sched/vds/state and added in effective_cpu_util()).
 * A VDS hog pinned to a CPU drives it near full scale (1024); once the hog
 * is gone, the idle CPU's signal decays (half-life 32 ms) instead of
 * staying high and keeping the frequency up.
 */
#include "vds_test.h"

static long util_of(int cpu)
{
	return vds_state_field(cpu, " util ");
}

int main(void)
{
	int cpu = ncpus_online() - 1;
	long idle0, busy, after;
	pid_t hog;

	need_vds();
	tap_plan(3);
	/* the previous test's hogs may have left a signal to decay */
	sleep_ms(2500);
	idle0 = util_of(cpu);
	hog = spawn_hog(cpu, 0);
	sleep_ms(1000);
	busy = util_of(cpu);
	kill_wait(hog);
	sleep_ms(1500);
	after = util_of(cpu);
	diag("cpu %d: util idle %ld, under a hog %ld, 1.5 s after %ld", cpu, idle0, busy, after);
	tap_ok(idle0 >= 0 && idle0 < 300, "an idle CPU has a low VDS utilisation (%ld)", idle0);
	tap_ok(busy > 600, "a VDS hog drives it up (%ld > 600 of 1024)", busy);
	tap_ok(after >= 0 && after < busy / 2, "it decays once the CPU is idle again (%ld)", after);
	return tap_done();
}
