#!/usr/bin/env bash
# Prepare the kernel tree: extract Debian's source of the kernel KVER names
# (kernels/$KVER.conf, or use KSRC=) and apply its series with quilt. A tree prepared for another series is brought up
# to date with quilt (pop, push), never silently reused.
. "$(dirname "$0")/lib.sh"

[ -f "$SERIES" ] || die "no series file at $SERIES"
while read -r p; do
	[ -f "$PATCHES/$p" ] || die "$KV_SERIES names $KV_PATCHES/$p, which does not exist"
done < <(series_patches)

src=$(ksrc_dir)
[ -n "${KSRC:-}" ] || kwork_lock
if [ -n "${KSRC:-}" ]; then
	[ -d "$KSRC" ] || die "KSRC=$KSRC does not exist"
	is_kver_tree "$KSRC" || die "KSRC=$KSRC is not a Linux $KVER source tree (need $KV_TREE_NEEDS)"
elif [ ! -f "$src/.vds-extracted" ]; then
	tarball=$KV_SRC_TAR
	[ -f "$tarball" ] || die "$tarball is missing; run 'make deps'"
	say "tree: extracting $tarball"
	rm -rf "$src" "${KWORK:?}/src/$KV_SRC_DIR"
	mkdir -p "$KWORK/src"
	tar -C "$KWORK/src" -xf "$tarball" || die "could not extract $tarball"
	mv "$KWORK/src/$KV_SRC_DIR" "$src"
	is_kver_tree "$src" || die "$tarball did not give a $KVER tree"
	dpkg-query -W -f='${Version}\n' "$KV_SRC_PKG" >"$src/.vds-extracted"
fi

want=$(series_stamp)
have=$(cat "$src/.vds-series" 2>/dev/null || true)
if [ "$want" = "$have" ] && [ "${FORCE_TREE:-0}" != 1 ]; then
	exit 0
fi

cd "$src" || die "cannot enter $src"
if [ -d .pc ] && [ -n "$(quilt applied 2>/dev/null)" ]; then
	# An older series is applied. Take it off from the saved backups;
	# quilt refuses if the tree has edits that were never refreshed.
	say "tree: series changed, removing the previously applied patches"
	# Pop with the patch files that were pushed (a snapshot kept in the
	# tree): after a git pull the ones in patches/ differ, and quilt would
	# take that for unrefreshed edits. quilt reads its patches folder from
	# .pc once .pc exists, so point .pc there.
	if [ -f .vds-applied/series ]; then
		# Patches a developer added with 'quilt new' after the tree was
		# prepared are not in the snapshot: take them from patches/.
		while read -r p; do
			[ -f ".vds-applied/$p" ] && continue
			[ -f "$PATCHES/$p" ] || continue
			cp "$PATCHES/$p" .vds-applied/
			grep -qxF "$p" .vds-applied/series || echo "$p" >>.vds-applied/series
		done <.pc/applied-patches
		echo "$src/.vds-applied" >.pc/.quilt_patches
		echo "$src/.vds-applied/series" >.pc/.quilt_series
	fi
	# A developer who refreshed a patch since (quilt refresh writes into
	# patches/) has in the tree what patches/ says, not the snapshot:
	# then the rest comes off with patches/.
	if ! quilt pop -a -q >/dev/null 2>&1; then
		echo "$QUILT_PATCHES" >.pc/.quilt_patches
		echo "$QUILT_SERIES" >.pc/.quilt_series
	fi
	if [ -n "$(quilt applied 2>/dev/null)" ] && ! out=$(quilt pop -a -q 2>&1); then
		echo "$out" >&2
		# Point quilt back at the repository, or the developer's next
		# 'quilt refresh' would write into the snapshot, not patches/.
		echo "$QUILT_PATCHES" >.pc/.quilt_patches
		echo "$QUILT_SERIES" >.pc/.quilt_series
		die "the tree at $src has changes that are not in patches/ ('quilt refresh' them, or 'make tree-reset' to discard)"
	fi
elif [ -n "${KSRC:-}" ] && [ ! -d .pc ] && grep -rqs 'CONFIG_SCHED_VDS' kernel/sched/Makefile init/Kconfig; then
	die "KSRC=$KSRC already carries VDS changes that quilt does not know about; use a clean $KVER tree"
fi
rm -f .vds-series
# Nothing applied: a fresh .pc takes QUILT_PATCHES/QUILT_SERIES from lib.sh.
[ -d .pc ] && [ ! -s .pc/applied-patches ] && rm -rf .pc

n=$(series_patches | wc -l)
say "tree: applying $n patches from series to $src"
while read -r p; do
	if ! out=$(quilt push -q "$p" 2>&1); then
		echo "$out" | tail -n 20 >&2
		quilt pop -a -q >/dev/null 2>&1 || true
		die "patch $p does not apply to $src (quilt says above); the tree was left unpatched"
	fi
done < <(series_patches)
save_applied_series "$src"
echo "$want" >.vds-series
say "tree: ready ($(quilt applied 2>/dev/null | wc -l) patches applied)"
