#!/usr/bin/env bash
# Host-side tests of the harness: bad input is refused with one clear line
# and a non-zero exit, the guest-log verdict catches what it must, and the
# run's summary (scripts/summary.py) adds up.
# Prints TAP (the plan first) on stdout, notes on stderr; the last line
# of stdout is "passed failed" for check.sh to add up (skipped points are
# counted in neither).
REPO=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# The plan: every check this script makes, skipped ones included. Each
# ok, expect_fail and vcase call is one check; the --json loop below
# makes one per console fixture and one for a clean log. A block that
# cannot run here calls skip with the number of checks it holds. At the
# end, a count that differs from the plan fails the run: a check that
# vanished without a word, or one added without raising the plan.
consoles=("$REPO"/tests/host/fixtures/*.console)
PLAN=$((93 + ${#consoles[@]} + 1))
echo "1..$PLAN"
n=0 pass=0 fail=0 skipped=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}
# skip COUNT why: COUNT checks that cannot run here, for a reason given.
skip() {
	local i
	for ((i = 0; i < $1; i++)); do
		n=$((n + 1)) skipped=$((skipped + 1))
		echo "ok $n # SKIP $2"
	done
}
# expect_fail "description" "regex the message must match" command...
expect_fail() {
	local desc=$1 re=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && echo "$out" | grep -qE "$re"; then
		ok 0 "$desc"
	else
		ok 1 "$desc (rc=$rc, said: $(echo "$out" | tail -n1))"
	fi
}

# The prepared tree (for the apply.sh tests), before WORK points elsewhere.
src=$(cd "$REPO" && . scripts/lib.sh && ksrc_dir)
stamp=$(cd "$REPO" && . scripts/lib.sh && series_stamp)
export WORK=$T/work
expect_fail "SMP=0 is refused" "SMP=0 is out of range" env SMP=0 bash "$REPO/scripts/build.sh"
expect_fail "SMP=abc is refused" "SMP='abc' is not a number" env SMP=abc bash "$REPO/scripts/build.sh"
expect_fail "DEBUG=yes is refused" "DEBUG='yes' must be 0 or 1" env DEBUG=yes bash "$REPO/scripts/build.sh"
expect_fail "LOCKSTAT=2 is refused" "LOCKSTAT='2' must be 0 or 1" env LOCKSTAT=2 bash "$REPO/scripts/build.sh"
expect_fail "SOAK=abc is refused" "SOAK='abc' is not a number" env SOAK=abc bash "$REPO/scripts/build.sh"
expect_fail "SOAK=2000 is refused" "SOAK=2000 is out of range" env SOAK=2000 bash "$REPO/scripts/build.sh"
expect_fail "SEED=-3 is refused" "SEED='-3' is not a number" env SEED=-3 bash "$REPO/scripts/build.sh"
expect_fail "bench BAD=3 is refused (BAD=1 and BAD=2 are the bad settings)" "BAD='3' must be 0, 1 or 2" env BAD=3 bash "$REPO/scripts/bench.sh"
expect_fail "bench ROUNDS=0 is refused" "ROUNDS='0' must be a number >= 1" env ROUNDS=0 bash "$REPO/scripts/bench.sh"
expect_fail "bench CLOCKSOURCE=bogus is refused" "CLOCKSOURCE='bogus' must be tsc, hpet or unstable" env CLOCKSOURCE=bogus bash "$REPO/scripts/bench.sh"
expect_fail "a missing KSRC is refused" "KSRC=/nonexistent does not exist" \
	env KSRC=/nonexistent bash "$REPO/scripts/tree.sh"
mkdir -p "$T/notlinux/kernel"
echo "VERSION = 5" >"$T/notlinux/Makefile"
expect_fail "a KSRC that is not a 6.12 tree is refused" "is not a Linux 6.12 source tree" \
	env KSRC="$T/notlinux" bash "$REPO/scripts/tree.sh"
# The kernel version: KVER names a kernels/*.conf; apply.sh takes the tree's.
expect_fail "a KVER without kernels/KVER.conf is refused, naming the ones there are" \
	"KVER=7\.3: no kernels/7\.3\.conf \(there are: $(cd "$REPO" && . scripts/lib.sh && kernel_versions)\)" \
	env KVER=7.3 bash "$REPO/scripts/tree.sh"
mkdir -p "$T/v613/kernel/sched" "$T/v613/scripts/kconfig"
printf 'VERSION = 6\nPATCHLEVEL = 13\nSUBLEVEL = 1\n' >"$T/v613/Makefile"
: >"$T/v613/kernel/sched/core.c"
: >"$T/v613/scripts/kconfig/merge_config.sh"
expect_fail "apply.sh refuses a tree of a version it has no series for, naming the ones it has" \
	"is Linux 6\.13; VDS has a series for $(cd "$REPO" && . scripts/lib.sh && kernel_versions) only" \
	bash "$REPO/scripts/apply.sh" --check "$T/v613"
expect_fail "a KSRC of another version than KVER is refused" "is not a Linux $(cd "$REPO" && . scripts/lib.sh && echo "$KVER") source tree" \
	env KSRC="$T/v613" bash "$REPO/scripts/tree.sh"
expect_fail "sublevels.sh refuses a SUITES entry that is not a suite name" "SUITES: 'bad/suite' is not a suite name" \
	env SUITES="trixie-security bad/suite" WORK="$T/work" bash "$REPO/scripts/sublevels.sh"
[ -z "$(grep -n -E '[0-9]\.[0-9]+\.[0-9]+-[0-9]|linux-(source|config)-[0-9]|PATCHLEVEL = [0-9]' "$REPO"/scripts/*.sh "$REPO"/scripts/*.py)" ]
ok $? "no script names a kernel version (kernels/*.conf do)"
# A series entry with no file: run against a copy of the repository.
mkdir -p "$T/repo"
cp -r "$REPO/scripts" "$REPO/kernels" "$REPO/series" "$REPO/patches" "$T/repo/"
echo "9999-missing.patch" >>"$T/repo/series"
expect_fail "a series entry without a patch file is refused" "series names patches/9999-missing.patch, which does not exist" \
	bash "$T/repo/scripts/tree.sh"
[ ! -e "$T/work/src" ]
ok $? "refused runs leave nothing half-done behind"

# The series file has one reader (lib.sh's series_patches), which reads it
# as quilt does: banners and blank lines are not patches and do not change
# the stamp that decides whether a prepared tree is up to date.
mkdir -p "$T/repo2"
cp -r "$REPO/scripts" "$REPO/kernels" "$REPO/series" "$REPO/patches" "$T/repo2/"
{ echo "# a banner"; echo; cat "$REPO/series"; echo "# trailing"; } >"$T/repo2/series.new"
mv "$T/repo2/series.new" "$T/repo2/series"
[ "$(cd "$T/repo2" && . scripts/lib.sh && series_stamp)" = "$stamp" ]
ok $? "comments and blank lines in series leave the series stamp alone"
[ "$(cd "$T/repo2" && . scripts/lib.sh && series_patches)" = \
	"$(cd "$REPO" && QUILT_SERIES="$T/repo2/series" QUILT_PATCHES="$REPO/patches" quilt --quiltrc - series 2>/dev/null | sed 's,.*/,,')" ]
ok $? "series_patches lists what quilt lists"
[ "$(cd "$REPO" && . scripts/lib.sh && series_patches | grep -c .)" = "$(ls "$REPO"/patches/*.patch | wc -l)" ]
ok $? "series names every file in patches/"
sed -i '0,/^0/s/^0/#0/' "$T/repo2/series"
[ "$(cd "$T/repo2" && . scripts/lib.sh && series_stamp)" != "$stamp" ]
ok $? "commenting a patch out changes the series stamp"

# scripts/apply.sh on a scratch tree holding only what it needs: the
# unpatched files the series touches (quilt keeps them under .pc/).
if [ -f "$src/.pc/applied-patches" ] && [ "$(cat "$src/.vds-series" 2>/dev/null)" = "$stamp" ]; then
	pt=$T/pristine
	mkdir -p "$pt/scripts/kconfig"
	cp "$src/Makefile" "$pt/"
	cp "$src/scripts/kconfig/merge_config.sh" "$pt/scripts/kconfig/"
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$REPO"/patches/*.patch | sort -u); do
		for p in $(cat "$src/.pc/applied-patches"); do
			if [ -f "$src/.pc/$p/$f" ]; then
				[ -s "$src/.pc/$p/$f" ] && mkdir -p "$pt/$(dirname "$f")" && cp "$src/.pc/$p/$f" "$pt/$f"
				break
			fi
		done
	done
	sum() { find "$1" -type f | sort | xargs md5sum | md5sum; }
	expect_fail "apply.sh refuses a directory that is not a kernel tree" "is not a Linux source tree" \
		bash "$REPO/scripts/apply.sh" "$T/notlinux"
	expect_fail "apply.sh refuses a missing tree" "does not exist" bash "$REPO/scripts/apply.sh" "$T/nope"
	cp -r "$pt" "$T/broken"
	sed -i 's/^\tINIT_LIST_HEAD(&p->se.group_node);$/\tINIT_LIST_HEAD(\&p->se.group_node); \/\* changed \*\//' \
		"$T/broken/kernel/sched/core.c"
	before=$(sum "$T/broken")
	expect_fail "apply.sh names the patch and file of a conflict" \
		"0001-.*does not apply|kernel/sched/core.c: Hunk" bash "$REPO/scripts/apply.sh" "$T/broken"
	[ "$(sum "$T/broken")" = "$before" ]
	ok $? "a conflicting tree is left unchanged"
	bash "$REPO/scripts/apply.sh" --check "$pt" >/dev/null 2>&1 && [ ! -e "$pt/kernel/sched/vds.c" ]
	ok $? "apply.sh --check passes on the unpatched files and changes nothing"
	cp -r "$pt" "$T/vanilla"
	sed -i '/^EXPORT_SYMBOL_GPL(can_nice);$/d' "$T/vanilla/kernel/sched/syscalls.c"
	bash "$REPO/scripts/apply.sh" --check "$T/vanilla" >/dev/null 2>&1
	ok $? "the series applies to the vanilla files (Debian's can_nice export removed)"
	bash "$REPO/scripts/apply.sh" "$pt" >/dev/null 2>&1 &&
		[ -f "$pt/kernel/sched/vds.c" ] && cmp -s "$pt/kernel/sched/vds.c" "$src/kernel/sched/vds.c"
	ok $? "apply.sh gives the same vds.c as the prepared tree"
	expect_fail "apply.sh refuses a tree that already has VDS" "already has VDS" bash "$REPO/scripts/apply.sh" "$pt"
	python3 "$REPO/scripts/hunk-unique.py" "$src" "$REPO/patches" <(cd "$REPO" && . scripts/lib.sh && series_patches) >/dev/null
	ok $? "every hunk of the series matches exactly one place"
else
	skip 9 "apply.sh tests need the tree prepared for this series ($src): run 'make tree' first"
fi

# tree.sh on a tree with edits that were never refreshed: it refuses to
# re-prepare it, and quilt in that tree still refreshes into patches/.
ft=$T/ft fr=$T/frepo
mkdir -p "$ft/kernel/sched" "$ft/scripts/kconfig" "$fr/patches"
printf 'VERSION = 6\nPATCHLEVEL = 12\n' >"$ft/Makefile"
printf 'int x;\n' >"$ft/kernel/sched/core.c"
: >"$ft/scripts/kconfig/merge_config.sh"
cp -r "$REPO/scripts" "$REPO/kernels" "$fr/"
echo "0001-x.patch" >"$fr/series"
mkpatch() {
	printf 'From: t <t@example.org>\nSubject: [PATCH] x\n\n--- a/kernel/sched/core.c\n+++ b/kernel/sched/core.c\n@@ -1 +1 @@\n-int x;\n+int x = %s;\n' \
		"$1" >"$fr/patches/0001-x.patch"
}
mkpatch 1
env KSRC="$ft" bash "$fr/scripts/tree.sh" >/dev/null 2>&1 && grep -q 'int x = 1;' "$ft/kernel/sched/core.c"
ok $? "tree.sh applies a series to KSRC"
echo '/* never refreshed */' >>"$ft/kernel/sched/core.c"
mkpatch 2
expect_fail "tree.sh refuses to re-prepare a tree with unrefreshed edits" "has changes that are not in patches/" \
	env KSRC="$ft" bash "$fr/scripts/tree.sh"
[ "$(cat "$ft/.pc/.quilt_patches" 2>/dev/null)" = "$fr/patches" ]
ok $? "after that refusal quilt in the tree refreshes into patches/, not the tree's snapshot"

# A patch added on top with 'quilt new' after the tree was prepared, then a
# change to an earlier patch: tree.sh takes the series off and on again.
ft2=$T/ft2 fr2=$T/frepo2
mkdir -p "$ft2/kernel/sched" "$ft2/scripts/kconfig" "$fr2/patches"
printf 'VERSION = 6\nPATCHLEVEL = 12\n' >"$ft2/Makefile"
printf 'int x;\nint y;\n' >"$ft2/kernel/sched/core.c"
: >"$ft2/scripts/kconfig/merge_config.sh"
cp -r "$REPO/scripts" "$REPO/kernels" "$fr2/"
echo "0001-x.patch" >"$fr2/series"
printf 'From: t <t@example.org>\nSubject: [PATCH] x\n\n--- a/kernel/sched/core.c\n+++ b/kernel/sched/core.c\n@@ -1,2 +1,2 @@\n-int x;\n+int x = 1;\n int y;\n' >"$fr2/patches/0001-x.patch"
env KSRC="$ft2" bash "$fr2/scripts/tree.sh" >/dev/null 2>&1
(cd "$ft2" && export QUILTRC="$fr2/scripts/quiltrc" QUILT_PATCHES="$fr2/patches" QUILT_SERIES="$fr2/series" &&
	quilt new 0002-y.patch && quilt add kernel/sched/core.c && sed -i 's/^int y;/int y = 2;/' kernel/sched/core.c &&
	quilt refresh) >/dev/null 2>&1
sed -i 's/int x = 1;/int x = 3;/' "$fr2/patches/0001-x.patch"
env KSRC="$ft2" bash "$fr2/scripts/tree.sh" >/dev/null 2>&1 &&
	grep -q 'int x = 3;' "$ft2/kernel/sched/core.c" && grep -q 'int y = 2;' "$ft2/kernel/sched/core.c"
ok $? "tree.sh re-prepares a tree that has a patch added with quilt new since"
(cd "$ft2" && export QUILTRC="$fr2/scripts/quiltrc" QUILT_PATCHES="$fr2/patches" QUILT_SERIES="$fr2/series" &&
	quilt pop -q 0001-x.patch && sed -i 's/int x = 3;/int x = 4;/' kernel/sched/core.c &&
	quilt refresh && quilt push -aq) >/dev/null 2>&1
env KSRC="$ft2" bash "$fr2/scripts/tree.sh" >/dev/null 2>&1 &&
	grep -q 'int x = 4;' "$ft2/kernel/sched/core.c" && grep -q 'int y = 2;' "$ft2/kernel/sched/core.c"
ok $? "tree.sh re-prepares a tree after a quilt refresh of an applied patch"

# verify_config: the last fragment that sets an option decides.
printf 'CONFIG_A=y\nCONFIG_B=y\n' >"$T/f1"
printf '# CONFIG_A is not set\n' >"$T/f2"
printf 'CONFIG_B=y\n# CONFIG_A is not set\n' >"$T/cfg1"
(. "$REPO/scripts/lib.sh" && verify_config "$T/cfg1" "$T/f1" "$T/f2") >/dev/null 2>&1
ok $? "verify_config accepts an option a later fragment turns off"
printf 'CONFIG_B=y\nCONFIG_A=y\n' >"$T/cfg2"
expect_fail "verify_config refuses an option that the last fragment turns off but is set" \
	"CONFIG_A is not set" bash -c ". '$REPO/scripts/lib.sh' && verify_config '$T/cfg2' '$T/f1' '$T/f2'"

# The verdict: a clean log passes, each kind of kernel report fails.
printf '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..1\nok 1 - fine\n@@VDS-TEST-END t rc=0 secs=1\n@@VDS-DONE\n' >"$T/res"
printf '[    0.1] Linux version 6.12\n[    0.2] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable\n' >"$T/con"
r=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$T/con" t | tail -n1)
[ "$r" = "2 0" ]
ok $? "a clean run passes (got '$r')"
for bad in "WARNING: CPU: 1 PID: 5 at kernel/sched/vds.c:10 foo+0x1/0x2" \
	"BUG: kernel NULL pointer dereference, address: 0000000000000000" \
	"Oops: general protection fault" "WARNING: possible circular locking dependency detected" \
	"UBSAN: array-index-out-of-bounds in kernel/sched/vds.c:1:2" \
	"rcu: INFO: rcu_preempt self-detected stall on CPU" \
	"watchdog: BUG: soft lockup - CPU#0 stuck for 22s!" \
	"INFO: task kworker:1 blocked for more than 30 seconds." \
	"BUG: KASAN: slab-use-after-free in vds_queue+0x1/0x2" \
	"Kernel panic - not syncing: hung"; do
	printf '[    0.1] Linux\n[    1.0] %s\n' "$bad" >"$T/con"
	r=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$T/con" t | tail -n1)
	[ "$r" = "1 1" ]
	ok $? "the verdict fails on: ${bad:0:50}"
done
# A real console log of the debug kernel with a WARN in it (a multi-line
# report, as the kernel prints it) fails the run and quotes the WARNING line.
out=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$REPO/tests/host/fixtures/warn.console" t)
[ "$(echo "$out" | tail -n1)" = "1 1" ] && echo "$out" | grep -q 'WARNING: CPU: 3 PID: 1083 at kernel/sched/sched.h'
ok $? "the verdict fails a real captured WARN console log, quoting the WARNING line"
out=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$REPO/tests/host/fixtures/hung.console" t)
[ "$(echo "$out" | tail -n1)" = "1 1" ] && echo "$out" | grep -q 'INFO: task verdict_canary:189 blocked for more than 2 seconds'
ok $? "the verdict fails the canary boot's real hung-task log, quoting the INFO line"
# KCSAN: a data race in VDS code fails the log; one in mainline code is
# noted and does not.
kc() { printf '[    1.0] ==================================================================\n[    1.0] BUG: KCSAN: data-race in %s / %s\n[    1.0] \n[    1.0] write to 0xffff888003 of 8 bytes by task 1 on cpu 0:\n[    1.0]  %s+0x2c/0x80\n[    1.0] Reported by Kernel Concurrency Sanitizer on:\n[    1.0] ==================================================================\n' "$1" "$2" "$1"; }
{ printf '[    0.1] Linux\n'; kc balance_vds enqueue_task_vds; } >"$T/con"
r=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$T/con" t | tail -n1)
[ "$r" = "1 1" ]
ok $? "the verdict fails a KCSAN data race in VDS code (got '$r')"
{ printf '[    0.1] Linux\n'; kc tick_nohz_idle_enter hrtimer_interrupt; } >"$T/con"
out=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$T/con" t)
[ "$(echo "$out" | tail -n1)" = "2 0" ] && echo "$out" | grep -q 'KCSAN: data-race in tick_nohz_idle_enter'
ok $? "a KCSAN data race outside VDS code is noted, not failed"
# Called from VDS, racing in mainline: mainline's (vds_clock() reads the
# fast timekeeper, which KCSAN reports against timekeeping_update()).
{ printf '[    0.1] Linux\n'; kc ktime_get_mono_fast_ns timekeeping_update | sed 's/^\(.*+0x2c\/0x80\)$/\1\n[    1.0]  enqueue_task_vds+0x10\/0x90/'; } >"$T/con"
out=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$T/con" t)
[ "$(echo "$out" | tail -n1)" = "2 0" ] && grep -q enqueue_task_vds "$T/con"
ok $? "a KCSAN race in mainline code called from VDS is noted, not failed"
# One verdict case: results (printf %b), the expected "passed failed" line,
# a text the output must contain ('' for none), what it checks.
vcase() {
	printf '%b' "$1" >"$T/res"
	out=$(python3 "$REPO/scripts/verdict.py" ${VOPT:-} b "$T/res" "$T/con" t)
	[ "$(echo "$out" | tail -n1)" = "$2" ] && { [ -z "$3" ] || echo "$out" | grep -qF "$3"; }
	ok $? "$4 (got '$(echo "$out" | tail -n1)')"
}
# A "retry" test: a failed first attempt followed by a passing one passes
# and names the first failure; two failed attempts fail.
printf '[    0.1] Linux\n' >"$T/con"
vcase '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..1\nnot ok 1 - slow\n@@VDS-TEST-RETRY t rc=1\n1..1\nok 1 - fine\n@@VDS-TEST-END t rc=0 secs=1\n@@VDS-DONE\n' \
	"2 0" 'retried, the first attempt failed: not ok 1 - slow' \
	"a retried test counts its second attempt and names the first one's failure"
vcase '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..1\nnot ok 1 - slow\n@@VDS-TEST-RETRY t rc=1\n1..1\nnot ok 1 - slow again\n@@VDS-TEST-END t rc=1 secs=1\n@@VDS-DONE\n' \
	"1 1" '' "a retried test that fails twice fails"
# The guest retries only tests flagged "retry" in tests/list, and the boot
# budget allows for the second run.
grep -q 'case " $flags " in \*" retry "\*)' "$REPO/scripts/guest-init.sh" &&
	[ "$(awk '/ retry( |$)/' "$REPO/tests/list" | wc -l)" -ge 1 ]
ok $? "guest-init.sh retries the tests tests/list flags \"retry\""
# A hung test explains itself: the guest's run_test writes a hang record
# into the boot's share (NAME.share beside NAME.results) before the kill,
# and its failure names the record; a first attempt's record is named
# among a retried test's first failures. A record name that is not one
# of run_test's is ignored.
hb=$T/hang
mkdir -p "$hb/vds-smp4.share"
cp "$REPO/tests/host/fixtures/hang.results" "$hb/vds-smp4.results"
echo "hang record" >"$hb/vds-smp4.share/hang-cgroup_max.txt"
echo "hang record" >"$hb/vds-smp4.share/hang-vds_sync.txt"
out=$(python3 "$REPO/scripts/verdict.py" --json "$hb/v.json" vds-smp4 "$hb/vds-smp4.results" \
	"$REPO/tests/host/fixtures/hang.console" cgroup_max,hackbench.sh,vds_sync)
[ "$(echo "$out" | tail -n1)" = "6 1" ] &&
	echo "$out" | grep -qxF "       killed at its timeout; hang record: $hb/vds-smp4.share/hang-cgroup_max.txt" &&
	echo "$out" | grep -qxF "       retried, the first attempt failed: killed at its timeout; hang record: $hb/vds-smp4.share/hang-vds_sync.txt" &&
	echo "$out" | grep -q '^  ok   guest log of vds-smp4 is clean' &&
	python3 - "$hb/v.json" "$hb/vds-smp4.share" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
c, h, v = b["tests"]
assert (c["name"], c["status"], c["failed"]) == ("cgroup_max", "FAIL", 1), c
assert c["hang_record"] == sys.argv[2] + "/hang-cgroup_max.txt", c
assert c["reason"][0] == "killed at its timeout; hang record: " + c["hang_record"], c
assert "hang_record" not in h and (v["status"], v["failed"]) == ("ok", 0), (h, v)
assert v["retried"] == ["killed at its timeout; hang record: " + sys.argv[2] + "/hang-vds_sync.txt"], v
PY
ok $? "a hung test's failure names its hang record in the boot's share, in the text and the JSON"
vcase '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..1\n@@VDS-HANG t record=../../x.txt\n@@VDS-TEST-END t rc=137 secs=9\n@@VDS-DONE\n' \
	"1 1" 'exited with status 137 (killed by the test timeout)' "a @@VDS-HANG line naming no record of run_test's is ignored"
# run_test itself, from guest-init.sh, under busybox sh on this host (no
# sysrq, no kernel log): at the timeout a test's tree (a shell with
# children) is recorded thread by thread, killed to the last task, and the
# status is timeout -s KILL's.
if command -v busybox >/dev/null; then
	gd=$T/guest
	mkdir -p "$gd/bin" "$gd/share"
	printf '#!/bin/sh\necho 1..1\nsleep 97 &\n(sleep 98; :) &\nsleep 99\n' >"$gd/bin/stuck.sh"
	chmod +x "$gd/bin/stuck.sh"
	sed -n '/^# >>> hang functions/,/^# <<< hang functions/p' "$REPO/scripts/guest-init.sh" >"$gd/f.sh"
	(cd "$gd" && busybox sh -c '. ./f.sh; hang_dir=$PWD/share hang_sysrq=0 dir=$PWD/bin out=$PWD/out
		run_test stuck.sh 2 hang-stuck.sh.txt; echo "rc=$?" >rc') >/dev/null 2>&1
	rec=$gd/share/hang-stuck.sh.txt
	# The tree's tasks still alive (a zombie is dead).
	left=$(sed -n 's/^task \([0-9]*\) .*/\1/p' "$rec" 2>/dev/null | while read -r p; do
		s=$(cat "/proc/$p/stat" 2>/dev/null) && [ "$(echo "${s##*) }" | cut -d' ' -f1)" != Z ] && printf '%s ' "$p"; done)
	[ "$(cat "$gd/rc" 2>/dev/null)" = rc=137 ] && grep -qx '@@VDS-HANG stuck.sh record=hang-stuck.sh.txt' "$gd/out" &&
		[ "$(grep -c '^task [0-9]* (parent [0-9]*): ' "$rec")" = 5 ] &&
		grep -q '^  thread [0-9]* (sleep): state S (sleeping), cpu [0-9]*, wchan ' "$rec" &&
		grep -qx '== end of the record' "$rec" && [ -z "$left" ]
	ok $? "guest-init.sh's run_test records a test's tree at its timeout, kills it all, returns 137${left:+ (left: $left)}"
else
	skip 1 "guest-init.sh's run_test is tested under busybox sh: install busybox-static ('make deps')"
fi
# A test whose every point skipped fails; one with a skip beside a pass does not.
vcase '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..2\nok 1 # SKIP needs 8 CPUs\nok 2 # SKIP needs 8 CPUs\n@@VDS-TEST-END t rc=0 secs=1\n@@VDS-DONE\n' \
	"1 1" 'every point skipped (2): nothing was asserted' "a test whose every point skipped fails"
vcase '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..2\nok 1 # SKIP not here\nok 2 - fine\n@@VDS-TEST-END t rc=0 secs=1\n@@VDS-DONE\n' \
	"2 0" '' "a test with a skipped point beside a passing one passes"
# A test that does not apply skips itself as a whole (exit 4 after
# "1..0 # SKIP why"): a skipped test where the boot may skip (vds=off),
# a failure on a VDS boot, and a failure anywhere without a reason.
sk='@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..0 # SKIP VDS is not the active scheduler\n@@VDS-TEST-END t rc=4 secs=0\n@@VDS-DONE\n'
VOPT=--may-skip vcase "$sk" "1 0" 'skip t: VDS is not the active scheduler' \
	"a test that skipped itself is a skipped test on a boot that may skip"
vcase "$sk" "1 1" 'skipped itself on a boot where every test applies' \
	"a test that skipped itself fails on a boot where every test applies"
VOPT=--may-skip vcase '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n@@VDS-TEST-END t rc=4 secs=0\n@@VDS-DONE\n' \
	"1 1" 'without saying why' "exit 4 without a \"1..0 # SKIP why\" line fails"
VOPT=--may-skip vcase '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..2\nok 1 - a\nnot ok 2 - b\n@@VDS-TEST-END t rc=4 secs=0\n@@VDS-DONE\n' \
	"2 1" 'not ok 2 - b' "a test that asserted and then exited 4 is judged on its points"
# The manifest names no scheduler: the vds=off boot is planned the same
# tests as the VDS boot, and every test VDS's own semantics need skips
# itself through need_vds() (or tap_skip_all()) before its plan.
nsched=$(awk '!/^#/ && NF && ($3 == "any" || $3 == "vds")' "$REPO/tests/list" | wc -l)
miss=""
for c in "$REPO"/tests/vds_*.c "$REPO"/tests/iso_*.c "$REPO"/tests/pi_chain.c \
	"$REPO"/tests/idleprio.c "$REPO"/tests/sched_badargs.c "$REPO"/tests/sched_watchdog.c \
	"$REPO"/tests/hotplug_affinity.c; do
	awk '/need_vds\(\);/ { n = 1 } /tap_plan\(/ { exit !n } END { exit !n }' "$c" || miss="$miss $(basename "$c")"
done
[ "$nsched" = 0 ] && [ -z "$miss" ]
ok $? "tests/list names no scheduler; VDS-only tests call need_vds() before their plan (missing:${miss:- none})"
# Tests flagged "smp8" are planned only on boots with 8 or more vCPUs,
# unless ONLY= names them (then they run and fail if they only skip).
e4=$(SMP=4 ONLY= RT=0 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; expected main 4")
e8=$(ONLY= RT=0 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; expected main 8")
eo=$(ONLY=hotplug_storm RT=0 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; expected main 4")
[[ ",$e4," != *,hotplug_storm,* && ",$e8," == *,hotplug_storm,* && "$eo" = hotplug_storm ]]
ok $? "hotplug_storm (smp8) is planned at 8 vCPUs, not at 4 unless ONLY= names it"
# The plan handed to the guest keeps each planned line whole (flags too).
pl=$(ONLY= RT=0 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; plan_lines main '' 4")
echo "$pl" | grep -qE '^vds_batch +[0-9]+ +retry$' && ! echo "$pl" | grep -q '^hotplug_storm ' &&
	[ "$(echo "$pl" | awk '{print $1}' | paste -sd, -)" = "$e4" ]
ok $? "the guest's plan is the planned lines of tests/list, flags included"
# A PREEMPT_RT kernel's boots (RT=1) leave out the tests flagged nort,
# unless ONLY= names them; the plan is otherwise the normal one (CI's RT
# pass is make check RT=1, no list of its own).
er=$(ONLY= RT=1 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; expected main 4")
eno=$(ONLY=frames RT=1 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; expected main 4")
nort=$(awk '!/^#/ && / nort( |$)/ { print $1 }' "$REPO/tests/list" | paste -sd, -)
[ -n "$nort" ] && [[ ",$nort," == *,frames,* ]] && [ "$eno" = frames ] &&
	[ "$er" = "$(echo "$e4" | tr , '\n' | grep -vxF -f <(echo "$nort" | tr , '\n') | paste -sd, -)" ]
ok $? "RT=1 plans every test but those flagged nort ($nort), and ONLY= still names one"
# One path from a boot to its verdict (scripts/judge.sh): make, make
# check's boots and canary and make bench call boot_judge, and nothing
# else runs boot.sh or verdict.py on a boot.
direct=$(grep -lE 'scripts/(boot\.sh|verdict\.py)"' "$REPO"/scripts/*.sh | grep -v '/judge\.sh$' | xargs -r -n1 basename | paste -sd' ' -)
[ -z "$direct" ] && [ "$(grep -c 'boot_judge ' "$REPO/scripts/check.sh")" -ge 3 ] &&
	grep -q 'boot_judge ' "$REPO/scripts/bench.sh"
ok $? "boots are judged through judge.sh's boot_judge only (direct calls in: ${direct:-none})"
# The 8-vCPU and nohz_full boots run the tests flagged for them (no list
# of names in check.sh): wide or smp8, and nohz.
pw=$(ONLY= RT=0 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; expected wide 8")
pn=$(ONLY= RT=0 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; expected nohz 4")
pc=$(ONLY= RT=0 bash -c ". '$REPO/scripts/lib.sh'; . '$REPO/scripts/plan.sh'; has_ext=0; expected canary 2")
[ "$pw" = "$(awk '!/^#/ && / (wide|smp8)( |$)/ { print $1 }' "$REPO/tests/list" | paste -sd, -)" ] &&
	[[ ",$pw," == *,hotplug_storm,* && ",$pw," != *,nice_order,* ]] &&
	[ "$pn" = "$(awk '!/^#/ && / nohz( |$)/ { print $1 }' "$REPO/tests/list" | paste -sd, -)" ] &&
	[ "$pc" = verdict_canary ] && [[ ",$e4," != *,verdict_canary,* ]]
ok $? "the 8-vCPU, nohz_full and canary boots plan the tests flagged for them ($pw | $pn | $pc)"
printf '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..3\nok 1 - fine\n' >"$T/res"
printf '[    0.1] Linux\n' >"$T/con"
r=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$T/con" t,u | tail -n1)
[ "$r" = "2 3" ]
ok $? "a hung test, a test that never ran and a missing end marker all fail (got '$r')"
# Benchmarks declare their run and their metrics in their own files
# (scripts/benchlist.py): every benchmark of bench/ has a timeout, every
# metric of the rounds in tests/host/fixtures/bench (one round of each
# benchmark, copied from real runs) has a direction, and a benchmark
# without a timeout, or a bad declaration, is named.
python3 "$REPO/scripts/benchlist.py" check >/dev/null && und=$(python3 - "$REPO" <<'PY'
import glob, json, sys
sys.path.insert(0, sys.argv[1] + "/scripts")
import benchlist
bs = benchlist.benchmarks()
runs = sorted(glob.glob(sys.argv[1] + "/tests/host/fixtures/bench/*.json"))
keys = {(r, k) for f in runs for r, v in json.load(open(f))["results"].items() for k in v}
print(" ".join(sorted(f"{r}:{k}" for r, k in keys if benchlist.direction(r, k, bs) is None)) or "none")
print(len(keys))
PY
) && [ "$(echo "$und" | head -n1)" = none ] && [ "$(echo "$und" | tail -n1)" -gt 50 ]
ok $? "every benchmark declares its timeout; every recorded metric has a declared direction (undeclared: $(echo "$und" | head -n1))"
mkdir -p "$T/bench" && printf '// b\n/* vds-metric: x *_us lower */\n' >"$T/bench/b_x.c" &&
	printf '#!/bin/sh\n# vds-bench: timeout 10\n# vds-metric: y z sideways\n' >"$T/bench/b_y.sh"
bad=$(cd "$T" && python3 -c "
import sys; sys.path.insert(0, '$REPO/scripts'); import benchlist
b = benchlist.benchmarks('$T/bench')
print(b['b_x']['timeout'], len(b['b_x']['errors']), b['b_y.sh']['timeout'], len(b['b_y.sh']['errors']),
      benchlist.direction('x', 'p99_us', b))")
[ "$bad" = "None 1 10 1 -1" ]
ok $? "a benchmark without a timeout and a bad vds-metric line are errors (got '$bad')"
p1=$(python3 "$REPO/scripts/benchlist.py" plan b_pipe,b_latency) &&
	! python3 "$REPO/scripts/benchlist.py" plan b_nope 2>/dev/null &&
	[ "$(echo "$p1" | awk '{print $1}' | paste -sd, -)" = b_latency,b_pipe ]
ok $? "bench's plan keeps ONLY's benchmarks and refuses an unknown name"
# lk_rq (bench/counts.sh) reads the rq lock classes of /proc/lock_stat:
# the lock alone or first, and /1, the second of a pair; other classes and
# the contention-point lines (no colon) do not count; no file, six nulls.
{
	printf '%40s:%14lu %14lu %14s %14s %14s %14s %14lu %14lu %14s %14s %14s %14s\n' \
		'&rq->__lock' 5 7 0.10 2.00 3.00 0.43 40 100 0.05 9.50 120.00 1.20 \
		'&rq->__lock/1' 1 2 0.10 1.00 1.50 0.75 9 10 0.20 4.25 12.50 1.25 \
		'&p->pi_lock' 9 99 0.10 99.00 99.00 1.00 99 999 0.20 99.00 999.00 1.00
	printf '%40s %14lu %29s %s\n' '&rq->__lock' 3 '[<0>]' 'pick_next_task+0x1/0x2'
} >"$T/lock_stat"
lk=$(LOCK_STAT_FILE="$T/lock_stat" sh -c ". '$REPO/bench/counts.sh' 2>/dev/null; lk_rq") &&
	lk0=$(LOCK_STAT_FILE="$T/nonexistent" sh -c ". '$REPO/bench/counts.sh' 2>/dev/null; lk_rq")
[ "$lk" = "100 7 1.20 9.50 4.25 1.25" ] && [ "$lk0" = "null null null null null null" ]
ok $? "bench's lk_rq reads the rq locks of /proc/lock_stat, nulls without it (got '$lk', '$lk0')"
# The summary (scripts/summary.py): one JSON file per run that check.sh,
# bench.sh and .ci/run add up. Parts add up, a part added again replaces
# the first, skips are counted apart.
SP=$REPO/scripts/summary.py
S=$T/summary.json
python3 "$SP" add "$S" host 40 0 && python3 "$SP" add "$S" deb-check 0 1 &&
	python3 "$SP" add "$S" vds-smp4 5 0 2
out=$(python3 "$SP" total "$S")
[ $? = 1 ] && [ "$(echo "$out" | tail -n1)" = "45 passed, 1 failed" ] &&
	[ "$(echo "$out" | sed -n 1p)" = "2 point(s) skipped, counted neither passed nor failed" ]
ok $? "summary totals add up three parts, skips on an earlier line, exit 1 on a failure"
python3 "$SP" add "$S" deb-check 1 0 && [ "$(python3 "$SP" counts "$S")" = "46 0 2" ] &&
	python3 "$SP" total "$S" >/dev/null
ok $? "a part added again replaces the first, and total exits 0 when nothing failed"
# A boot with a failed test, a skipped point and a WARN in its log.
printf '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..3\nok 1 - fine\nnot ok 2 - late\nok 3 # SKIP no\n@@VDS-TEST-END t rc=1 secs=4\n@@VDS-DONE\n' >"$T/res"
out=$(python3 "$REPO/scripts/verdict.py" --json "$T/b.json" b "$T/res" "$REPO/tests/host/fixtures/warn.console" t,u)
[ "$(echo "$out" | tail -n1)" = "1 3" ] && echo "$out" | grep -qx '  1 point(s) skipped (counted neither passed nor failed)' &&
	python3 - "$T/b.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert (b["name"], b["passed"], b["failed"], b["skipped"], b["done"]) == ("b", 1, 3, 1, True), b
t, u = b["tests"]
assert (t["name"], t["status"], t["passed"], t["failed"], t["skipped"]) == ("t", "FAIL", 1, 1, 1), t
assert t["reason"] == ["not ok 2 - late"], t
assert (u["name"], u["status"], u["failed"]) == ("u", "FAIL", 1) and "never ran" in u["reason"][0], u
g = b["guest_log"]
assert not g["clean"] and g["quoted"][0].endswith("WARNING: CPU: 3 PID: 1083 at kernel/sched/sched.h:1686 update_curr_se+0x5c/0x90"), g
PY
ok $? "verdict.py --json: a failed test and one that never ran with their reasons, an unclean log quoted"
S2=$T/summary2.json
python3 "$SP" add "$S2" host 10 0 && python3 "$SP" boot "$S2" "$T/b.json"
out=$(python3 "$SP" total "$S2")
[ "$(echo "$out" | tail -n1)" = "11 passed, 3 failed" ] && echo "$out" | grep -q '^1 point(s) skipped'
ok $? "a boot's JSON merges into the summary (got '$(echo "$out" | tail -n1)')"
out=$(python3 "$SP" boot "$S2" "$T/nope.json")
[ $? = 1 ] && echo "$out" | grep -q 'FAIL nope: no verdict' && [ "$(python3 "$SP" counts "$S2")" = "11 4 1" ]
ok $? "a boot without a verdict JSON counts one failure and says so"
expect_fail "a missing summary is refused with one line" "no summary at $T/none.json" python3 "$SP" total "$T/none.json"
echo '{"parts": {"host": ' >"$T/bad.json"
expect_fail "a corrupt summary is refused" "bad.json is not a readable summary" python3 "$SP" counts "$T/bad.json"
expect_fail "adding to a corrupt summary is refused" "bad.json is not a readable summary" python3 "$SP" add "$T/bad.json" x 1 0
echo '{"parts": {"host": {"passed": 3}}}' >"$T/bad2.json"
expect_fail "a summary part without its counts is refused" "part 'host' has no passed/failed/skipped counts" \
	python3 "$SP" total "$T/bad2.json"
expect_fail "a negative count is refused" "the counts must be numbers >= 0" python3 "$SP" add "$S" x 1 -1
# The fixtures: --json changes nothing on stdout, and the JSON says what
# stdout says.
printf '@@VDS-BOOT x\n@@VDS-TEST-BEGIN t\n1..1\nok 1 - fine\n@@VDS-TEST-END t rc=0 secs=1\n@@VDS-DONE\n' >"$T/res"
printf '[    0.1] Linux\n[    0.2] fine\n' >"$T/clean.console"
for c in "${consoles[@]}" "$T/clean.console"; do
	a=$(python3 "$REPO/scripts/verdict.py" b "$T/res" "$c" t)
	j=$(python3 "$REPO/scripts/verdict.py" --json "$T/f.json" b "$T/res" "$c" t)
	[ "$a" = "$j" ] && python3 - "$T/f.json" "$(echo "$a" | tail -n1)" "$(echo "$a" | grep 'guest log of' | head -n1)" \
		"$(echo "$a" | grep -A1 'guest log of' | sed -n '2s/^ *//p')" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert f"{b['passed']} {b['failed']}" == sys.argv[2], b
g = b["guest_log"]
assert g["clean"] == ("ok   guest log" in sys.argv[3]), g
assert g["clean"] or g["quoted"][0] == sys.argv[4], g
PY
	ok $? "verdict.py --json on $(basename "$c") agrees with its stdout"
done
# bench.sh: only the guest log point of a boot; a retry replaces the first
# try's and names it.
S3=$T/bench.json
python3 "$REPO/scripts/verdict.py" --json "$T/r1.json" round1-vds "$T/res" "$REPO/tests/host/fixtures/hung.console" "" >/dev/null
python3 "$REPO/scripts/verdict.py" --json "$T/r2.json" round1-vds "$T/res" "$T/clean.console" "" >/dev/null
a=$(python3 "$SP" log "$S3" "$T/r1.json") && b=$(python3 "$SP" log "$S3" "$T/r2.json") &&
	[ "$b" = clean ] && [ "$a" = "[   26.377637] INFO: task verdict_canary:189 blocked for more than 2 seconds." ] &&
	[ "$(python3 "$SP" counts "$S3")" = "1 0 0" ] &&
	python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["parts"]["round1-vds"]; assert "verdict_canary:189" in p["retried"], p' "$S3"
ok $? "summary.py log: a bench boot's bad log, then its clean retry, counts one pass"
# bench-report names a boot that ended on another clocksource than the TSC.
br=$T/br
mkdir -p "$br"
for s in eevdf vds; do
	c=tsc
	[ $s = vds ] && c=hpet
	printf '{"scheduler":"%s","round":1,"host_load_before":0.1,"host_load_after":0.1,"host_other_cpus":0,"guest_log":"clean","clocksource":"%s","results":{"pipe_pingpong":{"same_cpu_rt_per_s":%s}}}\n' \
		$s $c $([ $s = vds ] && echo 90 || echo 100) >"$br/round1-$s.json"
done
python3 "$REPO/scripts/bench-report.py" "$br" >/dev/null 2>&1 &&
	grep -qx 'Boots that ended on another clocksource than the TSC: round 1 vds: hpet' "$br/report.md"
ok $? "bench-report names the boots that left the TSC"
# .ci/run counts each pass from the summary its run left: a stub make
# check makes two passes with a summary (one failed) and a third that
# stops before its run starts, leaving work/runs/latest at the second's.
ci=$T/ci
mkdir -p "$ci/.ci" "$ci/scripts" "$ci/tests"
cp "$REPO/.ci/run" "$ci/.ci/" && cp "$SP" "$ci/scripts/" && cp "$REPO/tests/list" "$ci/tests/"
cat >"$ci/Makefile" <<'MK'
SHELL := /bin/bash
check:
	@if [ "$(RT)" = 1 ]; then echo "build failed"; exit 1; fi; \
	n=$$(ls work/runs 2>/dev/null | grep -c '^r'); d=work/runs/r$$n; mkdir -p $$d; ln -sfn r$$n work/runs/latest; \
	python3 scripts/summary.py add $$d/summary.json host 3 0 2; \
	python3 scripts/summary.py add $$d/summary.json boot$$n 7 $${DEBUG:-0}; \
	python3 scripts/summary.py total $$d/summary.json
MK
# A clean environment: make check may have passed RT=1 and others down.
out=$(cd "$ci" && env -i PATH="$PATH" HOME="$HOME" bash .ci/run 2>&1)
rc=$?
[ $rc = 1 ] && [ "$(echo "$out" | tail -n1)" = "20 passed, 2 failed" ] &&
	echo "$out" | grep -q '^### make check RT=1 .* left no summary (exit 2)$' && echo "$out" | grep -q '^### 4 point(s) skipped'
ok $? ".ci/run adds up the passes' summaries, a pass without one is one failure (rc=$rc, got '$(echo "$out" | tail -n1)')"
# CI_RT=0 leaves the RT pass out and says so; a bad CI_RT runs nothing.
rm -rf "$ci/work"
out=$(cd "$ci" && env -i PATH="$PATH" HOME="$HOME" CI_RT=0 bash .ci/run 2>&1)
rc=$?
[ $rc = 1 ] && [ "$(echo "$out" | tail -n1)" = "20 passed, 1 failed" ] &&
	echo "$out" | grep -q '^### make check RT=1 .*: not run (CI_RT=0, ' &&
	out=$(cd "$ci" && env -i PATH="$PATH" HOME="$HOME" CI_RT=yes bash .ci/run 2>&1)
[ $? = 2 ] && [ "$out" = "CI_RT='yes' must be auto, 0 or 1" ] && [ ! -e "$ci/work/runs/r2" ]
ok $? ".ci/run: CI_RT=0 leaves out the RT pass, CI_RT=yes is refused before any pass"
# Every script with a shebang (what a user, the README, make or the guest
# runs) is executable, so that a fresh clone can run it directly.
nx=$(cd "$REPO" && for f in scripts/* tests/*.sh tests/host/*.sh bench/*.sh .ci/*; do
	[ -f "$f" ] && head -c2 "$f" | grep -q '^#!' && [ ! -x "$f" ] && echo "$f"; done)
[ -z "$nx" ]
ok $? "every script with a shebang is executable${nx:+ (not: $(echo $nx))}"
if [ "$n" != "$PLAN" ]; then
	fail=$((fail + 1))
	echo "not ok $((n + 1)) - planned $PLAN, ran $n (skips included): a check did not run, or the plan is out of date"
fi
[ "$skipped" = 0 ] || echo "# $skipped of $PLAN checks skipped" >&2
echo "$pass $fail"
