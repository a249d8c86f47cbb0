/* SPDX-License-Identifier: GPL-2.0 */
/* The network driver's check of a received virtio-net header (net_hdr.c). */
#ifndef VIRTIO4_NET_HDR_H
#define VIRTIO4_NET_HDR_H

#include <linux/skbuff.h>
#include <linux/virtio_net.h>

const char *v4net_hdr_check(struct sk_buff *skb,
			    const struct virtio_net_hdr *hdr, u64 features);

#endif
