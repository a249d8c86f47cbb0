# SPDX-License-Identifier: GPL-2.0
# Block benchmark guest, the depths between 1 and 32: the two disks of bench-blk-50us.sh (each
# in its own QEMU I/O thread, 50 µs a request), 4k random reads at depths 2, 4, 8 and 16, for
# their latency percentiles beside interrupts and CPU per request. What interrupt batching
# (virtio4_blk irq_batch_us) costs shows here first: a request done early may wait for the
# others in flight, up to the batch timer. The rounds: blk_rounds in bench-lib.sh.
# kernels: stock
# timeout: 7200
# qemu: -object iothread,id=io0 -object iothread,id=io1
# qemu: -drive driver=null-co,read-zeroes=on,latency-ns=50000,size=1G,if=none,id=d0 -device virtio-blk-pci,drive=d0,addr=04.0,iothread=io0
# qemu: -drive driver=null-co,read-zeroes=on,latency-ns=50000,size=1G,if=none,id=d1 -device virtio-blk-pci,drive=d1,addr=05.0,iothread=io1
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

JOBS="randread-4k-qd2:--rw=randread:--bs=4k:--iodepth=2
randread-4k-qd4:--rw=randread:--bs=4k:--iodepth=4
randread-4k-qd8:--rw=randread:--bs=4k:--iodepth=8
randread-4k-qd16:--rw=randread:--bs=4k:--iodepth=16"
blk_rounds blk-depths
