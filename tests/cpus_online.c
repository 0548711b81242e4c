// SPDX-License-Identifier: GPL-2.0
/* All the vCPUs QEMU was asked for are online, and each one runs a task. */
#include "vds_test.h"

int main(void)
{
	long want = setting_long("VDS_SMP", -1);
	char buf[64], expect[64];
	int cpu, bad = -1;

	tap_plan(3);
	tap_ok(want > 0 && ncpus_online() == want,
	       "online CPUs %d == requested %ld", ncpus_online(), want);
	read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (want == 1)
		snprintf(expect, sizeof(expect), "0");
	else
		snprintf(expect, sizeof(expect), "0-%ld", want - 1);
	tap_ok(!strcmp(buf, expect), "cpu/online reads '%s', expected '%s'",
	       buf, expect);
	for (cpu = 0; cpu < want; cpu++) {
		if (pin_to(0, cpu) || sched_getcpu() != cpu) {
			bad = cpu;
			break;
		}
	}
	tap_ok(want > 0 && bad < 0, "a task pinned to each CPU runs there%s",
	       bad < 0 ? "" : " (failed on one)");
	return tap_done();
}
