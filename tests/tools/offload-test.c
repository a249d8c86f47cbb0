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
 * One line per case: "pass offload:NAME" or "fail offload:NAME why".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../tools/virtio4-host/offload.h"

#define MAX_FRAME	70000

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

/* A TCP frame of @payload bytes as Linux's TSO hands it over; returns its length. */
static size_t make_frame(unsigned char *f, int v6, int vlan, size_t payload, unsigned char flags)
{
	size_t l3 = 14 + (vlan ? 4 : 0), l4 = l3 + (v6 ? 40 : 20), i, len;
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
		f[l3] = 0x45;
		f[l3 + 4] = 0xab;	/* id 0xabfe: wraps past 0xffff */
		f[l3 + 5] = 0xfe;
		f[l3 + 8] = 64;
		f[l3 + 9] = 6;
		memcpy(f + l3 + 12, "\xa9\xfe\x14\x01\xa9\xfe\x14\x02", 8);
	}
	/* TCP: ports, sequence number 0xffffffd0 (wraps in the first segment), data offset 8. */
	memcpy(f + l4, "\x13\x89\xc0\x01\xff\xff\xff\xd0\x00\x00\x00\x01\x80", 13);
	f[l4 + 13] = flags;
	f[l4 + 14] = 0x01;
	for (i = 0; i < payload; i++)
		f[l4 + 32 + i] = (unsigned char)(i * 7 + i / 251);
	len = l4 + 32 + payload;
	if (v6) {
		f[l3 + 4] = (len - l4) >> 8;
		f[l3 + 5] = (len - l4) & 0xff;
	} else {
		f[l3 + 2] = (len - l3) >> 8;
		f[l3 + 3] = (len - l3) & 0xff;
		ps = ~sum16(f + l3, 20, 0) & 0xffff;
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
	int v6, n, short_seen;
	unsigned char data[MAX_FRAME];
	size_t data_len;
	unsigned char first_flags, last_flags, middle_flags;
	char why[200];
};

static void bad(struct got *g, const char *what)
{
	if (!g->why[0])
		snprintf(g->why, sizeof(g->why), "segment %d: %s", g->n, what);
}

static void emit(void *arg, const unsigned char *s, uint32_t len)
{
	struct got *g = arg;
	size_t chunk = len - g->hlen;
	unsigned long seq = be32(g->orig + g->l4 + 4) + g->data_len;

	/* Every segment but the last carries gso_size bytes. */
	if (len < g->hlen || chunk > g->gso || g->short_seen)
		bad(g, "length");
	g->short_seen = chunk < g->gso;
	if (memcmp(s, g->orig, g->l3) || memcmp(s + g->l4, g->orig + g->l4, 4))
		bad(g, "Ethernet header or ports changed");
	if (g->v6) {
		if (be16(s + g->l3 + 4) != len - g->l4)
			bad(g, "IPv6 payload length");
	} else {
		if (be16(s + g->l3 + 2) != len - g->l3)
			bad(g, "IPv4 total length");
		if (be16(s + g->l3 + 4) != ((be16(g->orig + g->l3 + 4) + g->n) & 0xffff))
			bad(g, "IPv4 id");
		if (sum16(s + g->l3, 20, 0) != 0xffff)
			bad(g, "IPv4 header checksum");
	}
	if (be32(s + g->l4 + 4) != (seq & 0xffffffff))
		bad(g, "sequence number");
	if (sum16(s + g->l4, len - g->l4, pseudo(s, g->l3, g->v6, len - g->l4)) != 0xffff)
		bad(g, "TCP checksum");
	if (g->data_len + chunk > sizeof(g->data)) {
		bad(g, "more payload than was sent");
		return;
	}
	memcpy(g->data + g->data_len, s + g->hlen, chunk);
	g->data_len += chunk;
	if (!g->n)
		g->first_flags = s[g->l4 + 13];
	else
		g->middle_flags |= s[g->l4 + 13];
	g->last_flags = s[g->l4 + 13];
	g->n++;
}

