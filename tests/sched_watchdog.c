// SPDX-License-Identifier: GPL-2.0
/*
 * A scheduling watchdog under a mixed battery: nice -5..19 hogs, a BATCH
 * hog, a SCHED_IDLE (IDLEPRIO) hog, a SCHED_ISO hog, a SCHED_FIFO task that
 * runs 1 ms in 10, an interactive half-duty task, and stress-ng's cpu,
 * switch and yield stressors, all at once. A SCHED_FIFO monitor samples
 * /proc/<pid>/schedstat every 50 ms. The run-queue wait (2nd field) that a
 * task accumulated between two samples in which it made progress is its
 * stall; no non-idle task may stall longer than the design allows:
 *
 *   bound = 4 x rr_interval x (prio_ratio(nice) + tasks per CPU) + 1.5 s
 *
 * (prio_ratio(nice) = 1.1^(nice+20): a task's deadline is that many slices
 * away; at most every queued task runs one slice before it; x4 and 1.5 s for
 * a single-threaded emulator on a busy host). Every non-idle task must also
 * make progress, and a task still stalled at the end counts its stall so far.
 *
 * The negative control shows the watchdog can fail: with RT throttling off
 * and the fair server of one CPU set to 0 (the server that protects VDS
 * tasks from RT hogs, Documentation/design.md), a task pinned behind a
 * FIFO hog on that CPU starves for 4 s; the same check must flag it.
 * Settings are restored.
 * SOAK=minutes (VDS_SOAK in the guest) runs the battery that long.
 */
#include "vds_test.h"
#include <math.h>

#define PERIOD_MS 50
#define MAXT 16

enum kind { HOG, DUTY };

struct task {
	const char *name;
	int policy, nice, prio, idle;
	enum kind kind;
	unsigned int burn_us, sleep_us;
	pid_t pid;
	/* watchdog state */
	uint64_t run, wait, t_prog, wait_prog, run0;
	double max_stall_ms, bound_ms;
};

#define TASK(nm, pol, ni, pr, idl, kd, b, sl) { .name = nm, .policy = pol, .nice = ni, \
	.prio = pr, .idle = idl, .kind = kd, .burn_us = b, .sleep_us = sl }

static void burn_us(unsigned int us)
{
	uint64_t end = thread_cpu_ns() + us * 1000ull;

	while (thread_cpu_ns() < end)
		;
}

static pid_t start(struct task *t, int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sched_param sp = { .sched_priority = t->prio };

		if (cpu >= 0)
			pin_to(0, cpu);
		else
			set_affinity_bits(0, ~0ul);
		if (sched_setscheduler(0, t->policy, &sp))
			_exit(3);
		if (t->policy != SCHED_FIFO)
			setpriority(PRIO_PROCESS, 0, t->nice);
		for (;;) {
			if (t->kind == HOG) {
				burn_us(100000);
			} else {
				burn_us(t->burn_us);
				usleep(t->sleep_us);
			}
		}
	}
	t->pid = pid;
	return pid;
}

static double prio_ratio(int nice)
{
	return pow(1.1, nice + 20);
}

/*
 * Sample every PERIOD_MS for ms milliseconds; update each task's longest
 * stall (run-queue wait between progress samples). Returns 0, or -1 when
 * a task vanished.
 */
static int watch(struct task *ts, int n, unsigned int ms)
{
	uint64_t t0 = now_ns(), t;
	struct schedstat st;
	int i;

	for (i = 0; i < n; i++) {
		if (read_schedstat(ts[i].pid, &st))
			return -1;
		ts[i].run = ts[i].run0 = st.run_ns;
		ts[i].wait = ts[i].wait_prog = st.wait_ns;
		ts[i].t_prog = t0;
		ts[i].max_stall_ms = 0;
	}
	do {
		sleep_ms(PERIOD_MS);
		t = now_ns();
		for (i = 0; i < n; i++) {
			struct task *k = &ts[i];
			double stall;

			if (read_schedstat(k->pid, &st))
				return -1;
			if (st.run_ns > k->run) {
				/* Progress: the waits that ended since the last progress. */
				stall = (st.wait_ns - k->wait_prog) / 1e6;
				k->wait_prog = st.wait_ns;
				k->t_prog = t;
			} else {
				/* No progress yet: a wait in progress is not in schedstat. */
				stall = (t - k->t_prog) / 1e6;
			}
			if (stall > k->max_stall_ms)
				k->max_stall_ms = stall;
			k->run = st.run_ns;
			k->wait = st.wait_ns;
		}
	} while (t - t0 < ms * 1000000ull);
	return 0;
}

