# SPDX-License-Identifier: GPL-2.0
# Helpers for the benchmark guests (installed as /tests/bench-lib.sh), on top of /tests/lib.sh.
# Each measurement is one line "BENCH {json}" on the third serial port (/dev/ttyS2), which the
# host's tests/bench/report.py reads. Knobs come from the kernel command line (bench.sh sets
# them): bench_runtime (seconds per fio run), bench_rounds.
. /tests/lib.sh

RUNTIME=${bench_runtime:-10}
ROUNDS=${bench_rounds:-5}
RESULTS=/dev/ttyS2

# emit JSON: one measurement for the host.
emit() {
	echo "BENCH $1" >$RESULTS
}

# bind_pci SLOT DRIVER: (re)bind PCI device 0000:00:SLOT to DRIVER (virtio4-pci or virtio-pci),
# unless it is bound to it already.
bind_pci() {
	local dev=/sys/bus/pci/devices/0000:00:$1
	[ "$(basename "$(readlink "$dev/driver")")" = "$2" ] && return 0
	[ -e "$dev/driver" ] && echo "0000:00:$1" >"$dev/driver/unbind"
	echo "$2" >"$dev/driver_override"
	echo "0000:00:$1" >/sys/bus/pci/drivers_probe
	for _ in $(seq 100); do
		[ "$(basename "$(readlink "$dev/driver")")" = "$2" ] && return 0
		sleep 0.1
	done
	fail "0000:00:$1 did not bind to $2"
}

# A "slot" is a PCI slot (04.0), or "copy": /dev/v4blk0 served by a device host.

# child_of SLOT: the virtio device (virtioN or virtio4.N) on SLOT.
child_of() {
	if [ "$1" = copy ]; then
		basename "$(readlink /sys/block/v4blk0/device)"
		return
	fi
	basename "$(ls -d /sys/bus/pci/devices/0000:00:$1/virtio* 2>/dev/null | head -n 1)"
}

# disk_of SLOT: the block device on SLOT (vdX or v4blkN), once it is there.
disk_of() {
	local d
	[ "$1" = copy ] && { echo v4blk0; return; }
	for _ in $(seq 100); do
		d=$(ls /sys/bus/pci/devices/0000:00:$1/virtio*/block 2>/dev/null | head -n 1)
		[ -n "$d" ] && [ -e "/dev/$d" ] && { echo "$d"; return 0; }
		sleep 0.1
	done
	fail "no disk on 0000:00:$1"
}

