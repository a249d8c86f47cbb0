// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-net devices: a pair joined back to back (what one transmits, the
 * other receives: a wire between two interfaces), or one device bridged to
 * a TAP interface. Queue 0 receives, queue 1 transmits; every packet has a
 * struct virtio_net_hdr_v1 in front. Received packets larger than one
 * buffer are spread over several when VIRTIO_NET_F_MRG_RXBUF is
 * negotiated (num_buffers), and dropped otherwise.
 *
 * With --offloads 0,1 (or 0, or 1: to those devices) net-pair offers checksum
 * and TCP segmentation offload and carries the header from one device
 * to the other as it is, as veth carries a GSO skb, where the receiving
 * device negotiated taking it; where it did not, the device host completes
 * the checksum or cuts the frame into MTU-sized ones itself (offload.c).
 * SIGUSR1 prints what each device carried and did (net_stats), in both modes.
 *
 * With --queues N (1..4) net-pair's devices offer N queue pairs
 * (VIRTIO_NET_F_MQ with the control queue it needs): queue 2i receives and
 * 2i + 1 transmits on pair i, queue 2N is the control queue, which takes
 * VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET (1 pair after a reset) and refuses every
 * other command. A frame is received on the pair its flow was given: each
 * new TCP or UDP flow (by a hash of its addresses and ports) gets the next
 * pair in use in turn, so that a few flows already cover every pair; other
 * frames go to pair 0.
 *
 * With --rss as well they offer VIRTIO_NET_F_RSS (a 40-byte key, a table of
 * 128 entries, hashes over IPv4, IPv6 and their TCP and UDP ports) and take
 * VIRTIO_NET_CTRL_MQ_RSS_CONFIG: from then on (until VQ_PAIRS_SET or a reset)
 * a frame goes to the receive queue the driver's table gives for its
 * Toeplitz hash under the driver's key (rss.c), an unclassified one to the
 * driver's unclassified queue. A configuration that does not fit what was
 * offered is refused whole (VIRTIO_NET_ERR). SIGUSR1 shows how many were
 * taken (rss_configs), the hash types (rss_types, VIRTIO_NET_RSS_HASH_TYPE_*
 * in hex), the key (rss_key, in hex) and how many table entries point at
 * each receive queue (rss_table, "n0,n1,...").
 *
 * With --no-mac the devices have no address of their own (no
 * VIRTIO_NET_F_MAC): they offer a control queue with CTRL_MAC_ADDR, take
 * VIRTIO_NET_CTRL_MAC_ADDR_SET, and receive no unicast frame but those to
 * the address they were given (until then, none): mac_dropped counts the
 * others, and SIGUSR1 shows the address (mac, "-" for none).
 *
 * With --misbehave stray-queue (and --queues N) the first device receives
 * every frame on its last pair, whether the driver uses it or not: the spec
 * forbids a queue above the pairs set by VQ_PAIRS_SET.
 *
 * With --misbehave ctrl-silent the first device also offers a control queue
 * (VIRTIO_NET_F_CTRL_VQ, CTRL_RX and CTRL_VLAN) and never answers a command
 * on it (ctrl_kept counts them).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include "host.h"
#include "offload.h"
#include "rss.h"

#define NET_QUEUE_SIZE	256
#define NET_MAX_PAIRS	4
#define NET_FLOWS	256	/* flows remembered, by hash */
#define NET_MAX_FRAME	65550
#define NET_BACKLOG	256
#define NET_SPLIT	64	/* bytes of each buffer used with --misbehave split */
#define NET_ECN		VIRTIO_NET_HDR_GSO_ECN
#define NET_RSS_TYPES	(VIRTIO_NET_RSS_HASH_TYPE_IPv4 | VIRTIO_NET_RSS_HASH_TYPE_TCPv4 | \
			 VIRTIO_NET_RSS_HASH_TYPE_UDPv4 | VIRTIO_NET_RSS_HASH_TYPE_IPv6 | \
			 VIRTIO_NET_RSS_HASH_TYPE_TCPv6 | VIRTIO_NET_RSS_HASH_TYPE_UDPv6)
#define NET_OFFLOADS	(1ULL << VIRTIO_NET_F_CSUM | 1ULL << VIRTIO_NET_F_GUEST_CSUM | \
			 1ULL << VIRTIO_NET_F_HOST_TSO4 | 1ULL << VIRTIO_NET_F_HOST_TSO6 | \
			 1ULL << VIRTIO_NET_F_HOST_ECN | 1ULL << VIRTIO_NET_F_GUEST_TSO4 | \
			 1ULL << VIRTIO_NET_F_GUEST_TSO6 | 1ULL << VIRTIO_NET_F_GUEST_ECN)

