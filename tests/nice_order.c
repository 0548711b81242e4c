// SPDX-License-Identifier: GPL-2.0
/*
 * Nice levels share a CPU by the running scheduler's formula: two CPU hogs
 * pinned to one CPU at nice 0 and nice 10 split it in the ratio the
 * formula predicts, within a factor of 1.5 either way, and the nice 10 hog
 * is not starved (more than 2 %). Run times come from
 * /proc/<pid>/schedstat over 3 s.
 *
 * VDS (Documentation/scheduler/sched-vds.rst, "Nice levels"): with
 * r(n) = prio_ratio(n), 1.1^(n+20) as the kernel's table computes it,
 * D = r(10) - r(0) and x = (2 - D + sqrt(D * D + 4)) / 2, nice 0 gets
 * 1 + D / x times the CPU of nice 10: 10.8. EEVDF (vds=off): the ratio of
 * their weights, 1024 / 110 = 9.3. A scheduler that ignores nice (1), that
 * takes the deadline offsets alone for the shares (r(10) / r(0) = 2.6) or
 * that weighs the steps several times over falls outside the factor; one
 * that starves nice 10 fails the last point. tests/nice_share checks the
 * formula closely for more pairs; this test is the quick check that nice
 * works at all, run on every boot.
 */
#include "vds_test.h"
#include <math.h>

/* prio_ratio(nice) as vds_init() computes it, in units of rr_interval. */
static double vds_ratio(int nice)
{
	uint64_t r = 1024;

	for (int i = 0; i < nice + 20; i++)
		r = (r * 11 + 5) / 10;
	return r / 1024.0;
}

/* The CPU time nice @a gets for each unit nice @b gets, @b > @a. */
static double predicted(int on_vds, int a, int b)
{
	double d, x;

	if (!on_vds)
		return 1024.0 / 110;	/* sched_prio_to_weight[] at nice 0 and 10 */
	d = vds_ratio(b) - vds_ratio(a);
	x = (2 - d + sqrt(d * d + 4)) / 2;
	return 1 + d / x;
}

int main(void)
{
	int cpu = ncpus_online() - 1, on_vds = vds_active();
	double want = predicted(on_vds, 0, 10), ratio;
	pid_t a, b;
	uint64_t ra, rb;

	tap_plan(3);
	a = spawn_hog(cpu, 0);
	b = spawn_hog(cpu, 10);
	run_pair(a, b, 300, 3000, &ra, &rb);
	ratio = rb ? (double)ra / rb : 1e9;
	diag("%s, cpu %d: nice 0 ran %.3f s, nice 10 ran %.3f s, ratio %.2f (formula %.2f)",
	     on_vds ? "VDS" : "EEVDF", cpu, ra / 1e9, rb / 1e9, ratio, want);
	tap_ok(ra > 0 && rb > 0, "both hogs ran");
	tap_ok(ratio >= want / 1.5 && ratio <= want * 1.5,
	       "%s: nice 0 gets %.2f times the CPU of nice 10, the formula's %.2f within a factor of 1.5 (%.2f-%.2f)",
	       on_vds ? "VDS" : "EEVDF", ratio, want, want / 1.5, want * 1.5);
	tap_ok(rb > (ra + rb) / 50, "nice 10 is not starved (%.1f%% > 2%%)",
	       100.0 * rb / (ra + rb));
	return tap_done();
}
