// SPDX-License-Identifier: GPL-2.0
/*
 * Policy round trips: no sequence of policy, nice, attribute or cgroup
 * changes gives a task more than its fair share.
 *
 * A VDS task that comes back from another scheduling class with a fresh
 * slice and the earlier of its old and new deadlines can be switched to
 * SCHED_EXT (while a sched_ext scheduler runs in partial mode, where only
 * SCHED_EXT tasks go to the BPF scheduler) and back before each slice
 * ends: it never reaches the end of a slice, keeps a deadline that never
 * advances and starves its CPU's other tasks (case 6 below). Any user can
 * do that to their own tasks, so this test does it as one: S and F below
 * run as uid 65534.
 *
 * Each case: a spinner S (nice-0 SCHED_OTHER busy loop) and a NORMAL nice-0
 * hog H, both pinned to the last online CPU; a flipper process F pinned to
 * CPU 0 changes an attribute of S back and forth every 1 ms (usleep(1000)
 * between changes), acting on S's pid as a second process of the same user
 * could. S and H are forked as root; S sets RLIMIT_NICE 20 on itself (so
 * that an unprivileged F may bring its nice back from 1 to 0) and drops to
 * uid 65534, and F drops to it once it is set up. S's share of S and H's
 * run time (/proc/<pid>/schedstat) over 3 s, after 300 ms to settle, must
 * be at most 62.5 % (half, plus a 25 % relative margin); for the control
 * and the nice case also at least 37.5 %: a change of nice that is undone
 * must not cost S its share either (a scheduler that gives S a fresh,
 * later deadline at each nice up leaves it a few percent). A case whose
 * changes mostly fail measures nothing and fails. A failing case is
 * measured once more.
 *
 *  1. control: no flipping;
 *  2. sched_setscheduler(): SCHED_OTHER <-> SCHED_BATCH;
 *  3. setpriority(): nice 0 <-> nice 1;
 *  4. sched_setattr(): SCHED_OTHER at nice 0, again and again (no change);
 *  5. cgroup moves: S between two cgroups of cpu.weight 100 (vds-pc-a and
 *     vds-pc-b), H in the root group: 50/50 under both schedulers. F stays
 *     root here (an unprivileged mover needs write access to both groups'
 *     cgroup.procs and their common parent; the scheduler sees the same
 *     moves). Skipped if the cpu controller cannot be enabled;
 *  6. SCHED_EXT round trips: scx_qmap -p (partial) loaded, S switched
 *     between SCHED_EXT (7) and SCHED_OTHER. Skipped without sched_ext or
 *     without the tree's scx_qmap (make check EXT=1).
 *
 * Not VDS-only: vds=off (EEVDF) is the reference. About 25 s when every
 * case passes at once (plus scx_qmap's load, a few seconds under TCG); at
 * worst, every case measured twice and a 45 s load wait, under 90 s. S,
 * H, F and scx_qmap are killed, the cgroups removed and the cpu controller
 * disabled (if this test enabled it) on every way out.
 */
#include "vds_test.h"
#include <grp.h>
#include <sys/prctl.h>

#ifndef SCHED_EXT
#define SCHED_EXT	7
#endif

#define CG		"/sys/fs/cgroup"
#define GRP_A		"vds-pc-a"
#define GRP_B		"vds-pc-b"
#define SCX		"/sys/kernel/sched_ext"
#define QMAP		"/usr/bin/scx_qmap"
#define QMAP_LOG	"/tmp/policy_cycle-scx_qmap.log"
#define NOBODY		65534
#define SETTLE_MS	300
#define WINDOW_MS	3000
#define MAX_SHARE	0.625
#define MIN_SHARE	0.375	/* the control and the nice case */
#define LOAD_WAIT_MS	45000

enum kind { K_NONE, K_BATCH, K_NICE, K_ATTR, K_CGROUP, K_EXT };

static const char *const kind_name[] = {
	[K_NONE]	= "control, S and H alone",
	[K_BATCH]	= "SCHED_OTHER <-> SCHED_BATCH every 1 ms (sched_setscheduler)",
	[K_NICE]	= "nice 0 <-> nice 1 every 1 ms (setpriority)",
	[K_ATTR]	= "sched_setattr(SCHED_OTHER, nice 0) every 1 ms",
	[K_CGROUP]	= "moved between two cgroups of weight 100 every 1 ms",
	[K_EXT]		= "SCHED_EXT <-> SCHED_OTHER every 1 ms under scx_qmap -p",
};