# irqs_of SLOT: interrupts so far on the queue vectors of the virtio device on SLOT.
irqs_of() {
	local child pattern timers
	child=$(child_of "$1")
	if [ "$1" = copy ]; then
		queue_stat "$child" interrupts
		return
	fi
	case $child in
	virtio4.*) pattern="$child-" ;;
	*) pattern="$child-req|$child-input|$child-output" ;;
	esac
	# Our block driver's batch timers (irq_batch_us) count as interrupts: each is one.
	timers=$(cat /sys/bus/pci/devices/0000:00:$1/$child/block/*/batch_expiries 2>/dev/null |
		awk '{ t += $1 } END { print t + 0 }')
	awk -v p="$pattern" -v t="$timers" '$NF ~ "^(" p ")" {
			for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) n += $i }
		END { print n + t }' /proc/interrupts
}

# queue_stat DEVICE NAME: the sum of a counter over the queues of one of our devices (debugfs).
queue_stat() {
	cat /sys/kernel/debug/virtio4/"$1"/* 2>/dev/null |
		awk -v k="$2" '$1 == k { n += $2 } END { print n + 0 }'
}

# Linux's kicks: calls of virtqueue_notify(), counted by a kprobe with a histogram trigger.
TRACING=/sys/kernel/debug/tracing
linux_kicks_setup() {
	echo 'p:virtio4bench/kick virtqueue_notify' >>$TRACING/kprobe_events || fail "kprobe"
	echo 'hist:keys=common_pid' >$TRACING/events/virtio4bench/kick/trigger || fail "hist trigger"
}

# kicks_of SLOT: notifications so far: ours from our debugfs, Linux's from the kprobe (all of
# Linux's virtio queues: only one is busy at a time here).
kicks_of() {
	local child
	child=$(child_of "$1")
	case $child in
	virtio4.*) queue_stat "$child" kicks ;;
	*) awk '$1 == "Hits:" { print $2 }' $TRACING/events/virtio4bench/kick/hist ;;
	esac
}

# The fio jobs of the block benchmarks: name and fio arguments (libaio unless they name an
# engine); a profile may set its own after sourcing this file.
JOBS="randread-4k-qd1:--rw=randread:--bs=4k:--iodepth=1
randread-4k-qd32:--rw=randread:--bs=4k:--iodepth=32
randwrite-4k-qd32:--rw=randwrite:--bs=4k:--iodepth=32
read-1m-qd8:--rw=read:--bs=1m:--iodepth=8
write-1m-qd8:--rw=write:--bs=1m:--iodepth=8"

# run_job BENCH ROUND SIDE SLOT JOB: one fio run on the disk of SLOT; emits its measurement
# with the kicks and interrupts it cost. Latency percentiles are of fio's total latency
# (lat_ns: submission included), and fio's CPU use gives the guest CPU per request.
run_job() {
	local bench=$1 round=$2 side=$3 slot=$4 job=$5 name args disk k0 i0 k1 i1
	name=${job%%:*}
	args=$(echo "${job#*:}" | tr ':' ' ')
	disk=$(disk_of "$slot")
	k0=$(kicks_of "$slot") i0=$(irqs_of "$slot")
	fio --name="$name" --filename="/dev/$disk" --ioengine=libaio $args --direct=1 \
		--time_based --runtime="$RUNTIME" --size=256M --lat_percentiles=1 \
		--output-format=json --output=/tmp/fio.json >/dev/null 2>&1 || fail "fio $name on $disk"
	k1=$(kicks_of "$slot") i1=$(irqs_of "$slot")
	emit "{\"bench\":\"$bench\",\"round\":$round,\"side\":\"$side\",\"job\":\"$name\",\"disk\":\"$disk\",\"kicks\":$((k1 - k0)),\"irqs\":$((i1 - i0)),\"fio\":$(tr -d '\n' </tmp/fio.json)}"
	echo "round $round $side $name on $disk: done"
}

# side_order ROUND: the three sides of a round in the order they run, rotated each round so
# that no side always runs first or last: "ours linux again", "linux again ours", ...
side_order() {
	case $(($1 % 3)) in
	1) echo ours linux again ;;
	2) echo linux again ours ;;
	0) echo again ours linux ;;
	esac
}

# blk_rounds BENCH: the block benchmark's rounds on the two disks at PCI slots 04.0 and 05.0,
# their measurements named BENCH. Each round runs every fio job three times back to back: on our
# driver (side "ours"), on Linux's virtio_blk (side "linux") and on Linux's again (side
# "again": the A/A noise control, again/linux). "ours" and "again" run on the same disk and
# "linux" on the other, and the disks swap these roles every other round, so that a difference
# between the two devices cancels out; the order of the three sides rotates from round to
# round, so that drift does too. BLK_OPTIONS: parameters given to both block drivers
# (poll_queues=1).
blk_rounds() {
	local bench=$1 round a b
	modprobe virtio_pci && modprobe virtio_blk ${BLK_OPTIONS:-} && modprobe virtio4_pci &&
		modprobe virtio4_blk ${BLK_OPTIONS:-} || fail "loading the drivers"
	linux_kicks_setup
	echo "bench $bench: $ROUNDS rounds of ${RUNTIME}s runs, $(echo "$JOBS" | wc -l) jobs, 3 sides each"
	for round in $(seq "$ROUNDS"); do
		# This round's disk for ours and again (A), and for linux (B).
		a=04.0 b=05.0
		[ $((round % 2)) = 1 ] || a=05.0 b=04.0
		echo "$JOBS" | while read -r job; do
			for side in $(side_order "$round"); do
				case $side in
				ours) bind_pci $a virtio4-pci && run_job "$bench" "$round" ours $a "$job" ;;
				again) bind_pci $a virtio-pci && run_job "$bench" "$round" again $a "$job" ;;
				linux) bind_pci $b virtio-pci && run_job "$bench" "$round" linux $b "$job" ;;
				esac || exit 1
			done
		done || fail "round $round"
	done
	echo "bench: done"
}
