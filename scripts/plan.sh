#!/usr/bin/env bash
# What a boot of make check runs, from tests/list; sourced by check.sh and
# by the host self-tests. Needs REPO, ONLY (may be empty), SOAK and has_ext
# (1 if the kernel has sched_ext).
#
#   plan_lines MODE ONLY SMP  the lines of tests/list planned on a boot of
#                             MODE (vds, any or canary) with SMP vCPUs:
#                             the plan check.sh hands the guest
#   expected MODE SMP         the names of those tests, comma-separated
#   budget MODE ONLY SMP      that boot's hard timeout in seconds
#
# A test runs on a boot whose mode its third column names ("any" is every
# boot). Flags: "ext" needs sched_ext (EXT=1); "smp8" needs 8 vCPUs and is
# planned on a smaller boot only when ONLY= names it (it then runs, skips
# every point and fails: asked for, nothing asserted).

plan_lines() {
	awk -v m="$1" -v only="$2" -v ext="${has_ext:-0}" -v smp="$3" '
		/^[[:space:]]*(#|$)/ { next }
		/ ext( |$)/ && ext != 1 { next }
		/ smp8( |$)/ && smp < 8 && (only == "" || !index("," only ",", "," $1 ",")) { next }
		($3 == "any" || $3 == m) && (only == "" || index("," only ",", "," $1 ","))
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
