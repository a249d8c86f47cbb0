# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests (installed as /tests/lib.sh). Source it: . /tests/lib.sh
# Every check prints what it compared, and a failed check ends the test non-zero.

# fail WHY: end the test non-zero, saying why on stderr (the console too), which a helper's
# $(...) does not capture.
fail() {
	echo "FAIL: $*" >&2
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
# Each call is a new round, with its own port and file.
BARRIER_ROUND=0

# A pipe that never ends (this shell holds it open on fd 3), for listen_once.
[ -p /tmp/hold ] || mkfifo /tmp/hold
exec 3<>/tmp/hold

# listen_once PORT [SECONDS]: write what one TCP connection to PORT brings to stdout; give up
# after SECONDS (120). busybox nc shuts the connection down when its stdin ends, so its stdin
# is a pipe that never does.
listen_once() {
	timeout "${2:-120}" nc -l -p "$1" </tmp/hold
}

# on_debug_kernel: true on the debug kernel (KASAN and lockdep make it several times slower).
on_debug_kernel() {
	case "$(uname -r)" in
	*-amd64) return 1 ;;
	*) return 0 ;;
	esac
}

# by_kernel STOCK DEBUG: prints STOCK, or DEBUG on the debug kernel. For sizes of bulk work:
# KASAN checks every byte a copy touches, so the debug kernel moves data 4-10 times slower,
# and its sanitizers see each code path in a smaller transfer as well as in a large one.
by_kernel() {
	if on_debug_kernel; then
		echo "$2"
	else
		echo "$1"
	fi
}

peer_barrier() {
	local i port
	BARRIER_ROUND=$((BARRIER_ROUND + 1))
	port=$((7700 + BARRIER_ROUND))
	listen_once $port >/tmp/barrier.$BARRIER_ROUND &
	for i in $(seq 150); do
		echo "guest $GUEST here" | nc -w 1 "$1" $port 2>/dev/null && break
		sleep 0.2
	done
	for i in $(seq 150); do
		if [ -s /tmp/barrier.$BARRIER_ROUND ]; then
			echo "ok: peer reached barrier $BARRIER_ROUND"
			return 0
		fi
		sleep 0.2
	done
	fail "peer never reached barrier $BARRIER_ROUND"
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

# blk_ring_sum FIELD [DISK]: FIELD summed over the debugfs files of DISK's request rings
# (v4blk0 by default): kicks, interrupts, spurious, indirect_tables, alloc_failures...
blk_ring_sum() {
	local vdev
	vdev=$(basename "$(readlink /sys/block/"${2:-v4blk0}"/device)")
	[ -n "$vdev" ] || fail "blk_ring_sum: no disk ${2:-v4blk0}"
	awk -v f="$1" '$1 == f { n += $2 } END { print n + 0 }' \
		/sys/kernel/debug/virtio4/"$vdev"/"$vdev"-requests.*
}

# blk_few_spurious_interrupts WHAT [DISK]: of the interrupts DISK's request queues took since
# its driver was loaded, under 1 in 400 found nothing used (WHAT is said in the failure). Each
# ring's "interrupts" counts those that found buffers used, "spurious" the others.
blk_few_spurious_interrupts() {
	local irqs spurious
	spurious=$(blk_ring_sum spurious "$2")
	irqs=$(($(blk_ring_sum interrupts "$2") + spurious))
	[ "$irqs" -gt 0 ] && [ $((spurious * 400)) -lt "$irqs" ] ||
		fail "$1: $spurious of $irqs interrupts found nothing used"
	echo "ok: $1: $spurious of $irqs interrupts found nothing used"
}

# blk_idle WHEN [DISK]: /dev/DISK (v4blk0 by default) has no request in flight, no hardware
# queue stopped (blk-mq's debugfs) and no ring broken (ours), WHEN (said in the failure).
blk_idle() {
	local disk=${2:-v4blk0} vdev f s
	vdev=$(basename "$(readlink /sys/block/"$disk"/device)")
	expect_eq "requests in flight $1" "0 0" \
		"$(tr -s ' ' </sys/block/"$disk"/inflight | sed 's/^ //')"
	for s in /sys/kernel/debug/block/"$disk"/hctx*/state; do
		[ -e "$s" ] || fail "no hardware queue of $disk in debugfs"
		grep -q STOPPED "$s" && fail "$s: hardware queue left stopped $1"
	done
	for f in /sys/kernel/debug/virtio4/"$vdev"/"$vdev"-*.*; do
		expect_eq "$(basename "$f") broken $1" "broken 0" "$(grep '^broken' "$f")"
	done
	echo "ok: nothing in flight, no queue stopped or broken $1"
}

# blk_rebinds_keep_data N UNBIND: writes a pattern to /dev/v4blk0, then N times calls the
# function UNBIND with the round's number and the disk's virtio4 device (it unbinds the device
# from virtio4_blk, around whatever I/O the test wants), binds the device again and waits for
# the disk; the pattern must read back.
blk_rebinds_keep_data() {
	local n=$1 unbind=$2 vdev i pattern=v4blk-rebind-pattern
	vdev=$(basename "$(readlink /sys/block/v4blk0/device)")
	printf '%s' "$pattern" | dd of=/dev/v4blk0 bs=512 seek=100 conv=sync,fsync 2>/dev/null ||
		fail "writing the pattern"
	for i in $(seq "$n"); do
		"$unbind" "$i" "$vdev"
		echo "$vdev" >/sys/bus/virtio4/drivers/virtio4_blk/bind || fail "bind $i"
		wait_for_disk v4blk0
	done
	expect_eq "pattern after $n unbinds" "$pattern" \
		"$(dd if=/dev/v4blk0 bs=512 skip=100 count=1 2>/dev/null | head -c ${#pattern})"
}

# wait_for_disk NAME [TENTHS]: wait until /dev/NAME and its queue's sysfs attributes exist (the
# disk's node appears before the block layer registers its queue).
wait_for_disk() {
	wait_for "/dev/$1" "${2:-100}"
	wait_for "/sys/block/$1/queue/io_timeout" "${2:-100}"
}

# load_virtio4_blk [PCI MODULE ARGS]: our block driver on the test's transport ($TRANSPORT,
# from "# transports:"); wait for /dev/v4blk0 (and one /dev/v4blkN per QEMU disk).
#   pci (default): our PCI transport drives QEMU's virtio-blk-pci disks in PCI order.
#   copy: Linux's virtio_blk drives them (vda, vdb, ...) and one device host per disk
#         serves it to our block driver through the copying transport, in the same order
#         (with the options in $BLK_HOST_OPTIONS, if set).
load_virtio4_blk() {
	if [ "${TRANSPORT:-pci}" = copy ]; then
		load_virtio4_blk_copy
		return
	fi
	load_transport "$@"
	modprobe virtio4_blk || fail "modprobe virtio4_blk"
	wait_for_disk v4blk0
	expect_ring_layout
}

# mmio_devices: the device= parameters of virtio4_mmio for the virtio-mmio devices QEMU named on
# the command line (virtio_mmio.device=SIZE@BASE:IRQ, Linux's own parameter), one per line.
mmio_devices() {
	tr ' ' '\n' </proc/cmdline | sed -n 's/^virtio_mmio\.device=/device=/p'
}

# load_transport [PCI MODULE ARGS]: our shared-memory transport for $TRANSPORT: virtio4_pci (with
# the arguments given); on mmio virtio4_mmio, which finds the devices in ACPI; on mmio-legacy
# virtio4_mmio given the devices QEMU named on the command line.
load_transport() {
	case ${TRANSPORT:-pci} in
	mmio) modprobe virtio4_mmio || fail "modprobe virtio4_mmio" ;;
	mmio-legacy)
		[ -n "$(mmio_devices)" ] || fail "no virtio_mmio.device= on the command line"
		modprobe virtio4_mmio $(mmio_devices) || fail "modprobe virtio4_mmio $(mmio_devices)" ;;
	*) modprobe virtio4_pci "$@" || fail "modprobe virtio4_pci" ;;
	esac
}