/* A receive buffer the driver made available. */
struct rxbuf {
	uint64_t token;
	uint32_t room;
};

/* One receive queue's buffers, in the order they were made available. */
struct rxq {
	struct rxbuf rx[NET_QUEUE_SIZE];
	unsigned int head, count;
};

/* Receive-side scaling as the driver configured it (VIRTIO_NET_CTRL_MQ_RSS_CONFIG). */
struct rss {
	bool offered;		/* --rss */
	bool on;		/* configured since the last reset or VQ_PAIRS_SET */
	uint32_t types;		/* VIRTIO_NET_RSS_HASH_TYPE_* */
	uint16_t table[RSS_MAX_TABLE];
	unsigned int mask;	/* table entries - 1 */
	uint16_t unclassified;
	uint8_t key[RSS_MAX_KEY];
	unsigned int key_len;
	unsigned long configs;	/* taken */
};

/* A flow's pair: the receive queue its frames go to. */
struct flow {
	uint32_t hash;
	unsigned int pair;
	bool used;
};

struct net {
	struct vdev d;
	struct rxq rxq[NET_MAX_PAIRS];
	unsigned int max_pairs;	/* offered: with --queues, VIRTIO_NET_F_MQ */
	bool mq;
	unsigned int pairs;	/* in use: VQ_PAIRS_SET, 1 after a reset */
	struct flow flows[NET_FLOWS];
	unsigned int next_pair;	/* the next new flow's */
	struct rss rss;
	bool offloads;		/* offered */
	bool no_mac;		/* --no-mac: the driver gives the address */
	bool mac_set;
	uint8_t mac[6];		/* the driver's (CTRL_MAC_ADDR_SET), with --no-mac */
	unsigned long mac_dropped;	/* unicast frames to another address */
	unsigned long delivered, dropped;
	/* Received: large frames and partial checksums carried as they were sent, ... */
	unsigned long gso_carried, csum_carried;
	/* ... cut into frames or checksummed for this device, which did not negotiate them. */
	unsigned long segmented, checksummed;
	/* Sent with a header this device did not negotiate or that lies: dropped. */
	unsigned long bad_header;
	/* net-tap: large frames this device sent, written to the TAP as they were. */
	unsigned long tap_gso;
	/* Control commands left unanswered (--misbehave ctrl-silent). */
	unsigned long ctrl_kept;
};

static volatile sig_atomic_t stats_asked;

/* The control queue's number (after every pair with MQ negotiated, else 2), or -1 without one. */
static int net_ctrl_queue(const struct net *n)
{
	if (!(n->d.features & (1ULL << VIRTIO_NET_F_CTRL_VQ)))
		return -1;
	return n->d.features & (1ULL << VIRTIO_NET_F_MQ) ? (int)(2 * n->max_pairs) : 2;
}

static void net_config(struct virtio4_host_create *c, const struct net *net, unsigned int n,
		       unsigned int mtu)
{
	unsigned int q;
	struct virtio_net_config cfg = { 0 };

	cfg.mac[0] = 0x02;	/* locally administered */
	cfg.mac[4] = 0x04;
	cfg.mac[5] = n + 1;
	cfg.status = htole16(VIRTIO_NET_S_LINK_UP);
	cfg.max_virtqueue_pairs = htole16(net->max_pairs);
	cfg.mtu = htole16(mtu);
	c->device_id = VIRTIO_ID_NET;
	c->vendor_id = 0x34766976;	/* "viv4" */
	c->features = 1ULL << VIRTIO_F_VERSION_1 | 1ULL << VIRTIO_NET_F_STATUS |
		      1ULL << VIRTIO_NET_F_MTU | 1ULL << VIRTIO_NET_F_MRG_RXBUF;
	if (net->no_mac)
		c->features |= 1ULL << VIRTIO_NET_F_CTRL_VQ | 1ULL << VIRTIO_NET_F_CTRL_MAC_ADDR;
	else
		c->features |= 1ULL << VIRTIO_NET_F_MAC;
	if (net->offloads)
		c->features |= NET_OFFLOADS;
	c->num_queues = 2 * net->max_pairs;
	for (q = 0; q < c->num_queues; q++)
		c->queue_size[q] = NET_QUEUE_SIZE;
	if (net->mq)
		c->features |= 1ULL << VIRTIO_NET_F_MQ | 1ULL << VIRTIO_NET_F_CTRL_VQ;
	if (net->rss.offered) {
		c->features |= 1ULL << VIRTIO_NET_F_RSS;
		cfg.rss_max_key_size = RSS_MAX_KEY;
		cfg.rss_max_indirection_table_length =
			htole16(net->d.misbehave == MB_RSS_SMALL_TABLE ? 64 : RSS_MAX_TABLE);
		cfg.supported_hash_types = htole32(NET_RSS_TYPES);
	}
	if (net->d.misbehave == MB_CTRL_SILENT)
		c->features |= 1ULL << VIRTIO_NET_F_CTRL_VQ | 1ULL << VIRTIO_NET_F_CTRL_RX |
			       1ULL << VIRTIO_NET_F_CTRL_VLAN;
	if (c->features & (1ULL << VIRTIO_NET_F_CTRL_VQ))
		c->queue_size[c->num_queues++] = 64;
	c->config_len = sizeof(cfg);
	memcpy(c->config, &cfg, sizeof(cfg));
}

