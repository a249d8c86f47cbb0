// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the network driver's check of a received frame's
 * virtio-net header (drivers/net_hdr.c, built into this module): true
 * headers pass it and then the kernel's virtio_net_hdr_to_skb(), which
 * makes the frame what the header said; each lie a hostile device can tell
 * is refused. One case shows why the check exists: 6.1's
 * virtio_net_hdr_to_skb() alone, where a driver calls it, takes a UDP frame
 * marked TCPv4 GSO.
 */
#include <kunit/test.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include "../../drivers/net_hdr.c"

#define NH_PAYLOAD	3000
#define NH_ALL		(BIT_ULL(VIRTIO_NET_F_GUEST_CSUM) | \
			 BIT_ULL(VIRTIO_NET_F_GUEST_TSO4) | \
			 BIT_ULL(VIRTIO_NET_F_GUEST_TSO6) | \
			 BIT_ULL(VIRTIO_NET_F_GUEST_ECN))

/* A frame to build: IPv4 or IPv6, with a VLAN tag or not, TCP or not. */
struct nh_frame {
	bool ipv6;
	bool vlan;
	u8 proto;		/* IPPROTO_TCP, IPPROTO_UDP */
	bool fragment;		/* IPv4: a fragment (MF set) */
	bool hop_by_hop;	/* IPv6: an 8-byte hop-by-hop options header first */
	bool cwr;		/* TCP: CWR set */
	u8 doff;		/* TCP: data offset in words (0: 5) */
	unsigned int payload;
	unsigned int cut;	/* bytes left out at the end */
	unsigned int head;	/* bytes in the skb's head, the rest in a page (0: all) */
};

/* Offsets in a built frame: the network and transport headers. */
static unsigned int nh_l3(const struct nh_frame *f)
{
	return f->vlan ? VLAN_ETH_HLEN : ETH_HLEN;
}

static unsigned int nh_l4(const struct nh_frame *f)
{
	if (!f->ipv6)
		return nh_l3(f) + sizeof(struct iphdr);
	return nh_l3(f) + sizeof(struct ipv6hdr) + (f->hop_by_hop ? 8 : 0);
}

static void nh_put_ip(const struct nh_frame *f, u8 *p, unsigned int l4len)
{
	struct ipv6hdr *ip6 = (struct ipv6hdr *)p;
	struct iphdr *iph = (struct iphdr *)p;

	if (f->ipv6) {
		ip6->version = 6;
		ip6->payload_len = htons(l4len + (f->hop_by_hop ? 8 : 0));
		ip6->nexthdr = f->hop_by_hop ? NEXTHDR_HOP : f->proto;
		ip6->hop_limit = 64;
		if (f->hop_by_hop) {	/* next header, length 0 (8 bytes), a PadN of 4 */
			p[sizeof(*ip6)] = f->proto;
			p[sizeof(*ip6) + 2] = IPV6_TLV_PADN;
			p[sizeof(*ip6) + 3] = 4;
		}
		return;
	}
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(sizeof(*iph) + l4len);
	iph->frag_off = f->fragment ? htons(IP_MF) : 0;
	iph->ttl = 64;
	iph->protocol = f->proto;
	iph->saddr = htonl(0xa9fe1401);
	iph->daddr = htonl(0xa9fe1402);
}

/*
 * @lin's first @head bytes in a new skb's head, the rest in a page fragment, as
 * the driver builds a received frame (its first V4NET_COPY_LEN bytes copied):
 * headers that straddle the two must be pulled before they are read.
 */
static struct sk_buff *nh_split(struct kunit *test, struct sk_buff *lin, unsigned int head)
{
	struct sk_buff *skb = alloc_skb(head, GFP_KERNEL);
	struct page *page = alloc_page(GFP_KERNEL);

	if (!skb || !page) {
		kfree_skb(skb);
		if (page)
			__free_page(page);
		KUNIT_ASSERT_FAILURE(test, "no memory for a split frame");
	}
	KUNIT_ASSERT_LE(test, lin->len - head, PAGE_SIZE);
	skb_put_data(skb, lin->data, head);
	memcpy(page_address(page), lin->data + head, lin->len - head);
	skb_add_rx_frag(skb, 0, page, 0, lin->len - head, PAGE_SIZE);
	kfree_skb(lin);
	test->priv = skb;
	return skb;
}

