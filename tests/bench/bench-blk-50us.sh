# SPDX-License-Identifier: GPL-2.0
# Block benchmark guest, a device that behaves like a real one: the two null disks of
# bench-blk.sh, each served by its own QEMU I/O thread (not in the vCPU's turn) and taking
# 50 µs to finish a request (an NVMe SSD's service time), so that requests queue in the
# device and completions arrive while the guest is busy: what event index, batched kicks and
# interrupt mitigation are for. The rounds: blk_rounds in bench-lib.sh.
# kernels: stock
# timeout: 7200
# qemu: -object iothread,id=io0 -object iothread,id=io1
# qemu: -drive driver=null-co,read-zeroes=on,latency-ns=50000,size=1G,if=none,id=d0 -device virtio-blk-pci,drive=d0,addr=04.0,iothread=io0
# qemu: -drive driver=null-co,read-zeroes=on,latency-ns=50000,size=1G,if=none,id=d1 -device virtio-blk-pci,drive=d1,addr=05.0,iothread=io1
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

blk_rounds blk-50us
