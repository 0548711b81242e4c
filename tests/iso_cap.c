// SPDX-License-Identifier: GPL-2.0
/*
 * The SCHED_ISO budget. M ISO hogs and 7M NORMAL hogs: over 15 s the ISO
 * hogs get iso_cpu +-10 percent of all CPU time (70 by default, then 30),
 * and no NORMAL hog ever waits more than a second. Over budget, ISO tasks
 * run as NORMAL, where these 8M hogs would give them 12.5%: outside both
 * windows, so a budget that is never applied (100%), or applied for good
 * (12.5%), fails. (An ISO task never gets less than a NORMAL one would:
 * with fewer NORMAL hogs than ISO ones, its NORMAL share is above 30%,
 * and that is what it gets at iso_cpu=30.)
 */
#include "vds_test.h"


static pid_t hog(struct gap_slot *s, int iso)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sched_param sp = { 0 };

		if (iso)
			sched_setscheduler(0, SCHED_ISO, &sp);
		gap_spin(s);
	}
	return pid;
}

static double iso_share(pid_t *p, int n, int niso, int secs, uint64_t *gap, struct gap_slot *sl)
{
	uint64_t r0[64], iso = 0, all = 0;
	int i;

	for (i = 0; i < n; i++) {
		r0[i] = schedstat_run(p[i]);
		sl[i].reset = 1;
	}
	sleep_ms(secs * 1000);
	*gap = 0;
	for (i = 0; i < n; i++) {
		uint64_t r = schedstat_run(p[i]) - r0[i];

		all += r;
		if (i < niso)
			iso += r;
		else if (sl[i].max_gap > *gap)
			*gap = sl[i].max_gap;
	}
	return 100.0 * iso / all;
}

int main(void)
{
	int m = ncpus_online(), n = 8 * m, i;
	struct gap_slot *sl = shared_mem(sizeof(struct gap_slot) * 64);
	pid_t p[64];
	uint64_t gap70, gap30;
	double s70, s30;

	need_vds();
	tap_plan(4);
	if (n > 64)
		n = 64;
	write_file("/proc/sys/kernel/iso_cpu", "70");
	for (i = 0; i < n; i++)
		p[i] = hog(&sl[i], i < m);
	sleep_ms(8000);
	s70 = iso_share(p, n, m, 15, &gap70, sl);
	write_file("/proc/sys/kernel/iso_cpu", "30");
	sleep_ms(6000);
	s30 = iso_share(p, n, m, 15, &gap30, sl);
	write_file("/proc/sys/kernel/iso_cpu", "70");
	for (i = 0; i < n; i++)
		kill_wait(p[i]);
	diag("ISO share %.1f%% at iso_cpu=70 (NORMAL max wait %.0f ms), %.1f%% at 30 (%.0f ms)",
	     s70, gap70 / 1e6, s30, gap30 / 1e6);
	tap_ok(s70 > 60 && s70 < 80, "%d ISO hogs among %d: %.1f%% of the CPU with iso_cpu=70", m, n, s70);
	tap_ok(gap70 < 1000000000ull, "NORMAL hogs never wait a second (longest %.0f ms)", gap70 / 1e6);
	tap_ok(s30 > 20 && s30 < 40, "the share follows iso_cpu=30: %.1f%%", s30);
	tap_ok(gap30 < 1000000000ull, "NORMAL hogs never wait a second at 30 (longest %.0f ms)", gap30 / 1e6);
	return tap_done();
}
