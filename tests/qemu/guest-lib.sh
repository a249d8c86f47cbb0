# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests (installed as /tests/lib.sh). Source it: . /tests/lib.sh
# Every check prints what it compared, and a failed check ends the test non-zero.

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	echo "ok: $1 = '$3'"
}

# expect_fail WHAT COMMAND...: the command must fail.
expect_fail() {
	local what=$1
	shift
	if "$@"; then
		fail "$what: '$*' succeeded"
	fi
	echo "ok: $what fails"
}

# module_loaded NAME: is NAME in /proc/modules?
module_loaded() {
	grep -q "^$1 " /proc/modules
}

# shipped_modules: the modules this project ships, one per line.
shipped_modules() {
	cat /tests/shipped-modules
}

# peer_barrier PEER_ADDRESS: in two-guest tests, return once both guests have reached
# this point, so neither ends (and takes the wire down) while the other still uses it.
peer_barrier() {
	local i
	nc -l -p 7777 >/tmp/barrier &
	for i in $(seq 150); do
		echo "guest $GUEST here" | nc -w 1 "$1" 7777 2>/dev/null && break
		sleep 0.2
	done
	for i in $(seq 150); do
		[ -s /tmp/barrier ] && { echo "ok: peer reached the barrier"; return 0; }
		sleep 0.2
	done
	fail "peer never reached the barrier"
}

# wait_for PATH [TENTHS]: wait until PATH exists (default 10 s).
wait_for() {
	local i
	for i in $(seq "${2:-100}"); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	fail "$1 did not appear"
}

# load_virtio4_blk: load our PCI transport and block driver; wait for /dev/v4blk0.
load_virtio4_blk() {
	modprobe virtio4_pci "$@" || fail "modprobe virtio4_pci"
	modprobe virtio4_blk || fail "modprobe virtio4_blk"
	wait_for /dev/v4blk0
}

# size_of FILE: its size in bytes (busybox wc pads, so use stat).
size_of() {
	stat -c %s "$1"
}

# host_step NAME: tell the test's host command (# host:) that the guest reached NAME.
# The host command waits for it with tests/qemu/wait-console.sh.
host_step() {
	echo "VIRTIO4-STEP $1"
}
