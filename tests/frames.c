// SPDX-License-Identifier: GPL-2.0
/*
 * A task that asks for less than its fair share gets all of it: a video-like
 * task (6.7 ms of CPU every 16.7 ms, 40 % of a CPU; each frame needs more
 * than one 6 ms slice) and an audio-like task (2.5 ms every 50 ms), each
 * pinned to one CPU with one nice 0 hog, and alone there.
 *
 * The task sleeps to the start of each frame (absolute timer), burns the
 * frame's work by its own CPU clock, and skips frames whose start it missed
 * altogether (their CPU is not delivered). Per case: the CPU delivered
 * (work done / work asked) and the p99 of how late each frame started.
 *
 * Asserted, with a hog: delivered >= 98 %, and the p99 start lateness
 * below one rr_interval (6 ms under EEVDF) plus twice the same task's p99
 * alone in this boot, measured just before. Alone: delivered >= 98 %. A
 * failed case is measured again (floor included), up to four times in
 * all, five seconds apart, before it fails.
 *
 * The floor counts twice: on a quiet host it is a fraction of a
 * millisecond and the bound is one slice, but when the host takes the
 * vCPU away (alone p99 of several ms) the frame that a stall delayed also
 * shares the catch-up with the hog. CI saw 13.7 ms with a hog against
 * 5.8 ms alone on a busy host; a scheduler that makes the frame wait for
 * the hog's slice adds a whole rr_interval on top of the stalls either way.
 */
#include "vds_test.h"

/*
 * A stalled host fails the alone case as well (CI: video alone 91.7 %
 * delivered, p99 14.9 ms, on both of two attempts): measure up to four
 * times, five seconds apart, before failing.
 */
#define ATTEMPTS	4

struct model {
	const char *name;
	uint64_t period_ns, work_ns;
	unsigned int ms;
};

static const struct model models[] = {
	{ "video", 16700000ull, 6700000ull, 4000 },
	{ "audio", 50000000ull, 2500000ull, 5000 },
};

struct result {
	double delivered;
	uint64_t p99, max;
};

static uint64_t late_buf[1024];

static void frames(const struct model *md, struct result *res)
{
	uint64_t t0 = now_ns() + 20000000ull, end = t0 + md->ms * 1000000ull;
	uint64_t next = t0, asked = 0, done = 0;
	struct timespec ts;
	int n = 0;

	while (next < end && n < 1024) {
		uint64_t stop, t;

		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		t = now_ns();
		/* Frames whose whole period passed before we got here: lost. */
		while (t >= next + md->period_ns) {
			asked += md->work_ns;
			next += md->period_ns;
		}
		late_buf[n++] = t - next;
		stop = thread_cpu_ns() + md->work_ns;
		while (thread_cpu_ns() < stop)
			;
		asked += md->work_ns;
		done += md->work_ns;
		next += md->period_ns;
	}
	res->delivered = asked ? 100.0 * done / asked : 0;
	res->p99 = p99_of(late_buf, n);
	res->max = late_buf[n - 1];
}

/* The model alone on @cpu, or with a nice 0 hog there; in a child. */
static void run(const struct model *md, int cpu, int hog, struct result *res)
{
	struct result *shm = shared_mem(sizeof(*shm));
	pid_t h = hog ? spawn_hog(cpu, 0) : 0, c;

	sleep_ms(hog ? 200 : 20);
	c = fork();
	if (c == 0) {
		pin_to(0, cpu);
		frames(md, shm);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	kill_wait(h);
	*res = *shm;
	munmap(shm, sizeof(*shm));
}

int main(void)
{
	int cpu = ncpus_online() - 1, on_vds = vds_active();
	double rr = on_vds ? read_long("/proc/sys/kernel/rr_interval", 6) * 1e6 : 6e6;
	double bound = 0;
	unsigned int i;

	tap_plan(4);
	diag("%s, cpu %d, slack %.0f ms", on_vds ? "VDS" : "EEVDF", cpu, rr / 1e6);
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const struct model *md = &models[i];
		struct result alone, busy;
		int ok = 0, attempt;

		for (attempt = 0; attempt < ATTEMPTS && !ok; attempt++) {
			if (attempt)
				sleep_ms(5000);
			run(md, cpu, 0, &alone);
			run(md, cpu, 1, &busy);
			diag("%s alone: %.1f%% delivered, start late p99 %.2f ms max %.2f; with a hog: %.1f%%, p99 %.2f ms max %.2f",
			     md->name, alone.delivered, alone.p99 / 1e6, alone.max / 1e6,
			     busy.delivered, busy.p99 / 1e6, busy.max / 1e6);
			bound = 2.0 * alone.p99 + rr;
			ok = alone.delivered >= 98.0 && busy.delivered >= 98.0 &&
			     busy.p99 < bound;
		}
		tap_ok(alone.delivered >= 98.0, "%s alone: %.1f%% of its CPU delivered (>= 98%%)",
		       md->name, alone.delivered);
		tap_ok(busy.delivered >= 98.0 && busy.p99 < bound,
		       "%s with a hog: %.1f%% delivered (>= 98%%), frames start late p99 %.2f ms < 2 x %.2f ms alone + %.0f ms%s",
		       md->name, busy.delivered, busy.p99 / 1e6, alone.p99 / 1e6, rr / 1e6,
		       attempt > 1 ? ", after retries" : "");
		if (attempt > 1)
			diag("%s: %d attempts", md->name, attempt);
	}
	return tap_done();
}
