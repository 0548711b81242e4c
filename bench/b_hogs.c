// SPDX-License-Identifier: GPL-2.0
/*
 * Throughput of CPU hogs: M, then 2M hogs each counting loop iterations of a
 * small fixed computation for a while; total iterations per second (in
 * millions), and Jain's fairness index of the per-hog counts. Then pairs of
 * hogs at two nice levels pinned to one CPU (0/1, 0/5, 0/10, 0/19, -10/0,
 * 18/19, -2/-1), half the time each: share_<a>_<b>_pct is the share of the
 * lower nice a (Documentation/tuning.md, "Nice levels, and renice X to -10",
 * has the shares both schedulers give).
 * Prints one JSON line.  b_hogs [seconds]
 *
 * vds-bench: timeout 150
 * vds-metric: hogs *_mops_per_s higher
 * vds-metric: hogs *_jain higher
 * vds-metric: hogs share_* info
 */
#include "vds_test.h"

static double run(int n, int secs, double *jain)
{
	volatile uint64_t *cnt = shared_mem(sizeof(uint64_t) * 128);
	volatile int *stop = shared_mem(sizeof(int));
	pid_t pids[128];
	uint64_t t0, sum = 0;
	double sq = 0;
	int i;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			uint64_t x = 1, k = 0;

			while (!*stop) {
				for (int j = 0; j < 1000; j++)
					x = x * 6364136223846793005ull + 1442695040888963407ull;
				k++;
				cnt[i] = k;
			}
			_exit((int)(x & 1));
		}
	}
	t0 = now_ns();
	sleep_ms(secs * 1000);
	*stop = 1;
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	for (i = 0; i < n; i++) {
		sum += cnt[i];
		sq += (double)cnt[i] * cnt[i];
	}
	*jain = sq > 0 ? (double)sum * sum / (n * sq) : 0;
	return sum * 1000.0 / ((now_ns() - t0) / 1e9) / 1e6;
}

int main(int argc, char **argv)
{
	static const int pairs[][2] = {
		{ 0, 1 }, { 0, 5 }, { 0, 10 }, { 0, 19 }, { -10, 0 }, { 18, 19 }, { -2, -1 },
	};
	int secs = argc > 1 ? atoi(argv[1]) : (int)setting_long("VDS_BENCHSECS", 10) / 2, m = ncpus_online(), cpu = m - 1;
	double j1, j2, t1 = run(m, secs, &j1), t2 = run(2 * m + 1, secs, &j2);
	unsigned int i;

	printf("{\"bench\":\"hogs\",\"M_mops_per_s\":%.2f,\"M_jain\":%.4f,\"2M1_mops_per_s\":%.2f,"
	       "\"2M1_jain\":%.4f", t1, j1, t2, j2);
	/* Two hogs pinned to one CPU: the share of the lower nice, per pair. */
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		pid_t a = spawn_hog(cpu, pairs[i][0]), b = spawn_hog(cpu, pairs[i][1]);
		uint64_t ra, rb;

		run_pair(a, b, 300, secs * 500, &ra, &rb);
		printf(",\"share_%d_%d_pct\":%.2f", pairs[i][0], pairs[i][1],
		       ra + rb ? 100.0 * ra / (ra + rb) : 0.0);
	}
	printf("}\n");
	return 0;
}
