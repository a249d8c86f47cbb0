# SPDX-License-Identifier: GPL-2.0
# Hostile device: the device stops completing requests (the block layer's timeout resets the
# device).
# The block driver fails the I/O within 5 s and logs why; the disk is removed with its device
# host; nothing leaks. See hostile_blk in tests/qemu/guest-lib.sh.
# kernels: debug
# timeout: 180
. /tests/lib.sh

hostile_blk never-complete 'a request timed out: device reset'