/* Copy @len bytes at @off of the stream "header, then frame" to @dst. */
static void net_copy(unsigned char *dst, uint32_t off, uint32_t len,
		     const struct virtio_net_hdr_v1 *h, const unsigned char *frame)
{
	if (off < sizeof(*h)) {
		uint32_t n = sizeof(*h) - off < len ? sizeof(*h) - off : len;

		memcpy(dst, (const unsigned char *)h + off, n);
		dst += n;
		off += n;
		len -= n;
	}
	memcpy(dst, frame + off - sizeof(*h), len);
}

static uint32_t net_room(const struct rxbuf *b, uint32_t most)
{
	return b->room < most ? b->room : most;
}

/* Is @frame IPv4 but not TCP (an ICMP ping, UDP)? */
static bool net_ipv4_not_tcp(const unsigned char *frame, uint32_t len)
{
	return len >= 34 && frame[12] == 0x08 && frame[13] == 0x00 && frame[23] != 6;
}

/* The receive header @n's misbehaviour makes of @h for @frame, @len bytes. */
static void net_lie(const struct net *n, struct virtio_net_hdr_v1 *h,
		    const unsigned char *frame, uint32_t len)
{
	switch (n->d.misbehave) {
	case MB_GSO_NOT_TCP:	/* ARP left alone: the pings reach the check */
		if (net_ipv4_not_tcp(frame, len)) {
			h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
			h->gso_size = htole16(1448);
		}
		break;
	case MB_GSO_SIZE_0:
		h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		h->gso_size = 0;
		break;
	case MB_CSUM_PAST_END:
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = htole16(len - 1);
		h->csum_offset = htole16(2);
		break;
	default:
		break;
	}
}

