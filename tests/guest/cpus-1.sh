# SPDX-License-Identifier: GPL-2.0
# One vCPU: fewer CPUs than either disk's queues.
# Disks, NICs and checks (a fio job per CPU): cpus_and_queues in tests/qemu/guest-lib.sh.
# Then two NICs whose devices offer 2 queue pairs and RSS (the device host's net-pair): each
# uses one pair, and its device holds the RSS configuration ethtool shows (its one table of
# 128 entries on queue 0, its key), sent at probe though the pairs did not change; with 2
# pairs (ethtool -L) each sends from the one CPU (XPS).
# kernels: debug
# smp: 1
# timeout: 300
# setup: truncate -s 64M a.img b.img
# qemu: -drive file=$WORK/a.img,if=none,id=d0,format=raw,cache=unsafe -device virtio-blk-pci,drive=d0,num-queues=2
# qemu: -drive file=$WORK/b.img,if=none,id=d1,format=raw,cache=unsafe -device virtio-blk-pci,drive=d1,num-queues=4,vectors=3
# qemu: -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:50:01
# qemu: -netdev hubport,id=n2,hubid=0 -device virtio-net-pci,netdev=n2,mac=52:54:00:00:50:02
. /tests/lib.sh
cpus_and_queues

# The PCI devices go (the copying transport's NICs are the only ones then).
ns_delete ns1 ns2 || fail "deleting the namespaces"
rmmod virtio4_net virtio4_blk virtio4_pci || fail "unloading the PCI devices' modules"
modprobe virtio4_copy && modprobe virtio4_net || fail "loading virtio4_copy, virtio4_net"
serve_net_pair --queues 2 --rss
for i in 1 2; do
	expect_pair_stat $i pairs -eq 1 rss_configs -eq 1
	expect_eq "NIC_$i's table in its device, entries per queue" 128,0,0,0 "$(net_pair_stat $i rss_table)"
	expect_eq "NIC_$i's key in its device" "$(rss_key_of $i)" "$(net_pair_stat $i rss_key)"
done
ns_reach 1
ns_ping_count 1 20 -i 0.05
# More pairs than CPUs: each sends from the one CPU (XPS), none is left without a CPU.
in_ns ns1 ethtool -L "$NIC_1" combined 2 || fail "ethtool -L NIC_1 combined 2"
for q in 0 1; do
	expect_eq "CPUs of NIC_1's tx-$q with 2 pairs on 1 CPU (xps_cpus, a mask)" 1 \
		$((0x$($IP netns exec ns1 cat /sys/class/net/$NIC_1/queues/tx-$q/xps_cpus)))
done
ns_ping_count 1 20 -i 0.05
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"
