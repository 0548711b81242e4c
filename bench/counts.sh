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
B=$T/instances/vds_blocks
blk_start() {
	[ -d $B ] || mkdir $B 2>/dev/null || return 0
	[ -w $B/events/sched/sched_switch/enable ] || return 0
	echo 0 >$B/tracing_on
	echo >$B/trace
	echo 'prev_state & 3' >$B/events/sched/sched_switch/filter
	echo 1 >$B/events/sched/sched_switch/enable
	echo 1 >$B/tracing_on
}
blk_count() {
	if [ ! -w $B/events/sched/sched_switch/enable ]; then
		echo null
		return
	fi
	echo 0 >$B/tracing_on
	echo 0 >$B/events/sched/sched_switch/enable
	cat $B/per_cpu/cpu*/stats | awk '/^(entries|overrun):/ {n += $2} END {print n + 0}'
}
