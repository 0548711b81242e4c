#!/bin/sh
# kbuild-like job: make -jN compiling generated C files with the host's gcc,
# shared read-only over virtio-9p (mount tag hostusr; scripts/boot.sh adds
# it when BOOT_HOSTUSR=1) and run in a chroot whose /usr is that share.
# N = M, 2M, 4M (M = online CPUs); wall seconds each (lower is better),
# with the context switches and migrations each build took (counts.sh).
# Files: VDS_BENCHSECS * 2 + 4 (24 by default, 10 with QUICK=1), or $1: gcc under
# TCG takes about a second per file, so a few hundred would not fit a run.
# vds-bench: timeout 600
# vds-metric: kbuild *_s lower
# vds-metric: kbuild *_ctxt info
# vds-metric: kbuild *_migr info
# vds-metric: kbuild files info
. "$(dirname "$0")/counts.sh"
secs=${VDS_BENCHSECS:-}
files=${1:-$(( ${secs:-10} * 2 + 4 ))}
m=$(nproc)
R=/tmp/kroot
mkdir -p $R/usr $R/tmp $R/dev $R/proc
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostusr $R/usr 2>/dev/null ||
	! [ -x $R/usr/bin/gcc ]; then
	echo "# no host /usr share (boot with BOOT_HOSTUSR=1): kbuild skipped"
	echo '{"bench":"kbuild","skipped":1}'
	exit 0
fi
for d in bin sbin lib lib64; do ln -sfn usr/$d $R/$d; done
mount -t tmpfs tmpfs $R/tmp
mount -o bind /dev $R/dev
mount -t proc proc $R/proc
src=$R/tmp/src
mkdir -p $src
i=0
while [ $i -lt "$files" ]; do
	cat >$src/f$i.c <<C
#include <string.h>
int snprintf(char *, unsigned long, const char *, ...);
struct s$i { int a[16]; double d; char name[32]; };
static int mix$i(struct s$i *p, int n)
{
	int acc = 0;
	for (int k = 0; k < n; k++) {
		p->a[k & 15] += k * $i;
		acc ^= p->a[(k * 7) & 15] + (int)p->d;
		if (acc & 1)
			p->d += acc / 3.0;
	}
	return acc;
}
int f$i(int n)
{
	struct s$i v;
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "f%d", n);
	return mix$i(&v, n) + (int)strlen(v.name);
}
C
	i=$((i + 1))
done
cat >$src/Makefile <<'MK'
OBJS := $(patsubst %.c,%.o,$(wildcard *.c))
all.o: $(OBJS)
	gcc -r -nostdlib -o $@ $(OBJS)
%.o: %.c
	gcc -O2 -Wall -c -o $@ $<
clean:
	rm -f *.o
MK
export PATH=/usr/bin:/bin LC_ALL=C
# Warm the share's page cache (gcc, cc1, as, headers) before timing.
chroot $R /usr/bin/make -s -C /tmp/src f0.o >/dev/null 2>&1
chroot $R /usr/bin/make -s -C /tmp/src clean
up() { cut -d' ' -f1 /proc/uptime; }
line="{\"bench\":\"kbuild\",\"files\":$files"
for mult in 1 2 4; do
	j=$((m * mult))
	mig_start
	c0=$(ctxt)
	t0=$(up)
	if chroot $R /usr/bin/make -s -C /tmp/src -j$j >/tmp/kbuild.log 2>&1; then
		t1=$(up)
		s=$(echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}')
	else
		tail -n5 /tmp/kbuild.log | sed 's/^/# /'
		s=null
	fi
	c1=$(ctxt)
	[ $mult = 1 ] && key=jM || key=j${mult}M
	line="$line,\"${key}_s\":$s,\"${key}_ctxt\":$((c1 - c0)),\"${key}_migr\":$(mig_count)"
	chroot $R /usr/bin/make -s -C /tmp/src clean
done
echo "$line}"
umount $R/proc $R/dev $R/tmp $R/usr 2>/dev/null
