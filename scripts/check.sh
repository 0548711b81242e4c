#!/usr/bin/env bash
# make check / make: build, boot and read back.
#   check.sh check   run the in-guest test suite; ends with "N passed, N failed"
#   check.sh show    boot once and show the running kernel and its scheduler
# Each result goes into $RUNDIR/summary.json as the run goes (scripts/summary.py:
# the host self-tests, deb-check, each boot's verdict.py --json); the last
# line is printed from it, and .ci/run adds up each pass from it.
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/judge.sh"
check_knobs
mode=${1:-check}

img=$(bash "$REPO/scripts/build.sh") || exit 1
initrd=$(bash "$REPO/scripts/initramfs.sh") || exit 1
stamp=$(date +%Y%m%d-%H%M%S)
export RUNDIR=$WORK/runs/$stamp
mkdir -p "$RUNDIR"
ln -sfn "$stamp" "$WORK/runs/latest"
has_vds=0
grep -q '^CONFIG_SCHED_VDS=y' "$(build_dir)/.config" && has_vds=1

if [ "$mode" = show ]; then
	out=$(boot_judge show "$SMP" "vdsrun=show" 120 "" "")
	grep -q '^@@VDS-DONE' "$RUNDIR/show.results" 2>/dev/null ||
		die "the guest did not finish booting (log: $RUNDIR/show.console)"
	echo "$out" | grep 'guest log'
	# End with what the guest said: uname -r and the scheduler banner.
	grep -vE '^@@VDS-(DONE|BOOT)' "$RUNDIR/show.results" 2>/dev/null
	[ "$(echo "$out" | tail -n1 | cut -d' ' -f2)" = 0 ] || exit 1
	exit 0
fi

# Tests planned on a boot (scripts/plan.sh, from tests/list): every test
# its kind of boot runs; "ext" tests need sched_ext (EXT=1), "smp8" tests 8
# vCPUs. A test that does not apply to the boot's scheduler skips itself.
has_ext=0
grep -q '^CONFIG_SCHED_CLASS_EXT=y' "$(build_dir)/.config" && has_ext=1
. "$REPO/scripts/plan.sh"
# One seed for the fuzzers of every boot of this run, printed for a replay.
SEED=${SEED:-$(((RANDOM << 15 | RANDOM) % 1000000000))}
soakmsg=""
[ "$SOAK" -gt 0 ] && soakmsg=", soak tests $SOAK min longer each"
say "check: seed $SEED (replay a fuzzer failure with SEED=$SEED)$soakmsg"

# Boots: name|vCPUs|extra command line|kind (plan.sh)|may skip. On a VDS
# boot every planned test applies, so a test that skips itself fails; the
# vds=off boot may skip (VDS's own tests say they do not apply there).
boots=()
if [ "$has_vds" = 1 ]; then
	boots+=("vds-smp$SMP|$SMP||main|0")
	# NO_EEVDF=1: no vds=off boot (CI's debug and PREEMPT_RT passes:
	# mainline's class with our hooks idle is the normal pass's business).
	[ "${NO_EEVDF:-0}" != 1 ] && boots+=("eevdf-smp$SMP|$SMP|vds=off|main|1")
	# Hotplug at 8 vCPUs (tests flagged wide or smp8): the storm needs them.
	[ -z "${ONLY:-}" ] && [ "${NO_SMP8:-0}" != 1 ] && boots+=("vds-smp8|8||wide|0")
	# nohz_full on every CPU but the first (tests flagged nohz): slices
	# must still end on time.
	[ -z "${ONLY:-}" ] && [ "$SMP" -ge 2 ] && [ "${NO_NOHZ:-0}" != 1 ] &&
		grep -q '^CONFIG_NO_HZ_FULL=y' "$(build_dir)/.config" &&
		boots+=("vds-nohz$SMP|$SMP|nohz_full=1-$((SMP - 1))|nohz|0")
else
	boots+=("eevdf-smp$SMP|$SMP||main|1")
fi

