# SPDX-License-Identifier: GPL-2.0
# The same fio verification with the other ring and interrupt paths: every multi-element
# buffer in an indirect table, no event index (flag-based suppression), INTx interrupts, and
# buffers mapped with the DMA API (the device offers VIRTIO_F_ACCESS_PLATFORM). Checks that
# the line is an IO-APIC one that took interrupts and that indirect tables were used (debugfs).
# kernels: debug
# rings: split packed
# timeout: 400
# setup: truncate -s 96M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0,disable-legacy=on,iommu_platform=on
. /tests/lib.sh

modprobe virtio4 event_idx=0 && modprobe virtio4_ring indirect_always=1 || fail "module options"
load_virtio4_blk irq_mode=2
intx=$(grep 'IO-APIC.*virtio4\.0$' /proc/interrupts) ||
	fail "virtio4.0 is not on an IO-APIC line (INTx): $(grep virtio4 /proc/interrupts)"
echo "ok: INTx: $intx"
features=$(cat /sys/bus/virtio4/devices/virtio4.0/features)
[ $((features >> 33 & 1)) = 1 ] || fail "VIRTIO_F_ACCESS_PLATFORM not negotiated: $features"
echo "ok: VIRTIO_F_ACCESS_PLATFORM negotiated ($features)"
expect_eq "negotiated EVENT_IDX (bit 29)" 0 "$(feature_bit virtio4.0 29)"
expect_eq "negotiated INDIRECT_DESC (bit 28)" 1 "$(feature_bit virtio4.0 28)"
fio_verify /dev/v4blk0 16M
tables=$(blk_ring_sum indirect_tables)
[ "$tables" -gt 0 ] || fail "no buffer went through an indirect table"
echo "ok: $tables buffers went through an indirect table"
count=$(grep 'IO-APIC.*virtio4\.0$' /proc/interrupts | awk '{ print $2 + $3 }')
[ "$count" -gt 0 ] || fail "the INTx line took no interrupt"
grep virtio4 /proc/interrupts
