#!/bin/sh
# Sourced by the benchmark scripts (not a benchmark: its name does not
# begin with b_): counts that do not depend on host load. ctxt prints /proc/stat's
# context switches; mig_start and mig_count count sched_migrate_task events
# from the trace buffers (entries plus overruns), "null" without tracefs.
# blk_start and blk_count count the switches at which the task left the
# CPU to sleep (sched_switch with prev_state S or D) in a trace instance
# of their own; the rest of ctxt are preemptions (tick, wakeup), yields
# and switches away from the idle task.
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
ctxt() { awk '/^ctxt/ {print $2}' /proc/stat; }
# ev_start DIR EVENT [FILTER] and ev_count DIR EVENT: record sched/EVENT in
# the trace instance DIR (the top one is $T), then count what it recorded.
ev_start() {
	[ -w "$1/events/sched/$2/enable" ] || return 0
	echo 0 >"$1/tracing_on"
	echo >"$1/trace"
	[ -z "$3" ] || echo "$3" >"$1/events/sched/$2/filter"
	echo 1 >"$1/events/sched/$2/enable"
	echo 1 >"$1/tracing_on"
}
ev_count() {
	if [ ! -w "$1/events/sched/$2/enable" ]; then
		echo null
		return
	fi
	echo 0 >"$1/tracing_on"
	echo 0 >"$1/events/sched/$2/enable"
	cat "$1"/per_cpu/cpu*/stats | awk '/^(entries|overrun):/ {n += $2} END {print n + 0}'
}
mig_start() { ev_start $T sched_migrate_task; }
mig_count() { ev_count $T sched_migrate_task; }
B=$T/instances/vds_blocks
blk_start() {
	[ -d $B ] || mkdir $B 2>/dev/null || return 0
	ev_start $B sched_switch 'prev_state & 3'
}
blk_count() { ev_count $B sched_switch; }
# lk_start and lk_rq: the run queue locks' statistics from /proc/lock_stat
# (a LOCKSTAT=1 kernel; "null" words otherwise). lk_rq prints six words:
# acquisitions, contended acquisitions, mean and longest hold (us) of
# &rq->__lock taken alone or first, then the longest and mean hold (us) of
# &rq->__lock/1, the second lock of a pair (double_lock_balance() at a
# pull, double_rq_lock() at a migration).
L=${LOCK_STAT_FILE:-/proc/lock_stat}
lk_start() { [ -w "$L" ] && echo 0 >"$L"; }
lk_rq() {
	if [ ! -r "$L" ]; then
		echo null null null null null null
		return
	fi
	awk '$1 == "&rq->__lock:" { a += $9; c += $3; t += $12; if ($11 > m) m = $11 }
	     $1 == "&rq->__lock/1:" { a1 += $9; t1 += $12; if ($11 > m1) m1 = $11 }
	     END { printf "%d %d %.2f %.2f %.2f %.2f\n", a, c, a ? t / a : 0, m,
		   m1, a1 ? t1 / a1 : 0 }' "$L"
}
