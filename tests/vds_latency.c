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
 * rr_interval=2 than with 20: a scheduler whose slices do not follow
 * rr_interval fails. It is asserted on lateness (target to end of the
 * work, less the work), not on wakeup latency: the slice mostly runs out
 * in the middle of the work, so the task waits while preempted, which
 * wakeup latency does not see; it only sees a later wakeup that finds no
 * hog with a later deadline running, which depends on how the hogs'
 * slices are staggered across CPUs and so changes from boot to boot.
 *
 * Here the task does 1 ms every 5 ms (20 %, below its share among 2M
 * hogs, 4/9 of a CPU at 4 CPUs). With 0.5 ms a slice of 20 ms would last
 * 40 periods, only 2.5 % of them would begin with a wait, and the p99
 * would sit at the edge of that population. Each round runs a control
 * beside the task: the same task as SCHED_FIFO on CPU 0, with the same
 * targets (periods_from()), which preempts the hogs at once. A host stall
 * delays period i of both (one emulator thread runs every vCPU, and the
 * host machine stops all of them at once), so what is compared is the
 * task's lateness over the control's, period by period: its p99 per
 * round, the median over LIGHT_ROUNDS alternating rounds of each value.
 * Comparing the plain lateness would let a host that stalls through the
 * whole test decide it. A miss is measured again once, LIGHT_ROUNDS more
 * rounds, and the second measurement counts. A task that asks for more
 * than its share (4 ms every 5 ms) is measured and printed too, but not
 * asserted: its wait depends on how its own refresh period (slice / 80%)
 * beats against the hogs', not monotonically on rr_interval.
 */
#include "vds_test.h"

#define ROUNDS	3
#define LIGHT_ROUNDS	5
#define SAMPLES	400
#define LIGHT_NS	1000000ull


static void set_rr(int ms)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", ms);
	write_file("/proc/sys/kernel/rr_interval", v);
}

/*
 * One round of the light task at @rr ms among the hogs, with its control:
 * the same task as SCHED_FIFO on CPU 0 with the same targets (it preempts
 * the hogs at once). Returns the p99 of the light task's lateness over the
 * control's, period by period.
 */
static uint64_t light_round(int rr, int r)
{
	static uint64_t start[SAMPLES], late[SAMPLES];
	uint64_t *ctl = shared_mem(2 * SAMPLES * sizeof(uint64_t));
	uint64_t t0, ex;
	pid_t c;

	set_rr(rr);
	t0 = now_ns() + 20000000ull;
	c = fork();
	if (c == 0) {
		struct sched_param sp = { .sched_priority = 50 };

		pin_to(0, 0);
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			diag("SCHED_FIFO: %s", strerror(errno));
		periods_from(t0, PERIOD_NS, LIGHT_NS, SAMPLES, ctl, ctl + SAMPLES);
		_exit(0);
	}
	periods_from(t0, PERIOD_NS, LIGHT_NS, SAMPLES, start, late);
	waitpid(c, NULL, 0);
	ex = p99_excess(late, ctl + SAMPLES, SAMPLES);
	diag("light task, rr_interval %d, round %d: lateness p99 %.3f ms, its FIFO control's %.3f ms; over the control, period by period, p99 %.3f ms",
	     rr, r + 1, p99_present(late, SAMPLES, NULL) / 1e6,
	     p99_present(ctl + SAMPLES, SAMPLES, NULL) / 1e6, ex / 1e6);
	munmap(ctl, 2 * SAMPLES * sizeof(uint64_t));
	return ex;
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

/*
 * LIGHT_ROUNDS alternating rounds at rr_interval 2 and 20; the medians of
 * their p99s over the control go to @m2 and @m20.
 */
static void light(uint64_t *m2, uint64_t *m20)
{
	uint64_t r2[LIGHT_ROUNDS], r20[LIGHT_ROUNDS];
	int r;

	for (r = 0; r < LIGHT_ROUNDS; r++) {
		r2[r] = light_round(2, r);
		r20[r] = light_round(20, r);
	}
	qsort(r2, LIGHT_ROUNDS, sizeof(r2[0]), cmp_u64);
	qsort(r20, LIGHT_ROUNDS, sizeof(r20[0]), cmp_u64);
	*m2 = r2[LIGHT_ROUNDS / 2];
	*m20 = r20[LIGHT_ROUNDS / 2];
}

int main(void)
{
	int m = ncpus_online(), i, nh = 2 * m, again = 0;
	pid_t *hogs = calloc(nh, sizeof(*hogs));
	uint64_t l2h, l20h, m2, m20, p50;

	need_vds();
	tap_plan(2);
	if (m < 2) {
		tap_skip("needs 2 CPUs");
		tap_skip("needs 2 CPUs");
		return 0;
	}
	if (!hogs) {
		tap_ok(0, "%d hogs: out of memory", nh);
		tap_ok(0, "%d hogs: out of memory", nh);
		return tap_done();
	}
	set_rr(6);
	for (i = 0; i < nh; i++)
		hogs[i] = spawn_hog(-1, 0);
	/* A busy host can stretch one attempt's tail: retry once. */
	if (!among_hogs(m, nh, hogs, 1))
		among_hogs(m, nh, hogs, 2);
	light(&m2, &m20);
	if (m2 >= m20) {
		diag("light task: medians %.3f ms at 2, %.3f ms at 20; measuring again",
		     m2 / 1e6, m20 / 1e6);
		light(&m2, &m20);
		again = 1;
	}
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
	       "light periodic task, median of %d rounds' p99 lateness over its FIFO control: rr_interval=2 (%.3f ms) < rr_interval=20 (%.3f ms)%s",
	       LIGHT_ROUNDS, m2 / 1e6, m20 / 1e6, again ? ", second attempt" : "");
	return tap_done();
}
