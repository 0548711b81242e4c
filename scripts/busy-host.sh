#!/usr/bin/env bash
# Load this host in bursts, as a busy CI machine does, to see that the
# timing tests hold: every CPU busy for 100-400 ms, then 0.3-1.1 s quiet,
# until killed (or for SECS seconds if given). Used by hand:
#   bash scripts/busy-host.sh & make check ONLY=frames,vds_latency; kill %1
# (Documentation/testing.md, "Adding a test").
set -u
secs=${1:-0}
case "$secs" in '' | *[!0-9]*) echo "busy-host.sh: '$secs' is not a number of seconds" >&2; exit 2 ;; esac
ncpu=$(nproc)
end=$(($(date +%s) + secs))
burn() {
	local stop=$(($(date +%s%N) + $1 * 1000000))
	while [ "$(date +%s%N)" -lt "$stop" ]; do :; done
}
trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM INT
while [ "$secs" = 0 ] || [ "$(date +%s)" -lt "$end" ]; do
	d=$((100 + RANDOM % 300))
	for _ in $(seq "$ncpu"); do burn "$d" & done
	wait
	sleep "0.$((3 + RANDOM % 9))"
done
