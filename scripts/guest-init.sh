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
# which the verdict reads as a test that did not finish).
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

# >>> hang functions (tests/host/run.sh runs these under busybox sh)
# A test runs in the background under a watchdog. At its timeout the
# watchdog writes a hang record into the share ($hang_dir/hang-<name>.txt)
# before it kills the test's process tree, so that a hung test explains
# itself: its tasks and threads (state, wchan, stack, last CPU, sched and
# schedstat), sysrq-w's blocked tasks with the end of the kernel log, VDS's
# per-CPU state and the load. Reads are capped (lines a file, threads a
# record, seconds a record) and no read can keep the test from being killed.
hang_dir=/results
# 0: no sysrq-w, no kernel log (the host self-test, which runs on the host).
hang_sysrq=1

# PID and its descendants (by the ppid field of /proc/*/stat), parents
# first, at most $2 of them.
tree_pids() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" -v max="$2" '
		{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); kids[f[2]] = kids[f[2]] " " $1 }
		END {
			n = 1
			q[1] = root
			for (i = 1; i <= n && i <= max; i++) {
				print q[i]
				m = split(kids[q[i]], c, " ")
				for (j = 1; j <= m; j++)
					q[++n] = c[j]
			}
		}'
}

# SIGKILL the tree of PID (timeout -s KILL would reach PID alone): stop it
# first, again until a walk finds no more tasks (a forking test cannot
# outrun it), then kill every task found, PID last (its end wakes the
# caller of run_test, which then ends this watchdog).
kill_tree() {
	local root=$1 pids last=-1 i=0
	while [ "$i" -lt 5 ]; do
		pids=$(tree_pids "$root" 100000)
		# shellcheck disable=SC2086
		set -- $pids
		[ "$#" = "$last" ] && break
		# shellcheck disable=SC2086
		kill -STOP $pids 2>/dev/null
		last=$#
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	kill -KILL ${pids#"$root"} 2>/dev/null
	kill -KILL "$root" 2>/dev/null
}

# The first $2 lines of file $1, indented.
show_lines() {
	[ -r "$1" ] && head -n "$2" "$1" 2>/dev/null | sed 's/^/    /'
}

# One thread of the test's tree: /proc/PID/task/TID.
show_thread() {
	local d=$1 comm='?' state='?' wchan='?' schedstat='?' stat k v
	read -r comm 2>/dev/null <"$d/comm"
	read -r wchan 2>/dev/null <"$d/wchan"
	read -r schedstat 2>/dev/null <"$d/schedstat"
	read -r stat 2>/dev/null <"$d/stat" || return 0
	while read -r k v; do
		[ "$k" = State: ] && state=$v && break
	done 2>/dev/null <"$d/status"
	# Field 39 of stat, the CPU it last ran on; comm may hold ") ".
	# shellcheck disable=SC2086
	set -- ${stat##*) }
	echo "  thread ${d##*/} ($comm): state $state, cpu ${37:-?}, wchan ${wchan:-0}, schedstat $schedstat"
	echo "   stack:"
	show_lines "$d/stack" 40
	echo "   sched:"
	show_lines "$d/sched" 80
}

# The hang record of test $2 (pid $1, timeout $3 s), on stdout.
hang_record() {
	local pid=$1 name=$2 tmo=$3 up p t n=0 lvl
	read -r up _ </proc/uptime
	echo "hang record: test $name (pid $pid) still running at its timeout of $tmo s; killed after this record"
	echo "date: $(date), uptime ${up} s"
	echo
	echo "== /proc/loadavg: $(cat /proc/loadavg)"
	if [ -r /proc/pressure/cpu ]; then
		echo "== /proc/pressure/cpu"
		show_lines /proc/pressure/cpu 5
	fi
	echo
	echo "== the test's process tree (at most 300 threads)"
	for p in $(tree_pids "$pid" 300); do
		[ -d "/proc/$p" ] || continue
		read -r t 2>/dev/null <"/proc/$p/stat" || continue
		# shellcheck disable=SC2086
		set -- ${t##*) }
		echo
		echo "task $p (parent ${2:-?}): $(cat "/proc/$p/comm" 2>/dev/null)"
		for t in "/proc/$p/task/"*; do
			[ -d "$t" ] || continue
			if [ "$n" -ge 300 ]; then
				echo "  (more threads not shown: the record stops at 300)"
				break 2
			fi
			show_thread "$t"
			n=$((n + 1))
		done
	done
	if [ "$hang_sysrq" = 1 ]; then
		# sysrq-w lists the blocked tasks in the kernel log, at
		# KERN_INFO. Its task dumps ("Call Trace:" lines) are kept off
		# the console, where the verdict would count each against the
		# boot's log: the console log level is 4 (warnings and worse)
		# until run_test sets it back after the kill. This record
		# quotes them from the kernel log.
		echo
		echo "== sysrq-w (blocked tasks) and the last 200 lines of the kernel log"
		echo 1 >/proc/sys/kernel/sysrq
		read -r lvl _ </proc/sys/kernel/printk
		[ "$lvl" -gt 4 ] && echo 4 >/proc/sys/kernel/printk
		echo w >/proc/sysrq-trigger
		dmesg | tail -n 200
	fi
	if [ "$(cat /sys/kernel/debug/sched/vds/active 2>/dev/null)" = 1 ]; then
		echo
		echo "== VDS per CPU (the vds_rq blocks of /sys/kernel/debug/sched/debug)"
		awk '/^cpu#/ { print; next } /^vds_rq\[/ { v = 1; print; next }
			v && /^  \./ { print; next } { v = 0 }' /sys/kernel/debug/sched/debug 2>/dev/null | head -n 2000
		if [ -r /sys/kernel/debug/sched/vds/state ]; then
			echo
			echo "== /sys/kernel/debug/sched/vds/state"
			show_lines /sys/kernel/debug/sched/vds/state 400
		fi
	fi
	echo
	echo "== end of the record"
}

# run_test NAME TIMEOUT RECORD: run $dir/NAME in /tmp, its output on $out.
# At TIMEOUT seconds, "@@VDS-HANG NAME record=RECORD" on $out, the record
# in $hang_dir/RECORD (given at most 30 s), then SIGKILL to the test's
# tree. Returns the test's status: 137 after that kill, as timeout -s KILL.
run_test() {
	local tpid wpid rc lvl cur
	read -r lvl _ </proc/sys/kernel/printk
	(cd /tmp && exec "$dir/$1") >$out 2>&1 &
	tpid=$!
	(
		sleep "$2"
		kill -0 "$tpid" 2>/dev/null || exit 0
		echo "@@VDS-HANG $1 record=$3" >$out
		hang_record "$tpid" "$1" "$2" >"$hang_dir/$3" 2>&1 &
		r=$! i=0
		while kill -0 "$r" 2>/dev/null && [ "$i" -lt 60 ]; do
			sleep 0.5
			i=$((i + 1))
		done
		if kill -0 "$r" 2>/dev/null; then
			# A read that blocks (a task holding a lock the read needs).
			kill_tree "$r"
			echo "== the record was cut at 30 s" >>"$hang_dir/$3"
		fi
		# Time for the console to pass over sysrq-w's dumps while its
		# log level is still low (see hang_record).
		[ "$hang_sysrq" = 1 ] && sleep 1
		kill_tree "$tpid"
	) &
	wpid=$!
	# wait's own "Killed" note would go to the console: the status says it.
	wait "$tpid" 2>/dev/null
	rc=$?
	# The watchdog's sleep is left to the "kill -9 -1" after each test.
	kill -9 "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	# The console's log level back, if a record lowered it (also when
	# the test ended while its record was being written).
	read -r cur _ </proc/sys/kernel/printk
	[ "$hang_sysrq" = 1 ] && [ "$cur" != "$lvl" ] && echo "$lvl" >/proc/sys/kernel/printk
	return $rc
}
# <<< hang functions

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
		safe=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' _)
		run_test "$name" "$tmo" "hang-$safe.txt"
		rc=$?
		# "retry": a timing test that failed runs once more (a busy host
		# can stretch one run). The verdict counts the second attempt and
		# names the first one's failures.
		case " $flags " in *" retry "*)
			# A test that skipped itself (exit 4) is not retried.
			if [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
				echo "@@VDS-TEST-RETRY $name rc=$rc" >$out
				kill -9 -1 2>/dev/null
				run_test "$name" "$tmo" "hang-$safe-retry.txt"
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
