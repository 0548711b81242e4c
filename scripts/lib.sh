# shellcheck shell=bash
# Common settings and helpers for the VDS scripts. Sourced, never run.

set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The kernel versions the project has a series for (kernels/*.conf).
kernel_versions() {
	local f out=
	for f in "$REPO"/kernels/*.conf; do
		[ -f "$f" ] || continue
		f=${f##*/}
		out="$out${out:+ }${f%.conf}"
	done
	echo "${out:-none}"
}
WORK=${WORK:-$REPO/work}
# Where the kernel tree and its builds live. Defaults to WORK; a second
# checkout may point KWORK at the first one's work folder to share them
# (builds and tree preparation take a lock, see kwork_lock).
KWORK=${KWORK:-$WORK}
# The kernel version: kernels/$KVER.conf says everything version-specific
# (source package and pinned version, Debian config package, series).
# load_kernel VERSION: read kernels/VERSION.conf; status 1 if there is none.
load_kernel() {
	[ -f "$REPO/kernels/$1.conf" ] || return 1
	KVER=$1
	# shellcheck disable=SC1090
	. "$REPO/kernels/$KVER.conf"
	KVER_PIN=${KVER_PIN_SET:-$KV_PIN}
	SERIES=$REPO/$KV_SERIES
	PATCHES=$REPO/$KV_PATCHES
	KV_TREE_NEEDS="Makefile with VERSION = $KV_VERSION, PATCHLEVEL = $KV_PATCHLEVEL and kernel/sched/core.c"
	export QUILT_PATCHES=$PATCHES QUILT_SERIES=$SERIES
}
KVER_PIN_SET=${KVER_PIN:-}
KVER=${KVER:-$(cat "$REPO/kernels/default")}
if ! load_kernel "$KVER"; then
	echo "vds: error: KVER=$KVER: no kernels/$KVER.conf (there are: $(kernel_versions))" >&2
	exit 1
fi
SMP=${SMP:-4}
DEBUG=${DEBUG:-0}
KASAN=${KASAN:-0}
KCSAN=${KCSAN:-0}
EXT=${EXT:-0}
RT=${RT:-0}
LOCKSTAT=${LOCKSTAT:-0}
SOAK=${SOAK:-0}
export QUILT_PC=.pc

_t0=${_VDS_T0:-$(date +%s)}
export _VDS_T0=$_t0

# A progress line: "[vds  1m05s] stage: message"
say() {
	local now el
	now=$(date +%s)
	el=$((now - _t0))
	printf '[vds %2dm%02ds] %s\n' $((el / 60)) $((el % 60)) "$*" >&2
}

die() {
	echo "vds: error: $*" >&2
	exit 1
}

# Validate the user-facing knobs once, with one clear line each.
check_knobs() {
	case "$SMP" in
	'' | *[!0-9]*) die "SMP='$SMP' is not a number (use 1..64)" ;;
	esac
	[ "$SMP" -ge 1 ] && [ "$SMP" -le 64 ] || die "SMP=$SMP is out of range (use 1..64)"
	case "$DEBUG" in 0 | 1) ;; *) die "DEBUG='$DEBUG' must be 0 or 1" ;; esac
	case "$KASAN" in 0 | 1) ;; *) die "KASAN='$KASAN' must be 0 or 1" ;; esac
	case "$KCSAN" in 0 | 1) ;; *) die "KCSAN='$KCSAN' must be 0 or 1" ;; esac
	[ "$KASAN$KCSAN" != 11 ] || die "KASAN=1 and KCSAN=1 do not go together (the kernel builds one sanitizer of the two)"
	case "$EXT" in 0 | 1) ;; *) die "EXT='$EXT' must be 0 or 1" ;; esac
	case "$RT" in 0 | 1) ;; *) die "RT='$RT' must be 0 or 1" ;; esac
	case "$LOCKSTAT" in 0 | 1) ;; *) die "LOCKSTAT='$LOCKSTAT' must be 0 or 1" ;; esac
	case "$SOAK" in
	'' | *[!0-9]*) die "SOAK='$SOAK' is not a number of minutes (use 0..1440)" ;;
	esac
	[ "$SOAK" -le 1440 ] || die "SOAK=$SOAK is out of range (use 0..1440 minutes)"
	case "${SEED:-0}" in
	'' | *[!0-9]* | ??????????*) die "SEED='${SEED:-}' is not a number (use 0..999999999)" ;;
	esac
	return 0
}

# The kernel tree: the user's own (KSRC=) or Debian's, extracted under $WORK.
ksrc_dir() {
	if [ -n "${KSRC:-}" ]; then
		echo "$KSRC"
	else
		echo "$KWORK/src/linux$(kver_tag)"
	fi
}

# Trees and builds of a kernel other than the default one get its version
# in their folder names; the default kernel's keep the plain ones.
kver_tag() {
	[ "$KVER" = "$(cat "$REPO/kernels/default")" ] || echo "-$KVER"
}

# The flavour of the build: qemu, debug, kasan or kcsan.
flavour() {
	if [ "$KASAN" = 1 ]; then
		echo kasan
	elif [ "$KCSAN" = 1 ]; then
		echo kcsan
	elif [ "$DEBUG" = 1 ]; then
		echo debug
	else
		echo qemu
	fi
}

# A user's tree gets its own build folders, so the two never mix.
ksrc_tag() {
	if [ -n "${KSRC:-}" ]; then
		echo "-$(echo "$KSRC" | md5sum | cut -c1-8)"
	else
		kver_tag
	fi
}

