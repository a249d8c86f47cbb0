# SPDX-License-Identifier: GPL-2.0
# virtio draft IV as out-of-tree Linux modules, tested in QEMU guests.
#
#   make            build every module against the stock guest kernel (KDIR= overrides)
#                   and the device host tools/virtio4-host (into build/tools)
#   make check      set-up + build + lint + every test in QEMU; ends "N passed, N failed"
#   make check T=x  one test (tests/guest/x.sh); K=stock|debug picks the kernel
#   make run        boot a guest that uses our modules and report; INTERACTIVE=1 for a shell
#   make bench      ours against Linux's virtio drivers, with an A/A noise control (not in check)
#   make fuzz       each libFuzzer target for FUZZ_TIME s (default 120); check replays the corpus
#   make soak       the mixed load test for 10 minutes (check runs it for 30 s); K=debug for that kernel
#   make lint       checkpatch --strict, kernel-doc, sparse
#   make kernel     build (or find, cached) the debug kernel
#   make clean      remove build/ (the debug kernel's cache stays in ~/.cache/virtio4)

KVER ?= $(shell bash -c '. tests/qemu/lib.sh && stock_version')
KDIR ?= /lib/modules/$(KVER)/build
OUT ?= build/stock

all: modules tools

modules:
	@tests/qemu/modules.sh $(KDIR) $(OUT)
	@cd $(OUT)/src && find . -name '*.ko' | sed 's|^\./|  built $(OUT)/src/|'

tools:
	@$(MAKE) -s -C tools O=$(CURDIR)/build/tools
	@echo '  built build/tools/virtio4-host'

setup:
	@tests/qemu/setup.sh

check:
	@tests/qemu/check.sh

# tests/manifest from the last full make check's results (review the diff before committing).
manifest:
	@test -s build/results/names || { echo "no full make check results in build/results" >&2; exit 1; }
	@cp build/results/names tests/manifest
	@git diff --stat -- tests/manifest

run:
	@tests/qemu/main.sh

bench:
	@tests/bench/bench.sh

fuzz:
	@tests/fuzz/fuzz.sh

# Planted bugs: each tests/mutants/*.patch must be caught by the tests it names (not in check).
mutants:
	@tests/mutants/run.sh $(M)

soak:
	@VIRTIO4_CMDLINE="load_seconds=600" VIRTIO4_TIMEOUT=1200 T=load-mixed K=$(or $(K),stock) \
		tests/qemu/check.sh

docs:
	@docs/build.sh

patches:
	@tools/make-patches.sh

lint:
	@tests/qemu/lint.sh $(KDIR)

kernel:
	@tests/qemu/kernel.sh

clean:
	rm -rf build

.PHONY: all modules tools setup check manifest mutants run bench fuzz soak docs patches lint kernel clean
