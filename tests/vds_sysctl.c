// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.rr_interval, kernel.yield_type and kernel.iso_cpu: defaults, a table
 * of accepted writes (both ends, the whitespace echo adds) and of rejected
 * ones (just out of range, negative, huge, 2^32 + n that would wrap to an
 * accepted value if truncated, not numbers, empty), each rejected with
 * EINVAL and leaving a non-default value unchanged; and
 * sched_rr_get_interval() reporting rr_interval for a VDS task.
 */
#include "vds_test.h"

struct knob {
	const char *path;
	long def, min, max, sentinel;	/* sentinel: in range, not the default */
};

/* Rejected by every knob: EINVAL, value unchanged. */
static const char *const bad_values[] = {
	"-1", "-99999999999999999999", "99999999999999999999", "2147483648",
	"4294967297", "18446744073709551617", "abc", "12abc", "0x", " ", "\n",
	"1.5", "+5", "1e3", "--1",
};
#define NBAD (int)(sizeof(bad_values) / sizeof(bad_values[0]))
#define NPER (1 + 5 + 2 + NBAD + 1)	/* TAP points per knob */

static void show(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 3 < len; in++) {
		if (*in == '\n' || *in == '\t') {
			out[o++] = '\\';
			out[o++] = *in == '\n' ? 'n' : 't';
		} else {
			out[o++] = *in;
		}
	}
	out[o] = 0;
}

/* Write in; expect errno want (0: accepted) and the value expect after. */
static void try_write(const struct knob *k, const char *in, int want, long expect)
{
	char vis[64];
	long cur;
	int r;

	r = write_file(k->path, in);
	cur = read_long(k->path, -99);
	show(in, vis, sizeof(vis));
	if (want)
		tap_ok(r == -want && cur == expect,
		       "%s rejects '%s' with %s (got %d), value stays %ld (reads %ld)",
		       k->path, vis, strerror(want), r, expect, cur);
	else
		tap_ok(r == 0 && cur == expect, "%s accepts '%s' as %ld (got %d, reads %ld)",
		       k->path, vis, expect, r, cur);
}

static void check_knob(const struct knob *k)
{
	char v[64];
	int i;

	tap_ok(read_long(k->path, -99) == k->def, "%s defaults to %ld (reads %ld)",
	       k->path, k->def, read_long(k->path, -99));
	/* Accepted: both ends, the default, with the whitespace echo adds. */
	snprintf(v, sizeof(v), "%ld", k->min);
	try_write(k, v, 0, k->min);
	snprintf(v, sizeof(v), "%ld", k->max);
	try_write(k, v, 0, k->max);
	snprintf(v, sizeof(v), "%ld\n", k->def);
	try_write(k, v, 0, k->def);
	snprintf(v, sizeof(v), "  %ld", k->sentinel);
	try_write(k, v, 0, k->sentinel);
	snprintf(v, sizeof(v), "\t%ld \n", k->max);
	try_write(k, v, 0, k->max);

	/*
	 * Rejected, each from the sentinel value (so a write that resets
	 * to the default is caught): just outside the range, then the table.
	 */
	snprintf(v, sizeof(v), "%ld", k->sentinel);
	write_file(k->path, v);
	snprintf(v, sizeof(v), "%ld", k->min - 1);
	try_write(k, v, EINVAL, k->sentinel);
	snprintf(v, sizeof(v), "%ld", k->max + 1);
	try_write(k, v, EINVAL, k->sentinel);
	for (i = 0; i < NBAD; i++)
		try_write(k, bad_values[i], EINVAL, k->sentinel);
	/* An empty write changes nothing. */
	write_file(k->path, "");
	tap_ok(read_long(k->path, -99) == k->sentinel, "%s unchanged by an empty write", k->path);
	snprintf(v, sizeof(v), "%ld", k->def);
	write_file(k->path, v);
}

int main(void)
{
	static const struct knob rr = { "/proc/sys/kernel/rr_interval", 6, 1, 1000, 17 };
	static const struct knob yt = { "/proc/sys/kernel/yield_type", 1, 0, 2, 2 };
	static const struct knob iso = { "/proc/sys/kernel/iso_cpu", 70, 0, 100, 33 };
	struct timespec ts;
	int i;

	need_vds();
	tap_plan(3 * NPER + 2);
	check_knob(&rr);
	check_knob(&yt);
	check_knob(&iso);
	for (i = 0; i < 2; i++) {
		int want = i ? 20 : 6;
		char v[8];
		long ms;

		snprintf(v, sizeof(v), "%d", want);
		write_file(rr.path, v);
		sched_rr_get_interval(0, &ts);
		ms = ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
		tap_ok(ms >= want && ms <= want + 4,
		       "sched_rr_get_interval reports %ld ms with rr_interval=%d", ms, want);
	}
	write_file(rr.path, "6");
	return tap_done();
}
