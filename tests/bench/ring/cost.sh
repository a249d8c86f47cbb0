#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per buffer (add + kick decision + get) of our ring and of Linux's, counted by
# valgrind's callgrind inside the ring functions only: the same count on every run, for each
# shape of buffer ring_cost.c knows (job "SHAPE") in the split layout and in the packed one
# ("SHAPE packed"). Linux's is counted twice, as the A/A control ("again"). Both must move the
# same buffers with the same kicks, and some of each, or the script fails. Prints one
# "BENCH {json}" line per count.
# Usage: cost.sh OUT_DIR
set -euo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"

mkdir -p "$1"
out=$(cd "$1" && pwd)
tree=$("$top/tests/qemu/source.sh")
make -s -C "$top/tests/bench/ring" LINUX_SRC="$tree" O="$out" >&2
iterations=20000
buffers=$((iterations * 16))

# count IMPL SHAPE LAYOUT FUNCTIONS...: instructions collected inside FUNCTIONS per buffer,
# LAYOUT split or packed. The loop's own count of buffers and kicks goes to
# $out/work.IMPL.SHAPE.LAYOUT.
count() {
	local impl=$1 shape=$2 layout=$3 toggles=() f ir log
	shift 3
	for f in "$@"; do
		toggles+=("--toggle-collect=$f")
	done
	log=$(valgrind --tool=callgrind \
		--callgrind-out-file="$out/callgrind.$impl.$shape.$layout" "${toggles[@]}" \
		"$out/ring-cost" "$impl" $iterations "$shape" "$layout" 2>&1)
	ir=$(sed -n 's/.*Collected : \([0-9]*\)/\1/p' <<<"$log")
	[ -n "$ir" ] || { echo "cost.sh: callgrind failed for $impl $shape $layout" >&2; exit 1; }
	sed -n 's/.*: \([0-9]* buffers, [0-9]* kicks\)$/\1/p' <<<"$log" \
		>"$out/work.$impl.$shape.$layout"
	awk -v ir="$ir" -v n=$buffers 'BEGIN { printf "%.1f", ir / n }'
}

# same_work SHAPE.LAYOUT: both rings moved the same buffers with the same kicks, and some of
# each; otherwise the counts per buffer compare nothing.
same_work() {
	local ours linux
	ours=$(cat "$out/work.ours.$1") linux=$(cat "$out/work.linux.$1")
	if [ "$ours" != "$linux" ] || [ "$ours" != "$buffers buffers, ${ours#* buffers, }" ] ||
		[ "${ours#* buffers, }" = "0 kicks" ]; then
		echo "cost.sh: $1: ours did '$ours', Linux's '$linux' ($buffers buffers asked)" >&2
		exit 1
	fi
}

# Linux's receive buffers go through virtqueue_add_inbuf(), its requests virtqueue_add_sgs().
linux_fns=(virtqueue_add_inbuf virtqueue_add_sgs virtqueue_kick virtqueue_get_buf)
ours_split=(ring_add_buf ring_sync ring_get_buf)
ours_packed=(packed_add_buf packed_sync packed_get_buf)
# emit SIDE JOB VALUE: a count, the same on every run (one round is all there is to take).
emit() {
	echo "BENCH {\"bench\":\"ring\",\"round\":1,\"side\":\"$1\",\"job\":\"$2\",\"metric\":\"instructions/buffer\",\"value\":$3,\"higher_is_better\":false,\"deterministic\":true}"
}
for layout in split packed; do
	for shape in rx out+in blk blk-indirect blk-dma; do
		job=$shape
		[ $layout = split ] || job="$shape $layout"
		if [ $layout = split ]; then
			emit ours "$job" "$(count ours $shape $layout "${ours_split[@]}")"
		else
			emit ours "$job" "$(count ours $shape $layout "${ours_packed[@]}")"
		fi
		emit linux "$job" "$(count linux $shape $layout "${linux_fns[@]}")"
		emit again "$job" "$(count linux $shape $layout "${linux_fns[@]}")"
		same_work $shape.$layout
	done
done
