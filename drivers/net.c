// SPDX-License-Identifier: GPL-2.0
/*
 * The network driver, written only against the draft-IV queue API and the
 * virtio4 bus. As draft IV's article describes, receive and transmit use
 * separate queues and share no lock: each side uses half of the buffer
 * model (in elements to receive, out elements to send).
 *
 * Receive: buffers carved from the device's own page fragment cache, each
 * posted as a single in element (with VIRTIO_NET_F_MRG_RXBUF a packet may span
 * several, as num_buffers says), collected by NAPI, refilled in batches; after
 * an allocation failure a delayed work retries, so the ring never stays
 * empty. A buffer holds a full-sized frame (1536 bytes), or a page when large
 * receive offloads are negotiated (a 64 KiB packet then fits the 17 fragments
 * an skb can take); its whole length is charged to the skb's truesize.
 *
 * Transmit: the whole skb is one buffer, the header pushed in front of it (or
 * in skb->cb, an element of its own, when the head is shared with a clone or
 * has no room); completions are reaped by each transmit before it adds, and by a
 * second NAPI under the transmit lock, called back only once most of what is
 * in flight has been sent (restart_delayed), or at once when the ring is full.
 *
 * Queue pairs: with VIRTIO_NET_F_MQ the device has several receive and
 * transmit queues. The driver creates all of them and fills every receive
 * queue, and tells the device how many pairs to use (one per CPU at first,
 * ethtool -L later): the device receives on those only, spreading flows as
 * it sees fit (or, with VIRTIO_NET_F_RSS, as our indirection table says:
 * net_rss.c), and the stack sends on those only, each CPU on its own (XPS).
 *
 * Locking: a receive queue's operations run in its NAPI poll, or with
 * that NAPI disabled (open, refill work, remove). A transmit queue's run
 * under its netdev queue's transmit lock (ndo_start_xmit and its NAPI).
 * The refill work is scheduled only while refill_on is set (under
 * refill_lock): close clears it before it cancels the work and disables NAPI,
 * so a poll racing with close cannot queue a work that would then wait
 * forever to disable a NAPI that close already disabled.
 *
 * The control queue (net_ctrl.c), when the device has one, carries the
 * receive mode and address filters, VLAN filters, the MAC address and the
 * acknowledgment of an announcement the device asked for.
 *
 * The device is untrusted: a packet shorter than its header or with a bad
 * num_buffers is dropped and counted, and so is one whose virtio-net header
 * lies about it (net_hdr.c: flags or a GSO type not negotiated, a checksum
 * outside the frame, a GSO frame that is not TCP), with one log line.
 * A queue the device broke, or a device asking for a reset, takes the link
 * down for good (one log line); remove still frees everything.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <linux/virtio_net.h>
#include <uapi/linux/virtio_ids.h>
#include <virtio4/bus.h>
#include "net.h"
#include "net_hdr.h"

#define V4NET_COPY_LEN 128U	/* bytes copied into the skb head; the rest stays a page fragment */

static const unsigned int v4net_hdr_len = sizeof(struct virtio_net_hdr_mrg_rxbuf);

/* What a packet being sent keeps in its skb->cb. */
struct v4net_tx_cb {
	struct virtio_net_hdr_mrg_rxbuf hdr;	/* unless pushed */
	bool pushed;		/* the header is in front of skb->data */
};

static struct v4net_tx_cb *v4net_tx_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct v4net_tx_cb) > sizeof(skb->cb));
	return (struct v4net_tx_cb *)skb->cb;
}

static void v4net_count(struct v4net_stats *s, u64_stats_t *field, u64 n)
{
	u64_stats_update_begin(&s->syncp);
	u64_stats_add(field, n);
	u64_stats_update_end(&s->syncp);
}

/* Without mergeable buffers one buffer holds a whole frame (MTU 1500 at most). */
static unsigned int v4net_rx_len(struct v4net *net)
{
	struct virtio4_device *vdev = net->vdev;

	if (net->mergeable &&
	    (virtio4_has_feature(vdev, VIRTIO_NET_F_GUEST_TSO4) ||
	     virtio4_has_feature(vdev, VIRTIO_NET_F_GUEST_TSO6)))
		return PAGE_SIZE;
	return ALIGN(v4net_hdr_len + VLAN_ETH_HLEN + ETH_DATA_LEN, L1_CACHE_BYTES);
}

/* Add one receive buffer of @buf's page fragment to @skb. */
static void v4net_add_frag(struct v4net_rq *rq, struct sk_buff *skb, void *buf,
			   unsigned int offset, unsigned int len)
{
	struct page *page = virt_to_head_page(buf);

	skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page,
			buf - page_address(page) + offset, len, rq->net->rx_len);
}

/* Post receive buffers until the queue is full; false if memory ran out. */
static bool v4net_refill(struct v4net_rq *rq, gfp_t gfp)
{
	unsigned int len = rq->net->rx_len;
	struct virtio4_queue *vq = rq->vq;
	struct scatterlist sg;
	bool ok = true;
	void *buf;
	int err;

	while (vq->num_free) {
		buf = page_frag_alloc(&rq->frags, len, gfp | __GFP_NOWARN);
		if (!buf) {
			v4net_count(&rq->stats, &rq->stats.alloc_failures, 1);
			ok = false;
			break;
		}
		sg_init_one(&sg, buf, len);
		err = vq->ops->add_buf(vq, &sg, 0, 1, buf);
		if (err) {
			skb_free_frag(buf);
			break;
		}
	}
	vq->ops->sync(vq);
	return ok;
}

/* Retry the refills from process context after DELAY, unless closing. */
static void v4net_schedule_refill(struct v4net *net, unsigned long delay)
{
	spin_lock_bh(&net->refill_lock);
	if (net->refill_on)
		schedule_delayed_work(&net->refill, delay);
	spin_unlock_bh(&net->refill_lock);
}

