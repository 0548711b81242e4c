// SPDX-License-Identifier: GPL-2.0
/*
 * Pipe ping-pong between two tasks, both on one CPU and on two CPUs:
 * round trips per second. Prints one JSON line.  b_pipe [seconds]
 *
 * vds-bench: timeout 60
 * vds-metric: pipe_pingpong *_per_s higher
 */
#include "vds_test.h"

static double pingpong(int cpu_a, int cpu_b, int secs)
{
	int ab[2], ba[2];
	char c = 0;
	long trips = 0;
	uint64_t t0, end;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return 0;
	pid = fork();
	if (pid == 0) {
		close(ab[1]);
		close(ba[0]);
		pin_to(0, cpu_b);
		while (read(ab[0], &c, 1) == 1)
			if (write(ba[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	pin_to(0, cpu_a);
	t0 = now_ns();
	end = t0 + secs * 1000000000ull;
	while (now_ns() < end) {
		for (int i = 0; i < 100; i++) {
			if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
				break;
			trips++;
		}
	}
	close(ab[1]);
	waitpid(pid, NULL, 0);
	close(ba[0]);
	return trips / ((now_ns() - t0) / 1e9);
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : (int)setting_long("VDS_BENCHSECS", 9) / 3;
	double one = pingpong(0, 0, secs), two = pingpong(0, 1, secs);

	printf("{\"bench\":\"pipe_pingpong\",\"same_cpu_rt_per_s\":%.0f,\"two_cpus_rt_per_s\":%.0f}\n",
	       one, two);
	return 0;
}
