// SPDX-License-Identifier: GPL-2.0
/*
 * What a virtio-net device does for a driver that offloads work to it and
 * a peer that did not negotiate taking it: complete a partial checksum
 * (VIRTIO_NET_HDR_F_NEEDS_CSUM) and cut a TCP segmentation offload frame
 * (VIRTIO_NET_HDR_GSO_TCPV4/6) into frames of gso_size bytes of payload,
 * each with its own IP length, IPv4 id and checksum, TCP sequence number,
 * flags and checksum. The frames come from the guest: every offset is
 * checked against the frame before it is used.
 */
#include <arpa/inet.h>
#include <string.h>
#include "offload.h"

#define ETH_HLEN	14
#define VLAN_HLEN	4
#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86dd
#define ETH_P_8021Q	0x8100
#define IPPROTO_TCP_NR	6
#define TCP_FIN		0x01
#define TCP_PSH		0x08
#define TCP_CWR		0x80

/* Where a TCP frame's headers and payload start. */
struct offload_gso {
	uint32_t l3, l4, payload;
};

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* The ones' complement sum of @len bytes at @p, added to @sum (not folded). */
static uint32_t csum_add(uint32_t sum, const unsigned char *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += get16(p + i);
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

bool offload_checksum(unsigned char *frame, uint32_t len, uint32_t start,
		      uint32_t offset)
{
	uint16_t c;

	if (start >= len || offset > len - start || len - start - offset < 2)
		return false;
	/* The field holds the pseudo-header's sum: it is summed as it is. */
	c = csum_fold(csum_add(0, frame + start, len - start));
	/* 0 would mean "no checksum" to UDP: 0xffff is the same sum. */
	put16(frame + start + offset, c ? c : 0xffff);
	return true;
}

/* Where a frame's IP header starts, and its EtherType; false if neither IPv4 nor IPv6. */
static bool net_l3(const unsigned char *frame, uint32_t len, uint32_t *l3, uint16_t *proto)
{
	*l3 = ETH_HLEN;
	if (len < ETH_HLEN)
		return false;
	*proto = get16(frame + 12);
	if (*proto == ETH_P_8021Q) {
		if (len < ETH_HLEN + VLAN_HLEN)
			return false;
		*proto = get16(frame + 16);
		*l3 += VLAN_HLEN;
	}
	return *proto == ETH_P_IP || *proto == ETH_P_IPV6;
}

/*
 * Parse the headers of a TCP frame: its IP header at @g->l3, its TCP header
 * at @g->l4, its payload at @g->payload. False if the frame is not what a
 * @v6 TCP segmentation offload frame must be.
 */
static bool net_tcp_headers(struct offload_gso *g, const unsigned char *f,
			    uint32_t len, bool v6)
{
	uint16_t proto;
	uint32_t ihl;

	if (!net_l3(f, len, &g->l3, &proto) || proto != (v6 ? ETH_P_IPV6 : ETH_P_IP))
		return false;
	if (v6) {
		/* No extension headers: the next header must be TCP. */
		if (len < g->l3 + 40 || f[g->l3] >> 4 != 6 || f[g->l3 + 6] != IPPROTO_TCP_NR)
			return false;
		g->l4 = g->l3 + 40;
	} else {
		if (len < g->l3 + 20 || f[g->l3] >> 4 != 4)
			return false;
		ihl = (f[g->l3] & 0xf) * 4;
		if (ihl < 20 || f[g->l3 + 9] != IPPROTO_TCP_NR)
			return false;
		g->l4 = g->l3 + ihl;
	}
	if (len < g->l4 + 20 || (f[g->l4 + 12] >> 4) * 4 < 20)
		return false;
	g->payload = g->l4 + (f[g->l4 + 12] >> 4) * 4;
	return len >= g->payload;
}

/* The TCP checksum of segment @seg (@len bytes; headers as @g says), written into it. */
static void net_tcp_checksum(unsigned char *seg, uint32_t len,
			     const struct offload_gso *g, bool v6)
{
	uint32_t tcp_len = len - g->l4, sum;

	put16(seg + g->l4 + 16, 0);
	if (v6)	/* source and destination addresses */
		sum = csum_add(0, seg + g->l3 + 8, 32);
	else
		sum = csum_add(0, seg + g->l3 + 12, 8);
	sum += IPPROTO_TCP_NR + (tcp_len >> 16) + (tcp_len & 0xffff);
	put16(seg + g->l4 + 16, csum_fold(csum_add(sum, seg + g->l4, tcp_len)));
}

int offload_segment(const unsigned char *frame, uint32_t len, bool v6,
		    uint32_t gso_size,
		    void (*emit)(void *arg, const unsigned char *seg, uint32_t len),
		    void *arg)
{
	static unsigned char seg[OFFLOAD_MAX_SEGMENT];
	uint32_t off, chunk, most, seq, n = 0;
	struct offload_gso g;
	uint8_t flags;
	uint16_t id;

	if (!gso_size || !net_tcp_headers(&g, frame, len, v6))
		return -1;
	/*
	 * The largest segment must fit its IP length field, 65535 bytes from
	 * the IPv4 header or after the IPv6 one: then it fits seg too.
	 */
	most = len - g.payload < gso_size ? len - g.payload : gso_size;
	if (g.payload - (v6 ? g.l4 : g.l3) + most > 0xffff)
		return -1;
	seq = (uint32_t)get16(frame + g.l4 + 4) << 16 | get16(frame + g.l4 + 6);
	flags = frame[g.l4 + 13];
	id = v6 ? 0 : get16(frame + g.l3 + 4);
	for (off = g.payload; off < len || n == 0; off += chunk, n++) {
		chunk = len - off < gso_size ? len - off : gso_size;
		memcpy(seg, frame, g.payload);
		memcpy(seg + g.payload, frame + off, chunk);
		if (v6) {
			put16(seg + g.l3 + 4, g.payload - g.l4 + chunk);
		} else {
			put16(seg + g.l3 + 2, g.payload - g.l3 + chunk);
			put16(seg + g.l3 + 4, id + n);
			put16(seg + g.l3 + 10, 0);
			put16(seg + g.l3 + 10,
			      csum_fold(csum_add(0, seg + g.l3, g.l4 - g.l3)));
		}
		put16(seg + g.l4 + 4, (seq + off - g.payload) >> 16);
		put16(seg + g.l4 + 6, (seq + off - g.payload) & 0xffff);
		/* FIN and PSH on the last segment only, CWR on the first only. */
		seg[g.l4 + 13] = flags;
		if (off + chunk < len)
			seg[g.l4 + 13] &= ~(TCP_FIN | TCP_PSH);
		if (n)
			seg[g.l4 + 13] &= ~TCP_CWR;
		net_tcp_checksum(seg, g.payload + chunk, &g, v6);
		emit(arg, seg, g.payload + chunk);
	}
	return n;
}
