# SPDX-License-Identifier: GPL-2.0
# The PCI transport's three interrupt set-ups all carry I/O: an MSI-X vector per queue, one
# shared MSI-X vector for the queues, and INTx; /proc/interrupts shows which one is in use.
# kernels: debug stock
# timeout: 180
# setup: truncate -s 32M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0
. /tests/lib.sh

# Lines of /proc/interrupts for our device, and how many took interrupts.
irq_lines() {
	grep -c 'virtio4\.0' /proc/interrupts
}

for mode in 0 1 2; do
	load_virtio4_blk irq_mode=$mode
	head -c 1048576 /dev/urandom >/tmp/p
	dd if=/tmp/p of=/dev/v4blk0 bs=64k oflag=direct 2>/dev/null || fail "write, irq_mode=$mode"
	dd if=/dev/v4blk0 of=/tmp/b bs=64k count=16 iflag=direct 2>/dev/null || fail "read, irq_mode=$mode"
	cmp /tmp/p /tmp/b || fail "data mismatch with irq_mode=$mode"
	grep 'virtio4\.0' /proc/interrupts
	case $mode in
	0) expect_eq "per-queue vector line" 1 "$(grep -c 'virtio4\.0-requests' /proc/interrupts)"
	   expect_eq "lines with irq_mode=0" 2 "$(irq_lines)" ;;
	1) expect_eq "MSI lines with irq_mode=1" 2 "$(grep 'virtio4\.0' /proc/interrupts | grep -c MSI)" ;;
	2) expect_eq "INTx lines with irq_mode=2" 1 "$(grep 'virtio4\.0' /proc/interrupts | grep -c IO-APIC)"
	   expect_eq "lines with irq_mode=2" 1 "$(irq_lines)" ;;
	esac
	echo "ok: 1 MiB round-trips with irq_mode=$mode"
	rmmod virtio4_blk virtio4_pci || fail "unloading after irq_mode=$mode"
done
