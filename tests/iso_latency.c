// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_ISO latency: a periodic task (every 5 ms, 0.5 ms of CPU) among 2M
 * NORMAL hogs at nice -10 (an X server reniced as on a desktop). ISO runs
 * before every NORMAL task whatever its nice, so as SCHED_ISO its p99
 * wakeup latency is clearly below the same task's as SCHED_NORMAL at nice
 * 0, whose deadlines are later than the hogs', and within 1 ms (plus the
 * floor) of the floor: the same task as SCHED_FIFO among the same hogs (it preempts them
 * at once, so what is left is the kernel's and the emulator's own latency;
 * under TCG a busy vCPU can wait milliseconds for the host thread).
 *
 * So that a busy host weighs on all three alike, the three are measured in
 * 3 alternating rounds of 200 periods each and pooled (600 samples each);
 * a failed comparison is measured once more, all three again, before it
 * fails (it passes if either measurement holds), and both are printed.
 *
 * With nice 0 hogs, the NORMAL task's deadline, kept across its short
 * sleeps, is mostly earlier than theirs: it preempts them nearly as fast
 * as ISO, and on a busy host (PREEMPT_RT in CI: ISO p99 13.5 ms against
 * NORMAL 19.0 ms) the 1.5x margin was noise. VDS_HOGNICE (vdshognice= in
 * the boot's settings) sets the hogs' nice for an experiment.
 *
 * On 6.12 PREEMPT_RT the timer wakeup of a task that is not RT or deadline
 * is delivered by ksoftirqd; as a NORMAL thread it waited behind the nice
 * -10 hogs (ISO p99 28-36 ms), which is why VDS runs it in the ISO band
 * there (patch 0027; Documentation/testing.md, "PREEMPT_RT").
 */
#include "vds_test.h"

#define ROUNDS		3
#define PER_ROUND	200

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
