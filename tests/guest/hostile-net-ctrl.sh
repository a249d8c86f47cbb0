# SPDX-License-Identifier: GPL-2.0
# Hostile device: a control queue whose commands are never answered (virtio4-host net-pair
# --misbehave ctrl-silent: net0 offers CTRL_VQ, CTRL_RX and CTRL_VLAN and keeps every command).
# A bad ctrl_timeout_ms is refused with one log line. With ctrl_timeout_ms=300 the first
# command (VLAN 0 or the receive mode, as the interface comes up) waits 300 ms, not for ever
# (Linux 6.1's virtio_net spins there under RTNL): one log line names it, ethtool -S counts it in
# ctrl_errors, and from then on a command fails at once (adding a VLAN returns an error, one
# more in ctrl_errors, without reaching the device: the device host kept one command). The data path does not depend on
# it: pings and 1 MiB of TCP cross both ways. Removal frees the command the device kept
# (kmemleak finds nothing), and the other NIC, whose device has no control queue, counts no
# control command.
# kernels: debug
# timeout: 180
. /tests/lib.sh

kmemleak_start
modprobe virtio4_copy || fail "loading virtio4_copy"
expect_fail "loading virtio4_net with ctrl_timeout_ms=0" modprobe virtio4_net ctrl_timeout_ms=0
expect_log "the refusal of ctrl_timeout_ms=0" "ctrl_timeout_ms=0 is outside 10..60000"
modprobe virtio4_net ctrl_timeout_ms=300 || fail "loading virtio4_net with ctrl_timeout_ms=300"
dmesg -c >/dev/null
serve_net_pair --misbehave ctrl-silent
SILENT=1
[ "$(net_pair_device 1)" = net0 ] || SILENT=2
OTHER=$((3 - SILENT))
eval silent_dev=\$NIC_$SILENT
for _ in $(seq 50); do
	[ "$(nic_stat $SILENT ctrl_errors)" -ge 1 ] && break
	sleep 0.1
done
errors=$(nic_stat $SILENT ctrl_errors)
[ "$errors" -ge 1 ] || fail "no failed control command on NIC_$SILENT"
echo "ok: $errors control commands failed on NIC_$SILENT as it came up"
expect_log "the unanswered command" "did not answer control command [0-9]+\.[0-9]+ in 300 ms"
expect_eq "control commands kept by the device host" 1 "$(net_pair_stat $SILENT ctrl_kept)"
t0=$(cut -d ' ' -f 1 /proc/uptime)
expect_fail "adding a VLAN to NIC_$SILENT" \
	$IP -n ns$SILENT link add link "$silent_dev" name v10 type vlan id 10
echo "ok: the VLAN failed after $(awk -v a="$t0" -v b="$(cut -d ' ' -f 1 /proc/uptime)" \
	'BEGIN { print b - a }') s"
expect_eq "control commands that failed on NIC_$SILENT after the VLAN" $((errors + 1)) \
	"$(nic_stat $SILENT ctrl_errors)"
expect_eq "control commands kept by the device host after the VLAN" 1 \
	"$(net_pair_stat $SILENT ctrl_kept)"
expect_eq "control commands on NIC_$OTHER (no control queue)" "0 0" \
	"$(nic_stat $OTHER ctrl_commands) $(nic_stat $OTHER ctrl_errors)"
ns_traffic 1
ns_transfer 1 120 2
stop_host
ns_delete ns1 ns2 || fail "deleting the namespaces"
expect_eq "interfaces of virtio4_net left" 0 "$(our_interfaces | wc -l)"
rmmod virtio4_net && rmmod virtio4_copy || fail "unloading virtio4_net, virtio4_copy"
kmemleak_check
