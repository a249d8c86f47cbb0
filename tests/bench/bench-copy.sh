# SPDX-License-Identifier: GPL-2.0
# Copying transport benchmark guest: the block jobs on /dev/v4blk0 served by a device host from
# a tmpfs file (side "copy"), beside the guest's memory copy bandwidth (reading that file from
# the page cache, as the transport's copies do): the ceiling of a copying transport.
# kernels: stock
# timeout: 7200
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

# memcpy_mbps FILE: MB/s of reading FILE (in tmpfs) into userspace 8 times over (timed with
# /proc/uptime, whose 10 ms steps are small against that).
memcpy_mbps() {
	local t0 t1 bytes
	bytes=$(size_of "$1")
	t0=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	for _ in 1 2 3 4 5 6 7 8; do
		dd if="$1" of=/dev/null bs=1M 2>/dev/null
	done
	t1=$(cut -d' ' -f1 /proc/uptime | tr -d .)
	echo $((8 * bytes / 10000 / (t1 - t0 + 1)))
}

modprobe virtio4_copy && modprobe virtio4_blk || fail "loading virtio4_copy, virtio4_blk"
head -c 268435456 /dev/zero >/tmp/disk.img
serve_blk /tmp/disk.img
for round in $(seq "$ROUNDS"); do
	emit "{\"bench\":\"copy\",\"round\":$round,\"side\":\"copy\",\"job\":\"memcpy\",\"metric\":\"MB/s\",\"value\":$(memcpy_mbps /tmp/disk.img)}"
	echo "$JOBS" | while read -r job; do
		run_job copy "$round" copy copy "$job"
	done
done
echo "bench: done"
