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
