// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.rr_interval, kernel.yield_type and kernel.iso_cpu: defaults, the accepted range,
 * EINVAL for everything else with the value left unchanged, and
 * sched_rr_get_interval() reporting rr_interval for a VDS task.
 */
#include "tap.h"

struct knob {
	const char *path;
	long def, min, max;
};

static const char *const bad_values[] = {
	"-1", "abc", "99999999999999999999", "12abc", "0x", " ", "1.5",
};

static void check_knob(const struct knob *k)
{
	char buf[64], v[32];
	long cur;
	unsigned int i;
	int r;

	tap_ok(read_long(k->path, -99) == k->def, "%s defaults to %ld (reads %ld)",
	       k->path, k->def, read_long(k->path, -99));
	/* Accepted: both ends of the range and the default. */
	snprintf(v, sizeof(v), "%ld", k->min);
	r = write_file(k->path, v);
	tap_ok(!r && read_long(k->path, -99) == k->min, "%s accepts %ld", k->path, k->min);
	snprintf(v, sizeof(v), "%ld", k->max);
	r = write_file(k->path, v);
	tap_ok(!r && read_long(k->path, -99) == k->max, "%s accepts %ld", k->path, k->max);
	snprintf(v, sizeof(v), "%ld", k->def);
	write_file(k->path, v);

	/* Rejected: just out of range, negative, huge, not a number. */
	snprintf(v, sizeof(v), "%ld", k->min - 1);
	if (k->min > 0) {
		r = write_file(k->path, v);
		tap_ok(r == -EINVAL && read_long(k->path, -99) == k->def,
		       "%s rejects %s with EINVAL (got %d), value unchanged", k->path, v, r);
	}
	snprintf(v, sizeof(v), "%ld", k->max + 1);
	r = write_file(k->path, v);
	tap_ok(r == -EINVAL && read_long(k->path, -99) == k->def,
	       "%s rejects %s with EINVAL (got %d), value unchanged", k->path, v, r);
	for (i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++) {
		r = write_file(k->path, bad_values[i]);
		cur = read_long(k->path, -99);
		tap_ok(r == -EINVAL && cur == k->def,
		       "%s rejects '%s' with EINVAL (got %d), value unchanged (%ld)",
		       k->path, bad_values[i], r, cur);
	}
	/* An empty write changes nothing. */
	write_file(k->path, "");
	tap_ok(read_long(k->path, -99) == k->def, "%s unchanged by an empty write", k->path);
	(void)buf;
}

int main(void)
{
	static const struct knob rr = { "/proc/sys/kernel/rr_interval", 6, 1, 1000 };
	static const struct knob yt = { "/proc/sys/kernel/yield_type", 1, 0, 2 };
	static const struct knob iso = { "/proc/sys/kernel/iso_cpu", 70, 0, 100 };
	struct timespec ts;
	int i;

	tap_plan(39);
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
