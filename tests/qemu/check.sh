#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: set-up, build (both kernels), lint, the fuzzers' corpus replay, the ring's
# memory-order model, every guest test on the kernels it names, the KUnit cases it prints, and
# the harness self-test. Ends with "N passed, N failed".
# Environment: T=NAME runs that one test only (over each of its transports) (no lint, no
# self-test); a NAME that is no test fails. K=stock|debug restricts the kernels,
# TR=pci|copy|packed|mmio|mmio-legacy the transports (packed: PCI with the packed ring; mmio:
# virtio-mmio version 2, mmio-legacy: version 1, on QEMU's microvm). JOBS=N runs N
# single-guest tests at once (default 2; 1: one by one).
# A full run (no T, no K) must produce exactly the results listed in tests/manifest: one
# missing (a test or KUnit case that did not run) or one not listed fails the check
# ("make manifest" rewrites the list from the last full run's summary). Each test's seconds go
# to build/results/times.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

T=${T:-} K=${K:-}
summary="$build/results/summary"
times="$build/results/times"
manifest="$top/tests/manifest"
mkdir -p "$build/results"
: >"$summary"
: >"$times"
start=$(date +%s)
ran=0

# record LINES...: append result lines ("pass|fail|skip NAME ...") to the summary.
record() {
	tee -a "$summary"
}

"$top/tests/qemu/setup.sh" || { echo "fail setup" | record; exit 1; }

kernels=()
[ "$K" != debug ] && kernels+=(stock)
[ "$K" != stock ] && kernels+=(debug)

kernel_seconds=0
for k in "${kernels[@]}"; do
	if [ "$k" = stock ]; then
		kdir=/lib/modules/$(stock_version)/build
	else
		t0=$(date +%s)
		kdir=$("$top/tests/qemu/kernel.sh") || { echo "fail build:debug-kernel" | record; continue; }
		# The debug kernel's build, when it is not cached (about 13 minutes here).
		kernel_seconds=$(($(date +%s) - t0))
	fi
	if "$top/tests/qemu/modules.sh" "$kdir" "$build/$k" && "$top/tests/qemu/initramfs.sh" "$k"; then
		echo "pass build:$k" | record
	else
		echo "fail build:$k" | record
	fi
done

# offload_unit_test: the device host's offload unit test, one line per case.
offload_unit_test() {
	local rc
	if ! make -s -C "$top/tools" O="$build/tools" >"$build/tools-build.log" 2>&1; then
		echo "fail offload:build see $build/tools-build.log"
		return
	fi
	ASAN_OPTIONS=exitcode=99 UBSAN_OPTIONS=exitcode=99 "$build/tools/virtio4-offload-test" \
		2>"$build/tools/offload-test.err"
	rc=$?
	# 1: a case failed (its line says why); anything else: the test itself stopped (99: a
	# sanitizer's report).
	[ "$rc" -le 1 ] ||
		echo "fail offload:unit-test exited $rc: $(head -c 300 "$build/tools/offload-test.err")"
}

# What runs on the host alone: lint, the fuzzers' corpus and crash reproducers replayed
# (T=fuzz-replay for this alone), the memory-order model of the ring's notification handshakes
# (T=model), the unit test of the device host's checksum and segmentation offload (T=offload),
# the patch series (checkpatch, git am and a build in the debug kernel's tree:
# T=patches) and the self-test's host half (the manifest and KTAP checks, fed broken inputs).
# In the background, beside the first guests; its lines go to the summary at the end, at once.
host_checks() {
	local out
	out=$(
		[ -z "$T" ] && "$top/tests/qemu/lint.sh"
		if [ -z "$T" ] || [ "$T" = fuzz-replay ]; then
			"$top/tests/fuzz/replay.sh"
		fi
		if [ -z "$T" ] || [ "$T" = model ]; then
			"$top/tests/model/run.sh"
		fi
		if [ -z "$T" ] || [ "$T" = offload ]; then
			offload_unit_test
		fi
		if { [ -z "$T" ] || [ "$T" = patches ]; } && grep -qx "pass build:debug" "$summary"; then
			"$top/tests/qemu/patches-check.sh" "$("$top/tests/qemu/kernel.sh")"
		fi
		[ -z "$T" ] && "$top/tests/qemu/selftest-host.sh"
	)
	echo "$out" | grep . | flock "$summary" tee -a "$summary"
}
case $T in
fuzz-replay | model | offload | patches) ran=1 ;;
esac
host_checks &

# kernels_of TEST: the kernels a test runs on (default: debug), limited to those built.
kernels_of() {
	local want k
	want=$(sed -n 's/^# kernels: //p' "$1")
	for k in ${want:-debug}; do
		grep -qx "pass build:$k" "$summary" && echo "$k"
	done
}

