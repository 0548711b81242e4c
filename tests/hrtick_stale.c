// SPDX-License-Identifier: GPL-2.0
/*
 * The slice timer (hrtick) VDS arms for its running task must not fire on
 * the task that runs after it. The timer calls the running task's class
 * tick with queued=1; on a SCHED_RR task that charges it a tick of its
 * round-robin slice that it did not run, so an RR task that keeps
 * preempting VDS tasks gets a shorter slice than sched_rr_get_interval()
 * says, and on any other class it is a tick out of turn.
 *
 * One CPU, rr_interval 1 ms (every slice ends between two ticks, so VDS
 * arms the hrtick at most picks), two VDS hogs and a SCHED_RR task that
 * runs 0.3 ms in every millisecond and so preempts a hog with an armed
 * timer a few hundred times a second. The timer:hrtimer_expire_entry
 * trace for 2 s must show hrtick expiries (the timer is in use) and none
 * that interrupted the RR task (after it became one: it starts as a VDS
 * task, which the timer may tick).
 */
#include "vds_test.h"
#include <sys/prctl.h>

#define TR	"/sys/kernel/tracing"
#define VICTIM	"vds-rr-victim"

static void rr_periodic(int cpu, unsigned int ms)
{
	struct sched_param sp = { .sched_priority = 10 };
	uint64_t end, t;

	prctl(PR_SET_NAME, VICTIM);
	pin_to(0, cpu);
	if (sched_setscheduler(0, SCHED_RR, &sp))
		_exit(2);
	end = now_ns() + ms * 1000000ull;
	while ((t = now_ns()) < end) {
		struct timespec ts = { 0, 700000 };

		while (now_ns() - t < 300000)
			;
		nanosleep(&ts, NULL);
	}
	_exit(0);
}

int main(void)
{
	char line[512], old_rr[16] = "", hist[4][512];
	int nhist = 0, cur_rt = 0;
	char *p;
	long total = 0, on_rr = 0;
	int cpu = ncpus_online() - 1, st = 0;
	pid_t hog[2], rr;
	FILE *f;

	need_vds();
	if (access(TR "/events/timer/hrtimer_expire_entry/enable", W_OK))
		tap_skip_all("no timer:hrtimer_expire_entry tracepoint");
	tap_plan(3);
	read_file("/proc/sys/kernel/rr_interval", old_rr, sizeof(old_rr));
	write_file("/proc/sys/kernel/rr_interval", "1");
	hog[0] = spawn_hog(cpu, 0);
	hog[1] = spawn_hog(cpu, 0);
	sleep_ms(100);

	write_file(TR "/tracing_on", "0");
	write_file(TR "/trace", "");
	write_file(TR "/buffer_size_kb", "4096");
	write_file(TR "/events/timer/hrtimer_expire_entry/enable", "1");
	/* For a failure's record: what ran before a stray expiry. */
	write_file(TR "/events/sched/sched_switch/enable", "1");
	write_file(TR "/tracing_on", "1");
	rr = fork();
	if (rr == 0)
		rr_periodic(cpu, 2000);
	waitpid(rr, &st, 0);
	write_file(TR "/tracing_on", "0");
	write_file(TR "/events/timer/hrtimer_expire_entry/enable", "0");
	write_file(TR "/events/sched/sched_switch/enable", "0");
	kill_wait(hog[0]);
	kill_wait(hog[1]);
	if (old_rr[0])
		write_file("/proc/sys/kernel/rr_interval", old_rr);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "a SCHED_RR task ran 0.3 ms in each ms for 2 s beside 2 VDS hogs on CPU %d (status %d)",
	       cpu, st);

	f = fopen(TR "/trace", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char cpustr[16];

		/* The last events on the test's CPU, printed with a stray expiry. */
		snprintf(cpustr, sizeof(cpustr), "[%03d]", cpu);
		if (strstr(line, cpustr)) {
			memcpy(hist[nhist % 4], line, sizeof(line));
			nhist++;
		}
		/*
		 * Until it switches to SCHED_RR the victim is a VDS task,
		 * for which the timer is armed rightly: count what fires
		 * on it only after a switch to it as an RT task (prio < 100).
		 */
		if (strstr(line, cpustr) && (p = strstr(line, " next_prio=")))
			cur_rt = atoi(p + 11) < 100 && strstr(line, "next_comm=" VICTIM);
		if (!strstr(line, "function=hrtick "))
			continue;
		total++;
		if (strstr(line, VICTIM "-") && cur_rt) {
			on_rr++;
			for (int i = nhist > 4 ? nhist - 4 : 0; on_rr <= 3 && i < nhist; i++)
				diag("%.*s", (int)strcspn(hist[i % 4], "\n"), hist[i % 4]);
		}
	}
	if (f)
		fclose(f);
	write_file(TR "/trace", "");
	tap_ok(total > 0, "VDS armed its slice timer: %ld hrtick expiries in 2 s", total);
	tap_ok(on_rr == 0,
	       "no hrtick fired on the RR task after a VDS task left the CPU: %ld of %ld did",
	       on_rr, total);
	return tap_done();
}