static void v4net_set_refill(struct v4net *net, bool on)
{
	spin_lock_bh(&net->refill_lock);
	net->refill_on = on;
	spin_unlock_bh(&net->refill_lock);
}

/* Every receive queue is refilled: a full one costs a look at num_free. */
static void v4net_refill_work(struct work_struct *work)
{
	struct v4net *net = container_of(work, struct v4net, refill.work);
	struct v4net_rq *rq;
	bool ok = true;

	for (rq = net->rq; rq < net->rq + net->max_pairs; rq++) {
		napi_disable(&rq->napi);
		ok &= v4net_refill(rq, GFP_KERNEL);
		napi_enable(&rq->napi);
		/* Buffers may have been used meanwhile, with callbacks off. */
		napi_schedule(&rq->napi);
	}
	if (!ok)
		v4net_schedule_refill(net, HZ / 2);
}

static void v4net_drop(struct v4net_rq *rq, u64_stats_t *reason)
{
	v4net_count(&rq->stats, &rq->stats.drops, 1);
	if (reason)
		v4net_count(&rq->stats, reason, 1);
}

/*
 * Apply a received frame's header to @skb; false if it lies about the frame
 * (net_hdr.c), or if the core refuses it: the caller drops the frame.
 */
static bool v4net_apply_hdr(struct v4net *net, struct sk_buff *skb,
			    const struct virtio_net_hdr *hdr)
{
	const char *why = v4net_hdr_check(skb, hdr, net->vdev->features);

	if (!why && !virtio_net_hdr_to_skb(skb, hdr, true))
		return true;
	if (net_ratelimit())
		netdev_warn(net->dev, "dropped a received frame: the device's virtio-net header %s\n",
			    why ?: "does not fit the frame");
	return false;
}

/*
 * Free the @n further buffers of a packet being dropped: left in the queue,
 * the payload they hold would be parsed as the next packets' headers and
 * frames (a remote sender could shape them). Counts what was drained.
 */
static void v4net_drain(struct v4net_rq *rq, unsigned int n)
{
	struct virtio4_queue *vq = rq->vq;
	unsigned int len;
	void *buf;

	for (; n && (buf = vq->ops->get_buf(vq, &len)); n--) {
		skb_free_frag(buf);
		v4net_count(&rq->stats, &rq->stats.drained, 1);
	}
}

/* Add the further buffers of a merged packet; false (skb freed) on a bad packet. */
static bool v4net_merge(struct v4net_rq *rq, struct sk_buff *skb, u16 num_buffers)
{
	struct virtio4_queue *vq = rq->vq;
	unsigned int len;
	void *buf;

	while (--num_buffers) {
		if (skb_shinfo(skb)->nr_frags == MAX_SKB_FRAGS) {
			/* More than a packet the MTU allows: drop all of it. */
			v4net_drain(rq, num_buffers);
			goto drop;
		}
		buf = vq->ops->get_buf(vq, &len);
		if (!buf)
			goto drop;	/* the device claimed more buffers than it used */
		v4net_add_frag(rq, skb, buf, 0, len);
	}
	return true;

drop:
	dev_kfree_skb(skb);
	v4net_drop(rq, &rq->stats.length_errors);
	return false;
}

/* Build an skb from a first buffer of @len bytes; NULL (buffer freed) if bad. */
static struct sk_buff *v4net_build_skb(struct v4net_rq *rq, void *buf,
				       unsigned int len,
				       struct virtio_net_hdr_mrg_rxbuf *hdr)
{
	unsigned int copy, data_len;
	struct sk_buff *skb;

	if (len < v4net_hdr_len + ETH_HLEN) {
		/*
		 * 0 bytes: a buffer given back unused, as the copying transport
		 * gives back every posted one when its device host is gone. Said
		 * once a NIC, so that such an exit does not spend the rate limit
		 * that the next device's own reports need.
		 */
		if (!len) {
			if (!xchg(&rq->net->said_unused, true))
				netdev_warn(rq->net->dev, "the device gave receive buffers back unused (0 bytes): dropped\n");
		} else if (net_ratelimit()) {
			netdev_warn(rq->net->dev, "received frame of %u bytes is shorter than its headers: dropped\n",
				    len);
		}
		skb_free_frag(buf);
		v4net_drop(rq, &rq->stats.length_errors);
		return NULL;
	}
	memcpy(hdr, buf, v4net_hdr_len);
	data_len = len - v4net_hdr_len;
	copy = min(data_len, V4NET_COPY_LEN);
	skb = napi_alloc_skb(&rq->napi, copy);
	if (!skb) {
		skb_free_frag(buf);
		v4net_drop(rq, NULL);
		return NULL;
	}
	skb_put_data(skb, buf + v4net_hdr_len, copy);
	if (data_len > copy)
		v4net_add_frag(rq, skb, buf, v4net_hdr_len + copy, data_len - copy);
	else
		skb_free_frag(buf);
	return skb;
}