# serve_blk FILE [OPTIONS]: a device host serving FILE as the next /dev/v4blkN; waits for
# the disk and sets HOST_PID.
serve_blk() {
	local file=$1 n
	shift
	n=$(ls /sys/block | grep -c '^v4blk' || true)
	virtio4-host blk "$@" "$file" &
	HOST_PID=$!
	wait_for_disk "v4blk$n"
	echo "ok: device host $HOST_PID serves $file as /dev/v4blk$n"
}

load_virtio4_blk_copy() {
	local disk
	modprobe virtio_pci && modprobe virtio_blk || fail "loading Linux's virtio_blk"
	wait_for /dev/vda
	modprobe virtio4_copy && modprobe virtio4_blk || fail "loading virtio4_copy, virtio4_blk"
	for disk in /dev/vd?; do
		# shellcheck disable=SC2086 # options, word by word
		serve_blk "$disk" ${BLK_HOST_OPTIONS:-}
	done
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

# net_up ours|linux: load our network driver or Linux's virtio_net, give its interface the
# link-local address 169.254.10.(GUEST+1), and wait until the peer answers. Sets NETDEV, ME, PEER.
net_up() {
	local driver i
	case $1 in
	ours) load_transport && modprobe virtio4_net || fail "loading virtio4_net"
		driver=virtio4_net ;;
	linux) modprobe virtio_pci && modprobe virtio_net || fail "loading virtio_net"
		driver=virtio_net ;;
	esac
	for i in $(seq 100); do
		NETDEV=$(ls /sys/class/net | grep -v '^lo$' | head -n 1)
		[ -n "$NETDEV" ] && break
		sleep 0.1
	done
	[ -n "$NETDEV" ] || fail "no network interface appeared"
	expect_eq "driver of $NETDEV" $driver \
		"$(basename "$(readlink /sys/class/net/$NETDEV/device/driver)")"
	[ "$1" = linux ] || expect_ring_layout
	net_address "$NETDEV"
}

# net_address DEV: give DEV the link-local address 169.254.10.(GUEST+1) and wait until the
# peer answers. Sets ME, PEER.
net_address() {
	ME=169.254.10.$((GUEST + 1))
	PEER=169.254.10.$((2 - GUEST))
	ip addr add "$ME/16" dev "$1" && ip link set "$1" up || fail "configuring $1"
	for _ in $(seq 60); do
		ping -c 1 -W 1 "$PEER" >/dev/null 2>&1 && return 0
	done
	fail "peer $PEER never answered on $1"
}

# ping_count COUNT ARGS...: ping the peer COUNT times; fail unless all answers come back.
ping_count() {
	local n=$1 out
	shift
	out=$(ping -c "$n" "$@" "$PEER" 2>&1 || true)	# a loss is told below, not by sh -e
	echo "$out" | tail -n 2
	expect_eq "answers to $n pings $*" "$n" "$(echo "$out" | answers)"
}

# answers: the number of answers in the summary of the ping output on stdin.
answers() {
	sed -n 's/.* \([0-9]*\) packets received.*/\1/p'
}

# ns_ping_count N COUNT ARGS...: from namespace nsN (see nics_in_namespaces) ping the other
# namespace's NIC COUNT times; fail unless all answers come back.
ns_ping_count() {
	local ns=$1 n=$2 out
	shift 2
	out=$(in_ns ns$ns ping -c "$n" "$@" 169.254.20.$((3 - ns)) 2>&1 || true)
	echo "$out" | tail -n 2
	expect_eq "answers to $n pings $* from ns$ns" "$n" "$(echo "$out" | answers)"
}

# stat_of NAME: one of our driver's ethtool -S counters.
stat_of() {
	ethtool -S "$NETDEV" | sed -n "s/^ *$1: //p"
}

