#!/usr/bin/env bash
# make matrix: build kernel/sched/ with the guest config and each variant
# of configs/matrix/*.config (and configs/rt.config) merged on top, so that
# configurations the test kernels do not use still compile: preemption
# models, no hrtimers, core scheduling, NUMA, no group scheduling, no
# SCHED_DEBUG, UP. Build only, nothing boots. MATRIX=a,b picks variants.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
check_knobs
src=$(ksrc_dir)
kwork_lock
p=0 f=0
frags=("$REPO"/configs/matrix/*.config "$REPO/configs/rt.config")
for frag in "${frags[@]}"; do
	name=$(basename "$frag" .config)
	[ "$name" = rt ] && name=preempt-rt
	if [ -n "${MATRIX:-}" ] && [[ ",$MATRIX," != *",$name,"* ]]; then
		continue
	fi
	out=$KWORK/build/matrix-$name$(ksrc_tag)
	mkdir -p "$out"
	t0=$(date +%s)
	log=$out/matrix.log
	if ! (cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -n -O "$out" \
		"$REPO/configs/qemu.config" "$frag") >"$log" 2>&1; then
		echo "FAIL $name: merge_config.sh failed (log: $log)"
		f=$((f + 1))
		continue
	fi
	# The variant's own options must hold (the guest's may give way to them).
	if ! (verify_config "$out/.config" "$frag") >>"$log" 2>&1; then
		echo "FAIL $name: $(grep 'not set as requested' "$log" | head -n 3 | tr '\n' ' ')"
		f=$((f + 1))
		continue
	fi
	if kmake -j"$(nproc)" kernel/sched/ >>"$log" 2>&1; then
		if grep -q 'kernel/sched/.*warning:' "$log"; then
			echo "FAIL $name: kernel/sched/ builds with warnings (log: $log)"
			grep 'kernel/sched/.*warning:' "$log" | head -n 5 | sed 's/^/     /'
			f=$((f + 1))
			continue
		fi
		echo "ok   $name: kernel/sched/ builds ($(($(date +%s) - t0)) s)"
		p=$((p + 1))
	else
		echo "FAIL $name: kernel/sched/ does not build (log: $log)"
		grep -E 'error|warning' "$log" | head -n 5 | sed 's/^/     /'
		f=$((f + 1))
	fi
done
echo "$p passed, $f failed"
[ "$f" = 0 ]