/* Build @f in an skb (freed by the suite's exit) and return it. */
static struct sk_buff *nh_build(struct kunit *test, const struct nh_frame *f)
{
	unsigned int thlen = f->proto == IPPROTO_TCP ?
		(f->doff ?: 5) * 4 : sizeof(struct udphdr);
	unsigned int len = nh_l4(f) + thlen + f->payload;
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);
	struct tcphdr *th;
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	test->priv = skb;
	KUNIT_ASSERT_GT(test, len, f->cut);
	p = skb_put_zero(skb, len - f->cut);
	if (f->cut)	/* the headers, whole, in a scratch copy; the frame cut */
		p = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	eth_broadcast_addr(p);
	if (f->vlan) {
		*(__be16 *)(p + 12) = htons(ETH_P_8021Q);
		*(__be16 *)(p + 14) = htons(10);
	}
	*(__be16 *)(p + nh_l3(f) - 2) = htons(f->ipv6 ? ETH_P_IPV6 : ETH_P_IP);
	nh_put_ip(f, p + nh_l3(f), thlen + f->payload);
	th = (struct tcphdr *)(p + nh_l4(f));
	if (f->proto == IPPROTO_TCP) {
		th->doff = f->doff ?: 5;
		th->ack = 1;
		th->cwr = f->cwr;
	} else {
		((struct udphdr *)th)->len = htons(thlen + f->payload);
		/* Bytes that read as a 20-byte TCP header: only the protocol tells. */
		if (f->payload > 8)
			((u8 *)th)[12] = 5 << 4;
	}
	if (f->cut)
		memcpy(skb->data, p, len - f->cut);
	return f->head ? nh_split(test, skb, f->head) : skb;
}

static void nh_exit(struct kunit *test)
{
	kfree_skb(test->priv);
}

/* A header for a TSO frame of @f: GSO, NEEDS_CSUM in its TCP header. */
static struct virtio_net_hdr nh_tso(const struct nh_frame *f)
{
	struct virtio_net_hdr hdr = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = f->ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4,
		.gso_size = (__force __virtio16)cpu_to_le16(1448),
		.csum_start = (__force __virtio16)cpu_to_le16(nh_l4(f)),
		.csum_offset = (__force __virtio16)cpu_to_le16(offsetof(struct tcphdr, check)),
	};

	return hdr;
}

/* The check passes @hdr, and the kernel applies it: a TSO skb results. */
static void nh_expect_applied(struct kunit *test, struct sk_buff *skb,
			      const struct virtio_net_hdr *hdr, u64 features)
{
	KUNIT_EXPECT_NULL(test, v4net_hdr_check(skb, hdr, features));
	KUNIT_ASSERT_EQ(test, virtio_net_hdr_to_skb(skb, hdr, true), 0);
	KUNIT_EXPECT_TRUE(test, skb_is_gso(skb));
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_size, 1448);
	KUNIT_EXPECT_EQ(test, (int)skb->ip_summed, CHECKSUM_PARTIAL);
}

static void true_tso_headers_pass(struct kunit *test)
{
	struct nh_frame v4 = { .proto = IPPROTO_TCP, .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&v4);

	nh_expect_applied(test, nh_build(test, &v4), &hdr, NH_ALL);
	KUNIT_EXPECT_TRUE(test, skb_shinfo((struct sk_buff *)test->priv)->gso_type & SKB_GSO_TCPV4);
}

static void true_tso6_header_with_vlan_passes(struct kunit *test)
{
	struct nh_frame v6 = { .ipv6 = true, .vlan = true, .proto = IPPROTO_TCP,
			       .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&v6);

	nh_expect_applied(test, nh_build(test, &v6), &hdr, NH_ALL);
	KUNIT_EXPECT_TRUE(test, skb_shinfo((struct sk_buff *)test->priv)->gso_type & SKB_GSO_TCPV6);
}

/* An extension header before TCP is skipped, as the kernel's IPv6 GSO does. */
static void true_tso6_header_after_hop_by_hop_passes(struct kunit *test)
{
	struct nh_frame v6 = { .ipv6 = true, .hop_by_hop = true, .proto = IPPROTO_TCP,
			       .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&v6);

	nh_expect_applied(test, nh_build(test, &v6), &hdr, NH_ALL);
}

static void true_ecn_header_with_cwr_passes(struct kunit *test)
{
	struct nh_frame f = { .proto = IPPROTO_TCP, .cwr = true, .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&f);

	hdr.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	nh_expect_applied(test, nh_build(test, &f), &hdr, NH_ALL);
}

static void true_csum_headers_pass(struct kunit *test)
{
	struct nh_frame f = { .proto = IPPROTO_UDP, .payload = 100 };
	struct virtio_net_hdr hdr = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.csum_start = (__force __virtio16)cpu_to_le16(nh_l4(&f)),
		.csum_offset = (__force __virtio16)cpu_to_le16(offsetof(struct udphdr, check)),
	};
	struct sk_buff *skb = nh_build(test, &f);

	KUNIT_EXPECT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	hdr.flags = VIRTIO_NET_HDR_F_DATA_VALID;
	KUNIT_EXPECT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	hdr.flags = 0;
	KUNIT_EXPECT_NULL(test, v4net_hdr_check(skb, &hdr, 0));
}

