#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract (once) Debian's linux-source-6.1 tarball into the cache. Prints the tree's path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$(source_tree)
if [ ! -f "$tree/.extracted" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || { echo "linux-source-6.1 is not installed (run tests/qemu/setup.sh)" >&2; exit 1; }
	echo "  SOURCE  extracting $tarball" >&2
	rm -rf "$tree" && mkdir -p "$tree"
	tar -xf "$tarball" -C "$tree" --strip-components=1
	touch "$tree/.extracted"
fi
echo "$tree"
