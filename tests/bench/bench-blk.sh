# SPDX-License-Identifier: GPL-2.0
# Block benchmark guest, the instant device: two identical null disks (reads return zeroes,
# writes are dropped, so the host's storage adds no noise) that finish every request in the
# vCPU's own turn: 00:04.0 and 00:05.0. The rounds: blk_rounds in bench-lib.sh.
# kernels: stock
# timeout: 7200
# qemu: -drive driver=null-co,read-zeroes=on,size=1G,if=none,id=d0 -device virtio-blk-pci,drive=d0,addr=04.0
# qemu: -drive driver=null-co,read-zeroes=on,size=1G,if=none,id=d1 -device virtio-blk-pci,drive=d1,addr=05.0
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

blk_rounds blk
