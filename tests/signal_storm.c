// SPDX-License-Identifier: GPL-2.0
/*
 * A signal storm on one CPU. The test process R, pinned to the last online
 * CPU, blocks in sigsuspend() in a loop; its SIGUSR1 handler counts. A
 * forked sender S does nothing but kill(R, SIGUSR1) as fast as it can.
 * Standard signals do not queue: one sent while another is pending merges
 * with it, so R's count is of signals handled, and it can only be high if
 * R runs soon after each wakeup. R wakes with the earlier deadline (it
 * sleeps nearly all the time), S has just been picked or is running on:
 * a wakeup that had to wait until S has run min_run_ns (1 ms) since its
 * pick lets R handle about one signal per millisecond, 1000 a second,
 * where EEVDF preempts S at once and handles many times more.
 *
 *  - fifo: R at SCHED_FIFO 1, S a normal task, both on R's CPU. An RT
 *    wakee preempts at once under any scheduler: the rate is what a
 *    signal, a wakeup and two context switches cost in this boot, the
 *    reference the normal rate is compared with (under TCG absolute
 *    rates mean little, and a cross-CPU reference measures how fast the
 *    emulator delivers an IPI to a halted vCPU, about 1 ms);
 *  - normal: R a normal task. Every handled signal is a wakeup preemption
 *    of S by R, and R's sleep hands the CPU back.
 *
 * Each case: S forked, 200 ms to warm up, then the signals R handles over
 * 2 s. Asserted: R handled more than 100 signals in each case (it ran at
 * all), and rate(normal) >= 0.25 x rate(fifo): a normal wakee that waits
 * for min_run_ns gets about 1000/s, many times less than the reference.
 * The rates, the ratio, R's voluntary and nonvoluntary switches, and S's
 * nonvoluntary switches and run time per handled signal are printed:
 * with a preempting wakeup, about one switch of each kind per signal and
 * a few microseconds of S; with a wakeup that waits for min_run_ns, about
 * 1 ms of S per signal. A failing measurement runs once more, the first
 * attempt as diagnostics, and the second counts.
 *
 * Not VDS-only: vds=off (EEVDF) is the reference. A SIGALRM every 50 ms
 * wakes R too, so the window ends on time whatever S does. S dies with the
 * test (PR_SET_PDEATHSIG) and is killed and reaped after each case. About
 * 5 s, 10 s with the retry.
 */
#include "vds_test.h"
#include <sys/prctl.h>
#include <sys/time.h>
#include <stdbool.h>

#define WARM_MS		200
#define WINDOW_MS	2000
#define MIN_HANDLED	100
#define MIN_RATIO	0.25	/* see above */

static volatile uint64_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static void on_alrm(int sig)
{
	(void)sig;
}

struct result {
	double rate;		/* signals handled per second */
	uint64_t n;		/* handled in the window */
	double vol, nonvol;	/* R's switches in the window */
	double s_nonvol;	/* S's nonvoluntary switches in the window */
	uint64_t s_run;		/* S's run time in the window, ns */
	int s_status;		/* how S ended (-1: not forked) */
	int err;		/* fork()'s errno */
};

/* S: pinned to @cpu, a normal task (R's FIFO resets on fork), signals R. */
static void send_forever(pid_t r, int cpu)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != r)
		_exit(0);
	if (pin_to(0, cpu) || sched_getscheduler(0) != SCHED_OTHER)
		_exit(3);
	for (;;)
		kill(r, SIGUSR1);
}