# random_data MIB: MIB MiB in /tmp/data: a random chunk of an odd size (no page or segment
# boundary lines up with its repeats) written over and over (random bytes come slowly on the
# debug kernel: 1 MiB of them, not 64).
random_data() {
	head -c 1048573 /dev/urandom >/tmp/chunk
	for _ in $(seq $(($1 / 4 + 1))); do
		cat /tmp/chunk /tmp/chunk /tmp/chunk /tmp/chunk
	done >/tmp/data
	rm -f /tmp/chunk
	truncate -s $(($1 * 1048576)) /tmp/data
}

# tcp_transfer MIB [SENDER]: guest SENDER (default 0) sends MIB MiB to the other over TCP; each
# end sends the other the sha256 and size of what it holds, and fails unless the peer's equal its
# own and the receiver holds MIB MiB. The data (random_data) is sent from a file in memory and
# received by cat (nc -e): a pipeline of busybox tools with nc between them moved 1 MB/s on the
# debug kernel, this 3-5 MB/s.
tcp_transfer() {
	local bytes=$(($1 * 1048576)) sent=0 mine
	if [ "$GUEST" = "${2:-0}" ]; then
		random_data "$1"
		for _ in $(seq 100); do
			nc "$PEER" 5001 -e cat /tmp/data 2>/dev/null && sent=1 && break
			sleep 0.2
		done
		[ "$sent" = 1 ] || fail "sending $1 MiB over TCP: no transfer completed"
	else
		timeout 600 nc -l -p 5001 -e sh -c 'cat >/tmp/data' || fail "receiving"
		expect_eq "bytes received through TCP" $bytes "$(size_of /tmp/data)"
	fi
	mine="$(sha256sum </tmp/data | cut -d' ' -f1) $(size_of /tmp/data)"
	rm -f /tmp/data
	# Exchange them: each side listens on 5002 + its guest number.
	listen_once $((5002 + GUEST)) >/tmp/peer_sum &
	for _ in $(seq 100); do
		echo "$mine" | nc -w 1 "$PEER" $((5002 + 1 - GUEST)) 2>/dev/null && break
		sleep 0.2
	done
	wait
	expect_eq "sha256 and size of $1 MiB on both ends" "$mine" "$(cat /tmp/peer_sum)"
}

# iperf3_runs: guest 1 serves, guest 0 runs TCP both directions and UDP; each must complete.
iperf3_runs() {
	local args
	if [ "$GUEST" = 1 ]; then
		iperf3 -s -1 -p 5201 >/tmp/iperf.log 2>&1 || fail "iperf3 server: $(tail -n 2 /tmp/iperf.log)"
		iperf3 -s -1 -p 5201 >>/tmp/iperf.log 2>&1 || fail "iperf3 server (reverse)"
		iperf3 -s -1 -p 5201 >>/tmp/iperf.log 2>&1 || fail "iperf3 server (UDP)"
		echo "ok: iperf3 server ran three tests"
		return
	fi
	for args in "" "-R" "-u -b 50M"; do
		for _ in $(seq 50); do
			iperf3 -c "$PEER" -p 5201 -t 2 $args >/tmp/iperf.log 2>&1 && break
			sleep 0.2
		done
		grep -q "iperf Done" /tmp/iperf.log || fail "iperf3 $args: $(tail -n 3 /tmp/iperf.log)"
		echo "ok: iperf3 $args: $(grep -E 'receiver|sender' /tmp/iperf.log | tail -n 1)"
	done
}

# net_e2e ours|linux [both]: the end-to-end network suite, run by both guests of a two-guest
# test, this one on the given driver: 500 pings at 10 ms, full-size and jumbo frames, a TCP
# transfer with matching sha256 (256 MiB; 32 MiB on the debug kernel) from guest 0 to guest 1
# (with "both", then another back), iperf3.
net_e2e() {
	local mib
	net_up "$1"
	peer_barrier "$PEER"
	ping_count 500 -i 0.01
	ping_count 20 -i 0.05 -s 1472
	ip link set "$NETDEV" mtu 9000 || fail "MTU 9000"
	peer_barrier "$PEER"
	ping_count 20 -i 0.05 -s 8972
	peer_barrier "$PEER"
	mib=$(by_kernel 256 32)
	tcp_transfer $mib
	peer_barrier "$PEER"
	if [ "${2:-}" = both ]; then
		tcp_transfer $mib 1
		peer_barrier "$PEER"
	fi
	iperf3_runs
	peer_barrier "$PEER"
}

# kmemleak_start: note the time (in jiffies, as kmemleak's report gives it), so that only what
# this test allocates counts (debug kernel; nothing to do where kmemleak is absent). What boot
# left behind is told apart by its time.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_start() {
	[ -e $KMEMLEAK ] || return 0
	KMEMLEAK_J0=$(jiffies_now)
	[ -n "$KMEMLEAK_J0" ] || fail "no jiffies in /proc/timer_list"
}

# jiffies_now: the kernel's jiffies (from /proc/timer_list).
jiffies_now() {
	sed -n 's/^jiffies: //p' /proc/timer_list | head -n 1
}

# kmemleak_check: fail if kmemleak reports an object allocated since kmemleak_start. An
# object is reported only by a scan that starts 5 s or more after its allocation and finds it
# unreferenced and unchanged since the scan before: two scans, the second 5.2 s or more after
# now (a scan takes 2.4-3.6 s on the debug kernel under TCG with 512 MiB: a sleep between).
# In a boot shared by several tests (VIRTIO4_SHARED_BOOT, from /init) the check waits for the end
# of the boot, where kmemleak_check_later makes it once for all of them.
kmemleak_check() {
	local leaks
	[ -e $KMEMLEAK ] || return 0
	[ -n "${KMEMLEAK_J0:-}" ] || fail "kmemleak_check without kmemleak_start"
	if [ -n "${VIRTIO4_SHARED_BOOT:-}" ]; then
		echo "$TEST $KMEMLEAK_J0" >>/run/virtio4/kmemleak-later
		echo "ok: kmemleak: checked at the end of this shared boot"
		return 0
	fi
	kmemleak_scan_twice || fail "kmemleak refused a scan"
	leaks=$(kmemleak_since "$KMEMLEAK_J0" <$KMEMLEAK)
	[ -z "$leaks" ] || { echo "$leaks" | head -n 30; fail "kmemleak found leaks"; }
	echo "ok: kmemleak found nothing"
}

