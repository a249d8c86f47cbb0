#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the guest(s) one test asks for, on one kernel, and judge them.
# Usage: run.sh KIND TEST.sh      (KIND: stock or debug; INTERACTIVE=1 gives a shell)
#        run.sh KIND A.sh B.sh ...  tests that share one boot (make check; see "Shared boots")
#
# A test file declares what it needs in comment lines:
#   # timeout: 90            seconds for the whole run (default 90; VIRTIO4_TIMEOUT= overrides)
#   # guests: 2              two guests joined by a wire: netdev "wire" (-netdev socket on 127.0.0.1)
#   # boots: 2               boot one guest again on the same $WORK ($BOOT in the guest: 0, 1)
#   # smp: 4                 vCPUs per guest (default 2; the debug kernel has at most 4); more
#                            than the host has cores run in turn on one host thread (TCG's
#                            round-robin mode), so that such a guest takes one core
#   # memory: 1G             guest memory (default 512M on the debug kernel, 1G on stock)
#   # qemu: -device ...      extra QEMU arguments ($WORK, the test's work dir, and $GUEST expand)
#   # pci-hotplug: REASON    the guest's firmware offers ACPI PCI hot-plug (QMP device_add and
#                            device_del need it); without it the PCI slots are not hot-pluggable,
#                            which saves 1-1.5 s of the debug kernel's boot (ACPI tables and slots)
#   # append: PARAM ...     extra kernel command line parameters
#   # setup: truncate ...    a host command run before boot (in $WORK)
#   # host: ./script         a host command run beside the guests ($QMP0, $QMP1: their QMP sockets)
#   # transports: pci copy   check.sh runs the test once per transport, TRANSPORT=copy for the
#                            copying one ($TRANSPORT in the guest; results named NAME@copy)
#   # rings: split packed    check.sh also runs the test on the debug kernel (on the stock one
#                            for a test whose kernels line names only it) with TRANSPORT=packed:
#                            PCI, QEMU's virtio-blk-pci and virtio-net-pci offering the packed
#                            ring ($TRANSPORT pci and $RING packed in the guest; NAME@packed)
#   # mmio: modern legacy    check.sh also runs the test on the debug kernel over virtio-mmio, on
#                            QEMU's microvm machine: TRANSPORT=mmio (version 2 devices, found by
#                            ACPI) and TRANSPORT=mmio-legacy (version 1, named on the kernel
#                            command line); the test's virtio-blk-pci and virtio-net-pci become
#                            virtio-blk-device and virtio-net-device, on the machine's virtio-mmio
#                            slots; NAME@mmio, NAME@mmio-legacy
#
#   # pin-guests: REASON     each guest's QEMU on a host CPU of its own (taskset: guest N on
#                            CPU N modulo the CPUs), so that two guests never share one CPU
#                            while the other idles (the network benchmark)
#   # alone: REASON          make check runs it with no other guest beside it
#   # time-bound: REASON     make check runs such tests one at a time, with at most one other
#                            guest beside each (a time bound in a guest that keeps to one core)
#   # own-boot: REASON       the test needs a boot of its own: make check never runs it in a
#                            shared boot (tests with no directive but "# kernels:",
#                            "# transports:" and "# timeout:" share boots: check.sh's
#                            shares_boot; each runs under its own timeout there)
#   # boot-stall: SECONDS    a guest whose kernel has not run /init this long after QEMU
#                            started is stopped, and the boot made again once (default 60)
#   # qemu-stderr: PATTERN   a line QEMU may print to stderr in this test (grep -E)
#   # console-ok: PATTERN    a kernel report this test may cause (awk): a console line matching
#                            it is left out with the stack dump after it (up to "</TASK>")
#
# A boot that stalls before /init (no module of ours loaded yet: the guest kernel's own boot
# under TCG) is made again once, said on stderr and in $WORK/boot-retries; a second stall fails.
# The verdict of a guest is the line its /init writes to the second serial port after the test.
# A test passes only if every guest wrote "exit=0", none timed out, no console shows a
# kernel report (Oops, BUG, WARNING, KASAN, UBSAN, lockdep, hung task, soft lockup, panic),
# every QEMU exited with status 0 and none printed anything to stderr but the lines allowed
# (a hub without a host network, and the test's own "# qemu-stderr:" patterns).
# Prints one line "pass|fail NAME [reason]" per result (KUnit cases too) to stdout and to
# $WORK/results. Exit status: 0 if the test passed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kind=$1
shift
test_files=()
for f in "$@"; do
	test_files+=("$(realpath "$f")")
