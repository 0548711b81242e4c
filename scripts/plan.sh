#!/usr/bin/env bash
# What a boot of make check runs, from tests/list; sourced by check.sh and
# by the host self-tests. Needs REPO, ONLY (may be empty), SOAK and has_ext
# (1 if the kernel has sched_ext).
#
#   plan_lines BOOT ONLY SMP  the lines of tests/list planned on a boot of
#                             kind BOOT with SMP vCPUs: the plan check.sh
#                             hands the guest, which runs it as written
#   expected BOOT SMP         the names of those tests, comma-separated
#   budget BOOT ONLY SMP      that boot's hard timeout in seconds
#
# Boot kinds: "main" (the VDS boot and the vds=off boot: every test but
# those flagged canary or smp8), "wide" (the 8-vCPU boot: tests flagged
# wide or smp8), "nohz" (the nohz_full boot: tests flagged nohz), "canary"
# (tests flagged canary). The manifest names no scheduler: a test that
# does not apply to the boot's scheduler skips itself (tests/list).
# "ext" tests need sched_ext (EXT=1); "smp8" tests need 8 vCPUs and are
# planned on a smaller boot only when ONLY= names them (they then skip
# every point and fail: asked for, nothing asserted). Tests flagged "nort"
# are left out of a PREEMPT_RT kernel's boots (RT=1) unless ONLY= names
# them: CI's RT pass is the whole plan less those.

plan_lines() {
	awk -v boot="$1" -v only="$2" -v ext="${has_ext:-0}" -v smp="$3" -v rt="${RT:-0}" '
		function flag(f,    i) { for (i = 3; i <= NF; i++) if ($i == f) return 1; return 0 }
		/^[[:space:]]*(#|$)/ { next }
		only != "" && !index("," only ",", "," $1 ",") { next }
		flag("canary") != (boot == "canary") { next }
		flag("ext") && ext != 1 { next }
		flag("smp8") && smp < 8 && only == "" { next }
		flag("nort") && rt == 1 && only == "" { next }
		boot == "wide" && !flag("wide") && !flag("smp8") { next }
		boot == "nohz" && !flag("nohz") { next }
		{ print }
	' "$REPO/tests/list"
}

expected() {
	plan_lines "$1" "${ONLY:-}" "$2" | awk '{ printf "%s%s", s, $1; s = "," }'
}

# The timeouts of the tests a boot runs, plus boot time; a soak test (flag
# "soak") runs SOAK minutes longer, a "retry" test may run twice.
budget() {
	plan_lines "$1" "$2" "$3" | awk -v soak="${SOAK:-0}" '
		{
			t += $2
			if (/ soak( |$)/ && soak > 0) t += soak * 60 + 30
			if (/ retry( |$)/) t += $2
		}
		END { print t + 120 }'
}
