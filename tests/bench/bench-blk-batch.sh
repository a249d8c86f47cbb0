# SPDX-License-Identifier: GPL-2.0
# Block benchmark guest, batched submission: the two disks of bench-blk-50us.sh (each in its own
# QEMU I/O thread, 50 µs a request), fed in batches, so that blk-mq hands each driver a plug's
# requests at once through queue_rqs (ours: v4blk_queue_rqs, Linux 6.1's virtio_blk:
# virtio_queue_rqs): libaio submitting 16 iocbs a call and io_uring 8 a call, at depth 32, each
# reaping as many completions before it submits again (fio refills one at a time otherwise:
# 0.85 kicks a request on both sides in a first run). Each disk has two request queues: blk-mq
# gives a disk of one queue mq-deadline, and a plug that goes through an I/O scheduler never
# reaches queue_rqs. What a batch should save shows in kicks and guest CPU per request. The
# rounds: blk_rounds in bench-lib.sh.
# kernels: stock
# timeout: 7200
# qemu: -object iothread,id=io0 -object iothread,id=io1
# qemu: -drive driver=null-co,read-zeroes=on,latency-ns=50000,size=1G,if=none,id=d0 -device virtio-blk-pci,drive=d0,addr=04.0,iothread=io0,num-queues=2
# qemu: -drive driver=null-co,read-zeroes=on,latency-ns=50000,size=1G,if=none,id=d1 -device virtio-blk-pci,drive=d1,addr=05.0,iothread=io1,num-queues=2
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

JOBS="randread-4k-qd32-aio-batch16:--rw=randread:--bs=4k:--iodepth=32:--iodepth_batch_submit=16:--iodepth_batch_complete_min=16
randwrite-4k-qd32-aio-batch16:--rw=randwrite:--bs=4k:--iodepth=32:--iodepth_batch_submit=16:--iodepth_batch_complete_min=16
randread-4k-qd32-uring-batch8:--rw=randread:--bs=4k:--iodepth=32:--ioengine=io_uring:--iodepth_batch_submit=8:--iodepth_batch_complete_min=8"
blk_rounds blk-batch
