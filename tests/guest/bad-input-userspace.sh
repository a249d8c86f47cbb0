# SPDX-License-Identifier: GPL-2.0
# Garbage from userspace gets errors, never a crash: block ioctls with bad arguments and I/O at
# and past the end of our disk (then the disk still round-trips), malformed use of the device
# host's character device (bad creates, 2000 random completions), and ethtool/ip with
# out-of-range values on our NIC (which then still carries pings). See
# tests/tools/bad-input.c for each call and the errno it must get.
# kernels: debug stock
# timeout: 240
# setup: truncate -s 64M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0
. /tests/lib.sh

kmemleak_start
load_virtio4_blk
virtio4-bad-input blk /dev/v4blk0 || fail "block device"
modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
virtio4-bad-input host || fail "device host character device"

serve_net_pair
# bad NS ARGS...: the command (in namespace NS) must fail.
bad() {
	local ns=$1
	shift
	if in_ns "$ns" "$@" >/tmp/bad.log 2>&1; then
		fail "accepted: $*"
	fi
	echo "ok: refused: $* ($(head -n 1 /tmp/bad.log))"
}
bad ns1 ethtool -G "$NIC_1" rx 100000
bad ns1 ethtool -G "$NIC_1" tx 0
bad ns1 ethtool -G "$NIC_1" rx-jumbo 4096
bad ns1 ethtool -L "$NIC_1" combined 64
bad ns1 ethtool -K "$NIC_1" no-such-feature on
bad ns1 "$IP" link set "$NIC_1" mtu 67
bad ns1 "$IP" link set "$NIC_1" mtu 70000
bad ns1 "$IP" link set "$NIC_1" txqueuelen -1
bad ns1 "$IP" link set "$NIC_1" address ff:ff:ff:ff:ff:ff
ns_reach 1
ns_ping_count 1 20 -i 0.05	# after the garbage
stop_host 1	# the PCI disk stays
rmmod virtio4_net && rmmod virtio4_blk && rmmod virtio4_copy && rmmod virtio4_pci ||
	fail "unloading"
kmemleak_check
