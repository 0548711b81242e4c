// SPDX-License-Identifier: GPL-2.0
/*
 * A task that asks for less than its fair share gets all of it, on time: a
 * video-like task (6.7 ms of CPU every 16.7 ms, 40 % of a CPU; each frame
 * needs more than one 6 ms slice) and an audio-like task (2.5 ms every
 * 50 ms), each pinned to one CPU with one nice 0 hog.
 *
 * The task sleeps to the start of each frame (absolute timer), burns the
 * frame's work by its own CPU clock, and skips frames whose start it missed
 * altogether (their CPU is not delivered).
 *
 * It is measured against a control that runs at the same time: the same
 * model as SCHED_FIFO, pinned to another CPU beside a hog of its own. The
 * FIFO task preempts its hog at once, so what it sees is what the kernel,
 * the emulator and the host add on a busy vCPU, and nothing of VDS or
 * EEVDF. Both start from one t0, so frame i of the two has the same
 * target: a stall of the host (the vCPUs share one emulator thread, and
 * the machine itself loses its CPUs in bursts) delays frame i of both, and
 * the difference of their start lateness, frame by frame, is what the
 * scheduler added.
 *
 * Asserted per model: the task delivers at least the control's CPU less 2
 * points, and its start lateness over the control's, frame by frame, has a
 * p99 below one rr_interval (6 ms under EEVDF) plus twice the control's
 * p99, that term capped at one rr_interval: a scheduler that makes a frame
 * wait for the hog's slice adds at most one slice; one that makes it wait
 * for two or more, or starves it of its 40 %, fails. The control's p99
 * counts twice because the two vCPUs take turns in the emulator thread, so
 * the delays of frame i on the two CPUs are alike in size but not the
 * same, and a frame that was delayed also shares its catch-up with the
 * hog. The cap keeps a slow boot from making the check vacuous: a frame
 * never starts later than its period (a frame missed altogether is
 * skipped), so a control p99 of a few ms more would lift the bound past
 * the video model's whole period. One rr_interval is generous for TCG,
 * whose control p99 on a host that is not overloaded stays well under
 * half of it; a host loaded so far that it is not fails this test rather
 * than passing it unchecked. A failed case is measured again, up to three
 * times in all, five seconds apart. With one CPU there is no second CPU
 * for the control: it runs first, and the p99s of the two runs are
 * compared instead.
 */
#include "vds_test.h"

#define ATTEMPTS	3
#define MAX_FRAMES	1024

struct model {
	const char *name;
	uint64_t period_ns, work_ns;
	unsigned int ms;
};

static const struct model models[] = {
	{ "video", 16700000ull, 6700000ull, 5000 },
	{ "audio", 50000000ull, 2500000ull, 10000 },
};

struct run {
	double delivered;
	uint64_t p99, max;
	uint64_t start[MAX_FRAMES];	/* start lateness by frame, or NO_SAMPLE */
	uint64_t late[MAX_FRAMES];
};

static int nframes(const struct model *md)
{
	uint64_t n = md->ms * 1000000ull / md->period_ns;

	return n > MAX_FRAMES ? MAX_FRAMES : (int)n;
}

/* The model from @t0 on @cpu, as SCHED_FIFO if @fifo; in a child. */
static pid_t start(const struct model *md, int cpu, int fifo, uint64_t t0,
		   struct run *res)
{
	pid_t c = fork();

	if (c == 0) {
		struct sched_param sp = { .sched_priority = 50 };
		int n = nframes(md), done;

		pin_to(0, cpu);
		if (fifo && sched_setscheduler(0, SCHED_FIFO, &sp))
			diag("SCHED_FIFO: %s", strerror(errno));
		done = periods_from(t0, md->period_ns, md->work_ns, n,
				    res->start, res->late);
		res->delivered = 100.0 * done / n;
		res->p99 = p99_present(res->start, n, &res->max);
		_exit(0);
	}
	return c;
}

/*
 * The model on @cpu beside a hog and its FIFO control on @ctl beside
 * another, at the same time (one after the other if @cpu == @ctl). Returns
 * the p99 of the task's start lateness over the control's, frame by frame
 * (with one CPU, the task's p99 over the control's).
 */
static uint64_t measure(const struct model *md, int cpu, int ctl,
			struct run *task, struct run *control)
{
	struct run *shm = shared_mem(2 * sizeof(*shm));
	pid_t h1 = spawn_hog(cpu, 0), h2 = cpu != ctl ? spawn_hog(ctl, 0) : 0;
	pid_t a, b;
	uint64_t t0;

	sleep_ms(200);
	t0 = now_ns() + 50000000ull;
	b = start(md, ctl, 1, t0, &shm[1]);
	if (cpu == ctl) {
		waitpid(b, NULL, 0);
		t0 = now_ns() + 50000000ull;
	}
	a = start(md, cpu, 0, t0, &shm[0]);
	waitpid(a, NULL, 0);
	if (cpu != ctl)
		waitpid(b, NULL, 0);
	kill_wait(h1);
	kill_wait(h2);
	*task = shm[0];
	*control = shm[1];
	munmap(shm, 2 * sizeof(*shm));
	if (cpu == ctl)
		return task->p99 > control->p99 ? task->p99 - control->p99 : 0;
	return p99_excess(task->start, control->start, nframes(md));
}

int main(void)
{
	int m = ncpus_online(), on_vds = vds_active();
	int cpu = m - 1, ctl = m > 1 ? m - 2 : cpu;
	double rr = on_vds ? read_long("/proc/sys/kernel/rr_interval", 6) * 1e6 : 6e6;
	unsigned int i;

	tap_plan(4);
	diag("%s, cpu %d, control (SCHED_FIFO) on cpu %d, slack %.0f ms",
	     on_vds ? "VDS" : "EEVDF", cpu, ctl, rr / 1e6);
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const struct model *md = &models[i];
		struct run task, control;
		int ok_cpu = 0, ok_late = 0, attempt;
		uint64_t ex = 0;
		double bound = 0;

		for (attempt = 0; attempt < ATTEMPTS && !(ok_cpu && ok_late); attempt++) {
			if (attempt)
				sleep_ms(5000);
			ex = measure(md, cpu, ctl, &task, &control);
			/* The control's term, capped at one rr_interval (see above). */
			bound = rr + (2.0 * control.p99 < rr ? 2.0 * control.p99 : rr);
			ok_cpu = task.delivered >= control.delivered - 2.0;
			ok_late = ex < bound;
			diag("%s beside a hog: %.1f%% delivered, start late p99 %.2f ms max %.2f; control %.1f%%, p99 %.2f ms max %.2f; over the control p99 %.2f ms",
			     md->name, task.delivered, task.p99 / 1e6, task.max / 1e6,
			     control.delivered, control.p99 / 1e6, control.max / 1e6,
			     ex / 1e6);
		}
		tap_ok(ok_cpu, "%s beside a hog: %.1f%% of its CPU delivered, the control %.1f%% (at most 2 points less)%s",
		       md->name, task.delivered, control.delivered,
		       attempt > 1 ? ", after retries" : "");
		tap_ok(ok_late, "%s beside a hog: frames start later than the control's by p99 %.2f ms < %.0f ms + 2 x control p99 %.2f ms, at most %.0f ms (bound %.2f ms)%s",
		       md->name, ex / 1e6, rr / 1e6, control.p99 / 1e6, rr / 1e6, bound / 1e6,
		       attempt > 1 ? ", after retries" : "");
		if (attempt > 1)
			diag("%s: %d attempts", md->name, attempt);
	}
	return tap_done();
}
