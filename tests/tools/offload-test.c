// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the device host's checksum and segmentation offload
 * (tools/virtio4-host/offload.c), run on the build host by make check
 * (T=offload alone). Builds TCP frames over IPv4 and IPv6, as Linux hands
 * them to a NIC with TSO (one large frame, the TCP checksum field holding
 * the pseudo-header's sum), and checks every frame the device host would
 * deliver: lengths, IPv4 ids and checksums, sequence numbers, flags, TCP
 * checksums (summed here independently), and that the payloads put back
 * together are the payload sent. Then frames that lie about themselves.
 * Then the RSS hash (tools/virtio4-host/rss.c): Microsoft's verification
 * vectors for the Toeplitz hash, and which bytes of which frames it covers
 * for each hash type.
 * One line per case: "pass offload:NAME" or "fail offload:NAME why".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/virtio_net.h>
#include "../../tools/virtio4-host/offload.h"
#include "../../tools/virtio4-host/rss.h"

#define MAX_FRAME	(18 + 60 + 60 + 65536 + 16)

static int failed;

/* A case's verdict: pass if @ok, else fail with the reason. */
static void verdict(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("pass offload:%s\n", name);
		return;
	}
	printf("fail offload:%s ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failed = 1;
}

static unsigned int be16(const unsigned char *p)
{
	return p[0] << 8 | p[1];
}

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)be16(p) << 16 | be16(p + 2);
}

