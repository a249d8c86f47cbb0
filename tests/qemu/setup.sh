#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, with apt, what the build and the tests need. Idempotent: installs only what is missing.
set -euo pipefail

packages=(
	linux-image-amd64 linux-headers-amd64 linux-source-6.1	# guest kernel, Kbuild tree, source
	build-essential flex bison bc libelf-dev libssl-dev dwarves patch lz4	# building the debug kernel (patched; LZ4-compressed)
	xz-utils rsync cpio kmod	# unpacking, staging, initramfs, modules.dep
	qemu-system-x86	# the guests
	busybox-static fio iperf3 e2fsprogs ethtool udev util-linux	# tools inside the guests
	sparse python3 iproute2	# lint; free ports and listening sockets for the runner; ip in the guests
	gnuplot-nox valgrind	# make bench: the chart, the ring's instruction counts
	clang libclang-rt-14-dev	# make fuzz, the corpus replay and the memory-order model (libFuzzer, ASan, UBSan)
	dkms git	# the DKMS build (dkms-modules); make patches and its check (git am)
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ "${#missing[@]}" = 0 ] && exit 0

echo "  SETUP   installing: ${missing[*]}"
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