/* R on @rcpu (SCHED_FIFO 1 if @fifo), S on @scpu: what R handles. */
static void measure(int rcpu, int scpu, bool fifo, struct result *res)
{
	struct sched_param rt = { .sched_priority = 1 }, other = { 0 };
	sigset_t wait_mask;
	uint64_t t, t0, t1, c0, c1;
	double v0, nv0, snv0;
	uint64_t sr0;
	pid_t self = getpid(), sender;

	memset(res, 0, sizeof(*res));
	res->s_status = -1;
	pin_to(0, rcpu);
	sigprocmask(SIG_BLOCK, NULL, &wait_mask);
	sigdelset(&wait_mask, SIGUSR1);
	sigdelset(&wait_mask, SIGALRM);

	if (fifo &&
	    sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &rt)) {
		res->err = errno;
		return;
	}
	sender = fork();
	if (sender < 0) {
		res->err = errno;
		sched_setscheduler(0, SCHED_OTHER, &other);
		return;
	}
	if (sender == 0)
		send_forever(self, scpu);

	t = now_ns();
	while (now_ns() - t < WARM_MS * 1000000ull)
		sigsuspend(&wait_mask);
	v0 = proc_field(self, "status", "voluntary_ctxt_switches");
	nv0 = proc_field(self, "status", "nonvoluntary_ctxt_switches");
	snv0 = proc_field(sender, "status", "nonvoluntary_ctxt_switches");
	sr0 = schedstat_run(sender);
	c0 = handled;
	t0 = now_ns();
	do {
		sigsuspend(&wait_mask);
		t1 = now_ns();
	} while (t1 - t0 < WINDOW_MS * 1000000ull);
	c1 = handled;
	res->vol = proc_field(self, "status", "voluntary_ctxt_switches") - v0;
	res->nonvol = proc_field(self, "status", "nonvoluntary_ctxt_switches") - nv0;
	res->s_nonvol = proc_field(sender, "status", "nonvoluntary_ctxt_switches") - snv0;
	res->s_run = schedstat_run(sender) - sr0;

	kill(sender, SIGKILL);
	waitpid(sender, &res->s_status, 0);
	sched_setscheduler(0, SCHED_OTHER, &other);
	res->n = c1 - c0;
	res->rate = res->n * 1e9 / (t1 - t0);
}

static void report(const char *what, int rcpu, int scpu, const struct result *r)
{
	double n = r->n ? (double)r->n : 1;

	diag("%s (R on CPU %d, S on CPU %d): %llu signals handled, %.0f/s; R %.0f voluntary, %.0f nonvoluntary switches; S %.3f nonvoluntary switches and %.1f us run per signal",
	     what, rcpu, scpu, (unsigned long long)r->n, r->rate, r->vol,
	     r->nonvol, r->s_nonvol / n, r->s_run / 1e3 / n);
	if (r->s_status == -1)
		diag("%s: SCHED_FIFO or fork failed: %s", what, strerror(r->err));
	else if (!WIFSIGNALED(r->s_status) || WTERMSIG(r->s_status) != SIGKILL)
		diag("%s: the sender ended on its own (status 0x%x%s)", what,
		     r->s_status, WIFEXITED(r->s_status) &&
		     WEXITSTATUS(r->s_status) == 3 ?
		     ", could not pin itself or is not SCHED_OTHER" : "");
}

/* The lowest and highest CPU this process may run on (online ones). */
static void cpu_range(int *lo, int *hi)
{
	cpu_set_t set;
	int c;

	*lo = *hi = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	*lo = -1;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (*lo < 0)
			*lo = c;
		*hi = c;
	}
	if (*lo < 0)
		*lo = 0;
}

int main(void)
{
	struct itimerval tick = { { 0, 50000 }, { 0, 50000 } };
	struct sigaction sa = { 0 };
	struct result fifo, normal;
	int lo, hi, attempt, ok_ran, ok_ratio;
	sigset_t block;
	double ratio;

	tap_plan(2);
	cpu_range(&lo, &hi);

	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_alrm;
	sigaction(SIGALRM, &sa, NULL);
	/* Handled only inside sigsuspend(), so that no wakeup is lost. */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	setitimer(ITIMER_REAL, &tick, NULL);

	for (attempt = 0; ; attempt++) {
		measure(hi, hi, true, &fifo);
		report("fifo", hi, hi, &fifo);
		measure(hi, hi, false, &normal);
		report("normal", hi, hi, &normal);
		ratio = fifo.rate > 0 ? normal.rate / fifo.rate : 0;
		diag("normal/fifo = %.3f (at least %.2f)", ratio, MIN_RATIO);
		ok_ran = normal.n > MIN_HANDLED && fifo.n > MIN_HANDLED;
		ok_ratio = ratio >= MIN_RATIO;
		if ((ok_ran && ok_ratio) || attempt)
			break;
		diag("measuring once more");
	}

	tap_ok(ok_ran, "the signalled process ran: %llu signals handled as a normal task, %llu at SCHED_FIFO (> %d each)",
	       (unsigned long long)normal.n, (unsigned long long)fifo.n, MIN_HANDLED);
	tap_ok(ok_ratio, "a signal storm on one CPU: %.0f signals/s handled by a normal task, %.3f of the %.0f/s at SCHED_FIFO (at least %.2f)",
	       normal.rate, ratio, fifo.rate, MIN_RATIO);
	return tap_done();
}