done
test_file=${test_files[0]}
test_name=$(basename "$test_file" .sh)
TRANSPORT=${TRANSPORT:-pci}
suffix=
[ "$TRANSPORT" = pci ] || suffix="@$TRANSPORT"
name=$test_name$suffix
# Results under build/results/KIND/NAME (VIRTIO4_RESULTS= moves build/results). A shared boot's
# own files (its whole consoles) go beside its tests' directories.
WORK="${VIRTIO4_RESULTS:-$build/results}/$kind/$name"
[ ${#test_files[@]} = 1 ] || WORK="${VIRTIO4_RESULTS:-$build/results}/$kind/boot.$name"
export WORK

case "$kind" in
stock)
	kernel=$(stock_kernel_image)
	;;
debug)
	kernel=$(debug_kernel_dir)/arch/x86/boot/bzImage
	;;
*) echo "usage: run.sh stock|debug TEST.sh" >&2; exit 2 ;;
esac
initrd="$build/$kind/initramfs.cpio"

# What QEMU may print to stderr in any test: a hub (a NIC test's) with no host network.
qemu_stderr_ok='warning: hub [0-9]+ is not connected to host network'
bad_patterns='Oops|BUG:|kernel BUG at|WARNING:|KASAN:|UBSAN:|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|blocked for more than|soft lockup|rcu_.* stall|Kernel panic|unreferenced object|general protection fault|Call Trace:'

directive() {
	sed -n "s/^# $1: //p" "$test_file"
}

while IFS= read -r line; do
	[ -n "$line" ] && qemu_stderr_ok+="|$line"
done < <(directive qemu-stderr)
timeout_s=0
for f in "${test_files[@]}"; do
	timeout_s=$((timeout_s + $(timeout_of "$f")))
done
timeout_s=${VIRTIO4_TIMEOUT:-$timeout_s}
guests=$(directive guests | tail -n 1)
guests=${guests:-1}
boots=$(directive boots | tail -n 1)
boots=${boots:-1}
smp=$(directive smp | tail -n 1)
smp=${smp:-2}
# More vCPUs than cores take one host thread (lib.sh's vcpu_threads).
accel=tcg
[ "$(vcpu_threads "$smp")" = "$smp" ] || accel=tcg,thread=single
# Memory: a kmemleak scan reads all of it, 0.7 s a scan more at 1G than at 512M on the debug
# kernel (3.1 s at 512M), and its boot is shorter; stock keeps room for its 256 MiB TCP
# transfers.
memory=$(directive memory | tail -n 1)
[ "$kind" = debug ] && memory=${memory:-512M}
memory=${memory:-1G}

rm -rf "$WORK"
mkdir -p "$WORK"
if [ -n "$(directive setup)" ]; then
	(cd "$WORK" && eval "$(directive setup)") >"$WORK/setup.log" 2>&1 ||
		{ echo "fail $name setup failed: $(tail -n 1 "$WORK/setup.log")" | tee "$WORK/results"; exit 1; }
fi

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmdline="console=ttyS0,115200 acpi=noirq panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1"
ring_args=() machine=
case $TRANSPORT in
packed)
	cmdline+=" hung_task_panic=1 virtio4_transport=pci virtio4_ring=packed"
	ring_args=(-global virtio-blk-pci.packed=on -global virtio-net-pci.packed=on) ;;
