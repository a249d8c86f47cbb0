# SPDX-License-Identifier: GPL-2.0
# Block benchmark guest, polled I/O: the two disks of bench-blk-50us.sh (each in its own QEMU
# I/O thread, 50 µs a request, as an NVMe SSD), each with two request queues, and both drivers
# loaded with poll_queues=1 (ours: virtio4_blk's, Linux's: virtio_blk's): queue 0 takes
# interrupts, queue 1 none. fio's io_uring with --hipri (IORING_SETUP_IOPOLL) sends its requests
# to the polled queue, and the task that waits collects their completions. Depth 1, where
# polling is for (latency: no interrupt, no wake-up), and depth 8. The rounds: blk_rounds in
# bench-lib.sh.
# kernels: stock
# timeout: 7200
# qemu: -object iothread,id=io0 -object iothread,id=io1
# qemu: -drive driver=null-co,read-zeroes=on,latency-ns=50000,size=1G,if=none,id=d0 -device virtio-blk-pci,drive=d0,addr=04.0,iothread=io0,num-queues=2
# qemu: -drive driver=null-co,read-zeroes=on,latency-ns=50000,size=1G,if=none,id=d1 -device virtio-blk-pci,drive=d1,addr=05.0,iothread=io1,num-queues=2
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

JOBS="randread-4k-polled-qd1:--rw=randread:--bs=4k:--iodepth=1:--ioengine=io_uring:--hipri=1
randwrite-4k-polled-qd1:--rw=randwrite:--bs=4k:--iodepth=1:--ioengine=io_uring:--hipri=1
randread-4k-polled-qd8:--rw=randread:--bs=4k:--iodepth=8:--ioengine=io_uring:--hipri=1"
BLK_OPTIONS="poll_queues=1"
blk_rounds blk-poll
