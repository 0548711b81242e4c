// SPDX-License-Identifier: GPL-2.0
/*
 * Priority inheritance through a PI futex (pthread_mutex with
 * PTHREAD_PRIO_INHERIT). On one CPU: two NORMAL hogs at nice 0, an owner
 * thread at nice 19 that holds the mutex for 3 ms of CPU at a time with
 * 1 ms sleeps between, and a waiter that takes the mutex every 10 ms. The
 * owner gets about 3 % of the CPU, so it is mostly preempted with the
 * mutex held; how long the waiter waits is how long the owner waits for
 * the CPU while someone needs its lock.
 *
 * With an ISO waiter (nice 0) the PI boost gives the owner nice 0's
 * deadline, never a later one: the p90 wait with PI is below half of the
 * p90 without PI (PTHREAD_PRIO_NONE). A boost that resets the owner's
 * deadline from its own nice 19 does not help at all, and fails.
 * With a SCHED_FIFO waiter the owner runs as RT while boosted: same check.
 * Only takes that find the mutex held count, and at least 5 must; each
 * comparison is measured once more before it fails.
 */
#include "vds_test.h"
#include <pthread.h>

#define ROUNDS		40

static pthread_mutex_t mtx;
static volatile int stop;
static volatile long sections;
static int cpu;

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void spin_cpu(uint64_t ns)
{
	uint64_t t0 = thread_cpu_ns();

	while (thread_cpu_ns() - t0 < ns)
		;
}

static void *owner(void *arg)
{
	(void)arg;
	pin_to(0, cpu);
	setpriority(PRIO_PROCESS, gettid_(), 19);
	while (!stop) {
		pthread_mutex_lock(&mtx);
		spin_cpu(3000000);
		sections++;
		pthread_mutex_unlock(&mtx);
		sleep_ms(1);
	}
	return NULL;
}

/*
 * p90 of the waiter's waits for the mutex while the owner holds it, in ns:
 * a take that finds the mutex free (trylock) is not a wait and is not
 * counted. ROUNDS waits, or as many as 15 s give.
 */
static uint64_t measure(int protocol, int policy)
{
	struct sched_param sp = { policy == SCHED_FIFO ? 10 : 0 };
	uint64_t w[ROUNDS], t0, start;
	pthread_mutexattr_t ma;
	int i = 0, tries = 0;
	pthread_t th;
	long s0;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, protocol);
	pthread_mutex_init(&mtx, &ma);
	stop = 0;
	pthread_create(&th, NULL, owner, NULL);
	sleep_ms(300);
	if (sched_setscheduler(0, policy, &sp))
		diag("sched_setscheduler(%d): %s", policy, strerror(errno));
	s0 = sections;
	start = now_ns();
	while (i < ROUNDS && now_ns() - start < 15000000000ull) {
		sleep_ms(10);
		tries++;
		if (!pthread_mutex_trylock(&mtx)) {
			pthread_mutex_unlock(&mtx);
			continue;
		}
		t0 = now_ns();
		pthread_mutex_lock(&mtx);
		w[i++] = now_ns() - t0;
		pthread_mutex_unlock(&mtx);
	}
	diag("%s, %s: %d waits in %d takes, owner did %ld sections in %.1f s",
	     protocol == PTHREAD_PRIO_INHERIT ? "PI" : "no PI",
	     policy == SCHED_FIFO ? "FIFO" : "ISO", i, tries, sections - s0,
	     (now_ns() - start) / 1e9);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	stop = 1;
	pthread_join(th, NULL);
	pthread_mutex_destroy(&mtx);
	if (i < 5)
		return 0;
	qsort(w, i, sizeof(w[0]), cmp_u64);
	return w[i * 9 / 10];
}

static void compare(int policy, const char *name)
{
	uint64_t pi = 0, none = 0;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		none = measure(PTHREAD_PRIO_NONE, policy);
		pi = measure(PTHREAD_PRIO_INHERIT, policy);
		diag("%s waiter, try %d: p90 wait %.1f ms with PI, %.1f ms without",
		     name, tries + 1, pi / 1e6, none / 1e6);
		if (pi && pi * 2 < none)
			break;
	}
	tap_ok(pi && pi * 2 < none, "%s waiter: the nice 19 owner's p90 wait with PI %.1f ms < half of %.1f ms without",
	       name, pi / 1e6, none / 1e6);
}

int main(void)
{
	pid_t h1, h2;

	need_vds();
	tap_plan(2);
	cpu = ncpus_online() - 1;
	pin_to(0, cpu);
	h1 = spawn_hog(cpu, 0);
	h2 = spawn_hog(cpu, 0);
	sleep_ms(200);
	compare(SCHED_ISO, "ISO");
	compare(SCHED_FIFO, "FIFO");
	kill_wait(h1);
	kill_wait(h2);
	return tap_done();
}
