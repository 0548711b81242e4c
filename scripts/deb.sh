#!/usr/bin/env bash
# make deb:       a full kernel with VDS as Debian packages (bindeb-pkg).
# make deb-check: Debian's full config with VDS; builds kernel/sched/ and
#                 init/ only, so options only that config enables get compiled.
#
# BASE=distro     Debian's config, from the kernel's config package (default)
# BASE=running    the running kernel's config (/boot/config-$(uname -r))
# BASE=defconfig  x86_64 defconfig
# configs/desktop.config is merged on top and verified in the result.
. "$(dirname "$0")/lib.sh"

mode=${1:-deb}
BASE=${BASE:-distro}
case "$mode" in deb | deb-check) ;; *) die "usage: deb.sh deb|deb-check" ;; esac
case "$BASE" in
distro | running | defconfig) ;;
*) die "BASE='$BASE' must be distro, running or defconfig" ;;
esac
[ "$mode" = deb-check ] && BASE=distro

src=$(ksrc_dir)
tag=$(ksrc_tag)
if [ "$mode" = deb ]; then
	top=$KWORK/deb/$BASE$tag # the packages land here, next to build/
	out=$top/build
else
	out=$KWORK/build/deb-check$tag
fi
mkdir -p "$out"
kwork_lock
frag=$REPO/configs/desktop.config

base=$out/base.config
case "$BASE" in
distro)
	dcfg=$KV_DISTRO_CONFIG
	[ -f "$dcfg" ] || die "$dcfg is missing; run 'make deps' (package $KV_CONFIG_PKG)"
	xzcat "$dcfg" >"$base.new"
	;;
running)
	if [ -f "/boot/config-$(uname -r)" ]; then
		cp "/boot/config-$(uname -r)" "$base.new"
	elif [ -f /proc/config.gz ]; then
		zcat /proc/config.gz >"$base.new"
	else
		die "no config for the running kernel (/boot/config-$(uname -r) or /proc/config.gz); use BASE=distro"
	fi
	;;
defconfig)
	# In its own folder: over $out/.config it would undo the merged fragment.
	(out=$out/defconfig-base kmake -s defconfig) >"$out/config.log" 2>&1 ||
		die "make defconfig failed (log: $out/config.log)"
	cp "$out/defconfig-base/.config" "$base.new"
	;;
esac
mv "$base.new" "$base"

stamp=$( (cat "$base" "$frag"; series_stamp; echo "$src") | md5sum | cut -d' ' -f1)
if [ "$(cat "$out/.vds-config" 2>/dev/null)" != "$stamp" ]; then
	say "$mode: config: $BASE + desktop.config"
	rm -f "$out/.vds-config"
	(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O "$out" "$base" "$frag") \
		>"$out/config.log" 2>&1 || { tail -n 20 "$out/config.log" >&2; die "merge_config.sh failed (log: $out/config.log)"; }
	kmake olddefconfig >>"$out/config.log" 2>&1 || die "olddefconfig failed (log: $out/config.log)"
	verify_config "$out/.config" "$frag"
	echo "$stamp" >"$out/.vds-config"
fi
nopt=$(grep -cE '^CONFIG_[A-Z0-9_]+=[ym]$' "$out/.config")
say "$mode: $nopt options set (=y or =m), VDS $(grep -q '^CONFIG_SCHED_VDS=y' "$out/.config" && echo on || echo OFF)"

if [ "$mode" = deb-check ]; then
	say "deb-check: building kernel/sched/ and init/ in $out"
	run_logged "$out/build.log" "deb-check" kmake -j"$(nproc)" kernel/sched/ init/
	# vds.c is compiled as part of build_policy.c. Not grep -q: with
	# pipefail, nm killed by SIGPIPE after an early match fails the check.
	nm "$out/kernel/sched/build_policy.o" 2>/dev/null | grep ' vds_sched_class$' >/dev/null ||
		die "deb-check: no vds_sched_class in kernel/sched/build_policy.o (log: $out/build.log)"
	w=$(grep -cE 'warning:' "$out/build.log")
	[ "$w" = 0 ] || { grep -E 'warning:' "$out/build.log" | head -n 10 >&2; die "deb-check: $w compiler warnings (log: $out/build.log)"; }
	say "deb-check: kernel/sched/ and init/ build cleanly with Debian's config + desktop.config"
	exit 0
fi

# A rough estimate: compile steps grow with the options set, and one step
# takes ref_step_s seconds of one core, packaging included, scaled by this
# machine's cores and bogomips. Both constants calibrated on the reference
# machine (2 cores, 4600 bogomips) with BASE=defconfig and a cold ccache.
ref_steps_per_opt=2.4 ref_step_s=1.17 ref_bogo=4600
bogo=$(awk '/^bogomips/ {print int($3); exit}' /proc/cpuinfo)
steps=$(awk -v n="$nopt" -v k="$ref_steps_per_opt" 'BEGIN {print int(n * k)}')
est=$(awk -v s="$steps" -v t="$ref_step_s" -v c="$(nproc)" -v b="${bogo:-$ref_bogo}" -v rb="$ref_bogo" \
	'BEGIN {print int(s * t / c * rb / b / 60) + 1}')
say "deb: BASE=$BASE, about $steps compile steps: roughly $est minutes on $(nproc) CPUs (more the first time ccache is empty)"

rm -f "$top"/*.deb "$top"/*.buildinfo "$top"/*.changes
export ETA_STEPS=$steps
# DPKG_FLAGS=-d: the kernel's debian/control asks for gcc-x86-64-linux-gnu, a
# package bookworm does not have (its gcc is that compiler already).
run_logged "$out/build.log" "deb" kmake -j"$(nproc)" LOCALVERSION=-vds DPKG_FLAGS=-d bindeb-pkg
img=$(ls "$top"/linux-image-*-vds_*.deb 2>/dev/null | grep -v -- -dbg_ | head -n1)
[ -n "$img" ] || die "no linux-image package in $top (log: $out/build.log)"
# The package must hold a kernel whose config has VDS.
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg -x "$img" "$x"
grep -q '^CONFIG_SCHED_VDS=y' "$x"/boot/config-* 2>/dev/null || die "$img: its config has no CONFIG_SCHED_VDS=y"
ls "$x"/boot/vmlinuz-* >/dev/null 2>&1 || die "$img: no /boot/vmlinuz"
say "deb: built $(ls "$top"/*.deb | wc -l) packages in $top:"
ls -1sh "$top"/*.deb >&2
say "deb: install with: dpkg -i $img   (then reboot; pick the -vds kernel in GRUB)"
