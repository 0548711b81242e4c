// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_ISO latency: a periodic task at nice 10 (every 5 ms, 0.5 ms of
 * CPU) among 2M NORMAL hogs at nice -10 (an X server reniced as on a
 * desktop). ISO runs before every NORMAL task whatever its nice, so as
 * SCHED_ISO its p99 wakeup latency is clearly below the same task's as
 * SCHED_NORMAL, and within 1 ms (plus the floor) of the floor: the same
 * task as SCHED_FIFO among the same hogs (it preempts them at once, so
 * what is left is the kernel's and the emulator's own latency; under TCG
 * a busy vCPU can wait milliseconds for the host thread). A scheduler
 * that gave ISO the task's nice, or queued it among normal tasks, fails
 * both.
 *
 * The task is at nice 10 so that as SCHED_NORMAL it waits behind the
 * hogs once per slice: it keeps its deadline across its sleeps until its
 * slice is used up (every 12 periods), and a fresh one lies about 17
 * slices ahead, later than any hog's for most of that time. At nice 0 the
 * fresh deadline is soon earlier than the hogs' and those waits were about
 * 1 % of the periods, so NORMAL's p99 fell either side of them from one
 * boot to the next.
 *
 * So that a busy host weighs on all three alike, the three are measured in
 * 3 alternating rounds of 200 periods each and pooled (600 samples each);
 * a failed comparison is measured once more, all three again, before it
 * fails (it passes if either measurement holds), and both are printed.
 * VDS_HOGNICE (vdshognice= in the boot's settings) sets the hogs' nice
 * for an experiment.
 *
 * On 6.12 PREEMPT_RT the timer wakeup of a task that is not RT or deadline
 * is delivered by ksoftirqd, which VDS runs in the ISO band there
 * (Documentation/tuning.md); otherwise the ISO task's wakeup would wait
 * behind the hogs.
 */
#include "vds_test.h"

#define ROUNDS		3
#define PER_ROUND	200
#define TASK_NICE	10	/* the measured task's nice, in all three policies */

static uint64_t pool[3][ROUNDS * PER_ROUND];

static void set_policy(int policy)
{
	struct sched_param sp = { policy == SCHED_FIFO ? 50 : 0 };

	if (sched_setscheduler(0, policy, &sp))
		diag("sched_setscheduler(%d): %s", policy, strerror(errno));
}

/* p99 of the FIFO floor, NORMAL and ISO, in alternating rounds. */
static void measure(uint64_t out[3], uint64_t p50[3])
{
	static const int pol[3] = { SCHED_FIFO, SCHED_OTHER, SCHED_ISO };
	static const char * const name[3] = { "FIFO", "NORMAL", "ISO" };
	uint64_t dummy;
	int r, k;

	for (r = 0; r < ROUNDS; r++)
		for (k = 0; k < 3; k++) {
			set_policy(pol[k]);
			periodic(500, PER_ROUND, &dummy);
			memcpy(&pool[k][r * PER_ROUND], periodic_lat, sizeof(uint64_t) * PER_ROUND);
		}
	set_policy(SCHED_OTHER);
	for (k = 0; k < 3; k++) {
		out[k] = p99_of(pool[k], ROUNDS * PER_ROUND);
		p50[k] = pool[k][ROUNDS * PER_ROUND / 2];
		diag("%s: p90 %.3f p98 %.3f max %.3f ms", name[k],
		     pool[k][pct_rank(ROUNDS * PER_ROUND, 900)] / 1e6,
		     pool[k][pct_rank(ROUNDS * PER_ROUND, 980)] / 1e6,
		     pool[k][ROUNDS * PER_ROUND - 1] / 1e6);
	}
}

int main(void)
{
	int m = ncpus_online(), i, nh = 2 * m, tries, ok1 = 0, ok2 = 0;
	uint64_t v[3], p50[3], v1[3] = { 0 }, v2[3] = { 0 };
	pid_t hogs[128];

	need_vds();
	tap_plan(2);
	if (nh > 128)
		nh = 128;
	for (i = 0; i < nh; i++)
		hogs[i] = spawn_hog(-1, (int)setting_long("VDS_HOGNICE", -10));
	sleep_ms(300);
	if (setpriority(PRIO_PROCESS, 0, TASK_NICE))
		diag("setpriority(%d): %s", TASK_NICE, strerror(errno));
	for (tries = 0; tries < 2 && !(ok1 && ok2); tries++) {
		measure(v, p50);
		diag("try %d: FIFO (floor) p50 %.3f p99 %.3f ms, NORMAL p50 %.3f p99 %.3f ms, ISO p50 %.3f p99 %.3f ms",
		     tries + 1, p50[0] / 1e6, v[0] / 1e6, p50[1] / 1e6, v[1] / 1e6,
		     p50[2] / 1e6, v[2] / 1e6);
		/* Each comparison keeps the measurement that decided it. */
		if (!ok1) {
			ok1 = v[2] * 3 < v[1] * 2;
			memcpy(v1, v, sizeof(v));
		}
		if (!ok2) {
			ok2 = v[2] < v[0] * 2 + 1000000ull;
			memcpy(v2, v, sizeof(v));
		}
	}
	for (i = 0; i < nh; i++)
		kill_wait(hogs[i]);
	tap_ok(ok1, "ISO p99 %.3f ms is clearly (1.5x) below NORMAL's %.3f ms", v1[2] / 1e6, v1[1] / 1e6);
	tap_ok(ok2, "ISO p99 %.3f ms < 2 x floor %.3f ms + 1 ms", v2[2] / 1e6, v2[0] / 1e6);
	return tap_done();
}