/* FNV-1a over @len bytes at @p, on from @h. */
static uint32_t net_fnv(uint32_t h, const unsigned char *p, unsigned int len)
{
	while (len--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/*
 * The pair @frame is received on: its flow's, if it is a TCP or UDP frame
 * over IPv4 or IPv6 (a new flow gets the next pair in use), else pair 0;
 * with stray-queue, the last pair offered, whatever the driver said.
 */
static unsigned int net_rx_pair(struct net *n, const unsigned char *frame, uint32_t len)
{
	unsigned int l4, proto;
	struct flow *f;
	uint32_t hash;

	if (n->d.misbehave == MB_STRAY_QUEUE)
		return n->max_pairs - 1;
	if (n->rss.on)
		return rss_hash(n->rss.key, n->rss.key_len, n->rss.types, frame, len, &hash) ?
		       n->rss.table[hash & n->rss.mask] : n->rss.unclassified;
	if (n->pairs == 1 || len < 14)
		return 0;
	if (frame[12] == 0x08 && frame[13] == 0x00 && len >= 34) {
		l4 = 14 + (frame[14] & 15) * 4;
		proto = frame[23];
		hash = net_fnv(2166136261u, frame + 26, 8);	/* addresses */
	} else if (frame[12] == 0x86 && frame[13] == 0xdd && len >= 54) {
		l4 = 54;
		proto = frame[20];
		hash = net_fnv(2166136261u, frame + 22, 32);
	} else {
		return 0;
	}
	if ((proto != 6 && proto != 17) || len < l4 + 4)
		return 0;
	hash = net_fnv(hash, frame + l4, 4);	/* ports */
	f = &n->flows[hash % NET_FLOWS];
	if (f->used && f->hash != hash)		/* a slot taken: by hash, not evicting */
		return hash % n->pairs;
	if (!f->used || f->pair >= n->pairs) {
		*f = (struct flow){ .hash = hash, .pair = n->next_pair++ % n->pairs, .used = true };
		n->next_pair %= n->pairs;
	}
	return f->pair;
}

/* Receive one frame (with its header) into @n's buffers; false if dropped. */
static bool net_deliver(struct net *n, const struct virtio_net_hdr_v1 *hdr,
			const unsigned char *frame, uint32_t len)
{
	bool mrg = n->d.features & (1ULL << VIRTIO_NET_F_MRG_RXBUF);
	/* Split: as many buffers as a device may use, more than a frame needs. */
	uint32_t most = n->d.misbehave == MB_SPLIT ? NET_SPLIT : UINT32_MAX;
	unsigned int i, nbufs = 0, pair = net_rx_pair(n, frame, len);
	struct virtio_net_hdr_v1 h = *hdr;
	uint32_t total = sizeof(*hdr) + len, room = 0, off = 0;
	struct rxq *q = &n->rxq[pair];

	for (i = 0; i < q->count && room < total; i++, nbufs++)
		room += net_room(&q->rx[(q->head + i) % NET_QUEUE_SIZE], most);
	if (room < total || (nbufs > 1 && !mrg)) {
		n->dropped++;
		return false;
	}
	h.num_buffers = nbufs;
	net_lie(n, &h, frame, len);
	for (i = 0; i < nbufs; i++) {
		struct rxbuf *b = &q->rx[q->head];
		uint32_t chunk = total - off < net_room(b, most) ? total - off : net_room(b, most);

		net_copy(host_reserve(&n->d, 2 * pair, b->token, chunk), off, chunk,
			 &h, frame);
		host_commit(&n->d);
		off += chunk;
		q->head = (q->head + 1) % NET_QUEUE_SIZE;
		q->count--;
	}
	n->delivered++;
	return true;
}

/* A reset: every buffer is void, one pair is in use. */
static void net_reset(struct net *n)
{
	unsigned int i;

	for (i = 0; i < NET_MAX_PAIRS; i++)
		n->rxq[i].count = 0;
	n->pairs = 1;
	n->rss.on = false;
	n->mac_set = false;
}

/*
 * VIRTIO_NET_CTRL_MQ_RSS_CONFIG's @len bytes at @c (struct
 * virtio_net_rss_config, its table and key in line): taken whole, or not at
 * all (false) if anything in it does not fit what @n offered.
 */
static bool net_rss_config(struct net *n, const unsigned char *c, uint32_t len)
{
	struct rss r = n->rss;
	uint32_t entries, i, at;
	uint16_t v, pairs;

	if (!r.offered || len < 10)
		return false;
	memcpy(&r.types, c, 4);
	r.types = le32toh(r.types);
	memcpy(&v, c + 4, 2);
	entries = le16toh(v) + 1u;
	memcpy(&v, c + 6, 2);
	r.unclassified = le16toh(v);
	/* The table, max_tx_vq, hash_key_length, the key. */
	at = 8 + 2 * entries;
	if ((r.types & ~NET_RSS_TYPES) || entries > RSS_MAX_TABLE || (entries & (entries - 1)) ||
	    r.unclassified >= n->max_pairs || len < at + 3)
		return false;
	for (i = 0; i < entries; i++) {
		memcpy(&v, c + 8 + 2 * i, 2);
		r.table[i] = le16toh(v);
		if (r.table[i] >= n->max_pairs)
			return false;
	}
	memcpy(&v, c + at, 2);
	pairs = le16toh(v);
	r.key_len = c[at + 2];
	if (pairs < 1 || pairs > n->max_pairs || r.key_len > RSS_MAX_KEY ||
	    len != at + 3 + r.key_len)
		return false;
	memcpy(r.key, c + at + 3, r.key_len);
	r.mask = entries - 1;
	r.on = true;
	r.configs++;
	n->rss = r;
	n->pairs = pairs;
	return true;
}

/*
 * A control command (@out_len bytes at @cmd): VQ_PAIRS_SET with 1..max_pairs
 * (which ends RSS), RSS_CONFIG and MAC_ADDR_SET are carried out, any other
 * refused; ctrl-silent answers none.
 */
static void net_ctrl(struct net *n, const struct virtio4_host_msg *m, const unsigned char *cmd)
{
	uint8_t status = VIRTIO_NET_ERR;
	uint16_t pairs;

	if (n->d.misbehave == MB_CTRL_SILENT) {
		n->ctrl_kept++;
		return;
	}
	if (m->out_len == 4 && (n->d.features & (1ULL << VIRTIO_NET_F_MQ)) &&
	    cmd[0] == VIRTIO_NET_CTRL_MQ &&
	    cmd[1] == VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET) {
		memcpy(&pairs, cmd + 2, 2);
		pairs = le16toh(pairs);
		if (pairs >= 1 && pairs <= n->max_pairs) {
			n->pairs = pairs;
			n->rss.on = false;
			status = VIRTIO_NET_OK;
		}
	} else if (m->out_len >= 2 && cmd[0] == VIRTIO_NET_CTRL_MQ &&
		   cmd[1] == VIRTIO_NET_CTRL_MQ_RSS_CONFIG &&
		   (n->d.features & (1ULL << VIRTIO_NET_F_RSS)) &&
		   net_rss_config(n, cmd + 2, m->out_len - 2)) {
		status = VIRTIO_NET_OK;
	} else if (m->out_len == 2 + sizeof(n->mac) && cmd[0] == VIRTIO_NET_CTRL_MAC &&
		   cmd[1] == VIRTIO_NET_CTRL_MAC_ADDR_SET &&
		   (n->d.features & (1ULL << VIRTIO_NET_F_CTRL_MAC_ADDR))) {
		memcpy(n->mac, cmd + 2, sizeof(n->mac));
		n->mac_set = true;
		status = VIRTIO_NET_OK;
	}
	host_complete(&n->d, m->queue, m->token, &status, m->in_len ? 1 : 0);
}

/*
 * Handle the records of @n's last read: keep receive buffers, hand each
 * transmitted packet to @deliver and complete it at once.
 */
static void net_records(struct net *n,
			void (*deliver)(struct net *from, void *to,
					const struct virtio_net_hdr_v1 *hdr,
					const unsigned char *frame, uint32_t len),
			void *to)
{
	const struct virtio4_host_msg *m;
	struct rxq *q;
	size_t pos = 0;

	while ((m = host_next(&n->d, &pos))) {
		if (m->type == VIRTIO4_HOST_MSG_STATUS) {
			if (!m->out_len)
				net_reset(n);
		} else if ((int)m->queue == net_ctrl_queue(n)) {
			net_ctrl(n, m, (const unsigned char *)(m + 1));
		} else if (m->queue % 2 == 0) {
			q = &n->rxq[m->queue / 2];
			if (q->count == NET_QUEUE_SIZE)
				die("%s: more receive buffers than the queue holds", n->d.name);
			q->rx[(q->head + q->count++) % NET_QUEUE_SIZE] =
				(struct rxbuf){ m->token, m->in_len };
		} else {
			const struct virtio_net_hdr_v1 *h = (const void *)(m + 1);

			if (m->out_len >= sizeof(*h))
				deliver(n, to, h, (const unsigned char *)(h + 1),
					m->out_len - sizeof(*h));
			host_complete(&n->d, m->queue, m->token, NULL, 0);
		}
	}
}

static bool net_has(const struct net *n, unsigned int feature)
{
	return n->d.features & (1ULL << feature);
}

/* Can @n take a large frame of @gso_type (as sent: with its ECN bit) as it is? */
static bool net_takes_gso(const struct net *n, uint8_t gso_type)
{
	/* Its checksum is partial: taken only with GUEST_CSUM (the spec ties them). */
	if (!net_has(n, VIRTIO_NET_F_GUEST_CSUM))
		return false;
	if ((gso_type & NET_ECN) && !net_has(n, VIRTIO_NET_F_GUEST_ECN))
		return false;
	if ((gso_type & ~NET_ECN) == VIRTIO_NET_HDR_GSO_TCPV4)
		return net_has(n, VIRTIO_NET_F_GUEST_TSO4);
	return net_has(n, VIRTIO_NET_F_GUEST_TSO6);
}

/* Did @n negotiate sending what @h asks of the device? */
static bool net_header_ok(const struct net *n, const struct virtio_net_hdr_v1 *h)
{
	uint8_t type = h->gso_type & ~NET_ECN;

	if ((h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) && !net_has(n, VIRTIO_NET_F_CSUM))
		return false;
	if ((h->gso_type & NET_ECN) && !net_has(n, VIRTIO_NET_F_HOST_ECN))
		return false;
	switch (type) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return !(h->gso_type & NET_ECN);
	case VIRTIO_NET_HDR_GSO_TCPV4:
		return net_has(n, VIRTIO_NET_F_HOST_TSO4);
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return net_has(n, VIRTIO_NET_F_HOST_TSO6);
	default:
		return false;
	}
}

static void net_deliver_plain(void *to, const unsigned char *frame, uint32_t len)
{
	static const struct virtio_net_hdr_v1 plain;

	net_deliver(to, &plain, frame, len);
}

/*
 * Receive into @to a frame sent with header @h (by a device or the TAP). The
 * receive header is built anew: a partial checksum and a large frame are
 * carried as they were sent where @to negotiated taking them, else the
 * checksum is completed or the frame segmented here; no other bit of the
 * sender's header (DATA_VALID, unknown flags) reaches @to. False if @h asks
 * for what cannot be done (the sender's header lies).
 */
static bool net_receive(struct net *to, const struct virtio_net_hdr_v1 *h,
			const unsigned char *frame, uint32_t len)
{
	static unsigned char copy[NET_MAX_FRAME];
	struct virtio_net_hdr_v1 rh = { 0 };
	bool partial = h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;

	if (partial) {
		rh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		rh.csum_start = h->csum_start;
		rh.csum_offset = h->csum_offset;
	}
	if (h->gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		if (net_takes_gso(to, h->gso_type)) {
			rh.gso_type = h->gso_type;
			rh.gso_size = h->gso_size;
			rh.hdr_len = h->hdr_len;
			to->gso_carried += net_deliver(to, &rh, frame, len);
			return true;
		}
		if (offload_segment(frame, len,
				    (h->gso_type & ~NET_ECN) == VIRTIO_NET_HDR_GSO_TCPV6,
				    le16toh(h->gso_size), net_deliver_plain, to) <= 0)
			return false;
		to->segmented++;
	} else if (!partial) {
		net_deliver(to, &rh, frame, len);
	} else if (net_has(to, VIRTIO_NET_F_GUEST_CSUM)) {
		to->csum_carried += net_deliver(to, &rh, frame, len);
	} else if (len > sizeof(copy)) {
		to->dropped++;
	} else {
		memcpy(copy, frame, len);
		if (!offload_checksum(copy, len, le16toh(h->csum_start), le16toh(h->csum_offset)))
			return false;
		to->checksummed++;
		net_deliver_plain(to, copy, len);
	}
	return true;
}

/* A frame @from sent, to its peer device. */
static void net_to_peer(struct net *from, void *peer,
			const struct virtio_net_hdr_v1 *h,
			const unsigned char *frame, uint32_t len)
{
	struct net *to = peer;

	/* --no-mac: unicast to the address the driver gave, else dropped. */
	if (to->no_mac && len >= 6 && !(frame[0] & 1) &&
	    (!to->mac_set || memcmp(frame, to->mac, sizeof(to->mac)))) {
		to->mac_dropped++;
		return;
	}
	if (!net_header_ok(from, h) || !net_receive(to, h, frame, len))
		from->bad_header++;
}

/* The TAP of net-tap: with --offloads 0, frames on it carry a virtio-net header. */
struct tap {
	int fd;
	bool vnet_hdr;
	unsigned int offload;	/* TUNSETOFFLOAD flags set: what the device's driver takes */
};

/* A frame @from sent, to the TAP (with its header, once checked, if the TAP takes one). */
static void net_to_tap(struct net *from, void *to, const struct virtio_net_hdr_v1 *h,
		       const unsigned char *frame, uint32_t len)
{
	struct virtio_net_hdr_v1 th = { 0 };
	struct tap *tap = to;
	struct iovec iov[2] = {
		{ .iov_base = &th, .iov_len = sizeof(th) },
		{ .iov_base = (void *)frame, .iov_len = len },
	};

	if (!net_header_ok(from, h)) {
		from->bad_header++;
		return;
	}
	th.flags = h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
	th.csum_start = h->csum_start;
	th.csum_offset = h->csum_offset;
	th.gso_type = h->gso_type;
	th.gso_size = h->gso_size;
	th.hdr_len = h->hdr_len;
	if (writev(tap->fd, iov + !tap->vnet_hdr, 2 - !tap->vnet_hdr) < 0) {
		if (verbose)
			note("tap: write: %s", strerror(errno));
	} else if (th.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		from->tap_gso++;
	}
}

/*
 * RSS: the configurations taken, the hash types, the key, and the table's
 * entries per queue.
 */
static void net_rss_stats(const struct rss *r)
{
	unsigned int i, q, count;

	printf("rss_configs %lu rss_types %x rss_key ", r->configs, r->on ? r->types : 0);
	for (i = 0; i < r->key_len; i++)
		printf("%02x", r->key[i]);
	printf("%s rss_table ", r->key_len ? "" : "-");
	for (q = 0; q < NET_MAX_PAIRS; q++) {
		for (count = i = 0; r->on && i <= r->mask; i++)
			count += r->table[i] == q;
		printf("%u%s", count, q + 1 < NET_MAX_PAIRS ? "," : "\n");
	}
}

/* One line per device: what it received and sent (on SIGUSR1). */
static void net_stats(const struct net *n, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++, n++) {
		printf("%s: delivered %lu dropped %lu gso_carried %lu csum_carried %lu ",
		       n->d.name, n->delivered, n->dropped, n->gso_carried, n->csum_carried);
		printf("segmented %lu checksummed %lu bad_header %lu tap_gso %lu ctrl_kept %lu ",
		       n->segmented, n->checksummed, n->bad_header, n->tap_gso, n->ctrl_kept);
		printf("pairs %u mac_dropped %lu mac ", n->pairs, n->mac_dropped);
		if (n->mac_set)
			printf("%02x:%02x:%02x:%02x:%02x:%02x ", n->mac[0], n->mac[1], n->mac[2],
			       n->mac[3], n->mac[4], n->mac[5]);
		else
			printf("- ");
		net_rss_stats(&n->rss);
	}
	fflush(stdout);
}

