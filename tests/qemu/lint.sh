#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lint every source: checkpatch.pl --strict (from the linux-source-6.1 tarball),
# kernel-doc on the headers, and sparse (make C=2). Prints "pass|fail lint:WHAT" lines;
# exits non-zero if any fails. Usage: lint.sh [KDIR]
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kdir=${1:-/lib/modules/$(stock_version)/build}
tree=$("$top/tests/qemu/source.sh") || exit 1
mkdir -p "$build/lint"
cd "$top"
sources=$(find . -path ./build -prune -o -name '*.[ch]' -print | sed 's|^\./||' | sort)
headers=$(find include -name '*.h' | sort)
rc=0

# result WHAT LOG STATUS: one result line; a failure shows its log.
result() {
	if [ "$3" = 0 ]; then
		echo "pass lint:$1"
	else
		echo "fail lint:$1 (log: $2)"
		sed 's/^/    /' "$2" | head -n 40
		rc=1
	fi
}

# Userspace: the tools, the guest tests' helper, the fuzzers, the memory-order model and the
# userspace builds of our ring with their stubs (which mimic kernel macros).
userspace='^(tools|tests/tools|tests/fuzz|tests/model|tests/stubs|tests/bench/ring)/'
kernel_sources=$(echo "$sources" | grep -v -E "$userspace")
tool_sources=$(echo "$sources" | grep -E "$userspace")
checkpatch=("$tree/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types)
(
	status=0
	"${checkpatch[@]}" -f $kernel_sources || status=1
	# Userspace: kernel style, without the kernel's own macros (BIT, __printf), with
	# libFuzzer's entry point, and stubs that redefine kernel macros.
	"${checkpatch[@]}" --ignore BIT_MACRO,PREFER_DEFINED_ATTRIBUTE_MACRO,CAMELCASE,VOLATILE \
		--ignore MACRO_ARG_REUSE,SINGLE_STATEMENT_DO_WHILE_MACRO,SIZEOF_ADDRESS,NEW_TYPEDEFS \
		-f $tool_sources || status=1
	exit $status
) >"$build/lint/checkpatch.log" 2>&1
result checkpatch "$build/lint/checkpatch.log" $?

"$kdir/scripts/kernel-doc" -v -none $headers >"$build/lint/kernel-doc.log" 2>&1
! grep -q -i -E 'warning|error' "$build/lint/kernel-doc.log"
result kernel-doc "$build/lint/kernel-doc.log" $?

"$top/tests/qemu/modules.sh" "$kdir" "$build/sparse" C=2 >"$build/lint/sparse.log" 2>&1
result sparse "$build/lint/sparse.log" $?

# docs/: the reST pages with the API expanded from kernel-doc (make docs).
"$top/docs/build.sh" >"$build/lint/docs.log" 2>&1
result docs "$build/lint/docs.log" $?
exit $rc
