// SPDX-License-Identifier: GPL-2.0
/*
 * No way out of IDLEPRIO or cpu.idle: whatever an IDLEPRIO task (SCHED_IDLE,
 * which VDS runs as IDLEPRIO) or a task of a cgroup with cpu.idle 1 does
 * with ordinary unprivileged syscalls, it gets under 3 % of a CPU next to
 * a NORMAL (nice 0) hog on that CPU. Each party drops to uid/gid 65534
 * before its loop, so what it does any user can do.
 *
 * Cases, all on one CPU (the last online one) with one NORMAL hog:
 *  - control: a plain SCHED_IDLE hog;
 *  - PI futex: two SCHED_IDLE threads, A takes a FUTEX_LOCK_PI futex and
 *    spins holding it, B blocks in FUTEX_LOCK_PI on it. A waiter that is
 *    IDLEPRIO itself lends nothing: a scheduler that runs an IDLEPRIO
 *    owner with any waiter as NORMAL fails;
 *  - vfork: a SCHED_IDLE process spins 3 ms of its CPU time, vfork()s a
 *    child that _exit()s at once, and loops. The killable wait in vfork
 *    is an uninterruptible sleep: a scheduler that runs IDLEPRIO as
 *    NORMAL for a slice after such a sleep fails;
 *  - SCHED_BATCH in a cpu.idle group: spin 0.5 ms, sched_yield(), loop.
 *    A scheduler that gives a BATCH task a NORMAL deadline whenever it is
 *    put back with slice left (a yield, a preemption), out of the group's
 *    band, fails.
 * Each of those escapes gives the party about half the CPU, far over 3 %.
 *
 * The party's share is its run time over its own and the hog's (the sum
 * of its threads' /proc/<pid>/task/<tid>/schedstat; a vfork child runs
 * for a few µs and is not counted) over 3 s after 300 ms of settling; the
 * hog must have run at least half of that time, or nothing was measured.
 * A failing case is measured once more. Runs on both schedulers: under EEVDF
 * (vds=off) SCHED_IDLE and an idle group weigh 3 against 1024, about
 * 0.3 %, the reference. Without the cgroup v2 cpu controller the cpu.idle
 * case is skipped.
 */
#include "vds_test.h"
#include <dirent.h>
#include <grp.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>

#define CG		"/sys/fs/cgroup"
#define GRP		CG "/vds-ie"
#define SETTLE_MS	300
#define MEASURE_MS	3000
#define READY_NS	5000000000ull

/* Set up by the party, read by the test. */
struct shared {
	_Atomic unsigned int pi;	/* the PI futex word: 0 or owner's tid */
	volatile int ready;		/* the party is in its loop */
	char why[96];			/* what failed in the party's setup */
};

static struct shared *sh;
static int cpu;

static void spin_cpu(uint64_t ns)
{
	uint64_t t0 = thread_cpu_ns();

	while (thread_cpu_ns() - t0 < ns)
		;
}

static void __attribute__((noreturn)) spin_forever(void)
{
	volatile uint64_t x = 0;

	for (;;)
		x++;
}

/* The party's setup failed: say why and give up. */
static void __attribute__((noreturn)) party_fail(const char *what)
{
	snprintf(sh->why, sizeof(sh->why), "%s: %s", what, strerror(errno));
	_exit(1);
}

/* Take @policy (nice 0), then become uid and gid 65534 with no groups. */
static void become(int policy)
{
	struct sched_param sp = { 0 };

	if (sched_setscheduler(0, policy, &sp))
		party_fail("sched_setscheduler");
	if (setgroups(0, NULL))
		party_fail("setgroups");
	if (setresgid(65534, 65534, 65534))
		party_fail("setresgid");
	if (setresuid(65534, 65534, 65534))
		party_fail("setresuid");
	if (sched_getscheduler(0) != policy) {
		errno = EINVAL;
		party_fail("policy not kept");
	}
}

/* The control: a SCHED_IDLE busy loop. */
static void idle_hog(void)
{
	become(SCHED_IDLE);
	sh->ready = 1;
	spin_forever();
}

static long futex_pi(int op)
{
	return syscall(SYS_futex, &sh->pi, op, 0, NULL, NULL, 0);
}

/* Thread B: blocks on the PI futex A holds (B inherits SCHED_IDLE). */
static void *pi_waiter(void *arg)
{
	(void)arg;
	if (sched_getscheduler(0) != SCHED_IDLE) {
		errno = EINVAL;
		party_fail("waiter not SCHED_IDLE");
	}
	if (futex_pi(FUTEX_LOCK_PI))
		party_fail("waiter FUTEX_LOCK_PI");
	spin_forever();
}

