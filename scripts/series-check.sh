#!/usr/bin/env bash
# Check the series patch by patch: each one has a proper header, is
# checkpatch clean and builds on its own (the guest config, incremental);
# and no hunk's context matches more than one place (scripts/hunk-unique.py).
# make series-check
. "$(dirname "$0")/lib.sh"
bash "$REPO/scripts/tree.sh" || exit 1
src=$(ksrc_dir)
out=$KWORK/build/series-check
export QUILTRC=$REPO/scripts/quiltrc
bad=0
mapfile -t patches < <(series_patches)
cd "$src" || exit 1
quilt pop -a -q >/dev/null 2>&1
for p in "${patches[@]}"; do
	f=$PATCHES/$p
	quilt push -q "$p" >/dev/null || die "$p does not apply"
	for h in '^From: ' '^Subject: ' '^Signed-off-by: '; do
		grep -qE "$h" "$f" || { echo "FAIL $p: no ${h#^} line"; bad=1; }
	done
	cp=$(perl scripts/checkpatch.pl --no-tree -q "$f" 2>&1 | grep -E '^(ERROR|WARNING)')
	[ -z "$cp" ] || { echo "FAIL $p: checkpatch:"; echo "$cp"; bad=1; }
	mkdir -p "$out"
	[ -f "$out/.config" ] || cp "$(build_dir)/.config" "$out/.config" 2>/dev/null ||
		die "build the guest kernel first (make build)"
	say "series-check: building with patches up to $p"
	if make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		-j"$(nproc)" olddefconfig bzImage >"$out/build-$p.log" 2>&1; then
		echo "ok   $p builds, checkpatch clean"
	else
		grep -E 'error' "$out/build-$p.log" | head -n 5
		echo "FAIL $p does not build (log: $out/build-$p.log)"
		bad=1
	fi
done
python3 "$REPO/scripts/hunk-unique.py" "$src" "$PATCHES" <(series_patches) || bad=1
rm -f .vds-series   # the tree is fully patched again, but let make re-check it
[ $bad = 0 ] && echo "series-check: all ${#patches[@]} patches OK"
exit $bad