# exits_meanwhile N: N children started in the background that exit one every 0.25 s, so that
# the shell (or /init, once this shell has exited and left them to it) is told of an exit
# (SIGCHLD) every 0.25 s for N/4 s. For the self-test of kmemleak_scan.
exits_meanwhile() {
	local i
	for i in $(seq "$1"); do
		sleep "$((i / 4)).$((i % 4 * 25))" &
	done
}

# kmemleak_scan: one scan, made by a process of its own that has no children. A signal pending
# for the process that asks for a scan ends it early, silently, with nothing reported: a shell
# is told of each exit of a child (SIGCHLD; /init of every orphan's), and children exiting
# during two scans hid eight leaked objects (the self-tests' exits_meanwhile).
kmemleak_scan() {
	sh -c 'echo scan >"$1"' sh "$KMEMLEAK"
}

# kmemleak_scan_twice: the two scans that make kmemleak report what is leaked now; fails if
# kmemleak refuses one (it turns itself off after an error of its own).
kmemleak_scan_twice() {
	local t1 t2
	t1=$(cut -d ' ' -f 1 /proc/uptime)
	kmemleak_scan || return 1
	t2=$(cut -d ' ' -f 1 /proc/uptime)
	sleep "$(awk -v a="$t1" -v b="$t2" 'BEGIN { d = 5.2 - (b - a); printf "%.2f", (d > 0 ? d : 0) }')"
	kmemleak_scan || return 1
}

# kmemleak_check_later STARTED LATER: the kmemleak checks of a shared boot's tests, made once
# (/init, after the last test). STARTED has "TEST JIFFIES" for each test run, from its start;
# LATER "TEST J0" for each test whose kmemleak_check waited. An object allocated by a test
# that checks, after its J0, is that test's leak: its records are printed under the line
# "virtio4: kmemleak: leaks of test 'TEST'" (the runner files them with that test's console,
# where "unreferenced object" fails it) and its verdict becomes "leaks". If kmemleak refuses
# to scan, every test that waited gets the verdict "kmemleak-refused". The last line,
# "virtio4: kmemleak: checked ...", ends the report.
kmemleak_check_later() {
	local started=$1 later=$2 j0 t
	j0=$(awk 'NR == 1 || $2 < m { m = $2 } END { print m }' "$later")
	if ! kmemleak_scan_twice || ! cat $KMEMLEAK >/run/virtio4/kmemleak-report; then
		for t in $(cut -d ' ' -f 1 "$later" | sort -u); do
			echo "VIRTIO4-VERDICT $t kmemleak-refused" >/dev/ttyS1
		done
		echo "virtio4: kmemleak: checked nothing: it refused to scan"
		return
	fi
	# Each record goes to the test it is charged to, if any (owner: records older than every
	# J0 go to none).
	awk -v started="$started" -v later="$later" '
		BEGIN {
			while ((getline l < started) > 0) { split(l, f, " "); n++; name[n] = f[1]; from[n] = f[2] }
			# A test that checked twice: its first J0.
			while ((getline l < later) > 0) {
				split(l, f, " ")
				if (!(f[1] in j0) || f[2] + 0 < j0[f[1]] + 0)
					j0[f[1]] = f[2]
			}
		}
		# owner(J): the test that ran at jiffies J, if it checks and J is after its J0.
		function owner(j,   i, t) {
			for (i = 1; i <= n; i++)
				if (from[i] + 0 <= j + 0)
					t = name[i]
			return (t in j0 && j + 0 >= j0[t] + 0) ? t : ""
		}
		/^unreferenced object/ { flush(); rec = "" }
		{ rec = rec $0 "\n" }
		/^  comm .*, jiffies [0-9]+/ { who = owner($NF) }
		function flush() { if (who != "") printf "virtio4: kmemleak: leaks of test %c%s%c\n%s", 39, who, 39, rec; who = "" }
		END { flush() }' /run/virtio4/kmemleak-report >/run/virtio4/kmemleak-found
	cat /run/virtio4/kmemleak-found
	for t in $(sed -n "s/^virtio4: kmemleak: leaks of test '\(.*\)'$/\1/p" /run/virtio4/kmemleak-found | sort -u); do
		echo "VIRTIO4-VERDICT $t leaks" >/dev/ttyS1
	done
	echo "virtio4: kmemleak: checked the tests of this boot since jiffies $j0"
}

# kmemleak_since J0 <REPORT: the records of a kmemleak report ("unreferenced object ...", then
# '  comm "...", pid N, jiffies J') of objects allocated at jiffies J0 or later.
kmemleak_since() {
	awk -v j0="$1" '
		/^unreferenced object/ { if (keep) printf "%s", rec; rec = ""; keep = 0 }
		{ rec = rec $0 "\n" }
		/^  comm .*, jiffies [0-9]+/ { if ($NF + 0 >= j0 + 0) keep = 1 }
		END { if (keep) printf "%s", rec }'
}

# expect_log WHAT PATTERN: the kernel logged a line matching PATTERN (grep -E) since the last
# dmesg -c.
expect_log() {
	local line
	line=$(dmesg | grep -E -m 1 "$2") || fail "$1: no log line matching '$2'"
	echo "ok: $1: $line"
}

# expect_refused MODULE PARAM=VALUE LOG: modprobe fails with EINVAL, the kernel says LOG, and the
# module says nothing else (modprobe may try the load more than once: LOG once per try).
expect_refused() {
	local said
	dmesg -c >/dev/null
	if modprobe "$1" "$2" 2>/tmp/modprobe.err; then
		fail "modprobe $1 $2 succeeded"
	fi
	grep -q "Invalid argument" /tmp/modprobe.err || fail "modprobe $1 $2: $(cat /tmp/modprobe.err)"
	said=$(dmesg | grep "$1: " | sed 's/^\[[ 0-9.]*\] //' | sort -u)
	expect_eq "what $1 logged for $2" "$1: $3" "$said"
}

