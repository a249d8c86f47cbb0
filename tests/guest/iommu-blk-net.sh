# SPDX-License-Identifier: GPL-2.0
# A guest with an IOMMU (QEMU's intel-iommu on q35, intel_iommu=on): our block and network
# drivers on devices with and without VIRTIO_F_ACCESS_PLATFORM. A device without it reads guest
# physical addresses, bypassing the IOMMU, so the rings' own memory must not come from the DMA
# API there (an IOMMU address is not a physical one); a device with it goes through the IOMMU,
# rings and buffers alike. Each disk round-trips 4 MiB, and the two NICs (one of each kind, on
# one QEMU hub, in two namespaces, NAPI in threads) exchange pings of every size class.
# kernels: stock
# rings: split packed
# timeout: 200
# append: intel_iommu=on
# setup: truncate -s 16M a.img && truncate -s 16M b.img
# qemu: -machine q35 -device intel-iommu
# qemu: -drive file=$WORK/a.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0,disable-legacy=on
# qemu: -drive file=$WORK/b.img,if=none,id=d1,format=raw,cache=unsafe -device virtio-blk-pci,drive=d1,disable-legacy=on,iommu_platform=on
# qemu: -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:30:01,disable-legacy=on
# qemu: -netdev hubport,id=n2,hubid=0 -device virtio-net-pci,netdev=n2,mac=52:54:00:00:30:02,disable-legacy=on,iommu_platform=on
. /tests/lib.sh

[ -n "$(ls /sys/class/iommu 2>/dev/null)" ] || fail "no IOMMU in the guest"
echo "ok: IOMMU $(ls /sys/class/iommu)"
load_virtio4_blk
wait_for_disk v4blk1
modprobe virtio4_net || fail "modprobe virtio4_net"
# Every device sits behind the IOMMU; one of each kind negotiated ACCESS_PLATFORM (bit 33).
with=0
for d in /sys/bus/virtio4/devices/*; do
	[ -e "$d/../iommu_group" ] || fail "$(basename "$d"): its PCI device has no IOMMU group"
	with=$((with + ($(cat "$d/features") >> 33 & 1)))
done
expect_eq "devices with VIRTIO_F_ACCESS_PLATFORM" 2 "$with"
for n in 0 1; do
	round_trip 4096 "v4blk$n behind the IOMMU" /dev/v4blk$n
	echo "ok: 4 MiB round-trip on v4blk$n"
done
for _ in $(seq 100); do
	[ "$(our_interfaces | wc -l)" = 2 ] && break
	sleep 0.1
done
for dev in $(our_interfaces); do
	echo 1 >"/sys/class/net/$dev/threaded" || fail "threaded NAPI on $dev"
done
nics_in_namespaces
for size in 56 1400 8000; do
	ns_ping_count 1 50 -i 0.02 -s $size
	ns_ping_count 2 50 -i 0.02 -s $size
done
echo "ok: pings of 56, 1400 and 8000 bytes both ways"