/* Shared between the test and its children. */
struct ctl {
	volatile int s_ready, h_ready, f_ready;	/* 1 ready, < 0: -errno of its setup */
	volatile int stop;
	volatile long ok, fail;		/* F's changes that succeeded, failed */
	volatile int last_err;
};

static struct ctl *ctl;
static pid_t main_pid, s_pid, h_pid, f_pid, scx_pid;
static int cpu, made_grp, cpu_enabled;

/* Kill S, H and F, then reap them: none waits behind another to die. */
static void kill_tasks(void)
{
	pid_t *p[3] = { &f_pid, &s_pid, &h_pid };
	int i;

	for (i = 0; i < 3; i++)
		if (*p[i] > 0)
			kill(*p[i], SIGKILL);
	for (i = 0; i < 3; i++)
		if (*p[i] > 0) {
			waitpid(*p[i], NULL, 0);
			*p[i] = 0;
		}
}

/* The groups, once S is reaped (a moment later if they are busy). */
static void remove_groups(void)
{
	if (made_grp) {
		cg_rmdir_retry(CG "/" GRP_A);
		cg_rmdir_retry(CG "/" GRP_B);
	}
	made_grp = 0;
	if (cpu_enabled && !write_file(CG "/cgroup.subtree_control", "-cpu"))
		cpu_enabled = 0;
}

/* SIGINT, up to @ms for it to exit, then SIGKILL: 1 if it exited 0. */
static int stop_scx(int ms)
{
	uint64_t end = now_ns() + ms * 1000000ull;
	pid_t pid = scx_pid;
	int st;

	if (pid <= 0)
		return 1;
	scx_pid = 0;
	kill(pid, SIGINT);
	while (now_ns() < end) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0;
		sleep_ms(50);
	}
	diag("scx_qmap (pid %d) ignored SIGINT for %d ms, killing it", pid, ms);
	kill_wait(pid);
	return 0;
}

static void show_qmap_log(void)
{
	char buf[4096], *l;

	if (read_file(QMAP_LOG, buf, sizeof(buf)))
		return;
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (!strstr(l, "local=") && !strstr(l, "enq="))
			diag("scx_qmap: %s", l);
}

/*
 * Every exit of the test (main's return, exit(), a signal). Children
 * inherit the handlers and do nothing here. S may be on sched_ext,
 * starved below H: everything is killed before anything is waited for,
 * and scx_qmap is stopped before S is reaped.
 */
static void cleanup(void)
{
	if (getpid() != main_pid)
		return;
	if (ctl)
		ctl->stop = 1;
	if (f_pid > 0)
		kill(f_pid, SIGKILL);
	if (s_pid > 0)
		kill(s_pid, SIGKILL);
	if (h_pid > 0)
		kill(h_pid, SIGKILL);
	if (scx_pid > 0) {
		stop_scx(5000);
		scx_wait_state("disabled", 5000);
	}
	kill_tasks();
	remove_groups();
}

static void on_signal(int sig)
{
	(void)sig;
	cleanup();
	_exit(1);
}

/*
 * S (@unpriv) or H: a nice-0 SCHED_OTHER busy loop on @cpu. S gets
 * RLIMIT_NICE 20 (while still root: raising the hard limit needs
 * privilege) and becomes uid 65534; H stays root.
 */
static pid_t spawn_task(volatile int *ready, int unpriv)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = { 20, 20 };
		struct sched_param sp = { 0 };
		volatile uint64_t x = 0;
		int r = 0;

		pin_to(0, cpu);
		if (sched_setscheduler(0, SCHED_OTHER, &sp) || setpriority(PRIO_PROCESS, 0, 0) ||
		    (unpriv && setrlimit(RLIMIT_NICE, &rl)))
			r = -errno;
		if (!r && unpriv)
			r = drop_to_nobody();
		*ready = r ? r : 1;
		if (r)
			_exit(1);
		die_with_parent(main_pid);
		for (;;)
			x++;
	}
	if (pid > 0)
		pin_to(pid, cpu);
	return pid;
}

