# SPDX-License-Identifier: GPL-2.0
# Four vCPUs: more CPUs than the first disk's queues and than the second's vectors.
# Disks, NICs and checks (a fio job per CPU): cpus_and_queues in tests/qemu/guest-lib.sh.
# kernels: debug
# smp: 4
# timeout: 300
# setup: truncate -s 64M a.img b.img
# qemu: -drive file=$WORK/a.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0,num-queues=2
# qemu: -drive file=$WORK/b.img,if=none,id=d1,format=raw,cache=unsafe -device virtio-blk-pci,drive=d1,num-queues=4,vectors=3
# qemu: -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:50:01
# qemu: -netdev hubport,id=n2,hubid=0 -device virtio-net-pci,netdev=n2,mac=52:54:00:00:50:02
. /tests/lib.sh
cpus_and_queues
