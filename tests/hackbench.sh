#!/bin/sh
# rt-tests hackbench, process and thread mode, completes and reports a time.
echo "1..2"
n=1
for mode in "" "-T"; do
	out=$(hackbench $mode -g 4 -f 10 -l 200 2>&1)
	rc=$?
	t=$(echo "$out" | sed -n 's/^Time: *//p')
	if [ $rc -eq 0 ] && [ -n "$t" ]; then
		echo "ok $n - hackbench ${mode:-(processes)} -g 4 -l 200 completed in $t s"
	else
		echo "$out" | tail -n 5 | sed 's/^/# /'
		echo "not ok $n - hackbench ${mode:-(processes)} failed (rc=$rc)"
	fi
	n=$((n + 1))
done
