#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compare a make check summary with the manifest of the results a full run must produce.
# Usage: manifest-check.sh SUMMARY MANIFEST [NAMES-OUT]
# Prints "fail manifest: missing NAME" for each listed result the summary lacks, "fail
# manifest: not in tests/manifest: NAME" for each result it has that is not listed, or one
# "pass manifest (N results)". A result's name is "NAME" or "NAME [KERNEL]". NAMES-OUT, if
# given, receives the summary's names (what "make manifest" copies).
set -uo pipefail
summary=$1 manifest=$2 names=${3:-$(mktemp)}
# Result lines only: a failed lint puts its log's lines, indented, in the summary too.
awk '$1 ~ /^(pass|fail|skip)$/ { print $2 ($3 ~ /^\[(stock|debug)\]$/ ? " " $3 : "") }' "$summary" |
	LC_ALL=C sort -u >"$names"
out=$(
	LC_ALL=C comm -23 "$manifest" "$names" | sed 's/^/fail manifest: missing /'
	LC_ALL=C comm -13 "$manifest" "$names" | sed 's/^/fail manifest: not in tests\/manifest: /'
)
if [ -n "$out" ]; then
	echo "$out"
else
	echo "pass manifest ($(wc -l <"$manifest") results)"
fi
[ $# -ge 3 ] || rm -f "$names"
