// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_IDLEPRIO (SCHED_IDLE under VDS). With M NORMAL hogs busy, an
 * IDLEPRIO hog gets less than 1% of the CPU; once they stop it gets a full
 * CPU within a second. And it cannot hold others up: a NORMAL task waiting
 * on a pipe or a futex held by a starving IDLEPRIO task proceeds within a
 * bound: IDLEPRIO gets one slice a second at worst, so while it holds the
 * futex (or owes the pipe a byte) it is never kept off the CPU for 3.5 s
 * (three turns: under TCG a whole turn can be lost, its slice charged
 * while the vCPU waits for the host). A scheduler that never runs
 * IDLEPRIO while NORMAL tasks are busy leaves the holder off the CPU for
 * good and fails. kill -9 of a starving IDLEPRIO task completes within a
 * second, and so does freezing its cgroup. A PI futex (FUTEX_LOCK_PI) an
 * IDLEPRIO task holds while it burns 60 ms of CPU is handed to a NORMAL
 * waiter within three times what the same costs with a NORMAL holder,
 * measured just before, plus a second: a waiter of the same nice lends the
 * owner no priority, so a scheduler that keeps such an owner IDLEPRIO
 * finishes its 60 ms at one slice a second, seconds late; VDS runs it as
 * NORMAL while it has a waiter.
 *
 * The bound is on the holder's longest wait, not on the waiter's: that is
 * a number of such turns, and how many the child needs depends on what its
 * fork, sched_setscheduler() and first page faults cost under QEMU/TCG
 * (several ms of charged CPU before it takes the futex; its first slice is
 * half of what its parent had left), so the waiter can wait many seconds
 * on a busy host. The waits and turns are printed.
 */
#include "vds_test.h"
#include <linux/futex.h>
#include <stdatomic.h>

static pid_t idle_child(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sched_param sp = { 0 };

		sched_setscheduler(0, SCHED_IDLE, &sp);
		fn(arg);
		_exit(0);
	}
	return pid;
}

static void spin_forever(void *arg)
{
	volatile uint64_t x = 0;

	(void)arg;
	for (;;)
		x++;
}

struct lockpage {
	volatile int futex;	/* 1 = held */
	volatile int held;
	volatile uint64_t max_gap;	/* longest time off the CPU, burning */
	volatile int turns;		/* times it came back after > 100 ms */
};

/*
 * Burn @ms of CPU time; note the longest time off the CPU since @since
 * (when the child took the futex, or started owing the pipe a byte).
 */
static void burn_noting(struct lockpage *lp, unsigned int ms, uint64_t since)
{
	uint64_t end = thread_cpu_ns() + ms * 1000000ull, last = since, t;

	for (;;) {
		t = now_ns();
		if (t - last > lp->max_gap)
			lp->max_gap = t - last;
		if (t - last > 100000000ull)
			lp->turns++;
		last = t;
		if (thread_cpu_ns() >= end)
			break;
	}
}

/* Take the futex, burn 2 ms of CPU holding it, release and wake. */
static void futex_holder(void *arg)
{
	struct lockpage *lp = arg;
	uint64_t since;

	/* Fault the shared page in first: that is not holding the futex. */
	lp->max_gap = 0;
	since = now_ns();
	lp->futex = 1;
	lp->held = 1;
	burn_noting(lp, 2, since);
	lp->futex = 0;
	syscall(SYS_futex, &lp->futex, FUTEX_WAKE, 1, NULL, NULL, 0);
	spin_forever(NULL);
}

/*
 * Hold a PI futex (taken in user space: 0 -> tid) for @arg ms of CPU,
 * then release it through the kernel once a waiter has queued.
 */
struct pilock {
	_Atomic unsigned int word;
	volatile int held;
};

static struct pilock *pil;

