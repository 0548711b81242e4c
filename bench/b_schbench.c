// SPDX-License-Identifier: GPL-2.0
/*
 * A schbench-like request server (our own code): 2 message threads, each
 * handing requests to M worker threads (M = online CPUs). A message thread
 * posts a request to every idle worker of its group (timestamp, futex
 * wake) and sleeps until one of them completes. A worker, woken, records
 * its wakeup latency (post to running), sleeps 100 us (a brief I/O wait),
 * then does a small memory-bound computation (a pointer chase through its
 * own 256 KiB table), records the request latency (post to done) and
 * wakes its message thread.
 *
 * One JSON line: {"bench":"schbench","rps":..., "wake_*": wakeup latency
 * stats, "req_*": request latency stats, "ctxt_per_req": context switches
 * of the machine per request (/proc/stat), "migr_per_req": migrations of
 * this process's threads per request (se.nr_migrations of
 * /proc/<tid>/sched), both over the measured seconds, and of those the
 * tasks VDS pulled at a pick, "pulls_per_req", and the pulls by a CPU that
 * had nothing to run, "idle_pulls_per_req", and the pulls not tried
 * because the other CPU's lock was busy, "pull_busy_per_req"
 * (sched/vds/state; null under EEVDF or without the count), and the machine's user, system (with irq and softirq) and idle
 * CPU time per request from /proc/stat, "user_us_per_req",
 * "sys_us_per_req", "idle_us_per_req"}   b_schbench [seconds]
 *
 * vds-bench: timeout 120
 * vds-metric: schbench *_us lower
 * vds-metric: schbench rps_per_s higher
 * vds-metric: schbench *samples info
 * vds-metric: schbench threads info
 * vds-metric: schbench *_per_req info
 */
#include "bench.h"
#include <dirent.h>

#define MSG_THREADS 2
#define MAX_SAMPLES 65536
#define TABLE_WORDS (256 * 1024 / sizeof(uint32_t))
#define CHASE_STEPS 4000

struct group;

struct worker {
	struct group *g;
	_Atomic int req;
	uint64_t posted;
	uint64_t *wake, *reql;
	long n;
	uint32_t *table;
} __attribute__((aligned(64)));

struct group {
	_Atomic int done;
	int nw;
	struct worker *w;
} __attribute__((aligned(64)));

static _Atomic int stop, measuring;
static _Atomic long completed;

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint32_t x = 0, seed = (uint32_t)(uintptr_t)w;
	struct timespec nap = { 0, 100000 };

	/* A random cyclic permutation: every step is a dependent cache miss. */
	w->table = malloc(TABLE_WORDS * sizeof(uint32_t));
	for (uint32_t i = 0; i < TABLE_WORDS; i++)
		w->table[i] = i;
	for (uint32_t i = TABLE_WORDS - 1; i > 0; i--) {
		uint32_t j, t;

		seed = seed * 1103515245u + 12345u;
		j = seed % i; /* Sattolo: one single cycle */
		t = w->table[i];
		w->table[i] = w->table[j];
		w->table[j] = t;
	}
	for (;;) {
		uint64_t t0, t1;

		while (atomic_load(&w->req) == 0 && !atomic_load(&stop))
			futex_wait(&w->req, 0);
		if (atomic_load(&stop))
			break;
		t0 = now_ns();
		nanosleep(&nap, NULL);
		for (int s = 0; s < CHASE_STEPS; s++)
			x = w->table[x];
		t1 = now_ns();
		if (atomic_load(&measuring) && w->n < MAX_SAMPLES) {
			w->wake[w->n] = t0 - w->posted;
			w->reql[w->n] = t1 - w->posted;
			w->n++;
			atomic_fetch_add(&completed, 1);
		}
		atomic_store(&w->req, 0);
		atomic_fetch_add(&w->g->done, 1);
		futex_wake(&w->g->done, 1);
	}
	return (void *)(uintptr_t)x;
}

static void *message_fn(void *arg)
{
	struct group *g = arg;

	while (!atomic_load(&stop)) {
		int gen = atomic_load(&g->done);

		for (int i = 0; i < g->nw; i++) {
			struct worker *w = &g->w[i];

			if (atomic_load(&w->req) == 0) {
				w->posted = now_ns();
				atomic_store(&w->req, 1);
				futex_wake(&w->req, 1);
			}
		}
		futex_wait(&g->done, gen);
	}
	for (int i = 0; i < g->nw; i++) {
		atomic_store(&g->w[i].req, 1);
		futex_wake(&g->w[i].req, 1);
	}
	return NULL;
}

/* Context switches of the machine so far (/proc/stat ctxt), -1 if unknown. */
static double ctxt_now(void)
{
	char line[256];
	double v = -1;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "ctxt ", 5)) {
			v = strtod(line + 5, NULL);
			break;
		}
	fclose(f);
	return v;
}

/*
 * The machine's CPU time so far from /proc/stat's "cpu" line, in ms: [0]
 * user and nice, [1] system, irq and softirq, [2] idle and iowait; -1 in
 * [0] if unknown.
 */
static void cpu_times(double v[3])
{
	unsigned long long u, n, s, i, w, q, sq;
	double ms = 1000.0 / sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");

	v[0] = -1;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &u, &n, &s, &i,
		   &w, &q, &sq) == 7) {
		v[0] = (u + n) * ms;
		v[1] = (s + q + sq) * ms;
		v[2] = (i + w) * ms;
	}
	fclose(f);
}

/* Migrations of this process's threads so far, -1 if unknown. */
static double migrations_now(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	double sum = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		double v;

		if (e->d_name[0] == '.')
			continue;
		v = proc_field(atoi(e->d_name), "sched", "se.nr_migrations");
		if (v < 0) {
			sum = -1;
			break;
		}
		sum += v;
	}
	closedir(d);
	return sum;
}

