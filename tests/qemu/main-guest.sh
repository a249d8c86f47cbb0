# SPDX-License-Identifier: GPL-2.0
# make run: the guest's side. Loads our modules and reports what they did.
. /tests/lib.sh

echo "== virtio4 guest on $(uname -r), $(nproc) CPUs"
for m in $(shipped_modules); do
	modprobe "$m" || fail "modprobe $m"
	echo "-- $m $(modinfo -F version "$m" 2>/dev/null) loaded: $(modinfo -F description "$m")"
done
echo "-- buses: $(ls /sys/bus | tr '\n' ' ')"
[ -d /sys/bus/virtio4 ] || fail "the virtio4 bus is not registered"
echo "-- virtio4 devices: $(ls /sys/bus/virtio4/devices | wc -l), drivers: $(ls /sys/bus/virtio4/drivers | wc -l)"
echo "-- PCI virtio devices (vendor 0x1af4):"
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x1af4 ] || continue
	drv=$(basename "$(readlink "$d/driver" 2>/dev/null)" 2>/dev/null)
	echo "   $(basename "$d") device $(cat "$d/device") driver ${drv:-none}"
done