mmio)
	# microvm with ACPI: the guest finds the devices as Debian's kernel does, ACPI LNRO0005,
	# and its serial ports by ACPI too (their interrupts are not the legacy numbers).
	# It resets by a triple fault, which -no-reboot ends (the stock kernel's ACPI reset hung
	# there once after "machine restart").
	cmdline=${cmdline/ acpi=noirq/}
	cmdline+=" hung_task_panic=1 virtio4_transport=mmio reboot=t"
	machine=microvm,acpi=on,pit=on,pic=on
	ring_args=(-global virtio-mmio.force-legacy=false) ;;
mmio-legacy)
	# microvm without ACPI: QEMU writes each device's virtio_mmio.device= on the command line,
	# the guest's modules take it as device= (the other way in: Firecracker's), and the guest
	# resets by a triple fault, which -no-reboot ends.
	cmdline+=" hung_task_panic=1 virtio4_transport=mmio-legacy reboot=t"
	machine=microvm,acpi=off,pit=on,pic=on
	ring_args=(-global virtio-mmio.force-legacy=true) ;;
*)
	cmdline+=" hung_task_panic=1 virtio4_transport=$TRANSPORT" ;;
esac
# microvm has neither HPET nor ACPI PM timer: when the PIT calibration of the TSC fails, as it
# does on a busy host, nothing else can calibrate it and the guest hung at boot (3 of 3 boots
# beside six busy loops; 0 of 3 with this). Under TCG the guest's TSC is the host's: its rate,
# as the host's kernel measured it (its "cpu MHz" in /proc/cpuinfo only if that log is gone:
# on a host that scales its clock, that is the core's speed of the moment, not the TSC's).
host_tsc_khz() {
	{ dmesg 2>/dev/null | awk '
		/tsc: Refined TSC clocksource calibration: / { r = $(NF - 1) }
		/tsc: Detected [0-9.]+ MHz TSC/ { t = $(NF - 2) }
		/tsc: Detected [0-9.]+ MHz processor/ { p = $(NF - 2) }
		END { m = r ? r : t ? t : p; if (m) printf "%d\n", m * 1000 + 0.5 }'
	  awk '/^cpu MHz/ { printf "%d\n", $4 * 1000 + 0.5; exit }' /proc/cpuinfo; } | head -n 1
}
[ -z "$machine" ] || tsc_khz=$(host_tsc_khz)
[ -z "${tsc_khz:-}" ] || cmdline+=" tsc_early_khz=$tsc_khz"
# The debug kernel (tinyconfig's LEGACY_PTYS) would make 256 BSD pty pairs at boot, 1.3 s of
# its 7 to /init under KASAN and lockdep; no test uses them.
# ACPI's Plug and Play enumeration (selected by ACPI) took 0.19 s: the serial ports are
# found at their legacy addresses without it.
[ "$kind" = debug ] && cmdline+=" pty.legacy_count=0"
[ "$kind" = debug ] && [ "$TRANSPORT" != mmio ] && cmdline+=" pnpacpi=off"
[ -n "${INTERACTIVE:-}" ] && cmdline+=" virtio4_interactive=1"
# Extra parameters for the guest (make bench passes its knobs this way; /init sees them), and
# the test's own ("# append: ...").
[ -n "${VIRTIO4_CMDLINE:-}" ] && cmdline+=" $VIRTIO4_CMDLINE"
[ -n "$(directive append)" ] && cmdline+=" $(directive append | tr '\n' ' ')"