static void v4net_receive_one(struct v4net_rq *rq, void *buf, unsigned int len)
{
	struct virtio_net_hdr_mrg_rxbuf hdr;
	struct v4net *net = rq->net;
	struct sk_buff *skb;
	u16 num_buffers = 1;

	skb = v4net_build_skb(rq, buf, len, &hdr);
	if (!skb)
		return;
	if (net->mergeable) {
		num_buffers = le16_to_cpu((__force __le16)hdr.num_buffers);
		if (!num_buffers) {
			dev_kfree_skb(skb);
			v4net_drop(rq, &rq->stats.frame_errors);
			return;
		}
	}
	if (!v4net_merge(rq, skb, num_buffers))
		return;
	if (!v4net_apply_hdr(net, skb, &hdr.hdr)) {
		dev_kfree_skb(skb);
		v4net_drop(rq, &rq->stats.header_errors);
		return;
	}
	/* A partial checksum (NEEDS_CSUM) wins over DATA_VALID, as in Linux. */
	if ((hdr.hdr.flags & VIRTIO_NET_HDR_F_DATA_VALID) &&
	    !(hdr.hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	/* Bytes with the Ethernet header, as every driver counts them. */
	u64_stats_update_begin(&rq->stats.syncp);
	u64_stats_inc(&rq->stats.packets);
	u64_stats_add(&rq->stats.bytes, skb->len);
	u64_stats_update_end(&rq->stats.syncp);
	/* Not for a queue the stack no longer has (a hostile device, or pairs just cut). */
	if (rq->index < READ_ONCE(net->dev->real_num_rx_queues))
		skb_record_rx_queue(skb, rq->index);
	skb->protocol = eth_type_trans(skb, net->dev);
	napi_gro_receive(&rq->napi, skb);
}

/* Take the link down for good: the device broke a queue or needs a reset. */
static void v4net_give_up(struct v4net *net, const char *why)
{
	if (xchg(&net->dead, true))
		return;
	netdev_err(net->dev, "%s: link down until the device is removed\n", why);
	netif_carrier_off(net->dev);
}

static int v4net_rx_poll(struct napi_struct *napi, int budget)
{
	struct v4net_rq *rq = container_of(napi, struct v4net_rq, napi);
	struct virtio4_queue *vq = rq->vq;
	unsigned int len;
	int received = 0;
	void *buf;

	while (received < budget && (buf = vq->ops->get_buf(vq, &len))) {
		v4net_receive_one(rq, buf, len);
		received++;
	}
	if (unlikely(READ_ONCE(vq->broken)))
		v4net_give_up(rq->net, "receive queue broken");
	/* Refill in batches of a quarter of the ring. */
	if (vq->num_free >= vq->num / 4 && !v4net_refill(rq, GFP_ATOMIC))
		v4net_schedule_refill(rq->net, 0);
	if (received < budget && napi_complete_done(napi, received) &&
	    !vq->ops->restart(vq))
		napi_schedule(napi);
	return received;
}

/* Free the skbs the device has sent. Under the queue's transmit lock. */
static void v4net_reap_tx(struct v4net_sq *sq, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(sq->net->dev, sq->index);
	unsigned int len, packets = 0, bytes = 0;
	struct virtio4_queue *vq = sq->vq;
	struct sk_buff *skb;

	while ((skb = vq->ops->get_buf(vq, &len))) {
		packets++;
		bytes += skb->len - (v4net_tx_cb(skb)->pushed ? v4net_hdr_len : 0);
		napi_consume_skb(skb, budget);
	}
	if (unlikely(READ_ONCE(vq->broken)))
		v4net_give_up(sq->net, "transmit queue broken");
	if (!packets)
		return;
	u64_stats_update_begin(&sq->stats.syncp);
	u64_stats_add(&sq->stats.packets, packets);
	u64_stats_add(&sq->stats.bytes, bytes);
	u64_stats_update_end(&sq->stats.syncp);
	if (netif_tx_queue_stopped(txq) && vq->num_free >= V4NET_TX_MIN_FREE)
		netif_tx_wake_queue(txq);
}

static int v4net_tx_poll(struct napi_struct *napi, int budget)
{
	struct v4net_sq *sq = container_of(napi, struct v4net_sq, napi);
	struct netdev_queue *txq = netdev_get_tx_queue(sq->net->dev, sq->index);

	__netif_tx_lock(txq, raw_smp_processor_id());
	v4net_reap_tx(sq, budget);
	/* At once: a stopped queue waits for this room (transmit delays it). */
	if (napi_complete_done(napi, 0) && !sq->vq->ops->restart(sq->vq))
		napi_schedule(napi);
	__netif_tx_unlock(txq);
	return 0;
}

/*
 * Callbacks off first, then the poll scheduled: a poll that runs at once on
 * another CPU (threaded NAPI, busy polling) and restarts the queue must not
 * have its restart undone afterwards. Winning napi_schedule_prep() means no
 * poll runs now; losing it means one is running or due, and it restarts.
 */
static bool v4net_schedule(struct virtio4_queue *vq, struct napi_struct *napi)
{
	if (napi_schedule_prep(napi)) {
		vq->ops->disable(vq);
		__napi_schedule(napi);
	}
	return true;
}

static bool v4net_rx_done(struct virtio4_queue *vq)
{
	struct v4net_rq *rq = vq->priv;

	return v4net_schedule(vq, &rq->napi);
}

static bool v4net_tx_done(struct virtio4_queue *vq)
{
	struct v4net_sq *sq = vq->priv;

	return v4net_schedule(vq, &sq->napi);
}

/* The virtio header and the skb as one sg list (sq->sg); returns its length. */
static int v4net_tx_map(struct v4net_sq *sq, struct sk_buff *skb)
{
	struct v4net_tx_cb *cb = v4net_tx_cb(skb);
	int n, err;

	err = virtio_net_hdr_from_skb(skb, &cb->hdr.hdr, true, false, 0);
	if (err)
		return err;
	cb->hdr.num_buffers = 0;
	/*
	 * In front of the frame if there is room that is ours to write (the
	 * stack reserves it: needed_headroom); else in skb->cb, as an element
	 * of its own (a TCP clone shares its head, which must not be copied).
	 */
	cb->pushed = !skb_header_cloned(skb) && skb_headroom(skb) >= v4net_hdr_len;
	sg_init_table(sq->sg, skb_shinfo(skb)->nr_frags + 2);
	if (cb->pushed) {
		memcpy(skb_push(skb, v4net_hdr_len), &cb->hdr, v4net_hdr_len);
		return skb_to_sgvec(skb, sq->sg, 0, skb->len);
	}
	sg_set_buf(sq->sg, &cb->hdr, v4net_hdr_len);
	n = skb_to_sgvec(skb, sq->sg + 1, 0, skb->len);
	return n < 0 ? n : n + 1;
}

static netdev_tx_t v4net_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);
	unsigned int index = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, index);
	struct v4net_sq *sq = &net->sq[index];
	struct virtio4_queue *vq = sq->vq;
	bool kick = !netdev_xmit_more();
	int n, err;

	/* Free what the device has sent already: room before it is needed. */
	v4net_reap_tx(sq, 0);
	n = v4net_tx_map(sq, skb);
	err = n < 0 ? n : vq->ops->add_buf(vq, sq->sg, n, 0, skb);
	if (unlikely(err)) {
		v4net_count(&sq->stats, &sq->stats.drops, 1);
		dev_kfree_skb_any(skb);
		kick = true;
	}
	if (vq->num_free < V4NET_TX_MIN_FREE) {
		netif_tx_stop_queue(txq);
		kick = true;
		/* Completions may already be waiting: make sure NAPI reaps them. */
		if (!vq->ops->restart(vq))
			napi_schedule(&sq->napi);
	} else if (kick && !vq->ops->restart_delayed(vq)) {
		/* Most of what is in flight is sent already. */
		napi_schedule(&sq->napi);
	}
	if (kick)
		vq->ops->sync(vq);
	return NETDEV_TX_OK;
}

