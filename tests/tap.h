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