/* Segment a frame of @payload bytes at @gso and check every segment. */
static void segment_case(const char *name, int v6, int vlan, size_t payload, size_t gso,
			 unsigned char flags)
{
	static unsigned char f[MAX_FRAME];
	static struct got g;
	size_t len = make_frame(f, v6, vlan, payload, flags);
	int n, want = payload ? (int)((payload + gso - 1) / gso) : 1;

	memset(&g, 0, sizeof(g));
	g.orig = f;
	g.v6 = v6;
	g.gso = gso;
	g.l3 = 14 + (vlan ? 4 : 0);
	g.l4 = g.l3 + (v6 ? 40 : 20);
	g.hlen = g.l4 + 32;
	n = offload_segment(f, len, v6, gso, emit, &g);
	if (!g.why[0] && (n != want || g.n != want))
		snprintf(g.why, sizeof(g.why), "%d segments (%d emitted), expected %d", n, g.n, want);
	if (!g.why[0] && (g.data_len != payload || memcmp(g.data, f + g.hlen, payload)))
		snprintf(g.why, sizeof(g.why), "payload put together differs (%zu of %zu bytes)",
			 g.data_len, payload);
	/* FIN and PSH only on the last segment, CWR only on the first. */
	if (!g.why[0] && want > 1 && ((g.first_flags & 0x09) || (g.middle_flags & 0x80) ||
				      (g.last_flags & 0x09) != (flags & 0x09) ||
				      (g.first_flags & 0x80) != (flags & 0x80)))
		snprintf(g.why, sizeof(g.why), "flags first %#x later %#x last %#x (sent %#x)",
			 g.first_flags, g.middle_flags, g.last_flags, flags);
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
	size_t len = make_frame(f, 0, 0, 1001, 0x18), l4 = 34;

	verdict("checksum-tcp4", offload_checksum(f, len, l4, 16) &&
		sum16(f + l4, len - l4, pseudo(f, 14, 0, len - l4)) == 0xffff,
		"the completed TCP checksum does not verify");
	len = make_frame(f, 1, 1, 3, 0x18);
	l4 = 18 + 40;
	verdict("checksum-tcp6-vlan", offload_checksum(f, len, l4, 16) &&
		sum16(f + l4, len - l4, pseudo(f, 18, 1, len - l4)) == 0xffff,
		"the completed TCP checksum does not verify");
	verdict("checksum-offset-past-end", !offload_checksum(f, len, l4, len - l4 - 1) &&
		!offload_checksum(f, len, len, 0) && !offload_checksum(f, len, 0xffffffffu, 16) &&
		!offload_checksum(f, len, l4, 0xfffffff0u),
		"a start or offset outside the frame was accepted");
}

int main(void)
{
	static unsigned char f[MAX_FRAME];
	size_t len;

	checksum_cases();
	segment_case("tcp4-64k", 0, 0, 65000, 1448, 0x18);
	segment_case("tcp6-64k", 1, 0, 65000, 1428, 0x18);
	segment_case("tcp4-vlan-fin-cwr", 0, 1, 10000, 1448, 0x99);
	segment_case("tcp4-exact-multiple", 0, 0, 1448 * 3, 1448, 0x10);
	segment_case("tcp6-one-segment", 1, 0, 100, 1428, 0x18);
	segment_case("tcp4-no-payload", 0, 0, 0, 1448, 0x11);
	segment_case("tcp4-jumbo", 0, 0, 60000, 8948, 0x18);

	len = make_frame(f, 0, 0, 5000, 0x18);
	refuse_case("refuse-gso-size-0", f, len, 0, 0);
	refuse_case("refuse-gso-size-too-large", f, len, 0, 70000);
	refuse_case("refuse-ipv4-frame-as-ipv6", f, len, 1, 1448);
	refuse_case("refuse-truncated-headers", f, 14 + 20 + 10, 0, 1448);
	f[14 + 9] = 17;	/* UDP */
	refuse_case("refuse-not-tcp", f, len, 0, 1448);
	len = make_frame(f, 0, 0, 5000, 0x18);
	f[14] = 0x4f;	/* IHL 60 bytes: the TCP header would start past the end */
	refuse_case("refuse-ihl-past-end", f, 14 + 60 + 10, 0, 1448);
	len = make_frame(f, 0, 0, 5000, 0x18);
	f[14] = 0x40;	/* IHL 0: the "TCP header" would be the IP header */
	refuse_case("refuse-ihl-short", f, len, 0, 1448);
	len = make_frame(f, 0, 0, 5000, 0x18);
	f[14 + 20 + 12] = 0x10;	/* TCP data offset 4: shorter than a TCP header */
	refuse_case("refuse-tcp-offset-short", f, len, 0, 1448);
	len = make_frame(f, 0, 0, 5000, 0x18);
	f[12] = 0x08;
	f[13] = 0x06;	/* ARP */
	refuse_case("refuse-not-ip", f, len, 0, 1448);
	return failed;
}
