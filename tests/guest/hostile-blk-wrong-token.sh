# SPDX-License-Identifier: GPL-2.0
# Hostile device: completions name buffers that are not in flight (the copying transport refuses
# each; the requests are late, and with nothing completed 4 s later the device is given up).
# The block driver fails the I/O within io_timeout (2 s) + 10 s and logs why; the disk is removed
# with its device host; nothing leaks. See hostile_blk in tests/qemu/guest-lib.sh.
# kernels: debug
# timeout: 180
. /tests/lib.sh

hostile_blk wrong-token 'token .* is not in flight' 12
