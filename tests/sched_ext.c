// SPDX-License-Identifier: GPL-2.0
/*
 * sched_ext next to VDS: load a real BPF scheduler (the kernel tree's own
 * tools/sched_ext/scx_simple) while normal tasks run, and unload it again.
 *
 * - Before: CPU hogs and a periodic sleeper run on VDS (ext.enabled 0 in
 *   /proc/<pid>/sched; VDS counts them in sched/vds/state). On a vds=off
 *   boot they run on EEVDF (their se.vruntime advances).
 * - scx_simple loaded (state "enabled", ops "simple", switch_all 1): every
 *   task has ext.enabled 1, VDS holds no task at all (EEVDF: vruntime frozen),
 *   and every task keeps running under the BPF scheduler. A task forked
 *   meanwhile starts on sched_ext.
 * - scx_simple stopped (SIGINT, state "disabled"): every task, the one forked
 *   under sched_ext too, is back on VDS (EEVDF) and runs; scx_simple exited
 *   because user space asked, not because the kernel's watchdog kicked it.
 * - Three load/unload cycles (enable_seq counts them), to catch leaks/hangs.
 * - Partial switch (scx_qmap -p): only a SCHED_EXT task goes to sched_ext,
 *   the rest stay on VDS.
 * - No BPF scheduler: sched_setscheduler(SCHED_EXT) succeeds and the task
 *   runs (as in mainline, on the fair class).
 */
#include "vds_test.h"
#include <dirent.h>

#ifndef SCHED_EXT
#define SCHED_EXT 7
#endif

#define SCX "/sys/kernel/sched_ext"
#define CYCLES 3
#define WINDOW_MS 1500

static int nhogs, vds_boot;
static pid_t *hogs;
static pid_t sleeper;
static volatile uint64_t *sleeper_loops;

static int ext_enabled(pid_t pid)
{
	return (int)proc_field(pid, "sched", "ext.enabled");
}

/* VDS tasks on all CPUs, from /sys/kernel/debug/sched/vds/state. */
static long vds_tasks(void)
{
	char buf[16384], *p;
	long n = 0;

	if (read_file("/sys/kernel/debug/sched/vds/state", buf, sizeof(buf)))
		return -1;
	for (p = strstr(buf, " nr_running "); p; p = strstr(p + 1, " nr_running "))
		n += strtol(p + 12, NULL, 10);
	return n;
}

/*
 * A watchdog at SCHED_FIFO: if a load or unload leaves normal tasks without
 * CPU (this test among them), it still runs. It reports what it sees (the
 * test's own TAP output cannot), asks the kernel for the blocked tasks and
 * every CPU's state (sysrq w, l and the scheduler's debug file into the
 * console log) and powers the guest off so that the boot ends at once.
 */
struct watch {
	volatile uint64_t deadline;	/* 0: disarmed */
	char what[96];
};
static struct watch *watch;
static pid_t watch_pid;

/*
 * The fields of /proc/<pid>/stat after the command name (state first), or
 * NULL: the name may hold spaces and parentheses, so look for the last ')'.
 */
static const char *proc_stat_fields(pid_t pid, char *buf, size_t len)
{
	char path[64], *c;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, len))
		return NULL;
	c = strrchr(buf, ')');
	return c && c[1] == ' ' ? c + 2 : NULL;
}

static void watch_dump_task(pid_t pid)
{
	char path[64], buf[2048], *l;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)))
		return;
	diag("watchdog: %.120s", buf);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (read_file(path, buf, sizeof(buf)))
		return;
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		diag("watchdog:   %s", l);
}

static void watch_fire(void)
{
	char buf[65536];
	struct dirent *d;
	DIR *dir;

	diag("watchdog: %s did not finish in time; the tasks not running:", watch->what);
	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		char st[512];
		pid_t pid = atoi(d->d_name);
		const char *f;

		if (pid <= 0)
			continue;
		f = proc_stat_fields(pid, st, sizeof(st));
		/* Runnable (R) or blocked (D) and not us. */
		if (f && (f[0] == 'R' || f[0] == 'D') && pid != getpid())
			watch_dump_task(pid);
	}
	if (dir)
		closedir(dir);
	if (!read_file("/sys/kernel/debug/sched/vds/state", buf, sizeof(buf)))
		diag("watchdog: vds/state: %.2000s", buf);
	write_file("/proc/sysrq-trigger", "w");
	write_file("/proc/sysrq-trigger", "l");
	tap_ok(0, "%s completes (the watchdog powers the guest off)", watch->what);
	fflush(stdout);
	sleep_ms(2000);
	write_file("/proc/sysrq-trigger", "o");
}

