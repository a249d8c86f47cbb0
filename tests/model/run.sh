#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For make check (T=model alone): build the memory-order model of the ring's notification
# handshakes (ring_order.c) and run it. One result line per case.
set -uo pipefail
. "$(dirname "$0")/../qemu/lib.sh"

out="$build/model"
mkdir -p "$out"
if ! build_harness model "$out" >"$out/build.log" 2>&1; then
	echo "fail model:build see $out/build.log"
	exit 0
fi
"$out/ring-order" 2>"$out/stderr.log"
rc=$?
# 1: a case failed (its line says why); anything else: the model itself stopped.
[ "$rc" -le 1 ] || echo "fail model:ring-order exited $rc: $(tail -n 3 "$out/stderr.log")"
exit 0