/*
 * One change of S by F: @away 1 makes it (BATCH, nice 1, group B,
 * SCHED_EXT), 0 undoes it. 0 or -errno.
 */
static int flip(enum kind k, int away, const int *fd)
{
	struct sched_param sp = { 0 };
	struct vds_sched_attr attr;
	char v[16];
	int n, r = 0;

	switch (k) {
	case K_NONE:
		break;
	case K_BATCH:
		r = sched_setscheduler(s_pid, away ? SCHED_BATCH : SCHED_OTHER, &sp);
		break;
	case K_NICE:
		r = setpriority(PRIO_PROCESS, s_pid, away ? 1 : 0);
		break;
	case K_ATTR:
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.sched_policy = SCHED_OTHER;
		attr.sched_nice = 0;
		r = (int)syscall(SYS_sched_setattr, s_pid, &attr, 0);
		break;
	case K_CGROUP:
		n = snprintf(v, sizeof(v), "%d", s_pid);
		r = pwrite(fd[away], v, n, 0) == n ? 0 : -1;
		break;
	case K_EXT:
		r = sched_setscheduler(s_pid, away ? SCHED_EXT : SCHED_OTHER, &sp);
		break;
	}
	return r ? -errno : 0;
}

/*
 * F: on CPU 0, unprivileged (but root for the cgroup moves), changes S
 * every 1 ms until told to stop, then leaves S as it was.
 */
static pid_t spawn_flipper(enum kind k)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd[2] = { -1, -1 }, away = 1, r = 0;

		pin_to(0, 0);
		if (k == K_CGROUP) {
			fd[0] = open(CG "/" GRP_A "/cgroup.procs", O_WRONLY);
			fd[1] = open(CG "/" GRP_B "/cgroup.procs", O_WRONLY);
			if (fd[0] < 0 || fd[1] < 0)
				r = -errno;
		} else {
			r = drop_to_nobody();
		}
		ctl->f_ready = r ? r : 1;
		if (r)
			_exit(1);
		die_with_parent(main_pid);
		while (!ctl->stop) {
			r = flip(k, away, fd);
			if (r) {
				ctl->fail++;
				ctl->last_err = -r;
			} else {
				ctl->ok++;
			}
			away = !away;
			usleep(1000);
		}
		/* The last change made it: undo it (S on sched_ext must die). */
		if (!away)
			flip(k, 0, fd);
		_exit(0);
	}
	return pid;
}

/* Until *@flag is set (or 10 s): its value. */
static int wait_flag(volatile int *flag)
{
	uint64_t end = now_ns() + 10000000000ull;

	while (!*flag && now_ns() < end)
		usleep(1000);
	return *flag;
}

/* Stop F and reap it (killed if it does not stop within 5 s). */
static void stop_flipper(void)
{
	uint64_t end = now_ns() + 5000000000ull;

	ctl->stop = 1;
	while (f_pid > 0 && now_ns() < end) {
		if (waitpid(f_pid, NULL, WNOHANG) == f_pid) {
			f_pid = 0;
			return;
		}
		usleep(1000);
	}
	if (f_pid > 0) {
		diag("the flipper did not stop in 5 s, killing it");
		kill_wait(f_pid);
		f_pid = 0;
	}
}

/*
 * One measurement of case @k: 1 if S got at most its share and F's
 * changes mostly succeeded; @msg says what was measured.
 */
