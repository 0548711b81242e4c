#!/usr/bin/env bash
# Discard the prepared tree's patches and edits; the next make re-applies series.
. "$(dirname "$0")/lib.sh"
[ -n "${KSRC:-}" ] && die "tree-reset only works on the extracted tree, not on KSRC=$KSRC"
src=$(ksrc_dir)
[ -d "$src" ] || exit 0
cd "$src" || exit 1
[ -d .pc ] && quilt pop -a -f -q >/dev/null 2>&1
rm -f .vds-series
say "tree-reset: $src is unpatched; 'make tree' applies series again"