static void watch_start(void)
{
	struct sched_param sp = { .sched_priority = 50 };

	watch = shared_mem(sizeof(*watch));
	watch_pid = fork();
	if (watch_pid == 0) {
		sched_setscheduler(0, SCHED_FIFO, &sp);
		for (;;) {
			uint64_t dl = watch->deadline;

			if (getppid() == 1)
				_exit(0);
			if (dl && now_ns() > dl) {
				watch_fire();
				_exit(1);
			}
			sleep_ms(100);
		}
	}
}

static void watch_arm(int secs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(watch->what, sizeof(watch->what), fmt, ap);
	va_end(ap);
	watch->deadline = now_ns() + secs * 1000000000ull;
}

static void watch_disarm(void)
{
	watch->deadline = 0;
}

/* Start a scheduler from tools/sched_ext, its output in /tmp/<name>.log. */
static pid_t start_scx(const char *name, const char *arg)
{
	char path[64], log[64];
	pid_t pid;

	snprintf(path, sizeof(path), "/usr/bin/%s", name);
	snprintf(log, sizeof(log), "/tmp/%s.log", name);
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(path, name, arg, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* CPU time (user + system) a process used so far, in ms. */
static long proc_cpu_ms(pid_t pid)
{
	char buf[1024];
	const char *f = proc_stat_fields(pid, buf, sizeof(buf));
	unsigned long ut, st;

	if (!f || sscanf(f, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / sysconf(_SC_CLK_TCK));
}

/* SIGINT, then wait up to 20 s: 1 if it exited with status 0. */
static int stop_scx(pid_t pid)
{
	uint64_t end = now_ns() + 20000000000ull;
	int st;

	kill(pid, SIGINT);
	while (now_ns() < end) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0;
		sleep_ms(50);
	}
	diag("scx pid %d ignored SIGINT for 20 s, killing it", pid);
	kill_wait(pid);
	return 0;
}

static int log_has(const char *name, const char *what)
{
	char path[64], buf[16384];

	snprintf(path, sizeof(path), "/tmp/%s.log", name);
	if (read_file(path, buf, sizeof(buf)))
		return 0;
	return strstr(buf, what) != NULL;
}

static void show_log(const char *name)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/tmp/%s.log", name);
	if (read_file(path, buf, sizeof(buf)))
		return;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (!strstr(l, "local=") && !strstr(l, "enq="))
			diag("%s: %s", name, l);
}

static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;) {
			uint64_t end;

			sleep_ms(5);
			end = thread_cpu_ns() + 200000;
			while (thread_cpu_ns() < end)
				;
			(*sleeper_loops)++;
		}
	}
	return pid;
}

/* How many of the n tasks have ext.enabled == want. */
static int count_ext(const pid_t *p, int n, int want)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += ext_enabled(p[i]) == want;
	return c;
}

/*
 * Every hog gets at least a tenth of an even share of the CPUs over the
 * window (a starved task gets nothing), and the sleeper keeps waking up.
 */
static int all_progress(const pid_t *p, int n, const char *when)
{
	uint64_t *r0 = calloc(n, sizeof(*r0)), d, min = UINT64_MAX, fair, l0;

	if (!r0)
		return tap_ok(0, "%s: out of memory", when);
	l0 = *sleeper_loops;
	for (int i = 0; i < n; i++)
		r0[i] = schedstat_run(p[i]);
	sleep_ms(WINDOW_MS);
	for (int i = 0; i < n; i++) {
		d = schedstat_run(p[i]) - r0[i];
		if (d < min)
			min = d;
		if (n <= 4)
			diag("%s: hog %d (pid %d, ext.enabled %d) ran %llu ms", when, i, p[i],
			     ext_enabled(p[i]), (unsigned long long)(d / 1000000));
	}
	free(r0);
	l0 = *sleeper_loops - l0;
	fair = (uint64_t)WINDOW_MS * 1000000ull * ncpus_online() / (n > ncpus_online() ? n : ncpus_online());
	return tap_ok(min >= fair / 10 && l0 > 0,
		      "%s: each of %d hogs runs (least %llu ms >= %llu ms), the sleeper wakes (%llu times)",
		      when, n, (unsigned long long)(min / 1000000),
		      (unsigned long long)(fair / 10 / 1000000), (unsigned long long)l0);
}

/*
 * A SCHED_EXT task pinned to one CPU, where a normal hog that may also use
 * a second, idle CPU already runs: the hog must make room. sched_ext ranks
 * below VDS (below fair in mainline), so without that the SCHED_EXT task
 * waits as long as the hog runs, with a CPU idle. EEVDF gets there by
 * active load balancing, VDS by handing the CPU over at a tick.
 */
