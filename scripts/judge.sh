# One path from a boot to its verdict, for make (show), make check (each
# boot and the verdict canary) and make bench. Sourced after lib.sh; the
# caller sets RUNDIR, img and initrd.
#
#   boot_judge NAME SMP CMDLINE TIMEOUT PLAN EXPECTED [verdict.py options]
#
# Writes PLAN (the lines of tests/list or of the benchmark plan the guest
# runs as written, "name timeout [flags]"; none if empty) to NAME.share/plan,
# boots NAME with SMP vCPUs (scripts/boot.sh: CMDLINE's kernel parameters
# and vds* settings, TIMEOUT seconds), then judges NAME.results and
# NAME.console with scripts/verdict.py into NAME.json: every test named in
# EXPECTED (comma separated; empty: none, the guest log alone is judged)
# must have run and passed, and the guest log must be clean. Prints
# verdict.py's lines, the last "passed failed"; returns boot.sh's status
# (124: the boot's timeout).
boot_judge() {
	local name=$1 smp=$2 cmd=$3 tmo=$4 plan=$5 expected=$6 rc
	shift 6
	mkdir -p "$RUNDIR/$name.share"
	rm -f "$RUNDIR/$name.share/plan" "$RUNDIR/$name.json"
	[ -n "$plan" ] && printf '%s\n' "$plan" >"$RUNDIR/$name.share/plan"
	SMP=$smp bash "$REPO/scripts/boot.sh" "$name" "$img" "$initrd" "$cmd" "$tmo"
	rc=$?
	python3 "$REPO/scripts/verdict.py" "$@" --json "$RUNDIR/$name.json" "$name" \
		"$RUNDIR/$name.results" "$RUNDIR/$name.console" "$expected"
	return $rc
}

# The names of a plan's tests, comma separated.
plan_names() {
	printf '%s\n' "$1" | awk 'NF { printf "%s%s", s, $1; s = "," }'
}
