#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs for one kernel (stock or debug): busybox, kmod, fio,
# iperf3, e2fsprogs, ethtool, iproute2's ip, util-linux's blkdiscard, lsblk and fallocate, our device
# host (tools/virtio4-host), with their libraries;
# Linux's virtio modules; our modules (already built into build/KIND/src); the tests
# and /init. Two archives: initramfs-fio.cpio holds all of it, initramfs.cpio all but fio and
# the libraries only fio needs (Ceph, Gluster, RDMA, ICU...: three quarters of the bytes, which
# every boot would unpack, the debug kernel's slowly); run.sh boots the first only for tests
# that run fio.
# Rebuilt only when one of its inputs changes. Usage: initramfs.sh KIND
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=$1
out="$build/$kind"
staging="$out/initramfs"
case "$kind" in
stock)
	kver=$(stock_version)
	moddir=/lib/modules/$kver
	;;
debug)
	kdir=$(debug_kernel_dir)
	kver=$(cat "$kdir/include/config/kernel.release")
	moddir=$kdir/modroot/lib/modules/$kver
	;;
*) echo "usage: initramfs.sh stock|debug" >&2; exit 2 ;;
esac

# The device host of the copying transport and the tests' garbage generator are built here,
# for the guest.
make -s -C "$top/tools" O="$build/tools"
host_tool=$build/tools/virtio4-host

tools=("$host_tool" "$build/tools/virtio4-bad-input" "$build/tools/virtio4-fail-io" /bin/ip /bin/busybox /bin/kmod /usr/bin/fio /usr/bin/iperf3 /sbin/mke2fs /sbin/e2fsck /sbin/blkdiscard /bin/lsblk /usr/bin/fallocate /sbin/ethtool /bin/udevadm)
linux_modules=(virtio_pci virtio_blk virtio_net ext4 crc32c_generic af_packet tun)
ours=$(cd "$out/src" && find . -name '*.ko' | sort)

# Linux's modules and their dependencies, as paths relative to $moddir.
linux_module_paths() {
	local m
	for m in "${linux_modules[@]}"; do
		modprobe -d "${moddir%/lib/modules/$kver}" -S "$kver" --show-depends "$m" 2>/dev/null || true
	done | awk '$1 == "insmod" { print $2 }' | sed "s|^$moddir/||" | sort -u
}

# libs_of PROGRAM...: the shared libraries they load, one path per line, sorted.
libs_of() {
	ldd "$@" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | LC_ALL=C sort -u
}

libraries() {
	libs_of "${tools[@]}"
}

guest_files() {
	ls "$top"/tools/udev/*.rules "$top"/tests/qemu/init "$top"/tests/qemu/guest-lib.sh "$top"/tests/qemu/main-guest.sh \
		"$top"/tests/guest/*.sh "$top"/tests/selftest/*.sh "$top"/tests/bench/*.sh
}

stamp=$( {
	echo "$kver"
	sha256sum "$0" "${tools[@]}" $(libraries) $(guest_files)
	(cd "$out/src" && sha256sum $ours)
	(cd "$moddir" && sha256sum $(linux_module_paths))
} | sha256sum | cut -c1-16)
if [ -f "$out/initramfs.cpio" ] && [ -f "$out/initramfs-fio.cpio" ] &&
	[ "$(cat "$out/initramfs.stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
echo "  INITRD  $out/initramfs.cpio ($kver)"

rm -rf "$staging"
mkdir -p "$staging"/{bin,sbin,usr/bin,usr/sbin,etc,root,tests,lib/modules/"$kver"/extra}
install -m 755 "$top/tests/qemu/init" "$staging/init"
cp /bin/busybox "$staging/bin/busybox"
cp /bin/kmod "$staging/sbin/kmod"
for l in modprobe insmod rmmod lsmod modinfo depmod; do ln -s kmod "$staging/sbin/$l"; done
cp /usr/bin/fio /usr/bin/iperf3 /bin/lsblk /usr/bin/fallocate "$host_tool" "$build/tools/virtio4-bad-input" \
	"$build/tools/virtio4-fail-io" "$staging/usr/bin/"
# iproute2's ip (network namespaces) goes before busybox's applet in PATH.
cp /bin/ip "$staging/usr/sbin/ip"
cp /sbin/mke2fs /sbin/e2fsck /sbin/blkdiscard /sbin/ethtool "$staging/usr/sbin/"
ln -s mke2fs "$staging/usr/sbin/mkfs.ext4"
# udev (one binary: udevadm, and systemd-udevd by name) with our rules, for the by-id links.
cp /bin/udevadm "$staging/bin/udevadm"
mkdir -p "$staging/lib/systemd" "$staging/etc/udev/rules.d"
ln -s /bin/udevadm "$staging/lib/systemd/systemd-udevd"
cp "$top"/tools/udev/*.rules "$staging/etc/udev/rules.d/"
for lib in $(libraries); do
	mkdir -p "$staging$(dirname "$lib")"
	cp -L "$lib" "$staging$lib"
done
# Library directories as Debian's dynamic loader expects them (/lib -> /usr/lib merged layout).
[ -d "$staging/lib64" ] || ln -s lib "$staging/lib64"
echo 'root:x:0:0:root:/root:/bin/sh' >"$staging/etc/passwd"
echo 'root:x:0:' >"$staging/etc/group"

# Linux's modules (for comparison and for ext4), ours, and modules.dep.
(cd "$moddir" && cp --parents $(linux_module_paths) "$staging/lib/modules/$kver/")
cp "$moddir"/modules.builtin* "$moddir"/modules.order "$staging/lib/modules/$kver/" 2>/dev/null || true
(cd "$out/src" && cp $ours "$staging/lib/modules/$kver/extra/")
depmod -b "$staging" "$kver"

# The tests, and the list of modules we ship (everything not built under tests/).
cp "$top"/tests/guest/*.sh "$top"/tests/selftest/*.sh "$staging/tests/"
cp "$top"/tests/bench/bench-*.sh "$staging/tests/"
cp "$top/tests/qemu/guest-lib.sh" "$staging/tests/lib.sh"
cp "$top/tests/qemu/main-guest.sh" "$staging/tests/"
printf '%s\n' $ours | grep -v '^./tests/' | sed 's|.*/||; s|\.ko$||' >"$staging/tests/shipped-modules"

# fio and what only fio needs, as paths in the staging tree ("./usr/bin/fio", ...).
fio_only() {
	local t others=()
	for t in "${tools[@]}"; do
		[ "$t" = /usr/bin/fio ] || others+=("$t")
	done
	echo ./usr/bin/fio
	LC_ALL=C comm -23 <(libs_of /usr/bin/fio) <(libs_of "${others[@]}") | sed 's|^|.|'
}
(cd "$staging" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out/initramfs-fio.cpio"
(cd "$staging" && find . | grep -vxF -f <(fio_only) | LC_ALL=C sort | cpio -o -H newc --quiet) \
	>"$out/initramfs.cpio"
echo "$stamp" >"$out/initramfs.stamp"
