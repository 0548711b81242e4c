/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the VDS in-guest tests and benchmarks: time, CPUs and
 * affinity, schedstat and /proc readers, sysfs writes, CPU hogs, the
 * periodic workload and its percentile rule. Header-only, every test is
 * one file.
 */
#ifndef VDS_TEST_H
#define VDS_TEST_H

#include "tap.h"
#include <sys/prctl.h>

/* The policy numbers VDS adds (include/uapi/linux/sched.h with the series). */
#ifndef SCHED_ISO
#define SCHED_ISO	4
#endif

/* The uapi struct sched_attr, without the header that clashes with libc. */
struct vds_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int ncpus_online(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static int ncpus_conf(void)
{
	return (int)sysconf(_SC_NPROCESSORS_CONF);
}

static int pin_to(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* Fields of /proc/<pid>/schedstat: run time, wait time (ns), timeslices. */
struct schedstat {
	uint64_t run_ns, wait_ns, slices;
};

static int read_schedstat(pid_t pid, struct schedstat *st)
{
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu %llu", (unsigned long long *)&st->run_ns,
		   (unsigned long long *)&st->wait_ns,
		   (unsigned long long *)&st->slices);
	fclose(f);
	return n == 3 ? 0 : -1;
}

static uint64_t schedstat_run(pid_t pid)
{
	struct schedstat st;

	return read_schedstat(pid, &st) ? 0 : st.run_ns;
}

/* Write a string to a sysfs or procfs file. Returns 0 or -errno. */
static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, val, strlen(val));
	if (r < 0) {
		r = -errno;
		close(fd);
		return (int)r;
	}
	close(fd);
	return 0;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -errno;
	buf[r] = 0;
	while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' '))
		buf[--r] = 0;
	return 0;
}

static long read_long(const char *path, long def)
{
	char buf[64];

	if (read_file(path, buf, sizeof(buf)))
		return def;
	return strtol(buf, NULL, 10);
}

/*
 * The number after @field (" util ", " iso ") on @cpu's line of
 * /sys/kernel/debug/sched/vds/state; -1 if there is none.
 */
static long vds_state_field(int cpu, const char *field)
{
	char buf[16384], key[16], *p;

	if (read_file("/sys/kernel/debug/sched/vds/state", buf, sizeof(buf)))
		return -1;
	snprintf(key, sizeof(key), "cpu%-3d ", cpu);
	p = strstr(buf, key);
	p = p ? strstr(p, field) : NULL;
	return p ? strtol(p + strlen(field), NULL, 10) : -1;
}

static int set_cpu_online(int cpu, int on)
{
	char path[80];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_file(path, on ? "1" : "0");
}

/* Is the running kernel using VDS for normal tasks? */
static int vds_active(void)
{
	char buf[32];

	if (read_file("/sys/kernel/debug/sched/vds/active", buf, sizeof(buf)))
		return 0;
	return buf[0] == '1';
}

/* A test of VDS's own semantics: it does not apply where VDS is not active. */
static void need_vds(void)
{
	if (!vds_active())
		tap_skip_all("VDS is not the active scheduler (vds=off, or not built in)");
}

/* A forked child that burns CPU forever at the given nice, pinned if cpu >= 0. */
static pid_t spawn_hog(int cpu, int nice_val)
{
	pid_t pid = fork();

	if (pid == 0) {
		volatile uint64_t x = 0;

		if (cpu >= 0)
			pin_to(0, cpu);
		setpriority(PRIO_PROCESS, 0, nice_val);
		for (;;)
			x++;
	}
	return pid;
}

static void kill_wait(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * A numeric field of /proc/<pid>/<file>, from a "key: value" or
 * "key    : value" line ("ext.enabled" of sched, "nonvoluntary_ctxt_switches"
 * of status); -1 if there is none.
 */
static double proc_field(pid_t pid, const char *file, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	double v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c;

		if (strncmp(line, key, kl) || (line[kl] != ' ' && line[kl] != ':'))
			continue;
		c = strchr(line, ':');
		if (c)
			v = strtod(c + 1, NULL);
		break;
	}
	fclose(f);
	return v;
}

/*
 * A busy loop that records in @s the longest time it went without running
 * (max_gap) and when it last ran; setting s->reset starts a new interval.
 * Never returns.
 */
struct gap_slot {
	volatile uint64_t max_gap, last;
	volatile int reset;
	volatile int policy;
};