# kmake ARGS: make in the tree $src with output in $out (both set by the
# caller), with ccache; paths hash relative to KWORK so another checkout's
# work folder reuses the cache entries. NOHASHDIR: with debug info (the EXT
# build's DWARF and BTF) ccache would also hash the build folder, and
# another checkout's build would miss every entry.
kmake() {
	CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KWORK} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true} \
		make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

build_dir() {
	local tag
	tag=$(ksrc_tag)
	[ "$EXT" = 1 ] && tag=-ext$tag
	[ "$RT" = 1 ] && tag=-rt$tag
	[ "$LOCKSTAT" = 1 ] && tag=-lockstat$tag
	echo "$KWORK/build/$(flavour)$tag"
}

# The patches of ./series, one per line, in order, read the way quilt
# reads the file (patchfns' cat_series): a line that begins with '#' is a
# comment, blank lines do not count, and a patch is the first word of its
# line. The one parser of the series file; the banners in it are comments.
series_patches() {
	sed -e '/^#/d' -e 's/^[[:space:]]*//' -e 's/[[:space:]].*//' -e '/^$/d' \
		"${1:-$SERIES}"
}

# A hash of everything that defines the patched tree: the patches and their
# order (comments in series do not count).
series_stamp() {
	{
		echo "series:"
		series_patches 2>/dev/null
		series_patches 2>/dev/null | while read -r p; do
			md5sum <"$PATCHES/$p" 2>/dev/null || echo "missing $p"
		done
	} | md5sum | cut -d' ' -f1
}

# tree_version DIR: "VERSION.PATCHLEVEL" of a Linux source tree, or nothing
# (and status 1) if DIR is not one.
tree_version() {
	local d=$1 v p
	[ -f "$d/Makefile" ] && [ -f "$d/kernel/sched/core.c" ] &&
		[ -f "$d/scripts/kconfig/merge_config.sh" ] || return 1
	v=$(sed -n 's/^VERSION = \([0-9]*\)$/\1/p' "$d/Makefile")
	p=$(sed -n 's/^PATCHLEVEL = \([0-9]*\)$/\1/p' "$d/Makefile")
	[ -n "$v" ] && [ -n "$p" ] || return 1
	echo "$v.$p"
}

# Is this path a source tree of the kernel KVER names?
is_kver_tree() {
	[ "$(tree_version "$1")" = "$KV_VERSION.$KV_PATCHLEVEL" ]
}


# Serialise tree preparation and kernel builds between checkouts sharing
# KWORK: hold an exclusive lock on fd 9 until the calling script exits.
kwork_lock() {
	mkdir -p "$KWORK"
	exec 9>"$KWORK/.lock"
	flock -n 9 || {
		say "waiting for another build in $KWORK"
		flock 9
	}
}

# verify_config CONFIG FRAGMENT...: every option a fragment sets must be in
# CONFIG as requested (merge_config.sh only warns when Kconfig overrides one).
verify_config() {
	local cfg=$1 line sym bad=()
	local -A last=()
	shift
	# A later fragment overrides an earlier one (rt.config turns PREEMPT
	# off): check the last setting of each option.
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) last[${line%%=*}]=$line ;;
		'# CONFIG_'*' is not set')
			sym=${line#\# }
			last[${sym%% *}]=$line
			;;
		esac
	done < <(cat "$@")
	for sym in "${!last[@]}"; do
		line=${last[$sym]}
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$cfg" ||
				bad+=("$line (got: $(grep -E "^(# )?$sym[= ]" "$cfg" || echo unset))")
			;;
		*)
			grep -q "^$sym=" "$cfg" && bad+=("$line (got: $(grep "^$sym=" "$cfg"))")
			;;
		esac
	done
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'vds: config option not set as requested: %s\n' "${bad[@]}" >&2
		die "${#bad[@]} requested config option(s) missing from $cfg"
	fi
	return 0
}

# run_logged LOG WHAT COMMAND...: run a kernel make into LOG, print a
# progress line every 30 s (steps so far, the last file, the estimate left
# when ETA_STEPS gives the expected number of steps), die with the errors.
run_logged() {
	local log=$1 what=$2 pid last n eta t0
	shift 2
	"$@" >"$log" 2>&1 &
	pid=$!
	t0=$(date +%s)
	last=$t0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		if [ $(($(date +%s) - last)) -ge 30 ]; then
			last=$(date +%s)
			n=$(grep -cE '^  (CC|AS|LD|AR)' "$log")
			eta=""
			if [ -n "${ETA_STEPS:-}" ] && [ "$n" -gt 50 ] && [ "$n" -lt "$ETA_STEPS" ]; then
				eta=$(((last - t0) * (ETA_STEPS - n) / n))
				eta=", about $((eta / 60))m left"
			fi
			say "$what: $n steps so far$eta, last: $(grep -E '^  (CC|AS|LD|AR)' "$log" | tail -n1 | awk '{print $2}')"
		fi
	done
	if ! wait "$pid"; then
		grep -E 'error|Error' "$log" | head -n 20 >&2
		tail -n 5 "$log" >&2
		die "$what failed (log: $log)"
	fi
}

# save_applied_series TREE: keep a copy of the series just pushed in
# TREE/.vds-applied, so tree.sh can pop it after patches/ changed.
save_applied_series() {
	local t=$1 p
	rm -rf "$t/.vds-applied"
	mkdir -p "$t/.vds-applied"
	series_patches >"$t/.vds-applied/series"
	while read -r p; do
		cp "$PATCHES/$p" "$t/.vds-applied/"
	done <"$t/.vds-applied/series"
}