/*
 * Why the check exists: where a driver calls it, 6.1's own check alone takes
 * the lie. This case tests the kernel, not the driver: it fails once a kernel
 * refuses the lie itself (then the driver's check is only a second line).
 */
static void kernel_check_alone_takes_udp_as_tcp(struct kunit *test)
{
	struct nh_frame f = { .proto = IPPROTO_UDP, .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&f);
	struct sk_buff *skb = nh_build(test, &f);

	hdr.flags = 0;
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	KUNIT_EXPECT_EQ(test, virtio_net_hdr_to_skb(skb, &hdr, true), 0);
	KUNIT_EXPECT_TRUE(test, skb_is_gso(skb));
}

/* Each lie about segmentation, with and without NEEDS_CSUM. */
static void gso_of_what_is_not_tcp_refused(struct kunit *test)
{
	static const struct nh_frame lies[] = {
		{ .proto = IPPROTO_UDP, .payload = NH_PAYLOAD },
		{ .proto = IPPROTO_ICMP, .payload = NH_PAYLOAD },
		{ .ipv6 = true, .proto = IPPROTO_UDP, .payload = NH_PAYLOAD },
		{ .proto = IPPROTO_TCP, .fragment = true, .payload = NH_PAYLOAD },
		{ .proto = IPPROTO_TCP, .payload = 0 },
		{ .proto = IPPROTO_TCP, .doff = 15, .payload = 0, .cut = 20 },
		{ .proto = IPPROTO_TCP, .doff = 4, .payload = NH_PAYLOAD },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lies); i++) {
		struct virtio_net_hdr hdr = nh_tso(&lies[i]);
		struct sk_buff *skb = nh_build(test, &lies[i]);

		KUNIT_EXPECT_NOT_NULL_MSG(test, v4net_hdr_check(skb, &hdr, NH_ALL),
					  "lie %u with NEEDS_CSUM", i);
		hdr.flags = 0;
		KUNIT_EXPECT_NOT_NULL_MSG(test, v4net_hdr_check(skb, &hdr, NH_ALL),
					  "lie %u without NEEDS_CSUM", i);
		kfree_skb(skb);
		test->priv = NULL;
	}
}

static void gso_type_of_other_ip_version_refused(struct kunit *test)
{
	struct nh_frame v6 = { .ipv6 = true, .proto = IPPROTO_TCP, .payload = NH_PAYLOAD };
	struct nh_frame v4 = { .proto = IPPROTO_TCP, .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&v4);

	hdr.flags = 0;
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(nh_build(test, &v6), &hdr, NH_ALL));
}

static void gso_size_zero_refused(struct kunit *test)
{
	struct nh_frame f = { .proto = IPPROTO_TCP, .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&f);

	hdr.gso_size = 0;
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(nh_build(test, &f), &hdr, NH_ALL));
}

static void csum_outside_frame_refused(struct kunit *test)
{
	struct nh_frame f = { .proto = IPPROTO_UDP, .payload = 100 };
	struct sk_buff *skb = nh_build(test, &f);
	struct virtio_net_hdr hdr = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.csum_start = (__force __virtio16)cpu_to_le16(skb->len - 1),
		.csum_offset = 0,
	};

	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	hdr.csum_start = (__force __virtio16)cpu_to_le16(nh_l4(&f));
	hdr.csum_offset = (__force __virtio16)cpu_to_le16(0xfff0);
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	hdr.csum_start = (__force __virtio16)cpu_to_le16(2);	/* in the MAC header */
	hdr.csum_offset = 0;
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
}

static void gso_csum_not_in_tcp_header_refused(struct kunit *test)
{
	struct nh_frame f = { .proto = IPPROTO_TCP, .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&f);
	struct sk_buff *skb = nh_build(test, &f);

	hdr.csum_offset = (__force __virtio16)cpu_to_le16(6);
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	hdr = nh_tso(&f);
	hdr.csum_start = (__force __virtio16)cpu_to_le16(nh_l4(&f) + 20);
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
}

/* Flags, GSO types and ECN the driver did not negotiate, or that the frame belies. */
static void what_was_not_negotiated_refused(struct kunit *test)
{
	struct nh_frame f = { .proto = IPPROTO_TCP, .cwr = true, .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&f);
	struct sk_buff *skb = nh_build(test, &f);

	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL &
				~BIT_ULL(VIRTIO_NET_F_GUEST_TSO4)));
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL &
				~BIT_ULL(VIRTIO_NET_F_GUEST_CSUM)));
	hdr.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL &
				~BIT_ULL(VIRTIO_NET_F_GUEST_ECN)));
	hdr = nh_tso(&f);
	hdr.gso_type = VIRTIO_NET_HDR_GSO_UDP;
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	hdr = nh_tso(&f);
	hdr.flags |= 0x80;
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	hdr = (struct virtio_net_hdr){ .gso_type = VIRTIO_NET_HDR_GSO_ECN };
	KUNIT_EXPECT_NOT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
}

