#!/bin/sh
# stress-ng's CPU hotplug stressor together with race-sched, for a bounded
# time, then the kernel's own cpu-hotplug selftest from the 6.12 tree.
echo "1..2"
out=$(stress-ng --temp-path /tmp --cpu-online 1 --race-sched 2 --timeout 10s --metrics-brief 2>&1)
rc=$?
echo "$out" | grep -E 'successful|failed|passed|skipped' | sed 's/^/# /'
if [ $rc -eq 0 ]; then
	echo "ok 1 - stress-ng --cpu-online with --race-sched for 10 s"
else
	echo "$out" | tail -n 5 | sed 's/^/# /'
	echo "not ok 1 - stress-ng --cpu-online with --race-sched (rc=$rc)"
fi
t=/kselftest/cpu-hotplug/cpu-on-off-test.sh
if [ -x /usr/bin/bash ] && [ -f $t ]; then
	out=$(cd /kselftest/cpu-hotplug && bash ./cpu-on-off-test.sh 2>&1)
	rc=$?
	echo "$out" | tail -n 4 | sed 's/^/# /'
	for c in /sys/devices/system/cpu/cpu*/online; do echo 1 >"$c"; done
	if [ $rc -eq 0 ]; then
		echo "ok 2 - tools/testing/selftests/cpu-hotplug/cpu-on-off-test.sh"
	else
		echo "not ok 2 - kernel selftest cpu-on-off-test.sh (rc=$rc)"
	fi
else
	echo "ok 2 # SKIP the kernel's cpu-hotplug selftest or bash is not in the initramfs"
fi
