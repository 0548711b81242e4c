// SPDX-License-Identifier: GPL-2.0
/*
 * Sync wakeups. A pipe write wakes the reader with WF_SYNC: the writer
 * says it is about to sleep.
 *
 * Placement: with no idle CPU, the reader waits on the writer's CPU, on
 * the cache the writer filled, even when another task waits there too.
 * The writer shares CPU W with a hog, a second hog runs on CPU O, and the
 * reader pins itself to O before each read; the writer allows it W and O
 * again just before it writes, so the reader wakes with O as its previous
 * CPU, where it could preempt the hog. The writer runs on for 2 ms after
 * the write (W does not pick, so it cannot pull the reader meanwhile). A
 * scheduler that sends a sync wakee to its waker's CPU only when the
 * waker runs alone there lets this reader preempt the hog on O. At least
 * three quarters of its wakeups must run on W.
 *
 * The bound: a sync wakeup does not preempt the writer, which means to
 * sleep; if it runs on instead, the reader waits at most the rest of the
 * writer's slice. A writer writes and then keeps its CPU for 120 ms, with
 * rr_interval at 20 ms; the reader, at nice -5 and asleep most of the
 * time, is the earlier of the two and runs at the end of the writer's
 * slice, which falls anywhere in the next 20 ms. Its median wakeup
 * latency must lie above 2 ms (a wakeup that preempted at once or after
 * min_run_ns would take about 1 ms or less) and below 60 ms (a wakee that
 * waited for the writer's sleep would take the whole 120 ms; the bound is
 * one rr_interval).
 */
#include "vds_test.h"

#define PLACE_N	40
#define BOUND_N	12
#define SPIN_MS	120
#define BOUND_RR	20

static void spin_cpu_ms(unsigned int ms)
{
	uint64_t end = thread_cpu_ns() + ms * 1000000ull;

	while (thread_cpu_ns() < end)
		;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int64_t *)a < *(const int64_t *)b ? -1 :
	       *(const int64_t *)a > *(const int64_t *)b;
}

/* Wait (up to 1 s) until @pid sleeps with @cpu as its CPU. */
static void wait_asleep_on(pid_t pid, int cpu)
{
	char path[64], buf[1024], *p;
	int i, f, state = 0, on = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 1000; i++) {
		if (read_file(path, buf, sizeof(buf)))
			return;
		/* After "(comm)": state is field 3, processor field 39. */
		p = strrchr(buf, ')');
		for (f = 2; p && f < 39; f++) {
			p = strchr(p + 1, ' ');
			if (p && f == 2)
				state = p[1];
		}
		if (p)
			on = atoi(p + 1);
		if (state == 'S' && on == cpu)
			return;
		usleep(1000);
	}
}

/* How many of PLACE_N sync wakeups of the reader ran on the writer's CPU. */
static int placement(int w, int o)
{
	int req[2], rep[2], i, on_w = 0, on_o = 0;
	unsigned long both = (1ul << w) | (1ul << o);
	pid_t hw, ho, reader;
	char c = 0;

	if (pipe(req) || pipe(rep))
		return -1;
	hw = spawn_hog(w, 0);
	ho = spawn_hog(o, 0);
	reader = fork();
	if (reader == 0) {
		close(req[1]);
		close(rep[0]);
		for (;;) {
			/* It sleeps on O; the writer widens its mask. */
			pin_to(0, o);
			if (read(req[0], &c, 1) != 1)
				_exit(0);
			c = (char)sched_getcpu();
			if (write(rep[1], &c, 1) != 1)
				_exit(1);
		}
	}
	close(req[0]);
	close(rep[1]);
	pin_to(0, w);
	sleep_ms(100);
	for (i = 0; i < PLACE_N; i++) {
		wait_asleep_on(reader, o);
		if (set_affinity_bits(reader, both) || write(req[1], &c, 1) != 1)
			break;
		/* Busy a little longer: W does not pick, so cannot pull. */
		spin_cpu_ms(2);
		if (read(rep[0], &c, 1) != 1)
			break;
		if (c == w)
			on_w++;
		else if (c == o)
			on_o++;
		sleep_ms(5);
	}
	close(req[1]);
	close(rep[0]);
	kill_wait(reader);
	kill_wait(hw);
	kill_wait(ho);
	diag("placement: %d of %d wakeups on the writer's CPU %d, %d on the reader's previous CPU %d",
	     on_w, i, w, on_o, o);
	return i == PLACE_N ? on_w : -1;
}

/* Median latency (ns) of a sync wakee behind a writer that keeps running. */
static int64_t bound(int cpu)
{
	int64_t *lat = shared_mem(BOUND_N * sizeof(*lat));
	int fd[2], i;
	uint64_t t;
	pid_t reader;

	if (!lat || pipe(fd))
		return -1;
	pin_to(0, cpu);
	reader = fork();
	if (reader == 0) {
		close(fd[1]);
		setpriority(PRIO_PROCESS, 0, -5);
		for (i = 0; i < BOUND_N; i++) {
			if (read(fd[0], &t, sizeof(t)) != sizeof(t))
				_exit(1);
			lat[i] = (int64_t)(now_ns() - t);
		}
		_exit(0);
	}
	close(fd[0]);
	/* Use up a slice: the writer's deadline moves past the reader's. */
	spin_cpu_ms(250);
	for (i = 0; i < BOUND_N; i++) {
		sleep_ms(10);
		t = now_ns();
		if (write(fd[1], &t, sizeof(t)) != sizeof(t))
			break;
		spin_cpu_ms(SPIN_MS);
	}
	close(fd[1]);
	waitpid(reader, NULL, 0);
	if (i < BOUND_N)
		return -1;
	for (i = 0; i < BOUND_N; i++)
		diag("sync wakee behind a writer that keeps the CPU: %.3f ms", lat[i] / 1e6);
	qsort(lat, BOUND_N, sizeof(*lat), cmp_int);
	return lat[BOUND_N / 2];
}

int main(void)
{
	long rr = read_long("/proc/sys/kernel/rr_interval", 6);
	int n = ncpus_online(), on_w;
	int64_t med;
	char v[16];

	need_vds();
	tap_plan(2);

	if (n < 2) {
		tap_skip("placement needs two CPUs");
	} else {
		on_w = placement(0, 1);
		tap_ok(on_w >= PLACE_N * 3 / 4,
		       "a sync wakee waits on its busy waker's CPU (%d of %d wakeups there, at least %d)",
		       on_w, PLACE_N, PLACE_N * 3 / 4);
	}

	snprintf(v, sizeof(v), "%d", BOUND_RR);
	write_file("/proc/sys/kernel/rr_interval", v);
	med = bound(n - 1);
	snprintf(v, sizeof(v), "%ld", rr);
	write_file("/proc/sys/kernel/rr_interval", v);
	tap_ok(med > 2000000 && med < SPIN_MS * 1000000ll / 2,
	       "a sync wakee waits for the slice of a waker that does not sleep (2 ms < median %.3f ms < %d ms, rr_interval %d ms)",
	       med / 1e6, SPIN_MS / 2, BOUND_RR);
	return tap_done();
}
