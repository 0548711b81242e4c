#!/usr/bin/env bash
# Boot the guest kernel once under QEMU.
#   boot.sh NAME BZIMAGE INITRAMFS "EXTRA ARGS" TIMEOUT_SECS
# Writes $RUNDIR/NAME.console (kernel log) and $RUNDIR/NAME.results (what
# /init reported on the second serial port). Returns QEMU's status; 124 on
# timeout. Of EXTRA ARGS, kernel parameters and vdsrun= go on the kernel
# command line; every other vds* key (vdsseed=7, vdsbenchsecs=3) is a setting
# for the tests and goes into NAME.share/settings, with vdssmp= (the
# guest's /init exports each as VDS_<KEY>: VDS_SEED=7).
. "$(dirname "$0")/lib.sh"
check_knobs

name=$1 img=$2 initrd=$3 extra=$4 tmo=${5:-300}
RUNDIR=${RUNDIR:-$WORK/runs/latest}
mkdir -p "$RUNDIR" "$RUNDIR/$name.share"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing; run 'make deps'"

# KVM only when a real boot under it has worked on this host (the probe);
# otherwise TCG. ACCEL=tcg|kvm overrides.
accel_opts() {
	local probe=$WORK/kvm-probe key
	key="$(uname -r) $(qemu-system-x86_64 --version | head -n1)"
	case "${ACCEL:-auto}" in
	tcg) echo "-accel tcg,thread=${TCG_THREAD:-single} -cpu max"; return ;;
	kvm) echo "-accel kvm -cpu host"; return ;;
	esac
	if [ -w /dev/kvm ] && [ "$(head -n1 "$probe" 2>/dev/null)" != "$key" ]; then
		say "boot: probing KVM with a real boot (once per host)"
		local pd=$WORK/kvm-probe.d
		rm -rf "$pd"
		mkdir -p "$pd"
		timeout 45 qemu-system-x86_64 -accel kvm -cpu host -smp 2 -m 512 -kernel "$img" \
			-initrd "$initrd" -append "console=ttyS0 panic=-1 vdsrun=probe" \
			-display none -monitor none -no-reboot \
			-serial file:"$pd/console" -serial file:"$pd/results" >/dev/null 2>&1
		if grep -q '@@VDS-DONE' "$pd/results" 2>/dev/null &&
			! grep -qE 'KVM internal error|Oops|BUG:' "$pd/console"; then
			printf '%s\nkvm\n' "$key" >"$probe"
		else
			printf '%s\ntcg\n' "$key" >"$probe"
		fi
		say "boot: KVM probe says $(tail -n1 "$probe")"
	fi
	if [ -w /dev/kvm ] && [ "$(tail -n1 "$probe" 2>/dev/null)" = kvm ]; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg,thread=${TCG_THREAD:-single} -cpu max"
	fi
}

acc=$(accel_opts)
mem=${MEM:-2048}
kargs="" settings="vdssmp=$SMP"
for w in $extra; do
	case "$w" in
	vdsrun=*) kargs="$kargs $w" ;;
	vds[a-z]*=*) settings="$settings $w" ;;
	*) kargs="$kargs $w" ;;
	esac
done
# shellcheck disable=SC2086
printf '%s\n' $settings >"$RUNDIR/$name.share/settings"
cmdline="console=ttyS0 panic=-1$kargs"
rm -f "$RUNDIR/$name.console" "$RUNDIR/$name.results"
# BOOT_HOSTUSR=1 (make bench): the host's /usr, read-only, for the guest's
# kbuild-like benchmark (it runs the host's gcc in a chroot).
hostusr=()
[ "${BOOT_HOSTUSR:-0}" = 1 ] &&
	hostusr=(-virtfs local,path=/usr,mount_tag=hostusr,security_model=none,readonly=on,id=hostusr)
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
b0=$(busy) w0=$(date +%s%N)
say "boot: $name: -smp $SMP ${acc%% -cpu*}, cmdline '${kargs# }', settings '$settings'"
# shellcheck disable=SC2086
timeout --foreground -k 5 "$tmo" qemu-system-x86_64 $acc -smp "$SMP" -m "$mem" \
	-kernel "$img" -initrd "$initrd" -append "$cmdline" \
	-display none -monitor none -no-reboot \
	-serial file:"$RUNDIR/$name.console" -serial file:"$RUNDIR/$name.results" \
	-virtfs local,path="$RUNDIR/$name.share",mount_tag=vdsshare,security_model=none,id=vdsshare \
	"${hostusr[@]}" \
	>"$RUNDIR/$name.qemu" 2>&1
rc=$?
# Host CPU used by anything but this QEMU during the boot, in CPUs: a busy
# host makes benchmark rounds unreliable (bench-report flags them).
b1=$(busy) w1=$(date +%s%N)
# times must run in this shell (not in a $(...) subshell) to see QEMU.
times >"$RUNDIR/$name.times"
python3 - "$b0" "$b1" "$w0" "$w1" "$(tail -n1 "$RUNDIR/$name.times")" "$(getconf CLK_TCK)" >"$RUNDIR/$name.hostcpu" <<'PY' || true
import re, sys
b0, b1, w0, w1, t, hz = sys.argv[1:]
secs = [int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", t)]
qemu = sum(secs)
wall = (int(w1) - int(w0)) / 1e9
busy = (int(b1) - int(b0)) / int(hz)
print(f"wall {wall:.1f} qemu_cpu {qemu:.1f} host_busy {busy:.1f} other_cpus {max(0.0, busy - qemu) / wall if wall else 0:.2f}")
PY
[ $rc = 124 ] && say "boot: $name: timed out after ${tmo}s"
exit $rc
