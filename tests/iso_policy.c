// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_ISO (policy 4) and SCHED_IDLEPRIO plumbing under VDS, as root and
 * as an unprivileged user (uid 65534, RLIMIT_RTPRIO 0): who may set what,
 * what sched_getscheduler() says, fork inheritance, SCHED_RESET_ON_FORK,
 * and the real client, schedtool -I / -D.
 */
#include "vds_test.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static int set(int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(0, policy, &sp) ? -errno : 0;
}

/* Policy of a child forked now. */
static int child_policy(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(sched_getscheduler(0));
	waitpid(pid, &st, 0);
	return WEXITSTATUS(st);
}

/* Run fn in a child as uid 65534 with RLIMIT_RTPRIO rt; TAP lines come out. */
static void as_nobody(unsigned long rt, void (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = { rt, rt };

		setrlimit(RLIMIT_RTPRIO, &rl);
		if (setgid(65534) || setuid(65534))
			_exit(99);
		fn();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* The number at the end of a line such as "policy      :      4". */
static long last_number(const char *s)
{
	const char *p = strrchr(s, ':');

	return p ? strtol(p + 1, NULL, 10) : -1;
}

/* The first line a shell command prints, without its newline. */
static void first_line(const char *cmd, char *buf, int len)
{
	FILE *f = popen(cmd, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		pclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static int base;	/* TAP numbers used by the parent before a child runs */

static void nobody_checks(void)
{
	tap_n = base;
	tap_ok(set(SCHED_ISO, 0) == 0 && sched_getscheduler(0) == SCHED_ISO,
	       "unprivileged: SCHED_ISO accepted, getscheduler says 4");
	set(SCHED_OTHER, 0);
	tap_ok(set(SCHED_FIFO, 10) == 0 && sched_getscheduler(0) == SCHED_ISO,
	       "unprivileged: SCHED_FIFO 10 becomes SCHED_ISO (policy %d)", sched_getscheduler(0));
	set(SCHED_OTHER, 0);
	tap_ok(set(SCHED_RR, 1) == 0 && sched_getscheduler(0) == SCHED_ISO,
	       "unprivileged: SCHED_RR 1 becomes SCHED_ISO (policy %d)", sched_getscheduler(0));
	tap_ok(set(SCHED_ISO, 3) == -EINVAL, "unprivileged: SCHED_ISO with priority 3 is EINVAL");
	tap_ok(set(SCHED_FIFO, 0) == -EINVAL, "unprivileged: SCHED_FIFO with priority 0 stays EINVAL");
	set(SCHED_OTHER, 0);
	tap_ok(set(SCHED_IDLE, 0) == 0 && sched_getscheduler(0) == SCHED_IDLE,
	       "unprivileged: SCHED_IDLE accepted");
	tap_ok(set(SCHED_OTHER, 0) == -EPERM, "unprivileged: leaving SCHED_IDLE needs privilege (EPERM)");
	tap_ok(set(SCHED_ISO, 0) == -EPERM, "unprivileged: SCHED_IDLE to SCHED_ISO needs privilege too");
}

static void rlimit_checks(void)
{
	tap_n = base;
	int r = set(SCHED_FIFO, 10), pol = sched_getscheduler(0);

	tap_ok(r == 0 && pol == SCHED_FIFO, "RLIMIT_RTPRIO 20: SCHED_FIFO 10 stays SCHED_FIFO (policy %d)", pol);
}

int main(void)
{
	struct vds_sched_attr attr;
	char buf[256];

	need_vds();
	tap_plan(19);
	tap_ok(set(SCHED_ISO, 0) == 0 && sched_getscheduler(0) == SCHED_ISO,
	       "root: SCHED_ISO accepted, getscheduler says 4");
	tap_ok(child_policy() == SCHED_ISO, "a child inherits SCHED_ISO");
	tap_ok(set(SCHED_ISO | SCHED_RESET_ON_FORK, 0) == 0 && child_policy() == SCHED_OTHER,
	       "SCHED_RESET_ON_FORK: the child of an ISO task is SCHED_NORMAL");
	set(SCHED_OTHER, 0);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sched_policy = SCHED_ISO;
	attr.sched_nice = 5;
	tap_ok(syscall(SYS_sched_setattr, 0, &attr, 0) == 0 && sched_getscheduler(0) == SCHED_ISO &&
	       getpriority(PRIO_PROCESS, 0) == 5, "sched_setattr: SCHED_ISO with nice 5");
	attr.sched_priority = 1;
	tap_ok(syscall(SYS_sched_setattr, 0, &attr, 0) < 0 && errno == EINVAL,
	       "sched_setattr: SCHED_ISO with priority 1 is EINVAL");
	tap_ok(sched_get_priority_max(SCHED_ISO) == 0 && sched_get_priority_min(SCHED_ISO) == 0,
	       "sched_get_priority_max/min(SCHED_ISO) are 0");
	set(SCHED_OTHER, 0);
	setpriority(PRIO_PROCESS, 0, 0);
	tap_ok(set(SCHED_FIFO, 10) == 0 && sched_getscheduler(0) == SCHED_FIFO,
	       "root (CAP_SYS_NICE): SCHED_FIFO stays SCHED_FIFO");
	set(SCHED_OTHER, 0);

	fflush(stdout);
	base = tap_n;
	as_nobody(0, nobody_checks);
	tap_n = base + 8;
	base = tap_n;
	as_nobody(20, rlimit_checks);
	tap_n = base + 1;

	/* The real client: schedtool. */
	first_line("schedtool -I -e cat /proc/self/sched 2>&1 | grep '^policy'", buf, sizeof(buf));
	tap_ok(last_number(buf) == 4, "schedtool -I -e runs the command as SCHED_ISO (policy %ld)",
	       last_number(buf));
	first_line("schedtool -D -e cat /proc/self/sched 2>&1 | grep '^policy'", buf, sizeof(buf));
	tap_ok(last_number(buf) == 5, "schedtool -D -e runs the command as SCHED_IDLEPRIO (policy %ld)",
	       last_number(buf));
	first_line("schedtool -I $$ >/dev/null 2>&1; schedtool $$ 2>&1", buf, sizeof(buf));
	tap_ok(strstr(buf, "ISO") != NULL, "schedtool reports SCHED_ISO for a task set with -I (%s)", buf);
	return tap_done();
}
