# SPDX-License-Identifier: GPL-2.0
# Hostile device: the device process exits mid-I/O with requests outstanding (they complete with
# nothing written: I/O errors).
# The block driver fails the I/O within 5 s and logs why; the disk is removed with its device
# host; nothing leaks. See hostile_blk in tests/qemu/guest-lib.sh.
# The driver's own line is asked for, not the block layer's "I/O error, dev": that one is left
# out once the disk is being deleted, which races with the completion (seen in CI).
# kernels: debug
# timeout: 180
. /tests/lib.sh

hostile_blk exit 'returned a request without writing its status'
