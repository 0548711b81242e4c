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
[ "$DEBUG" = 1 ] || [ "$KASAN" = 1 ] && frags+=("$REPO/configs/debug.config")
[ "$KASAN" = 1 ] && frags+=("$REPO/configs/kasan.config")

command -v ccache >/dev/null || die "ccache is missing; run 'make deps'"
# Hash paths relative to the work folder: another checkout's work folder
# (a second clone, a CI run) then reuses the same cache entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KWORK}
kmake() {
	make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# Configure when the fragments or the series changed.
cfgstamp=$( (cat "${frags[@]}"; series_stamp; echo "$src") | md5sum | cut -d' ' -f1)
if [ "$(cat "$out/.vds-config" 2>/dev/null)" != "$cfgstamp" ] || [ ! -f "$out/.config" ]; then
	say "config: allnoconfig + ${frags[*]##*/}"
	rm -f "$out/.vds-config"
	(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -n -O "$out" "${frags[@]}") \
		>"$out/config.log" 2>&1 || { tail -n 20 "$out/config.log" >&2; die "merge_config.sh failed (log: $out/config.log)"; }
	# merge_config only warns: check every requested option ourselves.
	bad=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$out/.config" || bad+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$out/.config" || echo unset))")
			;;
		'# CONFIG_'*' is not set')
			sym=${line#\# }
			sym=${sym%% *}
			grep -q "^$sym=" "$out/.config" && bad+=("$line (got: $(grep "^$sym=" "$out/.config"))")
			;;
		esac
	done < <(cat "${frags[@]}")
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'vds: config option not set as requested: %s\n' "${bad[@]}" >&2
		die "${#bad[@]} requested config option(s) missing from $out/.config"
	fi
	echo "$cfgstamp" >"$out/.vds-config"
fi

say "build: $(flavour) kernel in $out (make -j$(nproc), ccache)"
log=$out/build.log
kmake -j"$(nproc)" bzImage >"$log" 2>&1 &
pid=$!
last=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
	sleep 2
	if [ $(($(date +%s) - last)) -ge 30 ]; then
		last=$(date +%s)
		say "build: $(grep -cE '^  (CC|AS|LD|AR)' "$log") steps so far, last: $(grep -E '^  (CC|AS|LD|AR)' "$log" | tail -n1 | awk '{print $2}')"
	fi
done
if ! wait "$pid"; then
	grep -E 'error|Error' "$log" | head -n 20 >&2
	tail -n 5 "$log" >&2
	die "kernel build failed (log: $log)"
fi
img=$out/arch/x86/boot/bzImage
[ -f "$img" ] || die "no bzImage after the build (log: $log)"
say "build: done, $(kmake -s kernelrelease 2>/dev/null)"
echo "$img"
