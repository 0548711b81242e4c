#!/bin/sh
# The kernel's own selftests from the 6.12 tree (tools/testing/selftests),
# built by scripts/build-kselftest.sh: rseq, membarrier, timers, futex/functional.
# One TAP line per program run; a selftest's own SKIP (exit 4) is a skip.
# What is left out, and why, is listed in SKIPPED below.
# (cpu-hotplug's selftest runs in hotplug_stress.sh.)
K=/kselftest
# group|program|arguments|timeout (s)
RUNS="rseq|basic_test||30
rseq|param_test|-T s -t 16 -r 2000|60
rseq|param_test|-T l -t 16 -r 2000 -7 -1 -m 10 -y|60
rseq|param_test|-T b -t 16 -r 2000 -7 -1 -m 10 -k|60
rseq|param_test|-T m -t 16 -r 1000 -M|60
rseq|param_test|-T i -t 16 -r 1000 -7 -1 -m 50 -s 1|60
rseq|param_test|-T r -t 16 -r 2000|60
rseq|param_test_compare_twice|-T s -t 16 -r 2000|60
rseq|param_test_mm_cid|-T l -t 16 -r 2000 -7 -1 -m 10 -y|60
membarrier|membarrier_test_single_thread||60
membarrier|membarrier_test_multi_thread||60
timers|nanosleep||90
timers|mqueue-lat||60
timers|inconsistency-check|-c 1 -t 8|60
timers|inconsistency-check|-c 4 -t 8|60
timers|threadtest|-t 10 -n 8|60
futex/functional|futex_requeue_pi||60
futex/functional|futex_requeue_pi|-b -l -t 5000|60
futex/functional|futex_requeue_pi|-b -o -t 500000|60
futex/functional|futex_requeue_pi|-l -t 2000000000|60
futex/functional|futex_requeue_pi_mismatched_ops||30
futex/functional|futex_requeue_pi_signal_restart||30
futex/functional|futex_wait_timeout||30
futex/functional|futex_wait_wouldblock||30
futex/functional|futex_wait_uninitialized_heap||30
futex/functional|futex_wait_private_mapped_file||30"
SKIPPED="rseq/basic_percpu_ops_test rseq/basic_percpu_ops_mm_cid_test: 200 threads x 5000 rounds on per-CPU spinlocks take over 60 s each under TCG; param_test -T s/l with 16 threads runs the same code paths
timers/nsleep-lat timers/set-timer-lat: well over a minute each under TCG (every clock, many lengths); nanosleep covers the same clocks
timers/posix_timers: asserts ITIMER_VIRTUAL/PROF expiry within 0.5 s of wall time and an even signal distribution, which fails under TCG on EEVDF (vds=off) just as on VDS
futex/functional/futex_waitv: wakes after a 10 ms sleep and fails if its waiter thread has not blocked yet, which a busy host can delay under TCG, on EEVDF (vds=off) and VDS alike
futex/functional/futex_requeue futex/functional/futex_wait: their waiters time out after 30 ms of wall time while the main thread sleeps 10 ms before it requeues or wakes; under TCG on a busy host that comes too late, on EEVDF (vds=off) and VDS alike
timers/raw_skew: measures NTP frequency skew over 60+ s; no NTP in the guest
timers/rtcpie: needs /dev/rtc0 (the guest config has no RTC driver)
timers/alarmtimer-suspend: needs suspend to RAM and an RTC wake alarm
timers/adjtick timers/change_skew timers/freq-step timers/skew_consistency: change the clock frequency and run for minutes each
timers/leap-a-day timers/leapcrash timers/set-tai timers/set-tz timers/set-2038 timers/valid-adjtimex timers/clocksource-switch: set the system time, TAI offset, leap seconds or clocksource (destructive for the rest of the run; leap-a-day never ends)
rseq/param_test_benchmark rseq/param_test_mm_cid_benchmark: benchmarks, nothing to assert
rseq/run_param_test.sh: the full matrix takes far longer than the budget; a spread of its cases runs above"

n=$(echo "$RUNS" | wc -l)
s=$(echo "$SKIPPED" | wc -l)
echo "1..$((n + s))"
i=0
echo "$RUNS" | {
	while IFS='|' read -r g p a t; do
		i=$((i + 1))
		if [ ! -x "$K/$g/$p" ]; then
			echo "not ok $i - selftests/$g/$p $a: not in the initramfs"
			continue
		fi
		t0=$(cut -d' ' -f1 /proc/uptime)
		# shellcheck disable=SC2086
		out=$(cd "$K/$g" && LD_LIBRARY_PATH=. timeout -s KILL "$t" "./$p" $a 2>&1 </dev/null)
		rc=$?
		el=$(echo "$t0 $(cut -d' ' -f1 /proc/uptime)" | awk '{ printf "%.1f", $2 - $1 }')
		name="selftests/$g/$p${a:+ $a} (${el}s)"
		case $rc in
		0) echo "ok $i - $name" ;;
		4) echo "ok $i # SKIP $name: $(echo "$out" | grep -iE 'skip' | tail -n1)" ;;
		*)
			# The program's own failures first, then how it ended.
			echo "$out" | grep -E '^(not ok|# not ok)|FAIL|fail:' | head -n 10 | sed 's/^/# /'
			echo "$out" | tail -n 4 | sed 's/^/# /'
			[ $rc = 137 ] && echo "# killed after the ${t}s timeout"
			echo "not ok $i - $name (rc=$rc)"
			;;
		esac
	done
	echo "$SKIPPED" | while read -r line; do
		i=$((i + 1))
		echo "ok $i # SKIP ${line%%:*}:${line#*:}"
	done
}