# stop_host [LEFT]: kill the device host (HOST_PID); its devices must leave the bus, where
# LEFT devices (default 0, others than the host's) remain.
stop_host() {
	local left=${1:-0}
	kill "$HOST_PID" 2>/dev/null || true	# it may have gone already
	wait "$HOST_PID" 2>/dev/null || true
	for _ in $(seq 100); do
		[ "$(ls /sys/bus/virtio4/devices | wc -l)" = "$left" ] && break
		sleep 0.1
	done
	expect_eq "devices left on the virtio4 bus" "$left" "$(ls /sys/bus/virtio4/devices | wc -l)"
}

# hostile_blk MODE LOG_PATTERN [LIMIT]: a device host that misbehaves (--misbehave MODE:64, after
# 64 good completions, so the probe's reads succeed) under a 2 s request timeout: 16 MiB of direct
# writes must fail within LIMIT s (5 by default), the kernel must say why (LOG_PATTERN), the disk must go away with
# its host and the modules unload, and kmemleak must find nothing. Prints the seconds taken.
hostile_blk() {
	local mode=$1 pattern=$2 limit=${3:-5} start took
	kmemleak_start
	modprobe virtio4_copy && modprobe virtio4_blk || fail "loading virtio4_copy, virtio4_blk"
	truncate -s 64M /tmp/disk.img
	dmesg -c >/dev/null
	serve_blk /tmp/disk.img --misbehave "$mode:64"
	echo 2000 >/sys/block/v4blk0/queue/io_timeout || fail "setting io_timeout"
	start=$(date +%s)
	if dd if=/dev/urandom of=/dev/v4blk0 bs=64k count=256 oflag=direct 2>/tmp/dd.err; then
		fail "16 MiB written through a device host that misbehaves ($mode)"
	fi
	took=$(($(date +%s) - start))
	echo "ok: the writes failed after $took s: $(tail -n 1 /tmp/dd.err)"
	[ "$took" -le "$limit" ] || fail "the I/O took $took s to fail (at most $limit)"
	expect_log "the kernel's reason" "$pattern"
	dd if=/dev/v4blk0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &&
		fail "a read succeeded on a disk given up"
	echo "ok: later I/O fails at once"
	stop_host
	[ ! -e /dev/v4blk0 ] || fail "/dev/v4blk0 is still there"
	rmmod virtio4_blk && rmmod virtio4_copy || fail "unloading virtio4_blk, virtio4_copy"
	kmemleak_check
}

# round_trip KIB WHAT [DISK]: write KIB KiB of random data to the start of DISK (/dev/v4blk0 by
# default; direct I/O, 64 KiB requests), read it back and compare; fail naming WHAT otherwise.
round_trip() {
	local disk=${3:-/dev/v4blk0}
	head -c $(($1 * 1024)) /dev/urandom >/tmp/rt.out
	dd if=/tmp/rt.out of="$disk" bs=64k oflag=direct 2>/dev/null || fail "writing ($2)"
	dd if="$disk" of=/tmp/rt.in bs=64k count=$(($1 / 64)) iflag=direct 2>/dev/null ||
		fail "reading back ($2)"
	cmp /tmp/rt.out /tmp/rt.in || fail "$1 KiB did not round-trip ($2)"
}

# expect_disk_gone: wait up to 10 s for /dev/v4blk0 to go; fail unless it went and no device is
# left on the virtio4 bus.
expect_disk_gone() {
	for _ in $(seq 100); do
		[ -e /dev/v4blk0 ] || break
		sleep 0.1
	done
	[ ! -e /dev/v4blk0 ] || fail "/dev/v4blk0 is still there"
	expect_eq "devices left on the virtio4 bus" 0 "$(ls /sys/bus/virtio4/devices | wc -l)"
}

