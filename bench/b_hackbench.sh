#!/bin/sh
# rt-tests hackbench, processes and threads: seconds (lower is better), and
# the context switches each run took (/proc/stat ctxt, informational). Then
# the same two runs as SCHED_BATCH (schedtool -B: no wakeup preemption), to
# tell the cost of wakeup preemption from the cost of the runqueue.
# Migrations are sched_migrate_task events, counted by the trace buffers
# (entries plus overruns), "null" without tracefs.
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
ctxt() { awk '/^ctxt/ {print $2}' /proc/stat; }
# Of the migrations, the tasks VDS pulled at a pick (sched/vds/state);
# the rest are wakeups placed on another CPU. "null" under EEVDF.
V=/sys/kernel/debug/sched/vds
# Of the pulls, those by a CPU that had nothing to run (idle_pulls).
pulls() { # pulls <word in sched/vds/state>
	if [ "$(cat $V/active 2>/dev/null)" = 1 ]; then
		awk -v w="$1" '{for (i = 1; i < NF; i++) if ($i == w) n += $(i + 1)} END {print n + 0}' $V/state
	else
		echo null
	fi
}
mig_start() {
	[ -w $T/events/sched/sched_migrate_task/enable ] || return 0
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 1 >$T/events/sched/sched_migrate_task/enable
	echo 1 >$T/tracing_on
}
mig_count() {
	if [ ! -w $T/events/sched/sched_migrate_task/enable ]; then
		echo null
		return
	fi
	echo 0 >$T/tracing_on
	echo 0 >$T/events/sched/sched_migrate_task/enable
	cat $T/per_cpu/cpu*/stats | awk '/^(entries|overrun):/ {n += $2} END {print n + 0}'
}
run() { # run [schedtool -B -e] hackbench args: prints "seconds switches migrations pulls idle_pulls"
	mig_start
	c0=$(ctxt) p0=$(pulls pulls) i0=$(pulls idle_pulls)
	s=$("$@" -g 8 -f 10 -l 300 2>&1 | sed -n 's/^Time: *//p')
	c1=$(ctxt) p1=$(pulls pulls) i1=$(pulls idle_pulls)
	[ "$p0" = null ] || p1=$((p1 - p0))
	[ "$i0" = null ] || i1=$((i1 - i0))
	echo "${s:-null} $((c1 - c0)) $(mig_count) $p1 $i1"
}
# shellcheck disable=SC2046 # each run prints five words on purpose
set -- $(run hackbench) $(run hackbench -T) $(run schedtool -B -e hackbench) \
	$(run schedtool -B -e hackbench -T)
j=
for m in process thread batch_process batch_thread; do
	j="$j,\"${m}_s\":$1,\"${m}_ctxt\":$2,\"${m}_migr\":$3,\"${m}_pulls\":$4,\"${m}_idle_pulls\":$5"
	shift 5
done
echo "{\"bench\":\"hackbench\"$j}"
