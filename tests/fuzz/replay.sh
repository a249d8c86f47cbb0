#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For make check: build every libFuzzer target and run it once over its committed corpus and
# crash reproducers (tests/fuzz/corpus/TARGET, tests/fuzz/crashes/TARGET), so that a bug the
# fuzzer found stays fixed. One result line per target.
set -uo pipefail
shopt -s nullglob
. "$(dirname "$0")/../qemu/lib.sh"

out="$build/fuzz"
mkdir -p "$out"
if ! build_harness fuzz "$out" >"$out.log" 2>&1; then
	echo "fail fuzz-replay:build see $out.log"
	exit 0
fi
for target in $(cd "$top/tests/fuzz" && ls -d corpus/* | sed 's|corpus/||'); do
	inputs=("$top/tests/fuzz/corpus/$target"/* "$top/tests/fuzz/crashes/$target"/*)
	if "$out/fuzz-$target" "${inputs[@]}" >"$out/replay-$target.log" 2>&1; then
		echo "pass fuzz-replay:$target (${#inputs[@]} inputs)"
	else
		echo "fail fuzz-replay:$target see $out/replay-$target.log"
	fi
done
