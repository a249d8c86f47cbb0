# SPDX-License-Identifier: GPL-2.0
# Hostile device: the device process exits mid-I/O with requests outstanding (they complete with
# nothing written: I/O errors).
# The block driver fails the I/O within 5 s and logs why; the disk is removed with its device
# host; nothing leaks. See hostile_blk in tests/qemu/guest-lib.sh.
# kernels: debug
# timeout: 180
. /tests/lib.sh

hostile_blk exit 'I/O error, dev v4blk0'
