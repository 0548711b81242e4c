#!/bin/sh
# rt-tests hackbench, process and thread mode, completes and reports a time.
# With SOAK=minutes (VDS_SOAK in the guest) the two modes repeat for
# half of that each; every round must complete.
soak=${VDS_SOAK:-0}
[ "${soak:-0}" -gt 0 ] 2>/dev/null || soak=0
echo "1..2"
n=1
for mode in "" "-T"; do
	end=$(($(cut -d. -f1 /proc/uptime) + soak * 30))
	rounds=0 bad=0 t=""
	while :; do
		out=$(hackbench $mode -g 4 -f 10 -l 200 2>&1)
		rc=$?
		t=$(echo "$out" | sed -n 's/^Time: *//p')
		rounds=$((rounds + 1))
		if [ $rc -ne 0 ] || [ -z "$t" ]; then
			bad=1
			break
		fi
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || break
	done
	if [ $bad = 0 ]; then
		echo "ok $n - hackbench ${mode:-(processes)} -g 4 -l 200 completed $rounds round(s), last in $t s"
	else
		echo "$out" | tail -n 5 | sed 's/^/# /'
		echo "not ok $n - hackbench ${mode:-(processes)} failed in round $rounds (rc=$rc)"
	fi
	n=$((n + 1))
done
