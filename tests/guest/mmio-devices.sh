# SPDX-License-Identifier: GPL-2.0
# virtio4_mmio's device= parameter, on QEMU's microvm without ACPI (legacy devices): values
# that are not <size>@<base>:<irq>[:<id>] (an empty base, an interrupt beyond 32 bits too), and
# two devices of one id, are refused at load with one log line each; a window too small for the
# registers, one with no virtio-mmio device behind it (wrong magic) and an empty slot of the
# machine (device id 0) give no device, the first two with one log line each, the empty slot
# with none; a device given without an id takes the id after the last one's; the disk QEMU
# named, given an id, becomes platform device virtio4-mmio.<id>, which the parameter reads back,
# and keeps its data across unbind and bind through sysfs (microvm has no hot-plug: this is its
# removal); the module unloads and kmemleak finds nothing.
# kernels: debug
# transports: mmio-legacy
# timeout: 120
# setup: truncate -s 16M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0
. /tests/lib.sh

# no_device VALUE PATTERN: with device=VALUE the module loads and no device joins the virtio4
# bus; the transport logs one line, matching PATTERN (grep -E), or with PATTERN empty nothing.
no_device() {
	local said
	dmesg -c >/dev/null
	modprobe virtio4_mmio "device=$1" || fail "modprobe virtio4_mmio device=$1"
	expect_eq "devices on the virtio4 bus with device=$1" 0 "$(ls /sys/bus/virtio4/devices | wc -l)"
	said=$(dmesg | grep "virtio4-mmio" | sed 's/^\[[ 0-9.]*\] //')
	echo "the transport logged for device=$1: '$said'"
	if [ -z "$2" ]; then
		expect_eq "lines the transport logged for device=$1" 0 "$(echo -n "$said" | grep -c .)"
	else
		expect_eq "lines the transport logged for device=$1" 1 "$(echo "$said" | grep -c .)"
		echo "$said" | grep -qE "$2" || fail "device=$1: '$said' does not match '$2'"
	fi
	rmmod virtio4_mmio || fail "rmmod virtio4_mmio"
}

dev=$(mmio_devices | head -n 1)
dev=${dev#device=}
[ -n "$dev" ] || fail "QEMU named no virtio-mmio device"
size=${dev%%@*}
rest=${dev#*@}
base=${rest%%:*}
irq=${rest#*:}
echo "ok: QEMU's disk: $size bytes at $base, interrupt $irq"

modprobe virtio4 && modprobe virtio4_blk || fail "loading virtio4, virtio4_blk"
expect_refused virtio4_mmio "device=nonsense" "device=nonsense is not <size>@<base>:<irq>[:<id>]"
expect_refused virtio4_mmio "device=$size@$base" "device=$size@$base is not <size>@<base>:<irq>[:<id>]"
expect_refused virtio4_mmio "device=0@$base:$irq" "device=0@$base:$irq is not <size>@<base>:<irq>[:<id>]"
expect_refused virtio4_mmio "device=$size@$base:$irq:7x" "device=$size@$base:$irq:7x is not <size>@<base>:<irq>[:<id>]"
expect_refused virtio4_mmio "device=$size@:$irq" "device=$size@:$irq is not <size>@<base>:<irq>[:<id>]"
expect_refused virtio4_mmio "device=$size@$base:4294967301" "device=$size@$base:4294967301 is not <size>@<base>:<irq>[:<id>]"
# Two devices of one id would be one platform device's name twice (sysfs warns with a stack dump).
dmesg -c >/dev/null
if modprobe virtio4_mmio "device=$size@$base:$irq:3" "device=$size@0xfe000000:$irq:3" 2>/tmp/modprobe.err; then
	fail "two devices of id 3 loaded"
fi
expect_eq "what virtio4_mmio logged for two devices of id 3" \
	"virtio4_mmio: device=$size@0xfe000000:$irq:3: id 3 is taken" \
	"$(dmesg | grep "virtio4_mmio: " | sed 's/^\[[ 0-9.]*\] //' | sort -u)"

# QEMU's microvm lays its virtio-mmio slots out 512 bytes apart from 0xfeb00000; the disk sits
# in one of them, the others are empty (device id 0). 0xfe000000 has nothing behind it.
empty=$(printf '%#x' $((base == 0xfeb00000 ? base + 512 : base - 512)))
no_device "0x80@$base:$irq" "^virtio4-mmio virtio4-mmio.0: \\[mem $base-.* is too small for the registers$"
no_device "$size@0xfe000000:$irq" "^virtio4-mmio virtio4-mmio.0: no virtio-mmio device here \\(magic 0x[0-9a-f]+\\)$"
no_device "$size@$empty:$irq" ""

# A device given without an id takes the id after the last one's (Linux's virtio_mmio.device=).
modprobe virtio4_mmio "device=$size@$empty:$irq:4" "device=$size@$base:$irq" ||
	fail "modprobe virtio4_mmio device=$size@$empty:$irq:4 device=$size@$base:$irq"
wait_for_disk v4blk0
expect_eq "the transport device of the disk given after id 4" virtio4-mmio.5 \
	"$(basename "$(readlink -f /sys/bus/virtio4/devices/virtio4.*/..)")"
rmmod virtio4_mmio || fail "rmmod virtio4_mmio"
expect_disk_gone

modprobe virtio4_mmio "device=$size@$base:$irq:7" || fail "modprobe virtio4_mmio device=$size@$base:$irq:7"
wait_for_disk v4blk0
expect_eq "the parameter read back" "$((size))@$base:$irq:7" \
	"$(cat /sys/module/virtio4_mmio/parameters/device)"
expect_eq "the disk's transport device" virtio4-mmio.7 \
	"$(basename "$(readlink -f /sys/bus/virtio4/devices/virtio4.*/..)")"
expect_ring_layout
kmemleak_start
round_trip 1024 "before unbind"
echo virtio4-mmio.7 >/sys/bus/platform/drivers/virtio4-mmio/unbind || fail "unbind"
expect_disk_gone
echo virtio4-mmio.7 >/sys/bus/platform/drivers/virtio4-mmio/bind || fail "bind"
wait_for_disk v4blk0
dd if=/dev/v4blk0 of=/tmp/rt.again bs=64k count=16 iflag=direct 2>/dev/null || fail "reading after bind"
cmp /tmp/rt.out /tmp/rt.again || fail "the data written before unbind did not read back after bind"
echo "ok: 1 MiB written before unbind reads back after bind"
rmmod virtio4_blk virtio4_mmio || fail "unloading"
kmemleak_check
