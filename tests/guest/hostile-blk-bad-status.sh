# SPDX-License-Identifier: GPL-2.0
# Hostile device: the status byte of every request is garbage (0x77): each request fails.
# The block driver fails the I/O within 5 s and logs why; the disk is removed with its device
# host; nothing leaks. See hostile_blk in tests/qemu/guest-lib.sh.
# kernels: debug
# timeout: 180
. /tests/lib.sh

hostile_blk bad-status 'bad status 0x77'