static int v4net_open(struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);
	bool ok = true;
	unsigned int i;

	v4net_set_refill(net, true);
	for (i = 0; i < net->max_pairs; i++)
		ok &= v4net_refill(&net->rq[i], GFP_KERNEL);
	if (!ok)
		v4net_schedule_refill(net, 0);
	for (i = 0; i < net->max_pairs; i++) {
		napi_enable(&net->rq[i].napi);
		napi_enable(&net->sq[i].napi);
		/* Collect what arrived while down, and turn callbacks back on. */
		napi_schedule(&net->rq[i].napi);
		napi_schedule(&net->sq[i].napi);
	}
	netif_tx_start_all_queues(dev);
	return 0;
}

static int v4net_close(struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);
	unsigned int i;

	netif_tx_disable(dev);
	v4net_set_refill(net, false);
	cancel_delayed_work_sync(&net->refill);
	for (i = 0; i < net->max_pairs; i++) {
		napi_disable(&net->rq[i].napi);
		napi_disable(&net->sq[i].napi);
	}
	return 0;
}

static void v4net_read_stats(struct v4net_stats *s, u64 *packets, u64 *bytes,
			     u64 *drops)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		*packets = u64_stats_read(&s->packets);
		*bytes = u64_stats_read(&s->bytes);
		*drops = u64_stats_read(&s->drops);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

static u64 v4net_read_stat(struct v4net_stats *s, u64_stats_t *field)
{
	unsigned int start;
	u64 value;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		value = u64_stats_read(field);
	} while (u64_stats_fetch_retry(&s->syncp, start));
	return value;
}

/* Every queue's counters summed, the pairs not in use too (they keep theirs). */
static void v4net_get_stats64(struct net_device *dev,
			      struct rtnl_link_stats64 *stats)
{
	struct v4net *net = netdev_priv(dev);
	u64 packets, bytes, drops;
	struct v4net_stats *s;
	unsigned int i;

	for (i = 0; i < net->max_pairs; i++) {
		s = &net->rq[i].stats;
		v4net_read_stats(s, &packets, &bytes, &drops);
		stats->rx_packets += packets;
		stats->rx_bytes += bytes;
		stats->rx_dropped += drops;
		stats->rx_length_errors += v4net_read_stat(s, &s->length_errors);
		stats->rx_frame_errors += v4net_read_stat(s, &s->frame_errors) +
					  v4net_read_stat(s, &s->header_errors);
		v4net_read_stats(&net->sq[i].stats, &packets, &bytes, &drops);
		stats->tx_packets += packets;
		stats->tx_bytes += bytes;
		stats->tx_dropped += drops;
	}
	stats->rx_errors = stats->rx_length_errors + stats->rx_frame_errors;
}

static const struct net_device_ops v4net_netdev_ops = {
	.ndo_open		= v4net_open,
	.ndo_stop		= v4net_close,
	.ndo_start_xmit		= v4net_xmit,
	.ndo_get_stats64	= v4net_get_stats64,
	.ndo_set_mac_address	= v4net_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_rx_mode	= v4net_set_rx_mode,
	.ndo_vlan_rx_add_vid	= v4net_vlan_add,
	.ndo_vlan_rx_kill_vid	= v4net_vlan_kill,
};

/*
 * ethtool -S: each receive queue's counters (rxN_frame_errors counts
 * rxN_header_errors too, as rx_frame_errors does), each transmit queue's,
 * then the control queue's.
 */
static const char v4net_rx_stat_names[][ETH_GSTRING_LEN] = {
	"packets", "bytes", "drops", "length_errors", "frame_errors", "header_errors",
	"alloc_failures", "drained", "kicks", "interrupts", "ring_free",
};

static const char v4net_tx_stat_names[][ETH_GSTRING_LEN] = {
	"packets", "bytes", "drops", "kicks", "interrupts", "ring_free",
};

static const char v4net_ctrl_stat_names[][ETH_GSTRING_LEN] = {
	"ctrl_commands", "ctrl_errors", "announces",
};

static int v4net_get_sset_count(struct net_device *dev, int sset)
{
	struct v4net *net = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return net->max_pairs * (ARRAY_SIZE(v4net_rx_stat_names) +
				 ARRAY_SIZE(v4net_tx_stat_names)) +
	       ARRAY_SIZE(v4net_ctrl_stat_names);
}