static void pi_holder(void *arg)
{
	unsigned int tid = (unsigned int)gettid(), zero = 0;
	uint64_t end;

	if (!atomic_compare_exchange_strong(&pil->word, &zero, tid))
		_exit(1);
	pil->held = 1;
	end = thread_cpu_ns() + (uint64_t)(long)arg * 1000000ull;
	while (thread_cpu_ns() < end)
		;
	if (!atomic_compare_exchange_strong(&pil->word, &tid, 0))
		syscall(SYS_futex, &pil->word, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	spin_forever(NULL);
}

/*
 * A NORMAL waiter takes the PI futex from a holder of @policy burning
 * 60 ms under it: ms until it has it (15 s at most), -1 on an error.
 */
static double pi_wait(int policy)
{
	struct timespec to;
	uint64_t t0;
	pid_t h;
	long r;

	atomic_store(&pil->word, 0);
	pil->held = 0;
	h = fork();
	if (h == 0) {
		struct sched_param sp = { 0 };

		sched_setscheduler(0, policy, &sp);
		pi_holder((void *)60L);
	}
	t0 = now_ns();
	while (!pil->held && now_ns() - t0 < 10000000000ull)
		usleep(1000);
	clock_gettime(CLOCK_REALTIME, &to);
	to.tv_sec += 15;
	t0 = now_ns();
	r = pil->held ? syscall(SYS_futex, &pil->word, FUTEX_LOCK_PI, 0, &to, NULL, 0) : -1;
	t0 = now_ns() - t0;
	if (r == 0 && !atomic_compare_exchange_strong(&pil->word, &(unsigned int){ (unsigned int)gettid() }, 0))
		syscall(SYS_futex, &pil->word, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	kill_wait(h);
	return r == 0 ? t0 / 1e6 : -1;
}

static int pipefd[2];

static void pipe_writer(void *arg)
{
	burn_noting(arg, 2, now_ns());
	if (write(pipefd[1], "x", 1) != 1)
		_exit(1);
	spin_forever(NULL);
}

static int frozen(const char *cg)
{
	char path[128], buf[256];

	snprintf(path, sizeof(path), "%s/cgroup.events", cg);
	if (read_file(path, buf, sizeof(buf)))
		return 0;
	return strstr(buf, "frozen 1") != NULL;
}

/* How the IDLEPRIO child got its CPU time, for a failure's diagnosis. */
static void child_diag(const char *what, pid_t pid)
{
	struct schedstat st;

	if (read_schedstat(pid, &st))
		return;
	diag("%s: ran %.2f ms in %llu slices, waited %.0f ms; %.0f involuntary switches",
	     what, st.run_ns / 1e6, (unsigned long long)st.slices, st.wait_ns / 1e6,
	     proc_field(pid, "sched", "nr_involuntary_switches"));
}

int main(void)
{
	int m = ncpus_online(), i;
	pid_t *hogs = calloc(m, sizeof(*hogs)), ip, lp_pid, pw;
	uint64_t r0, r, t0, wait_futex, wait_pipe, kill_ns, freeze_ns = 0;
	struct lockpage *lp = shared_mem(sizeof(*lp));
	const char *cg = "/sys/fs/cgroup/vds-idle";
	char path[128], v[32];
	double share;

	need_vds();
	tap_plan(7);
	pil = shared_mem(sizeof(*pil));
	if (!hogs || !pil || !lp) {
		for (i = 0; i < 7; i++)
			tap_ok(0, "out of memory");
		return tap_done();
	}
	for (i = 0; i < m; i++)
		hogs[i] = spawn_hog(-1, 0);
	ip = idle_child(spin_forever, NULL);
	sleep_ms(500);
	r0 = schedstat_run(ip);
	sleep_ms(5000);
	r = schedstat_run(ip) - r0;
	share = 100.0 * r / (5e9 * m);
	tap_ok(share < 1.0, "IDLEPRIO hog next to %d NORMAL hogs: %.2f%% of the CPU (< 1%%)", m, share);

	/* A NORMAL task waits on a futex an IDLEPRIO task holds. */
	lp_pid = idle_child(futex_holder, lp);
	t0 = now_ns();
	while (!lp->held && now_ns() - t0 < 10000000000ull)
		usleep(1000);
	/* The wait starts once the IDLEPRIO task holds the futex. */
	t0 = now_ns();
	while (lp->futex == 1 && now_ns() - t0 < 10000000000ull)
		syscall(SYS_futex, &lp->futex, FUTEX_WAIT, 1, NULL, NULL, 0);
	wait_futex = now_ns() - t0;
	child_diag("futex holder", lp_pid);
	/* A child that never ran never took the futex: that fails too. */
	tap_ok(lp->held && lp->futex == 0 && lp->max_gap < 3500000000ull,
	       "a futex held by a starving IDLEPRIO task is released, its holder off the CPU for < 3.5 s at a time (longest %.0f ms, %d turns, released after %.0f ms%s)",
	       lp->max_gap / 1e6, lp->turns, wait_futex / 1e6,
	       lp->held ? "" : "; it never took the futex within 10 s");
	kill_wait(lp_pid);

	/* A NORMAL task reads a pipe an IDLEPRIO task writes. */
	if (pipe(pipefd) == 0) {
		char c;

		lp->max_gap = 0;
		lp->turns = 0;
		t0 = now_ns();
		pw = idle_child(pipe_writer, lp);
		i = read(pipefd[0], &c, 1);
		wait_pipe = now_ns() - t0;
		child_diag("pipe writer", pw);
		tap_ok(i == 1 && lp->max_gap < 3500000000ull,
		       "a pipe written by a starving IDLEPRIO task delivers, its writer off the CPU for < 3.5 s at a time (longest %.0f ms, %d turns, delivered after %.0f ms)",
		       lp->max_gap / 1e6, lp->turns, wait_pipe / 1e6);
		kill_wait(pw);
	} else {
		tap_ok(0, "pipe");
	}

	/* A NORMAL task waits on a PI futex an IDLEPRIO task holds. */
	{
		double floor = pi_wait(SCHED_OTHER), idle = pi_wait(SCHED_IDLE);

		if (floor >= 0 && idle >= 0 && idle >= 3 * floor + 1000) {
			diag("PI futex: %.0f ms from an IDLEPRIO holder, %.0f ms from a NORMAL one; measuring once more",
			     idle, floor);
			floor = pi_wait(SCHED_OTHER);
			idle = pi_wait(SCHED_IDLE);
		}
		tap_ok(floor >= 0 && idle >= 0 && idle < 3 * floor + 1000,
		       "a PI futex held by an IDLEPRIO task busy for 60 ms of CPU: a NORMAL waiter has it after %.0f ms (< 3 x %.0f ms with a NORMAL holder + 1 s)",
		       idle, floor);
	}

	/* kill -9 of a starving IDLEPRIO task. */
	t0 = now_ns();
	kill(ip, SIGKILL);
	waitpid(ip, NULL, 0);
	kill_ns = now_ns() - t0;
	tap_ok(kill_ns < 1000000000ull, "kill -9 of a starving IDLEPRIO task completes in %.0f ms (< 1 s)",
	       kill_ns / 1e6);

	/* Freezing the cgroup of a starving IDLEPRIO task. */
	mkdir(cg, 0755);
	ip = idle_child(spin_forever, NULL);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(v, sizeof(v), "%d", ip);
	write_file(path, v);
	sleep_ms(200);
	snprintf(path, sizeof(path), "%s/cgroup.freeze", cg);
	t0 = now_ns();
	write_file(path, "1");
	while (!frozen(cg) && now_ns() - t0 < 5000000000ull)
		usleep(1000);
	freeze_ns = now_ns() - t0;
	tap_ok(frozen(cg) && freeze_ns < 1000000000ull,
	       "cgroup.freeze of a starving IDLEPRIO task completes in %.0f ms (< 1 s)", freeze_ns / 1e6);
	write_file(path, "0");
	kill_wait(ip);
	rmdir(cg);

	/* Hogs gone: the IDLEPRIO task gets a whole CPU within a second. */
	ip = idle_child(spin_forever, NULL);
	sleep_ms(300);
	for (i = 0; i < m; i++)
		kill_wait(hogs[i]);
	sleep_ms(1000);
	r0 = schedstat_run(ip);
	sleep_ms(1000);
	r = schedstat_run(ip) - r0;
	kill_wait(ip);
	tap_ok(r > 900000000ull, "with the hogs gone it runs a full CPU (%.0f ms of 1000)", r / 1e6);
	return tap_done();
}
