# SPDX-License-Identifier: GPL-2.0
# Hostile device: the device sets DEVICE_NEEDS_RESET in its status mid-I/O and stops (the driver
# resets it and fails what was outstanding).
# The block driver fails the I/O within 5 s and logs why; the disk is removed with its device
# host; nothing leaks. See hostile_blk in tests/qemu/guest-lib.sh.
# kernels: debug
# timeout: 180
. /tests/lib.sh

hostile_blk needs-reset 'asked for a reset: device reset'
