#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make docs: the reST pages of docs/ into build/docs/, each ".. kernel-doc:: FILE" directive
# replaced by what the kernel's scripts/kernel-doc (from linux-source-6.1) makes of FILE
# (":export:" keeps the exported functions only), then HTML in build/docs/html when
# sphinx-build is installed. Fails on any kernel-doc warning.
set -euo pipefail
. "$(dirname "$0")/../tests/qemu/lib.sh"

tree=$("$top/tests/qemu/source.sh")
out=$build/docs
rm -rf "$out"
mkdir -p "$out"
cp "$top"/docs/*.rst "$top"/docs/*.md "$out/"
# expand PAGE: replace its kernel-doc directives (and their option lines) with the output.
expand() {
	local page=$1 line file opts=() pending=
	while IFS= read -r line || [ -n "$line" ]; do
		if [ -n "$pending" ] && [[ "$line" =~ ^\ +:export: ]]; then
			opts=(-export)
			continue
		fi
		if [ -n "$pending" ]; then
			"$tree/scripts/kernel-doc" -sphinx-version 3.4 -rst "${opts[@]}" "$top/$pending" 2>>"$out/kernel-doc.log"
			pending= opts=()
		fi
		if [[ "$line" =~ ^\.\.\ kernel-doc::\ (.*)$ ]]; then
			pending=${BASH_REMATCH[1]}
		else
			printf '%s\n' "$line"
		fi
	done <"$top/docs/$page"
	if [ -n "$pending" ]; then
		"$tree/scripts/kernel-doc" -sphinx-version 3.4 -rst "${opts[@]}" "$top/$pending" 2>>"$out/kernel-doc.log"
	fi
}
: >"$out/kernel-doc.log"
for page in $(cd "$top/docs" && grep -l '^\.\. kernel-doc::' ./*.rst); do
	expand "$(basename "$page")" >"$out/$(basename "$page")"
done
if grep -q -i -E 'warning|error' "$out/kernel-doc.log"; then
	cat "$out/kernel-doc.log"
	exit 1
fi
echo "  DOCS    $out ($(ls "$out"/*.rst | wc -l) pages)"
if command -v sphinx-build >/dev/null; then
	printf 'project = "virtio4"\nmaster_doc = "index"\nexclude_patterns = ["html"]\n' >"$out/conf.py"
	sphinx-build -q -b html "$out" "$out/html"
	echo "  HTML    $out/html/index.html"
fi
