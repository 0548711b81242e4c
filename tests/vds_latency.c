// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup latency among 2M CPU hogs. A light periodic task (wakes every 5 ms,
 * runs 0.5 ms) sleeps most of the time, keeps an early deadline and must
 * preempt a hog at once: its p99 latency stays below 2 x rr_interval over
 * the emulator's own floor. That floor is measured in the same boot with
 * the same number of hogs pinned away from the periodic task's CPU, so
 * every vCPU is as busy but nobody competes with it. (Under QEMU/TCG a
 * busy vCPU can wait milliseconds for the host thread: never assert
 * absolute times.) A busy host can stretch one attempt's tail: a miss is
 * measured again once, with a fresh floor, before it fails.
 *
 * Right after it starts a fresh slice, even the light task's deadline is
 * later than those of the hogs already queued: they run first, so it waits
 * about one slice of every CPU. That wait must be shorter with
 * rr_interval=2 than with 20. It is asserted on lateness (target to end of
 * the work, less the work), not on wakeup latency: the slice mostly runs
 * out in the middle of the work, so the task waits while preempted, which
 * wakeup latency does not see; it only sees a later wakeup that finds no
 * hog with a later deadline running, which depends on how the hogs'
 * slices are staggered across CPUs (CI saw rr_interval=20 wakeup p99s of
 * 3.4-4.2 ms in one boot, against 22-40 ms in 15 others). The two values
 * alternate over LIGHT_ROUNDS rounds, and what is compared is the median
 * of each value's per-round p99s, so that one round a host stall hit
 * cannot decide it (CI's debug kernel
 * once had rounds of 25.2, 20.3 and 55.2 ms at 2 against 34.0, 30.4 and
 * 38.6 ms at 20, pooled 36.35 against 36.31 ms); wakeup latencies and the
 * pooled p99s are printed too. A task
 * that asks for more than its share (4 ms every 5 ms) is measured and
 * printed too, but not asserted: its wait depends on how its own refresh
 * period (slice / 80%) beats against the hogs', not monotonically on
 * rr_interval (seen: 6.2 ms at 2 against 5.7 ms at 20 in one run, 9.4
 * against 21 in another).
 */
#include "vds_test.h"

#define ROUNDS	3
#define LIGHT_ROUNDS	5
#define SAMPLES	400


static void set_rr(int ms)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", ms);
	write_file("/proc/sys/kernel/rr_interval", v);
}

/*
 * One round of the light task at @rr ms; its lateness goes to @pool, the
 * round's lateness p99 is returned.
 */
static uint64_t light_round(int rr, int r, uint64_t *pool)
{
	uint64_t p50, p99, late;

	set_rr(rr);
	p99 = periodic(500, SAMPLES, &p50);
	memcpy(pool + r * SAMPLES, periodic_late, sizeof(periodic_late[0]) * SAMPLES);
	late = p99_of(periodic_late, SAMPLES);
	diag("light task, rr_interval %d, round %d: wakeup p50 %.3f ms, p99 %.3f ms; lateness p99 %.3f ms",
	     rr, r + 1, p50 / 1e6, p99 / 1e6, late / 1e6);
	return late;
}

/*
 * The floor (periodic task alone on CPU 0, the hogs on the others) and the
 * task among the hogs at rr_interval 6 alternate, so that a slow phase of
 * the host weighs on both alike; each is pooled. Returns whether the p99
 * among the hogs stays within the bound (see main()).
 */