# transports_of TEST KERNEL: the transports a test runs over on KERNEL (default: pci), and on
# the debug kernel "packed" (PCI, its devices offering the packed ring) for a test that says
# "# rings: split packed" (on the stock kernel for a test that names only it: the debug
# kernel lacks what it needs, an IOMMU), "mmio" and "mmio-legacy" (virtio-mmio versions 2 and
# 1) for one that says "# mmio: modern legacy".
transports_of() {
	local want
	want=$(sed -n 's/^# transports: //p' "$1")
	echo "${want:-pci}"
	if [ "$2" = debug ] || [ "$(sed -n 's/^# kernels: //p' "$1")" = stock ]; then
		grep -q '^# rings: .*packed' "$1" && echo packed
	fi
	[ "$2" = debug ] || return 0
	grep -q '^# mmio: .*modern' "$1" && echo mmio
	grep -q '^# mmio: .*legacy' "$1" && echo mmio-legacy
	return 0
}

# run_one KERNEL TESTS TRANSPORT: one guest run of TESTS (one test, or several sharing a boot,
# joined by "|"); its result lines go to the summary (and out) whole, under a lock, once it has
# ended, and its seconds to the times file.
run_one() {
	local k=$1 tr=$3 t label sfx= t0 out tests=() names=() exprs=()
	IFS='|' read -r -a tests <<<"$2"
	[ "$tr" = pci ] || sfx="@$tr"
	for t in "${tests[@]}"; do
		names+=("$(basename "$t" .sh)$sfx")
		exprs+=(-e "s/^\([a-z]*\) ${names[-1]}\( \|$\)/\1 ${names[-1]} [$k]\2/")
	done
	label=$(IFS=+; echo "${names[*]}")
	t0=$(date +%s)
	out=$(TRANSPORT=$tr "$top/tests/qemu/run.sh" "$k" "${tests[@]}" | sed "${exprs[@]}")
	flock "$summary" bash -c 'echo "$1" | tee -a "$2"; echo "$3" >>"$4"' _ \
		"$out" "$summary" "$(( $(date +%s) - t0 )) $label [$k]" "$times"
}

# shares_boot TEST: does it need nothing of a guest of its own (no directive about QEMU, the
# kernel's command line, the placement or the console, and no "# own-boot: REASON")? Such
# tests run several to a boot (run.sh's shared boots), which saves each the boot, the kernel's
# leak scans (made once a boot) and the power-off: 10 to 15 s a test on the debug kernel.
shares_boot() {
	! grep -qE '^# (qemu|guests|boots|smp|memory|pci-hotplug|append|setup|host|pin-guests|alone|time-bound|qemu-stderr|console-ok|own-boot|boot-stall): ' "$1"
}

# placement TEST: where its runs go. "alone": the machine to itself, after the others (its
# guests' vCPU threads, lib.sh's vcpu_threads, more than the host's two cores, or
# "# alone: REASON"). "bound": a time bound ("# time-bound: REASON") in a guest that keeps to
# about one core: one after another, each with at most one other single-guest run beside it,
# so that it always has a core (measured: 0-1 s where 5-10 s are allowed; blk-backend-stall's
# 8 s of timers where 13 s are). "pool": the others, JOBS (default 2) at a time.
placement() {
	local smp guests
	smp=$(sed -n 's/^# smp: //p' "$1" | tail -n 1)
	guests=$(sed -n 's/^# guests: //p' "$1" | tail -n 1)
	smp=$(vcpu_threads "${smp:-2}")
	if grep -q '^# alone: ' "$1" || [ $((${guests:-1} * smp)) -gt 2 ]; then
		echo alone
	elif grep -q '^# time-bound: ' "$1"; then
		echo bound
	else
		echo pool
	fi
}

# longest_first_key TESTS KERNEL: how long a run may take, for ordering the pool: the timeouts
# of its tests ("|" between them), plus one on the debug kernel, the slower.
longest_first_key() {
	local t sum=0 slower=0 tests=()
	IFS='|' read -r -a tests <<<"$1"
	for t in "${tests[@]}"; do
		sum=$((sum + $(timeout_of "$t")))
	done
	[ "$2" = debug ] && slower=1
	echo $((sum * 2 + slower))
}

# run_each ENTRY...: the runs ENTRY ("KERNEL<tab>TEST<tab>TRANSPORT") name, one after another.
run_each() {
	local a k t tr
	for a in "$@"; do
		IFS=$'\t' read -r k t tr <<<"$a"
		run_one "$k" "$t" "$tr"
	done
}

# wait_for_slot: until fewer than JOBS background jobs (guest runs, the chain of bound runs,
# the host checks) are under way.
wait_for_slot() {
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
}

