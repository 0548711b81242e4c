// SPDX-License-Identifier: GPL-2.0
/*
 * A task woken at a high rate by a hog on its CPU: a process pinned to the
 * last CPU forks a child (same CPU, inherited affinity) that does nothing
 * but kill(parent, SIGUSR1) in a loop; the parent sleeps in pause() and its
 * handler counts, until N signals have been handled. Signals sent while
 * one is pending merge, so the parent handles one per wakeup: the time is
 * that of N wakeup preemptions of the child and N switches back. N is
 * VDS_BENCHSECS x 10000 (90000 at the default 9). Prints one JSON line:
 * the time, the rate, and per handled signal the parent's voluntary and
 * nonvoluntary switches and the child's nonvoluntary switches and run time.
 * b_signal [N]
 *
 * vds-bench: timeout 300
 * vds-metric: signal_storm secs lower
 * vds-metric: signal_storm handled_per_s higher
 * vds-metric: signal_storm * info
 */
#include "vds_test.h"

static volatile long handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : setting_long("VDS_BENCHSECS", 9) * 10000;
	struct sigaction sa = { 0 };
	double v0, nv0, snv0;
	uint64_t t0, t1, sr0, sr1;
	int cpu = ncpus_online() - 1;
	pid_t self = getpid(), child;

	if (n < 1)
		n = 1;
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pin_to(0, cpu);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(0);
		for (;;)
			kill(self, SIGUSR1);
	}
	v0 = proc_field(self, "status", "voluntary_ctxt_switches");
	nv0 = proc_field(self, "status", "nonvoluntary_ctxt_switches");
	snv0 = proc_field(child, "status", "nonvoluntary_ctxt_switches");
	sr0 = schedstat_run(child);
	t0 = now_ns();
	while (handled < n)
		pause();
	t1 = now_ns();
	v0 = proc_field(self, "status", "voluntary_ctxt_switches") - v0;
	nv0 = proc_field(self, "status", "nonvoluntary_ctxt_switches") - nv0;
	snv0 = proc_field(child, "status", "nonvoluntary_ctxt_switches") - snv0;
	sr1 = schedstat_run(child) - sr0;
	kill_wait(child);

	printf("{\"bench\":\"signal_storm\",\"signals\":%ld,\"secs\":%.3f,\"handled_per_s\":%.0f,"
	       "\"parent_vol_per_sig\":%.3f,\"parent_nonvol_per_sig\":%.3f,"
	       "\"child_nonvol_per_sig\":%.3f,\"child_run_us_per_sig\":%.1f}\n",
	       handled, (t1 - t0) / 1e9, handled * 1e9 / (t1 - t0),
	       v0 / handled, nv0 / handled, snv0 / handled, sr1 / 1e3 / handled);
	return 0;
}
