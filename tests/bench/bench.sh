#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: ours against Linux's virtio drivers on the same QEMU devices, on the stock kernel,
# with an A/A noise control in every run; then the table, build/bench/results.json and
# build/bench/ratios.png (tests/bench/report.py).
# Environment: BENCH="blk net copy ring" picks the benchmarks (ring: tests/bench/ring/cost.sh), BENCH_RUNTIME (seconds per
# measurement, default 10) and BENCH_ROUNDS (default 5).
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

benches=${BENCH:-blk net copy ring}
runtime=${BENCH_RUNTIME:-10}
rounds=${BENCH_ROUNDS:-5}
out="$build/bench"

"$top/tests/qemu/setup.sh"
"$top/tests/qemu/modules.sh" "/lib/modules/$(stock_version)/build" "$build/stock"
"$top/tests/qemu/initramfs.sh" stock
mkdir -p "$out"
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
	VIRTIO4_CMDLINE="bench_runtime=$runtime bench_rounds=$rounds" \
		"$top/tests/qemu/run.sh" stock "$top/tests/bench/bench-$b.sh" ||
		echo "  BENCH   $b failed: see $build/results/stock/bench-$b/"
	files+=("$build/results/stock/bench-$b"/bench*.out)
done
python3 "$top/tests/bench/report.py" "$out" "${files[@]}"
echo "make bench took $(( $(date +%s) - start ))s"