static void net_stats_asked(int sig)
{
	(void)sig;
	stats_asked = 1;
}

static sigset_t net_unblocked;	/* the signal mask while waiting: SIGUSR1 let in */

/* SIGUSR1 asks for the counters: blocked but while net_poll() waits, so none is missed. */
static void net_signals(void)
{
	struct sigaction sa = { .sa_handler = net_stats_asked };
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &net_unblocked);
	sigdelset(&net_unblocked, SIGUSR1);
	sigaction(SIGUSR1, &sa, NULL);
}

/* Wait for @p; then print the counters of @count devices at @n if SIGUSR1 asked. */
static void net_poll(struct pollfd *p, unsigned int nfds, const struct net *n,
		     unsigned int count)
{
	unsigned int i;

	if (ppoll(p, nfds, NULL, &net_unblocked) < 0) {
		if (errno != EINTR)
			die("poll: %s", strerror(errno));
		for (i = 0; i < nfds; i++)
			p[i].revents = 0;
	}
	if (stats_asked) {
		stats_asked = 0;
		net_stats(n, count);
	}
}

static void net_create(struct net *n, const char *name, unsigned int i,
		       unsigned int mtu)
{
	struct virtio4_host_create c = { 0 };

	n->d.name = name;
	n->pairs = 1;
	net_config(&c, n, i, mtu);
	host_create(&n->d, &c);
}