static void v4net_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct v4net *net = netdev_priv(dev);
	unsigned int i, j;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < net->max_pairs; i++)
		for (j = 0; j < ARRAY_SIZE(v4net_rx_stat_names); j++)
			ethtool_sprintf(&data, "rx%u_%s", i, v4net_rx_stat_names[j]);
	for (i = 0; i < net->max_pairs; i++)
		for (j = 0; j < ARRAY_SIZE(v4net_tx_stat_names); j++)
			ethtool_sprintf(&data, "tx%u_%s", i, v4net_tx_stat_names[j]);
	memcpy(data, v4net_ctrl_stat_names, sizeof(v4net_ctrl_stat_names));
}

/* One receive queue's counters, in the order of v4net_rx_stat_names. */
static u64 *v4net_rx_stats(struct v4net_rq *rq, u64 *data)
{
	struct v4net_stats *s = &rq->stats;

	v4net_read_stats(s, &data[0], &data[1], &data[2]);
	data[3] = v4net_read_stat(s, &s->length_errors);
	data[5] = v4net_read_stat(s, &s->header_errors);
	data[4] = v4net_read_stat(s, &s->frame_errors) + data[5];
	data[6] = v4net_read_stat(s, &s->alloc_failures);
	data[7] = v4net_read_stat(s, &s->drained);
	data[8] = READ_ONCE(rq->vq->kicks);
	data[9] = READ_ONCE(rq->vq->interrupts);
	data[10] = READ_ONCE(rq->vq->num_free);
	return data + ARRAY_SIZE(v4net_rx_stat_names);
}

/* One transmit queue's counters, in the order of v4net_tx_stat_names. */
static u64 *v4net_tx_stats(struct v4net_sq *sq, u64 *data)
{
	v4net_read_stats(&sq->stats, &data[0], &data[1], &data[2]);
	data[3] = READ_ONCE(sq->vq->kicks);
	data[4] = READ_ONCE(sq->vq->interrupts);
	data[5] = READ_ONCE(sq->vq->num_free);
	return data + ARRAY_SIZE(v4net_tx_stat_names);
}

static void v4net_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct v4net *net = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < net->max_pairs; i++)
		data = v4net_rx_stats(&net->rq[i], data);
	for (i = 0; i < net->max_pairs; i++)
		data = v4net_tx_stats(&net->sq[i], data);
	*data++ = READ_ONCE(net->ctrl_commands);
	*data++ = READ_ONCE(net->ctrl_errors);
	*data++ = READ_ONCE(net->announces);
}

static void v4net_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	struct v4net *net = netdev_priv(dev);

	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(&net->vdev->dev), sizeof(info->bus_info));
}

static void v4net_get_ringparam(struct net_device *dev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct v4net *net = netdev_priv(dev);

	ring->rx_max_pending = net->rq[0].vq->num;
	ring->tx_max_pending = net->sq[0].vq->num;
	ring->rx_pending = net->rq[0].vq->num;
	ring->tx_pending = net->sq[0].vq->num;
}

static int v4net_set_ringparam(struct net_device *dev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct v4net *net = netdev_priv(dev);

	if (ring->rx_pending != net->rq[0].vq->num ||
	    ring->tx_pending != net->sq[0].vq->num ||
	    ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG(extack, "ring sizes are fixed by the device");
		return -EINVAL;
	}
	return 0;
}

static void v4net_get_channels(struct net_device *dev,
			       struct ethtool_channels *ch)
{
	struct v4net *net = netdev_priv(dev);

	ch->max_combined = net->max_pairs;
	ch->combined_count = net->pairs;
}

/* Hint that queue @index's interrupt belongs on @mask's CPUs, where the transport can. */
static void v4net_set_vq_affinity(struct v4net *net, unsigned int index,
				  const struct cpumask *mask)
{
	const struct virtio4_config_ops *config = net->vdev->config;

	if (config->set_vq_affinity)
		config->set_vq_affinity(net->vdev, index, mask);
}

/*
 * The online CPUs of pair @i: the Kth online CPU goes to pair K modulo the
 * pairs in use (CPU N to pair N modulo pairs, online CPUs numbered without
 * gaps); with more pairs than CPUs, pair @i gets the (@i modulo CPUs)th.
 */
static void v4net_pair_cpus(struct v4net *net, unsigned int i, struct cpumask *mask)
{
	unsigned int cpu, k = 0, n = num_online_cpus();

	cpumask_clear(mask);
	for_each_online_cpu(cpu) {
		if (k % net->pairs == i || (i >= n && k == i % n))
			cpumask_set_cpu(cpu, mask);
		k++;
	}
}

/*
 * Each CPU sends on its pair (v4net_pair_cpus, XPS), so that a flow's
 * packets stay on one queue and the queues share the CPUs; the pair's
 * interrupts are hinted to the same CPUs, and those of pairs not in use to
 * none (all of them, without memory for a mask).
 */
static void v4net_set_affinity(struct v4net *net)
{
	cpumask_var_t mask;
	unsigned int i;
	bool used;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL)) {
		/* The stack spreads flows by hash; no stale hint stays. */
		for (i = 0; i < 2 * net->max_pairs; i++)
			v4net_set_vq_affinity(net, i, NULL);
		return;
	}
	for (i = 0; i < net->max_pairs; i++) {
		used = i < net->pairs;
		if (used) {
			v4net_pair_cpus(net, i, mask);
			netif_set_xps_queue(net->dev, mask, i);
		}
		v4net_set_vq_affinity(net, 2 * i, used ? mask : NULL);
		v4net_set_vq_affinity(net, 2 * i + 1, used ? mask : NULL);
	}
	free_cpumask_var(mask);
}

