// SPDX-License-Identifier: GPL-2.0
/*
 * Every nice step counts: CPU hogs pinned to one CPU share it by a formula
 * of their nice levels, and a lower nice always gets strictly more.
 *
 * VDS (Documentation/scheduler/sched-vds.rst, "Nice levels"): with
 * r(n) = prio_ratio(n) in units of rr_interval (1.1^(n+20), the kernel's
 * table), tasks that never sleep get share(i) = 1 / (r(i) - K), for the one
 * K that makes the shares add up to 1. EEVDF (vds=off): share(i) =
 * w(i) / sum of w, with the kernel's sched_prio_to_weight[]. The same
 * cases run on both, each against its own formula, so the test is shown to
 * measure what it claims.
 *
 * Cases: the pairs 0/1, 0/5, 0/10, 0/19, -10/0, 18/19 (4 s each), the
 * three hogs 0/1/2, and a case from a third-party conformance suite (two
 * threads of one process at nice -2 and -1 for 3 s; the lower nice must
 * get more). Each share must be within 20 % (relative) of the formula and
 * the order strict (by half the predicted gap at least). Run times come from /proc/<pid>/task/<tid>/schedstat.
 */
#include "vds_test.h"
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

static const int prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
	110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
};

static int on_vds;

/* prio_ratio(nice) as vds_init() computes it, in units of rr_interval. */
static double vds_ratio(int nice)
{
	uint64_t r = 1024;

	for (int i = 0; i < nice + 20; i++)
		r = (r * 11 + 5) / 10;
	return r / 1024.0;
}

/* The shares the running scheduler's formula predicts for n hogs. */
static void predict(const int *nice, int n, double *share)
{
	double lo, hi, k, sum;
	int i, it;

	if (!on_vds) {
		for (sum = 0, i = 0; i < n; i++)
			sum += prio_to_weight[nice[i] + 20];
		for (i = 0; i < n; i++)
			share[i] = prio_to_weight[nice[i] + 20] / sum;
		return;
	}
	/* sum 1 / (r(i) - K) = 1: the sum falls as K falls. */
	hi = vds_ratio(nice[0]);
	for (i = 1; i < n; i++)
		hi = fmin(hi, vds_ratio(nice[i]));
	hi -= 1e-9;
	lo = hi - 1e6;
	for (it = 0; it < 200; it++) {
		k = (lo + hi) / 2;
		for (sum = 0, i = 0; i < n; i++)
			sum += 1.0 / (vds_ratio(nice[i]) - k);
		if (sum > 1)
			hi = k;
		else
			lo = k;
	}
	for (i = 0; i < n; i++)
		share[i] = 1.0 / (vds_ratio(nice[i]) - k);
}

/*
 * n hogs at the given nice levels pinned to @cpu for @ms after a settle
 * time: each one's measured share, 0 if any check fails.
 */
static void measure(int cpu, const int *nice, int n, unsigned int ms, double *got)
{
	pid_t pid[4];
	uint64_t r0[4], run[4], sum = 0;
	int i;

	for (i = 0; i < n; i++)
		pid[i] = spawn_hog(cpu, nice[i]);
	sleep_ms(300);
	for (i = 0; i < n; i++)
		r0[i] = schedstat_run(pid[i]);
	sleep_ms(ms);
	for (i = 0; i < n; i++) {
		run[i] = schedstat_run(pid[i]) - r0[i];
		sum += run[i];
	}
	for (i = 0; i < n; i++) {
		kill_wait(pid[i]);
		got[i] = sum ? (double)run[i] / sum : 0;
	}
}

/*
 * Shares within 20 % of the formula, and strictly falling with nice: each
 * lower nice ahead of the next by at least half the gap the formula puts
 * between them (50.1 % against 49.9 % is a tie, not an order).
 */
