# SPDX-License-Identifier: GPL-2.0
# Hostile device: the device stops completing requests. The driver finds the request late after
# io_timeout (2 s here), waits 4 s more for any completion, then gives the device up without a
# reset: the I/O fails within io_timeout + 10 s and the driver logs why; the disk is removed
# with its device host; nothing leaks. See hostile_blk in tests/qemu/guest-lib.sh.
# kernels: debug
# timeout: 180
. /tests/lib.sh

hostile_blk never-complete 'no completion for .* without a reset' 12
