#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For a test's host command: wait until guest N's console says it reached STEP (host_step).
# Usage: wait-console.sh N STEP [SECONDS]
set -euo pipefail
for _ in $(seq $((${3:-60} * 10))); do
	grep -aq "^VIRTIO4-STEP $2" "$WORK/console$1.log" 2>/dev/null && exit 0
	sleep 0.1
done
echo "guest $1 never reached step $2" >&2
exit 1
