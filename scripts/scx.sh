#!/usr/bin/env bash
# Build the kernel tree's own sched_ext example schedulers (scx_simple and
# scx_qmap, from tools/sched_ext) for the guest kernel of this flavour.
# Prints the paths of the binaries on stdout; prints nothing when the kernel
# was built without CONFIG_SCHED_CLASS_EXT.
#
# tools/sched_ext builds libbpf and bpftool from the tree, compiles the BPF
# side with clang (>= 16; bookworm's clang-19) against a vmlinux.h dumped
# from the kernel's BTF. Output goes under $WORK/scx/<flavour>, nothing in
# the source tree. The kernel's raw BTF is copied there and rewritten only
# when it changed, so make rebuilds vmlinux.h and the BPF objects only for a
# kernel with different types, not for every relink.
. "$(dirname "$0")/lib.sh"

src=$(ksrc_dir)
kout=$(build_dir)
grep -q '^CONFIG_SCHED_CLASS_EXT=y' "$kout/.config" 2>/dev/null || exit 0
[ -f "$kout/vmlinux" ] || die "no $kout/vmlinux to take the BTF from"
[ -d "$src/tools/sched_ext" ] || die "no tools/sched_ext in $src"
CLANG=${CLANG:-clang-19}
command -v "$CLANG" >/dev/null || die "$CLANG is missing; run 'make deps'"

out=$WORK/scx/$(basename "$kout")
mkdir -p "$out"
objcopy -O binary --only-section=.BTF "$kout/vmlinux" "$out/vmlinux.btf.new" ||
	die "cannot extract the BTF of $kout/vmlinux"
[ -s "$out/vmlinux.btf.new" ] || die "$kout/vmlinux has no .BTF section"
if cmp -s "$out/vmlinux.btf.new" "$out/vmlinux.btf"; then
	rm -f "$out/vmlinux.btf.new"
else
	mv "$out/vmlinux.btf.new" "$out/vmlinux.btf"
fi

t0=$(date +%s)
log=$out/build.log
make -C "$src/tools/sched_ext" O="$out" CC=gcc HOSTCC=gcc CLANG="$CLANG" \
	VMLINUX_BTF="$out/vmlinux.btf" -j"$(nproc)" scx_simple scx_qmap >"$log" 2>&1 || {
	grep -E 'error|Error' "$log" | head -n 20 >&2
	tail -n 5 "$log" >&2
	die "building tools/sched_ext failed (log: $log)"
}
el=$(($(date +%s) - t0))
[ "$el" -gt 5 ] && say "scx: built scx_simple and scx_qmap in ${el}s"
for b in scx_simple scx_qmap; do
	[ -x "$out/build/bin/$b" ] || die "no $out/build/bin/$b after the build (log: $log)"
	echo "$out/build/bin/$b"
done