static int among_hogs(int m, int nh, pid_t *hogs, int attempt)
{
	static uint64_t poolf[ROUNDS * SAMPLES], pool6[ROUNDS * SAMPLES];
	uint64_t p50, floor, floor50, l6;
	cpu_set_t all;
	int i, r, ok;

	sched_getaffinity(0, sizeof(all), &all);
	for (r = 0; r < ROUNDS; r++) {
		pin_to(0, 0);
		for (i = 0; i < nh; i++)
			pin_to(hogs[i], 1 + i % (m - 1));
		sleep_ms(100);
		periodic(500, SAMPLES, &p50);
		memcpy(poolf + r * SAMPLES, periodic_lat, sizeof(periodic_lat[0]) * SAMPLES);
		sched_setaffinity(0, sizeof(all), &all);
		for (i = 0; i < nh; i++)
			sched_setaffinity(hogs[i], sizeof(all), &all);
		sleep_ms(100);
		periodic(500, SAMPLES, &p50);
		memcpy(pool6 + r * SAMPLES, periodic_lat, sizeof(periodic_lat[0]) * SAMPLES);
	}
	floor = p99_of(poolf, ROUNDS * SAMPLES);
	floor50 = poolf[ROUNDS * SAMPLES / 2];
	l6 = p99_of(pool6, ROUNDS * SAMPLES);
	diag("attempt %d: floor (no competition on its CPU), %d rounds: p50 %.3f ms, p99 %.3f ms",
	     attempt, ROUNDS, floor50 / 1e6, floor / 1e6);
	diag("attempt %d: light task, rr_interval 6, %d rounds: p50 %.3f ms, p99 %.3f ms",
	     attempt, ROUNDS, pool6[ROUNDS * SAMPLES / 2] / 1e6, l6 / 1e6);
	/*
	 * Among hogs the wakeup also has to preempt one: one more emulator
	 * round trip, the floor's typical (p50) cost, on top of its p99.
	 */
	ok = l6 < floor + floor50 + 2 * 6000000ull;
	if (ok || attempt == 2)
		tap_ok(ok, "light periodic task among %d hogs: p99 %.3f ms < floor p99 %.3f + p50 %.3f ms + 2 x rr_interval (12 ms)%s",
		       nh, l6 / 1e6, floor / 1e6, floor50 / 1e6, attempt == 2 ? ", second attempt" : "");
	return ok;
}

int main(void)
{
	static uint64_t pool2[LIGHT_ROUNDS * SAMPLES], pool20[LIGHT_ROUNDS * SAMPLES];
	uint64_t r2[LIGHT_ROUNDS], r20[LIGHT_ROUNDS];
	int m = ncpus_online(), i, r, nh = 2 * m;
	pid_t hogs[128];
	uint64_t l2h, l20h, l2, l20, m2, m20, p50;

	need_vds();
	tap_plan(2);
	if (m < 2) {
		tap_skip("needs 2 CPUs");
		tap_skip("needs 2 CPUs");
		return 0;
	}
	set_rr(6);
	for (i = 0; i < nh; i++)
		hogs[i] = spawn_hog(-1, 0);
	/* A busy host can stretch one attempt's tail: retry once. */
	if (!among_hogs(m, nh, hogs, 1))
		among_hogs(m, nh, hogs, 2);
	for (r = 0; r < LIGHT_ROUNDS; r++) {
		r2[r] = light_round(2, r, pool2);
		r20[r] = light_round(20, r, pool20);
	}
	l2 = p99_of(pool2, LIGHT_ROUNDS * SAMPLES);
	l20 = p99_of(pool20, LIGHT_ROUNDS * SAMPLES);
	qsort(r2, LIGHT_ROUNDS, sizeof(r2[0]), cmp_u64);
	qsort(r20, LIGHT_ROUNDS, sizeof(r20[0]), cmp_u64);
	m2 = r2[LIGHT_ROUNDS / 2];
	m20 = r20[LIGHT_ROUNDS / 2];
	diag("light task, %d rounds pooled: lateness p99 %.3f ms at rr_interval 2, %.3f ms at 20",
	     LIGHT_ROUNDS, l2 / 1e6, l20 / 1e6);
	set_rr(2);
	l2h = periodic(4000, SAMPLES, &p50);
	diag("heavy task, rr_interval 2: p50 %.3f ms, p99 %.3f ms", p50 / 1e6, l2h / 1e6);
	set_rr(20);
	l20h = periodic(4000, SAMPLES, &p50);
	diag("heavy task, rr_interval 20: p50 %.3f ms, p99 %.3f ms", p50 / 1e6, l20h / 1e6);
	set_rr(6);
	for (i = 0; i < nh; i++)
		kill_wait(hogs[i]);

	tap_ok(m2 < m20,
	       "light periodic task, median of %d rounds' p99 lateness: rr_interval=2 (%.3f ms) < rr_interval=20 (%.3f ms)",
	       LIGHT_ROUNDS, m2 / 1e6, m20 / 1e6);
	return tap_done();
}
