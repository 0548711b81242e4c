#!/usr/bin/env bash
# Pack the guest initramfs: busybox, our static tests and benchmarks, and the
# Debian tools (rt-tests, stress-ng, schedtool, trinity) and the tree's sched_ext
# schedulers, with their libraries.
# Prints the path of the cpio archive on stdout.
. "$(dirname "$0")/lib.sh"

out=$WORK/initramfs
root=$out/root
img=$out/initramfs.cpio
bin=$WORK/tests-bin

say "initramfs: building the test programs"
make -s -C "$REPO/tests" OUT="$bin" >&2 || die "building the tests failed"
if [ -d "$REPO/bench" ] && [ -f "$REPO/bench/Makefile" ]; then
	make -s -C "$REPO/bench" OUT="$WORK/bench-bin" >&2 || die "building the benchmarks failed"
fi

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,tests,bench,results,root}
cp /bin/busybox "$root/bin/busybox" || die "busybox-static is missing; run 'make deps'"
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
install -m 755 "$REPO/scripts/guest-init.sh" "$root/init"

# Debian tools and their shared-library closure.
copy_with_libs() {
	local f=$1 lib
	[ -x "$f" ] || die "$f is missing; run 'make deps'"
	cp -L "$f" "$root/usr/bin/"
	for lib in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
for t in /usr/bin/hackbench /usr/bin/cyclictest /usr/bin/stress-ng /usr/bin/schedtool \
	/usr/bin/trinity /bin/bash; do
	copy_with_libs "$t"
done
# sched_ext: the kernel tree's own example schedulers (scx_simple, scx_qmap),
# built against this kernel's BTF when it has CONFIG_SCHED_CLASS_EXT.
scx_bins=$(bash "$REPO/scripts/scx.sh") || die "building the sched_ext schedulers failed"
for t in $scx_bins; do
	copy_with_libs "$t"
done

cp "$bin"/* "$root/tests/"
# glibc dlopen()s libgcc_s for pthread_cancel (kselftest timers); ldd cannot see it.
for l in /lib/x86_64-linux-gnu/libgcc_s.so.1; do
	[ -e "$l" ] && mkdir -p "$root$(dirname "$l")" && cp -L "$l" "$root$l"
done
# Shared libraries an ELF file needs (not itself), into the image.
copy_libs() {
	local lib
	for lib in $(ldd "$1" 2>/dev/null | grep -oE '=> /[^ ]+|^[[:space:]]*/[^ ]+' | grep -oE '/[^ ]+'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
# The kernel's own selftests (rseq, membarrier, timers, futex), built from
# the tree's Makefiles by build-kselftest.sh, run by tests/kselftest.sh.
ks=$(bash "$REPO/scripts/build-kselftest.sh") || die "building the kernel's selftests failed"
if [ -n "$ks" ]; then
	mkdir -p "$root/kselftest"
	cp -a "$ks"/. "$root/kselftest/"
	for f in $(find "$root/kselftest" -type f -perm -u+x); do
		[ "$(head -c4 "$f" | tail -c3)" = ELF ] || continue
		copy_libs "$f"
	done
fi
# The kernel's own selftests that run under the guest's shell (bash).
ksrc=$(ksrc_dir)
if [ -f "$ksrc/tools/testing/selftests/cpu-hotplug/cpu-on-off-test.sh" ]; then
	mkdir -p "$root/kselftest/cpu-hotplug"
	install -m 755 "$ksrc/tools/testing/selftests/cpu-hotplug/cpu-on-off-test.sh" \
		"$root/kselftest/cpu-hotplug/"
fi
cp "$REPO/tests/list" "$root/tests/list"
for s in "$REPO"/tests/*.sh; do
	install -m 755 "$s" "$root/tests/"
done
if [ -d "$WORK/bench-bin" ]; then
	cp "$WORK/bench-bin"/* "$root/bench/" 2>/dev/null || true
	for s in "$REPO"/bench/*.sh; do
		[ -e "$s" ] && install -m 755 "$s" "$root/bench/"
	done
fi

cat >"$root/etc/passwd" <<PW
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
cat >"$root/etc/group" <<GR
root:x:0:
nogroup:x:65534:
GR

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$img.tmp" ||
	die "cpio failed"
mv "$img.tmp" "$img"
say "initramfs: $(du -h "$img" | cut -f1) at $img"
echo "$img"
