// SPDX-License-Identifier: GPL-2.0
/*
 * N equal CPU hogs on M CPUs, N = M, 2M and 3M+1, for 10 s each: every hog
 * gets M/N of a CPU, within +-10% of the mean (run times from
 * /proc/<pid>/schedstat). With 3M+1 hogs one CPU holds four and the others
 * three; a scheduler that only evens out the number of tasks per CPU
 * leaves the four a quarter of a CPU each against the others' third (about
 * 20% under the mean), and fails. VDS's CPUs pull the earliest deadline
 * from one another, so every hog takes its turn on every CPU.
 */
#include "vds_test.h"

int main(void)
{
	int m = ncpus_online(), round, secs = (int)setting_long("VDS_FAIRSECS", 10);
	int counts[3] = { m, 2 * m, 3 * m + 1 };

	need_vds();
	tap_plan(3);
	for (round = 0; round < 3; round++) {
		int n = counts[round], i, worst = 0;
		pid_t *pids = calloc(n, sizeof(*pids));
		uint64_t *r0 = calloc(n, sizeof(*r0)), *r = calloc(n, sizeof(*r)), sum = 0;
		double mean, dev = 0;

		if (!pids || !r0 || !r) {
			tap_ok(0, "%d hogs on %d CPUs: out of memory", n, m);
			continue;
		}

		for (i = 0; i < n; i++)
			pids[i] = spawn_hog(-1, 0);
		sleep_ms(500);
		for (i = 0; i < n; i++)
			r0[i] = schedstat_run(pids[i]);
		sleep_ms(secs * 1000);
		for (i = 0; i < n; i++) {
			r[i] = schedstat_run(pids[i]) - r0[i];
			sum += r[i];
		}
		for (i = 0; i < n; i++)
			kill_wait(pids[i]);
		mean = (double)sum / n;
		for (i = 0; i < n; i++) {
			double d = (r[i] - mean) / mean;

			if (d < 0)
				d = -d;
			if (d > dev) {
				dev = d;
				worst = i;
			}
		}
		diag("%d hogs on %d CPUs: mean %.3f s, worst hog %d at %.3f s (%.1f%% off)",
		     n, m, mean / 1e9, worst, r[worst] / 1e9, 100 * dev);
		tap_ok(dev <= 0.10, "%d hogs on %d CPUs share fairly (worst %.1f%% off the mean)",
		       n, m, 100 * dev);
		free(pids);
		free(r0);
		free(r);
	}
	return tap_done();
}
