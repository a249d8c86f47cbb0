# SPDX-License-Identifier: GPL-2.0
# What users see of our stack besides the disk itself: modinfo describes every parameter of
# every module we ship; debugfs shows each queue (size, free descriptors, avail/used indices,
# kicks, interrupts, broken) with values that follow a read; the tracepoints virtio4_add_buf,
# virtio4_kick, virtio4_interrupt and virtio4_used fire for one read and follow one buffer.
# (The serial through udev: blk-udev-serial.)
# kernels: debug stock
# timeout: 180
# setup: truncate -s 64M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,serial=V4-IFACE-7
. /tests/lib.sh

for m in $(shipped_modules); do
	modprobe "$m" || fail "modprobe $m"
	desc=$(modinfo -F description "$m")
	[ -n "$desc" ] || fail "$m has no description"
	for p in $(ls /sys/module/"$m"/parameters 2>/dev/null); do
		line=$(modinfo -F parm "$m" | grep "^$p:" || true)
		text=$(echo "$line" | sed 's/^[^:]*://')
		[ -n "$line" ] && [ -n "$text" ] || fail "modinfo $m: parameter $p not described ('$line')"
		echo "ok: $m.$p: $text"
	done
done
wait_for_disk v4blk0

# debugfs: virtio4/<device>/<device>-<queue>.
mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
dev=$(basename "$(readlink -f /sys/block/v4blk0/device)")
q=/sys/kernel/debug/virtio4/$dev/$dev-requests.0
[ -r "$q" ] || fail "no debugfs file $q: $(ls -R /sys/kernel/debug/virtio4)"
field() {
	sed -n "s/^$1 //p" "$q"
}
for f in size free avail_idx used_idx kicks interrupts broken; do
	[ -n "$(field $f)" ] || fail "debugfs $q has no $f: $(cat "$q")"
done
size=$(field size)
expect_eq "free descriptors of an idle queue" "$size" "$(field free)"
expect_eq "broken" 0 "$(field broken)"
[ $((size & (size - 1))) = 0 ] && [ "$size" -gt 0 ] || fail "queue size $size"
queues=$(ls /sys/kernel/debug/virtio4/$dev | grep -c -- '-requests\.' || true)
kicks=0 avail=0
for i in $(seq 0 $((queues - 1))); do
	q=/sys/kernel/debug/virtio4/$dev/$dev-requests.$i
	kicks=$((kicks + $(field kicks))) avail=$((avail + $(field avail_idx)))
done
dd if=/dev/v4blk0 of=/dev/null bs=4k count=64 iflag=direct 2>/dev/null || fail "reading"
kicks2=0 avail2=0 used2=0
for i in $(seq 0 $((queues - 1))); do
	q=/sys/kernel/debug/virtio4/$dev/$dev-requests.$i
	kicks2=$((kicks2 + $(field kicks))) avail2=$((avail2 + $(field avail_idx)))
	[ "$(field avail_idx)" = "$(field used_idx)" ] || fail "queue $i: avail_idx and used_idx differ when idle"
done
expect_eq "avail_idx advance over $queues queue(s) for 64 reads" 64 $((avail2 - avail))
[ $((kicks2 - kicks)) -ge 1 ] || fail "no kick counted for 64 reads"
echo "ok: debugfs: $queues queue(s) of $size, 64 reads took $((kicks2 - kicks)) kicks"

# Tracepoints: one read, followed through the ring.
tr=/sys/kernel/tracing
mount -t tracefs none $tr 2>/dev/null || true
[ -d $tr/events/virtio4 ] || fail "no virtio4 trace events"
echo >$tr/trace
echo 1 >$tr/events/virtio4/enable
dd if=/dev/v4blk0 of=/dev/null bs=4k count=1 skip=100 iflag=direct 2>/dev/null || fail "reading"
echo 0 >$tr/events/virtio4/enable
grep virtio4_ $tr/trace | sed 's/^ *//' | head -n 20
for e in virtio4_add_buf virtio4_kick virtio4_interrupt virtio4_used; do
	grep -q "$e: $dev $dev-requests\." $tr/trace || fail "tracepoint $e did not fire for $dev"
done
# One buffer: virtio4_add_buf's descriptor head comes back as virtio4_used's id, on the same
# queue (the token, %p, is hashed, or "(ptrval)" before the kernel has its random key).
added=$(sed -n 's/.*virtio4_add_buf: \([^ ]* [^ ]*\) token=[^ ]* head=\([0-9]*\) .*/\1 id=\2/p' $tr/trace |
	head -n 1)
[ -n "$added" ] || fail "no descriptor head in virtio4_add_buf"
grep -q "virtio4_used: ${added% id=*} token=.* ${added##* } len=" $tr/trace ||
	fail "the buffer added as '$added' never came back in virtio4_used"
echo "ok: tracepoints followed $added from add_buf to used"