SUM=$RUNDIR/summary.json
summary() { python3 "$REPO/scripts/summary.py" "$@"; }
# Host-side tests of the harness itself (bad input, the log verdict).
echo "== host (harness self-tests)"
hout=$(bash "$REPO/tests/host/run.sh")
echo "$hout" | sed '$d' | grep -vE '^(ok |1\.\.)' | sed 's/^/  FAIL /'
read -r p f <<<"$(echo "$hout" | tail -n1)"
echo "  $p passed, $f failed"
summary add "$SUM" host "$p" "$f" || summary add "$SUM" host 0 1
# Debian's full config compiles what the guest config leaves out (make deb-check).
if [ "$DEBUG" = 0 ] && [ "$KASAN" = 0 ] && [ "$KCSAN" = 0 ] && [ -z "${ONLY:-}" ] && [ "${DEBCHECK:-1}" = 1 ]; then
	echo "== deb-check (Debian's config + configs/desktop.config: kernel/sched/ and init/)"
	t0=$(date +%s)
	if bash "$REPO/scripts/deb.sh" deb-check >"$RUNDIR/deb-check.log" 2>&1; then
		echo "  1 passed, 0 failed ($(($(date +%s) - t0)) s)"
		summary add "$SUM" deb-check 1 0
	else
		grep 'vds: error' "$RUNDIR/deb-check.log" | tail -n 3 | sed 's/^/  FAIL /'
		echo "  0 passed, 1 failed (log: $RUNDIR/deb-check.log)"
		summary add "$SUM" deb-check 0 1
	fi
fi
for b in "${boots[@]}"; do
	IFS='|' read -r name smp cmd kind skips <<<"$b"
	# The boot's plan goes into its share (/results/plan in the guest): the
	# guest runs what the host planned, and nothing without it. The verdict
	# expects exactly what the plan holds; a boot it left no JSON for
	# counts one failure (summary.py says so). oops=panic: an Oops fails
	# the run anyway; end the boot at once.
	plan=$(plan_lines "$kind" "${ONLY:-}" "$smp")
	sk=()
	[ "$skips" = 1 ] && sk=(--may-skip)
	out=$(boot_judge "$name" "$smp" "vdsrun=check oops=panic vdsseed=$SEED vdssoak=$SOAK $cmd" \
		"$(budget "$kind" "${ONLY:-}" "$smp")" "$plan" "$(plan_names "$plan")" "${sk[@]}")
	echo "== $name"
	echo "$out" | sed '$d'
	summary boot "$SUM" "$RUNDIR/$name.json" | sed 's/^/  /'
done
# The verdict canary (DEBUG=1): a boot whose kernel reports a hung task on
# purpose (tests/verdict_canary.c). The verdict must fail that boot's log,
# with the kernel's own hung-task line, or the verdict itself is broken.
if [ "$DEBUG" = 1 ] && [ "$has_vds" = 1 ] &&
	{ [ -z "${ONLY:-}" ] || [[ ",$ONLY," == *,verdict_canary,* ]]; }; then
	plan=$(plan_lines canary "" 2)
	out=$(boot_judge canary-smp2 2 "vdsrun=check oops=panic" "$(budget canary "" 2)" \
		"$plan" "$(plan_names "$plan")")
	echo "== canary-smp2 (a deliberate hung task: its guest log must FAIL)"
	echo "$out" | sed '$d' | sed 's/^/  | /'
	# Counted as one point of its own: its JSON is kept, not added up.
	read -r p f <<<"$(echo "$out" | tail -n1)"
	if [ "$f" = 1 ] && [ "$p" -ge 3 ] && echo "$out" | grep -q 'FAIL guest log of canary-smp2' &&
		grep -q 'blocked for more than' "$RUNDIR/canary-smp2.console"; then
		echo "  ok   the verdict failed the canary's log on the kernel's own hung-task report"
		summary add "$SUM" canary-smp2 1 0
	else
		echo "  FAIL the canary: expected its test to pass and only its guest log to fail (got $p passed, $f failed)"
		summary add "$SUM" canary-smp2 0 1
	fi
fi
say "check: logs in $RUNDIR"
# The skips, if any, then "N passed, N failed"; exits 1 if anything failed.
summary total "$SUM"
