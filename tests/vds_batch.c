// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BATCH never preempts on wakeup. On one CPU with a NORMAL hog, a
 * NORMAL sleeper (woken every 10 ms, runs a little) keeps its early
 * deadline and preempts the hog as soon as it wakes; a BATCH sleeper doing
 * the same waits until the hog's slice ends. Its mean wakeup latency must
 * be at least twice the NORMAL sleeper's (waiting for the hog's slice
 * usually costs many times more; a busy emulator narrows the gap), and a
 * sizeable part of a slice: a scheduler that lets BATCH preempt on wakeup
 * gives both sleepers the same latency.
 *
 * The sleeper is woken through a pipe by a task on another CPU, not by its
 * own timer: on PREEMPT_RT the timer of a non-RT task expires in the
 * ktimers thread, which has preempted the hog before the wakeup, and the
 * pick after it is an ordinary pick by deadline (as under EEVDF there).
 * A remote wakeup decides preemption in the same place on every kernel.
 */
#include "vds_test.h"

static double sleeper(int policy, int cpu, int wcpu, int n)
{
	struct sched_param sp = { 0 };
	uint64_t sum = 0, t;
	int fd[2], i;
	pid_t waker;

	if (pipe(fd))
		return 0;
	waker = fork();
	if (waker == 0) {
		close(fd[0]);
		pin_to(0, wcpu);
		for (i = 0; i < n; i++) {
			sleep_ms(10);
			t = now_ns();
			if (write(fd[1], &t, sizeof(t)) != sizeof(t))
				_exit(1);
		}
		_exit(0);
	}
	close(fd[1]);
	pin_to(0, cpu);
	sched_setscheduler(0, policy, &sp);
	for (i = 0; i < n; i++) {
		uint64_t end;

		if (read(fd[0], &t, sizeof(t)) != sizeof(t))
			break;
		sum += now_ns() - t;
		end = thread_cpu_ns() + 100000;
		while (thread_cpu_ns() < end)
			;
	}
	close(fd[0]);
	sched_setscheduler(0, SCHED_OTHER, &sp);
	kill_wait(waker);
	return i ? (double)sum / i : 0;
}

int main(void)
{
	int cpu = ncpus_online() - 1;
	double normal, batch;
	long rr = read_long("/proc/sys/kernel/rr_interval", 6);
	pid_t hog;

	/* Before anything is spawned: a skip leaves no hog behind. */
	need_vds();
	hog = spawn_hog(cpu, 0);
	tap_plan(2);
	sleep_ms(200);
	normal = sleeper(SCHED_OTHER, cpu, 0, 150);
	batch = sleeper(SCHED_BATCH, cpu, 0, 150);
	kill_wait(hog);
	diag("mean wakeup latency next to a NORMAL hog: NORMAL %.3f ms, BATCH %.3f ms (rr_interval %ld ms)",
	     normal / 1e6, batch / 1e6, rr);
	tap_ok(batch > 2 * normal, "a waking BATCH task does not preempt (%.3f ms > 2 x %.3f ms)",
	       batch / 1e6, normal / 1e6);
	tap_ok(batch > rr * 1e6 / 8, "BATCH waits for a good part of the running slice (%.3f ms > rr/8)",
	       batch / 1e6);
	return tap_done();
}