# interfaces_of DRIVER: the interfaces (of this network namespace) DRIVER drives, one per line.
interfaces_of() {
	local d
	for d in /sys/class/net/*; do
		if [ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = "$1" ]; then
			basename "$d"
		fi
	done
}

# our_interfaces: the interfaces virtio4_net drives, one per line.
our_interfaces() {
	interfaces_of virtio4_net
}

# our_new_interface WHAT [TENTHS]: wait (default 10 s) for an interface of virtio4_net, which
# WHAT brought, and reach the peer through it (net_address). Sets NETDEV.
our_new_interface() {
	for _ in $(seq "${2:-100}"); do
		NETDEV=$(our_interfaces | head -n 1)
		[ -n "$NETDEV" ] && break
		sleep 0.1
	done
	[ -n "$NETDEV" ] || fail "no interface of virtio4_net after $1"
	echo "ok: $NETDEV is on virtio4_net after $1"
	net_address "$NETDEV"
}

# net_up_beside_linux: our NIC at 00:04.0 and a peer NIC at 00:05.0 on Linux's virtio_net (the
# test puts both on one QEMU hub), steered with driver_override. The peer's interface goes to
# network namespace "peer" as 169.254.10.2 (PEER; its interface PEER_DEV); ours stays here as
# 169.254.10.1 (ME, NETDEV). Returns once the peer answers.
net_up_beside_linux() {
	echo virtio4-pci >/sys/bus/pci/devices/0000:00:04.0/driver_override
	echo virtio-pci >/sys/bus/pci/devices/0000:00:05.0/driver_override
	modprobe virtio_pci && modprobe virtio_net || fail "loading Linux's virtio_net"
	modprobe virtio4_pci && modprobe virtio4_net || fail "loading virtio4_net"
	for _ in $(seq 100); do
		NETDEV=$(our_interfaces | head -n 1)
		PEER_DEV=$(interfaces_of virtio_net | head -n 1)
		[ -n "$NETDEV" ] && [ -n "$PEER_DEV" ] && break
		sleep 0.1
	done
	[ -n "$NETDEV" ] && [ -n "$PEER_DEV" ] ||
		fail "interfaces: ours '$NETDEV', Linux's '$PEER_DEV'"
	mkdir -p /run/netns
	move_to_ns "$PEER_DEV" peer 169.254.10.2/16 || fail "moving $PEER_DEV to namespace peer"
	echo "ok: $NETDEV on virtio4_net here, $PEER_DEV on virtio_net in namespace peer"
	net_address "$NETDEV"
}

# linux_peer_down: the end of a test that used net_up_beside_linux: Linux's virtio_net unloaded
# and the peer's namespace deleted, so that the guest's "reboot -f" never shuts down a NIC that
# Linux's 6.1 driver still holds after a flood (once in a full make check, after the verdict of
# net-updown-rmmod, its NAPI spun in free_old_xmit_skbs while the reboot's device shutdown ran:
# a soft lockup in Linux's driver, not ours).
linux_peer_down() {
	rmmod virtio_net || fail "unloading Linux's virtio_net"
	ns_delete peer || fail "deleting namespace peer"
}

# peer_ping_count COUNT ARGS...: from namespace "peer" (net_up_beside_linux) ping our NIC COUNT
# times; fail unless all answers come back.
peer_ping_count() {
	local n=$1 out
	shift
	out=$(in_ns peer ping -c "$n" "$@" "$ME" 2>&1 || true)
	echo "$out" | tail -n 2
	expect_eq "answers to $n pings $* from the peer" "$n" "$(echo "$out" | answers)"
}

# iproute2's ip (busybox sh would run its own applet for a plain "ip"). It is dynamically
# linked: each start costs 0.4 s on the debug kernel under TCG (1-1.5 s with another guest
# beside it), against 30 ms for a busybox applet. Loops use in_ns and busybox's ip instead;
# several changes go in one "$IP -batch -".
IP=/usr/sbin/ip

# in_ns NS COMMAND...: COMMAND in network namespace NS (one made by "$IP netns add"), entered
# with busybox's nsenter. Unlike "$IP netns exec", /sys stays the initial namespace's: read a
# moved interface's sysfs files with "$IP netns exec", or its counters from /proc/net.
in_ns() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" "$@"
}

# serve_net_pair [OPTIONS]: a device host joining two of our NICs back to back (virtio4-host
# net-pair OPTIONS; what it prints goes to /tmp/net-pair.out), each moved into its own network
# namespace: nsN holds NIC_N with addresses 169.254.20.N/16 and fe80::N/64 (N = 1, 2). Sets
# HOST_PID, NIC_1 and NIC_2.
serve_net_pair() {
	virtio4-host net-pair "$@" >/tmp/net-pair.out &
	HOST_PID=$!
	nics_in_namespaces
}

# rss_key_of N: NIC_N's RSS key as ethtool -x shows it, in hex without colons (as the device
# host's rss_key counter prints it).
rss_key_of() {
	eval "in_ns ns$1 ethtool -x \$NIC_$1" |
		awk 'key { gsub(":", ""); print; exit } /^RSS hash key:/ { key = 1 }'
}

# nic_mac N: NIC_N's MAC address.
nic_mac() {
	eval "in_ns ns$1 busybox ip -o link show dev \$NIC_$1" |
		sed -n 's|.*link/ether \([0-9a-f:]*\).*|\1|p'
}

# net_pair_device N: the device host's name (net0, net1) of the device behind NIC_N, by its
# MAC (02:00:00:00:04:0M for device netM-1).
net_pair_device() {
	local mac
	mac=$(nic_mac "$1")
	echo net$((${mac##*:} - 1))
}

# nic_stat N NAME: the ethtool -S counter NAME of NIC_N in namespace nsN.
nic_stat() {
	nic_stats "$1" | sed -n "s/^ *$2: //p"
}

# channels N: "MAX CURRENT" combined channels of NIC_N (ethtool -l).
channels() {
	eval "in_ns ns$1 ethtool -l \$NIC_$1" | awk '/^Combined:/ { printf "%s%s", sep, $2; sep = " " }'
}

# nic_stats N: NIC_N's ethtool -S, all of it (one snapshot of every counter).
nic_stats() {
	eval "in_ns ns$1 ethtool -S \$NIC_$1"
}

# expect_pair_stat N FIELD OP VALUE [FIELD OP VALUE]...: the device host's counters for NIC_N's
# device (one snapshot, net_pair_stat), each FIELD compared so with its VALUE (test's OP: -eq,
# -gt, ...).
expect_pair_stat() {
	local n=$1 line v
	shift
	line=$(net_pair_stat "$n")
	while [ $# -ge 3 ]; do
		v=$(echo "$line" | awk -v f="$1" '{ for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }')
		[ -n "$v" ] && [ "$v" "$2" "$3" ] ||
			fail "device host: $1 of NIC_$n's device is '$v', not $2 $3"
		echo "ok: $1 of NIC_$n's device: $v ($2 $3)"
		shift 3
	done
}

# net_pair_stat N [FIELD]: a counter of the device host's (net_stats in
# tools/virtio4-host/net.c) for the device behind NIC_N (net_pair_device), asked for with
# SIGUSR1; without FIELD, the device's whole line of counters.
net_pair_stat() {
	net_device_stat "$(net_pair_device "$1")" "${2:-}"
}

# net_device_stat DEV [FIELD]: net_pair_stat for the device host's device DEV (net0, net1).
net_device_stat() {
	local dev=$1 before
	before=$(grep -c "^$dev: " /tmp/net-pair.out || true)
	kill -USR1 "$HOST_PID"
	for _ in $(seq 50); do
		[ "$(grep -c "^$dev: " /tmp/net-pair.out)" -gt "$before" ] && break
		sleep 0.1
	done
	[ "$(grep -c "^$dev: " /tmp/net-pair.out)" -gt "$before" ] ||
		fail "the device host printed no counters for $dev on SIGUSR1"
	grep "^$dev: " /tmp/net-pair.out | tail -n 1 |
		awk -v f="${2:-}" '
			f == "" { print; next }
			{ for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }'
}

# ns_delete NS...: delete the network namespaces NS (one start of iproute2's ip).
ns_delete() {
	local ns
	for ns in "$@"; do
		echo "netns del $ns"
	done | $IP -batch -
}

# move_to_ns DEV NS ADDRESS...: a new network namespace NS, DEV moved into it with the
# ADDRESSes (IPv6 ones without duplicate address detection) and up, lo up there too. Two
# starts of iproute2's ip (see IP).
move_to_ns() {
	local dev=$1 ns=$2 a
	shift 2
	mkdir -p /run/netns
	printf 'netns add %s\nlink set %s netns %s\n' "$ns" "$dev" "$ns" | $IP -batch - || return 1
	{
		echo "link set lo up"
		for a in "$@"; do
			case $a in
			*:*) echo "addr add $a dev $dev nodad" ;;
			*) echo "addr add $a dev $dev" ;;
			esac
		done
		echo "link set $dev up"
	} | $IP -n "$ns" -batch -
}

# nics_in_namespaces: wait for two interfaces of virtio4_net and move each into its own network
# namespace: nsN holds NIC_N with addresses 169.254.20.N/16 and fe80::N/64 (N = 1, 2). Sets
# NIC_1 and NIC_2.
nics_in_namespaces() {
	local ifs i=1 dev
	for _ in $(seq 100); do
		[ "$(our_interfaces | wc -l)" = 2 ] && break
		sleep 0.1
	done
	ifs=$(our_interfaces)
	expect_eq "interfaces of virtio4_net" 2 "$(echo "$ifs" | wc -l)"
	expect_ring_layout
	mkdir -p /run/netns
	for dev in $ifs; do
		move_to_ns "$dev" ns$i 169.254.20.$i/16 fe80::$i/64 || fail "moving $dev to ns$i"
		echo "ok: $dev is 169.254.20.$i in ns$i"
		eval NIC_$i="$dev"
		i=$((i + 1))
	done
}

# feature_bit DEV BIT: 1 if our device DEV (virtio4.N) negotiated feature BIT, else 0.
feature_bit() {
	echo $(( $(cat /sys/bus/virtio4/devices/$1/features) >> $2 & 1 ))
}

# expect_ring_layout: each of our PCI devices negotiated the ring layout this run is for: with
# RING=packed (make check's NAME@packed runs) VIRTIO_F_RING_PACKED (bit 34), otherwise not.
# On TRANSPORT=mmio, each of our virtio-mmio devices was found in ACPI (LNRO0005) and negotiated
# VIRTIO_F_VERSION_1 (bit 32); on mmio-legacy, each came from the device= parameter and did not
# (a version 1 device cannot); both the split ring. A device no driver of ours has probed yet
# (no driver, and no DRIVER bit in its status: a refused one keeps it) negotiated nothing and
# is left for a later call. Called where the helpers load our
# shared-memory transports; with RING=packed or TRANSPORT=mmio*, fails if there is no such
# device (the run would prove nothing).
expect_ring_layout() {
	local d n=0 want=0 v1=1 found=LNRO0005
	[ "${RING:-split}" = packed ] && want=1
	[ "${TRANSPORT:-pci}" = mmio-legacy ] && v1=0 found=virtio4-mmio
	for d in /sys/bus/virtio4/devices/*; do
		[ -e "$d/driver" ] || [ $(($(cat "$d/status") & 2)) != 0 ] || continue
		case $(readlink -f "$d") in
		*/pci*) ;;
		*/virtio4-mmio.* | */LNRO0005:*)
			expect_eq "how ${d##*/} was found on ${TRANSPORT:-pci}" $found \
				"$(basename "$(readlink -f "$d/..")" | sed 's/[.:].*//')"
			expect_eq "VIRTIO_F_VERSION_1 negotiated by ${d##*/} on ${TRANSPORT:-pci}" \
				$v1 "$(feature_bit "${d##*/}" 32)" ;;
		*) continue ;;
		esac
		expect_eq "VIRTIO_F_RING_PACKED negotiated by ${d##*/} (RING=${RING:-split})" \
			$want "$(feature_bit "${d##*/}" 34)"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { [ "$want" = 0 ] && [[ ${TRANSPORT:-pci} != mmio* ]]; } ||
		fail "no device of ours on PCI or virtio-mmio to check the ring layout of"
}