static void net_pair(struct net n[2], unsigned int mtu)
{
	struct pollfd p[2];
	unsigned int i;

	net_create(&n[0], "net0", 0, mtu);
	net_create(&n[1], "net1", 1, mtu);
	note("net-pair: two devices joined back to back (offloads offered: net0 %s, net1 %s)",
	     n[0].offloads ? "yes" : "no", n[1].offloads ? "yes" : "no");
	for (;;) {
		for (i = 0; i < 2; i++)
			p[i] = (struct pollfd){ .fd = n[i].d.fd, .events = POLLIN };
		net_poll(p, 2, n, 2);
		for (i = 0; i < 2; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			host_read(&n[i].d, true);
			net_records(&n[i], net_to_peer, &n[!i]);
		}
		host_flush(&n[0].d);
		host_flush(&n[1].d);
	}
}

/* Open TAP @name; with @vnet_hdr its frames carry a struct virtio_net_hdr_v1. */
static void tap_open(struct tap *tap, const char *name, bool vnet_hdr)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int size = sizeof(struct virtio_net_hdr_v1);

	tap->fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (tap->fd < 0)
		die("/dev/net/tun: %s", strerror(errno));
	if (vnet_hdr)
		ifr.ifr_flags |= IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(tap->fd, TUNSETIFF, &ifr))
		die("TUNSETIFF %s: %s", name, strerror(errno));
	if (vnet_hdr && ioctl(tap->fd, TUNSETVNETHDRSZ, &size))
		die("TUNSETVNETHDRSZ %s: %s", name, strerror(errno));
	tap->vnet_hdr = vnet_hdr;
}

