// SPDX-License-Identifier: GPL-2.0
/*
 * sched_setaffinity is honoured: threads pinned to one CPU or to a subset are
 * never seen (sched_getcpu) outside their mask, while unpinned hogs keep every
 * queue full and the pinned threads sleep and wake often. One thread also has
 * its mask changed from outside while it runs.
 */
#include "vds_test.h"
#include <pthread.h>
#include <stdatomic.h>

#define RUN_MS 3000

struct pinned {
	pthread_t th;
	cpu_set_t mask;
	long samples, outside;
	int last_bad;
};

static atomic_int stop;

static void spin_us(unsigned int us)
{
	uint64_t end = thread_cpu_ns() + us * 1000ull;

	while (thread_cpu_ns() < end)
		;
}

static void *pinned_fn(void *arg)
{
	struct pinned *p = arg;
	long i = 0;

	if (sched_setaffinity(0, sizeof(p->mask), &p->mask))
		p->outside = -1;
	while (!atomic_load(&stop)) {
		int cpu;

		spin_us(100);
		cpu = sched_getcpu();
		p->samples++;
		if (!CPU_ISSET(cpu, &p->mask)) {
			p->outside++;
			p->last_bad = cpu;
		}
		if (++i % 10 == 0)
			usleep(300);
	}
	return NULL;
}

static void *hog_fn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		spin_us(1000);
	return NULL;
}

/* The moving target: its mask is changed by main() while it runs. */
static atomic_ulong moving_mask;	/* bitmask of allowed CPUs */
static atomic_uint moving_seq;
static long moving_samples, moving_outside;
static pid_t moving_tid;

static void *moving_fn(void *arg)
{
	(void)arg;
	moving_tid = (pid_t)syscall(SYS_gettid);
	while (!atomic_load(&stop)) {
		unsigned int s1, s2;
		unsigned long m;
		int cpu;

		spin_us(50);
		s1 = atomic_load(&moving_seq);
		m = atomic_load(&moving_mask);
		cpu = sched_getcpu();
		s2 = atomic_load(&moving_seq);
		if (s1 != s2 || (s1 & 1))
			continue;
		moving_samples++;
		if (cpu >= 64 || !(m & (1ul << cpu)))
			moving_outside++;
	}
	return NULL;
}

int main(void)
{
	int n = ncpus_online(), i, np = 0, nh = 2 * n, nm = n < 64 ? n : 64;
	/* One thread per CPU and one per pair of CPUs. */
	struct pinned *pin = calloc(n + n / 2 + 1, sizeof(*pin));
	pthread_t *hogs = calloc(nh, sizeof(*hogs)), mover;
	/* The moving thread's masks are bitmasks of the first 64 CPUs. */
	unsigned long all = nm == 64 ? ~0ul : (1ul << nm) - 1;
	unsigned int seed = 1;
	uint64_t end;
	int changes = 0, fails = 0;

	tap_plan(4);
	if (n < 2) {
		tap_skip("needs 2 CPUs");
		tap_skip("needs 2 CPUs");
		tap_skip("needs 2 CPUs");
		tap_skip("needs 2 CPUs");
		return 0;
	}
	if (!pin || !hogs) {
		for (i = 0; i < 4; i++)
			tap_ok(0, "%d threads: out of memory", n + n / 2 + nh);
		return tap_done();
	}
	if (nm < n)
		diag("%d CPUs: the moving thread's masks cover the first %d", n, nm);
	for (i = 0; i < n; i++, np++) {
		CPU_ZERO(&pin[np].mask);
		CPU_SET(i, &pin[np].mask);
	}
	for (i = 0; i + 1 < n; i += 2, np++) {
		CPU_ZERO(&pin[np].mask);
		CPU_SET(i, &pin[np].mask);
		CPU_SET((i + n / 2 + 1) % n, &pin[np].mask);
	}
	for (i = 0; i < np; i++)
		pthread_create(&pin[i].th, NULL, pinned_fn, &pin[i]);
	for (i = 0; i < nh; i++)
		pthread_create(&hogs[i], NULL, hog_fn, NULL);
	atomic_store(&moving_mask, all);
	pthread_create(&mover, NULL, moving_fn, NULL);
	while (!moving_tid)
		usleep(1000);

	end = now_ns() + RUN_MS * 1000000ull;
	while (now_ns() < end) {
		unsigned long old = atomic_load(&moving_mask), m;
		cpu_set_t set;
		int c;

		do {
			/* rand_r() gives 31 bits: more draws for more CPUs. */
			m = rand_r(&seed);
			if (nm > 31)
				m |= (unsigned long)rand_r(&seed) << 31 |
				     (unsigned long)rand_r(&seed) << 62;
			m &= all;
		} while (!m);
		CPU_ZERO(&set);
		for (c = 0; c < nm; c++)
			if (m & (1ul << c))
				CPU_SET(c, &set);
		/* odd sequence: change in progress, samples are ignored */
		atomic_fetch_add(&moving_seq, 1);
		atomic_store(&moving_mask, old | m);
		if (sched_setaffinity(moving_tid, sizeof(set), &set))
			fails++;
		atomic_store(&moving_mask, m);
		atomic_fetch_add(&moving_seq, 1);
		changes++;
		usleep(20000);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < np; i++)
		pthread_join(pin[i].th, NULL);
	for (i = 0; i < nh; i++)
		pthread_join(hogs[i], NULL);
	pthread_join(mover, NULL);

	{
		long single_out = 0, single_samples = 0, sub_out = 0, sub_samples = 0;

		for (i = 0; i < np; i++) {
			int one = CPU_COUNT(&pin[i].mask) == 1;

			if (pin[i].outside)
				diag("thread %d (mask of %d CPUs) seen %ld times outside, last on CPU %d",
				     i, CPU_COUNT(&pin[i].mask), pin[i].outside, pin[i].last_bad);
			if (one) {
				single_out += pin[i].outside;
				single_samples += pin[i].samples;
			} else {
				sub_out += pin[i].outside;
				sub_samples += pin[i].samples;
			}
		}
		tap_ok(single_samples > 100 && single_out == 0,
		       "threads pinned to one CPU never seen elsewhere (%ld samples, %ld outside)",
		       single_samples, single_out);
		tap_ok(sub_samples > 100 && sub_out == 0,
		       "threads pinned to a subset never seen elsewhere (%ld samples, %ld outside)",
		       sub_samples, sub_out);
	}
	tap_ok(fails == 0 && changes > 10, "%d mask changes from outside accepted", changes);
	tap_ok(moving_samples > 100 && moving_outside == 0,
	       "a thread whose mask changes stays inside it (%ld samples, %ld outside)",
	       moving_samples, moving_outside);
	return tap_done();
}