static pid_t stressors(int ncpu, unsigned int secs)
{
	pid_t pid = fork();

	if (pid == 0) {
		char c[16], tmo[16];
		struct sched_param sp = { 0 };

		setpgid(0, 0);
		/* Not the monitor's FIFO priority and CPU. */
		sched_setscheduler(0, SCHED_OTHER, &sp);
		set_affinity_bits(0, ~0ul);
		snprintf(c, sizeof(c), "%d", ncpu > 1 ? ncpu / 2 : 1);
		snprintf(tmo, sizeof(tmo), "%us", secs);
		execlp("stress-ng", "stress-ng", "--temp-path", "/tmp", "-q", "--cpu", c,
		       "--switch", "1", "--yield", "1", "--timeout", tmo, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int main(void)
{
	struct task ts[MAXT] = {
		TASK("nice -5 hog", SCHED_OTHER, -5, 0, 0, HOG, 0, 0),
		TASK("nice 0 hog", SCHED_OTHER, 0, 0, 0, HOG, 0, 0),
		TASK("nice 5 hog", SCHED_OTHER, 5, 0, 0, HOG, 0, 0),
		TASK("nice 10 hog", SCHED_OTHER, 10, 0, 0, HOG, 0, 0),
		TASK("nice 19 hog", SCHED_OTHER, 19, 0, 0, HOG, 0, 0),
		TASK("BATCH hog", SCHED_BATCH, 0, 0, 0, HOG, 0, 0),
		TASK("ISO hog", SCHED_ISO, 0, 0, 0, HOG, 0, 0),
		TASK("FIFO 1ms/10ms", SCHED_FIFO, -20, 10, 0, DUTY, 1000, 9000),
		TASK("interactive 3ms/3ms", SCHED_OTHER, 0, 0, 0, DUTY, 3000, 3000),
		TASK("IDLEPRIO hog", SCHED_IDLE, 0, 0, 1, HOG, 0, 0),
	};
	int n = 10, ncpu = ncpus_online(), i, nstress, bad, ok_all;
	long rr = read_long("/proc/sys/kernel/rr_interval", 6);
	long soak = setting_long("VDS_SOAK", 0);
	unsigned int secs = soak > 0 ? soak * 60 : 15;
	double per_cpu;
	struct sched_param mon = { .sched_priority = 50 };
	pid_t sng;
	char rt_old[32] = "950000", fs_old[32] = "50000000", fs_path[96];
	int victim_cpu;

	need_vds();
	tap_plan(5);
	/* The monitor samples on time: FIFO above the battery's FIFO task. */
	pin_to(0, 0);
	sched_setscheduler(0, SCHED_FIFO, &mon);

	nstress = (ncpu > 1 ? ncpu / 2 : 1) + 2 * 1;
	per_cpu = (double)(n + nstress) / ncpu;
	for (i = 0; i < n; i++) {
		start(&ts[i], -1);
		ts[i].bound_ms = 4.0 * rr * (prio_ratio(ts[i].nice) + per_cpu) + 1500;
	}
	sng = stressors(ncpu, secs + 5);
	sleep_ms(1000);
	diag("%d tasks + %d stressors on %d CPUs (%.1f per CPU), rr_interval %ld ms, %u s",
	     n, nstress, ncpu, per_cpu, rr, secs);
	tap_ok(watch(ts, n, secs * 1000) == 0, "every task of the battery lived for %u s", secs);

	bad = 0;
	ok_all = 1;
	for (i = 0; i < n; i++) {
		struct task *k = &ts[i];
		int prog = k->run > k->run0;

		diag("%-20s ran %6.0f ms, longest stall %6.0f ms (bound %4.0f ms)%s",
		     k->name, (k->run - k->run0) / 1e6, k->max_stall_ms, k->bound_ms,
		     k->idle ? ", idle: exempt" : "");
		if (k->idle)
			continue;
		if (!prog)
			ok_all = 0;
		if (k->max_stall_ms > k->bound_ms)
			bad++;
	}
	tap_ok(ok_all, "every non-idle task made progress");
	tap_ok(!bad, "no non-idle task waited longer than its bound (%d over)", bad);
	for (i = 0; i < n; i++)
		kill_wait(ts[i].pid);
	kill(-sng, SIGKILL);
	waitpid(sng, NULL, 0);

	/*
	 * Negative control: no RT throttling, no fair server on one CPU, a
	 * nice 0 task pinned behind a FIFO hog there. The watchdog must see it.
	 */
	victim_cpu = ncpu - 1;
	snprintf(fs_path, sizeof(fs_path), "/sys/kernel/debug/sched/fair_server/cpu%d/runtime",
		 victim_cpu);
	if (victim_cpu < 1 || read_file(fs_path, fs_old, sizeof(fs_old)) ||
	    read_file("/proc/sys/kernel/sched_rt_runtime_us", rt_old, sizeof(rt_old))) {
		tap_skip("control needs 2 CPUs and the fair_server debugfs knob");
		tap_skip("control");
	} else {
		struct task v = TASK("pinned victim", SCHED_OTHER, 0, 0, 0, HOG, 0, 0);
		struct task h = TASK("pinned FIFO hog", SCHED_FIFO, 0, 20, 0, HOG, 0, 0);
		int r1, r2;

		r1 = write_file("/proc/sys/kernel/sched_rt_runtime_us", "-1");
		r2 = write_file(fs_path, "0");
		start(&v, victim_cpu);
		v.bound_ms = 4.0 * rr * (prio_ratio(0) + 1) + 1500;
		sleep_ms(300);
		start(&h, victim_cpu);
		watch(&v, 1, 4000);
		kill_wait(h.pid);
		sleep_ms(300);
		write_file(fs_path, fs_old);
		write_file("/proc/sys/kernel/sched_rt_runtime_us", rt_old);
		/* The victim runs again once the hog is gone. */
		{
			uint64_t r0 = schedstat_run(v.pid);

			sleep_ms(200);
			tap_ok(!r1 && !r2 && schedstat_run(v.pid) > r0,
			       "control: settings applied (%d, %d) and restored; the victim runs again", r1, r2);
		}
		kill_wait(v.pid);
		tap_ok(v.max_stall_ms > v.bound_ms,
		       "control: the watchdog flags a task starved behind a FIFO hog without the fair server "
		       "(stall %.0f ms > bound %.0f ms)", v.max_stall_ms, v.bound_ms);
	}
	return tap_done();
}