# guest_command N [wire arguments...]: guest N's QEMU command line, into the array "cmd".
guest_command() {
	local GUEST=$1 extra=() console="file:$WORK/console$1.log" line
	local verdict=(-serial "file:$WORK/verdict$GUEST")
	shift
	while IFS= read -r line; do
		[ -n "$line" ] && eval "extra+=($line)"
	done < <(directive qemu)
	[ -n "${INTERACTIVE:-}" ] && [ "$GUEST" = 0 ] && console=mon:stdio
	if [[ $TRANSPORT = mmio* ]]; then
		# The test's PCI devices as virtio-mmio ones; microvm has one serial port of its own.
		extra=("${extra[@]//virtio-blk-pci/virtio-blk-device}")
		extra=("${extra[@]//virtio-net-pci/virtio-net-device}")
		extra+=(-M "$machine")
		verdict=(-chardev "file,id=verdict,path=$WORK/verdict$GUEST"
			-device isa-serial,chardev=verdict,iobase=0x2f8,irq=3)
	# On the default machine (i440fx: a test that names another, q35, keeps its default).
	elif [ -z "$(directive pci-hotplug)" ] && [ -z "${INTERACTIVE:-}" ] &&
		[[ " ${extra[*]} " != *" -machine "* ]]; then
		extra+=(-global PIIX4_PM.acpi-root-pci-hotplug=off
			-global PIIX4_PM.acpi-pci-hotplug-with-bridge-support=off)
	fi
	cmd=(qemu-system-x86_64 -accel "$accel" -cpu max -smp "$smp" -m "$memory"
		-nodefaults -display none -no-reboot
		-kernel "$kernel" -initrd "$initrd"
		-append "$cmdline virtio4_test=${boot_tests:-$test_name} virtio4_guest=$GUEST virtio4_boot=${boot:-0}"
		-serial "$console" "${verdict[@]}"
		-qmp "unix:$WORK/qmp$GUEST.sock,server=on,wait=off"
		"${ring_args[@]}" "$@" "${extra[@]}")
}

# A guest whose kernel has not started /init this many seconds after QEMU started has stalled
# in its boot (under TCG, seen about once in ten full make checks: a vCPU whose timer stopped
# firing, before any module of ours was loaded); boots to /init take 3-20 s here.
# "# boot-stall: SECONDS" sets it for a test (the harness's self-test).
boot_stall_s=$(directive boot-stall | tail -n 1)
boot_stall_s=${boot_stall_s:-60}

# boot_watchdog N PID: if guest N (QEMU's PID) is still running but its console has no
# "Run /init" after boot_stall_s seconds, writes where its console stopped to $WORK/stalledN
# and stops every guest of this run (the others wait for it).
boot_watchdog() {
	local n=$1 pid=$2 i p
	for ((i = 0; i < boot_stall_s * 2; i++)); do
		sleep 0.5
		kill -0 "$pid" 2>/dev/null || return 0
		grep -qa '^\[ *[0-9.]*\] Run /init as init process' "$WORK/console$n.log" 2>/dev/null &&
			return 0
	done
	tr -d '\r' <"$WORK/console$n.log" 2>/dev/null | tail -n 1 | cut -c 1-120 >"$WORK/stalled$n"
	for p in "$WORK"/pid*; do
		kill "$(cat "$p")" 2>/dev/null
	done
}

# start_guest N [wire arguments...]: boots guest N in the background; its pid goes to $WORK/pidN.
start_guest() {
	local pin=() pid
	guest_command "$@"
	[ -n "$(directive pin-guests)" ] && pin=(taskset -c $(($1 % $(nproc))))
	timeout -k 5 "$timeout_s" "${pin[@]}" "${cmd[@]}" 2>"$WORK/qemu$1.err" &
	pid=$!
	echo "$pid" >"$WORK/pid$1"
	rm -f "$WORK/stalled$1"
	[ -n "${INTERACTIVE:-}" ] || boot_watchdog "$1" "$pid" </dev/null >/dev/null 2>&1 &
}

