#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The patch series (tools/make-patches.sh), checked as a maintainer would: checkpatch.pl
# --strict on every patch, git am onto a copy of the debug kernel's source tree, then the
# series' directory built (make M=drivers/virtio4) against a copy of the debug kernel's build
# tree with every option of drivers/virtio4/Kconfig enabled (W=1, warnings fatal).
# Prints "pass|fail patches:STEP".
# Usage: patches-check.sh DEBUG_KERNEL_BUILD_DIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kobj=$1
src=$("$top/tests/qemu/source.sh")
work=$build/patches-check
log=$work/log
rm -rf "$work"
mkdir -p "$work"

"$top/tools/make-patches.sh" "$work/series" >"$log" 2>&1 ||
	{ echo "fail patches:generate (log: $log)"; exit 1; }
series=$(ls "$work"/series/0*.patch | grep -v /0000-)

status=0
for p in $series; do
	"$src/scripts/checkpatch.pl" --strict --quiet --show-types "$p" >>"$work/checkpatch.log" 2>&1 ||
		status=1
done
if [ $status = 0 ]; then
	echo "pass patches:checkpatch ($(echo "$series" | wc -l) patches)"
else
	echo "fail patches:checkpatch (log: $work/checkpatch.log)"
	sed 's/^/    /' "$work/checkpatch.log" | head -n 20
fi

# The source tree: hard links (fast; a copy on another filesystem), except the files the
# series changes, copied.
tree=$work/linux
cp -al "$src" "$tree" 2>/dev/null || { rm -rf "$tree" && cp -a "$src" "$tree"; }
for f in drivers/Kconfig drivers/Makefile MAINTAINERS; do
	cp --remove-destination "$src/$f" "$tree/$f"
done
(
	set -e
	cd "$tree"
	git init -q
	git add -f drivers/Kconfig drivers/Makefile MAINTAINERS	# Debian's .gitignore ignores /*
	git -c user.name=check -c user.email=check@localhost commit -q -m "Linux 6.1"
	git -c user.name=check -c user.email=check@localhost am -q $series
) >>"$log" 2>&1 || { echo "fail patches:git-am (log: $log)"; exit 1; }
echo "pass patches:git-am"

obj=$work/obj
mkdir -p "$obj" && cp -a "$kobj/." "$obj"	# the directory's contents, even where $kobj is a link
syms=$(sed -n 's/^\(menu\)\{0,1\}config \(VIRTIO4[A-Z0-9_]*\)$/\2/p' "$tree/drivers/virtio4/Kconfig")
(
	set -e
	for s in $syms; do
		"$tree/scripts/config" --file "$obj/.config" --module "$s"
	done
	make -C "$tree" O="$obj" ARCH=x86_64 olddefconfig
	make -C "$tree" O="$obj" ARCH=x86_64 syncconfig
	for s in $syms; do
		grep -q "^CONFIG_$s=m" "$obj/.config" || { echo "CONFIG_$s is not m"; exit 1; }
	done
	make -C "$tree" O="$obj" ARCH=x86_64 -j"$(nproc)" W=1 KCFLAGS=-Werror M=drivers/virtio4 modules
	ls "$obj"/drivers/virtio4/*/*.ko "$obj"/drivers/virtio4/tests/kunit/*.ko
) >>"$log" 2>&1 || { echo "fail patches:build (log: $log)"; tail -n 20 "$log"; exit 1; }
echo "pass patches:build ($(ls "$obj"/drivers/virtio4/*/*.ko "$obj"/drivers/virtio4/tests/kunit/*.ko | wc -l) modules)"
rm -rf "$tree" "$obj"
exit $status
