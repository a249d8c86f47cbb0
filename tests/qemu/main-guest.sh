# SPDX-License-Identifier: GPL-2.0
# make run: the guests' side. Each guest's root filesystem is on a disk driven by our block
# driver (virtio4_root: /init puts it there); guest 0 sends to guest 1 through our network
# driver, and reports the devices, the drivers, a write and a read on its root filesystem with
# their rates, and the transfer's rate.
# guests: 2
# append: virtio4_root=v4blk0
# timeout: 240
# setup: truncate -s 512M disk0.img && truncate -s 512M disk1.img
# qemu: -drive file=$WORK/disk$GUEST.img,if=none,id=d0,format=raw,cache=writeback -device virtio-blk-pci,drive=d0,serial=virtio4-run-$GUEST
# qemu: -device virtio-net-pci,netdev=wire,mac=52:54:00:12:34:5$GUEST
. /tests/lib.sh

for m in $(shipped_modules); do
	modprobe "$m" || fail "modprobe $m"
done
net_up ours >/dev/null
if [ "$GUEST" = 1 ]; then
	peer_barrier "$PEER"
	iperf3 -s -1 -p 5201 >/dev/null || fail "iperf3 server"
	peer_barrier "$PEER"
	exit 0
fi

echo "== virtio4 guest on $(uname -r), $(nproc) CPUs"
for m in $(shipped_modules); do
	echo "-- $m: $(modinfo -F description "$m")"
done
wait_for_disk v4blk0
echo "-- virtio4 devices:"
for d in /sys/bus/virtio4/devices/*; do
	drv=$(basename "$(readlink "$d/driver")")
	parent=$(basename "$(dirname "$(readlink -f "$d")")")
	echo "   $(basename "$d"): virtio device $(cat "$d/device") on PCI $parent, driver $drv, features $(cat "$d/features")"
done
echo "-- disk v4blk0: $(($(cat /sys/block/v4blk0/size) / 2048)) MiB, serial $(cat /sys/block/v4blk0/serial)"
echo "-- $NETDEV: $(cat /sys/class/net/$NETDEV/address), MTU $(cat /sys/class/net/$NETDEV/mtu), driver $(ethtool -i $NETDEV | sed -n 's/^driver: //p'), $ME -> peer $PEER"
expect_eq "root filesystem" "/dev/v4blk0 ext4" "$(awk '$2 == "/" { print $1, $3 }' /proc/mounts)" \
	>/dev/null
echo "-- root filesystem: /dev/v4blk0 (ext4, virtio4_blk): $(df -h / | tail -n 1 | tr -s ' ')"
# rate WHAT COMMAND...: run COMMAND on 128 MiB and print its rate (TCG emulation: slow).
rate() {
	local what=$1 t0 t1
	shift
	t0=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	"$@" 2>/dev/null || fail "$what"
	t1=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	echo "-- $what 128 MiB in $(((t1 - t0) * 10)) ms: $((128 * 100 / (t1 - t0 + 1))) MiB/s"
}
rate "write (with fsync)" dd if=/dev/zero of=/root/file bs=1M count=128 conv=fsync
echo 3 >/proc/sys/vm/drop_caches
rate "read back" dd if=/root/file of=/dev/null bs=1M
expect_eq "size of the file read back" 134217728 "$(size_of /root/file)" >/dev/null
rm /root/file
echo "-- ping: $(ping -c 10 -i 0.1 "$PEER" | tail -n 1)"
peer_barrier "$PEER" >/dev/null
for _ in $(seq 50); do
	iperf3 -c "$PEER" -p 5201 -t 5 >/tmp/iperf.log 2>&1 && break
	sleep 0.2
done
grep -q "iperf Done" /tmp/iperf.log || fail "iperf3: $(tail -n 3 /tmp/iperf.log)"
echo "-- TCP to guest 1 (iperf3, 5 s): $(grep receiver /tmp/iperf.log | awk '{ print $7, $8 }')"
echo "-- $NETDEV counters: $(ethtool -S $NETDEV | grep -E 'tx0_(packets|kicks|interrupts)' | tr -s ' \n' ' ')"
peer_barrier "$PEER" >/dev/null