static void pinned_ext(pid_t ext, pid_t hog)
{
	int n = ncpus_online(), c1 = n - 1, c2 = n - 2;
	unsigned long me = affinity_bits(ext), mh = affinity_bits(hog);
	uint64_t e0, h0, e, h, want = (uint64_t)WINDOW_MS * 1000000ull / 4;

	if (n < 4) {
		tap_skip("partial, pinned: needs 4 CPUs");
		return;
	}
	set_affinity_bits(hog, 1ul << c1);
	sleep_ms(100);
	set_affinity_bits(ext, 1ul << c1);
	sleep_ms(100);
	/* The hog stays where it runs: its CPU is still in its mask. */
	set_affinity_bits(hog, (1ul << c1) | (1ul << c2));
	e0 = schedstat_run(ext);
	h0 = schedstat_run(hog);
	sleep_ms(WINDOW_MS);
	e = schedstat_run(ext) - e0;
	h = schedstat_run(hog) - h0;
	tap_ok(e >= want && h >= want,
	       "partial, pinned: a SCHED_EXT task on CPU %d runs %llu ms in %d ms next to a normal hog allowed on CPUs %d and %d (%llu ms; both >= %llu ms)",
	       c1, (unsigned long long)(e / 1000000), WINDOW_MS, c1, c2,
	       (unsigned long long)(h / 1000000), (unsigned long long)(want / 1000000));
	set_affinity_bits(ext, me);
	set_affinity_bits(hog, mh);
}

/*
 * Are the tasks on the normal class of this boot? VDS: VDS counts at
 * least the runnable ones. EEVDF: every task's se.vruntime advances.
 * want 0: none is (VDS holds no task; no vruntime moves).
 */
static int on_normal_class(const pid_t *p, int n, int want, const char *when)
{
	if (vds_boot) {
		long v = -1;
		int i, ok = 0;

		/* a few reads: a task may be between classes for an instant */
		for (i = 0; i < 20 && !ok; i++) {
			v = vds_tasks();
			ok = want ? v >= n : v == 0;
			if (!ok)
				sleep_ms(50);
		}
		return tap_ok(ok, "%s: VDS holds %ld tasks (%s %d)", when, v,
			      want ? "at least" : "expected", want ? n : 0);
	} else {
		double *v0 = calloc(n, sizeof(*v0));
		int i, moved = 0;

		if (!v0)
			return tap_ok(0, "%s: out of memory", when);
		for (i = 0; i < n; i++)
			v0[i] = proc_field(p[i], "sched", "se.vruntime");
		sleep_ms(300);
		for (i = 0; i < n; i++)
			moved += proc_field(p[i], "sched", "se.vruntime") != v0[i];
		free(v0);
		return tap_ok(want ? moved == n : moved == 0,
			      "%s: se.vruntime advanced for %d of %d tasks (EEVDF %s them)",
			      when, moved, n, want ? "runs" : "does not run");
	}
}

static int set_policy(pid_t pid, int policy)
{
	struct sched_param sp = { 0 };

	return sched_setscheduler(pid, policy, &sp);
}

static pid_t *hl;	/* the hogs, and the task forked under scx_simple */
static int nhl;

/* How many of the hogs and the sleeper have ext.enabled == want. */
static int count_all(int want)
{
	return count_ext(hl, nhl, want) + (ext_enabled(sleeper) == want);
}