# stalled_boot: where the consoles of this boot's stalled guests stopped ("guest N at '...'"),
# nothing if none stalled.
stalled_boot() {
	local f
	for f in "$WORK"/stalled[0-9]*; do
		[ -e "$f" ] && echo "guest ${f##*stalled} at '$(cat "$f")'"
	done | paste -sd ' '
}

# stall_reason N: the reason of a guest N that stalled again in the boot made after a stall.
stall_reason() {
	echo "stalled before /init in two boots (the console stopped at '$(cat "$WORK/stalled$1")', ${boot_stall_s}s after QEMU started)"
}

# retry_stalled_boot: after a boot whose guests were stopped by the watchdog, keeps their
# consoles aside (stalled.consoleN.log) and says so on stderr and in $WORK/boot-retries;
# returns 0 if the boot is to be made again (once a run; the second stall fails).
retry_stalled_boot() {
	local where f
	where=$(stalled_boot)
	[ -n "$where" ] && [ -z "${boot_retried:-}" ] || return 1
	boot_retried=1
	echo "run.sh: $name [$kind]: the boot stalled before /init ($where, after ${boot_stall_s}s); booting again" |
		tee -a "$WORK/boot-retries" >&2
	for f in "$WORK"/console*.log; do
		[ -e "$f" ] && mv "$f" "$WORK/stalled.$(basename "$f")"
	done
	rm -f "$WORK"/stalled[0-9]* "$WORK"/verdict[0-9]*
}

wait_listening() {
	for _ in $(seq 50); do
		ss -Hltn "sport = :$1" | grep -q . && return
		sleep 0.1
	done
}

# start_guests [FIRST]: boots this run's guests. Two guests: guest FIRST (default 0) listens on
# a free loopback port, and the other (started at once unless FIRST is 1) connects, with the
# arguments left in "wire".
start_guests() {
	local first=${1:-0}
	wire=()
	[ "$guests" = 2 ] || { [ "$first" = 1 ] || start_guest 0; return; }
	port=$(free_port)
	start_guest "$first" -netdev "socket,id=wire,listen=127.0.0.1:$port"
	wait_listening "$port"
	wire=(-netdev "socket,id=wire,connect=127.0.0.1:$port")
	[ "$first" = 1 ] || start_guest 1 "${wire[@]}"
}

# Interactive: guest 0 in the foreground with its console on this terminal.
if [ -n "${INTERACTIVE:-}" ]; then
	start_guests 1
	guest_command 0 "${wire[@]}"
	exec "${cmd[@]}"
fi
# console_checked LOG: the console as judged: without the reports the test allows
# ("# console-ok:"), each with its stack dump (to "</TASK>", 100 lines at most).
console_ok=$(directive console-ok | paste -sd '|')
console_checked() {
	tr -d '\r' <"$1" 2>/dev/null | awk -v ok="$console_ok" '
		skip { skip = !/<\/TASK>/ && ++n < 100; next }
		ok != "" && $0 ~ ok { skip = 1; n = 0; next }
		{ print }'
}

