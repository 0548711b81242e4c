// SPDX-License-Identifier: GPL-2.0
/*
 * Fork/exec storm: many short-lived children, each exec'ing a program, with
 * a few CPU hogs competing. Every child must run, exit 0 and be reaped.
 */
#include "vds_test.h"

#define CHILDREN 400
#define BATCH 16

int main(void)
{
	int i, j, ok = 0, reaped = 0, hogs = ncpus_online();
	pid_t *hog = calloc(hogs, sizeof(*hog));
	uint64_t t0 = now_ns();

	tap_plan(3);
	if (!hog)
		hogs = 0;
	for (i = 0; i < hogs; i++)
		hog[i] = spawn_hog(-1, 0);
	for (i = 0; i < CHILDREN; i += BATCH) {
		for (j = 0; j < BATCH; j++) {
			pid_t p = fork();

			if (p == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
		}
		for (j = 0; j < BATCH; j++) {
			int st;

			if (wait(&st) > 0) {
				reaped++;
				if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
					ok++;
			}
		}
	}
	for (i = 0; i < hogs; i++)
		kill_wait(hog[i]);
	diag("%d children in %.2f s with %d hogs", CHILDREN,
	     (now_ns() - t0) / 1e9, hogs);
	tap_ok(reaped == CHILDREN, "all %d children reaped (%d)", CHILDREN, reaped);
	tap_ok(ok == CHILDREN, "all children exec'd and exited 0 (%d)", ok);
	tap_ok(wait(NULL) < 0 && errno == ECHILD, "no child left behind");
	return tap_done();
}
