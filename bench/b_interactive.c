// SPDX-License-Identifier: GPL-2.0
/*
 * Interactivity: periodic tasks modelled on audio (2.5 ms of CPU every
 * 50 ms), video (6.7 ms every 16.7 ms) and an X-like task (period 20 ms,
 * CPU demand sweeping 0-100 % of the period in 5 % steps), each run against
 * loads: none, M and 2M CPU burners (M = online CPUs), a futex token ring,
 * messaging (rt-tests hackbench), a fork storm (2M short-lived children
 * at a time, each burning 5-50 ms of CPU) and the same storm with 8
 * children in a session of its own (session_j8: a make -j8 in another
 * terminal, one autogroup when the kernel has autogroup). The one-CPU mode: the task pinned
 * to the last CPU, alone there (cpu1_none) and with one nice 0 hog pinned
 * there too (cpu1_hog), where a task asking for less than half the CPU
 * should get all of it.
 *
 * A waker thread at SCHED_FIFO 50 sleeps to the start of each period, takes
 * a timestamp and wakes the task through a futex; the task (SCHED_NORMAL)
 * records latency = timestamp to running, then burns its work by thread CPU
 * time. A frame meets its deadline when its work is done before the next
 * period starts; a frame the task has not started when a later one is
 * posted is dropped (missed, its CPU not delivered).
 *
 * One JSON line per (model, load):
 *   {"bench":"inter:<model>:<load>", samples, mean_us, sd_us, p50_us,
 *    p99_us, p999_us, max_us, cpu_pct, deadlines_met_pct}
 * (for a frame posted while the task was still busy with an earlier one,
 * the latency is the delay until the task starts it)
 * b_interactive [ms per combination]   (default VDS_BENCHSECS * 300 ms)
 *
 * vds-bench: timeout 300
 * vds-metric: inter:* *_us lower
 * vds-metric: inter:* deadlines_met_pct higher
 * vds-metric: inter:* cpu_pct higher
 * vds-metric: inter:* samples info
 */
#include "bench.h"
#include <sys/prctl.h>

struct model {
	const char *name;
	uint64_t period_ns, work_ns; /* work_ns 0: the X sweep */
};

static const struct model models[] = {
	{ "audio", 50000000ull, 2500000ull },
	{ "video", 16700000ull, 6700000ull },
	{ "x", 20000000ull, 0 },
};

static uint64_t work_of(const struct model *md, long k)
{
	if (md->work_ns)
		return md->work_ns;
	return md->period_ns * (uint64_t)(k % 21) / 20; /* 0, 5, ... 100 % */
}

/* One model run: waker thread and task thread share this. */
struct run {
	const struct model *md;
	uint64_t t0, end;
	_Atomic int seq; /* last period posted */
	_Atomic int stop;
	uint64_t *stamp; /* stamp[k]: when period k was posted */
	long maxk;
};

static void *waker(void *arg)
{
	struct run *r = arg;
	long k;

	for (k = 1; k < r->maxk; k++) {
		uint64_t t = r->t0 + k * r->md->period_ns;

		if (t >= r->end)
			break;
		sleep_until(t);
		r->stamp[k] = now_ns();
		atomic_store(&r->seq, (int)k);
		futex_wake(&r->seq, 1);
	}
	/* Give the last frame its full period before stopping the task. */
	sleep_until(r->t0 + k * r->md->period_ns);
	atomic_store(&r->stop, 1);
	atomic_fetch_add(&r->seq, 1);
	futex_wake(&r->seq, 1);
	return NULL;
}

static void run_model(const struct model *md, const char *load, unsigned int ms, int cpu)
{
	struct run r = { .md = md };
	pthread_t w;
	pthread_attr_t at;
	struct sched_param sp = { .sched_priority = 50 };
	uint64_t *lat, requested = 0, delivered = 0;
	long n = 0, met = 0, seen = 0, posted, k;
	struct lstats s;

	if (cpu >= 0)
		pin_to(0, cpu);
	/* make bench BAD=2: the measured task at a bad nice level (loads stay at 0). */
	setpriority(PRIO_PROCESS, (id_t)gettid(), (int)setting_long("VDS_BADNICE", 0));
	r.maxk = ms * 1000000ull / md->period_ns + 2;
	r.stamp = calloc(r.maxk + 2, sizeof(uint64_t));
	lat = calloc(r.maxk + 2, sizeof(uint64_t));
	r.t0 = now_ns() + 20000000ull;
	r.end = r.t0 + ms * 1000000ull;
	pthread_attr_init(&at);
	pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&at, SCHED_FIFO);
	pthread_attr_setschedparam(&at, &sp);
	if (pthread_create(&w, &at, waker, &r)) {
		/* No RT rights: still measure, with a normal waker. */
		pthread_create(&w, NULL, waker, &r);
	}
	for (;;) {
		int waited = 0, cur;

		while ((cur = atomic_load(&r.seq)) == seen && !atomic_load(&r.stop)) {
			waited = 1;
			futex_wait(&r.seq, (int)seen);
		}
		if (atomic_load(&r.stop))
			break;
		k = cur;
		/*
		 * A frame posted while the task was still busy: its latency is
		 * the delay until the task gets to it.
		 */
		lat[n++] = now_ns() - r.stamp[k];
		(void)waited;
		burn_cpu_ns(work_of(md, k));
		delivered += work_of(md, k);
		if (now_ns() <= r.t0 + (k + 1) * md->period_ns)
			met++;
		seen = k;
	}
	pthread_join(w, NULL);
	setpriority(PRIO_PROCESS, (id_t)gettid(), 0);
	if (cpu >= 0)
		set_affinity_bits(0, ~0ul);
	posted = 0;
	for (k = 1; k < r.maxk && r.stamp[k]; k++) {
		requested += work_of(md, k);
		posted++;
	}
	s = lat_stats(lat, n);
	printf("{\"bench\":\"inter:%s:%s\"", md->name, load);
	print_stats("", s);
	printf(",\"cpu_pct\":%.1f,\"deadlines_met_pct\":%.1f}\n",
	       requested ? 100.0 * delivered / requested : 100.0,
	       posted ? 100.0 * met / posted : 0.0);
	fflush(stdout);
	free(r.stamp);
	free(lat);
}