# reason_of TEST CONSOLE VERDICTS RC QEMU_ERR OURS: why TEST failed (nothing if it passed),
# judged on CONSOLE (its part of a guest's console), its last verdict in VERDICTS (the second
# serial port) and, when OURS is 1, on QEMU's exit status RC and its stderr QEMU_ERR (in a
# shared boot they count against the test that started last). One judge for single runs
# (judge) and shared boots (run-shared.sh).
reason_of() {
	local t=$1 log=$2 verdicts=$3 rc=$4 err=$5 ours=$6 verdict report qemu_said=
	report=$(console_checked "$log" | grep -aE "$bad_patterns" | head -n 1)
	[ "$ours" = 1 ] && qemu_said=$(grep -avE "$qemu_stderr_ok" "$err" 2>/dev/null | head -n 1)
	verdict=$(grep -a "^VIRTIO4-VERDICT $t " "$verdicts" 2>/dev/null | tr -d '\r' | tail -n 1 |
		awk '{ print $3 }')
	if [ "$ours" = 1 ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
		echo "timed out after ${timeout_s}s"
	elif [ -n "$report" ]; then
		echo "kernel report: ${report:0:160}"
	elif [ "$ours" = 1 ] && [ "$rc" != 0 ]; then
		echo "QEMU exited with status $rc: $(head -c 160 "$err")"
	elif [ -n "$qemu_said" ]; then
		echo "QEMU said: ${qemu_said:0:160}"
	elif [ -z "$verdict" ]; then
		echo "gave no verdict (crashed, rebooted or QEMU failed: $(head -c 160 "$err"))"
	elif [ "$verdict" = leaks ]; then
		echo "kmemleak found objects it left (in its console, after the boot's last test)"
	elif [ "$verdict" != "exit=0" ] && [ "$verdict" != interactive ]; then
		echo "test $verdict"
	fi
}

# judge N RC: prints the reason guest N (whose QEMU exited with RC) failed, or nothing.
judge() {
	local reason
	if [ -e "$WORK/stalled$1" ]; then
		echo "guest $1 $(stall_reason "$1")"
		return
	fi
	reason=$(reason_of "$test_name" "$WORK/console$1.log" "$WORK/verdict$1" "$2" \
		"$WORK/qemu$1.err" 1)
	[ -z "$reason" ] || echo "guest $1 $reason"
}

# Shared boots: the tests named run one after another in one guest (/init), each judged on its
# own part of the console (from its "running test" line to the next test's, the boot's first
# lines going to the first test) and on its own verdict (tests/qemu/run-shared.sh). A test that
# did not start, or passed after one that failed, runs in a new boot; QEMU's exit status and
# its stderr count against the test that started last; a test whose objects kmemleak found at
# the end of the boot ("leaks" verdict) fails.
if [ ${#test_files[@]} -gt 1 ]; then
	. "$top/tests/qemu/run-shared.sh"
	exit $?
fi

reasons=()
boot=0
while [ "$boot" -lt "$boots" ]; do
	start_guests
	host_rc=0
	if [ -n "$(directive host)" ] && [ "$boot" = 0 ]; then
		(cd "$(dirname "$test_file")" && QMP0="$WORK/qmp0.sock" QMP1="$WORK/qmp1.sock" \
			timeout "$timeout_s" bash -c "$(directive host)") >"$WORK/host.log" 2>&1 ||
			host_rc=$?
	fi
	rcs=()
	for g in $(seq 0 $((guests - 1))); do
		wait "$(cat "$WORK/pid$g")"
		rcs+=($?)
	done
	retry_stalled_boot && continue
	for g in $(seq 0 $((guests - 1))); do
		reason=$(judge "$g" "${rcs[$g]}")
		[ -n "$reason" ] && reasons+=("${reason/#guest/boot $boot guest}")
	done
	[ "$host_rc" = 0 ] || reasons+=("host command exited $host_rc: $(tail -n 1 "$WORK/host.log")")
	if [ "$boots" -gt 1 ]; then
		mv "$WORK/console0.log" "$WORK/console0.boot$boot.log"
		mv "$WORK/verdict0" "$WORK/verdict0.boot$boot"
	fi
	[ "${#reasons[@]}" = 0 ] || break
	boot=$((boot + 1))
done

# KUnit cases (KTAP in the console) count as results of their own; a failed one fails the test.
ktap=$(for log in "$WORK"/console*.log; do "$top/tests/qemu/ktap.sh" "$log"; done)
kfail=$(grep -m 1 '^fail' <<<"$ktap")
[ -z "$kfail" ] || reasons+=("KUnit: $kfail")
{
	[ -z "$ktap" ] || echo "$ktap"
	if [ "${#reasons[@]}" = 0 ]; then
		echo "pass $name"
	else
		echo "fail $name ${reasons[*]}"
	fi
} | tee "$WORK/results"
! grep -q '^fail' "$WORK/results"
