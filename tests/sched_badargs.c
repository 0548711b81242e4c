// SPDX-License-Identifier: GPL-2.0
/*
 * Invalid arguments to sched_setscheduler() and sched_setattr() around the
 * policies VDS adds, SCHED_ISO (4) and SCHED_IDLEPRIO (SCHED_IDLE, 5), and
 * the unprivileged SCHED_FIFO/RR -> SCHED_ISO fallback: each call fails with
 * the errno the syscall ABI promises and leaves the caller's policy,
 * priority and nice exactly as they were (a non-default SCHED_BATCH, nice 3,
 * so a call that half-applies is caught).
 */
#include "vds_test.h"

/* The case table leaves trailing fields zero on purpose. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define SCHED_FLAG_RESET_ON_FORK 0x01
#define SCHED_FLAG_KEEP_ALL 0x18

struct state {
	int policy, nice;
	struct vds_sched_attr attr;
};

static void get_state(struct state *s)
{
	memset(s, 0, sizeof(*s));
	s->policy = sched_getscheduler(0);
	errno = 0;
	s->nice = getpriority(PRIO_PROCESS, 0);
	syscall(SYS_sched_getattr, 0, &s->attr, sizeof(s->attr), 0);
}

static int same_state(const struct state *a, const struct state *b)
{
	return a->policy == b->policy && a->nice == b->nice &&
	       a->attr.sched_policy == b->attr.sched_policy &&
	       a->attr.sched_priority == b->attr.sched_priority &&
	       a->attr.sched_nice == b->attr.sched_nice &&
	       a->attr.sched_flags == b->attr.sched_flags;
}

static int setsched(pid_t pid, int policy, int prio, int null_param)
{
	struct sched_param sp = { .sched_priority = prio };

	return syscall(SYS_sched_setscheduler, pid, policy, null_param ? NULL : &sp) ? -errno : 0;
}

static int setattr(pid_t pid, int policy, unsigned int prio, uint64_t flags,
		   uint32_t size, unsigned int sys_flags)
{
	struct {
		struct vds_sched_attr a;
		char tail[64];
	} buf;

	memset(&buf, 0, sizeof(buf));
	buf.a.size = size;
	buf.a.sched_policy = policy;
	buf.a.sched_priority = prio;
	buf.a.sched_flags = flags;
	buf.a.sched_nice = 0;
	if (size > sizeof(buf.a))
		buf.tail[0] = 1;	/* a non-zero byte the kernel does not know */
	return syscall(SYS_sched_setattr, pid, &buf, sys_flags) ? -errno : 0;
}

struct bad {
	const char *what;
	int want;	/* errno */
	int attr;	/* 0: sched_setscheduler, 1: sched_setattr */
	pid_t pid;
	int policy;
	unsigned int prio;
	uint64_t flags;
	uint32_t size;	/* sched_setattr: attr.size (0: the full struct) */
	unsigned int sys_flags;
	int null_param;
};

#define NOPID 0x3ffffff0	/* above any pid_max */

static const struct bad cases[] = {
	{ "setscheduler ISO with priority 1", EINVAL, 0, 0, SCHED_ISO, 1 },
	{ "setscheduler ISO with priority 99", EINVAL, 0, 0, SCHED_ISO, 99 },
	{ "setscheduler IDLEPRIO with priority 1", EINVAL, 0, 0, SCHED_IDLE, 1 },
	{ "setscheduler ISO for pid -1", EINVAL, 0, -1, SCHED_ISO, 0 },
	{ "setscheduler ISO for a pid that does not exist", ESRCH, 0, NOPID, SCHED_ISO, 0 },
	{ "setscheduler ISO with a NULL param", EINVAL, 0, 0, SCHED_ISO, 0, 0, 0, 0, 1 },
	{ "setscheduler policy 8 (none)", EINVAL, 0, 0, 8, 0 },
	{ "setscheduler policy -2", EINVAL, 0, 0, -2, 0 },
	{ "setscheduler ISO|RESET_ON_FORK with priority 1", EINVAL, 0, 0, SCHED_ISO | 0x40000000, 1 },
	{ "setscheduler FIFO priority 100", EINVAL, 0, 0, SCHED_FIFO, 100 },
	{ "setattr ISO with priority 1", EINVAL, 1, 0, SCHED_ISO, 1 },
	{ "setattr IDLEPRIO with priority 5", EINVAL, 1, 0, SCHED_IDLE, 5 },
	{ "setattr ISO for pid -1", EINVAL, 1, -1, SCHED_ISO, 0 },
	{ "setattr ISO for a pid that does not exist", ESRCH, 1, NOPID, SCHED_ISO, 0 },
	{ "setattr ISO with unknown sched_flags", EINVAL, 1, 0, SCHED_ISO, 0, 1ull << 40 },
	{ "setattr ISO with syscall flags 1", EINVAL, 1, 0, SCHED_ISO, 0, 0, 0, 1 },
	{ "setattr ISO with size 8 (too small)", E2BIG, 1, 0, SCHED_ISO, 0, 0, 8 },
	{ "setattr ISO with size 47 (below VER0)", E2BIG, 1, 0, SCHED_ISO, 0, 0, 47 },
	{ "setattr ISO, larger size with a non-zero unknown tail", E2BIG, 1, 0, SCHED_ISO, 0, 0,
	  sizeof(struct vds_sched_attr) + 8 },
	{ "setattr IDLEPRIO with size 8", E2BIG, 1, 0, SCHED_IDLE, 0, 0, 8 },
	{ "setattr policy 8 (none)", EINVAL, 1, 0, 8, 0 },
};
#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