static int run_once(enum kind k, char *msg, size_t len)
{
	struct schedstat s0 = { 0 }, s1 = { 0 }, h0 = { 0 }, h1 = { 0 };
	uint64_t s, h;
	long ok0, fail0, ok, fail;
	double share;
	int r, pass, lost = 0;
	char st[64];

	memset(ctl, 0, sizeof(*ctl));
	s_pid = spawn_task(&ctl->s_ready, 1);
	h_pid = spawn_task(&ctl->h_ready, 0);
	if (s_pid < 0 || h_pid < 0) {
		snprintf(msg, len, "fork: %s", strerror(errno));
		kill_tasks();
		return 0;
	}
	r = wait_flag(&ctl->s_ready);
	if (r != 1) {
		snprintf(msg, len, "S did not become uid %d with RLIMIT_NICE 20 (%s)",
			 NOBODY, r ? strerror(-r) : "timed out");
		kill_tasks();
		return 0;
	}
	r = wait_flag(&ctl->h_ready);
	if (r != 1) {
		snprintf(msg, len, "H not set up (%s)", r ? strerror(-r) : "timed out");
		kill_tasks();
		return 0;
	}
	if (k == K_CGROUP) {
		/* H in the root group, S starts in group A. */
		char v[16];

		snprintf(v, sizeof(v), "%d", h_pid);
		r = write_file(CG "/cgroup.procs", v);
		if (!r) {
			snprintf(v, sizeof(v), "%d", s_pid);
			r = write_file(CG "/" GRP_A "/cgroup.procs", v);
		}
		if (r) {
			snprintf(msg, len, "H to the root group, S to " GRP_A ": %s",
				 strerror(-r));
			kill_tasks();
			return 0;
		}
	}
	if (k != K_NONE) {
		f_pid = spawn_flipper(k);
		r = f_pid < 0 ? -errno : wait_flag(&ctl->f_ready);
		if (r != 1) {
			snprintf(msg, len, "the flipper was not set up (%s)",
				 r ? strerror(-r) : "timed out");
			kill_tasks();
			return 0;
		}
	}
	sleep_ms(SETTLE_MS);
	ok0 = ctl->ok;
	fail0 = ctl->fail;
	r = read_schedstat(s_pid, &s0) | read_schedstat(h_pid, &h0);
	sleep_ms(WINDOW_MS);
	r |= read_schedstat(s_pid, &s1) | read_schedstat(h_pid, &h1);
	ok = ctl->ok - ok0;
	fail = ctl->fail - fail0;
	if (k == K_EXT) {
		scx_read("state", st, sizeof(st));
		lost = strcmp(st, "enabled") != 0;
	}
	if (f_pid > 0)
		stop_flipper();
	kill_tasks();

	s = r ? 0 : s1.run_ns - s0.run_ns;
	h = r ? 0 : h1.run_ns - h0.run_ns;
	share = s + h ? (double)s / (s + h) : 0;
	pass = !r && s + h > 0 && share <= MAX_SHARE &&
	       (k == K_NONE || ok > fail) && !lost &&
	       ((k != K_NONE && k != K_NICE) || share >= MIN_SHARE);
	snprintf(msg, len,
		 "S %.1f%%, H %.1f%% (S <= %.1f%%%s; S %.0f ms in %llu slices, H %.0f ms in %llu)",
		 100 * share, s + h ? 100.0 * h / (s + h) : 0.0, 100 * MAX_SHARE,
		 k == K_NONE || k == K_NICE ? ", >= 37.5%" : "",
		 s / 1e6, (unsigned long long)(s1.slices - s0.slices), h / 1e6,
		 (unsigned long long)(h1.slices - h0.slices));
	if (k == K_NONE)
		snprintf(msg + strlen(msg), len - strlen(msg), ", no flipper");
	else
		snprintf(msg + strlen(msg), len - strlen(msg), ", %.0f flips/s, %ld failed%s%s%s",
			 ok * 1000.0 / WINDOW_MS, fail, fail ? " (last: " : "",
			 fail ? strerror(ctl->last_err) : "", fail ? ")" : "");
	if (r)
		snprintf(msg + strlen(msg), len - strlen(msg), "; schedstat unreadable");
	if (k != K_NONE && ok <= fail)
		snprintf(msg + strlen(msg), len - strlen(msg),
			 "; %s, nothing measured", fail ? "most flips failed" : "no flips made");
	if (lost) {
		snprintf(msg + strlen(msg), len - strlen(msg),
			 "; scx_qmap no longer loaded (state %s)", st);
		show_qmap_log();
	}
	return pass;
}

/* A case, measured once more if it fails: one TAP point. */
static void run_case(enum kind k)
{
	char msg[400], first[400] = "";
	int attempt, ok = 0;

	for (attempt = 0; attempt < 2 && !ok; attempt++) {
		ok = run_once(k, msg, sizeof(msg));
		if (!ok && !attempt) {
			snprintf(first, sizeof(first), "%s", msg);
			diag("%s, first attempt: %s; measuring once more", kind_name[k], msg);
		}
	}
	tap_ok(ok, "%s: %s%s%s", kind_name[k], msg, ok && *first ? "; first attempt " : "",
	       ok ? first : "");
}

