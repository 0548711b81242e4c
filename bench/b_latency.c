// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup latency of a periodic task (wakes every 5 ms, runs 0.5 ms of CPU)
 * among 2M CPU hogs: mean, standard deviation, p50, p99, p99.9, max.
 * Prints one JSON line.  b_latency [seconds]
 */
#include "tap.h"
#include <math.h>

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : (int)cmdline_long("vdsbenchsecs", 10), m = ncpus_online(), i, n;
	int periods = secs * 200;
	uint64_t *lat = calloc(periods, sizeof(*lat)), next;
	pid_t hogs[128];
	double mean = 0, var = 0;
	int max_at = 0, over = 0;

	for (i = 0; i < 2 * m && i < 128; i++)
		hogs[i] = spawn_hog(-1, 0);
	sleep_ms(300);
	/* make bench BAD=2: the periodic task at a bad nice level (hogs stay at 0). */
	setpriority(PRIO_PROCESS, 0, (int)cmdline_long("vdsbadnice", 0));
	next = now_ns() + 5000000ull;
	for (n = 0; n < periods; n++) {
		struct timespec ts = { next / 1000000000ull, next % 1000000000ull };
		uint64_t end;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		lat[n] = now_ns() - next;
		end = thread_cpu_ns() + 500000;
		while (thread_cpu_ns() < end)
			;
		next += 5000000ull;
		while (next < now_ns())
			next += 5000000ull;
	}
	for (i = 0; i < 2 * m && i < 128; i++)
		kill_wait(hogs[i]);
	/* Where the longest wait was, and how many waits exceeded 20 ms. */
	for (i = 0; i < n; i++) {
		mean += lat[i];
		if (lat[i] > lat[max_at])
			max_at = i;
		over += lat[i] > 20000000ull;
	}
	mean /= n;
	for (i = 0; i < n; i++)
		var += (lat[i] - mean) * (lat[i] - mean);
	var /= n > 1 ? n - 1 : 1;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("{\"bench\":\"latency_2M_hogs\",\"samples\":%d,\"mean_us\":%.1f,\"sd_us\":%.1f,"
	       "\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f,"
	       "\"max_at_sample\":%d,\"over_20ms\":%d}\n",
	       n, mean / 1e3, sqrt(var) / 1e3, lat[n / 2] / 1e3, lat[n * 99 / 100] / 1e3,
	       lat[n * 999 / 1000] / 1e3, lat[n - 1] / 1e3, max_at, over);
	return 0;
}
