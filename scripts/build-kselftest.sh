#!/usr/bin/env bash
# Build the kernel's own selftests that the guest runs (tests/kselftest.sh):
# rseq, membarrier, timers and futex/functional, with the tree's own
# Makefiles, against the tree's own uapi headers, out of the source tree
# (everything goes to $WORK/kselftest). Called by initramfs.sh; prints the
# folder that holds the built groups, or nothing if the tree has none.
. "$(dirname "$0")/lib.sh"

ksrc=$(ksrc_dir)
st=$ksrc/tools/testing/selftests
out=$WORK/kselftest
groups="rseq membarrier timers futex/functional"
[ -d "$st/rseq" ] || exit 0

mkdir -p "$out"
# The uapi headers of this tree, installed under WORK (headers_install with
# O= writes nothing into the source tree). Redone when the series changes.
stamp=$(series_stamp)
if [ "$(cat "$out/hdr.stamp" 2>/dev/null)" != "$stamp" ]; then
	say "kselftest: installing the tree's uapi headers"
	rm -rf "$out/hdr"
	make -s -C "$ksrc" O="$out/hdr" ARCH=x86 headers_install >"$out/hdr.log" 2>&1 ||
		die "headers_install failed; see $out/hdr.log"
	echo "$stamp" >"$out/hdr.stamp"
fi
for g in $groups; do
	mkdir -p "$out/bin/$g"
	make -s -C "$st/$g" OUTPUT="$out/bin/$g" \
		KHDR_INCLUDES="-isystem $out/hdr/usr/include" >"$out/build.log" 2>&1 ||
		die "building selftests/$g failed; see $out/build.log"
done
say "kselftest: built $groups"
echo "$out/bin"
