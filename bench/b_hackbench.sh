#!/bin/sh
# rt-tests hackbench, processes and threads: seconds (lower is better), and
# the context switches each run took (/proc/stat ctxt, informational). Then
# the same two runs as SCHED_BATCH (schedtool -B: no wakeup preemption), to
# tell the cost of wakeup preemption from the cost of the runqueue.
# Migrations are sched_migrate_task events, counted by the trace buffers
# (entries plus overruns), "null" without tracefs. Of the switches, those
# at which the task went to sleep (*_blocks, counts.sh): the rest are
# preemptions.
# On a LOCKSTAT=1 kernel, the rq locks' acquisitions, contentions and hold
# times (lk_rq in counts.sh), "null" on others.
# vds-bench: timeout 300
# vds-metric: hackbench *_s lower
# vds-metric: hackbench *_ctxt info
# vds-metric: hackbench *_migr info
# vds-metric: hackbench *_blocks info
# vds-metric: hackbench *pulls info
# vds-metric: hackbench *_pull_fails info
# vds-metric: hackbench *_rq_* info
. "$(dirname "$0")/counts.sh"
# Of the migrations, the tasks VDS pulled at a pick (sched/vds/state);
# the rest are wakeups placed on another CPU. "null" under EEVDF.
V=/sys/kernel/debug/sched/vds
# Of the pulls, those by a CPU that had nothing to run (idle_pulls); and
# the pulls that took the remote lock in vain (pull_fails: another CPU was
# faster, or the task changed), the contention a larger machine would see.
pulls() { # pulls <word in sched/vds/state>
	if [ "$(cat $V/active 2>/dev/null)" = 1 ]; then
		awk -v w="$1" '{for (i = 1; i < NF; i++) if ($i == w) n += $(i + 1)} END {print n + 0}' $V/state
	else
		echo null
	fi
}
run() { # run [schedtool -B -e] hackbench args: prints "seconds switches migrations pulls idle_pulls pull_fails blocks" and lk_rq's six words
	mig_start
	blk_start
	lk_start
	c0=$(ctxt) p0=$(pulls pulls) i0=$(pulls idle_pulls) f0=$(pulls pull_fails)
	s=$("$@" -g 8 -f 10 -l 300 2>&1 | sed -n 's/^Time: *//p')
	c1=$(ctxt) p1=$(pulls pulls) i1=$(pulls idle_pulls) f1=$(pulls pull_fails)
	[ "$p0" = null ] || p1=$((p1 - p0))
	[ "$i0" = null ] || i1=$((i1 - i0))
	[ "$f0" = null ] || f1=$((f1 - f0))
	echo "${s:-null} $((c1 - c0)) $(mig_count) $p1 $i1 $f1 $(blk_count) $(lk_rq)"
}
# shellcheck disable=SC2046 # each run prints thirteen words on purpose
set -- $(run hackbench) $(run hackbench -T) $(run schedtool -B -e hackbench) \
	$(run schedtool -B -e hackbench -T)
j=
for m in process thread batch_process batch_thread; do
	j="$j,\"${m}_s\":$1,\"${m}_ctxt\":$2,\"${m}_migr\":$3,\"${m}_pulls\":$4,\"${m}_idle_pulls\":$5,\"${m}_pull_fails\":$6,\"${m}_blocks\":$7"
	j="$j,\"${m}_rq_acq\":$8,\"${m}_rq_cont\":$9,\"${m}_rq_hold_avg_us\":${10},\"${m}_rq_hold_max_us\":${11}"
	j="$j,\"${m}_rq_pair_hold_max_us\":${12},\"${m}_rq_pair_hold_avg_us\":${13}"
	shift 13
done
echo "{\"bench\":\"hackbench\"$j}"
