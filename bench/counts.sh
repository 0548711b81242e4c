#!/bin/sh
# Sourced by the benchmark scripts (not a benchmark: its name does not
# begin with b_): counts that do not depend on host load. ctxt prints /proc/stat's
# context switches; mig_start and mig_count count sched_migrate_task events
# from the trace buffers (entries plus overruns), "null" without tracefs.
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
