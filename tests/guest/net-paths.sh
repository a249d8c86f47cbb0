# SPDX-License-Identifier: GPL-2.0
# The network driver on the ring and interrupt paths it does not take by default, and no memory left
# behind by any of them. Two of our NICs on one QEMU hub, each in its own network namespace; the
# second device offers only 2 MSI-X vectors (4 would be a vector per queue), so the PCI transport
# falls back to one shared vector for its queues. Five set-ups, each loaded, used and unloaded: the
# defaults, irq_mode=1 (one shared MSI-X vector), irq_mode=2 (INTx: IO-APIC lines that take the
# interrupts), virtio4 event_idx=0 (flag-based suppression) and virtio4 indirect=0 (no indirect
# descriptors negotiated; with them, on this backend, which offers no checksum offload and so no
# scatter-gather, every buffer the NIC posts is a single element anyway, and none would go through a
# table). Each cycle: 200 pings without loss both ways and 4 MiB (1 on the debug kernel) over TCP
# with matching sha256, then the interfaces go down and the modules unload. On the stock kernel the
# five run four times (20 cycles): receive pages come from page_frag_alloc, which kmemleak does not
# see, so free memory (with the per-CPU page lists, after dropping caches) may not drift by more
# than 1 MiB between the end of the first round and the end of the last. On the debug kernel (once:
# its checks are per cycle) KASAN's quarantine of freed memory and kmemleak's own records move free
# memory by more than that with no leak, and kmemleak checks what the cycles allocated instead.
# kernels: debug stock
# rings: split packed
# timeout: 600
# qemu: -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:40:01
# qemu: -netdev hubport,id=n2,hubid=0 -device virtio-net-pci,netdev=n2,mac=52:54:00:00:40:02,vectors=2
. /tests/lib.sh

# free_kib: free memory in KiB, pages on the per-CPU lists counted as free, caches dropped.
free_kib() {
	local free pcp
	sleep 2	# the namespaces are torn down, and RCU frees, after the commands return
	sync
	echo 3 >/proc/sys/vm/drop_caches
	free=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo)
	echo $((free + 4 * pcp))
}

# check_setup SETUP: what each set-up must show while its NICs carry traffic.
check_setup() {
	case $1 in
	defaults)
		# One NIC: config, rx0, tx0, ctrl; the one with 2 vectors: config and its queues' shared one.
		expect_eq "interrupt lines of the two NICs" "2 4" \
			"$(for d in virtio4.0 virtio4.1; do lines_of $d; done | sort -n | tr '\n' ' ' | sed 's/ $//')" ;;
	irq_mode=1)
		expect_eq "MSI lines of both NICs with irq_mode=1" 4 "$(grep 'virtio4\.[01]' /proc/interrupts | grep -c MSI)" ;;
	irq_mode=2)
		expect_eq "MSI lines with irq_mode=2" 0 "$(grep virtio4 /proc/interrupts | grep -c MSI)"
		for d in virtio4.0 virtio4.1; do
			grep "IO-APIC.* $d\(,\|$\)" /proc/interrupts |
				awk '{ for (i = 2; $i ~ /^[0-9]+$/; i++) n += $i } END { exit !(n > 0) }' ||
				fail "$d has no IO-APIC line that took interrupts: $(grep virtio4 /proc/interrupts)"
		done
		echo "ok: both NICs on IO-APIC lines that took interrupts" ;;
	event_idx=0)
		expect_eq "negotiated EVENT_IDX (bit 29) with event_idx=0" 0 \
			"$(feature_bit virtio4.0 29)" ;;
	indirect=0)
		expect_eq "negotiated INDIRECT_DESC (bit 28) with indirect=0" 0 \
			"$(feature_bit virtio4.0 28)" ;;
	esac
}

# cycle SETUP: load with SETUP, carry traffic, check, take the interfaces down, unload.
cycle() {
	case $1 in
	irq_mode=*) modprobe virtio4_pci "$1" || fail "modprobe virtio4_pci $1" ;;
	event_idx=0 | indirect=0) modprobe virtio4 "$1" || fail "modprobe virtio4 $1" ;;
	esac
	modprobe virtio4_pci && modprobe virtio4_net || fail "loading virtio4_net"
	nics_in_namespaces
	ns_traffic "$(by_kernel 4 1)"
	check_setup "$1"
	in_ns ns1 busybox ip link set "$NIC_1" down && in_ns ns2 busybox ip link set "$NIC_2" down ||
		fail "links down"
	ns_delete ns1 ns2 || fail "deleting the namespaces"
	rmmod virtio4_net virtio4_pci virtio4_ring virtio4 || fail "unloading after $1"
	echo "ok: cycle with $1"
}

# one_round: a cycle of each set-up.
one_round() {
	local setup
	for setup in defaults irq_mode=1 irq_mode=2 event_idx=0 indirect=0; do
		cycle $setup
	done
}

if on_debug_kernel; then
	kmemleak_start
	one_round
	kmemleak_check
	exit 0
fi
for round in 1 2 3 4; do
	one_round
	now=$(free_kib)
	echo "free memory after round $round: $now KiB"
	[ "$round" = 1 ] && first=$now
done
drift=$((first - now))
[ "$drift" -le 1024 ] || fail "free memory fell by $drift KiB over rounds 2-4 (more than 1 MiB)"
echo "ok: free memory changed by $((-drift)) KiB over rounds 2-4"
