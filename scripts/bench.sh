#!/usr/bin/env bash
# make bench: one kernel image, booted alternately with vds=off (EEVDF) and
# with VDS, ROUNDS rounds each, same vCPUs and command line otherwise. Each
# boot runs the benchmarks of bench/ (each file declares its timeout and
# its metrics: scripts/benchlist.py), by name, as the plan in its share; results go to work/bench/<stamp>/ as one JSON file
# per boot, then bench-report.py renders the tables. The guest log point of
# each boot (verdict.py, make check's rule) goes into boots/summary.json
# (scripts/summary.py), whose totals end the run.
#   ROUNDS=3 SMP=4 QUICK=1 (one round, short runs)
#   ONLY=b_interactive,b_schbench  run only these workloads (files of bench/)
#   BAD=1  a deliberately bad setting instead of the comparison: VDS at its
#          default against VDS with rr_interval=1000 (set by the guest
#          before the workloads), to show which numbers react
#   BAD=2  VDS against VDS with the measured latency tasks of b_interactive
#          and b_latency at nice 19 (their loads stay at nice 0)
#   CLOCKSOURCE=hpet  both schedulers boot with the HPET as clocksource
#          (the TSC stays sched_clock, stable): the cost of clocksource reads
#   CLOCKSOURCE=unstable  both boot with tsc=unstable, what the clocksource
#          watchdog does: the HPET as clocksource and an unstable
#          sched_clock (decision 57)
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/judge.sh"
check_knobs
ROUNDS=${ROUNDS:-3}
QUICK=${QUICK:-0}
BAD=${BAD:-0}
ONLY=${ONLY:-}
case "$BAD" in 0 | 1 | 2) ;; *) die "BAD='$BAD' must be 0, 1 or 2" ;; esac
scheds="eevdf vds"
[ "$BAD" = 1 ] && scheds="vds vds-rr1000"
[ "$BAD" = 2 ] && scheds="vds vds-nice19"
CLOCKSOURCE=${CLOCKSOURCE:-tsc}
case "$CLOCKSOURCE" in tsc | hpet | unstable) ;; *) die "CLOCKSOURCE='$CLOCKSOURCE' must be tsc, hpet or unstable" ;; esac
case "$ROUNDS" in '' | *[!0-9]* | 0) die "ROUNDS='$ROUNDS' must be a number >= 1" ;; esac
secs=10
if [ "$QUICK" = 1 ]; then
	ROUNDS=1
	secs=3
fi
# Multi-threaded TCG gives the guest real parallelism; a boot that hits
# QEMU's code-patching race (an oops) is retried once. TCG_THREAD=single
# for the regression-test mode.
export TCG_THREAD=${TCG_THREAD:-multi}
# The kbuild workload runs the host's gcc from a read-only 9p share of /usr.
export BOOT_HOSTUSR=1

# The plan every boot runs: "name timeout" a line (an unknown name in
# ONLY= is an error before anything is built).
plan=$(python3 "$REPO/scripts/benchlist.py" plan "$ONLY") || exit 1
[ -n "$plan" ] || die "no benchmark to run (ONLY='$ONLY')"
img=$(bash "$REPO/scripts/build.sh") || exit 1
initrd=$(bash "$REPO/scripts/initramfs.sh") || exit 1
grep -q '^CONFIG_SCHED_VDS=y' "$(build_dir)/.config" || die "the kernel has no VDS; nothing to compare"
stamp=$(date +%Y%m%d-%H%M%S)
out=$WORK/bench/$stamp
export RUNDIR=$out/boots
mkdir -p "$RUNDIR"
ln -sfn "$stamp" "$WORK/bench/latest"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB"
	echo "kernel: $(uname -r) host, guest $(make -s -C "$(ksrc_dir)" O="$(build_dir)" kernelrelease 2>/dev/null)"
	echo "qemu: $(qemu-system-x86_64 --version | head -n1), -smp $SMP, tcg thread=$TCG_THREAD"
	echo "rounds: $ROUNDS, seconds per workload: $secs"
	echo "command: make bench ROUNDS=$ROUNDS SMP=$SMP QUICK=$QUICK$([ "$BAD" != 0 ] && echo " BAD=$BAD")$([ "$CLOCKSOURCE" != tsc ] && echo " CLOCKSOURCE=$CLOCKSOURCE")$([ "$LOCKSTAT" = 1 ] && echo " LOCKSTAT=1")${ONLY:+ ONLY=$ONLY}"
	echo "compared: $scheds"
} >"$out/host.txt"