/* Use @pairs queue pairs: the device first, then the stack. Under RTNL. */
static int v4net_set_pairs(struct v4net *net, unsigned int pairs)
{
	int err;

	if (net->rss.on)
		err = v4net_rss_set_pairs(net, pairs);
	else if (virtio4_has_feature(net->vdev, VIRTIO_NET_F_MQ))
		err = v4net_ctrl_set_pairs(net, pairs);
	else
		err = 0;
	if (err)
		return err;
	net->pairs = pairs;
	err = netif_set_real_num_tx_queues(net->dev, pairs) ?:
	      netif_set_real_num_rx_queues(net->dev, pairs);
	if (err)
		return err;
	v4net_set_affinity(net);
	return 0;
}

static int v4net_set_channels(struct net_device *dev,
			      struct ethtool_channels *ch)
{
	struct v4net *net = netdev_priv(dev);

	if (ch->rx_count || ch->tx_count || ch->other_count ||
	    !ch->combined_count || ch->combined_count > net->max_pairs)
		return -EINVAL;
	if (ch->combined_count == net->pairs)
		return 0;
	return v4net_set_pairs(net, ch->combined_count);
}

static const struct ethtool_ops v4net_ethtool_ops = {
	.get_drvinfo		= v4net_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_ringparam		= v4net_get_ringparam,
	.set_ringparam		= v4net_set_ringparam,
	.get_channels		= v4net_get_channels,
	.set_channels		= v4net_set_channels,
	.get_sset_count		= v4net_get_sset_count,
	.get_strings		= v4net_get_strings,
	.get_ethtool_stats	= v4net_get_ethtool_stats,
	.get_rxfh_key_size	= v4net_get_rxfh_key_size,
	.get_rxfh_indir_size	= v4net_get_rxfh_indir_size,
	.get_rxfh		= v4net_get_rxfh,
	.set_rxfh		= v4net_set_rxfh,
	.get_rxnfc		= v4net_get_rxnfc,
	.set_rxnfc		= v4net_set_rxnfc,
};

#define v4net_cfg(field) offsetof(struct virtio_net_config, field)

static void v4net_update_link(struct v4net *net)
{
	u16 status = VIRTIO_NET_S_LINK_UP;

	if (virtio4_has_feature(net->vdev, VIRTIO_NET_F_STATUS))
		status = virtio4_cread16(net->vdev, v4net_cfg(status));
	if ((status & VIRTIO_NET_S_LINK_UP) && !READ_ONCE(net->dead))
		netif_carrier_on(net->dev);
	else
		netif_carrier_off(net->dev);
}

static void v4net_config_changed(struct virtio4_device *vdev)
{
	struct v4net *net = vdev->priv;

	if (vdev->config->get_status(vdev) & VIRTIO_CONFIG_S_NEEDS_RESET)
		v4net_give_up(net, "the device asked for a reset");
	v4net_update_link(net);
	if (virtio4_has_feature(vdev, VIRTIO_NET_F_GUEST_ANNOUNCE) &&
	    (virtio4_cread16(vdev, v4net_cfg(status)) & VIRTIO_NET_S_ANNOUNCE))
		v4net_announce(net);
}

/*
 * The largest MTU the receive buffers hold: one buffer without mergeable
 * buffers; with them, as many as an skb has fragments (each buffer is one).
 */
static unsigned int v4net_max_mtu(struct v4net *net)
{
	unsigned int room = v4net_hdr_len + VLAN_ETH_HLEN;

	if (!net->mergeable)
		return min_t(unsigned int, ETH_DATA_LEN, net->rx_len - room);
	return min_t(unsigned int, ETH_MAX_MTU, MAX_SKB_FRAGS * net->rx_len - room);
}

/* MAC, MTU and offloads from the negotiated features and the config. */
static void v4net_setup_netdev(struct v4net *net)
{
	struct virtio4_device *vdev = net->vdev;
	struct net_device *dev = net->dev;
	u8 mac[ETH_ALEN];
	u16 mtu;

	dev->netdev_ops = &v4net_netdev_ops;
	dev->ethtool_ops = &v4net_ethtool_ops;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	dev->needed_headroom = v4net_hdr_len;
	if (virtio4_has_feature(vdev, VIRTIO_NET_F_MAC)) {
		virtio4_config_read(vdev, v4net_cfg(mac), mac, ETH_ALEN);
		eth_hw_addr_set(dev, mac);
	} else {
		eth_hw_addr_random(dev);
	}
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = v4net_max_mtu(net);
	if (virtio4_has_feature(vdev, VIRTIO_NET_F_MTU)) {
		mtu = virtio4_cread16(vdev, v4net_cfg(mtu));
		if (mtu >= ETH_MIN_MTU && mtu <= dev->max_mtu) {
			dev->max_mtu = mtu;
			dev->mtu = mtu;
		} else {
			dev_err(&vdev->dev, "ignoring bad MTU %u\n", mtu);
		}
	}
	if (virtio4_has_feature(vdev, VIRTIO_NET_F_CSUM)) {
		dev->hw_features |= NETIF_F_HW_CSUM | NETIF_F_SG;
		if (virtio4_has_feature(vdev, VIRTIO_NET_F_HOST_TSO4))
			dev->hw_features |= NETIF_F_TSO;
		if (virtio4_has_feature(vdev, VIRTIO_NET_F_HOST_TSO6))
			dev->hw_features |= NETIF_F_TSO6;
		dev->features |= dev->hw_features;
	}
	if (virtio4_has_feature(vdev, VIRTIO_NET_F_GUEST_CSUM))
		dev->features |= NETIF_F_RXCSUM;
	dev->vlan_features = dev->features;
	v4net_ctrl_setup_netdev(net);
}

/*
 * The queue pairs the device has: max_virtqueue_pairs with VIRTIO_NET_F_MQ,
 * else 1. A value outside the spec's range gets one log line and 1.
 */
