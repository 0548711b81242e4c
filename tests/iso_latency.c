// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_ISO latency: a periodic task (every 5 ms, 0.5 ms of CPU) among 2M
 * NORMAL hogs. As SCHED_ISO its p99 wakeup latency is clearly below the
 * same task's as SCHED_NORMAL, and within 1 ms (plus half the floor, for
 * the emulator's noise) of the floor: the same task
 * as SCHED_FIFO among the same hogs (it preempts them at once, so what is
 * left is the kernel's and the emulator's own latency; under TCG a busy
 * vCPU can wait milliseconds for the host thread).
 */
#include "tap.h"

#define SCHED_ISO 4

int main(void)
{
	int m = ncpus_online(), i, nh = 2 * m;
	struct sched_param sp = { 0 };
	uint64_t floor, iso, normal, p50;
	pid_t hogs[128];

	tap_plan(2);
	for (i = 0; i < nh; i++)
		hogs[i] = spawn_hog(-1, 0);
	sleep_ms(300);
	sp.sched_priority = 50;
	sched_setscheduler(0, SCHED_FIFO, &sp);
	floor = periodic(500, 600, &p50);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	diag("FIFO:   p50 %.3f ms, p99 %.3f ms (the floor)", p50 / 1e6, floor / 1e6);
	normal = periodic(500, 600, &p50);
	diag("NORMAL: p50 %.3f ms, p99 %.3f ms", p50 / 1e6, normal / 1e6);
	sched_setscheduler(0, SCHED_ISO, &sp);
	iso = periodic(500, 600, &p50);
	diag("ISO:    p50 %.3f ms, p99 %.3f ms (floor p99 %.3f ms)", p50 / 1e6, iso / 1e6, floor / 1e6);
	sched_setscheduler(0, SCHED_OTHER, &sp);
	for (i = 0; i < nh; i++)
		kill_wait(hogs[i]);
	tap_ok(iso * 3 < normal * 2, "ISO p99 %.3f ms is clearly (1.5x) below NORMAL's %.3f ms", iso / 1e6, normal / 1e6);
	tap_ok(iso < floor * 2 + 1000000ull, "ISO p99 %.3f ms < 2 x floor %.3f ms + 1 ms",
	       iso / 1e6, floor / 1e6);
	return tap_done();
}
