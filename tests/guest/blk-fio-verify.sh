# SPDX-License-Identifier: GPL-2.0
# fio random writes with crc32c verification through our driver, block sizes 512 B to 1 MiB,
# queue depth 1 and 32 (32 MiB, 16 on the debug kernel): no verify error, and fio reports the
# bytes it wrote.
# kernels: debug stock
# transports: pci copy
# rings: split packed
# mmio: modern legacy
# timeout: 400
# setup: truncate -s 96M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0
. /tests/lib.sh

load_virtio4_blk
fio_verify /dev/v4blk0 "$(by_kernel 32 16)M"
