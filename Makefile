# VDS - Virtual Deadline Scheduler for Linux (kernels/default: 6.12)
#
#   make          get the kernel source, apply the series, build, boot it in QEMU
#   make check    the same build, then the in-guest test suite
#
# Knobs (make VAR=value): SMP=4 vCPUs, DEBUG=1 debug kernel, KASAN=1, KCSAN=1,
# KSRC=/path/to/linux your own tree, ONLY=test1,test2, WORK=folder,
# KVER=6.12 the kernel (one of kernels/*.conf; default: kernels/default).
#
#   make deb        a full kernel with VDS as Debian packages
#   make deb-check  compile kernel/sched/ and init/ with Debian's full config

SHELL := /bin/bash
S := scripts

all: deps
	@bash $(S)/tree.sh
	@bash $(S)/check.sh show

check: deps
	@bash $(S)/tree.sh
	@bash $(S)/check.sh check

deps:
	@bash $(S)/deps.sh

# Prepare the quilt tree for editing (Documentation/maintainers.md, "The quilt workflow").
tree: deps
	@bash $(S)/tree.sh

# Throw away unrefreshed edits in the tree and prepare it again.
tree-reset:
	@bash $(S)/tree-reset.sh

build: deps
	@bash $(S)/tree.sh
	@bash $(S)/build.sh >/dev/null

# Benchmarks: VDS against EEVDF on one image (ROUNDS=3 SMP=4 QUICK=1).
bench: deps
	@bash $(S)/tree.sh
	@bash $(S)/bench.sh

# Re-render the report of the last bench run (or BENCH=work/bench/<stamp>).
bench-report:
	@python3 $(S)/bench-report.py $${BENCH:-work/bench/latest}

# A full kernel with VDS as Debian packages (BASE=distro|running|defconfig).
deb: deps
	@bash $(S)/tree.sh
	@bash $(S)/deb.sh deb

# Debian's full config + desktop.config: build kernel/sched/ and init/ only.
deb-check: deps
	@bash $(S)/tree.sh
	@bash $(S)/deb.sh deb-check

# Each patch: header, checkpatch, builds on its own.
series-check: deps
	@bash $(S)/series-check.sh

# Build kernel/sched/ with each configs/matrix/*.config variant (MATRIX=a,b).
matrix: deps
	@bash $(S)/tree.sh
	@bash $(S)/matrix.sh

# Host-side unit tests of the harness scripts (no kernel build, no boot).
selftest:
	@bash tests/host/run.sh

clean:
	rm -rf work/build work/runs work/initramfs work/tests-bin work/bench-bin

distclean:
	rm -rf work

.PHONY: matrix deb deb-check bench bench-report all check deps tree tree-reset build series-check selftest clean distclean
