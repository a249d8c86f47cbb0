# SPDX-License-Identifier: GPL-2.0
# Shared paths for the harness scripts. Sourced, never run.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build="$top/build"
cache="${VIRTIO4_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/virtio4}"

# The stock guest kernel: the newest Debian linux-image-*-amd64 installed.
stock_version() {
	local v
	v=$(ls -1 /boot/vmlinuz-*-amd64 2>/dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -n 1)
	[ -n "$v" ] || { echo "no Debian amd64 kernel in /boot (run tests/qemu/setup.sh)" >&2; return 1; }
	echo "$v"
}

# linux-source-6.1: the package version names the tarball's contents.
source_version() {
	dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null
}

source_tree() {
	echo "$cache/linux-source-$(source_version)"
}

# build_harness DIR OUT: build the userspace harness in tests/DIR (our sources on the kernel's
# tools/virtio stubs and ours, from the linux-source tree) into OUT.
build_harness() {
	make -s -C "$top/tests/$1" LINUX_SRC="$("$top/tests/qemu/source.sh")" O="$2"
}

# The debug kernel's build directory, keyed by its config fragment, its patch and the source
# version (its patched source tree is the same path with "-src" appended).
debug_kernel_dir() {
	local key
	key=$( (cat "$top/tests/qemu/debug.config" "$top/tests/qemu/debug-kernel.patch"
		source_version) | sha256sum | cut -c1-12)
	echo "$cache/kernel-debug-$key"
}
