#!/usr/bin/env bash
# Apply the VDS series to a Linux tree you already have: the series for the
# tree's own version (kernels/<VERSION.PATCHLEVEL>.conf; KVER= is not needed).
#
#   scripts/apply.sh [--check] /path/to/linux
#
# The whole series is first tried on a scratch copy of the files it touches;
# the tree is changed only when every patch applies without fuzz. With quilt
# installed (and no other quilt series in the tree) the patches are pushed
# with quilt, so `quilt pop -a` takes them off again; otherwise patch(1) is
# used. --check only tries, and changes nothing.
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: scripts/apply.sh [--check] /path/to/linux" >&2
	exit 2
}

check_only=0
case "${1:-}" in
--check)
	check_only=1
	shift
	;;
-h | --help) usage ;;
esac
[ $# -eq 1 ] || usage
tree=$1

[ -d "$tree" ] || die "$tree does not exist or is not a directory"
tree=$(cd "$tree" && pwd)
tv=$(tree_version "$tree") ||
	die "$tree is not a Linux source tree (need Makefile with VERSION, PATCHLEVEL and kernel/sched/core.c)"
load_kernel "$tv" ||
	die "$tree is Linux $tv; VDS has a series for $(kernel_versions) only"
[ "$tree" != "$REPO" ] || die "$tree is this repository, not a kernel tree"
command -v patch >/dev/null || die "patch(1) is missing (apt-get install patch)"

patches=()
while read -r p; do
	[ -f "$PATCHES/$p" ] || die "$KV_SERIES names $KV_PATCHES/$p, which does not exist"
	patches+=("$p")
done < <(series_patches)
[ ${#patches[@]} -gt 0 ] || die "the series is empty"

# Already patched: VDS's own file is there, or quilt says our first patch is applied.
if [ -e "$tree/kernel/sched/vds.c" ]; then
	die "$tree already has VDS (kernel/sched/vds.c exists); start from an unpatched tree (quilt pop -a, or a fresh copy)"
fi
if [ -d "$tree/.pc" ] && grep -qxF "${patches[0]}" "$tree/.pc/applied-patches" 2>/dev/null; then
	die "$tree already has ${patches[0]} applied (see $tree/.pc); run 'quilt pop -a' there first"
fi

sublevel=$(sed -n 's/^SUBLEVEL = //p' "$tree/Makefile")
say "apply: $tree is Linux $KVER.${sublevel:-?}; trying ${#patches[@]} patches on a scratch copy"

# The files the series touches, as they are in the tree (new files absent).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "${patches[@]/#/$PATCHES/}" | sort -u)
for f in $files; do
	if [ -e "$tree/$f" ]; then
		mkdir -p "$scratch/$(dirname "$f")"
		cp -p "$tree/$f" "$scratch/$f"
	fi
done

# patch(1) says "patching file F" then "Hunk #N FAILED at L." for each miss.
try_patch() {
	local dir=$1 p=$2 out
	if ! out=$(patch -d "$dir" -p1 -F0 -N --no-backup-if-mismatch -r - <"$PATCHES/$p" 2>&1); then
		echo "vds: error: $p does not apply to $tree:" >&2
		echo "$out" | awk '/^patching file/ {f=$3} /FAILED|can.t find file|malformed|Reversed/ {
			printf "vds:   %s: %s\n", (f == "" ? "?" : f), $0 }' >&2
		[ -n "$(echo "$out" | grep -E 'FAILED|find file|malformed|Reversed')" ] ||
			echo "$out" | sed 's/^/vds:   /' >&2
		return 1
	fi
}
for p in "${patches[@]}"; do
	try_patch "$scratch" "$p" || die "nothing was changed in $tree"
done

if [ "$check_only" = 1 ]; then
	say "apply: the series applies cleanly to $tree (--check: nothing changed)"
	exit 0
fi

if command -v quilt >/dev/null && [ ! -d "$tree/.pc" ]; then
	say "apply: pushing the series with quilt"
	export QUILT_PATCHES=$PATCHES QUILT_SERIES=$SERIES QUILT_PC=.pc
	if ! out=$(cd "$tree" && quilt --quiltrc - push -a -q --fuzz=0 2>&1); then
		(cd "$tree" && quilt --quiltrc - pop -a -q -f >/dev/null 2>&1)
		echo "$out" | sed 's/^/vds:   /' >&2
		die "quilt push failed although the scratch run passed; the tree was restored"
	fi
	save_applied_series "$tree"
	cat >&2 <<EOF
vds: applied with quilt. To work on the patches in that tree, set
vds:   export QUILT_PATCHES=$PATCHES QUILT_SERIES=$SERIES
vds: and use 'quilt pop -a' to take the series off again.
EOF
else
	say "apply: applying the series with patch(1)"
	done_list=()
	for p in "${patches[@]}"; do
		if ! try_patch "$tree" "$p"; then
			for ((i = ${#done_list[@]} - 1; i >= 0; i--)); do
				patch -d "$tree" -p1 -R -s --no-backup-if-mismatch <"$PATCHES/${done_list[i]}" >/dev/null 2>&1
			done
			die "the tree was restored to its state before apply.sh"
		fi
		done_list+=("$p")
	done
	echo "vds: applied with patch(1); to take it off: for p in \$(grep -v '^#' $SERIES | tac); do patch -R -p1 < $PATCHES/\$p; done" >&2
fi

# make KSRC=<tree> (tree.sh) sees the series as already applied.
series_stamp >"$tree/.vds-series"
say "apply: done. Next: 'make deb KSRC=$tree', or configure with configs/desktop.config (README, 'VDS on your own kernel tree')"