/* RFC 1071, byte by byte: the folded ones' complement sum of @len bytes. */
static unsigned int sum16(const unsigned char *p, size_t len, unsigned long sum)
{
	size_t i;

	for (i = 0; i < len; i++)
		sum += i % 2 ? p[i] : p[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* The pseudo-header's sum of a TCP segment of @tcp_len bytes in @f (IP at @l3). */
static unsigned long pseudo(const unsigned char *f, size_t l3, int v6, size_t tcp_len)
{
	unsigned long sum = 6 + tcp_len;

	return v6 ? sum16(f + l3 + 8, 32, sum) : sum16(f + l3 + 12, 8, sum);
}

/*
 * A TCP frame of @payload bytes as Linux's TSO hands it over, its IPv4 header
 * with 4 bytes of options if @opts; returns its length.
 */
static size_t make_frame(unsigned char *f, int v6, int vlan, int opts, size_t payload,
			 unsigned char flags)
{
	size_t l3 = 14 + (vlan ? 4 : 0), ihl = v6 ? 40 : opts ? 24 : 20, l4 = l3 + ihl, i, len;
	unsigned int ps;

	memset(f, 0, l4 + 32);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (vlan)
		memcpy(f + 12, "\x81\x00\x00\x07", 4);
	memcpy(f + l3 - 2, v6 ? "\x86\xdd" : "\x08\x00", 2);
	if (v6) {
		f[l3] = 0x60;
		f[l3 + 6] = 6;
		f[l3 + 7] = 64;
		f[l3 + 8] = 0xfe;
		f[l3 + 9] = 0x80;
		f[l3 + 23] = 1;
		f[l3 + 24] = 0xfe;
		f[l3 + 25] = 0x80;
		f[l3 + 39] = 2;
	} else {
		f[l3] = 0x40 | ihl / 4;
		f[l3 + 1] = 0x02;	/* ECN capable */
		f[l3 + 4] = 0xff;	/* id 0xffe0: wraps past 0xffff */
		f[l3 + 5] = 0xe0;
		f[l3 + 6] = 0x40;	/* don't fragment */
		f[l3 + 8] = 64;
		f[l3 + 9] = 6;
		memcpy(f + l3 + 12, "\xa9\xfe\x14\x01\xa9\xfe\x14\x02", 8);
		if (opts)	/* router alert */
			memcpy(f + l3 + 20, "\x94\x04\x00\x00", 4);
	}
	/* TCP: ports, sequence number 0xffffffd0 (wraps in the first segment), data offset 8. */
	memcpy(f + l4, "\x13\x89\xc0\x01\xff\xff\xff\xd0\x00\x00\x00\x01\x80", 13);
	f[l4 + 13] = flags;
	f[l4 + 14] = 0x01;	/* window */
	f[l4 + 15] = 0xf5;
	f[l4 + 20] = 0x01;	/* options: NOP NOP timestamps */
	f[l4 + 21] = 0x01;
	f[l4 + 22] = 0x08;
	f[l4 + 23] = 0x0a;
	f[l4 + 27] = 0x2a;
	for (i = 0; i < payload; i++)
		f[l4 + 32 + i] = (unsigned char)(i * 7 + i / 251);
	len = l4 + 32 + payload;
	if (v6) {
		f[l3 + 4] = (len - l4) >> 8;
		f[l3 + 5] = (len - l4) & 0xff;
	} else {
		f[l3 + 2] = (len - l3) >> 8;
		f[l3 + 3] = (len - l3) & 0xff;
		ps = ~sum16(f + l3, ihl, 0) & 0xffff;
		f[l3 + 10] = ps >> 8;
		f[l3 + 11] = ps & 0xff;
	}
	/* The partial checksum: the pseudo-header's sum, not inverted. */
	ps = pseudo(f, l3, v6, len - l4);
	f[l4 + 16] = ps >> 8;
	f[l4 + 17] = ps & 0xff;
	return len;
}

/* What segmenting one frame gave: the segments' payloads put together, and what was wrong. */
struct got {
	const unsigned char *orig;
	size_t l3, l4, hlen, gso;
	int v6, n, want;
	unsigned char data[MAX_FRAME];
	size_t data_len;
	char why[200];
};

static void bad(struct got *g, const char *what)
{
	if (!g->why[0])
		snprintf(g->why, sizeof(g->why), "segment %d: %s", g->n, what);
}

/* Are bytes [@from, @to) of segment @s those of the frame sent? */
static int kept(const struct got *g, const unsigned char *s, size_t from, size_t to)
{
	return !memcmp(s + from, g->orig + from, to - from);
}

/* The fields no segment may change: all but lengths, id, sequence number, flags and checksums. */
static void check_kept(struct got *g, const unsigned char *s)
{
	size_t l3 = g->l3, l4 = g->l4;

	if (!kept(g, s, 0, l3))
		bad(g, "Ethernet header changed");
	if (g->v6 ? !kept(g, s, l3, l3 + 4) || !kept(g, s, l3 + 6, l4) :
		    !kept(g, s, l3, l3 + 2) || !kept(g, s, l3 + 6, l3 + 10) ||
		    !kept(g, s, l3 + 12, l4))
		bad(g, "an IP header field changed");
	if (!kept(g, s, l4, l4 + 4) || !kept(g, s, l4 + 8, l4 + 13) ||
	    !kept(g, s, l4 + 14, l4 + 16) || !kept(g, s, l4 + 18, g->hlen))
		bad(g, "a TCP header field changed");
}

static void emit(void *arg, const unsigned char *s, uint32_t len)
{
	struct got *g = arg;
	size_t chunk = len - g->hlen;
	unsigned long seq = be32(g->orig + g->l4 + 4) + g->data_len;
	unsigned char flags = g->orig[g->l4 + 13];

	/* Every segment but the last carries gso_size bytes. */
	if (len < g->hlen || chunk > g->gso || (g->n < g->want - 1 && chunk != g->gso)) {
		bad(g, "length");
		return;
	}
	check_kept(g, s);
	if (g->v6) {
		if (be16(s + g->l3 + 4) != len - g->l4)
			bad(g, "IPv6 payload length");
	} else {
		if (be16(s + g->l3 + 2) != len - g->l3)
			bad(g, "IPv4 total length");
		if (be16(s + g->l3 + 4) != ((be16(g->orig + g->l3 + 4) + g->n) & 0xffff))
			bad(g, "IPv4 id");
		if (sum16(s + g->l3, g->l4 - g->l3, 0) != 0xffff)
			bad(g, "IPv4 header checksum");
	}
	if (be32(s + g->l4 + 4) != (seq & 0xffffffff))
		bad(g, "sequence number");
	/* FIN and PSH on the last segment only, CWR on the first only. */
	if (g->n)
		flags &= ~0x80;
	if (g->n < g->want - 1)
		flags &= ~0x09;
	if (s[g->l4 + 13] != flags)
		bad(g, "TCP flags");
	if (sum16(s + g->l4, len - g->l4, pseudo(s, g->l3, g->v6, len - g->l4)) != 0xffff)
		bad(g, "TCP checksum");
	if (g->data_len + chunk > sizeof(g->data)) {
		bad(g, "more payload than was sent");
		return;
	}
	memcpy(g->data + g->data_len, s + g->hlen, chunk);
	g->data_len += chunk;
	g->n++;
}

/* Segment a frame of @payload bytes at @gso and check every segment. */
static void segment_case(const char *name, int v6, int vlan, int opts, size_t payload,
			 uint32_t gso, unsigned char flags)
{
	static unsigned char f[MAX_FRAME];
	static struct got g;
	size_t len = make_frame(f, v6, vlan, opts, payload, flags);
	int n;

	memset(&g, 0, sizeof(g));
	g.orig = f;
	g.v6 = v6;
	g.gso = gso;
	g.want = payload ? (int)((payload + gso - 1) / gso) : 1;
	g.l3 = 14 + (vlan ? 4 : 0);
	g.l4 = g.l3 + (v6 ? 40 : opts ? 24 : 20);
	g.hlen = g.l4 + 32;
	n = offload_segment(f, len, v6, gso, emit, &g);
	if (!g.why[0] && (n != g.want || g.n != g.want))
		snprintf(g.why, sizeof(g.why), "%d segments (%d emitted), expected %d", n, g.n,
			 g.want);
	if (!g.why[0] && (g.data_len != payload || memcmp(g.data, f + g.hlen, payload)))
		snprintf(g.why, sizeof(g.why), "payload put together differs (%zu of %zu bytes)",
			 g.data_len, payload);
	verdict(name, !g.why[0], "%s", g.why);
}

static void count_emit(void *arg, const unsigned char *s, uint32_t len)
{
	(void)s;
	(void)len;
	++*(int *)arg;
}

/* A frame that must be refused: -1, and nothing emitted. */
static void refuse_case(const char *name, unsigned char *f, size_t len, int v6, size_t gso)
{
	int emitted = 0, n = offload_segment(f, len, v6, gso, count_emit, &emitted);

	verdict(name, n == -1 && !emitted, "returned %d, emitted %d", n, emitted);
}

static void checksum_cases(void)
{
	static unsigned char f[MAX_FRAME];
	size_t len = make_frame(f, 0, 0, 0, 1001, 0x18), l4 = 34;

	verdict("checksum-tcp4", offload_checksum(f, len, l4, 16) &&
		sum16(f + l4, len - l4, pseudo(f, 14, 0, len - l4)) == 0xffff,
		"the completed TCP checksum does not verify");
	len = make_frame(f, 1, 1, 0, 3, 0x18);
	l4 = 18 + 40;
	verdict("checksum-tcp6-vlan", offload_checksum(f, len, l4, 16) &&
		sum16(f + l4, len - l4, pseudo(f, 18, 1, len - l4)) == 0xffff,
		"the completed TCP checksum does not verify");
	verdict("checksum-offset-past-end", !offload_checksum(f, len, l4, len - l4 - 1) &&
		!offload_checksum(f, len, len, 0) && !offload_checksum(f, len, 0xffffffffu, 16) &&
		!offload_checksum(f, len, l4, 0xfffffff0u),
		"a start or offset outside the frame was accepted");
}

/* The key of Microsoft's RSS verification suite. */
static const uint8_t rss_key[RSS_MAX_KEY] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* rss_hash() of @len bytes at @f for hash types @types, under the suite's key. */
static bool hash_of(uint32_t types, const unsigned char *f, size_t len, uint32_t *h)
{
	return rss_hash(rss_key, sizeof(rss_key), types, f, len, h);
}

/*
 * An Ethernet frame at @f of IP version @v (4 or 6) carrying protocol @proto
 * from @src:@sport to @dst:@dport (addresses of 4 or 16 bytes); its length.
 */
static size_t rss_frame(unsigned char *f, int v, unsigned int proto, const unsigned char *src,
			unsigned int sport, const unsigned char *dst, unsigned int dport)
{
	size_t alen = v == 4 ? 4 : 16, l3 = 14, l4 = l3 + (v == 4 ? 20 : 40);

	memset(f, 0, l4 + 20);
	f[12] = v == 4 ? 0x08 : 0x86;
	f[13] = v == 4 ? 0x00 : 0xdd;
	f[l3] = v == 4 ? 0x45 : 0x60;
	f[l3 + (v == 4 ? 9 : 6)] = proto;
	memcpy(f + l3 + (v == 4 ? 12 : 8), src, alen);
	memcpy(f + l3 + (v == 4 ? 16 : 24), dst, alen);
	f[l4] = sport >> 8;
	f[l4 + 1] = sport & 0xff;
	f[l4 + 2] = dport >> 8;
	f[l4 + 3] = dport & 0xff;
	return l4 + 20;
}

/* One row of the verification suite (IPv4): source, destination, and both hashes. */
struct rss_vector {
	unsigned char src[4], dst[4];
	unsigned int sport, dport;
	uint32_t ip_hash, tcp_hash;
};

static void rss_vector_cases(void)
{
	static const struct rss_vector v[] = {
		{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, 2794, 1766, 0x323e8fc2, 0x51ccc178 },
		{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, 14230, 4739, 0xd718262a, 0xc626b0ea },
		{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
		{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, 48228, 2217, 0x82989176, 0xafc7327f },
		{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, 44251, 1303,
		  0x5d1809c5, 0x10e828a2 },
	};
	unsigned char f[128];
	uint32_t ip = 0, tcp = 0;
	unsigned int i, bad = 0;
	size_t len;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		len = rss_frame(f, 4, 6, v[i].src, v[i].sport, v[i].dst, v[i].dport);
		if (!hash_of(VIRTIO_NET_RSS_HASH_TYPE_IPv4, f, len, &ip) ||
		    !hash_of(VIRTIO_NET_RSS_HASH_TYPE_TCPv4, f, len, &tcp) ||
		    ip != v[i].ip_hash || tcp != v[i].tcp_hash) {
			bad = i + 1;
			break;
		}
	}
	verdict("rss-toeplitz-ipv4-vectors", !bad,
		"row %u: 0x%08x and 0x%08x, not 0x%08x and 0x%08x", bad, ip, tcp,
		bad ? v[bad - 1].ip_hash : 0, bad ? v[bad - 1].tcp_hash : 0);
}

/* Which bytes each hash type covers, and which frames go unclassified. */
static void rss_type_cases(void)
{
	static const unsigned char s6[16] = { 0x3f, 0xfe, 0x25, 0x01, 2, 0, 0, 3, [15] = 1 };
	static const unsigned char d6[16] = { 0x3f, 0xfe, 0x25, 0x01, 2, 0, 0x1f, 0xff, [15] = 7 };
	static const unsigned char s4[4] = { 66, 9, 149, 187 }, d4[4] = { 161, 142, 100, 80 };
	const uint32_t all = VIRTIO_NET_RSS_HASH_TYPE_IPv4 | VIRTIO_NET_RSS_HASH_TYPE_TCPv4 |
			     VIRTIO_NET_RSS_HASH_TYPE_UDPv4 | VIRTIO_NET_RSS_HASH_TYPE_IPv6 |
			     VIRTIO_NET_RSS_HASH_TYPE_TCPv6 | VIRTIO_NET_RSS_HASH_TYPE_UDPv6;
	unsigned char f[128], tuple[36];
	uint32_t h = 0;
	size_t len;
	int ok;

	/* IPv6 over TCP: both addresses, then both ports, as IPv4's vectors lay them out. */
	memcpy(tuple, s6, 16);
	memcpy(tuple + 16, d6, 16);
	tuple[32] = 2794 >> 8;
	tuple[33] = 2794 & 0xff;
	tuple[34] = 1766 >> 8;
	tuple[35] = 1766 & 0xff;
	len = rss_frame(f, 6, 6, s6, 2794, d6, 1766);
	ok = hash_of(all, f, len, &h) &&
	     h == rss_toeplitz(rss_key, sizeof(rss_key), tuple, 36);
	verdict("rss-ipv6-tcp-tuple", ok, "0x%08x is not the hash of the addresses and ports", h);
	ok = hash_of(VIRTIO_NET_RSS_HASH_TYPE_IPv6, f, len, &h) &&
	     h == rss_toeplitz(rss_key, sizeof(rss_key), tuple, 32);
	verdict("rss-ipv6-tcp-off-addresses-only", ok,
		"0x%08x is not the hash of the addresses", h);
	ok = !hash_of(VIRTIO_NET_RSS_HASH_TYPE_IPv4 |
		       VIRTIO_NET_RSS_HASH_TYPE_TCPv4 | VIRTIO_NET_RSS_HASH_TYPE_UDPv4, f, len, &h);
	verdict("rss-ipv6-types-off-unclassified", ok,
		"an IPv6 frame was hashed with only IPv4 types on");

	len = rss_frame(f, 4, 17, s4, 2794, d4, 1766);
	ok = hash_of(VIRTIO_NET_RSS_HASH_TYPE_UDPv4, f, len, &h) &&
	     h == 0x51ccc178;
	verdict("rss-ipv4-udp", ok, "UDP over IPv4 hashed to 0x%08x, not as TCP's ports would", h);
	ok = !hash_of(VIRTIO_NET_RSS_HASH_TYPE_TCPv4, f, len, &h);
	verdict("rss-ipv4-udp-only-tcp-on-unclassified", ok,
		"a UDP frame was hashed with only TCPv4 on");
	f[14 + 6] = 0x20;	/* more fragments: no ports */
	ok = hash_of(all, f, len, &h) && h == 0x323e8fc2;
	verdict("rss-ipv4-fragment-addresses-only", ok,
		"a fragment hashed to 0x%08x, not over its addresses", h);
	f[12] = 0x08;
	f[13] = 0x06;	/* ARP */
	ok = !hash_of(all, f, 60, &h);
	verdict("rss-not-ip-unclassified", ok, "an ARP frame was hashed");

	len = rss_frame(f, 4, 6, s4, 2794, d4, 1766);
	ok = !hash_of(all, f, 14 + 19, &h);
	verdict("rss-truncated-unclassified", ok, "a frame shorter than its IP header was hashed");
	ok = hash_of(all, f, 14 + 20 + 3, &h) && h == 0x323e8fc2;
	verdict("rss-truncated-ports-addresses-only", ok,
		"a frame cut inside its ports hashed to 0x%08x", h);
}

int main(void)
{
	static unsigned char f[MAX_FRAME];
	size_t len;

	checksum_cases();
	segment_case("tcp4-64k", 0, 0, 0, 65000, 1448, 0x18);
	segment_case("tcp6-64k", 1, 0, 0, 65000, 1428, 0x18);
	segment_case("tcp4-vlan-fin-cwr", 0, 1, 0, 10000, 1448, 0x99);
	segment_case("tcp4-ip-options", 0, 0, 1, 5000, 1448, 0x18);
	segment_case("tcp4-exact-multiple", 0, 0, 0, 1448 * 3, 1448, 0x10);
	segment_case("tcp4-odd-sizes", 0, 0, 0, 3001, 999, 0x18);
	segment_case("tcp6-one-segment", 1, 0, 0, 100, 1428, 0x19);
	segment_case("tcp4-no-payload", 0, 0, 0, 0, 1448, 0x11);
	segment_case("tcp4-jumbo", 0, 0, 0, 60000, 8948, 0x18);
	segment_case("tcp4-gso-size-past-payload", 0, 0, 0, 5000, 0xfffffff0u, 0x18);
	/* The largest IPv4 segment: a total length of 65535. */
	segment_case("tcp4-largest-segment", 0, 0, 0, 65535 - 20 - 32, 65535, 0x18);
	/* The largest IPv6 one, behind a VLAN tag: 65535 bytes after the IPv6 header. */
	segment_case("tcp6-vlan-largest-segment", 1, 1, 0, 65535 - 32, 65535, 0x18);

	len = make_frame(f, 0, 0, 0, 65535 - 20 - 32 + 1, 0x18);
	refuse_case("refuse-ipv4-length-past-65535", f, len, 0, 0xffffu);
	len = make_frame(f, 1, 0, 0, 65535 - 32 + 1, 0x18);
	refuse_case("refuse-ipv6-length-past-65535", f, len, 1, 0xffffffffu);
	len = make_frame(f, 0, 0, 0, 5000, 0x18);
	refuse_case("refuse-gso-size-0", f, len, 0, 0);
	refuse_case("refuse-ipv4-frame-as-ipv6", f, len, 1, 1448);
	refuse_case("refuse-truncated-headers", f, 14 + 20 + 10, 0, 1448);
	f[14 + 9] = 17;	/* UDP */
	refuse_case("refuse-not-tcp", f, len, 0, 1448);
	len = make_frame(f, 0, 0, 0, 5000, 0x18);
	f[14] = 0x4f;	/* IHL 60 bytes: the TCP header would start past the end */
	refuse_case("refuse-ihl-past-end", f, 14 + 60 + 10, 0, 1448);
	len = make_frame(f, 0, 0, 0, 5000, 0x18);
	f[14] = 0x40;	/* IHL 0: the "TCP header" would be the IP header */
	refuse_case("refuse-ihl-short", f, len, 0, 1448);
	len = make_frame(f, 0, 0, 0, 5000, 0x18);
	f[14 + 20 + 12] = 0x10;	/* TCP data offset 4: shorter than a TCP header */
	refuse_case("refuse-tcp-offset-short", f, len, 0, 1448);
	len = make_frame(f, 0, 0, 0, 5000, 0x18);
	f[12] = 0x08;
	f[13] = 0x06;	/* ARP */
	refuse_case("refuse-not-ip", f, len, 0, 1448);
	len = make_frame(f, 1, 0, 0, 5000, 0x18);
	f[14] = 0x40;	/* IPv6 EtherType, version 4 */
	refuse_case("refuse-ipv6-version", f, len, 1, 1448);
	rss_vector_cases();
	rss_type_cases();
	return failed;
}
