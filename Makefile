# SPDX-License-Identifier: GPL-2.0
# virtio draft IV as out-of-tree Linux modules, tested in QEMU guests.
#
#   make            build every module against the stock guest kernel (KDIR= overrides)
#   make check      set-up + build + lint + every test in QEMU; ends "N passed, N failed"
#   make check T=x  one test (tests/guest/x.sh); K=stock|debug picks the kernel
#   make run        boot a guest that uses our modules and report; INTERACTIVE=1 for a shell
#   make lint       checkpatch --strict, kernel-doc, sparse
#   make kernel     build (or find, cached) the debug kernel
#   make clean      remove build/ (the debug kernel's cache stays in ~/.cache/virtio4)

KVER ?= $(shell bash -c '. tests/qemu/lib.sh && stock_version')
KDIR ?= /lib/modules/$(KVER)/build
OUT ?= build/stock

all: modules

modules:
	@tests/qemu/modules.sh $(KDIR) $(OUT)
	@cd $(OUT)/src && find . -name '*.ko' | sed 's|^\./|  built $(OUT)/src/|'

setup:
	@tests/qemu/setup.sh

check:
	@tests/qemu/check.sh

run:
	@tests/qemu/main.sh

lint:
	@tests/qemu/lint.sh $(KDIR)

kernel:
	@tests/qemu/kernel.sh

clean:
	rm -rf build

.PHONY: all modules setup check run lint kernel clean
