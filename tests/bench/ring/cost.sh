#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per buffer (add + kick decision + get) of our ring and of Linux's, counted by
# valgrind's callgrind inside the ring functions only: the same count on every run. Linux's is
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

# count IMPL FUNCTIONS...: instructions collected inside FUNCTIONS per buffer.
count() {
	local impl=$1 toggles=() f ir
	shift
	for f in "$@"; do
		toggles+=("--toggle-collect=$f")
	done
	ir=$(valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$impl" "${toggles[@]}" \
		"$out/ring-cost" "$impl" $iterations 2>&1 | sed -n 's/.*Collected : \([0-9]*\)/\1/p')
	[ -n "$ir" ] || { echo "cost.sh: callgrind failed for $impl" >&2; exit 1; }
	awk -v ir="$ir" -v n=$buffers 'BEGIN { printf "%.1f", ir / n }'
}

linux_fns=(virtqueue_add_sgs virtqueue_kick virtqueue_get_buf)
ours_fns=(ring_add_buf ring_sync ring_get_buf)
emit() {
	echo "BENCH {\"bench\":\"ring\",\"round\":1,\"side\":\"$1\",\"job\":\"add+kick+get\",\"metric\":\"instructions/buffer\",\"value\":$2,\"higher_is_better\":false}"
}
emit ours "$(count ours "${ours_fns[@]}")"
linux=$(count linux "${linux_fns[@]}")
emit linux "$linux"
emit aa0 "$linux"
emit aa1 "$(count linux "${linux_fns[@]}")"