# lines_of DEV: the /proc/interrupts lines of our device DEV (virtio4.N), by name (a vector's
# own, or an INTx line it shares: "virtio4.0, virtio4.1").
lines_of() {
	grep -c " $1\(-\|$\|,\)" /proc/interrupts
}

# ns_state: what to look at when a transfer between the namespaces stalls: both NICs' counters
# and our queues' debugfs state.
ns_state() {
	local i
	for i in 1 2; do
		eval "in_ns ns$i ethtool -S \$NIC_$i" | grep -v ': 0$'
	done
	grep -H . /sys/kernel/debug/virtio4/*/* 2>/dev/null | grep -vE ':(0|size .*)$'
}

# ns_transfer MIB [SECONDS] [FROM] [6]: MIB MiB of random data (random_data) from nsFROM
# (default ns1) to the other namespace over TCP (see nics_in_namespaces; over IPv6 with "6"),
# within SECONDS (default 120); fail unless the sha256 matches. The receiver hashes what it
# reads as it comes (make soak's 256 MiB would not fit twice in a guest's tmpfs).
ns_transfer() {
	local listener secs=${2:-120} from=${3:-1} to addr
	to=$((3 - from))
	addr=169.254.20.$to
	[ "${4:-}" = 6 ] && addr=fe80::$to%$(eval echo \$NIC_$from)
	random_data "$1"
	in_ns ns$to timeout "$secs" nc -l -p 5001 -e sh -c 'sha256sum >/tmp/received' &
	listener=$!
	# Listening: port 5001 (1389 in hex) in state 0A in the receiver's /proc/net/tcp6 (nc -e
	# listens on IPv6, which takes IPv4 too) or tcp.
	for _ in $(seq 100); do
		in_ns ns$to cat /proc/net/tcp6 /proc/net/tcp | grep -q ':1389 [0-9A-F:]* 0A' &&
			break
		sleep 0.1
	done
	if ! in_ns ns$from timeout "$secs" nc "$addr" 5001 -e cat /tmp/data; then
		ns_state
		fail "sending $1 MiB from ns$from to $addr (stalled?)"
	fi
	wait $listener || fail "receiving $1 MiB in ns$to"
	expect_eq "sha256 of $1 MiB from ns$from to $addr" "$(sha256sum </tmp/data | cut -d' ' -f1)" \
		"$(cut -d' ' -f1 /tmp/received)"
	rm -f /tmp/data /tmp/received
}

# ns_reach N [ADDRESS]: wait (30 tries, 1 s each at most) until namespace nsN reaches ADDRESS
# (default: the other namespace's IPv4 address; see nics_in_namespaces), as a link comes up;
# fails if it never does.
ns_reach() {
	local addr=${2:-169.254.20.$((3 - $1))}
	for _ in $(seq 30); do
		in_ns ns$1 ping -c 1 -W 1 "$addr" >/dev/null 2>&1 && return 0
	done
	ns_state
	fail "ns$1 never reached $addr (30 pings)"
}

# ns_traffic [MIB]: once ns1 reaches ns2 (see nics_in_namespaces), 100 pings each way at 10 ms
# without a loss and MIB (default 4) MiB from ns1 to ns2 over TCP with matching sha256.
ns_traffic() {
	ns_reach 1
	ns_ping_count 1 100 -i 0.01
	ns_ping_count 2 100 -i 0.01
	ns_transfer "${1:-4}"
}

# cpus_and_queues: the guest's CPU count against its devices' queues and vectors (tests
# cpus-1 and cpus-4). v4blk0's device has 2 request queues, v4blk1's has 4 but only 3 MSI-X
# vectors (a vector per queue would take 5: one shared vector then). Each disk gets
# min(CPUs, queues) hardware queues that together serve every CPU; one fio job per CPU, pinned
# to it, verifies its own 8 MiB of each disk, and no request waits for its timeout (a lost
# interrupt, which the driver would recover by polling); two NICs in namespaces exchange 100 pings each
# way and 4 MiB over TCP.
cpus_and_queues() {
	local cpus d q want mapped out bad
	cpus=$(grep -c ^processor /proc/cpuinfo)
	echo "guest CPUs: $cpus"
	load_virtio4_blk
	wait_for_disk v4blk1
	for d in 0:2 1:4; do
		q=${d#*:} d=v4blk${d%:*}
		want=$((cpus < q ? cpus : q))
		expect_eq "hardware queues of $d ($q on the device, $cpus CPUs)" "$want" \
			"$(ls /sys/block/$d/mq | wc -l)"
		mapped=$(cat /sys/block/$d/mq/*/cpu_list | tr ', ' '\n\n' | grep . | sort -n | tr '\n' ' ')
		expect_eq "CPUs mapped to $d's queues" "$(seq -s ' ' 0 $((cpus - 1))) " "$mapped"
	done
	grep virtio4 /proc/interrupts
	d=$(basename "$(readlink /sys/block/v4blk1/device)")
	# 3 vectors: config + one per queue for up to 2 queues, else config + one shared.
	expect_eq "MSI-X lines of v4blk1's device $d (it has 3 vectors)" 2 "$(lines_of "$d")"
	[ "$cpus" -le 2 ] || expect_eq "per-queue lines of $d with $cpus queues" 0 \
		"$(grep -c " $d-requests" /proc/interrupts)"
	out=$(fio --ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=16 --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --randrepeat=0 --numjobs="$cpus" --size=8M \
		--offset_increment=8M --cpus_allowed="0-$((cpus - 1))" --cpus_allowed_policy=split \
		--output-format=terse --terse-version=3 \
		--name=a --filename=/dev/v4blk0 --name=b --filename=/dev/v4blk1 2>&1) ||
		fail "fio: $out"
	# terse v3: field 3 is the job, 5 its error, 47 the KiB it wrote.
	expect_eq "fio jobs (one per CPU and disk)" $((2 * cpus)) "$(echo "$out" | grep -c '^3;')"
	bad=$(echo "$out" | awk -F';' '/^3;/ && ($5 != 0 || $47 < 8192) { print $3 ": error " $5 ", " $47 " KiB" }')
	[ -z "$bad" ] || fail "fio jobs: $bad"
	# The driver completes a request whose interrupt never came by polling once it is late:
	# the data survives, so only its log line shows the lost interrupt.
	! dmesg | grep -E "interrupt was missed|request is late" ||
		fail "a request waited for its timeout on a healthy device"
	echo "ok: $((2 * cpus)) fio jobs wrote and verified 8 MiB each"
	modprobe virtio4_net || fail "modprobe virtio4_net"
	nics_in_namespaces
	ns_traffic
}

# fio_start DISK: random writes on DISK for up to 120 s in the background (FIO_PID; its report in
# /tmp/fio.log), each block read back and checked (crc32c) within 64 writes of being written; the
# first mismatch ends fio (EILSEQ). Fails if fio ends within 5 s.
fio_start() {
	fio --name=background --filename="$1" --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 \
		--direct=1 --time_based --runtime=120 --verify=crc32c --verify_backlog=64 \
		--verify_fatal=1 --eta=never --output=/tmp/fio.log >/dev/null 2>&1 &
	FIO_PID=$!
	sleep 5
	kill -0 $FIO_PID || fail "fio ended within 5 s: $(cat /tmp/fio.log)"
}