/* Thread A: takes the PI futex, starts B, spins holding it forever. */
static void pi_owner(void)
{
	pthread_t b;

	become(SCHED_IDLE);
	if (futex_pi(FUTEX_LOCK_PI))
		party_fail("owner FUTEX_LOCK_PI");
	if ((atomic_load(&sh->pi) & FUTEX_TID_MASK) != (unsigned int)gettid()) {
		errno = EINVAL;
		party_fail("futex word is not the owner's tid");
	}
	errno = pthread_create(&b, NULL, pi_waiter, NULL);
	if (errno)
		party_fail("pthread_create");
	/* B is queued on the futex once the kernel marks it contended. */
	while (!(atomic_load(&sh->pi) & FUTEX_WAITERS))
		;
	sh->ready = 1;
	spin_forever();
}

static void __attribute__((noinline)) vfork_once(void)
{
	if (vfork() == 0)
		_exit(0);
}

/* 3 ms of CPU, a vfork() of a child that exits at once, and again. */
static void vforker(void)
{
	become(SCHED_IDLE);
	/* The children are reaped by the kernel: no wait to sleep in. */
	signal(SIGCHLD, SIG_IGN);
	sh->ready = 1;
	for (;;) {
		spin_cpu(3000000);
		vfork_once();
	}
}

/* In the cpu.idle group (moved as root), SCHED_BATCH: 0.5 ms, yield. */
static void batch_yielder(void)
{
	int r = write_file(GRP "/cgroup.procs", "0");

	if (r) {
		errno = -r;
		party_fail("move to " GRP);
	}
	become(SCHED_BATCH);
	sh->ready = 1;
	for (;;) {
		spin_cpu(500000);
		sched_yield();
	}
}

/* Run time of all threads of @pid, from their schedstat. */
static uint64_t party_run(pid_t pid)
{
	char path[64];
	struct dirent *d;
	uint64_t sum = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		pid_t tid = atoi(d->d_name);
		struct schedstat st;
		FILE *f;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu %llu %llu", (unsigned long long *)&st.run_ns,
			   (unsigned long long *)&st.wait_ns,
			   (unsigned long long *)&st.slices) == 3)
			sum += st.run_ns;
		fclose(f);
	}
	closedir(dir);
	return sum;
}

struct escape {
	const char *what;
	void (*party)(void);
};

struct result {
	double share, hog_share;	/* of what the party and the hog ran */
	uint64_t party_ns, hog_ns;
	int ready;
	char why[96];
};

/*
 * One attempt: the party pinned to the test CPU and set up (5 s at most),
 * then the NORMAL hog beside it; the shares over MEASURE_MS after
 * SETTLE_MS. Returns whether the party stayed under 3 %.
 */
static int attempt(const struct escape *e, struct result *r)
{
	uint64_t t0, p0, h0;
	pid_t party, hog;

	memset(sh, 0, sizeof(*sh));
	memset(r, 0, sizeof(*r));
	party = fork();
	if (party == 0) {
		pin_to(0, cpu);
		e->party();
		_exit(0);
	}
	t0 = now_ns();
	while (!sh->ready && !sh->why[0] && now_ns() - t0 < READY_NS)
		usleep(1000);
	r->ready = sh->ready;
	if (!r->ready) {
		snprintf(r->why, sizeof(r->why), "%s", sh->why[0] ? sh->why :
			 "not set up within 5 s");
		kill_wait(party);
		return 0;
	}
	hog = spawn_hog(cpu, 0);
	sleep_ms(SETTLE_MS);
	p0 = party_run(party);
	h0 = schedstat_run(hog);
	sleep_ms(MEASURE_MS);
	r->party_ns = party_run(party) - p0;
	r->hog_ns = schedstat_run(hog) - h0;
	/* The hog first: a starving party dies as soon as it runs. */
	kill_wait(hog);
	kill_wait(party);
	if (r->party_ns + r->hog_ns) {
		r->share = (double)r->party_ns / (r->party_ns + r->hog_ns);
		r->hog_share = (double)r->hog_ns / (r->party_ns + r->hog_ns);
	}
	/* A hog that did not run measured nothing. */
	return r->hog_ns > MEASURE_MS * 500000ull && r->share < 0.03;
}