/*
 * The sum of the counts after @word ("pulls", "idle_pulls") over the CPUs
 * of sched/vds/state, -1 unless VDS is the running scheduler and the file
 * has the count.
 */
static double vds_count(const char *word)
{
	char tok[64];
	double sum = 0;
	int active = 0, found = 0;
	FILE *f = fopen("/sys/kernel/debug/sched/vds/active", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%d", &active) != 1)
		active = 0;
	fclose(f);
	f = active ? fopen("/sys/kernel/debug/sched/vds/state", "r") : NULL;
	if (!f)
		return -1;
	while (fscanf(f, "%63s", tok) == 1)
		if (!strcmp(tok, word) && fscanf(f, "%63s", tok) == 1) {
			sum += strtod(tok, NULL);
			found = 1;
		}
	fclose(f);
	return found ? sum : -1;
}

/* @d1 - @d0 per request as a JSON field, null if either is unknown. */
static void print_per_req(const char *name, double d0, double d1, long reqs)
{
	if (d0 < 0 || d1 < 0 || reqs <= 0)
		printf(",\"%s\":null", name);
	else
		printf(",\"%s\":%.3f", name, (d1 - d0) / reqs);
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : (int)setting_long("VDS_BENCHSECS", 10);
	int m = ncpus_online(), nw = m;
	static struct group grp[MSG_THREADS];
	pthread_t mt[MSG_THREADS], *wt = calloc(MSG_THREADS * nw, sizeof(pthread_t));
	uint64_t *wake, *reql, t0, t1;
	double c0, c1, m0, m1, p0, p1, i0, i1, b0, b1, ct0[3], ct1[3];
	long n = 0, reqs;

	for (int g = 0; g < MSG_THREADS; g++) {
		grp[g].nw = nw;
		grp[g].w = aligned_alloc(64, nw * sizeof(struct worker));
		memset(grp[g].w, 0, nw * sizeof(struct worker));
		for (int i = 0; i < nw; i++) {
			struct worker *w = &grp[g].w[i];

			w->g = &grp[g];
			w->wake = calloc(MAX_SAMPLES, sizeof(uint64_t));
			w->reql = calloc(MAX_SAMPLES, sizeof(uint64_t));
			pthread_create(&wt[g * nw + i], NULL, worker_fn, w);
		}
	}
	sleep_ms(200);
	for (int g = 0; g < MSG_THREADS; g++)
		pthread_create(&mt[g], NULL, message_fn, &grp[g]);
	sleep_ms(500); /* warm-up, not measured */
	c0 = ctxt_now();
	m0 = migrations_now();
	p0 = vds_count("pulls");
	i0 = vds_count("idle_pulls");
	b0 = vds_count("pull_busy");
	cpu_times(ct0);
	t0 = now_ns();
	atomic_store(&measuring, 1);
	sleep_ms(secs * 1000);
	atomic_store(&measuring, 0);
	t1 = now_ns();
	c1 = ctxt_now();
	m1 = migrations_now();
	p1 = vds_count("pulls");
	i1 = vds_count("idle_pulls");
	b1 = vds_count("pull_busy");
	cpu_times(ct1);
	reqs = atomic_load(&completed);
	atomic_store(&stop, 1);
	/* Workers quit without completing: wake the message threads ourselves. */
	for (int g = 0; g < MSG_THREADS; g++) {
		atomic_fetch_add(&grp[g].done, 1);
		futex_wake(&grp[g].done, 1);
	}
	for (int g = 0; g < MSG_THREADS; g++)
		pthread_join(mt[g], NULL);
	for (int i = 0; i < MSG_THREADS * nw; i++)
		pthread_join(wt[i], NULL);
	wake = calloc(MSG_THREADS * nw * (size_t)MAX_SAMPLES, sizeof(uint64_t));
	reql = calloc(MSG_THREADS * nw * (size_t)MAX_SAMPLES, sizeof(uint64_t));
	for (int g = 0; g < MSG_THREADS; g++)
		for (int i = 0; i < nw; i++) {
			memcpy(wake + n, grp[g].w[i].wake, grp[g].w[i].n * sizeof(uint64_t));
			memcpy(reql + n, grp[g].w[i].reql, grp[g].w[i].n * sizeof(uint64_t));
			n += grp[g].w[i].n;
		}
	printf("{\"bench\":\"schbench\",\"threads\":\"%dx%d\",\"rps_per_s\":%.0f", MSG_THREADS, nw,
	       reqs / ((t1 - t0) / 1e9));
	print_per_req("ctxt_per_req", c0, c1, reqs);
	print_per_req("migr_per_req", m0, m1, reqs);
	print_per_req("pulls_per_req", p0, p1, reqs);
	print_per_req("idle_pulls_per_req", i0, i1, reqs);
	print_per_req("pull_busy_per_req", b0, b1, reqs);
	/* CPU time per request, in us (the counts are in ms). */
	print_per_req("user_us_per_req", ct0[0] * 1000, ct1[0] * 1000, ct0[0] < 0 ? -1 : reqs);
	print_per_req("sys_us_per_req", ct0[1] * 1000, ct1[1] * 1000, ct0[0] < 0 ? -1 : reqs);
	print_per_req("idle_us_per_req", ct0[2] * 1000, ct1[2] * 1000, ct0[0] < 0 ? -1 : reqs);
	print_stats("wake_", lat_stats(wake, n));
	print_stats("req_", lat_stats(reql, n));
	printf("}\n");
	return 0;
}
