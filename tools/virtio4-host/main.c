// SPDX-License-Identifier: GPL-2.0
/*
 * virtio4-host: serves virtio devices to a Linux guest's virtio4 stack
 * through the copying transport (/dev/virtio4-host, module virtio4_copy).
 *
 *   virtio4-host blk [--read-only] [--serial ID] [--misbehave MODE[:N]] FILE
 *   virtio4-host net-pair [--mtu N] [--offloads 0,1] [--queues N [--rss]] [--no-mac]
 *                         [--misbehave MODE[:N]]
 *   virtio4-host net-tap [--mtu N] [--offloads 0] [--misbehave MODE[:N]] TAPNAME
 *
 * Misbehaviours (after N good completions, default 0), for hardening tests:
 * wrong-token, duplicate, overstate, never-complete, exit, bad-status,
 * short, needs-reset, refuse-features, split (net: each received frame spread
 * over 64-byte pieces of buffers), and net receive headers that lie about every
 * frame: gso-not-tcp (TCPv4 GSO on IPv4 frames that are not TCP), gso-size-0,
 * csum-past-end; ctrl-silent (net: a control queue offered, no command on it
 * ever answered); rss-small-table (net --rss: a table under the spec's
 * minimum); stray-queue (net --queues N: every frame received on the last
 * pair, in use or not).
 * In the net modes, net0 misbehaves.
 */
#include <stdio.h>
#include <string.h>
#include "host.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "blk"))
		return blk_main(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "net-pair") || !strcmp(argv[1], "net-tap")))
		return net_main(argc - 1, argv + 1);
	fputs("usage: virtio4-host blk|net-pair|net-tap [options] (see --help of each)\n", stderr);
	return 2;
}
