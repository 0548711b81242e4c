# VDS - Virtual Deadline Scheduler for Linux 6.12
#
#   make          get the 6.12 source, apply the series, build, boot it in QEMU
#   make check    the same build, then the in-guest test suite
#
# Knobs (make VAR=value): SMP=4 vCPUs, DEBUG=1 debug kernel, KASAN=1,
# KSRC=/path/to/linux-6.12 your own tree, ONLY=test1,test2, WORK=folder.

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

# Prepare the quilt tree for editing (see README: quilt workflow).
tree: deps
	@bash $(S)/tree.sh

# Throw away unrefreshed edits in the tree and prepare it again.
tree-reset:
	@bash $(S)/tree-reset.sh

build: deps
	@bash $(S)/tree.sh
	@bash $(S)/build.sh >/dev/null

# Host-side unit tests of the harness scripts (no kernel build, no boot).
selftest:
	@bash tests/host/run.sh

clean:
	rm -rf work/build work/runs work/initramfs work/tests-bin work/bench-bin

distclean:
	rm -rf work

.PHONY: all check deps tree tree-reset build selftest clean distclean
