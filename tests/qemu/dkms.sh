#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The DKMS build, as a user gets it: dkms add and dkms build from the source a release carries
# (dkms.conf, Kbuild and the module sources) against the stock kernel's headers, in a private
# DKMS tree under DIR (nothing is installed on this machine, nothing is loaded here). The
# modules DKMS built go into DIR/dkms.img (ext2), for the guest test dkms-modules to load.
# Usage: dkms.sh DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$(realpath "$1")
kver=$(stock_version)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
src=$dir/dkms-source tree=$dir/dkms-tree stage=$dir/dkms-modules
rm -rf "$src" "$tree" "$stage"
mkdir -p "$src/virtio4-$ver" "$tree" "$stage"
cp -r "$top"/{dkms.conf,Kbuild,include,core,ring,transport,drivers} "$src/virtio4-$ver/"
dkms=(--sourcetree "$src" --dkmstree "$tree")
dkms add -m virtio4 -v "$ver" "${dkms[@]}"
dkms build -m virtio4 -v "$ver" -k "$kver" "${dkms[@]}"
dkms status -m virtio4 "${dkms[@]}"
built=$tree/virtio4/$ver/$kver/$(uname -m)/module
for m in virtio4 virtio4_ring virtio4_pci virtio4_copy virtio4_mmio virtio4_blk virtio4_net; do
	[ -f "$built/$m.ko" ] || { echo "dkms did not build $m.ko (in $built: $(ls "$built"))"; exit 1; }
done
cp "$built"/*.ko "$stage/"
mke2fs -q -t ext2 -d "$stage" "$dir/dkms.img" 16M
echo "dkms built $(ls "$stage" | wc -l) modules for $kver"