static unsigned int v4net_device_pairs(struct virtio4_device *vdev)
{
	u16 pairs;

	if (!virtio4_has_feature(vdev, VIRTIO_NET_F_MQ))
		return 1;
	pairs = virtio4_cread16(vdev, v4net_cfg(max_virtqueue_pairs));
	if (pairs >= VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN && pairs <= VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX)
		return pairs;
	dev_err(&vdev->dev, "ignoring bad max_virtqueue_pairs %u: one queue pair\n", pairs);
	return 1;
}

static int v4net_validate(struct virtio4_device *vdev)
{
	/*
	 * A legacy device: without mergeable buffers its header is 10 bytes,
	 * not ours; without VIRTIO_F_ANY_LAYOUT it wants the header apart from
	 * the frame, where transmit pushes it in front when there is room.
	 */
	if (vdev->legacy && (!virtio4_has_feature(vdev, VIRTIO_NET_F_MRG_RXBUF) ||
			     !virtio4_has_feature(vdev, VIRTIO_F_ANY_LAYOUT))) {
		dev_err(&vdev->dev, "legacy device without VIRTIO_NET_F_MRG_RXBUF and VIRTIO_F_ANY_LAYOUT is not supported\n");
		return -ENODEV;
	}
	/* Large receives need mergeable buffers: without them, no GUEST_TSO. */
	if (!virtio4_has_feature(vdev, VIRTIO_NET_F_MRG_RXBUF))
		vdev->features &= ~(BIT_ULL(VIRTIO_NET_F_GUEST_TSO4) |
				    BIT_ULL(VIRTIO_NET_F_GUEST_TSO6) |
				    BIT_ULL(VIRTIO_NET_F_GUEST_ECN));
	/* Transmit offloads need checksum offload. */
	if (!virtio4_has_feature(vdev, VIRTIO_NET_F_CSUM))
		vdev->features &= ~(BIT_ULL(VIRTIO_NET_F_HOST_TSO4) |
				    BIT_ULL(VIRTIO_NET_F_HOST_TSO6));
	v4net_ctrl_validate(vdev);
	/* A bad pair count: no MQ, so that the control queue is where both expect it. */
	if (v4net_device_pairs(vdev) == 1)
		vdev->features &= ~BIT_ULL(VIRTIO_NET_F_MQ);
	v4net_rss_validate(vdev);
	return 0;
}

/* The queue structures of @net->max_pairs pairs; 0 or -ENOMEM. */
static int v4net_alloc_queues(struct v4net *net)
{
	unsigned int i;

	net->rq = kcalloc(net->max_pairs, sizeof(*net->rq), GFP_KERNEL);
	net->sq = kcalloc(net->max_pairs, sizeof(*net->sq), GFP_KERNEL);
	if (!net->rq || !net->sq)
		return -ENOMEM;
	for (i = 0; i < net->max_pairs; i++) {
		net->rq[i].net = net;
		net->rq[i].index = i;
		u64_stats_init(&net->rq[i].stats.syncp);
		snprintf(net->rq[i].name, sizeof(net->rq[i].name), "rx%u", i);
		net->sq[i].net = net;
		net->sq[i].index = i;
		u64_stats_init(&net->sq[i].stats.syncp);
		snprintf(net->sq[i].name, sizeof(net->sq[i].name), "tx%u", i);
	}
	return 0;
}

/*
 * Queue 2N receives on pair N, 2N + 1 transmits; with CTRL_VQ the control
 * queue comes after every pair the device has.
 */
static int v4net_init_vqs(struct v4net *net)
{
	bool ctrl = virtio4_has_feature(net->vdev, VIRTIO_NET_F_CTRL_VQ);
	unsigned int i, n = 2 * net->max_pairs + ctrl;
	virtio4_callback_t **callbacks;
	struct virtio4_queue **vqs;
	const char **names;
	int err = -ENOMEM;

	vqs = kcalloc(n, sizeof(*vqs), GFP_KERNEL);
	callbacks = kcalloc(n, sizeof(*callbacks), GFP_KERNEL);
	names = kcalloc(n, sizeof(*names), GFP_KERNEL);
	if (!vqs || !callbacks || !names)
		goto out;
	for (i = 0; i < net->max_pairs; i++) {
		callbacks[2 * i] = v4net_rx_done;
		names[2 * i] = net->rq[i].name;
		callbacks[2 * i + 1] = v4net_tx_done;
		names[2 * i + 1] = net->sq[i].name;
	}
	if (ctrl) {
		callbacks[n - 1] = v4net_ctrl_done;
		names[n - 1] = "ctrl";
	}
	err = net->vdev->config->find_vqs(net->vdev, n, vqs, callbacks, names, NULL);
	if (err)
		goto out;
	for (i = 0; i < net->max_pairs; i++) {
		net->rq[i].vq = vqs[2 * i];
		net->rq[i].vq->priv = &net->rq[i];
		net->sq[i].vq = vqs[2 * i + 1];
		net->sq[i].vq->priv = &net->sq[i];
	}
	if (ctrl) {
		net->cvq = vqs[n - 1];
		net->cvq->priv = net;
	}
out:
	kfree(names);
	kfree(callbacks);
	kfree(vqs);
	return err;
}

/* After a reset: give back every buffer still posted. */
static void v4net_free_buffers(struct v4net *net)
{
	struct page_frag_cache *frags;
	struct sk_buff *skb;
	unsigned int i;
	void *buf;

	for (i = 0; i < net->max_pairs; i++) {
		while ((buf = net->rq[i].vq->ops->detach_unused(net->rq[i].vq)))
			skb_free_frag(buf);
		while ((skb = net->sq[i].vq->ops->detach_unused(net->sq[i].vq)))
			dev_kfree_skb(skb);
		frags = &net->rq[i].frags;
		if (frags->va) {
			__page_frag_cache_drain(virt_to_head_page(frags->va),
						frags->pagecnt_bias);
			frags->va = NULL;
		}
	}
	v4net_ctrl_free_buffers(net);
}

