# SPDX-License-Identifier: GPL-2.0
# Allocation failures (fault injection on the debug kernel; /proc/self/fail-nth fails the Nth
# allocation of the task):
#   probe:   binding our PCI driver to a disk (INTx, see below) with the Nth allocation failing,
#            N = 1..100, every 16th after, and each of the last 11 of the allocations a bind
#            makes (counted first):
#            each succeeds, or fails with an error only if the failure was injected;
#   submit:  a 64 KiB direct write through our disk (indirect descriptors forced, so each
#            request allocates its table) with the Nth allocation of the writer failing, armed
#            only once the disk is open and the data ready (virtio4-fail-io), N = 1.. (to 60, or
#            until five writes in a row make fewer allocations than N): the write succeeds
#            and reads back, or fails with an error where its own allocation failed (an error
#            with nothing injected fails the test). fail-nth counts only the writer's own
#            allocations, and the request's table is allocated where blk-mq
#            dispatches it, so then 20% of all atomic allocations fail during 40 such writes:
#            the ring's debugfs counter must show failed table allocations, and every write
#            must still succeed and read back (the block driver retries the request).
# Nothing leaks (kmemleak) and nothing splats (the runner).
# A second disk stays on Linux's virtio_blk throughout: it keeps the block layer's shared caches
# (the disks' bio slab) alive, so that no injected failure lands in the kernel's own first-time
# creation of a slab cache, whose 6.1 error path prints a stack and leaks the cache's name.
# A failure that lands in the partition scan at the end of the disk's registration (its vzalloc)
# makes the kernel print the allocation failure with a stack (warn_alloc); the scan's failure
# does not fail the bind, and that report is allowed.
# console-ok: vmalloc error: size [0-9]+, vm_struct allocation failed
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
# How many allocations a bind makes: fail-nth counts down from a number no bind reaches.
allocs=$((100000 - $(bind_with_failure 100000)))
[ -e /dev/v4blk0 ] || fail "a bind with no failure injected made no disk"
echo $slot >$pci/unbind
echo "a bind makes $allocs allocations"
[ "$allocs" -gt 0 ] && [ "$allocs" -lt 100000 ] || fail "counting a bind's allocations"
# Every one of the first 100 (the transport's, the bus's and the driver's own, and the first of
# the block layer's) and of the last 11 (the end of device_add_disk: the partition scan and
# uevents, and the driver core's bookkeeping of the binds), and every 16th between: those are
# the block layer's registration of the disk, where any failure takes our driver down the same
# error path.
n=0 binds=0 failed=0
while :; do
	if [ $n -lt 100 ] || [ $n -ge $((allocs - 10)) ]; then
		next=$((n + 1))
	else
		next=$((n + 16))
		[ $next -le $((allocs - 10)) ] || next=$((allocs - 10))
	fi
	# Past the last, the countdown would outlive the bind and fail the shell's own allocations.
	[ $next -le $allocs ] || break
	n=$next
	binds=$((binds + 1))
	left=$(bind_with_failure $n)
	if [ -e $pci/$slot ] && [ -e /dev/v4blk0 ]; then
		dd if=/dev/v4blk0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null ||
			fail "reading a disk whose probe succeeded (N=$n)"
	else
		[ "$left" = 0 ] || fail "a bind failed with no allocation failing (N=$n)"
		failed=$((failed + 1))
	fi
	[ ! -e $pci/$slot ] || echo $slot >$pci/unbind
done
echo "ok: probe swept: $binds binds up to allocation $n of $allocs, $failed failed cleanly"
[ $failed -ge 1 ] || fail "no injected failure made a bind fail"
echo $slot >$pci/bind || fail "binding without injection"
wait_for_disk v4blk0

before=$(blk_ring_sum alloc_failures)
# N from 1 while the writer makes an Nth allocation: up to 60, ending after five writes in a
# row that made fewer than N (measured: the first two inject; 54 more writes found nothing).
errors=0 injected=0 missed=0 n=0
while [ $n -lt 60 ] && [ $missed -lt 5 ]; do
	n=$((n + 1))
	out=$(virtio4-fail-io /dev/v4blk0 $n) && rc=0 || rc=$?
	# An error is clean only where the writer's own allocation failed.
	case $rc:$out in
	0:*) ;;
	3:injected*) errors=$((errors + 1)) ;;
	3:*) fail "a write failed with no allocation of its own failing (N=$n): $out" ;;
	*) fail "allocation $n failing in a write: $out" ;;
	esac
	case $out in
	injected*) injected=$((injected + 1)) missed=0 ;;
	*) missed=$((missed + 1)) ;;
	esac
done
echo "ok: submission swept: $n writes, $injected with the writer's Nth allocation failing," \
	"$errors failed cleanly"
[ "$injected" -gt 0 ] || fail "no injected failure reached the writer"

for f in failslab fail_page_alloc; do
	echo Y >$dbg/$f/ignore-gfp-wait	# atomic allocations only: the ring's tables
	echo 20 >$dbg/$f/probability
done
for n in $(seq 1 40); do
	out=$(virtio4-fail-io /dev/v4blk0 0) || fail "a write with 20% of atomic allocations failing: $out"
done
for f in failslab fail_page_alloc; do
	echo 0 >$dbg/$f/probability
	echo N >$dbg/$f/ignore-gfp-wait
done
seen=$(( $(blk_ring_sum alloc_failures) - before ))
echo "ok: 40 writes with 20% of atomic allocations failing all completed and read back;" \
	"$seen indirect-table allocations failed in the ring and were retried"
[ "$seen" -gt 0 ] || fail "no injected failure reached the ring's table allocation"
round_trip 256 "after the sweep, without injection"
echo "ok: the disk round-trips after the sweep"

rmmod virtio4_blk && rmmod virtio4_pci || fail "unloading"
kmemleak_check
