# SPDX-License-Identifier: GPL-2.0
# A shared boot (run.sh KIND A.sh B.sh ...): sourced by run.sh, whose variables and functions
# (start_guest, reason_of, retry_stalled_boot, stall_reason; lib.sh's timeout_of) it uses.
# Prints each test's result lines as run.sh does for one test; returns 0 if every test passed.
#
# What the guest's /init tells: "VIRTIO4-STARTED NAME" when a test starts, its verdict
# ("VIRTIO4-VERDICT NAME exit=N", "timed-out-after-Ns", or, after the boot's kmemleak check,
# "leaks" or "kmemleak-refused") and "VIRTIO4-BOOT-DONE" once that check has been made, all
# on the second serial port; on the console, "virtio4: running test 'NAME'" where a test's
# part begins.

# dir_of TEST: where TEST's console, results and files go.
dir_of() {
	echo "${VIRTIO4_RESULTS:-$build/results}/$kind/$1$suffix"
}

# split_console LOG NAMES...: append each test's part of the boot's console LOG to its
# directory's console0.log. The line "virtio4: running test 'T'" starts T's part (T one of
# NAMES, the tests of this boot; the boot's first lines belong to the first), as does
# "virtio4: kmemleak: leaks of test 'T'" for the records of T's leaks; the report's last line
# "virtio4: kmemleak: checked ..." gives what follows back to the test that started last.
split_console() {
	local log=$1
	shift
	tr -d '\r' <"$log" | awk -v names="$*" -v pre="${VIRTIO4_RESULTS:-$build/results}/$kind/" \
		-v post="$suffix" '
		BEGIN { split(names, list, " "); for (i in list) known[list[i]] = 1; cur = last = list[1] }
		function named(line,   part) { split(line, part, "\047"); return part[2] }
		index($0, "virtio4: running test \047") == 1 && (named($0) in known) {
			cur = last = named($0)
		}
		index($0, "virtio4: kmemleak: leaks of test \047") == 1 && (named($0) in known) {
			cur = named($0)
		}
		{ print >>(pre cur post "/console0.log") }
		index($0, "virtio4: kmemleak: checked ") == 1 { cur = last }'
}

# shared_reason TEST VERDICTS RC LAST: why TEST failed in the boot that just ended (nothing if
# it passed). VERDICTS: the boot's serial lines; RC: QEMU's exit status; LAST: the test that
# started last in this boot (QEMU's status and stderr count against it).
shared_reason() {
	local ours=0 reason
	[ "$1" = "$4" ] && ours=1
	reason=$(reason_of "$1" "$(dir_of "$1")/console0.log" "$2" "$3" "$WORK/qemu0.err" "$ours")
	# The timeout is the boot's: its tests' timeouts summed.
	[[ "$reason" != "timed out after"* ]] || reason+=" (the shared boot's)"
	echo "$reason"
}

# shared_result TEST REASON: TEST's result lines (its KUnit cases, then itself), as run.sh's.
shared_result() {
	local t=$1 reason=$2 dir ktap kfail
	dir=$(dir_of "$t")
	ktap=$("$top/tests/qemu/ktap.sh" "$dir/console0.log")
	kfail=$(grep -m 1 '^fail' <<<"$ktap")
	[ -z "$kfail" ] || reason+="${reason:+ }KUnit: $kfail"
	{
		[ -z "$ktap" ] || echo "$ktap"
		if [ -z "$reason" ]; then
			echo "pass $t$suffix"
		else
			echo "fail $t$suffix $reason"
		fi
	} | tee "$dir/results"
}

# Boots until every test has a result. In each boot's order: a test that did not start runs in
# the next boot; so does one that passed after a test that failed in the same boot (it ran on
# a kernel that had reported a problem, or lockdep off), and one that passed but whose leak
# check, left for the end of the boot, was never made (a later test crashed or hung). A boot
# that stalled before /init is made again, once (run.sh's boot watchdog); a boot that gives no
# test a result fails the rest.
run_shared() {
	local left=() next=() f t d rc last boot=0 reason failed=0 verdicts judged after_failure
	local -A file_of=()
	for f in "${test_files[@]}"; do
		t=$(basename "$f" .sh)
		left+=("$t")
		file_of[$t]=$f
		d=$(dir_of "$t")
		rm -rf "$d"
		mkdir -p "$d"
	done
	while [ ${#left[@]} -gt 0 ]; do
		boot_tests=$(IFS=,; echo "${left[*]}")
		timeout_s=0
		for t in "${left[@]}"; do
			timeout_s=$((timeout_s + $(timeout_of "${file_of[$t]}")))
			d=$(dir_of "$t")
			# A test run again: its earlier part aside, so that only this run is judged.
			[ ! -s "$d/console0.log" ] || mv "$d/console0.log" "$d/console0.before-boot$boot.log"
		done
		timeout_s=${VIRTIO4_TIMEOUT:-$timeout_s}
		start_guest 0
		wait "$(cat "$WORK/pid0")"
		rc=$?
		retry_stalled_boot && continue
		mv "$WORK/console0.log" "$WORK/console0.boot$boot.log" 2>/dev/null ||
			: >"$WORK/console0.boot$boot.log"
		verdicts="$WORK/verdict0.boot$boot"
		tr -d '\r' <"$WORK/verdict0" >"$verdicts" 2>/dev/null
		rm -f "$WORK/verdict0"
		split_console "$WORK/console0.boot$boot.log" "${left[@]}"
		last=$(sed -n 's/^VIRTIO4-STARTED //p' "$verdicts" | tail -n 1)
		next=() judged=0 after_failure=
		for t in "${left[@]}"; do
			if ! grep -qx "VIRTIO4-STARTED $t" "$verdicts"; then
				next+=("$t")
				continue
			fi
			reason=$(shared_reason "$t" "$verdicts" "$rc" "$last")
			if [ -z "$reason" ] && { [ -n "$after_failure" ] ||
				{ ! grep -qx VIRTIO4-BOOT-DONE "$verdicts" &&
				grep -q '^ok: kmemleak: checked at the end' "$(dir_of "$t")/console0.log"; }; }; then
				next+=("$t")
				continue
			fi
			[ -z "$reason" ] || after_failure=1
			shared_result "$t" "$reason"
			grep -q '^fail' "$(dir_of "$t")/results" && failed=1
			judged=$((judged + 1))
		done
		if [ "$judged" = 0 ]; then
			reason="the shared boot gave no test a result (QEMU status $rc: $(head -c 160 "$WORK/qemu0.err"))"
			[ ! -e "$WORK/stalled0" ] || reason="the shared boot $(stall_reason 0)"
			for t in "${next[@]}"; do
				shared_result "$t" "$reason"
			done
			failed=1
			next=()
		fi
		left=("${next[@]}")
		boot=$((boot + 1))
	done
	for t in "${test_files[@]}"; do
		cat "$(dir_of "$(basename "$t" .sh)")/results"
	done >"$WORK/results"
	return $failed
}

run_shared
