#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fuzz: run each libFuzzer target for FUZZ_TIME seconds (default 120) from its committed
# corpus, then merge what found new coverage back into tests/fuzz/corpus/TARGET (commit it).
# A crash is kept in build/fuzz/crashes/ and fails the run: minimise it, fix the bug, and
# commit the input to tests/fuzz/crashes/TARGET/ so that make check replays it for good.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

time=${FUZZ_TIME:-120}
out="$build/fuzz"
build_harness fuzz "$out"
status=0
for target in $(cd "$top/tests/fuzz" && ls -d corpus/* | sed 's|corpus/||'); do
	work="$out/corpus-$target" crashes="$out/crashes/$target"
	mkdir -p "$work" "$crashes"
	echo "  FUZZ    $target for ${time}s"
	if ! "$out/fuzz-$target" "$work" "$top/tests/fuzz/corpus/$target" -max_total_time="$time" \
		-artifact_prefix="$crashes/" -print_final_stats=1 >"$out/$target.log" 2>&1; then
		echo "  FUZZ    $target: crash, see $out/$target.log and $crashes/"
		status=1
	fi
	grep -E '^stat::number_of_executed_units|DONE' "$out/$target.log" | sed 's/^/          /'
	"$out/fuzz-$target" -merge=1 "$top/tests/fuzz/corpus/$target" "$work" >/dev/null 2>&1
	echo "          corpus: $(ls "$top/tests/fuzz/corpus/$target" | wc -l) inputs"
done
exit $status
