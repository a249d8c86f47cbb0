# SPDX-License-Identifier: GPL-2.0
# The PCI transport's three interrupt set-ups all carry I/O: an MSI-X vector per queue, one
# shared MSI-X vector for the queues, and INTx; /proc/interrupts shows which one is in use.
# The device has two request queues (VIRTIO_BLK_F_MQ): with a vector per queue, each queue's
# vector is bound to a different CPU, and I/O from each CPU completes on its own queue.
# kernels: debug stock
# timeout: 180
# setup: truncate -s 32M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,num-queues=2
. /tests/lib.sh

# Lines of /proc/interrupts for our device, and how many took interrupts.
irq_lines() {
	grep -c 'virtio4\.0' /proc/interrupts
}

# Each request queue's vector on its own CPU, and I/O issued on CPU c completing on c's queue.
check_queue_cpus() {
	cpus=""
	for irq in $(grep 'virtio4\.0-requests' /proc/interrupts | cut -d: -f1); do
		cpus="$cpus $(cat /proc/irq/$irq/effective_affinity_list)"
	done
	echo "request queue vectors on CPUs:$cpus"
	expect_eq "distinct CPUs of the queue vectors" 2 "$(echo $cpus | tr ' ' '\n' | sort -u | wc -l)"
	for cpu in 0 1; do
		before=$(grep 'virtio4\.0-requests' /proc/interrupts | awk -v c=$((cpu + 2)) '{ s += $c } END { print s }')
		taskset -c $cpu dd if=/dev/v4blk0 of=/dev/null bs=4k count=200 iflag=direct 2>/dev/null ||
			fail "read on CPU $cpu"
		after=$(grep 'virtio4\.0-requests' /proc/interrupts | awk -v c=$((cpu + 2)) '{ s += $c } END { print s }')
		echo "CPU $cpu: $((after - before)) queue interrupts on CPU $cpu for 200 reads"
		[ $((after - before)) -ge 200 ] || fail "reads on CPU $cpu did not complete on CPU $cpu"
	done
}

for mode in 0 1 2; do
	load_virtio4_blk irq_mode=$mode
	round_trip 1024 "irq_mode=$mode"
	grep 'virtio4\.0' /proc/interrupts
	case $mode in
	0) expect_eq "per-queue vector lines" 2 "$(grep -c 'virtio4\.0-requests' /proc/interrupts)"
	   expect_eq "lines with irq_mode=0" 3 "$(irq_lines)"
	   check_queue_cpus ;;
	1) expect_eq "MSI lines with irq_mode=1" 2 "$(grep 'virtio4\.0' /proc/interrupts | grep -c MSI)" ;;
	2) expect_eq "INTx lines with irq_mode=2" 1 "$(grep 'virtio4\.0' /proc/interrupts | grep -c IO-APIC)"
	   expect_eq "lines with irq_mode=2" 1 "$(irq_lines)" ;;
	esac
	echo "ok: 1 MiB round-trips with irq_mode=$mode"
	rmmod virtio4_blk virtio4_pci || fail "unloading after irq_mode=$mode"
done
