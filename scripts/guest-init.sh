#!/bin/busybox sh
# /init of the VDS test guest: mount the usual filesystems, run what the
# kernel command line asks for (vdsrun=show|check|probe|bench) with the
# plan and settings the host put in the boot's share, report on the second
# serial port (/dev/ttyS1), then power off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin:/tests
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/shm /dev/pts /tmp /results
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
shared=0
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vdsshare /results 2>/dev/null && shared=1
hostname vds-guest
# Only the kernel writes the kernel log: a test (or a fuzzer) that could
# write "WARNING:" to /dev/kmsg would fool the verdict, or hide behind it.
echo off >/proc/sys/kernel/printk_devkmsg 2>/dev/null

# vdsrun= is the one key of ours on the kernel command line.
run=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^vdsrun=//p' | tail -n1)
out=/dev/ttyS1
# Hold the report port open for the whole run. Otherwise the last close
# can come from a process a test left behind when "kill -9 -1" ends it:
# a close with SIGKILL pending does not wait for the UART to drain, and
# the shutdown drops what is still queued (a lost "@@VDS-TEST-END" line,
# seen in CI as vds_batch "did not finish" on a vds=off boot).
exec 9>$out

# The boot's settings, which boot.sh writes into the share: one key=value
# a line, each exported to every test as VDS_<KEY> (vdsseed=7 is
# VDS_SEED=7; tests/vds_test.h's setting_long() reads them). Values are
# numbers, names and lists; anything else is dropped.
if [ -r /results/settings ]; then
	while IFS='=' read -r k v; do
		case "$k" in vds[a-z]*) ;; *) continue ;; esac
		case "$k$v" in *[!A-Za-z0-9_,.-]*) continue ;; esac
		export "VDS_$(echo "${k#vds}" | tr a-z A-Z)=$v"
	done </results/settings
fi

# make bench BAD=1: a deliberately bad slice length, set before anything runs.
[ -n "${VDS_RR:-}" ] && [ -w /proc/sys/kernel/rr_interval ] && echo "$VDS_RR" >/proc/sys/kernel/rr_interval
# make bench BAD=3: VDS with the deadline arithmetic before patch 0020.
[ -n "${VDS_CARRY:-}" ] && [ -w /sys/kernel/debug/sched/vds/nice_carry ] &&
	echo "$VDS_CARRY" >/sys/kernel/debug/sched/vds/nice_carry
# make bench BAD=4: CPUs pull a task that just began to wait, as before patch 0023.
[ -n "${VDS_PULLWAIT:-}" ] && [ -w /sys/kernel/debug/sched/vds/pull_wait_ns ] &&
	echo "$VDS_PULLWAIT" >/sys/kernel/debug/sched/vds/pull_wait_ns

sched="EEVDF (mainline)"
if [ -r /sys/kernel/debug/sched/vds/active ]; then
	if [ "$(cat /sys/kernel/debug/sched/vds/active)" = 1 ]; then
		sched="VDS (rr_interval $(cat /proc/sys/kernel/rr_interval) ms)"
	else
		sched="EEVDF (VDS built in, disabled by vds=off)"
	fi
fi
echo "@@VDS-BOOT $(uname -r) | $sched | $(nproc) CPUs" >$out

case "$run:$shared" in
probe:*)
	echo "@@VDS-DONE" >$out
	;;
show:*)
	{
		echo "online CPUs: $(cat /sys/devices/system/cpu/online)"
		dmesg | grep -E 'sched: VDS' | sed 's/^\[[^]]*\] /banner: /'
		echo "uname -r: $(uname -r)"
		echo "scheduler: $sched"
		echo "@@VDS-DONE"
	} >$out 2>&1
	;;
check:0 | bench:0)
	# Without the share there is no plan: run nothing, and say why (the
	# verdict then fails every planned test as never reported).
	echo "@@VDS-DONE (the 9p share did not mount: no plan, no settings)" >$out
	;;
check:1 | bench:1)
	# The host writes each boot's plan into the share (check.sh from
	# tests/list, bench.sh from the benchmarks' headers): one line a test,
	# "name timeout flags...", run in order, as written.
	dir=/tests
	[ "$run" = bench ] && dir=/bench
	soak=${VDS_SOAK:-0}
	plan=/results/plan
	[ -s $plan ] || { echo "@@VDS-NOTE the share holds no plan: nothing to run" >$out; plan=/dev/null; }
	while read -r name tmo flags; do
		case "$name" in '' | '#'*) continue ;; esac
		# SOAK=minutes (make check SOAK=30) lengthens the soak tests.
		case " $flags " in *" soak "*) [ "$soak" -gt 0 ] && tmo=$((tmo + soak * 60 + 30)) ;; esac
		echo "@@VDS-TEST-BEGIN $name" >$out
		t0=$(cut -d' ' -f1 /proc/uptime)
		(cd /tmp && timeout -s KILL "$tmo" "$dir/$name") >$out 2>&1
		rc=$?
		# "retry": a timing test that failed runs once more (a busy host
		# can stretch one run). The verdict counts the second attempt and
		# names the first one's failures.
		case " $flags " in *" retry "*)
			# A test that skipped itself (exit 4) is not retried.
			if [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
				echo "@@VDS-TEST-RETRY $name rc=$rc" >$out
				kill -9 -1 2>/dev/null
				(cd /tmp && timeout -s KILL "$tmo" "$dir/$name") >$out 2>&1
				rc=$?
			fi
			;;
		esac
		t1=$(cut -d' ' -f1 /proc/uptime)
		echo "@@VDS-TEST-END $name rc=$rc secs=$(echo "$t0 $t1" | awk '{printf "%.1f", $2-$1}')" >$out
		# Anything the test left behind must not leak into the next one.
		kill -9 -1 2>/dev/null
		for c in /sys/devices/system/cpu/cpu*/online; do
			[ "$(cat "$c")" = 1 ] || echo 1 >"$c"
		done
	done <$plan
	echo "@@VDS-DONE" >$out
	;;
*)
	echo "@@VDS-DONE (nothing to run: vdsrun='$run')" >$out
	;;
esac
sync
reboot -f
sleep 5
poweroff -f
