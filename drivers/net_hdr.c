// SPDX-License-Identifier: GPL-2.0
/*
 * The network driver's check of a received frame's virtio-net header, made
 * before the header is applied to the skb (virtio_net_hdr_to_skb()).
 *
 * The device is untrusted, and the header is where it can lie in the ways
 * that hurt most: the stack trusts a GSO type to describe the frame (a frame
 * marked TCPv4 GSO is segmented and coalesced as TCP), and a checksum offset
 * to lie inside it. Linux 6.1's virtio_net_hdr_to_skb() checks the checksum
 * offset and a GSO size of 0, but for a GSO frame without NEEDS_CSUM it probes
 * the frame only once the network header is set, which a driver's receive
 * path has not yet done: a UDP or ICMP frame marked TCPv4 GSO goes up as one.
 * So every claim is checked here against the frame's own headers and the
 * features negotiated, and a frame whose header lies is dropped (the caller
 * counts it and logs the reason given here).
 *
 * A GSO frame must be TCP over IPv4 or IPv6 (at most one VLAN tag, IPv6
 * extension headers skipped, no fragment), with a whole TCP header and a
 * payload; with NEEDS_CSUM its checksum must be the TCP header's. DATA_VALID
 * needs no feature (virtio 1.3 lets a device set it without GUEST_CSUM, as
 * TAP backends do); NEEDS_CSUM needs GUEST_CSUM.
 */
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include "net_hdr.h"

/* Offset of the TCP header that a GSO frame of @type claims; NULL or why not. */
static const char *v4net_tcp_offset(struct sk_buff *skb, u8 type,
				    unsigned int *l4)
{
	unsigned int l3 = ETH_HLEN;
	const struct ipv6hdr *ip6;
	const struct iphdr *iph;
	__be16 frag_off;
	__be16 proto;
	u8 nexthdr;
	int off;

	if (!pskb_may_pull(skb, ETH_HLEN))
		return "marks a frame shorter than an Ethernet header for segmentation";
	proto = ((struct ethhdr *)skb->data)->h_proto;
	if (proto == htons(ETH_P_8021Q)) {
		if (!pskb_may_pull(skb, VLAN_ETH_HLEN))
			return "marks a frame with a cut VLAN tag for segmentation";
		proto = ((struct vlan_ethhdr *)skb->data)->h_vlan_encapsulated_proto;
		l3 = VLAN_ETH_HLEN;
	}
	if (type == VIRTIO_NET_HDR_GSO_TCPV4) {
		if (proto != htons(ETH_P_IP) || !pskb_may_pull(skb, l3 + sizeof(*iph)))
			return "claims TCPv4 segmentation of a frame that is not IPv4";
		iph = (struct iphdr *)(skb->data + l3);
		if (iph->version != 4 || iph->ihl < 5 ||
		    iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
			return "claims TCPv4 segmentation of a frame that is not TCP over IPv4";
		*l4 = l3 + iph->ihl * 4;
		return NULL;
	}
	if (proto != htons(ETH_P_IPV6) || !pskb_may_pull(skb, l3 + sizeof(struct ipv6hdr)))
		return "claims TCPv6 segmentation of a frame that is not IPv6";
	ip6 = (struct ipv6hdr *)(skb->data + l3);
	if (ip6->version != 6)
		return "claims TCPv6 segmentation of a frame that is not IPv6";
	nexthdr = ip6->nexthdr;
	off = ipv6_skip_exthdr(skb, l3 + sizeof(struct ipv6hdr), &nexthdr, &frag_off);
	if (off < 0 || nexthdr != IPPROTO_TCP || frag_off)
		return "claims TCPv6 segmentation of a frame that is not TCP over IPv6";
	*l4 = off;
	return NULL;
}

/* The GSO claims of @hdr (type TCPV4 or TCPV6, negotiated) against the frame. */
static const char *v4net_check_gso(struct sk_buff *skb,
				   const struct virtio_net_hdr *hdr)
{
	u8 type = hdr->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	const struct tcphdr *th;
	unsigned int l4, thlen;
	const char *why;

	if (!__virtio16_to_cpu(true, hdr->gso_size))
		return "claims segmentation into segments of 0 bytes";
	why = v4net_tcp_offset(skb, type, &l4);
	if (why)
		return why;
	if (!pskb_may_pull(skb, l4 + sizeof(*th)))
		return "claims segmentation of a frame cut inside its TCP header";
	th = (struct tcphdr *)(skb->data + l4);
	thlen = th->doff * 4;
	if (thlen < sizeof(*th) || !pskb_may_pull(skb, l4 + thlen))
		return "claims segmentation of a frame cut inside its TCP header";
	if (skb->len <= l4 + thlen)
		return "claims segmentation of a frame with no payload";
	if ((hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    (__virtio16_to_cpu(true, hdr->csum_start) != l4 ||
	     __virtio16_to_cpu(true, hdr->csum_offset) != offsetof(struct tcphdr, check)))
		return "asks for a checksum other than the TCP header's of a segmented frame";
	return NULL;
}

/* Is a header's GSO type one of those negotiated (@features)? */
static bool v4net_gso_negotiated(u8 gso_type, u64 features)
{
	if ((gso_type & VIRTIO_NET_HDR_GSO_ECN) &&
	    !(features & BIT_ULL(VIRTIO_NET_F_GUEST_ECN)))
		return false;
	switch (gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return !(gso_type & VIRTIO_NET_HDR_GSO_ECN);
	case VIRTIO_NET_HDR_GSO_TCPV4:
		return features & BIT_ULL(VIRTIO_NET_F_GUEST_TSO4);
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return features & BIT_ULL(VIRTIO_NET_F_GUEST_TSO6);
	default:
		return false;
	}
}

/**
 * v4net_hdr_check() - does a received frame's virtio-net header tell the truth?
 * @skb: the frame, from its Ethernet header on (before eth_type_trans()); its
 *	headers may be pulled into the linear part
 * @hdr: the header the device wrote for it (little-endian: a virtio 1 device)
 * @features: the feature bits negotiated
 *
 * Context: any; does not sleep.
 * Return: NULL if the header may be applied to @skb, else why not: a phrase
 * that completes "the device's virtio-net header ...", for one log line.
 */
const char *v4net_hdr_check(struct sk_buff *skb,
			    const struct virtio_net_hdr *hdr, u64 features)
{
	u32 start, off;

	if (hdr->flags & ~(VIRTIO_NET_HDR_F_NEEDS_CSUM |
			   VIRTIO_NET_HDR_F_DATA_VALID))
		return "sets flags that no feature defines";
	if ((hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    !(features & BIT_ULL(VIRTIO_NET_F_GUEST_CSUM)))
		return "asks for a partial checksum without GUEST_CSUM negotiated";
	if (!v4net_gso_negotiated(hdr->gso_type, features))
		return "claims a GSO type that was not negotiated";
	if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		start = __virtio16_to_cpu(true, hdr->csum_start);
		off = __virtio16_to_cpu(true, hdr->csum_offset);
		if (start < ETH_HLEN || start + off + sizeof(__sum16) > skb->len)
			return "places the checksum outside the frame";
	}
	if (hdr->gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return NULL;
	return v4net_check_gso(skb, hdr);
}
