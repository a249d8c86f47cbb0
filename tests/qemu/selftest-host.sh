#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The harness self-test's host half: the result checks that need no guest, each fed a broken
# input that it must report, for its own reason. Prints "pass|fail selftest-NAME ..." lines.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME EXPECTED GOT: pass if GOT contains EXPECTED.
expect() {
	if [[ "$3" == *"$2"* ]]; then
		echo "pass selftest-$1 caught: $(grep -m 1 -F "$2" <<<"$3")"
	else
		echo "fail selftest-$1 not caught as '$2': ${3:-nothing reported}"
	fi
}

# The manifest: a result missing, and one not listed.
printf '%s\n' "a-test [debug]" "b-test [stock]" "kunit:suite.case" >"$tmp/manifest"
printf '%s\n' "pass a-test [debug]" "pass kunit:suite.case" >"$tmp/summary"
expect manifest-missing "fail manifest: missing b-test [stock]" \
	"$("$top/tests/qemu/manifest-check.sh" "$tmp/summary" "$tmp/manifest")"
printf '%s\n' "pass a-test [debug]" "pass b-test [stock] 3 s" "pass kunit:suite.case" \
	"pass kunit:suite.other" >"$tmp/summary"
expect manifest-extra "fail manifest: not in tests/manifest: kunit:suite.other" \
	"$("$top/tests/qemu/manifest-check.sh" "$tmp/summary" "$tmp/manifest")"

# KTAP: a suite whose cases fall short of its plan, and one that never ends.
printf '%s\n' "[    1.0] KTAP version 1" "[    1.0] 1..1" "[    1.1]     # Subtest: s" \
	"[    1.1]     1..3" "[    1.2]     ok 1 a" "[    1.3]     ok 2 b" "[    1.4] ok 1 s" >"$tmp/plan.log"
expect kunit-plan "fail kunit:s planned 3 case(s), reported 2" "$("$top/tests/qemu/ktap.sh" "$tmp/plan.log")"
head -n 5 "$tmp/plan.log" >"$tmp/cut.log"
expect kunit-unfinished "fail kunit:s never finished" "$("$top/tests/qemu/ktap.sh" "$tmp/cut.log")"
