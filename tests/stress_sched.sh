#!/bin/sh
# A short run of stress-ng's scheduler stressors: all complete without error.
T=${STRESS_SECS:-8}
# SOAK=minutes on the host (kernel command line vdssoak=) runs it that long.
soak=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^vdssoak=//p' | tail -n1)
[ "${soak:-0}" -gt 0 ] 2>/dev/null && T=$((soak * 60))
echo "1..1"
out=$(stress-ng --temp-path /tmp --switch 2 --yield 2 --resched 2 --race-sched 2 --affinity 2 \
	--fork 2 --pthread 1 --futex 2 --schedpolicy 2 --timeout ${T}s --metrics-brief -v 2>&1)
rc=$?
echo "$out" | grep -v ' debug: ' | grep -E 'stressor|successful|failed|passed' | sed 's/^/# /'
if [ $rc -eq 0 ]; then
	echo "ok 1 - stress-ng scheduler stressors ran ${T}s"
else
	# What failed: pr_fail lines, a stressor's exit status or signal (-v
	# shows "terminated on signal"), corrupted metrics, interrupt checks.
	echo "$out" | grep -iE 'fail|error|on signal|killed|metrics-check|corrupt|detected at least|untrusted|unsuccessful' |
		head -n 30 | sed 's/^/# /'
	echo "$out" | tail -n 10 | sed 's/^/# /'
	echo "not ok 1 - stress-ng scheduler stressors (rc=$rc)"
fi
