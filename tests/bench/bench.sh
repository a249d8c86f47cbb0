#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: ours against Linux's virtio drivers on the same QEMU devices, on the stock kernel,
# each round measuring ours, Linux and Linux again (the A/A noise control) back to back; then
# the table with each ratio's 95% interval and verdict, build/bench/results.json and
# build/bench/ratios.png (tests/bench/report.py). The host's state (load, other QEMU processes)
# is checked first and shown with the table. A guest that fails ends the bench with an error.
# Environment: BENCH="blk blk-50us blk-1ms blk-depths blk-poll blk-batch net copy ring" picks the
# benchmarks (blk: the instant null disks, blk-50us and blk-1ms: the same in I/O threads with
# that service time, blk-depths: the 50 us disks at depths 2 to 16 with latency percentiles,
# blk-poll: the 50 us disks with a polled queue each, io_uring --hipri; blk-batch: the 50 us
# disks fed 16 or 8 requests a submission (queue_rqs); ring: tests/bench/ring/cost.sh),
# BENCH_RUNTIME (seconds per measurement, default 10) and BENCH_ROUNDS (default 10);
# BENCH_CMDLINE adds to the guests' kernel command line (our modules' parameters, as
# virtio4_blk.irq_batch_us=50, reach them when they load).
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

benches=${BENCH:-blk blk-50us blk-1ms blk-depths blk-poll blk-batch net copy ring}
runtime=${BENCH_RUNTIME:-10}
rounds=${BENCH_ROUNDS:-10}
out="$build/bench"

"$top/tests/qemu/setup.sh"
"$top/tests/qemu/modules.sh" "/lib/modules/$(stock_version)/build" "$build/stock"
"$top/tests/qemu/initramfs.sh" stock
mkdir -p "$out"

# host_state: the host's load and other QEMU processes, as JSON; quiet when the 1-minute load
# is under half the CPUs (a busy job elsewhere, make check's two guests say, keeps it at 2 or
# more) and no other QEMU runs.
host_state() {
	local load cpus others
	load=$(cut -d ' ' -f 1 /proc/loadavg)
	cpus=$(nproc)
	others=$(pgrep -c '^qemu-system' || true)
	awk -v l="$load" -v c="$cpus" -v q="${others:-0}" 'BEGIN {
		printf "{\"load1\":%s,\"cpus\":%d,\"other_qemu\":%d,\"quiet\":%s}", l, c, q,
			(l < c / 2 && q == 0) ? "true" : "false" }'
}
host=$(host_state)
echo "  BENCH   host: $host"
start=$(date +%s)
files=()
for b in $benches; do
	if [ "$b" = ring ]; then
		echo "  BENCH   ring: instructions per buffer under callgrind"
		"$top/tests/bench/ring/cost.sh" "$out/ring" >"$out/ring.out"
		files+=("$out/ring.out")
		continue
	fi
	echo "  BENCH   $b: $rounds rounds of ${runtime}s measurements"
	if ! VIRTIO4_CMDLINE="bench_runtime=$runtime bench_rounds=$rounds ${BENCH_CMDLINE:-}" \
		"$top/tests/qemu/run.sh" stock "$top/tests/bench/bench-$b.sh"; then
		echo "  BENCH   $b failed: see $build/results/stock/bench-$b/" >&2
		exit 1
	fi
	files+=("$build/results/stock/bench-$b"/bench*.out)
done
python3 "$top/tests/bench/report.py" "$out" --rounds "$rounds" --host "$host" "${files[@]}"
echo "make bench took $(( $(date +%s) - start ))s"
