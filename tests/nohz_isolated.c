// SPDX-License-Identifier: GPL-2.0
/*
 * An isolated (nohz_full) CPU running one task keeps its tick stopped
 * while other CPUs have VDS tasks waiting that may not run on it. The tick
 * that VDS asks for, to end slices and look for earlier tasks elsewhere,
 * is for the CPUs a waiting task could move to: a scheduler that asks it
 * of every nohz_full CPU whenever any task waits anywhere interrupts the
 * isolated CPU's task a thousand times a second, which is what nohz_full
 * is there to prevent (RT and HPC users pin their work on such CPUs and
 * leave the rest to the housekeeping ones).
 *
 * The last CPU runs one hog; four hogs allowed on CPUs 0-1 keep two of
 * them waiting. Over 2 s the last CPU's local timer interrupts
 * (/proc/interrupts, LOC) must move by under a tenth of what they move
 * when two hogs share that CPU, measured in the same boot (its tick then
 * runs: the control, and the proof that the count sees ticks). On a boot
 * without nohz_full, where the tick runs anyway, the test asserts the
 * control only: that a CPU with a hog takes at least 100 ticks a second.
 * Measured once more before it fails.
 */
#include "vds_test.h"

/* CPU @cpu's column of the LOC line of /proc/interrupts. */
static long loc_count(int cpu)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "LOC:", 4))
			continue;
		p += 4;
		for (int c = 0; c <= cpu; c++) {
			v = strtol(p, &end, 10);
			if (end == p) {
				v = -1;
				break;
			}
			p = end;
		}
		break;
	}
	fclose(f);
	return v;
}

/* Local timer interrupts of @cpu per second, over @ms. */
static double loc_rate(int cpu, unsigned int ms)
{
	long a = loc_count(cpu), b;
	uint64_t t0 = now_ns();

	sleep_ms(ms);
	b = loc_count(cpu);
	return (double)(b - a) * 1e9 / (now_ns() - t0);
}

static int is_nohz_full(int cpu)
{
	char buf[256], *p = buf;

	if (read_file("/sys/devices/system/cpu/nohz_full", buf, sizeof(buf)))
		return 0;
	/* A list like "1-3" or "1,3": enough for the ranges make check uses. */
	while (*p && *p != '\n') {
		long lo = strtol(p, &p, 10), hi = lo;

		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		if (cpu >= lo && cpu <= hi)
			return 1;
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

int main(void)
{
	int n = ncpus_online(), cpu = n - 1, nohz = is_nohz_full(cpu), ok = 0;
	double alone = 0, shared = 0;
	pid_t iso, extra, mov[4];
	cpu_set_t set;

	if (n < 3)
		tap_skip_all("needs 3 CPUs");
	tap_plan(1);
	/*
	 * This process reads and sleeps on a CPU of its own (CPU 2 of 4),
	 * off the CPU it measures and away from the hogs on CPUs 0-1.
	 */
	pin_to(0, n - 2);
	diag("CPU %d is %sa nohz_full CPU", cpu, nohz ? "" : "not ");
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	for (int i = 0; i < 4; i++) {
		mov[i] = spawn_hog(-1, 0);
		sched_setaffinity(mov[i], sizeof(set), &set);
	}
	iso = spawn_hog(cpu, 0);
	sleep_ms(500);
	for (int attempt = 0; attempt < 2 && !ok; attempt++) {
		alone = loc_rate(cpu, 2000);
		extra = spawn_hog(cpu, 0);
		sleep_ms(300);
		shared = loc_rate(cpu, 2000);
		kill_wait(extra);
		sleep_ms(300);
		diag("attempt %d: CPU %d takes %.0f ticks/s alone, %.0f with a second hog",
		     attempt + 1, cpu, alone, shared);
		ok = nohz ? shared >= 100 && alone < shared / 10 : shared >= 100 && alone >= 100;
	}
	kill_wait(iso);
	for (int i = 0; i < 4; i++)
		kill_wait(mov[i]);
	if (nohz)
		tap_ok(ok, "nohz_full CPU %d with one task, tasks waiting on CPUs 0-1: %.0f ticks/s, under a tenth of %.0f with two tasks",
		       cpu, alone, shared);
	else
		tap_ok(ok, "CPU %d (not nohz_full) ticks with one task and with two: %.0f and %.0f ticks/s (>= 100)",
		       cpu, alone, shared);
	return tap_done();
}