# Guest runs: two single-guest runs share the two cores well, as most of a run is one vCPU's
# boot, module work and kmemleak scans.
jobs_max=${JOBS:-2}
case $jobs_max in
'' | *[!0-9]* | 0) echo "fail JOBS=$jobs_max: a number of guests from 1" | record; exit 1 ;;
esac
pool=() bound=() alone=()
declare -A shared=() shared_timeout=()
# share KERNEL TEST TRANSPORT: TEST joins the shared boot being filled for KERNEL and TRANSPORT,
# which goes to the pool once its tests' timeouts reach SHARED_BOOT_SECONDS (1000 s: three to
# six tests; a shorter boot starts sooner beside the long single runs).
share() {
	local key="$1"$'\t'"$3"
	shared[$key]+="${shared[$key]:+|}$2"
	shared_timeout[$key]=$((${shared_timeout[$key]:-0} + $(timeout_of "$2")))
	[ "${shared_timeout[$key]}" -ge "${SHARED_BOOT_SECONDS:-1000}" ] && flush_shared "$key"
}

# flush_shared KERNEL<tab>TRANSPORT: the shared boot being filled goes to the pool.
flush_shared() {
	local k tr
	IFS=$'\t' read -r k tr <<<"$1"
	[ -n "${shared[$1]:-}" ] &&
		pool+=("$(longest_first_key "${shared[$1]}" "$k")"$'\t'"$k"$'\t'"${shared[$1]}"$'\t'"$tr")
	shared[$1]=
	shared_timeout[$1]=0
}

for t in "$top"/tests/guest/*.sh; do
	name=$(basename "$t" .sh)
	[ -n "$T" ] && [ "$T" != "$name" ] && continue
	ran=1
	where=$(placement "$t")
	for k in $(kernels_of "$t"); do
		for tr in $(transports_of "$t" "$k"); do
			[ -n "${TR:-}" ] && [ "$TR" != "$tr" ] && continue
			entry="$k"$'\t'"$t"$'\t'"$tr"
			case $where in
			alone) alone+=("$entry") ;;
			bound) bound+=("$entry") ;;
			*)
				if [ -z "$T" ] && shares_boot "$t"; then
					share "$k" "$t" "$tr"
				else
					pool+=("$(longest_first_key "$t" "$k")"$'\t'"$entry")
				fi
				;;
			esac
		done
	done
done
for key in "${!shared[@]}"; do
	flush_shared "$key"
done
# The pool's longest runs first, so that two short ones, not one long one, end it.
[ ${#pool[@]} = 0 ] ||
	mapfile -t pool < <(printf '%s\n' "${pool[@]}" | sort -s -t $'\t' -k1,1nr | cut -f 2-)
# The bound runs, one by one, in the background: one of the JOBS slots while they last.
run_each "${bound[@]}" &
for a in "${pool[@]}"; do
	wait_for_slot
	run_each "$a" &
done
# Harness self-test: each deliberately broken test must fail, for the reason it names (in the
# pool, after the tests); one that says "# shared-with: TEST..." runs first in a boot shared
# with those guest tests (results in build/results/NAME, apart from the tests' own), which
# must pass.
selftest_one() {
	local t=$1 name expected got p partners=() out results=
	name=$(basename "$t" .sh)
	expected=$(sed -n 's/^# expect-failure: //p' "$t")
	for p in $(sed -n 's/^# shared-with: //p' "$t"); do
		partners+=("$top/tests/guest/$p.sh")
	done
	[ ${#partners[@]} = 0 ] || results="$build/results/$name"
	out=$(VIRTIO4_RESULTS=$results "$top/tests/qemu/run.sh" debug "$t" "${partners[@]}")
	got=$(grep "^fail $name " <<<"$out")
	for p in "${partners[@]}"; do
		p=$(basename "$p" .sh)
		grep -qx "pass $p" <<<"$out" || got+=" (and $p, sharing its boot, did not pass)"
	done
	if [ -n "$expected" ] && [[ "$got" == *"$expected"* ]] && [[ "$got" != *"did not pass"* ]]; then
		echo "pass $name [debug] caught: ${got#fail $name }"
	else
		echo "fail $name [debug] not caught as '$expected': ${got:-the runner passed it}"
	fi | flock "$summary" tee -a "$summary"
}
for t in "$top"/tests/selftest/*.sh; do
	name=$(basename "$t" .sh)
	[ -n "$T" ] && [ "$T" != "$name" ] && continue
	ran=1
	grep -qx "pass build:debug" "$summary" || continue
	wait_for_slot
	selftest_one "$t" &
done

wait
pool_end=$(date +%s)
run_each "${alone[@]}"

[ -n "$T" ] && [ "$ran" = 0 ] && echo "fail T=$T: there is no test of that name" | record

if [ -z "$T" ] && [ -z "$K" ]; then
	"$top/tests/qemu/manifest-check.sh" "$summary" "$manifest" "$build/results/names" | record
fi

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
[ -s "$times" ] && echo "slowest: $(sort -rn "$times" | head -n 5 | awk '{ printf "%s%s %s %ss", sep, $2, $3, $1; sep = ", " }')"
end=$(date +%s)
echo "make check took $((end - start))s ($((end - start - kernel_seconds))s without the debug kernel's build; the guests alone at the end $((end - pool_end))s); results in $summary"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
