// SPDX-License-Identifier: GPL-2.0
/*
 * Two CPU hogs pinned to one CPU at nice 0 and nice 10: the nice 0 hog gets
 * clearly more CPU, and the nice 10 hog is not starved. Run times come from
 * /proc/<pid>/schedstat. EEVDF predicts 1024:110 (9.3x), VDS 1.1^10 (2.6x);
 * the test asserts the ordering with a wide margin, valid for both.
 */
#include "vds_test.h"

int main(void)
{
	int cpu = ncpus_online() - 1;
	pid_t a, b;
	uint64_t ra, rb;
	double ratio;

	tap_plan(3);
	a = spawn_hog(cpu, 0);
	b = spawn_hog(cpu, 10);
	run_pair(a, b, 300, 3000, &ra, &rb);
	ratio = rb ? (double)ra / rb : 1e9;
	diag("cpu %d: nice 0 ran %.3f s, nice 10 ran %.3f s, ratio %.2f",
	     cpu, ra / 1e9, rb / 1e9, ratio);
	tap_ok(ra > 0 && rb > 0, "both hogs ran");
	tap_ok(ratio > 1.5, "nice 0 gets more CPU than nice 10 (ratio %.2f > 1.5)", ratio);
	tap_ok(rb > (ra + rb) / 50, "nice 10 is not starved (%.1f%% > 2%%)",
	       100.0 * rb / (ra + rb));
	return tap_done();
}
