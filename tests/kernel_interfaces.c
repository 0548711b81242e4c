// SPDX-License-Identifier: GPL-2.0
/*
 * What the rest of the kernel reads about scheduling keeps working:
 * exact run time (schedstat against getrusage), sched_info time slices and
 * wait time, /proc/stat, PSI (/proc/pressure/cpu) under load, and the
 * sched_switch, sched_wakeup and sched_migrate_task tracepoints.
 */
#include "vds_test.h"

static uint64_t psi_some_total(void)
{
	char buf[512], *p;

	if (read_file("/proc/pressure/cpu", buf, sizeof(buf)))
		return 0;
	p = strstr(buf, "total=");
	return p ? strtoull(p + 6, NULL, 10) : 0;
}

static uint64_t proc_stat_busy_ticks(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		v[0] = 0;
	fclose(f);
	return v[0] + v[1] + v[2];	/* user + nice + system */
}

static int count_in_trace(const char *buf, const char *ev)
{
	int n = 0;
	const char *p = buf;

	while ((p = strstr(p, ev))) {
		n++;
		p += strlen(ev);
	}
	return n;
}

int main(void)
{
	int m = ncpus_online(), i, cpu = m - 1;
	pid_t a, b, *hogs = calloc(2 * m, sizeof(*hogs));
	struct schedstat sa;
	struct rusage ru;
	uint64_t ticks0, ticks1, psi0, psi1, run, wall;
	double ru_ns;
	int st;

	tap_plan(7);
	if (!hogs) {
		for (i = 0; i < 7; i++)
			tap_ok(0, "%d hogs: out of memory", 2 * m);
		return tap_done();
	}

	/* Two hogs on one CPU for 1 s: exact run time, slices and waits. */
	a = spawn_hog(cpu, 0);
	b = spawn_hog(cpu, 0);
	sleep_ms(1000);
	kill(a, SIGSTOP);
	sleep_ms(50);
	read_schedstat(a, &sa);
	kill(a, SIGKILL);
	wait4(a, &st, 0, &ru);
	kill_wait(b);
	ru_ns = ru.ru_utime.tv_sec * 1e9 + ru.ru_utime.tv_usec * 1e3 +
		ru.ru_stime.tv_sec * 1e9 + ru.ru_stime.tv_usec * 1e3;
	diag("schedstat: run %.3f s, wait %.3f s, %llu slices; rusage %.3f s",
	     sa.run_ns / 1e9, sa.wait_ns / 1e9, (unsigned long long)sa.slices, ru_ns / 1e9);
	tap_ok(sa.run_ns > 0 && ru_ns > 0 && sa.run_ns / ru_ns > 0.95 && sa.run_ns / ru_ns < 1.05,
	       "schedstat run time matches getrusage (%.3f s vs %.3f s)", sa.run_ns / 1e9, ru_ns / 1e9);
	tap_ok(sa.slices >= 2 && sa.wait_ns > 100000000ull,
	       "sched_info counts slices (%llu) and wait time (%.3f s) of a contended task",
	       (unsigned long long)sa.slices, sa.wait_ns / 1e9);

	/* /proc/stat and PSI under 2M hogs for 1.5 s. */
	wall = now_ns();
	ticks0 = proc_stat_busy_ticks();
	psi0 = psi_some_total();
	for (i = 0; i < 2 * m; i++)
		hogs[i] = spawn_hog(-1, 0);
	sleep_ms(1500);
	for (i = 0; i < 2 * m; i++)
		kill_wait(hogs[i]);
	ticks1 = proc_stat_busy_ticks();
	wall = (now_ns() - wall) / 1000000;	/* ms */
	psi1 = psi_some_total();
	run = (ticks1 - ticks0) * 1000 / sysconf(_SC_CLK_TCK);	/* ms */
	/*
	 * /proc/stat samples ticks; under QEMU/TCG a vCPU waiting for the host
	 * thread loses ticks, so only ask for a tenth of the busy time. It can
	 * never count more than the wall time on every CPU, plus one of its
	 * ticks per CPU at each end (time counted twice fails here).
	 */
	tap_ok(run > 150ull * m && run <= (wall + 2000 / sysconf(_SC_CLK_TCK)) * m,
	       "/proc/stat counts busy time (%llu ms of CPU in %llu ms on %d CPUs)",
	       (unsigned long long)run, (unsigned long long)wall, m);
	tap_ok(psi1 - psi0 > 100000, "PSI cpu 'some' moved under load (+%.1f ms)", (psi1 - psi0) / 1e3);

	/* Tracepoints. */
	{
		static char buf[1 << 20];
		const char *t = "/sys/kernel/tracing";
		char path[128];
		int fd, n = 0;
		ssize_t r;

		snprintf(path, sizeof(path), "%s/trace", t);
		write_file(path, "");
		snprintf(path, sizeof(path), "%s/buffer_size_kb", t);
		write_file(path, "1024");
		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/enable", t);
		write_file(path, "1");
		snprintf(path, sizeof(path), "%s/events/sched/sched_wakeup/enable", t);
		write_file(path, "1");
		snprintf(path, sizeof(path), "%s/events/sched/sched_migrate_task/enable", t);
		write_file(path, "1");
		snprintf(path, sizeof(path), "%s/tracing_on", t);
		write_file(path, "1");
		/* Sleepers and hogs, moved between CPUs. */
		for (i = 0; i < m; i++)
			hogs[i] = spawn_hog(-1, 0);
		for (i = 0; i < 50; i++) {
			pin_to(0, i % m);
			usleep(1000);
		}
		for (i = 0; i < m; i++)
			kill_wait(hogs[i]);
		write_file(path, "0");
		snprintf(path, sizeof(path), "%s/trace", t);
		fd = open(path, O_RDONLY);
		while (fd >= 0 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
			n += r;
		if (fd >= 0)
			close(fd);
		buf[n] = 0;
		snprintf(path, sizeof(path), "%s/events/sched/enable", t);
		write_file(path, "0");
		tap_ok(count_in_trace(buf, "sched_switch:") > 10, "sched_switch fires (%d)",
		       count_in_trace(buf, "sched_switch:"));
		tap_ok(count_in_trace(buf, "sched_wakeup:") > 10, "sched_wakeup fires (%d)",
		       count_in_trace(buf, "sched_wakeup:"));
		tap_ok(count_in_trace(buf, "sched_migrate_task:") > 0, "sched_migrate_task fires (%d)",
		       count_in_trace(buf, "sched_migrate_task:"));
	}
	return tap_done();
}
