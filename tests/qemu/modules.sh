#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build every module out of tree against one kernel build tree, W=1, warnings fatal.
# Usage: modules.sh KDIR OUTDIR [extra make arguments, e.g. C=2]
# Kbuild of 6.1 writes objects next to the sources, so the sources are mirrored
# into OUTDIR/src first: one mirror per kernel, the checkout stays clean.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=$1 out=$(realpath -m "$2")
shift 2
[ -f "$kdir/Makefile" ] || { echo "no kernel build tree at $kdir (KDIR=...)" >&2; exit 1; }

mkdir -p "$out/src"
rsync -a --delete --prune-empty-dirs --exclude=/build/ --exclude=/.git/ \
	--include='*/' --include='*.c' --include='*.h' --include='Kbuild' --exclude='*' \
	"$top/" "$out/src/"

log="$out/build.log"
if ! make -C "$kdir" M="$out/src" W=1 -j"$(nproc)" modules "$@" >"$log" 2>&1; then
	grep -E 'error|warning' "$log" >&2 || tail -n 20 "$log" >&2
	exit 1
fi
if grep -E 'warning:' "$log" >&2; then
	echo "modules.sh: warnings in the build (see $log)" >&2
	exit 1
fi
