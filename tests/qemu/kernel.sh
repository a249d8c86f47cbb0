#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) the debug guest kernel from Debian's linux-source-6.1 with
# tests/qemu/debug-kernel.patch applied (to a hard-linked copy of the tree): tinyconfig plus
# tests/qemu/debug.config, out of tree, cached outside the repository. Prints its directory.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$(debug_kernel_dir)
if [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

pristine=$("$top/tests/qemu/source.sh")
src="$out-src"
log="$cache/kernel-build.log"
if [ ! -f "$src/.patched" ]; then
	# patch(1) writes each file it changes anew, so the pristine tree's links are left alone.
	rm -rf "$src"
	cp -al "$pristine" "$src"
	patch -s -d "$src" -p1 <"$top/tests/qemu/debug-kernel.patch" ||
		{ echo "tests/qemu/debug-kernel.patch does not apply to $pristine" >&2; exit 1; }
	touch "$src/.patched"
fi
mkdir -p "$out"
echo "  KERNEL  building debug kernel in $out (6 to 14 minutes; log: $log)" >&2
{
	make -C "$src" O="$out" ARCH=x86_64 tinyconfig
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
		"$top/tests/qemu/debug.config")
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig
} >"$log" 2>&1

# Every option the fragment asks for must have survived Kconfig's dependency resolution.
missing=0
while read -r line; do
	case "$line" in
	CONFIG_*=* | "# CONFIG_"*" is not set")
		grep -qx -- "$line" "$out/.config" || { echo "debug.config: $line not applied" >&2; missing=1; }
		;;
	esac
done <"$top/tests/qemu/debug.config"
[ "$missing" = 0 ] || { echo "debug.config: fix the fragment (see $out/.config)" >&2; exit 1; }

make -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" bzImage modules >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; exit 1; }
rm -rf "$out/modroot"
make -C "$src" O="$out" ARCH=x86_64 INSTALL_MOD_PATH="$out/modroot" modules_install >>"$log" 2>&1
touch "$out/.done"
echo "$out"
