# SPDX-License-Identifier: GPL-2.0
# Block benchmark guest: two identical null disks (reads return zeroes, writes are dropped, so
# the host's storage adds no noise): 00:04.0 and 00:05.0. Each round runs every fio job three
# times back to back: on our driver (side "ours"), on Linux's virtio_blk (side "linux") and on
# Linux's again (side "again": the A/A noise control, again/linux). "ours" and "again" run on
# the same disk and "linux" on the other, and the disks swap these roles every other round, so
# that a difference between the two devices cancels out; the order of the three sides rotates
# from round to round, so that drift does too. Each run reports fio's JSON with the kicks and
# interrupts it cost.
# kernels: stock
# timeout: 7200
# qemu: -drive driver=null-co,read-zeroes=on,size=1G,if=none,id=d0 -device virtio-blk-pci,drive=d0,addr=04.0
# qemu: -drive driver=null-co,read-zeroes=on,size=1G,if=none,id=d1 -device virtio-blk-pci,drive=d1,addr=05.0
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

modprobe virtio_pci && modprobe virtio_blk && modprobe virtio4_pci && modprobe virtio4_blk ||
	fail "loading the drivers"
linux_kicks_setup
echo "bench: $ROUNDS rounds of ${RUNTIME}s runs, $(echo "$JOBS" | wc -l) jobs, 3 sides each"
for round in $(seq "$ROUNDS"); do
	# This round's disk for ours and again (A), and for linux (B).
	a=04.0 b=05.0
	[ $((round % 2)) = 1 ] || a=05.0 b=04.0
	echo "$JOBS" | while read -r job; do
		for side in $(side_order "$round"); do
			case $side in
			ours) bind_pci $a virtio4-pci && run_job blk "$round" ours $a "$job" ;;
			again) bind_pci $a virtio-pci && run_job blk "$round" again $a "$job" ;;
			linux) bind_pci $b virtio-pci && run_job blk "$round" linux $b "$job" ;;
			esac || exit 1
		done
	done || fail "round $round"
done
echo "bench: done"