static void result_diag(const struct escape *e, const struct result *r,
			const char *when)
{
	if (!r->ready) {
		diag("%s, %s: the party failed: %s", e->what, when, r->why);
		return;
	}
	diag("%s, %s: party %.2f%% (%.0f ms), NORMAL hog %.2f%% (%.0f ms) of %d ms",
	     e->what, when, 100 * r->share, r->party_ns / 1e6,
	     100 * r->hog_share, r->hog_ns / 1e6, MEASURE_MS);
}

static void escape_case(const struct escape *e)
{
	struct result r;
	char first[64] = "";
	int ok;

	ok = attempt(e, &r);
	if (!ok) {
		result_diag(e, &r, "first attempt");
		if (r.ready)
			snprintf(first, sizeof(first), "; first attempt %.2f%%",
				 100 * r.share);
		else
			snprintf(first, sizeof(first), "; first attempt failed");
		diag("measuring once more");
		ok = attempt(e, &r);
	}
	result_diag(e, &r, *first ? "second attempt" : "measured");
	if (!r.ready) {
		tap_ok(0, "%s, next to a NORMAL hog on CPU %d: the party failed (%s)",
		       e->what, cpu, r.why);
		return;
	}
	tap_ok(ok, "%s, next to a NORMAL hog on CPU %d: %.2f%% of the CPU (< 3%%)%s",
	       e->what, cpu, 100 * r.share, first);
}

/* The last online CPU, from /sys/devices/system/cpu/online ("0-3,5"). */
static int last_cpu(void)
{
	char buf[256], *a, *b;

	if (read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)))
		return 0;
	a = strrchr(buf, '-');
	b = strrchr(buf, ',');
	if (b > a)
		a = b;
	return atoi(a ? a + 1 : buf);
}

/* Is "cpu" (not "cpuset") one of the words of @s? */
static int has_cpu(const char *s)
{
	const char *p;

	for (p = s; (p = strstr(p, "cpu")); p += 3)
		if ((p == s || p[-1] == ' ') && (p[3] == 0 || p[3] == ' ' || p[3] == '\n'))
			return 1;
	return 0;
}

/*
 * The cpu.idle case: the group GRP with cpu.idle 1 below the root, the
 * cpu controller enabled for it if it was not; everything undone after.
 */
static void cpu_idle_case(const struct escape *e)
{
	char buf[256];
	int added = 0, r, i;

	if (read_file(CG "/cgroup.subtree_control", buf, sizeof(buf))) {
		tap_skip("%s: no cgroup v2 at " CG, e->what);
		return;
	}
	if (!has_cpu(buf)) {
		r = write_file(CG "/cgroup.subtree_control", "+cpu");
		if (r) {
			tap_skip("%s: no cgroup v2 cpu controller (%s)", e->what,
				 strerror(-r));
			return;
		}
		added = 1;
	}
	if (mkdir(GRP, 0755) && errno != EEXIST) {
		tap_ok(0, "%s: mkdir " GRP ": %s", e->what, strerror(errno));
		goto out;
	}
	if (access(GRP "/cpu.idle", F_OK)) {
		tap_skip("%s: no cpu.idle in this kernel", e->what);
		goto out;
	}
	r = write_file(GRP "/cpu.idle", "1");
	if (r)
		tap_ok(0, "%s: writing 1 to cpu.idle: %s", e->what, strerror(-r));
	else
		escape_case(e);
out:
	/* The party is reaped; its group may take a moment to empty. */
	for (i = 0; i < 100 && rmdir(GRP) && errno == EBUSY; i++)
		sleep_ms(10);
	/* Later tests' cgroups get no cpu controller from this one. */
	if (added)
		write_file(CG "/cgroup.subtree_control", "-cpu");
}

int main(void)
{
	static const struct escape control = {
		"control: a SCHED_IDLE hog", idle_hog,
	};
	static const struct escape pi = {
		"PI futex: a SCHED_IDLE owner spinning, a SCHED_IDLE waiter", pi_owner,
	};
	static const struct escape vf = {
		"vfork: SCHED_IDLE, 3 ms of CPU then vfork(), looping", vforker,
	};
	static const struct escape batch = {
		"cpu.idle group: SCHED_BATCH, 0.5 ms of CPU then sched_yield(), looping",
		batch_yielder,
	};

	tap_plan(4);
	sh = shared_mem(sizeof(*sh));
	if (!sh) {
		tap_ok(0, "shared memory: %s", strerror(errno));
		return 1;
	}
	cpu = last_cpu();
	diag("scheduler: %s; all on CPU %d", vds_active() ? "VDS" : "not VDS", cpu);
	escape_case(&control);
	escape_case(&pi);
	escape_case(&vf);
	cpu_idle_case(&batch);
	return tap_done();
}