static int make_group(const char *path)
{
	char f[128];

	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	made_grp = 1;
	snprintf(f, sizeof(f), "%s/cpu.weight", path);
	return write_file(f, "100");
}

static void cgroup_case(void)
{
	int r;

	if (access(CG "/cgroup.subtree_control", W_OK)) {
		tap_skip("%s: no cgroup v2 at " CG, kind_name[K_CGROUP]);
		return;
	}
	if (!cg_root_has_cpu()) {
		r = write_file(CG "/cgroup.subtree_control", "+cpu");
		if (r) {
			tap_skip("%s: the cgroup v2 cpu controller cannot be enabled (%s)",
				 kind_name[K_CGROUP], strerror(-r));
			return;
		}
		cpu_enabled = 1;
	}
	r = make_group(CG "/" GRP_A);
	if (!r)
		r = make_group(CG "/" GRP_B);
	if (r)
		tap_ok(0, "%s: " GRP_A " and " GRP_B " of cpu.weight 100 not made (%s)",
		       kind_name[K_CGROUP], strerror(-r));
	else
		run_case(K_CGROUP);
	remove_groups();
}

static pid_t start_qmap(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(QMAP_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(QMAP, "scx_qmap", "-p", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void ext_case(void)
{
	char st[64], ops[64], all[64];
	uint64_t t0;
	int ok;

	if (access(SCX "/state", R_OK)) {
		tap_skip("%s: no sched_ext in this kernel (" SCX "; make check EXT=1)",
			 kind_name[K_EXT]);
		return;
	}
	if (access(QMAP, X_OK)) {
		tap_skip("%s: no " QMAP " (the tree's tools/sched_ext, make check EXT=1)",
			 kind_name[K_EXT]);
		return;
	}
	if (!scx_wait_state("disabled", 5000)) {
		scx_read("state", st, sizeof(st));
		tap_ok(0, "%s: a BPF scheduler is already loaded (state %s)", kind_name[K_EXT], st);
		return;
	}
	t0 = now_ns();
	scx_pid = start_qmap();
	if (scx_pid < 0) {
		scx_pid = 0;
		tap_ok(0, "%s: fork: %s", kind_name[K_EXT], strerror(errno));
		return;
	}
	ok = scx_wait_state("enabled", LOAD_WAIT_MS);
	scx_read("root/ops", ops, sizeof(ops));
	scx_read("switch_all", all, sizeof(all));
	diag("scx_qmap -p: %s after %llu ms (ops %s, switch_all %s)",
	     ok ? "enabled" : "not enabled", (unsigned long long)((now_ns() - t0) / 1000000),
	     ops, all);
	if (!ok || strcmp(all, "0")) {
		show_qmap_log();
		tap_ok(0, "%s: scx_qmap -p did not load in partial mode within %d s (ops %s, switch_all %s)",
		       kind_name[K_EXT], LOAD_WAIT_MS / 1000, ops, all);
	} else {
		run_case(K_EXT);
	}
	ok = stop_scx(20000) && scx_wait_state("disabled", 20000);
	if (!ok) {
		scx_read("state", st, sizeof(st));
		diag("scx_qmap did not unload cleanly (state %s)", st);
		show_qmap_log();
	}
}

int main(void)
{
	int n = ncpus_online();

	if (n < 2)
		tap_skip_all("needs 2 CPUs (the flipper on CPU 0, S and H on another)");
	main_pid = getpid();
	cpu = n - 1;
	ctl = shared_mem(sizeof(*ctl));
	if (!ctl)
		tap_skip_all("no shared memory");
	tap_plan(6);
	atexit(cleanup);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	diag("%s; S and H on CPU %d, the flipper on CPU 0; S and the flipper uid %d",
	     vds_active() ? "VDS" : "EEVDF (vds=off)", cpu, NOBODY);

	run_case(K_NONE);
	run_case(K_BATCH);
	run_case(K_NICE);
	run_case(K_ATTR);
	cgroup_case();
	ext_case();
	cleanup();
	return tap_done();
}
