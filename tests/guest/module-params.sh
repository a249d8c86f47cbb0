# SPDX-License-Identifier: GPL-2.0
# Module parameters that shape the queues take effect, and bad values are refused with one
# log line each. With virtio4_pci queue_size_max=64, virtio4_blk max_segments=8 num_queues=1
# and virtio4 indirect=0 (virtio4_ring indirect_always=1 asking for tables): every request
# ring has 64 entries, the disk 8 segments per request and one hardware queue, and no buffer
# goes through an indirect table, while 4 MiB round-trip. Then, as control, the defaults on the
# same device: 256-entry rings, the device's seg_max, a queue per CPU, indirect tables used,
# interrupt batching of 200 us (irq_batch_us).
# kernels: debug stock
# timeout: 180
# setup: truncate -s 16M disk.img
# qemu: -drive file=$WORK/disk.img,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0,num-queues=4,queue-size=256
. /tests/lib.sh

# ring_field FIELD: FIELD of each request ring's debugfs file, one per line.
ring_field() {
	cat /sys/kernel/debug/virtio4/virtio4.0/virtio4.0-requests.* | awk -v f="$1" '$1 == f { print $2 }'
}

modprobe virtio4 || fail "modprobe virtio4"
expect_refused virtio4_pci queue_size_max=100 "queue_size_max=100 is not a power of two up to 32768"
expect_refused virtio4_pci irq_mode=3 "irq_mode=3 is not 0, 1 or 2"
expect_refused virtio4_blk max_segments=2000 "max_segments=2000 is above 1024"
expect_refused virtio4_blk irq_batch_us=1001 "irq_batch_us=1001 is above 1000"
expect_refused virtio4_blk poll_queues=17 "poll_queues=17 is above 16"
expect_refused virtio4_blk io_timeout=0 "io_timeout=0 is outside 1..3600 seconds"
rmmod virtio4 || fail "rmmod virtio4"

modprobe virtio4 indirect=0 && modprobe virtio4_ring indirect_always=1 || fail "module options"
modprobe virtio4_pci queue_size_max=64 && modprobe virtio4_blk max_segments=8 num_queues=1 ||
	fail "modprobe with queue_size_max=64 max_segments=8 num_queues=1"
wait_for_disk v4blk0
expect_eq "request ring sizes with queue_size_max=64" 64 "$(ring_field size | sort -u)"
expect_eq "segments per request with max_segments=8" 8 "$(cat /sys/block/v4blk0/queue/max_segments)"
expect_eq "hardware queues with num_queues=1" 1 "$(ls /sys/block/v4blk0/mq | wc -l)"
expect_eq "negotiated INDIRECT_DESC (bit 28) with indirect=0" 0 \
	"$(feature_bit virtio4.0 28)"
round_trip 4096 "queue_size_max=64 max_segments=8 num_queues=1 indirect=0"
expect_eq "indirect tables with indirect=0" 0 "$(blk_ring_sum indirect_tables)"
rmmod virtio4_blk virtio4_pci virtio4_ring virtio4 || fail "unloading"

modprobe virtio4_ring indirect_always=1 || fail "modprobe virtio4_ring"
load_virtio4_blk
expect_eq "request ring sizes by default" 256 "$(ring_field size | sort -u)"
segs=$(cat /sys/block/v4blk0/queue/max_segments)
[ "$segs" -gt 8 ] || fail "segments per request by default: $segs"
echo "ok: $segs segments per request by default"
expect_eq "hardware queues by default (one per CPU)" "$(grep -c ^processor /proc/cpuinfo)" "$(ls /sys/block/v4blk0/mq | wc -l)"
round_trip 4096 "the defaults"
expect_eq "irq_batch_us by default" 200 "$(cat /sys/module/virtio4_blk/parameters/irq_batch_us)"
tables=$(blk_ring_sum indirect_tables)
[ "$tables" -gt 0 ] || fail "no indirect table used with the defaults"
echo "ok: $tables indirect tables with the defaults"
