#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: set-up, build (both kernels), lint, the fuzzers' corpus replay, every guest test
# on the kernels it names, the KUnit cases it prints, and the harness self-test. Ends with
# "N passed, N failed".
# Environment: T=NAME runs that one test only (over each of its transports) (no lint, no self-test); K=stock|debug
# restricts the kernels.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

T=${T:-} K=${K:-}
summary="$build/results/summary"
mkdir -p "$build/results"
: >"$summary"
start=$(date +%s)

# record LINES...: append result lines ("pass|fail|skip NAME ...") to the summary.
record() {
	tee -a "$summary"
}

"$top/tests/qemu/setup.sh" || { echo "fail setup" | record; exit 1; }

kernels=()
[ "$K" != debug ] && kernels+=(stock)
[ "$K" != stock ] && kernels+=(debug)

for k in "${kernels[@]}"; do
	if [ "$k" = stock ]; then
		kdir=/lib/modules/$(stock_version)/build
	else
		kdir=$("$top/tests/qemu/kernel.sh") || { echo "fail build:debug-kernel" | record; continue; }
	fi
	if "$top/tests/qemu/modules.sh" "$kdir" "$build/$k" && "$top/tests/qemu/initramfs.sh" "$k"; then
		echo "pass build:$k" | record
	else
		echo "fail build:$k" | record
	fi
done

[ -z "$T" ] && "$top/tests/qemu/lint.sh" | record
# The fuzzers' corpus and crash reproducers, replayed (T=fuzz-replay for this alone).
[ -z "$T" ] || [ "$T" = fuzz-replay ] && "$top/tests/fuzz/replay.sh" | record
# The patch series: checkpatch, git am and build in the debug kernel's tree (T=patches alone).
if { [ -z "$T" ] || [ "$T" = patches ]; } && grep -qx "pass build:debug" "$summary"; then
	"$top/tests/qemu/patches-check.sh" "$("$top/tests/qemu/kernel.sh")" | record
fi

# kernels_of TEST: the kernels a test runs on (default: debug), limited to those built.
kernels_of() {
	local want k
	want=$(sed -n 's/^# kernels: //p' "$1")
	for k in ${want:-debug}; do
		grep -qx "pass build:$k" "$summary" && echo "$k"
	done
}

# transports_of TEST: the transports a test runs over (default: pci).
transports_of() {
	local want
	want=$(sed -n 's/^# transports: //p' "$1")
	echo "${want:-pci}"
}

for t in "$top"/tests/guest/*.sh; do
	name=$(basename "$t" .sh)
	[ -n "$T" ] && [ "$T" != "$name" ] && continue
	for k in $(kernels_of "$t"); do
		for tr in $(transports_of "$t"); do
			label=$name
			[ "$tr" = pci ] || label+="@$tr"
			TRANSPORT=$tr "$top/tests/qemu/run.sh" "$k" "$t" |
				sed "s/^\([a-z]*\) $label\( \|$\)/\1 $label [$k]\2/" | record
		done
	done
done

# Harness self-test: each deliberately broken test must fail, for the reason it names.
for t in "$top"/tests/selftest/*.sh; do
	name=$(basename "$t" .sh)
	[ -n "$T" ] && [ "$T" != "$name" ] && continue
	grep -qx "pass build:debug" "$summary" || continue
	expected=$(sed -n 's/^# expect-failure: //p' "$t")
	got=$("$top/tests/qemu/run.sh" debug "$t" | grep "^fail $name ")
	if [ -n "$expected" ] && [[ "$got" == *"$expected"* ]]; then
		echo "pass $name [debug] caught: ${got#fail $name }"
	else
		echo "fail $name [debug] not caught as '$expected': ${got:-the runner passed it}"
	fi | record
done

# Failures: where their logs are, and the tail of their consoles.
grep '^fail' "$summary" | while read -r _ name kind _; do
	kind=${kind#[}
	kind=${kind%]}
	dir="$build/results/$kind/$name"
	[ -d "$dir" ] || continue
	for log in "$dir"/console*.log; do
		echo "--- $log (last 25 lines)"
		tail -n 25 "$log" | tr -d '\r'
	done
done

passed=$(grep -c '^pass' "$summary")
failed=$(grep -c '^fail' "$summary")
skipped=$(grep -c '^skip' "$summary")
echo "make check took $(( $(date +%s) - start ))s; results in $summary"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