# Guest time per boot, measured at 4 vCPUs: about 22 s per workload-second
# plus boot and the kbuild job (replaced by the measured mean after a boot).
per_boot=$((secs * 22 + 60))
total=$((ROUNDS * 2))
# A progress line per finished workload while a boot runs.
# The caller creates the stop file when the boot is over: one last pass.
watch_progress() {
	local f=$1 name=$2 stop=$3 seen=0 last=0 n l
	while :; do
		[ -e "$stop" ] && last=1
		n=$(grep -c '@@VDS-TEST-END' "$f" 2>/dev/null) || n=0
		while [ "$seen" -lt "$n" ]; do
			seen=$((seen + 1))
			l=$(grep '@@VDS-TEST-END' "$f" | sed -n "${seen}p")
			l=${l#@@VDS-TEST-END }
			say "bench: $name: ${l%% *} done (${l##* }, $(echo "$l" | sed -n 's/.*\(rc=[0-9]*\).*/\1/p'))"
		done
		[ "$last" = 1 ] && return
		sleep 2
	done
}
done_boots=0
t_start=$(date +%s)
for r in $(seq 1 "$ROUNDS"); do
	for s in $scheds; do
		# tsc=reliable: under multi-threaded TCG the clocksource watchdog
		# can take a descheduled vCPU for TSC skew and move the guest to
		# the HPET, whose every read is an emulated MMIO access. A QEMU
		# guest's TSC does not drift, so both schedulers boot without the
		# watchdog on the TSC (decision 56), and the clocksource each boot
		# ended on goes into its JSON and the report.
		tsc=reliable
		[ "$CLOCKSOURCE" = unstable ] && tsc=unstable
		cmd="vdsrun=bench vdsbenchsecs=$secs tsc=$tsc"
		[ "$CLOCKSOURCE" = hpet ] && cmd="$cmd clocksource=hpet"
		case $s in
		eevdf) cmd="$cmd vds=off" ;;
		vds-rr1000) cmd="$cmd vdsrr=1000" ;;
		vds-nice19) cmd="$cmd vdsbadnice=19" ;;
		esac
		name=round$r-$s
		load0=$(cut -d' ' -f1 /proc/loadavg)
		el=$(($(date +%s) - t_start))
		eta=$(( done_boots > 0 ? el * (total - done_boots) / done_boots : per_boot * total ))
		say "bench: boot $((done_boots + 1))/$total ($name), about $((eta / 60))m$((eta % 60))s left"
		for try in 1 2; do
			rm -f "$RUNDIR/$name.watched"
			watch_progress "$RUNDIR/$name.results" "$name" "$RUNDIR/$name.watched" &
			wp=$!
			# The boot and its guest log's verdict, as make check's
			# (judge.sh); the benchmarks are not tests: the log alone is
			# judged, and a workload that did not finish is said below. A
			# bad log (most often QEMU's code-patching oops) is retried
			# once, and a second one is kept, said and marked in the JSON.
			# summary.py adds the boot's log point (a retry replaces the
			# first try's, naming it) and says "clean" or the first bad line.
			boot_judge "$name" "$SMP" "$cmd" $((per_boot * 3)) "$plan" "" >/dev/null
			touch "$RUNDIR/$name.watched"
			wait "$wp" 2>/dev/null
			glog=$(python3 "$REPO/scripts/summary.py" log "$RUNDIR/summary.json" "$RUNDIR/$name.json")
			[ "$glog" = clean ] && break
			if [ "$try" = 1 ]; then
				say "bench: $name: guest log not clean ($glog; see $RUNDIR/$name.console); retrying"
				continue
			fi
			say "bench: $name: guest log not clean again ($glog); kept, marked in its JSON"
		done
		load1=$(cut -d' ' -f1 /proc/loadavg)
		other=$(sed -n 's/.*other_cpus \([0-9.]*\).*/\1/p' "$RUNDIR/$name.hostcpu" 2>/dev/null)
		clk=$(sed -n 's/.*Switched to clocksource \([a-z0-9_-]*\).*/\1/p' "$RUNDIR/$name.console" | tail -n1)
		python3 - "$RUNDIR/$name.results" "$out/$name.json" "$s" "$r" "$load0" "$load1" "${other:-0}" "$glog" "${clk:-unknown}" <<'PY'
import json, sys
res, dst, sched, rnd, l0, l1, other, glog, clk = sys.argv[1:]
data = {"scheduler": sched, "round": int(rnd), "host_load_before": float(l0),
        "host_load_after": float(l1), "host_other_cpus": float(other),
        "guest_log": glog, "clocksource": clk, "results": {}}
for line in open(res, errors="replace"):
    line = line.strip()
    if line.startswith("{"):
        try:
            d = json.loads(line)
            data["results"][d.pop("bench")] = d
        except ValueError:
            pass
json.dump(data, open(dst, "w"), indent=1)
PY
		for w in $(echo "$plan" | awk '{print $1}'); do
			grep -q "@@VDS-TEST-END $w rc=0" "$RUNDIR/$name.results" ||
				say "bench: $name: $w did not finish"
		done
		done_boots=$((done_boots + 1))
	done
done
say "bench: guest logs: $(python3 "$REPO/scripts/summary.py" total "$RUNDIR/summary.json" | paste -sd' ' -) (boots/summary.json)"
python3 "$REPO/scripts/bench-report.py" "$out" || exit 1
say "bench: report in $out/report.md"
