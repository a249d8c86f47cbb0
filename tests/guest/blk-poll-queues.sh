# SPDX-License-Identifier: GPL-2.0
# Polled request queues (virtio4_blk poll_queues=1). The device, in its own iothread so that
# completions arrive while the guest runs, has two queues: the second has no callback and no
# interrupt vector, and blk-mq sends polled I/O there. fio's io_uring with --hipri
# (IORING_SETUP_IOPOLL) writes and verifies through it at depths 1 and 16 from both CPUs, then
# plain (interrupt-driven) I/O runs beside polled I/O. Passes when the disk says it polls
# (queue/io_poll), its hardware queue 1 is of type poll and both serve both CPUs, the device
# has interrupts for its configuration and queue 0 only, fio finishes in time with no verify
# error, the polled queue took the polled requests (kicks) with no interrupt, no request
# waited for its timeout (where a completion .poll missed would be collected), and the disk
# unbinds under polled I/O and binds again three times with the data intact.
# kernels: debug stock
# rings: split packed
# timeout: 240
# setup: truncate -s 64M disk.img
# qemu: -object iothread,id=io0 -drive file=$WORK/disk.img,if=none,id=d0,format=raw,cache=unsafe,aio=threads -device virtio-blk-pci,drive=d0,iothread=io0,num-queues=2
. /tests/lib.sh

# ring_field QUEUE FIELD: FIELD of request queue QUEUE's ring (debugfs).
ring_field() {
	awk -v f="$2" '$1 == f { print $2 }' "/sys/kernel/debug/virtio4/$vdev/$vdev-$1"
}

# fio_verify NAME DEPTH FIO-OPTIONS...: write and verify 16 MiB a job (unless the options say)
# from both CPUs, the second job 16 MiB further.
fio_verify() {
	local name=$1 depth=$2 out
	shift 2
	out=$(timeout 100 fio --name="$name" --filename=/dev/v4blk0 --size=16M --rw=randwrite \
		--bsrange=4k-64k --iodepth="$depth" --numjobs=2 --offset_increment=16M \
		--cpus_allowed=0,1 --cpus_allowed_policy=split --direct=1 --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --randrepeat=0 --group_reporting \
		--output-format=terse --terse-version=3 "$@" 2>&1) ||
		fail "fio $name did not finish (exit $?): $(echo "$out" | tail -n 3)"
	expect_eq "fio $name error" 0 "$(echo "$out" | tail -n 1 | cut -d';' -f5)"
	echo "ok: fio $name: $(echo "$out" | tail -n 1 | cut -d';' -f47) KiB written and verified"
}

load_transport
modprobe virtio4_blk poll_queues=1 || fail "modprobe virtio4_blk poll_queues=1"
wait_for_disk v4blk0
vdev=$(basename "$(readlink /sys/block/v4blk0/device)")
expect_eq "queue/io_poll" 1 "$(cat /sys/block/v4blk0/queue/io_poll)"
expect_eq "hardware queue 0's type" default "$(cat /sys/kernel/debug/block/v4blk0/hctx0/type)"
expect_eq "hardware queue 1's type" poll "$(cat /sys/kernel/debug/block/v4blk0/hctx1/type)"
for h in 0 1; do
	expect_eq "CPUs mapped to hardware queue $h" "cpu0 cpu1" \
		"$(cd /sys/kernel/debug/block/v4blk0/hctx$h && ls -d cpu* | paste -sd ' ')"
done
expect_eq "interrupts of the polled queue" "" "$(grep -o "$vdev-polled[^ ]*" /proc/interrupts)"
expect_eq "interrupts of the device" "$vdev $vdev-requests.0" "$(awk -v v="$vdev" \
	'$NF == v || index($NF, v "-") == 1 { print $NF }' /proc/interrupts | sort | paste -sd ' ')"

kicks0=$(ring_field polled.1 kicks)
fio_verify polled-depth1 1 --ioengine=io_uring --hipri=1 --size=8M
fio_verify polled-depth16 16 --ioengine=io_uring --hipri=1 --iodepth_batch_submit=8
kicks=$(ring_field polled.1 kicks)
[ "$kicks" -gt "$kicks0" ] || fail "the polled queue took no request (kicks $kicks0 -> $kicks)"
expect_eq "interrupts on the polled queue" 0 "$(ring_field polled.1 interrupts)"
expect_eq "polled queue in flight" 0 "$(ring_field polled.1 in_flight)"
echo "ok: the polled queue took the polled I/O: $((kicks - kicks0)) kicks, no interrupt"

# Interrupt-driven I/O (both CPUs, 8 MiB at 0 and at 16 MiB) and polled I/O (8 MiB at 32 MiB)
# at once.
irq0=$(ring_field requests.0 interrupts)
fio_verify irq-beside-polled 8 --ioengine=libaio --size=8M &
irq_fio=$!
fio_verify polled-beside-irq 8 --ioengine=io_uring --hipri=1 --offset=32M --size=8M \
	--numjobs=1
wait "$irq_fio" || fail "the interrupt-driven fio beside polled I/O"
[ "$(ring_field requests.0 interrupts)" -gt "$irq0" ] ||
	fail "queue 0 took no interrupt for the interrupt-driven I/O"
expect_eq "interrupts on the polled queue after both" 0 "$(ring_field polled.1 interrupts)"
blk_idle "after the runs"
# A completion .poll missed is collected at the request's timeout, data intact: only this
# log line would show it.
! dmesg | grep -E "interrupt was missed|request is late|not collected by its task" ||
	fail "a request waited for its timeout"

# unbind_under_polled_io ROUND VDEV: unbind while polled reads are in flight (they may fail
# once the disk goes; nothing may hang).
unbind_under_polled_io() {
	local burst
	fio --name=burst --filename=/dev/v4blk0 --size=8M --offset=8M --rw=randread --bs=4k \
		--ioengine=io_uring --hipri=1 --iodepth=16 --direct=1 --runtime=5 --time_based \
		--output-format=terse >/dev/null 2>&1 &
	burst=$!
	sleep 1
	kill -0 "$burst" 2>/dev/null || fail "polled fio burst $1 ended before the unbind"
	echo "$2" >/sys/bus/virtio4/drivers/virtio4_blk/unbind || fail "unbind $1"
	wait "$burst" || echo "ok: polled fio burst $1 failed once the disk went (status $?)"
}
blk_rebinds_keep_data 3 unbind_under_polled_io
echo "ok: 3 unbinds under polled I/O, the data intact"
