#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make mutants: plant each bug of tests/mutants/*.patch in a scratch copy of the tree, run the
# tests its "Tests:" line names (in order, until one fails) and print a table: mutant, caught
# by, seconds. Exit status 1 if any mutant survives (or does not apply or build).
# Usage: run.sh [NN ...]   (only the mutants whose file names start with NN)
# Environment: MUTANTS_WORK= the scratch copy (default build/mutants/tree).
set -uo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

work=${MUTANTS_WORK:-$build/mutants/tree}
table="$build/mutants/table.md"
# A fresh copy: objects left by an earlier, interrupted run could hold its mutant.
rm -rf "$work"
mkdir -p "$work" "$(dirname "$table")"
patches=()
if [ $# = 0 ]; then
	patches=("$top"/tests/mutants/[0-9]*.patch)
else
	for n in "$@"; do
		patches+=("$top"/tests/mutants/"$n"*.patch)
	done
fi

# try SELECTOR: run one selector's test in the scratch tree; prints the first failure, if any.
# A selector is NAME[@TRANSPORT][:KERNEL] (kunit:debug is the KUnit suites).
try() {
	local sel=$1 name kernel tr
	name=${1%%:*}
	kernel=${sel#"$name"}
	kernel=${kernel#:}
	tr=pci
	case $name in *@*) tr=${name#*@}; name=${name%@*} ;; esac
	(cd "$work" && T=$name K=$kernel TR=$tr tests/qemu/check.sh >"$work/build/mutant-run.log" 2>&1)
	if grep -q '^fail build:' "$work/build/results/summary"; then
		echo "BUILD: $(grep -m 1 '^fail build:' "$work/build/results/summary")"
		return
	fi
	grep -m 1 '^fail' "$work/build/results/summary"
}

printf '| mutant | caught by | seconds |\n|---|---|---|\n' >"$table"
survived=0
total=0
last_files=()
start=$(date +%s)
for p in "${patches[@]}"; do
	[ -f "$p" ] || { echo "no mutant $p" >&2; exit 2; }
	m=$(basename "$p" .patch)
	t0=$(date +%s)
	total=$((total + 1))
	rsync -a --delete --exclude=/build/ --exclude=/.git/ "$top/" "$work/"
	# The last mutant's files came back with their old times: newer ones, or make would keep
	# the mutated objects built from them.
	for f in "${last_files[@]}"; do
		touch "$work/$f"
	done
	mapfile -t last_files < <(sed -n 's|^+++ b/||p' "$p")
	mkdir -p "$work/build"
	caught=""
	# The ceiling keeps git from finding a repository around the copy (build/ is inside
	# ours), where it would skip every path outside the directory, silently.
	if ! (cd "$work" && GIT_CEILING_DIRECTORIES=$(dirname "$work") git apply "$p" \
		2>"$work/build/apply.log"); then
		caught="DOES NOT APPLY: $(head -n 1 "$work/build/apply.log")"
	elif cmp -s "$top/${last_files[0]}" "$work/${last_files[0]}"; then
		caught="DOES NOT APPLY: ${last_files[0]} unchanged"
	else
		for sel in $(sed -n 's/^Tests: //p' "$p"); do
			got=$(try "$sel")
			case $got in
			BUILD:*) caught=$got; break ;;
			fail*) caught="$sel: ${got#fail }"; break ;;
			esac
		done
	fi
	secs=$(( $(date +%s) - t0 ))
	case $caught in
	"" | BUILD:* | "DOES NOT APPLY"*)
		survived=$((survived + 1))
		[ -n "$caught" ] || caught="SURVIVED ($(sed -n 's/^Tests: //p' "$p"))"
		;;
	esac
	row="| $m | ${caught:0:150} | $secs |"
	echo "$row" | tee -a "$table"
done
echo "$((total - survived)) of $total mutants caught in $(( $(date +%s) - start ))s (table: $table)"
[ "$survived" = 0 ]
