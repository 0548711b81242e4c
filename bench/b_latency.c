// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup latency of a periodic task (wakes every 5 ms, runs 0.5 ms of CPU)
 * among 2M CPU hogs: mean, standard deviation, p50, p99, p99.9, max.
 * Prints one JSON line.  b_latency [seconds]
 *
 * vds-bench: timeout 60
 * vds-metric: latency_* *_us lower
 * vds-metric: latency_* samples info
 * vds-metric: latency_* max_at_sample info
 * vds-metric: latency_* over_20ms info
 */
#include "bench.h"

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : (int)setting_long("VDS_BENCHSECS", 10), m = ncpus_online(), i;
	int n = secs * 200 < PERIODIC_MAX ? secs * 200 : PERIODIC_MAX;
	uint64_t p50, *lat = periodic_raw;
	int max_at = 0, over = 0;
	pid_t hogs[128];

	for (i = 0; i < 2 * m && i < 128; i++)
		hogs[i] = spawn_hog(-1, 0);
	sleep_ms(300);
	/* make bench BAD=2: the periodic task at a bad nice level (hogs stay at 0). */
	setpriority(PRIO_PROCESS, 0, (int)setting_long("VDS_BADNICE", 0));
	periodic(500, n, &p50);
	for (i = 0; i < 2 * m && i < 128; i++)
		kill_wait(hogs[i]);
	/* Where the longest wait was, and how many waits exceeded 20 ms. */
	for (i = 0; i < n; i++) {
		if (lat[i] > lat[max_at])
			max_at = i;
		over += lat[i] > 20000000ull;
	}
	printf("{\"bench\":\"latency_2M_hogs\"");
	print_stats("", lat_stats(lat, n));
	printf(",\"max_at_sample\":%d,\"over_20ms\":%d}\n", max_at, over);
	return 0;
}