int main(void)
{
	pid_t late = -1, scx, extra = -1;
	char buf[64], buf2[64];
	long seq0, seq;
	int i, c;

	if (access(SCX "/state", R_OK))
		tap_skip_all("the kernel has no sched_ext (" SCX "; make check EXT=1)");
	tap_plan(5 + CYCLES * 10 + 1 + 9 + 3 + 1);
	if (access("/usr/bin/scx_simple", X_OK) || access("/usr/bin/scx_qmap", X_OK)) {
		tap_ok(0, "the initramfs has scx_simple and scx_qmap (a kernel with sched_ext)");
		return tap_done();
	}
	tap_ok(1, "the initramfs has scx_simple and scx_qmap");
	/* One hog more than there are CPUs, and the task forked under scx_simple. */
	nhogs = ncpus_online() + 1;
	hogs = calloc(nhogs, sizeof(*hogs));
	hl = calloc(nhogs + 1, sizeof(*hl));
	if (!hogs || !hl) {
		tap_ok(0, "%d hogs: out of memory", nhogs);
		return tap_done();
	}
	watch_start();
	vds_boot = vds_active();
	diag("normal tasks run on %s", vds_boot ? "VDS" : "EEVDF (vds=off)");
	scx_read("state", buf, sizeof(buf));
	tap_ok(!strcmp(buf, "disabled"), "no BPF scheduler at the start (state %s)", buf);
	seq0 = read_long(SCX "/enable_seq", -1);

	sleeper_loops = shared_mem(4096);
	for (i = 0; i < nhogs; i++)
		hogs[i] = hl[i] = spawn_hog(-1, 0);
	nhl = nhogs;
	sleeper = spawn_sleeper();
	sleep_ms(500);

	c = count_all(0);
	tap_ok(c == nhl + 1, "before: %d of %d tasks have ext.enabled 0", c, nhl + 1);
	on_normal_class(hl, nhl, 1, "before");
	all_progress(hl, nhl, "before");

	for (int cy = 1; cy <= CYCLES; cy++) {
		char when[64];
		uint64_t t0;
		int ok;

		watch_arm(120, "cycle %d: loading scx_simple", cy);
		t0 = now_ns();
		scx = start_scx("scx_simple", NULL);
		ok = scx_wait_state("enabled", 90000);
		watch_disarm();
		diag("cycle %d: scx_simple %s after %llu ms, %ld ms of CPU its own", cy,
		     ok ? "enabled" : "not enabled", (unsigned long long)((now_ns() - t0) / 1000000),
		     proc_cpu_ms(scx));
		scx_read("root/ops", buf, sizeof(buf));
		scx_read("switch_all", buf2, sizeof(buf2));
		tap_ok(ok && !strcmp(buf, "simple") && !strcmp(buf2, "1"),
		       "cycle %d: scx_simple loads (state %s, ops %s, switch_all %s)",
		       cy, ok ? "enabled" : "not enabled", buf, buf2);
		if (!ok) {
			show_log("scx_simple");
			kill_wait(scx);
			break;
		}
		snprintf(when, sizeof(when), "cycle %d, scx_simple", cy);
		c = count_all(1);
		tap_ok(c == nhl + 1, "%s: %d of %d tasks have ext.enabled 1", when, c, nhl + 1);
		on_normal_class(hl, nhl, 0, when);
		all_progress(hl, nhl, when);
		if (cy == 1) {
			late = hl[nhl++] = spawn_hog(-1, 0);
			sleep_ms(200);
			tap_ok(ext_enabled(late) == 1,
			       "a task forked under scx_simple starts on sched_ext (ext.enabled %d)",
			       ext_enabled(late));
		} else {
			tap_ok(ext_enabled(late) == 1, "%s: the late task is on sched_ext", when);
		}

		watch_arm(60, "cycle %d: unloading scx_simple", cy);
		t0 = now_ns();
		ok = stop_scx(scx);
		tap_ok(ok, "cycle %d: scx_simple exits 0 on SIGINT", cy);
		ok = scx_wait_state("disabled", 20000);
		watch_disarm();
		diag("cycle %d: unloaded in %llu ms", cy, (unsigned long long)((now_ns() - t0) / 1000000));
		scx_read("state", buf, sizeof(buf));
		tap_ok(ok && log_has("scx_simple", "unregistered from user space"),
		       "cycle %d: unloaded (state %s), because user space asked", cy, buf);
		if (!log_has("scx_simple", "unregistered from user space"))
			show_log("scx_simple");
		snprintf(when, sizeof(when), "cycle %d, after", cy);
		c = count_all(0);
		tap_ok(c == nhl + 1, "%s: %d of %d tasks are back (ext.enabled 0), the late one too (%d)",
		       when, c, nhl + 1, ext_enabled(late));
		on_normal_class(hl, nhl, 1, when);
		all_progress(hl, nhl, when);
	}
	seq = read_long(SCX "/enable_seq", -1);
	tap_ok(seq - seq0 == CYCLES, "enable_seq counted %ld loads (expected %d)", seq - seq0, CYCLES);

	/*
	 * Partial switch: scx_qmap -p takes only SCHED_EXT tasks. Leave CPUs
	 * for the sched_ext task: the ext class ranks below VDS and fair, so
	 * with every CPU busy it would starve (in mainline too) and qmap's
	 * 5 s watchdog would kick the scheduler. Hogs 0..k-1 keep running,
	 * hog k-1 becomes SCHED_EXT.
	 */
	{
		int k = ncpus_online() - 2 < 1 ? 1 : ncpus_online() - 2;
		pid_t ext_hog = hogs[k - 1];
		int ok, others;

		for (i = k; i < nhl; i++)
			kill(hl[i], SIGSTOP);
		watch_arm(120, "partial: loading scx_qmap -p");
		scx = start_scx("scx_qmap", "-p");
		ok = scx_wait_state("enabled", 90000);
		watch_disarm();
		scx_read("root/ops", buf, sizeof(buf));
		scx_read("switch_all", buf2, sizeof(buf2));
		tap_ok(ok && !strcmp(buf, "qmap") && !strcmp(buf2, "0"),
		       "scx_qmap -p loads (state %s, ops %s, switch_all %s)",
		       ok ? "enabled" : "not enabled", buf, buf2);
		if (!ok)
			show_log("scx_qmap");
		c = count_all(1);
		tap_ok(ok && c == 0, "partial: no SCHED_NORMAL task moved to sched_ext (%d did)", c);
		tap_ok(set_policy(ext_hog, SCHED_EXT) == 0 && sched_getscheduler(ext_hog) == SCHED_EXT,
		       "partial: sched_setscheduler(SCHED_EXT) succeeds");
		sleep_ms(200);
		others = count_ext(hogs, k - 1, 0) + (ext_enabled(sleeper) == 0);
		tap_ok(ext_enabled(ext_hog) == 1 && others == k,
		       "partial: the SCHED_EXT task is on sched_ext (%d), %d of %d others are not",
		       ext_enabled(ext_hog), others, k);
		if (vds_boot) {
			long v = vds_tasks();

			tap_ok(v >= k - 1, "partial: VDS still holds the other hogs (%ld >= %d)", v, k - 1);
		} else {
			on_normal_class(hogs, k - 1, 1, "partial");
		}
		all_progress(hogs, k, "partial, scx_qmap -p");
		pinned_ext(ext_hog, hogs[0]);
		watch_arm(60, "partial: unloading scx_qmap");
		ok = stop_scx(scx) && scx_wait_state("disabled", 20000);
		watch_disarm();
		tap_ok(ok && log_has("scx_qmap", "unregistered from user space"),
		       "partial: scx_qmap unloads because user space asked");
		if (!log_has("scx_qmap", "unregistered from user space"))
			show_log("scx_qmap");
		tap_ok(ext_enabled(ext_hog) == 0 && sched_getscheduler(ext_hog) == SCHED_EXT,
		       "partial: the SCHED_EXT task left sched_ext and keeps its policy (ext.enabled %d)",
		       ext_enabled(ext_hog));
		for (i = k; i < nhl; i++)
			kill(hl[i], SIGCONT);

		/*
		 * No BPF scheduler: a SCHED_EXT task runs on the fair class, as
		 * in mainline. A fresh one, with all the VDS hogs running.
		 */
		{
			pid_t t = spawn_hog(-1, 0);
			uint64_t r0, r1, h0, h1;

			sleep_ms(100);
			tap_ok(set_policy(t, SCHED_EXT) == 0 && sched_getscheduler(t) == SCHED_EXT,
			       "no BPF scheduler: sched_setscheduler(SCHED_EXT) succeeds");
			r0 = schedstat_run(t);
			h0 = schedstat_run(hogs[0]);
			sleep_ms(3000);
			r1 = schedstat_run(t) - r0;
			h1 = schedstat_run(hogs[0]) - h0;
			diag("no BPF scheduler: in 3 s the SCHED_EXT task ran %llu ms, a SCHED_NORMAL hog %llu ms; "
			     "VDS holds %ld tasks", (unsigned long long)(r1 / 1000000),
			     (unsigned long long)(h1 / 1000000), vds_tasks());
			tap_ok(ext_enabled(t) == 0 && r1 > 0,
			       "no BPF scheduler: the SCHED_EXT task is not on sched_ext and runs (%llu ms)",
			       (unsigned long long)(r1 / 1000000));
			r0 = schedstat_run(ext_hog);
			sleep_ms(1000);
			tap_ok(schedstat_run(ext_hog) > r0,
			       "no BPF scheduler: the partial phase's SCHED_EXT task runs");
			extra = t;
		}
	}
	c = count_all(0);
	tap_ok(c == nhl + 1, "at the end %d of %d tasks have ext.enabled 0", c, nhl + 1);

	/*
	 * Kill everything before waiting for anything: a task starved below
	 * the hogs (a SCHED_EXT task on the fair class) cannot die while they
	 * run.
	 */
	for (i = 0; i < nhl; i++)
		kill(hl[i], SIGKILL);
	kill(sleeper, SIGKILL);
	kill(watch_pid, SIGKILL);
	if (extra > 0)
		kill(extra, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	return tap_done();
}
