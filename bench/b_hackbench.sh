#!/bin/sh
# rt-tests hackbench, processes and threads: seconds (lower is better), and
# the context switches each run took (/proc/stat ctxt, informational). Then
# the same two runs as SCHED_BATCH (schedtool -B: no wakeup preemption), to
# tell the cost of wakeup preemption from the cost of the runqueue.
ctxt() { awk '/^ctxt/ {print $2}' /proc/stat; }
run() { # run [schedtool -B -e] hackbench args: prints "seconds switches"
	c0=$(ctxt)
	s=$("$@" -g 8 -f 10 -l 300 2>&1 | sed -n 's/^Time: *//p')
	echo "${s:-null} $(($(ctxt) - c0))"
}
# shellcheck disable=SC2046 # each run prints two words on purpose
set -- $(run hackbench) $(run hackbench -T) $(run schedtool -B -e hackbench) \
	$(run schedtool -B -e hackbench -T)
echo "{\"bench\":\"hackbench\",\"process_s\":$1,\"thread_s\":$3,\"process_ctxt\":$2,\"thread_ctxt\":$4,\"batch_process_s\":$5,\"batch_thread_s\":$7,\"batch_process_ctxt\":$6,\"batch_thread_ctxt\":$8}"