static int judge(const int *nice, int n, const double *want, const double *got,
		 char *msg, size_t len)
{
	int ok = 1, i, off = 0;

	for (i = 0; i < n; i++) {
		off += snprintf(msg + off, len - off, "%snice %d %.1f%% (%.1f%%)",
				i ? ", " : "", nice[i], 100 * got[i], 100 * want[i]);
		if (fabs(got[i] - want[i]) > 0.2 * want[i])
			ok = 0;
		/* Strict: at least half the predicted gap to the next lower nice. */
		if (i && got[i - 1] - got[i] < 0.5 * (want[i - 1] - want[i]))
			ok = 0;
	}
	return ok;
}

/* One case, measured again once if it fails (a busy host stretches runs). */
static void run_case(int cpu, const int *nice, int n, unsigned int ms)
{
	double want[4], got[4];
	char msg[256], first[256] = "";
	int ok, attempt;

	predict(nice, n, want);
	for (attempt = 0; attempt < 2; attempt++) {
		measure(cpu, nice, n, ms, got);
		ok = judge(nice, n, want, got, msg, sizeof(msg));
		if (ok)
			break;
		snprintf(first, sizeof(first), "%s", msg);
		diag("first attempt: %s; measuring once more", msg);
	}
	tap_ok(ok, "%s: measured (formula) %s%s%s", on_vds ? "VDS" : "EEVDF", msg,
	       *first && ok ? "; first attempt " : "", ok ? first : "");
}

/* The conformance-style case: two threads of one process. */
struct thr {
	int cpu, nice;
	pid_t tid;
	_Atomic int ready;
};

static _Atomic int thr_stop;

static void *thr_hog(void *arg)
{
	struct thr *t = arg;
	volatile uint64_t x = 0;

	pin_to(0, t->cpu);
	setpriority(PRIO_PROCESS, 0, t->nice);
	t->tid = gettid();
	atomic_store(&t->ready, 1);
	while (!atomic_load(&thr_stop))
		x++;
	return NULL;
}

static uint64_t tid_run(pid_t tid)
{
	char path[64], buf[128];
	unsigned long long run = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", getpid(), tid);
	if (!read_file(path, buf, sizeof(buf)))
		sscanf(buf, "%llu", &run);
	return run;
}

static int thread_pair(int cpu, uint64_t *ra, uint64_t *rb)
{
	struct thr t[2] = { { .cpu = cpu, .nice = -2 }, { .cpu = cpu, .nice = -1 } };
	pthread_t th[2];
	uint64_t a0, b0;
	int i;

	atomic_store(&thr_stop, 0);
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, thr_hog, &t[i]))
			return -1;
	while (!atomic_load(&t[0].ready) || !atomic_load(&t[1].ready))
		sleep_ms(1);
	sleep_ms(200);
	a0 = tid_run(t[0].tid);
	b0 = tid_run(t[1].tid);
	sleep_ms(3000);
	*ra = tid_run(t[0].tid) - a0;
	*rb = tid_run(t[1].tid) - b0;
	atomic_store(&thr_stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return 0;
}

int main(void)
{
	static const int pairs[][2] = {
		{ 0, 1 }, { 0, 5 }, { 0, 10 }, { 0, 19 }, { -10, 0 }, { 18, 19 },
	};
	static const int three[3] = { 0, 1, 2 };
	int cpu = ncpus_online() - 1, attempt, ok = 0;
	uint64_t ra = 0, rb = 0;
	unsigned int i;

	on_vds = vds_active();
	tap_plan(8);
	diag("%s, hogs on cpu %d", on_vds ? "VDS" : "EEVDF", cpu);
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		run_case(cpu, pairs[i], 2, 4000);
	run_case(cpu, three, 3, 4000);
	for (attempt = 0; attempt < 2 && !ok; attempt++) {
		if (thread_pair(cpu, &ra, &rb))
			break;
		ok = ra > rb * 1.02;
		diag("threads at nice -2 and -1: %.4f s and %.4f s", ra / 1e9, rb / 1e9);
	}
	tap_ok(ok, "two threads on one CPU: nice -2 ran %.4f s, more than nice -1's %.4f s",
	       ra / 1e9, rb / 1e9);
	return tap_done();
}
