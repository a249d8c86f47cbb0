#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs for one kernel (stock or debug): busybox, kmod, fio,
# iperf3, e2fsprogs, ethtool, iproute2's ip, util-linux's blkdiscard, lsblk and fallocate, our device
# host (tools/virtio4-host), with their libraries;
# Linux's virtio modules; our modules (already built into build/KIND/src); the tests
# and /init. Debian's fio is linked against the libraries of I/O engines no test uses (Ceph,
# Gluster, NBD, RDMA, PMEM) and theirs (ICU, Kerberos...): three quarters of the bytes, which
# every boot would unpack, the debug kernel's slowly. Those go in as stubs (stub_library): the
# same names, versions and symbols, each function a trap.
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
linux_modules=(virtio_pci virtio_mmio virtio_blk virtio_net ext4 crc32c_generic af_packet tun 8021q)
ours=$(cd "$out/src" && find . -name '*.ko' | sort)

# Linux's modules and their dependencies, as paths relative to $moddir.
linux_module_paths() {
	local m
	for m in "${linux_modules[@]}"; do
		modprobe -d "${moddir%/lib/modules/$kver}" -S "$kver" --show-depends "$m" 2>/dev/null || true
	done | awk '$1 == "insmod" { print $2 }' | sed "s|^$moddir/||" | sort -u
}

# fio's libraries for engines no test uses (a test that used one would trap in the stub).
stubbed=(libgfapi.so.0 libnbd.so.0 libibverbs.so.1 librdmacm.so.1 librados.so.2 librbd.so.1
	libpmemblk.so.1 libpmem.so.1)
stubs=$out/stubs

# stub_library NAME: $stubs/NAME, with NAME's soname, holding every function fio takes from the
# real NAME (under the version fio asks for), each a trap (SIGILL). Nothing if fio no longer
# loads NAME; a failure if fio takes data from it (a stub cannot stand in for that).
stub_library() {
	local real imports
	real=$(ldd /usr/bin/fio | awk -v n="$1" '$1 == n { print $3 }')
	if [ -z "$real" ]; then
		echo "  STUB    fio no longer loads $1: no stub" >&2
		return 0
	fi
	# fio's imports that the real NAME defines, as "name version" (version "Base": none asked).
	imports=$(awk 'NR == FNR { d[$1] = 1; next }
		/\*UND\*/ && !/ w / { v = $(NF - 1); gsub(/[()]/, "", v)
			if ((v == "Base" && d[$NF]) || d[$NF "@" v]) print $NF, v, ($0 ~ / DF /) ? "F" : "D" }' \
		<(nm -D --with-symbol-versions --defined-only "$real" |
			awk '{ n = $3; sub(/@.*/, "", n); print n; v = $3; sub(/^[^@]*@+/, "", v); print n "@" v }') \
		<(objdump -T /usr/bin/fio) | LC_ALL=C sort)
	if echo "$imports" | grep -q ' D$'; then
		echo "initramfs.sh: fio takes data from $1: $(echo "$imports" | grep ' D$' | head -n 3)" >&2
		return 1
	fi
	echo "$imports" | awk 'NF { printf "void %s(void) { __builtin_trap(); }\n", $1 }' >"$stubs/$1.c"
	echo "$imports" | awk 'NF && $2 != "Base" { v[$2] = v[$2] " " $1 ";" }
		END { for (n in v) printf "%s { global:%s };\n", n, v[n] }' | LC_ALL=C sort >"$stubs/$1.map"
	gcc -shared -fPIC -nostdlib -o "$stubs/$1" "$stubs/$1.c" -Wl,-soname,"$1" \
		$([ -s "$stubs/$1.map" ] && echo "-Wl,--version-script=$stubs/$1.map")
}

# libs_of PROGRAM...: the shared libraries they load (fio's stubs in place of the real ones), one
# path per line, sorted.
libs_of() {
	LD_LIBRARY_PATH=$stubs ldd "$@" 2>/dev/null |
		awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | LC_ALL=C sort -u
}

libraries() {
	libs_of "${tools[@]}"
}

guest_files() {
	ls "$top"/tools/udev/*.rules "$top"/tests/qemu/init "$top"/tests/qemu/guest-lib.sh "$top"/tests/qemu/main-guest.sh \
		"$top"/tests/guest/*.sh "$top"/tests/selftest/*.sh "$top"/tests/bench/*.sh
}

rm -rf "$stubs"
mkdir -p "$stubs"
for l in "${stubbed[@]}"; do
	stub_library "$l"
done
# fio binds every symbol at start (BIND_NOW): a missing one would fail it here, not in a guest.
LD_LIBRARY_PATH=$stubs /usr/bin/fio --version >/dev/null ||
	{ echo "initramfs.sh: fio does not start with the stubs in $stubs" >&2; exit 1; }

stamp=$( {
	echo "$kver"
	sha256sum "$0" "${tools[@]}" $(libraries) $(guest_files)
	(cd "$out/src" && sha256sum $ours)
	(cd "$moddir" && sha256sum $(linux_module_paths))
} | sha256sum | cut -c1-16)
if [ -f "$out/initramfs.cpio" ] && [ "$(cat "$out/initramfs.stamp" 2>/dev/null)" = "$stamp" ]; then
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
# The stubs go where the real libraries are (beside libc).
libdir=$(dirname "$(libs_of /usr/bin/fio | grep '/libc\.so')")
for lib in $(libraries); do
	dest=$lib
	[ "$(dirname "$lib")" = "$stubs" ] && dest=$libdir/$(basename "$lib")
	mkdir -p "$staging$(dirname "$dest")"
	cp -L "$lib" "$staging$dest"
done
# Library directories as Debian's dynamic loader expects them (/lib -> /usr/lib merged layout).
[ -d "$staging/lib64" ] || ln -s lib "$staging/lib64"
echo 'root:x:0:0:root:/root:/bin/sh' >"$staging/etc/passwd"
echo 'root:x:0:' >"$staging/etc/group"
# What /init needs before the test, made here: each command it runs costs a process start, 30 ms
# for a busybox applet and 0.1-0.4 s for a dynamically linked tool on the debug kernel under TCG.
# Busybox's applets as links in /bin (what "busybox --install -s /bin" would make: none over a
# file already there), the mount points, and the file systems for one "mount -a".
mkdir -p "$staging"/{proc,sys,dev,tmp,run,mnt}
for a in $(/bin/busybox --list); do
	[ -e "$staging/bin/$a" ] || ln -s /bin/busybox "$staging/bin/$a"
done
cat >"$staging/etc/fstab" <<'FSTAB'
proc	/proc			proc		defaults	0 0
sys	/sys			sysfs		defaults	0 0
dev	/dev			devtmpfs	defaults	0 0
tmp	/tmp			tmpfs		defaults	0 0
debug	/sys/kernel/debug	debugfs		defaults	0 0
FSTAB

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

(cd "$staging" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out/initramfs.cpio"
echo "$stamp" >"$out/initramfs.stamp"
