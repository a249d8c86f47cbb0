// SPDX-License-Identifier: GPL-2.0
/*
 * Receive-side scaling's hash (see rss.h). The frame comes from the other
 * guest: every offset is checked against its length before it is read.
 */
#include <linux/if_ether.h>
#include <linux/virtio_net.h>
#include <string.h>
#include "rss.h"

#define PROTO_TCP	6
#define PROTO_UDP	17

uint32_t rss_toeplitz(const uint8_t *key, unsigned int key_len, const uint8_t *in,
		      unsigned int len)
{
	uint32_t hash = 0, window = 0;
	unsigned int i, bit, next;

	/* The key's first 32 bits; then each input bit shifts in the key's next one. */
	for (i = 0; i < 4; i++)
		window = window << 8 | (i < key_len ? key[i] : 0);
	for (i = 0; i < len; i++) {
		next = i + 4 < key_len ? key[i + 4] : 0;
		for (bit = 0; bit < 8; bit++) {
			if (in[i] & (0x80 >> bit))
				hash ^= window;
			window = window << 1 | !!(next & (0x80 >> bit));
		}
	}
	return hash;
}

/*
 * The next header after the IP header at @l3 (IPv6 if @v6; its fixed part
 * inside the frame) and where it starts; false if none that has ports.
 */
static bool rss_l4(const unsigned char *f, uint32_t l3, bool v6,
		   unsigned int *proto, uint32_t *l4)
{
	if (v6) {
		*proto = f[l3 + 6];
		*l4 = l3 + 40;
		return true;
	}
	/* A fragment has no ports (a first one has, but the others would go elsewhere). */
	if ((f[l3 + 6] & 0x3f) || f[l3 + 7])
		return false;
	*proto = f[l3 + 9];
	*l4 = l3 + (f[l3] & 0xf) * 4;
	return (f[l3] & 0xf) >= 5;
}

bool rss_hash(const uint8_t *key, unsigned int key_len, uint32_t types,
	      const unsigned char *frame, uint32_t len, uint32_t *hash)
{
	uint32_t l3 = ETH_HLEN, l4, tuple_len, addr_len;
	uint32_t ip_type, tcp_type, udp_type;
	unsigned char tuple[36];
	unsigned int ethertype, proto;
	bool v6;

	if (len < ETH_HLEN)
		return false;
	ethertype = frame[12] << 8 | frame[13];
	if (ethertype == ETH_P_8021Q && len >= ETH_HLEN + 4) {
		ethertype = frame[16] << 8 | frame[17];
		l3 += 4;
	}
	v6 = ethertype == ETH_P_IPV6;
	if (ethertype != ETH_P_IP && !v6)
		return false;
	addr_len = v6 ? 16 : 4;
	if (len < l3 + (v6 ? 40 : 20) || frame[l3] >> 4 != (v6 ? 6 : 4))
		return false;
	ip_type = v6 ? VIRTIO_NET_RSS_HASH_TYPE_IPv6 : VIRTIO_NET_RSS_HASH_TYPE_IPv4;
	tcp_type = v6 ? VIRTIO_NET_RSS_HASH_TYPE_TCPv6 : VIRTIO_NET_RSS_HASH_TYPE_TCPv4;
	udp_type = v6 ? VIRTIO_NET_RSS_HASH_TYPE_UDPv6 : VIRTIO_NET_RSS_HASH_TYPE_UDPv4;
	/* Source then destination address: at 12 in IPv4, 8 in IPv6. */
	memcpy(tuple, frame + l3 + (v6 ? 8 : 12), 2 * addr_len);
	tuple_len = 2 * addr_len;
	if (rss_l4(frame, l3, v6, &proto, &l4) && len >= l4 + 4 &&
	    ((proto == PROTO_TCP && (types & tcp_type)) ||
	     (proto == PROTO_UDP && (types & udp_type)))) {
		memcpy(tuple + tuple_len, frame + l4, 4);	/* source, destination port */
		tuple_len += 4;
	} else if (!(types & ip_type)) {
		return false;
	}
	*hash = rss_toeplitz(key, key_len, tuple, tuple_len);
	return true;
}
