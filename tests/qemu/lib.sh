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

# stock_kernel_image: the stock kernel as the guests boot it: the ELF image inside Debian's
# vmlinuz (XZ-compressed; extracted into the cache again whenever the vmlinuz is newer), which
# QEMU enters through its PVH note. Booting the vmlinuz costs 4.4 s more a boot under TCG
# (measured: 5.1 s from QEMU's start to the kernel's first line, 0.7 s as ELF), most of it in
# the XZ decompressor. The vmlinuz if the extraction fails.
stock_kernel_image() {
	local v img out off
	v=$(stock_version) || return 1
	img=/boot/vmlinuz-$v
	out="$cache/vmlinux-$v"
	if [ ! -s "$out" ] || [ "$img" -nt "$out" ]; then
		mkdir -p "$cache"
		rm -f "$out"
		# The image is the XZ stream (magic FD 37 7A 58 5A 00) that decompresses, whole, to
		# an ELF file.
		for off in $(LC_ALL=C grep -aboP '\xfd7zXZ\x00' "$img" | cut -d: -f1); do
			tail -c +$((off + 1)) "$img" | xz -dcq --single-stream >"$out.$$" 2>/dev/null &&
				[ "$(head -c 4 "$out.$$" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] &&
				mv "$out.$$" "$out" && break
		done
		rm -f "$out.$$"
	fi
	if [ -s "$out" ]; then
		echo "$out"
	else
		echo "$img"
	fi
}

# timeout_of TEST.sh: the seconds its "# timeout:" gives it (90 unless it says).
timeout_of() {
	local t
	t=$(sed -n 's/^# timeout: //p' "$1" | tail -n 1)
	echo "${t:-90}"
}

# vcpu_threads SMP: the host threads on which a guest of SMP vCPUs runs them. A guest with more
# vCPUs than the host has cores gets one thread (run.sh: -accel tcg,thread=single, round-robin
# TCG), so that it leaves the other core to another run (check.sh's placement counts it as one):
# copy-net-mq's 4 vCPUs took 127 s on one thread where they took 114 s on both cores. Its vCPUs
# then run in turn, not at once: tests of races between CPUs keep to 2 vCPUs.
vcpu_threads() {
	if [ "$1" -le "$(nproc)" ]; then
		echo "$1"
	else
		echo 1
	fi
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
