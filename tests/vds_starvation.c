// SPDX-License-Identifier: GPL-2.0
/*
 * No starvation: 3M CPU hogs at nice -5 .. 19 plus one more nice 19 hog,
 * for 8 s. Each hog watches the clock and records its longest time off
 * the CPU. A task with deadline offset D = ratio(nice) * rr_interval waits
 * at most until every earlier deadline has run: about D plus one slice of
 * each other task spread over M CPUs. Every task must run within three
 * times that bound (TCG noise), and none may wait more than 5 s.
 */
#include "vds_test.h"
#include <math.h>

struct slot {
	volatile uint64_t max_gap, runs;
};

int main(void)
{
	int m = ncpus_online(), n = 3 * m + 1, i, fails = 0;
	struct slot *sl = shared_mem(sizeof(struct slot) * n);
	int *nice_of = calloc(n, sizeof(*nice_of));
	pid_t *pids = calloc(n, sizeof(*pids));
	long rr = read_long("/proc/sys/kernel/rr_interval", 6);
	double worst_ratio = 0;

	need_vds();
	tap_plan(2);
	if (!sl || !nice_of || !pids) {
		tap_ok(0, "%d hogs: out of memory", n);
		tap_ok(0, "%d hogs: out of memory", n);
		return tap_done();
	}
	for (i = 0; i < n; i++) {
		nice_of[i] = i == n - 1 ? 19 : -5 + (i * 24) / (n - 2);
		pids[i] = fork();
		if (pids[i] == 0) {
			uint64_t last = now_ns(), t;

			setpriority(PRIO_PROCESS, 0, nice_of[i]);
			for (;;) {
				t = now_ns();
				if (t - last > sl[i].max_gap)
					sl[i].max_gap = t - last;
				last = t;
				sl[i].runs++;
			}
		}
	}
	sleep_ms(500);
	for (i = 0; i < n; i++)
		sl[i].max_gap = 0;
	sleep_ms(8000);
	for (i = 0; i < n; i++)
		kill_wait(pids[i]);
	for (i = 0; i < n; i++) {
		double d = pow(1.1, nice_of[i] + 20) * rr;	/* ms */
		double bound = 3 * (d + (double)n * rr / m);
		double gap = sl[i].max_gap / 1e6;

		if (gap / bound > worst_ratio)
			worst_ratio = gap / bound;
		diag("nice %3d: longest wait %8.1f ms, bound %7.1f ms", nice_of[i], gap, bound);
		if (gap > bound || gap > 5000)
			fails++;
	}
	tap_ok(fails == 0, "every task ran within its bound (worst at %.0f%% of its bound)",
	       100 * worst_ratio);
	{
		uint64_t mx = 0;

		for (i = 0; i < n; i++)
			if (sl[i].max_gap > mx)
				mx = sl[i].max_gap;
		tap_ok(mx < 5000000000ull, "no task waited more than 5 s (longest %.1f ms)", mx / 1e6);
	}
	return tap_done();
}
