// SPDX-License-Identifier: GPL-2.0
/*
 * Nice levels under VDS: on one CPU, a nice 0 hog against a nice 5, 10 and
 * 19 hog. Both refresh their deadline, now + ratio * rr_interval, each time
 * their slice runs out; the earlier deadline runs. With ratios a < b (in
 * units of rr_interval, 1.1^(nice+20)), the nice 0 hog runs b - a slices
 * for each slice of the other, so the weaker one gets 1 / (1 + b - a) of
 * the CPU. The measured share must be within +-30% (relative) of that.
 */
#include "tap.h"
#include <math.h>

static double ratio(int nice)
{
	return pow(1.1, nice + 20);
}

int main(void)
{
	static const int levels[] = { 5, 10, 19 };
	int cpu = ncpus_online() - 1, i;

	tap_plan(3);
	for (i = 0; i < 3; i++) {
		int n = levels[i];
		double pred = 1.0 / (1.0 + ratio(n) - ratio(0)), got;
		pid_t a = spawn_hog(cpu, 0), b = spawn_hog(cpu, n);
		uint64_t ra, rb;

		run_pair(a, b, 300, n == 19 ? 6000 : 3000, &ra, &rb);
		got = (double)rb / (double)(ra + rb);
		tap_ok(got > pred * 0.7 && got < pred * 1.3,
		       "nice 0 vs nice %d: nice %d share predicted %.1f%%, measured %.1f%%",
		       n, n, 100 * pred, 100 * got);
	}
	return tap_done();
}
