# SPDX-License-Identifier: GPL-2.0
# Allocation failures (fault injection on the debug kernel; /proc/self/fail-nth fails the Nth
# allocation of the task):
#   probe:   binding our PCI driver to a disk (INTx, see below) with the Nth allocation failing,
#            N = 1, 2, ... until a bind needs no more: each succeeds or fails with an error;
#   submit:  dd through our disk (indirect descriptors forced, so each request allocates) with
#            the Nth allocation of dd failing: errors or success, and the data written without
#            injection afterwards reads back.
# Nothing leaks (kmemleak) and nothing splats (the runner).
# A second disk stays on Linux's virtio_blk throughout: it keeps the block layer's shared caches
# (the disks' bio slab) alive, so that no injected failure lands in the kernel's own first-time
# creation of a slab cache, whose 6.1 error path prints a stack and leaks the cache's name.
# kernels: debug
# timeout: 600
# setup: truncate -s 64M disk.img && truncate -s 1M keep.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,addr=04.0
# qemu: -drive file=$WORK/keep.img,if=none,id=d1,format=raw -device virtio-blk-pci,drive=d1,addr=05.0
. /tests/lib.sh

modprobe virtio_pci && modprobe virtio_blk || fail "loading Linux's virtio_blk"
wait_for /dev/vdb
echo 0000:00:04.0 >/sys/bus/pci/drivers/virtio-pci/unbind || fail "unbinding 04.0 from virtio-pci"
expect_eq "disks left on Linux's virtio_blk" 1 "$(ls /sys/block | grep -c '^vd')"

dbg=/sys/kernel/debug
for f in failslab fail_page_alloc; do
	echo 0 >$dbg/$f/verbose	# a forced failure would print a stack trace
	echo N >$dbg/$f/ignore-gfp-wait	# fail GFP_KERNEL allocations too
	echo 0 >$dbg/$f/probability
	echo -1 >$dbg/$f/times
done
kmemleak_start
modprobe virtio4_ring indirect_always=1 || fail "modprobe virtio4_ring"
# INTx: with MSI-X, a failure injected inside the kernel's own MSI domain allocation crashes
# 6.1 (a general protection fault in irq_domain_alloc_irqs_locked, seen at bind 60 or so).
load_virtio4_blk irq_mode=2
slot=0000:00:04.0
pci=/sys/bus/pci/drivers/virtio4-pci

# bind_with_failure N: bind our PCI driver to the disk with the task's Nth allocation failing;
# prints what fail-nth has left (0: the failure was injected). A bind that does not return
# within 60 s fails the test, with the stuck task's kernel stack.
bind_with_failure() {
	sh -c "echo $1 >/proc/self/fail-nth; echo $slot >$pci/bind 2>/dev/null; read left </proc/self/fail-nth; echo \$left >/tmp/left" &
	for _ in $(seq 600); do
		kill -0 $! 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $! 2>/dev/null; then
		cat /proc/$!/stack
		fail "a bind with allocation $1 failing did not return"
	fi
	wait $! || true
	cat /tmp/left
}

echo $slot >$pci/unbind
n=0 failed=0 clean=0
while [ $clean -lt 10 ] && [ $n -lt 300 ]; do
	n=$((n + 1))
	left=$(bind_with_failure $n)
	[ "$left" = 0 ] && clean=0 || clean=$((clean + 1))
	if [ -e $pci/$slot ] && [ -e /dev/v4blk0 ]; then
		dd if=/dev/v4blk0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null ||
			fail "reading a disk whose probe succeeded (N=$n)"
	else
		failed=$((failed + 1))
	fi
	[ ! -e $pci/$slot ] || echo $slot >$pci/unbind
done
echo "ok: probe swept: $n binds, $failed failed cleanly"
[ $failed -ge 1 ] || fail "no injected failure made a bind fail"
echo $slot >$pci/bind || fail "binding without injection"
wait_for_disk v4blk0

head -c 262144 /dev/urandom >/tmp/data
errors=0
for n in $(seq 1 100); do
	sh -c "echo $n >/proc/self/fail-nth; exec dd if=/tmp/data of=/dev/v4blk0 bs=64k oflag=direct" \
		2>/dev/null || errors=$((errors + 1))
done
echo "ok: submission swept: 100 dd runs, $errors failed cleanly"
round_trip 256 "after the sweep, without injection"
echo "ok: the disk round-trips after the sweep"

rmmod virtio4_blk && rmmod virtio4_pci || fail "unloading"
kmemleak_check