static void gap_spin(struct gap_slot *s)
{
	uint64_t last = now_ns(), t;

	for (;;) {
		t = now_ns();
		if (s->reset) {
			s->reset = 0;
			s->max_gap = 0;
		} else if (t - last > s->max_gap) {
			s->max_gap = t - last;
		}
		last = t;
		s->last = t;
	}
}

/*
 * A setting of this boot, such as VDS_SMP: the host writes vdssmp=4 into
 * the boot's share and /init exports it (scripts/boot.sh, guest-init.sh).
 */
static long setting_long(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	n = strtol(v, &end, 10);
	return *end ? def : n;
}

/*
 * Run two tasks for ms milliseconds after a settle time, then kill them:
 * how much CPU each got (ns, from schedstat).
 */
static void run_pair(pid_t a, pid_t b, unsigned int settle_ms, unsigned int ms,
		     uint64_t *ra, uint64_t *rb)
{
	uint64_t a0, b0;

	sleep_ms(settle_ms);
	a0 = schedstat_run(a);
	b0 = schedstat_run(b);
	sleep_ms(ms);
	*ra = schedstat_run(a) - a0;
	*rb = schedstat_run(b) - b0;
	kill_wait(a);
	kill_wait(b);
}

/* A task's affinity as a bitmask of the first 64 CPUs. */
static unsigned long affinity_bits(pid_t pid)
{
	cpu_set_t set;
	unsigned long m = 0;
	int c;

	if (sched_getaffinity(pid, sizeof(set), &set))
		return 0;
	for (c = 0; c < 64; c++)
		if (CPU_ISSET(c, &set))
			m |= 1ul << c;
	return m;
}

