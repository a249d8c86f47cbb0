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

# power_off_hard: pass this boot, then reset at once, as a power cut would: no sync,
# no unmount (for tests with "# boots: 2" that check what survived).
power_off_hard() {
	echo "VIRTIO4-VERDICT $TEST exit=0" >/dev/ttyS1
	echo "ok: cutting the power"
	echo b >/proc/sysrq-trigger
	sleep 10
	fail "sysrq reset did not happen"
}

# fio_verify DEVICE SIZE: random writes with crc32c verification, at queue depth 1 and 32, of
# SIZE in blocks of 512 B..1 MiB and of SIZE/4 in blocks of 512 B..16 KiB (many more requests);
# fails on any error or on fio writing less than asked.
fio_verify() {
	local mib=${2%M} depth run out written bs size
	for run in "512-1m $mib" "512-16k $((mib / 4))"; do
		set -- "$1" $run
		bs=$2 size=$3
		for depth in 1 32; do
			out=$(fio --name=verify --filename="$1" --size="${size}M" --rw=randwrite \
				--bsrange="$bs" --blockalign=512 --ioengine=libaio --iodepth=$depth \
				--direct=1 --verify=crc32c --verify_fatal=1 --do_verify=1 \
				--randrepeat=0 --output-format=terse --terse-version=3 2>&1) ||
				fail "fio bs $bs depth $depth: $out"
			# terse v3: field 5 is the error, field 47 the KiB written.
			expect_eq "fio error, bs $bs depth $depth" 0 \
				"$(echo "$out" | tail -n 1 | cut -d';' -f5)"
			written=$(echo "$out" | tail -n 1 | cut -d';' -f47)
			[ "${written:-0}" -ge $((size * 1024)) ] ||
				fail "fio bs $bs depth $depth wrote only ${written:-0} KiB"
			echo "ok: fio randwrite+verify bs $bs depth $depth: $written KiB written and verified"
		done
	done
}