/* ---- loads, each in its own process group ---- */

static void load_burn(int n)
{
	for (int i = 0; i < n; i++)
		spawn_hog(-1, 0);
	for (;;)
		pause();
}

struct ring {
	int n;
	_Atomic int tok[64];
};

static struct ring ring;

static void *ring_thread(void *arg)
{
	int i = (int)(long)arg, nx = (i + 1) % ring.n;

	for (;;) {
		while (atomic_load(&ring.tok[i]) == 0)
			futex_wait(&ring.tok[i], 0);
		atomic_store(&ring.tok[i], 0);
		atomic_store(&ring.tok[nx], 1);
		futex_wake(&ring.tok[nx], 1);
	}
	return NULL;
}

/* A ring of n threads passing one token through futexes. */
static void load_ring(int n)
{
	pthread_t t;

	ring.n = n;
	ring.tok[0] = 1;
	for (long i = 0; i < n; i++)
		pthread_create(&t, NULL, ring_thread, (void *)i);
	for (;;)
		pause();
}

static void load_messaging(void)
{
	execlp("hackbench", "hackbench", "-g", "2", "-f", "10", "-l", "100000000", (char *)NULL);
	fprintf(stderr, "b_interactive: no hackbench, messaging load is idle\n");
	for (;;)
		pause();
}

/* Keep n children alive, each burning 5-50 ms of CPU then exiting. */
static void load_forks(int n)
{
	unsigned int seed = (unsigned int)getpid();

	for (;;) {
		while (n > 0) {
			uint64_t ms = 5 + rand_r(&seed) % 46;
			pid_t p = fork();

			if (p == 0) {
				burn_cpu_ns(ms * 1000000ull);
				_exit(0);
			}
			if (p > 0)
				n--;
			else
				break;
		}
		if (wait(NULL) > 0)
			n++;
	}
}

static pid_t start_load(const char *name, int m)
{
	pid_t p = fork();

	if (p != 0)
		return p;
	if (!strcmp(name, "session_j8")) {
		/*
		 * make -j8 in another terminal: its own session, so its own
		 * autogroup (setsid() also makes it its process group's leader;
		 * it fails in one that already is).
		 */
		if (setsid() < 0)
			fprintf(stderr, "b_interactive: setsid: %s\n", strerror(errno));
		load_forks(8);
	}
	setpgid(0, 0);
	if (!strcmp(name, "burn_M"))
		load_burn(m);
	else if (!strcmp(name, "burn_2M"))
		load_burn(2 * m);
	else if (!strcmp(name, "ring"))
		load_ring(4);
	else if (!strcmp(name, "messaging"))
		load_messaging();
	else if (!strcmp(name, "forks"))
		load_forks(2 * m);
	else if (!strcmp(name, "cpu1_hog")) {
		spawn_hog(m - 1, 0);
		for (;;)
			pause();
	}
	_exit(0);
}

static void stop_load(pid_t p)
{
	if (p <= 0)
		return;
	kill(-p, SIGKILL);
	kill(p, SIGKILL);
	/* We are the subreaper: collect the load's orphans too. */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	static const char *loads[] = { "none", "burn_M", "burn_2M", "ring", "messaging", "forks",
				       "session_j8", "cpu1_none", "cpu1_hog" };
	unsigned int ms = argc > 1 ? (unsigned int)atoi(argv[1]) : (unsigned int)setting_long("VDS_BENCHSECS", 10) * 300;
	int m = ncpus_online();
	const char *only = getenv("INTER_LOADS");

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (unsigned int l = 0; l < sizeof(loads) / sizeof(loads[0]); l++) {
		pid_t p;

		if (only && !strstr(only, loads[l]))
			continue;
		p = strcmp(loads[l], "none") && strcmp(loads[l], "cpu1_none") ?
			start_load(loads[l], m) : 0;
		sleep_ms(300);
		/* cpu1_*: the measured task pinned to the last CPU, with its load. */
		for (unsigned int i = 0; i < sizeof(models) / sizeof(models[0]); i++)
			run_model(&models[i], loads[l], ms,
				  strncmp(loads[l], "cpu1_", 5) ? -1 : m - 1);
		stop_load(p);
	}
	return 0;
}