static int set_affinity_bits(pid_t pid, unsigned long m)
{
	cpu_set_t set;
	int c;

	CPU_ZERO(&set);
	for (c = 0; c < 64; c++)
		if (m & (1ul << c))
			CPU_SET(c, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

static void *shared_mem(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

#define PERIOD_NS 5000000ull

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The one percentile rule of tests and benchmarks, nearest rank: the index
 * in a sorted array of @n of the smallest value with at least @permille
 * per mille of the values at or below it.
 */
static long pct_rank(long n, long permille)
{
	long i = (n * permille + 999) / 1000 - 1;

	return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* Sort @v and return its 99th percentile. */
static uint64_t p99_of(uint64_t *v, int n)
{
	qsort(v, n, sizeof(v[0]), cmp_u64);
	return v[pct_rank(n, 990)];
}

/*
 * A periodic task: wake every 5 ms (absolute timer), burn work_us of CPU,
 * n times (4096 at most). Returns the p99 wakeup latency in ns (target to
 * running), the median in *p50; periodic_lat[] holds all n, sorted, and
 * periodic_raw[] the same in time order. periodic_late[] holds each
 * period's lateness, in time order: the wall time from the target to the
 * end of the work, less the work. It also counts time the task spent
 * preempted in the middle of its work, which wakeup latency does not see.
 */
#define PERIODIC_MAX	4096
static uint64_t periodic_lat[PERIODIC_MAX], periodic_late[PERIODIC_MAX];
static uint64_t periodic_raw[PERIODIC_MAX];

static uint64_t periodic(unsigned int work_us, int n, uint64_t *p50)
{
	uint64_t *lat = periodic_lat, p99;
	struct timespec ts;
	uint64_t next;
	int i;

	if (n > PERIODIC_MAX)
		n = PERIODIC_MAX;
	next = now_ns() + PERIOD_NS;
	for (i = 0; i < n; i++) {
		uint64_t end;

		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		lat[i] = now_ns() - next;
		end = thread_cpu_ns() + work_us * 1000ull;
		while (thread_cpu_ns() < end)
			;
		end = now_ns() - next;
		periodic_late[i] = end > work_us * 1000ull ? end - work_us * 1000ull : 0;
		next += PERIOD_NS;
		/* Overran: skip the missed periods, as a real-time loop would. */
		while (next < now_ns())
			next += PERIOD_NS;
	}
	memcpy(periodic_raw, lat, n * sizeof(lat[0]));
	p99 = p99_of(lat, n);
	*p50 = lat[pct_rank(n, 500)];
	return p99;
}

/*
 * @n periods of @period_ns from @t0, the targets fixed in advance (period
 * i at t0 + i * period_ns), so that two tasks started with one @t0 have
 * the same targets and a stall of the host delays the same period of
 * both: sleep to each target (absolute timer), burn @work_ns of CPU.
 * start[i] gets how late period i began and late[i] its lateness (the end
 * of the work from the target, less the work); a period whose whole
 * length passed before the task got to it is skipped, as a real-time loop
 * would, and gets NO_SAMPLE in both. Returns the number of periods done.
 */
#define NO_SAMPLE	UINT64_MAX
static int periods_from(uint64_t t0, uint64_t period_ns, uint64_t work_ns,
			int n, uint64_t *start, uint64_t *late)
{
	int i, done = 0;

	for (i = 0; i < n; i++)
		start[i] = late[i] = NO_SAMPLE;
	i = 0;
	while (i < n) {
		uint64_t target = t0 + i * period_ns, stop, t;
		struct timespec ts;

		ts.tv_sec = target / 1000000000ull;
		ts.tv_nsec = target % 1000000000ull;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		t = now_ns();
		while (i < n && t >= t0 + (i + 1) * period_ns)
			i++;
		if (i == n)
			break;
		target = t0 + i * period_ns;
		start[i] = t - target;
		stop = thread_cpu_ns() + work_ns;
		while (thread_cpu_ns() < stop)
			;
		t = now_ns() - target;
		late[i] = t > work_ns ? t - work_ns : 0;
		done++;
		i++;
	}
	return done;
}

/*
 * The p99 of the first @n samples of @v that are not NO_SAMPLE, and their
 * largest in *@max if @max is given; NO_SAMPLE if there are none. @v is
 * left as it is.
 */
static uint64_t p99_present(const uint64_t *v, int n, uint64_t *max)
{
	static uint64_t sorted[PERIODIC_MAX];
	int i, k = 0;

	for (i = 0; i < n && k < PERIODIC_MAX; i++)
		if (v[i] != NO_SAMPLE)
			sorted[k++] = v[i];
	if (k)
		qsort(sorted, k, sizeof(sorted[0]), cmp_u64);
	if (max)
		*max = k ? sorted[k - 1] : NO_SAMPLE;
	return k ? sorted[pct_rank(k, 990)] : NO_SAMPLE;
}

/*
 * The p99 of how much later @a's samples are than @b's, sample by sample
 * (0 where @a is earlier), over the @n indexes both have; NO_SAMPLE if
 * none. @a and @b are left as they are.
 */
static uint64_t p99_excess(const uint64_t *a, const uint64_t *b, int n)
{
	static uint64_t d[PERIODIC_MAX];
	int i, k = 0;

	for (i = 0; i < n && k < PERIODIC_MAX; i++) {
		if (a[i] == NO_SAMPLE || b[i] == NO_SAMPLE)
			continue;
		d[k++] = a[i] > b[i] ? a[i] - b[i] : 0;
	}
	return k ? p99_of(d, k) : NO_SAMPLE;
}

/* uid and gid 65534 (nobody), no supplementary groups: 0 or -errno. */
static int drop_to_nobody(void)
{
	/* The system call: <grp.h> would clash with the benchmarks' names. */
	if (syscall(SYS_setgroups, 0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -errno;
	return 0;
}

/*
 * A child dies with the test @main_pid (set it after a uid change, which
 * clears it); if the test is already gone, at once.
 */
static void die_with_parent(pid_t main_pid)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != main_pid)
		_exit(0);
}

/* Remove cgroup @path, retrying for 100 ms while its last tasks exit. */
static void cg_rmdir_retry(const char *path)
{
	int k;

	for (k = 0; k < 10; k++) {
		if (!rmdir(path) || errno == ENOENT)
			return;
		usleep(10000);
	}
}

/* Is "cpu" (not "cpuset") among the cgroup v2 root's subtree controllers? */
static int cg_root_has_cpu(void)
{
	char buf[256], *tok, *save;

	if (read_file("/sys/fs/cgroup/cgroup.subtree_control", buf, sizeof(buf)))
		return 0;
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, "cpu"))
			return 1;
	return 0;
}

/* A file of /sys/kernel/sched_ext, "(unreadable)" if it cannot be read. */
static void scx_read(const char *file, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/sched_ext/%s", file);
	if (read_file(path, buf, len))
		snprintf(buf, len, "(unreadable)");
}

/* Wait up to @timeout_ms for sched_ext's state to read @want: 1 if so. */
static int scx_wait_state(const char *want, int timeout_ms)
{
	uint64_t end = now_ns() + timeout_ms * 1000000ull;
	char buf[64];

	do {
		scx_read("state", buf, sizeof(buf));
		if (!strcmp(buf, want))
			return 1;
		sleep_ms(50);
	} while (now_ns() < end);
	return 0;
}

#endif
