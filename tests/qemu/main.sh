#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make run: set-up, build, then boot the stock kernel with our modules and show what the guest
# reports (tests/qemu/main-guest.sh). INTERACTIVE=1 gives a shell on the guest's console instead.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$top/tests/qemu/setup.sh"
"$top/tests/qemu/modules.sh" "/lib/modules/$(stock_version)/build" "$build/stock"
"$top/tests/qemu/initramfs.sh" stock
if [ -n "${INTERACTIVE:-}" ]; then
	exec "$top/tests/qemu/run.sh" stock "$top/tests/qemu/main-guest.sh"
fi
start=$(date +%s)
rc=0
"$top/tests/qemu/run.sh" stock "$top/tests/qemu/main-guest.sh" >/dev/null || rc=$?
grep -av "^\[" "$build/results/stock/main-guest/console0.log" | tr -d "\r"
echo "== guest ran for $(( $(date +%s) - start ))s: $(cat "$build/results/stock/main-guest/results")"
exit $rc
