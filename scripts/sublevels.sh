#!/usr/bin/env bash
# Which sublevels of the kernel KVER names does its series apply to? For every
# version of its source package (kernels/$KVER.conf) still in Debian's archive (or the versions given as arguments), take the
# files the series touches and run scripts/apply.sh --check on them twice:
#   debian   the files as Debian ships them;
#   vanilla  the same files with Debian's own changes to them taken out.
# Debian's patches touch one of our files: debian/export-symbols-needed-by-
# android-drivers.patch adds EXPORT_SYMBOL_GPL(can_nice) to
# kernel/sched/syscalls.c. Deleting that line gives kernel.org's file.
# Nothing is built; each version is a 150 MB download, kept in WORK.
#
# SUITES="trixie-security ..." looks in those suites of Debian's archive
# instead of the machine's own, through a private apt configuration in WORK
# (the machine's sources are never changed): a suite whose name ends in
# -security comes from the security archive, the others from the archive
# this machine uses.
. "$(dirname "$0")/lib.sh"

apt_opts=()
if [ -n "${SUITES:-}" ]; then
	a=$WORK/apt-suites
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
	uri=${uri:-http://deb.debian.org/debian}
	: >"$a/sources.list"
	for suite in $SUITES; do
		case "$suite" in
		*[!a-z0-9-]* | '') die "SUITES: '$suite' is not a suite name" ;;
		*-security) echo "deb ${uri%/debian}/debian-security $suite main" ;;
		*) echo "deb $uri $suite main" ;;
		esac >>"$a/sources.list"
	done
	apt_opts=(-o "Dir::Etc::SourceList=$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache")
	apt-get "${apt_opts[@]}" update -q >"$a/update.log" 2>&1 ||
		die "apt-get update for SUITES='$SUITES' failed (see $a/update.log)"
fi

vers=("$@")
if [ ${#vers[@]} -eq 0 ]; then
	mapfile -t vers < <(apt-cache "${apt_opts[@]}" madison "$KV_SRC_PKG" | awk '{print $3}' | sort -uV)
fi
[ ${#vers[@]} -gt 0 ] || die "no $KV_SRC_PKG versions in the archive"

dl=$WORK/sublevels
mkdir -p "$dl"
files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$PATCHES"/*.patch | sort -u)
want="Makefile scripts/kconfig/merge_config.sh $files"

printf '%-22s %-8s %-8s\n' version debian vanilla
bad=0
for v in "${vers[@]}"; do
	deb=$(ls "$dl/${KV_SRC_PKG}_${v/:/%3a}_all.deb" 2>/dev/null | head -n1)
	if [ -z "$deb" ]; then
		(cd "$dl" && apt-get "${apt_opts[@]}" download -q "$KV_SRC_PKG=$v" >/dev/null 2>&1) ||
			die "could not download $KV_SRC_PKG=$v"
		deb=$(ls "$dl/${KV_SRC_PKG}_"*"${v#*:}"_all.deb | head -n1)
	fi
	t=$(mktemp -d)
	# Only the files the check needs; new files of the series are absent.
	members=()
	for f in $want; do members+=("$KV_SRC_DIR/$f"); done
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ".$KV_SRC_TAR" |
		tar -xJ -C "$t" --wildcards "${members[@]}" 2>/dev/null
	d=$t/$KV_SRC_DIR
	r1=fails
	bash "$REPO/scripts/apply.sh" --check "$d" >"$t/debian.log" 2>&1 && r1=applies
	# Take Debian's export out: the vanilla kernel.org file.
	sed -i '/^EXPORT_SYMBOL_GPL(can_nice);$/d' "$d/kernel/sched/syscalls.c"
	r2=fails
	bash "$REPO/scripts/apply.sh" --check "$d" >"$t/vanilla.log" 2>&1 && r2=applies
	printf '%-22s %-8s %-8s\n' "$v" "$r1" "$r2"
	if [ "$r1" != applies ] || [ "$r2" != applies ]; then
		bad=1
		grep -h 'vds:' "$t"/*.log | sed 's/^/    /'
	fi
	rm -rf "$t"
done
exit $bad
