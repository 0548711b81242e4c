// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict canary: make the kernel itself report a problem, so that the
 * harness can prove a bad guest log fails the run (check.sh boots it on its
 * own, DEBUG=1 only, and expects the verdict to FAIL that boot's log).
 *
 * No kernel change is needed. With RT throttling off and CPU 1's fair
 * server set to 0, a SCHED_FIFO hog pinned to CPU 1 starves that CPU's
 * kworker; a write to /proc/sys/vm/stat_refresh (schedule_on_each_cpu(),
 * then flush_work() in TASK_UNINTERRUPTIBLE) blocks in D state until the hog
 * stops, and khungtaskd (timeout lowered to 2 s) prints its real
 * "INFO: task ... blocked for more than 2 seconds." report with a trace.
 *
 * It also checks that userspace cannot fake such a line: guest-init turns
 * /dev/kmsg writes off (kernel.printk_devkmsg=off), so the verdict only ever
 * judges what the kernel printed.
 */
#include "vds_test.h"

static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)))
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

int main(void)
{
	const char *fs = "/sys/kernel/debug/sched/fair_server/cpu1/runtime";
	const char *rt = "/proc/sys/kernel/sched_rt_runtime_us";
	const char *hung = "/proc/sys/kernel/hung_task_timeout_secs";
	char fs_old[32], rt_old[32], hung_old[32];
	struct sched_param sp = { .sched_priority = 20 };
	pid_t hog, writer;
	int i, dsecs = 0, st, r1, r2, r3;
	uint64_t t0;

	tap_plan(3);
	r1 = write_file("/dev/kmsg", "WARNING: CPU: 0 PID: 1 at a fake line from userspace\n");
	tap_ok(r1 < 0, "userspace cannot write to /dev/kmsg (printk_devkmsg=off): %d", r1);
	if (ncpus_online() < 2 || read_file(fs, fs_old, sizeof(fs_old)) ||
	    read_file(rt, rt_old, sizeof(rt_old)) || read_file(hung, hung_old, sizeof(hung_old))) {
		tap_ok(0, "needs 2 CPUs, the fair_server debugfs knob and the hung-task detector");
		tap_ok(0, "no hung task made");
		return tap_done();
	}
	pin_to(0, 0);
	r1 = write_file(rt, "-1");
	r2 = write_file(fs, "0");
	r3 = write_file(hung, "2");
	diag("settings: rt_runtime -1 (%d), fair_server cpu1 0 (%d), hung_task_timeout 2 (%d)",
	     r1, r2, r3);
	hog = fork();
	if (hog == 0) {
		pin_to(0, 1);
		sched_setscheduler(0, SCHED_FIFO, &sp);
		for (;;)
			;
	}
	sleep_ms(200);
	t0 = now_ns();
	writer = fork();
	if (writer == 0) {
		pin_to(0, 0);
		_exit(write_file("/proc/sys/vm/stat_refresh", "1") ? 1 : 0);
	}
	/* Blocked in D state while the hog runs: 8 s, 4 hung-task periods. */
	for (i = 0; i < 80; i++) {
		sleep_ms(100);
		if (state_of(writer) == 'D')
			dsecs++;
	}
	kill_wait(hog);
	waitpid(writer, &st, 0);
	write_file(fs, fs_old);
	write_file(rt, rt_old);
	write_file(hung, hung_old);
	tap_ok(dsecs >= 60, "the stat_refresh writer sat in D state %.1f s of 8 behind the starved kworker",
	       dsecs / 10.0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "stat_refresh completed once the hog stopped (after %.1f s)", (now_ns() - t0) / 1e9);
	return tap_done();
}