/* Their NAPIs leave the netdev first: free_netdev() would walk freed memory. */
static void v4net_free_queues(struct v4net *net)
{
	unsigned int i;

	for (i = 0; net->rq && net->sq && i < net->max_pairs; i++) {
		netif_napi_del(&net->rq[i].napi);
		netif_napi_del(&net->sq[i].napi);
	}
	kfree(net->rq);
	kfree(net->sq);
}

/*
 * One pair per CPU, as many as the device has; told to it once it runs. With
 * RSS, even one pair: the device then holds the key and table ethtool shows.
 * One pair without RSS needs no command, only its interrupts' affinity.
 */
static void v4net_start_pairs(struct v4net *net)
{
	unsigned int pairs = min(net->max_pairs, num_online_cpus());
	int err = 0;

	rtnl_lock();
	if (pairs == 1 && !net->rss.on)
		v4net_set_affinity(net);
	else
		err = v4net_set_pairs(net, pairs);
	rtnl_unlock();
	if (err)
		netdev_warn(net->dev, "using one queue pair of %u: %pe\n", net->max_pairs,
			    ERR_PTR(err));
}

static int v4net_probe(struct virtio4_device *vdev)
{
	unsigned int i, max_pairs = v4net_device_pairs(vdev);
	struct net_device *dev;
	struct v4net *net;
	int err;

	dev = alloc_etherdev_mq(sizeof(*net), max_pairs);
	if (!dev)
		return -ENOMEM;
	SET_NETDEV_DEV(dev, &vdev->dev);
	net = netdev_priv(dev);
	net->vdev = vdev;
	net->dev = dev;
	net->max_pairs = max_pairs;
	net->pairs = 1;
	vdev->priv = net;
	INIT_DELAYED_WORK(&net->refill, v4net_refill_work);
	spin_lock_init(&net->refill_lock);
	v4net_ctrl_init(net);
	net->mergeable = virtio4_has_feature(vdev, VIRTIO_NET_F_MRG_RXBUF);
	net->rx_len = v4net_rx_len(net);
	err = v4net_alloc_queues(net);
	if (err)
		goto err_free;
	err = v4net_init_vqs(net);
	if (err)
		goto err_free;
	v4net_setup_netdev(net);
	v4net_rss_init(net);
	for (i = 0; i < max_pairs; i++) {
		netif_napi_add(dev, &net->rq[i].napi, v4net_rx_poll);
		netif_napi_add_tx(dev, &net->sq[i].napi, v4net_tx_poll);
	}
	/* The device uses one pair until told otherwise. */
	netif_set_real_num_tx_queues(dev, 1);
	netif_set_real_num_rx_queues(dev, 1);
	virtio4_device_ready(vdev);
	err = v4net_ctrl_tell_mac(net);
	if (err)
		goto err_reset;
	err = register_netdev(dev);
	if (err)
		goto err_reset;
	v4net_start_pairs(net);
	v4net_update_link(net);
	return 0;

err_reset:
	vdev->config->reset(vdev);
	v4net_free_buffers(net);
	vdev->config->del_vqs(vdev);
err_free:
	v4net_free_queues(net);
	free_netdev(dev);
	return err;
}

static void v4net_remove(struct virtio4_device *vdev)
{
	struct v4net *net = vdev->priv;

	unregister_netdev(net->dev);
	v4net_ctrl_stop(net);
	cancel_delayed_work_sync(&net->refill);
	vdev->config->reset(vdev);
	v4net_free_buffers(net);
	vdev->config->del_vqs(vdev);
	v4net_free_queues(net);
	free_netdev(net->dev);
}

static const struct virtio4_device_id v4net_ids[] = {
	{ VIRTIO_ID_NET, VIRTIO4_ANY_VENDOR },
	{ }
};

static const unsigned int v4net_features[] = {
	VIRTIO_NET_F_CSUM, VIRTIO_NET_F_GUEST_CSUM, VIRTIO_NET_F_MTU,
	VIRTIO_NET_F_MAC, VIRTIO_NET_F_GUEST_TSO4, VIRTIO_NET_F_GUEST_TSO6,
	VIRTIO_NET_F_GUEST_ECN, VIRTIO_NET_F_HOST_TSO4, VIRTIO_NET_F_HOST_TSO6,
	VIRTIO_NET_F_MRG_RXBUF, VIRTIO_NET_F_STATUS, VIRTIO_NET_F_CTRL_VQ,
	VIRTIO_NET_F_CTRL_RX, VIRTIO_NET_F_CTRL_VLAN, VIRTIO_NET_F_CTRL_MAC_ADDR,
	VIRTIO_NET_F_GUEST_ANNOUNCE, VIRTIO_NET_F_MQ, VIRTIO_NET_F_RSS,
	VIRTIO_F_ANY_LAYOUT,	/* legacy devices: the header may share a buffer */
};

static struct virtio4_driver v4net_driver = {
	.driver.name		= KBUILD_MODNAME,
	.driver.owner		= THIS_MODULE,
	.id_table		= v4net_ids,
	.feature_table		= v4net_features,
	.feature_table_size	= ARRAY_SIZE(v4net_features),
	.validate		= v4net_validate,
	.probe			= v4net_probe,
	.remove			= v4net_remove,
	.config_changed		= v4net_config_changed,
};

static int __init v4net_init(void)
{
	int err = v4net_ctrl_param_check();

	return err ?: virtio4_register_driver(&v4net_driver);
}
module_init(v4net_init);

static void __exit v4net_exit(void)
{
	virtio4_unregister_driver(&v4net_driver);
}
module_exit(v4net_exit);
MODULE_ALIAS("virtio4:d00000001v*");
MODULE_DESCRIPTION("virtio draft IV: network driver");
MODULE_LICENSE("GPL");