/*
 * What the TAP may hand the device (TUNSETOFFLOAD): the partial checksums and
 * large frames that the device's driver negotiated taking, set again
 * whenever the negotiated features change.
 */
static void tap_offloads(struct tap *tap, const struct net *n)
{
	unsigned int offload = 0;

	if (!tap->vnet_hdr)
		return;
	if (net_has(n, VIRTIO_NET_F_GUEST_CSUM)) {
		offload = TUN_F_CSUM;
		if (net_has(n, VIRTIO_NET_F_GUEST_TSO4))
			offload |= TUN_F_TSO4;
		if (net_has(n, VIRTIO_NET_F_GUEST_TSO6))
			offload |= TUN_F_TSO6;
		if (net_has(n, VIRTIO_NET_F_GUEST_ECN) && (offload & (TUN_F_TSO4 | TUN_F_TSO6)))
			offload |= TUN_F_TSO_ECN;
	}
	if (offload == tap->offload)
		return;
	if (ioctl(tap->fd, TUNSETOFFLOAD, offload))
		die("TUNSETOFFLOAD %#x: %s", offload, strerror(errno));
	tap->offload = offload;
	note("net-tap: TAP offloads %#x", offload);
}

/* A frame read from the TAP (@len bytes, with a header if it has them), to @n. */
static void tap_to_device(struct net *n, const struct tap *tap,
			  const unsigned char *buf, size_t len)
{
	const struct virtio_net_hdr_v1 *h = (const void *)buf;

	if (!tap->vnet_hdr) {
		net_deliver_plain(n, buf, len);
		return;
	}
	if (len < sizeof(*h))
		return;
	if (!net_receive(n, h, buf + sizeof(*h), len - sizeof(*h)))
		n->bad_header++;	/* the TAP asked for what cannot be done */
}

