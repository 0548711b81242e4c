#!/usr/bin/env bash
# Install what the project needs from Debian's archive. A quick no-op when
# everything is present.
. "$(dirname "$0")/lib.sh"

PKGS="quilt gcc make bc flex bison libelf-dev libssl-dev cpio ccache xz-utils
qemu-system-x86 busybox-static rt-tests stress-ng schedtool trinity gnuplot-nox
libc6-dev python3 kmod rsync patch dwarves dpkg-dev debhelper $KV_CONFIG_PKG
clang-19 zlib1g-dev"

missing=()
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

# The kernel source is pinned; fall back loudly when the archive dropped it.
src_ver=$(dpkg-query -W -f='${Version}' "$KV_SRC_PKG" 2>/dev/null || true)
src_pkg=""
if [ "$src_ver" != "$KVER_PIN" ]; then
	if [ -n "$src_ver" ] && [ "${ALLOW_UNPINNED:-0}" = 1 ]; then
		:
	else
		src_pkg="$KV_SRC_PKG=$KVER_PIN"
	fi
fi

if [ ${#missing[@]} -eq 0 ] && [ -z "$src_pkg" ]; then
	exit 0
fi

[ "$(id -u)" = 0 ] || die "missing packages (${missing[*]} $src_pkg); run 'make deps' as root"

say "deps: installing ${missing[*]} $src_pkg"
export DEBIAN_FRONTEND=noninteractive
apt_install() {
	apt-get install -y -q --no-install-recommends "$@" >"$WORK/apt.log" 2>&1
}
mkdir -p "$WORK"
if ! apt_install "${missing[@]}" $src_pkg; then
	say "deps: apt-get install failed, refreshing the package lists"
	apt-get update -q >>"$WORK/apt.log" 2>&1 || true
	if [ -n "$src_pkg" ] && ! apt-cache show "$src_pkg" >/dev/null 2>&1; then
		newest=$(apt-cache madison "$KV_SRC_PKG" | awk '{print $3}' | sort -V | tail -n1)
		[ -n "$newest" ] || die "no $KV_SRC_PKG in the archive (see $WORK/apt.log)"
		cat >&2 <<MSG
###########################################################################
# WARNING: the pinned kernel source $KV_SRC_PKG=$KVER_PIN is gone
# from the archive. Falling back to the newest $KVER: $newest.
# The series was tested on $KVER_PIN; it may not apply to this one.
###########################################################################
MSG
		src_pkg="$KV_SRC_PKG=$newest"
	fi
	apt_install "${missing[@]}" $src_pkg ||
		die "apt-get install failed; see $WORK/apt.log"
fi
say "deps: done"
