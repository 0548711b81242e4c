#!/usr/bin/env bash
# Configure and build the guest kernel out of tree, with ccache.
# Prints the path of the bzImage on stdout.
. "$(dirname "$0")/lib.sh"
check_knobs

src=$(ksrc_dir)
out=$(build_dir)
kwork_lock
mkdir -p "$out"
frags=("$REPO/configs/qemu.config")
[ "$DEBUG" = 1 ] || [ "$KASAN" = 1 ] || [ "$KCSAN" = 1 ] && frags+=("$REPO/configs/debug.config")
[ "$KASAN" = 1 ] && frags+=("$REPO/configs/kasan.config")
[ "$KCSAN" = 1 ] && frags+=("$REPO/configs/kcsan.config")
[ "$EXT" = 1 ] && frags+=("$REPO/configs/ext.config")
[ "$RT" = 1 ] && frags+=("$REPO/configs/rt.config")
[ "$LOCKSTAT" = 1 ] && frags+=("$REPO/configs/lockstat.config")

command -v ccache >/dev/null || die "ccache is missing; run 'make deps'"

# Configure when the fragments or the series changed.
cfgstamp=$( (cat "${frags[@]}"; series_stamp; echo "$src") | md5sum | cut -d' ' -f1)
if [ "$(cat "$out/.vds-config" 2>/dev/null)" != "$cfgstamp" ] || [ ! -f "$out/.config" ]; then
	say "config: allnoconfig + ${frags[*]##*/}"
	rm -f "$out/.vds-config"
	(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -n -O "$out" "${frags[@]}") \
		>"$out/config.log" 2>&1 || { tail -n 20 "$out/config.log" >&2; die "merge_config.sh failed (log: $out/config.log)"; }
	# merge_config only warns: check every requested option ourselves.
	verify_config "$out/.config" "${frags[@]}"
	echo "$cfgstamp" >"$out/.vds-config"
fi

say "build: $(flavour) kernel in $out (make -j$(nproc), ccache)"
log=$out/build.log
run_logged "$log" "kernel build" kmake -j"$(nproc)" bzImage
img=$out/arch/x86/boot/bzImage
[ -f "$img" ] || die "no bzImage after the build (log: $log)"
say "build: done, $(kmake -s kernelrelease 2>/dev/null)"
echo "$img"
