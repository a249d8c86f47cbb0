# SPDX-License-Identifier: GPL-2.0
# The harness joins two guests by a wire (a socket netdev on 127.0.0.1): each sees the
# other over Linux's virtio_net at a link-local address, 20 pings with no loss.
# One vCPU each, two in all: it runs beside another test, not alone.
# guests: 2
# smp: 1
# timeout: 120
# qemu: -device virtio-net-pci,netdev=wire,mac=52:54:00:12:34:5$GUEST
. /tests/lib.sh

net_up linux
ping_count 20 -i 0.2
peer_barrier "$PEER"
