/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for the VDS in-guest tests (plan, ok, skip, diagnostics).
 * The helpers the tests share are in vds_test.h, which includes this.
 */
#ifndef VDS_TAP_H
#define VDS_TAP_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int tap_n, tap_failed;

static void tap_plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
}

static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

static void tap_skip(const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("ok %d # SKIP ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/*
 * The whole test does not apply to this boot (a VDS test under vds=off, a
 * sched_ext test on a kernel without it): TAP's skip-all plan and
 * kselftest's exit status 4. The verdict counts it as a skipped test where
 * the boot may skip (vds=off) and fails it where everything applies.
 */
static void __attribute__((noreturn)) tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	fflush(stdout);
	exit(4);
}

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

#endif