static int run_case(const struct bad *c)
{
	uint32_t size = c->size ? c->size : sizeof(struct vds_sched_attr);

	if (c->attr)
		return setattr(c->pid, c->policy, c->prio, c->flags, size, c->sys_flags);
	return setsched(c->pid, c->policy, c->prio, c->null_param);
}

static void check_cases(const char *who)
{
	struct state before, after;
	int i, r;

	for (i = 0; i < NCASES; i++) {
		get_state(&before);
		r = run_case(&cases[i]);
		get_state(&after);
		tap_ok(r == -cases[i].want && same_state(&before, &after),
		       "%s: %s fails with %s (got %s), policy %d nice %d unchanged (now %d, %d)",
		       who, cases[i].what, strerror(cases[i].want), r ? strerror(-r) : "success",
		       before.policy, before.nice, after.policy, after.nice);
	}
}

/* As uid 65534 with RLIMIT_RTPRIO 0: the fallback's own invalid cases. */
static void nobody(void)
{
	struct state before, after;
	struct rlimit rl = { 0, 0 };
	int r;

	setrlimit(RLIMIT_RTPRIO, &rl);
	if (setgid(65534) || setuid(65534))
		_exit(99);
	check_cases("unprivileged");
	/* FIFO/RR out of range stays EINVAL, not a silent ISO. */
	get_state(&before);
	r = setsched(0, SCHED_FIFO, 100, 0);
	get_state(&after);
	tap_ok(r == -EINVAL && same_state(&before, &after),
	       "unprivileged: FIFO priority 100 is EINVAL, not ISO (got %d, policy %d)", r, after.policy);
	get_state(&before);
	r = setsched(0, SCHED_RR, 0, 0);
	get_state(&after);
	tap_ok(r == -EINVAL && same_state(&before, &after),
	       "unprivileged: RR priority 0 is EINVAL, not ISO (got %d, policy %d)", r, after.policy);
	get_state(&before);
	r = setattr(0, SCHED_FIFO, 0, 0, sizeof(struct vds_sched_attr), 0);
	get_state(&after);
	tap_ok(r == -EINVAL && same_state(&before, &after),
	       "unprivileged: setattr FIFO priority 0 is EINVAL (got %d)", r);
	/* Someone else's task: EPERM for ISO and for the FIFO fallback alike. */
	get_state(&before);
	r = setsched(1, SCHED_ISO, 0, 0);
	tap_ok(r == -EPERM && sched_getscheduler(1) == SCHED_OTHER,
	       "unprivileged: SCHED_ISO for init (pid 1) is EPERM (got %d)", r);
	r = setsched(1, SCHED_FIFO, 10, 0);
	tap_ok(r == -EPERM && sched_getscheduler(1) == SCHED_OTHER,
	       "unprivileged: SCHED_FIFO (would-be ISO) for init is EPERM (got %d)", r);
	r = setattr(1, SCHED_IDLE, 0, 0, sizeof(struct vds_sched_attr), 0);
	tap_ok(r == -EPERM && sched_getscheduler(1) == SCHED_OTHER,
	       "unprivileged: IDLEPRIO for init is EPERM (got %d)", r);
	fflush(stdout);
	_exit(0);
}

int main(void)
{
	struct sched_param sp = { 0 };
	int base, st;
	pid_t pid;

	need_vds();
	tap_plan(2 * NCASES + 6 + 1);
	/* A non-default starting point: BATCH, nice 3. */
	sched_setscheduler(0, SCHED_BATCH, &sp);
	setpriority(PRIO_PROCESS, 0, 3);
	check_cases("root");
	tap_ok(sched_getscheduler(0) == SCHED_BATCH && getpriority(PRIO_PROCESS, 0) == 3,
	       "root: still SCHED_BATCH nice 3 after every invalid call");
	base = tap_n;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		nobody();
	}
	waitpid(pid, &st, 0);
	tap_n = base + NCASES + 6;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		diag("the unprivileged child ended with status %d", st);
	return tap_done();
}
