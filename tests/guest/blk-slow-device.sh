# SPDX-License-Identifier: GPL-2.0
# A device that takes time: QEMU's virtio-blk in its own iothread (completions arrive while the
# guest is busy, not in the vCPU's turn), a 16-entry ring and no indirect descriptors, kept full
# by fio at depth 64 from both CPUs with crc32c verification. Requests find the ring full all
# the time, so the queue is stopped and restarted thousands of times; a restart lost to a
# completion that came between the failed add and the stop, or an interrupt lost to a missing
# barrier, leaves fio waiting for ever. Passes when fio finishes every job in time with no
# verify error and, at the end, nothing is in flight and no hardware queue is stopped. The device
# offers more segments than the ring holds (seg-max-adjust=off: seg_max 126), so the driver's
# own bound (ring size - 2 without indirect descriptors) is what keeps 64 KiB requests fitting.
# kernels: debug stock
# timeout: 300
# setup: truncate -s 64M disk.img
# qemu: -object iothread,id=io0 -drive file=$WORK/disk.img,if=none,id=d0,format=raw,cache=unsafe,aio=threads -device virtio-blk-pci,drive=d0,iothread=io0,queue-size=16,num-queues=2,seg-max-adjust=off
. /tests/lib.sh

modprobe virtio4 indirect=0 || fail "modprobe virtio4 indirect=0"
load_virtio4_blk
expect_eq "negotiated INDIRECT_DESC (bit 28)" 0 \
	"$(feature_bit virtio4.0 28)"
for bs in 4k-64k 512-8k; do
	out=$(timeout 150 fio --name=slow --filename=/dev/v4blk0 --size=16M --rw=randwrite \
		--bsrange=$bs --ioengine=libaio --iodepth=64 --numjobs=2 --offset_increment=16M \
		--cpus_allowed=0,1 --cpus_allowed_policy=split --direct=1 --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --randrepeat=0 --group_reporting \
		--output-format=terse --terse-version=3 2>&1) ||
		fail "fio bs $bs at depth 64 did not finish (exit $?): $(echo "$out" | tail -n 3)
$(head -n 40 /sys/kernel/debug/block/v4blk0/hctx*/state 2>/dev/null)"
	expect_eq "fio bs $bs error" 0 "$(echo "$out" | tail -n 1 | cut -d';' -f5)"
	echo "ok: fio randwrite bs $bs depth 64 on a 16-entry ring: $(echo "$out" | tail -n 1 | cut -d';' -f47) KiB written and verified"
done
expect_eq "requests in flight after the runs" "0 0" \
	"$(tr -s ' ' </sys/block/v4blk0/inflight | sed 's/^ //')"
n=0
for s in /sys/kernel/debug/block/v4blk0/hctx*/state; do
	[ -e "$s" ] || continue
	grep -q STOPPED "$s" && fail "$s: hardware queue left stopped"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no hardware queue's state in debugfs to check"
for f in /sys/kernel/debug/virtio4/virtio4.0/virtio4.0-requests.*; do
	expect_eq "$(basename "$f") broken" "broken 0" "$(grep '^broken' "$f")"
done
echo "ok: nothing in flight, no queue stopped or broken"
