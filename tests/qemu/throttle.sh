#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# For a test's host command: limit a drive's backend to BPS bytes per second (0: no limit).
# Usage: throttle.sh QMP_SOCKET DRIVE BPS
set -euo pipefail
exec "$(dirname "$0")/qmp.py" "$1" block_set_io_throttle \
	"{\"device\": \"$2\", \"bps\": $3, \"bps_rd\": 0, \"bps_wr\": 0, \"iops\": 0, \"iops_rd\": 0, \"iops_wr\": 0}"