static void net_tap(struct net *n, const char *tap_name, unsigned int mtu)
{
	static unsigned char buf[sizeof(struct virtio_net_hdr_v1) + NET_MAX_FRAME];
	struct tap tap = { 0 };
	struct pollfd p[2];
	ssize_t len;

	tap_open(&tap, tap_name, n->offloads);
	net_create(n, "net0", 0, mtu);
	note("net-tap: one device bridged to %s (offloads offered: %s)", tap_name,
	     n->offloads ? "yes" : "no");
	for (;;) {
		p[0] = (struct pollfd){ .fd = n->d.fd, .events = POLLIN };
		/* Take frames from the TAP only when they can be received. */
		p[1] = (struct pollfd){ .fd = tap.fd, .events = n->rxq[0].count ? POLLIN : 0 };
		net_poll(p, 2, n, 1);
		if (p[0].revents & POLLIN) {
			host_read(&n->d, true);
			net_records(n, net_to_tap, &tap);
			tap_offloads(&tap, n);
		}
		if (p[1].revents & POLLIN) {
			len = read(tap.fd, buf, sizeof(buf));
			if (len > 0)
				tap_to_device(n, &tap, buf, len);
		}
		host_flush(&n->d);
	}
}

/* --offloads LIST: "0", "1" or "0,1"; -1 if it is none of them. */
static int net_offloads(struct net n[2], const char *list)
{
	if (strcmp(list, "0") && strcmp(list, "1") && strcmp(list, "0,1"))
		return -1;
	n[0].offloads = list[0] == '0';
	n[1].offloads = list[strlen(list) - 1] == '1';
	return 0;
}

static void net_usage(void)
{
	fputs("usage: virtio4-host net-pair [--mtu N] [--offloads LIST] [--queues N [--rss]]\n"
	      "                             [--no-mac] [--misbehave MODE[:N]] [-v]\n"
	      "       virtio4-host net-tap [--mtu N] [--offloads 0] [--misbehave MODE[:N]] [-v]\n"
	      "                            TAPNAME\n"
	      "(the first device, net0, misbehaves; --offloads LIST: the devices (0, 1) that are\n"
	      "offered checksum and segmentation offload: in net-tap, the TAP then carries\n"
	      "virtio-net headers and takes the offloads the device's driver negotiated;\n"
	      "--queues N: 1..4 queue pairs offered, with VIRTIO_NET_F_MQ; --rss: and\n"
	      "VIRTIO_NET_F_RSS; --no-mac: devices without an address, told one by the driver)\n",
	      stderr);
	exit(2);
}

int net_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mtu", required_argument, NULL, 'M' },
		{ "misbehave", required_argument, NULL, 'm' },
		{ "no-mac", no_argument, NULL, 'A' },
		{ "offloads", required_argument, NULL, 'O' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "rss", no_argument, NULL, 'R' },
		{ "verbose", no_argument, NULL, 'v' },
		{ }
	};
	bool tap = !strcmp(argv[0], "net-tap");
	static struct net n[2];
	unsigned int mtu = 1500;
	long pairs = 0;		/* 0: no --queues, no MQ */
	bool rss = false, no_mac = false;
	int o;

	while ((o = getopt_long(argc, argv, "AM:m:O:Q:Rv", opts, NULL)) != -1) {
		if (o == 'M')
			mtu = strtoul(optarg, NULL, 0);
		else if (o == 'Q' && !tap)
			pairs = strtol(optarg, NULL, 0) ?: -1;
		else if (o == 'R' && !tap)
			rss = true;
		else if (o == 'A' && !tap)
			no_mac = true;
		else if (o == 'O' && !net_offloads(n, optarg) && (!tap || !n[1].offloads))
			continue;
		else if (o == 'm' && !parse_misbehave(&n[0].d, optarg))
			continue;
		else if (o == 'v')
			verbose = 1;
		else
			net_usage();
	}
	if (mtu < 68 || mtu > 65535 || optind != argc - (tap ? 1 : 0) ||
	    pairs < 0 || pairs > NET_MAX_PAIRS || (rss && !pairs))
		net_usage();
	for (o = 0; o < 2; o++) {
		n[o].max_pairs = pairs ?: 1;
		n[o].mq = pairs;
		n[o].rss.offered = rss;
		n[o].no_mac = no_mac;
	}
	net_signals();
	if (tap)
		net_tap(&n[0], argv[optind], mtu);
	else
		net_pair(n, mtu);
	return 0;
}
