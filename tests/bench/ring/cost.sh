#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per buffer (add + kick decision + get) of our ring and of Linux's, counted by
# valgrind's callgrind inside the ring functions only: the same count on every run, for the
# split layout (job "add+kick+get") and the packed one ("add+kick+get packed"). Linux's is
# counted twice, as the A/A control. Prints one "BENCH {json}" line per count.
# Usage: cost.sh OUT_DIR
set -euo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"

mkdir -p "$1"
out=$(cd "$1" && pwd)
tree=$("$top/tests/qemu/source.sh")
make -s -C "$top/tests/bench/ring" LINUX_SRC="$tree" O="$out" >&2
iterations=20000
buffers=$((iterations * 16))

# count IMPL LAYOUT FUNCTIONS...: instructions collected inside FUNCTIONS per buffer, LAYOUT
# split or packed.
count() {
	local impl=$1 layout=$2 toggles=() f ir
	shift 2
	for f in "$@"; do
		toggles+=("--toggle-collect=$f")
	done
	ir=$(valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$impl.$layout" \
		"${toggles[@]}" "$out/ring-cost" "$impl" $iterations "$layout" 2>&1 |
		sed -n 's/.*Collected : \([0-9]*\)/\1/p')
	[ -n "$ir" ] || { echo "cost.sh: callgrind failed for $impl" >&2; exit 1; }
	awk -v ir="$ir" -v n=$buffers 'BEGIN { printf "%.1f", ir / n }'
}

linux_fns=(virtqueue_add_sgs virtqueue_kick virtqueue_get_buf)
ours_split=(ring_add_buf ring_sync ring_get_buf)
ours_packed=(packed_add_buf packed_sync packed_get_buf)
# emit SIDE JOB VALUE
emit() {
	echo "BENCH {\"bench\":\"ring\",\"round\":1,\"side\":\"$1\",\"job\":\"$2\",\"metric\":\"instructions/buffer\",\"value\":$3,\"higher_is_better\":false}"
}
for layout in split packed; do
	job=add+kick+get
	[ $layout = split ] || job="add+kick+get $layout"
	if [ $layout = split ]; then
		emit ours "$job" "$(count ours $layout "${ours_split[@]}")"
	else
		emit ours "$job" "$(count ours $layout "${ours_packed[@]}")"
	fi
	linux=$(count linux $layout "${linux_fns[@]}")
	emit linux "$job" "$linux"
	emit aa0 "$job" "$linux"
	emit aa1 "$job" "$(count linux $layout "${linux_fns[@]}")"
done