/* Large receives as GRO or LRO makes them: GSO with DATA_VALID, or no flag, and no NEEDS_CSUM. */
static void true_gro_headers_pass(struct kunit *test)
{
	struct nh_frame f = { .vlan = true, .proto = IPPROTO_TCP, .payload = NH_PAYLOAD };
	struct virtio_net_hdr hdr = nh_tso(&f);
	struct sk_buff *skb = nh_build(test, &f);

	hdr.flags = VIRTIO_NET_HDR_F_DATA_VALID;
	KUNIT_EXPECT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
	hdr.flags = 0;
	KUNIT_EXPECT_NULL(test, v4net_hdr_check(skb, &hdr, NH_ALL));
}

/* DATA_VALID needs no feature (virtio 1.3; TAP backends set it without GUEST_CSUM). */
static void data_valid_without_guest_csum_passes(struct kunit *test)
{
	struct nh_frame f = { .proto = IPPROTO_UDP, .payload = 100 };
	struct virtio_net_hdr hdr = { .flags = VIRTIO_NET_HDR_F_DATA_VALID };

	KUNIT_EXPECT_NULL(test, v4net_hdr_check(nh_build(test, &f), &hdr, 0));
}

/* Headers that straddle the skb's head and its first fragment are pulled, then checked. */
static void true_headers_in_a_fragment_pass(struct kunit *test)
{
	struct nh_frame v6 = { .ipv6 = true, .vlan = true, .hop_by_hop = true,
			       .proto = IPPROTO_TCP, .doff = 15, .payload = NH_PAYLOAD,
			       .head = 40 };
	struct virtio_net_hdr hdr = nh_tso(&v6);
	struct sk_buff *skb = nh_build(test, &v6);

	KUNIT_ASSERT_TRUE(test, skb_is_nonlinear(skb));
	nh_expect_applied(test, skb, &hdr, NH_ALL);
}

static void lies_in_a_fragment_refused(struct kunit *test)
{
	static const struct nh_frame lies[] = {
		{ .proto = IPPROTO_UDP, .payload = NH_PAYLOAD, .head = 20 },
		{ .ipv6 = true, .vlan = true, .proto = IPPROTO_UDP, .payload = NH_PAYLOAD,
		  .head = 60 },
		{ .proto = IPPROTO_TCP, .doff = 15, .payload = 0, .cut = 20, .head = 40 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lies); i++) {
		struct virtio_net_hdr hdr = nh_tso(&lies[i]);
		struct sk_buff *skb = nh_build(test, &lies[i]);

		KUNIT_EXPECT_TRUE_MSG(test, skb_is_nonlinear(skb), "lie %u", i);
		KUNIT_EXPECT_NOT_NULL_MSG(test, v4net_hdr_check(skb, &hdr, NH_ALL), "lie %u", i);
		kfree_skb(skb);
		test->priv = NULL;
	}
}

static struct kunit_case virtio4_net_hdr_cases[] = {
	KUNIT_CASE(true_tso_headers_pass),
	KUNIT_CASE(true_tso6_header_with_vlan_passes),
	KUNIT_CASE(true_tso6_header_after_hop_by_hop_passes),
	KUNIT_CASE(true_ecn_header_with_cwr_passes),
	KUNIT_CASE(true_csum_headers_pass),
	KUNIT_CASE(kernel_check_alone_takes_udp_as_tcp),
	KUNIT_CASE(gso_of_what_is_not_tcp_refused),
	KUNIT_CASE(gso_type_of_other_ip_version_refused),
	KUNIT_CASE(gso_size_zero_refused),
	KUNIT_CASE(csum_outside_frame_refused),
	KUNIT_CASE(gso_csum_not_in_tcp_header_refused),
	KUNIT_CASE(what_was_not_negotiated_refused),
	KUNIT_CASE(true_gro_headers_pass),
	KUNIT_CASE(data_valid_without_guest_csum_passes),
	KUNIT_CASE(true_headers_in_a_fragment_pass),
	KUNIT_CASE(lies_in_a_fragment_refused),
	{}
};

static struct kunit_suite virtio4_net_hdr_suite = {
	.name = "virtio4-net-hdr",
	.exit = nh_exit,
	.test_cases = virtio4_net_hdr_cases,
};

kunit_test_suite(virtio4_net_hdr_suite);

MODULE_DESCRIPTION("KUnit tests for the virtio4 network driver's receive header check");
MODULE_LICENSE("GPL");
