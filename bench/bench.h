/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the in-guest benchmarks: futex wait/wake, CPU burning
 * by thread CPU time, and latency statistics printed as JSON fields.
 */
#ifndef VDS_BENCH_H
#define VDS_BENCH_H

#include "vds_test.h"
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

static long futex_wait(_Atomic int *addr, int val)
{
	return syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static long futex_wake(_Atomic int *addr, int n)
{
	return syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Shared between processes (MAP_SHARED memory): the non-private futex ops. */
static long futex_wait_shared(_Atomic int *addr, int val)
{
	return syscall(SYS_futex, addr, FUTEX_WAIT, val, NULL, NULL, 0);
}

static long futex_wake_shared(_Atomic int *addr, int n)
{
	return syscall(SYS_futex, addr, FUTEX_WAKE, n, NULL, NULL, 0);
}

/* Burn ns of this thread's CPU time (not wall time, not a calibrated loop). */
static void burn_cpu_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;
	volatile uint64_t x = 1;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 200; i++)
			x = x * 6364136223846793005ull + 1;
}

/* Absolute sleep until t (CLOCK_MONOTONIC ns). */
static void sleep_until(uint64_t t)
{
	struct timespec ts = { t / 1000000000ull, t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

struct lstats {
	double mean_us, sd_us, p50_us, p99_us, p999_us, max_us;
	long n;
};

/* Sorts v in place. Standard deviation with n-1 (sample), in a second pass. */
static struct lstats lat_stats(uint64_t *v, long n)
{
	struct lstats s = { 0 };
	double sum = 0, var = 0;
	long i;

	s.n = n;
	if (n <= 0)
		return s;
	for (i = 0; i < n; i++)
		sum += v[i];
	s.mean_us = sum / n / 1e3;
	for (i = 0; i < n; i++) {
		double d = v[i] / 1e3 - s.mean_us;

		var += d * d;
	}
	s.sd_us = n > 1 ? sqrt(var / (n - 1)) : 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	s.p50_us = v[pct_rank(n, 500)] / 1e3;
	s.p99_us = v[pct_rank(n, 990)] / 1e3;
	s.p999_us = v[pct_rank(n, 999)] / 1e3;
	s.max_us = v[n - 1] / 1e3;
	return s;
}

/* ,"<pfx>mean_us":..,... (no braces) */
static void print_stats(const char *pfx, struct lstats s)
{
	printf(",\"%ssamples\":%ld,\"%smean_us\":%.1f,\"%ssd_us\":%.1f,\"%sp50_us\":%.1f,"
	       "\"%sp99_us\":%.1f,\"%sp999_us\":%.1f,\"%smax_us\":%.1f",
	       pfx, s.n, pfx, s.mean_us, pfx, s.sd_us, pfx, s.p50_us, pfx, s.p99_us,
	       pfx, s.p999_us, pfx, s.max_us);
}

#endif
