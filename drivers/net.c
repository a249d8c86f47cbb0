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
 * Locking: the receive queue's operations run in its NAPI poll, or with
 * that NAPI disabled (open, refill work, remove). The transmit queue's run
 * under the netdev transmit lock (ndo_start_xmit and the transmit NAPI).
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
static void v4net_add_frag(struct v4net *net, struct sk_buff *skb, void *buf,
			   unsigned int offset, unsigned int len)
{
	struct page *page = virt_to_head_page(buf);

	skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page,
			buf - page_address(page) + offset, len, net->rx_len);
}

/* Post receive buffers until the queue is full; false if memory ran out. */
static bool v4net_refill(struct v4net *net, gfp_t gfp)
{
	struct virtio4_queue *vq = net->rvq;
	struct scatterlist sg;
	bool ok = true;
	void *buf;
	int err;

	while (vq->num_free) {
		buf = page_frag_alloc(&net->rx_frags, net->rx_len, gfp | __GFP_NOWARN);
		if (!buf) {
			v4net_count(&net->rx_stats, &net->rx_stats.alloc_failures, 1);
			ok = false;
			break;
		}
		sg_init_one(&sg, buf, net->rx_len);
		err = vq->ops->add_buf(vq, &sg, 0, 1, buf);
		if (err) {
			skb_free_frag(buf);
			break;
		}
	}
	vq->ops->sync(vq);
	return ok;
}

/* Retry the refill from process context after DELAY, unless closing. */
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

static void v4net_refill_work(struct work_struct *work)
{
	struct v4net *net = container_of(work, struct v4net, refill.work);
	bool ok;

	napi_disable(&net->rx_napi);
	ok = v4net_refill(net, GFP_KERNEL);
	napi_enable(&net->rx_napi);
	/* Buffers may have been used meanwhile, with callbacks off. */
	napi_schedule(&net->rx_napi);
	if (!ok)
		v4net_schedule_refill(net, HZ / 2);
}

static void v4net_drop(struct v4net *net, u64_stats_t *reason)
{
	v4net_count(&net->rx_stats, &net->rx_stats.drops, 1);
	if (reason)
		v4net_count(&net->rx_stats, reason, 1);
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
static void v4net_drain(struct v4net *net, unsigned int n)
{
	struct virtio4_queue *vq = net->rvq;
	unsigned int len;
	void *buf;

	for (; n && (buf = vq->ops->get_buf(vq, &len)); n--) {
		skb_free_frag(buf);
		v4net_count(&net->rx_stats, &net->rx_stats.drained, 1);
	}
}

/* Add the further buffers of a merged packet; false (skb freed) on a bad packet. */
static bool v4net_merge(struct v4net *net, struct sk_buff *skb, u16 num_buffers)
{
	struct virtio4_queue *vq = net->rvq;
	unsigned int len;
	void *buf;

	while (--num_buffers) {
		if (skb_shinfo(skb)->nr_frags == MAX_SKB_FRAGS) {
			/* More than a packet the MTU allows: drop all of it. */
			v4net_drain(net, num_buffers);
			goto drop;
		}
		buf = vq->ops->get_buf(vq, &len);
		if (!buf)
			goto drop;	/* the device claimed more buffers than it used */
		v4net_add_frag(net, skb, buf, 0, len);
	}
	return true;

drop:
	dev_kfree_skb(skb);
	v4net_drop(net, &net->rx_stats.length_errors);
	return false;
}

/* Build an skb from a first buffer of @len bytes; NULL (buffer freed) if bad. */
static struct sk_buff *v4net_build_skb(struct v4net *net, void *buf,
				       unsigned int len,
				       struct virtio_net_hdr_mrg_rxbuf *hdr)
{
	unsigned int copy, data_len;
	struct sk_buff *skb;

	if (len < v4net_hdr_len + ETH_HLEN) {
		if (net_ratelimit())
			netdev_warn(net->dev, "received frame of %u bytes is shorter than its headers: dropped\n",
				    len);
		skb_free_frag(buf);
		v4net_drop(net, &net->rx_stats.length_errors);
		return NULL;
	}
	memcpy(hdr, buf, v4net_hdr_len);
	data_len = len - v4net_hdr_len;
	copy = min(data_len, V4NET_COPY_LEN);
	skb = napi_alloc_skb(&net->rx_napi, copy);
	if (!skb) {
		skb_free_frag(buf);
		v4net_drop(net, NULL);
		return NULL;
	}
	skb_put_data(skb, buf + v4net_hdr_len, copy);
	if (data_len > copy)
		v4net_add_frag(net, skb, buf, v4net_hdr_len + copy, data_len - copy);
	else
		skb_free_frag(buf);
	return skb;
}

static void v4net_receive_one(struct v4net *net, void *buf, unsigned int len)
{
	struct virtio_net_hdr_mrg_rxbuf hdr;
	struct sk_buff *skb;
	u16 num_buffers = 1;

	skb = v4net_build_skb(net, buf, len, &hdr);
	if (!skb)
		return;
	if (net->mergeable) {
		num_buffers = le16_to_cpu((__force __le16)hdr.num_buffers);
		if (!num_buffers) {
			dev_kfree_skb(skb);
			v4net_drop(net, &net->rx_stats.frame_errors);
			return;
		}
	}
	if (!v4net_merge(net, skb, num_buffers))
		return;
	if (!v4net_apply_hdr(net, skb, &hdr.hdr)) {
		dev_kfree_skb(skb);
		v4net_drop(net, &net->rx_stats.header_errors);
		return;
	}
	/* A partial checksum (NEEDS_CSUM) wins over DATA_VALID, as in Linux. */
	if ((hdr.hdr.flags & VIRTIO_NET_HDR_F_DATA_VALID) &&
	    !(hdr.hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	/* Bytes with the Ethernet header, as every driver counts them. */
	u64_stats_update_begin(&net->rx_stats.syncp);
	u64_stats_inc(&net->rx_stats.packets);
	u64_stats_add(&net->rx_stats.bytes, skb->len);
	u64_stats_update_end(&net->rx_stats.syncp);
	skb->protocol = eth_type_trans(skb, net->dev);
	napi_gro_receive(&net->rx_napi, skb);
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
	struct v4net *net = container_of(napi, struct v4net, rx_napi);
	struct virtio4_queue *vq = net->rvq;
	unsigned int len;
	int received = 0;
	void *buf;

	while (received < budget && (buf = vq->ops->get_buf(vq, &len))) {
		v4net_receive_one(net, buf, len);
		received++;
	}
	if (unlikely(READ_ONCE(vq->broken)))
		v4net_give_up(net, "receive queue broken");
	/* Refill in batches of a quarter of the ring. */
	if (vq->num_free >= vq->num / 4 && !v4net_refill(net, GFP_ATOMIC))
		v4net_schedule_refill(net, 0);
	if (received < budget && napi_complete_done(napi, received) &&
	    !vq->ops->restart(vq))
		napi_schedule(napi);
	return received;
}

/* Free the skbs the device has sent. Under the transmit lock. */
static void v4net_reap_tx(struct v4net *net, int budget)
{
	struct virtio4_queue *vq = net->svq;
	unsigned int len, packets = 0, bytes = 0;
	struct sk_buff *skb;

	while ((skb = vq->ops->get_buf(vq, &len))) {
		packets++;
		bytes += skb->len - (v4net_tx_cb(skb)->pushed ? v4net_hdr_len : 0);
		napi_consume_skb(skb, budget);
	}
	if (unlikely(READ_ONCE(vq->broken)))
		v4net_give_up(net, "transmit queue broken");
	if (!packets)
		return;
	u64_stats_update_begin(&net->tx_stats.syncp);
	u64_stats_add(&net->tx_stats.packets, packets);
	u64_stats_add(&net->tx_stats.bytes, bytes);
	u64_stats_update_end(&net->tx_stats.syncp);
	if (netif_queue_stopped(net->dev) && vq->num_free >= V4NET_TX_MIN_FREE)
		netif_wake_queue(net->dev);
}

static int v4net_tx_poll(struct napi_struct *napi, int budget)
{
	struct v4net *net = container_of(napi, struct v4net, tx_napi);
	struct netdev_queue *txq = netdev_get_tx_queue(net->dev, 0);

	__netif_tx_lock(txq, raw_smp_processor_id());
	v4net_reap_tx(net, budget);
	/* At once: a stopped queue waits for this room (transmit delays it). */
	if (napi_complete_done(napi, 0) && !net->svq->ops->restart(net->svq))
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
	struct v4net *net = vq->priv;

	return v4net_schedule(vq, &net->rx_napi);
}

static bool v4net_tx_done(struct virtio4_queue *vq)
{
	struct v4net *net = vq->priv;

	return v4net_schedule(vq, &net->tx_napi);
}

/* The virtio header and the skb as one sg list (net->tx_sg); returns its length. */
static int v4net_tx_map(struct v4net *net, struct sk_buff *skb)
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
	sg_init_table(net->tx_sg, skb_shinfo(skb)->nr_frags + 2);
	if (cb->pushed) {
		memcpy(skb_push(skb, v4net_hdr_len), &cb->hdr, v4net_hdr_len);
		return skb_to_sgvec(skb, net->tx_sg, 0, skb->len);
	}
	sg_set_buf(net->tx_sg, &cb->hdr, v4net_hdr_len);
	n = skb_to_sgvec(skb, net->tx_sg + 1, 0, skb->len);
	return n < 0 ? n : n + 1;
}

static netdev_tx_t v4net_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);
	struct virtio4_queue *vq = net->svq;
	bool kick = !netdev_xmit_more();
	int n, err;

	/* Free what the device has sent already: room before it is needed. */
	v4net_reap_tx(net, 0);
	n = v4net_tx_map(net, skb);
	err = n < 0 ? n : vq->ops->add_buf(vq, net->tx_sg, n, 0, skb);
	if (unlikely(err)) {
		v4net_count(&net->tx_stats, &net->tx_stats.drops, 1);
		dev_kfree_skb_any(skb);
		kick = true;
	}
	if (vq->num_free < V4NET_TX_MIN_FREE) {
		netif_stop_queue(dev);
		kick = true;
		/* Completions may already be waiting: make sure NAPI reaps them. */
		if (!vq->ops->restart(vq))
			napi_schedule(&net->tx_napi);
	} else if (kick && !vq->ops->restart_delayed(vq)) {
		/* Most of what is in flight is sent already. */
		napi_schedule(&net->tx_napi);
	}
	if (kick)
		vq->ops->sync(vq);
	return NETDEV_TX_OK;
}

static int v4net_open(struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);

	v4net_set_refill(net, true);
	if (!v4net_refill(net, GFP_KERNEL))
		v4net_schedule_refill(net, 0);
	napi_enable(&net->rx_napi);
	napi_enable(&net->tx_napi);
	/* Collect what arrived while down, and turn callbacks back on. */
	napi_schedule(&net->rx_napi);
	napi_schedule(&net->tx_napi);
	netif_start_queue(dev);
	return 0;
}

static int v4net_close(struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);

	netif_stop_queue(dev);
	v4net_set_refill(net, false);
	cancel_delayed_work_sync(&net->refill);
	napi_disable(&net->rx_napi);
	napi_disable(&net->tx_napi);
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

static void v4net_get_stats64(struct net_device *dev,
			      struct rtnl_link_stats64 *stats)
{
	struct v4net *net = netdev_priv(dev);
	struct v4net_stats *rx = &net->rx_stats;

	v4net_read_stats(rx, &stats->rx_packets, &stats->rx_bytes,
			 &stats->rx_dropped);
	v4net_read_stats(&net->tx_stats, &stats->tx_packets, &stats->tx_bytes,
			 &stats->tx_dropped);
	stats->rx_length_errors = v4net_read_stat(rx, &rx->length_errors);
	stats->rx_frame_errors = v4net_read_stat(rx, &rx->frame_errors) +
				 v4net_read_stat(rx, &rx->header_errors);
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

/* rx0_frame_errors counts rx0_header_errors too (as rx_frame_errors does). */
static const char v4net_stat_names[][ETH_GSTRING_LEN] = {
	"rx0_packets", "rx0_bytes", "rx0_drops", "rx0_length_errors",
	"rx0_frame_errors", "rx0_header_errors", "rx0_alloc_failures", "rx0_drained", "rx0_kicks",
	"rx0_interrupts", "rx0_ring_free",
	"tx0_packets", "tx0_bytes", "tx0_drops", "tx0_kicks", "tx0_interrupts",
	"tx0_ring_free", "ctrl_commands", "ctrl_errors", "announces",
};

static int v4net_get_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? ARRAY_SIZE(v4net_stat_names) : -EOPNOTSUPP;
}

static void v4net_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	if (sset == ETH_SS_STATS)
		memcpy(data, v4net_stat_names, sizeof(v4net_stat_names));
}

static void v4net_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct v4net *net = netdev_priv(dev);
	struct rtnl_link_stats64 s = {};

	v4net_get_stats64(dev, &s);
	*data++ = s.rx_packets;
	*data++ = s.rx_bytes;
	*data++ = s.rx_dropped;
	*data++ = s.rx_length_errors;
	*data++ = s.rx_frame_errors;
	*data++ = v4net_read_stat(&net->rx_stats, &net->rx_stats.header_errors);
	*data++ = v4net_read_stat(&net->rx_stats, &net->rx_stats.alloc_failures);
	*data++ = v4net_read_stat(&net->rx_stats, &net->rx_stats.drained);
	*data++ = READ_ONCE(net->rvq->kicks);
	*data++ = READ_ONCE(net->rvq->interrupts);
	*data++ = READ_ONCE(net->rvq->num_free);
	*data++ = s.tx_packets;
	*data++ = s.tx_bytes;
	*data++ = s.tx_dropped;
	*data++ = READ_ONCE(net->svq->kicks);
	*data++ = READ_ONCE(net->svq->interrupts);
	*data++ = READ_ONCE(net->svq->num_free);
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

	ring->rx_max_pending = net->rvq->num;
	ring->tx_max_pending = net->svq->num;
	ring->rx_pending = net->rvq->num;
	ring->tx_pending = net->svq->num;
}

static int v4net_set_ringparam(struct net_device *dev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct v4net *net = netdev_priv(dev);

	if (ring->rx_pending != net->rvq->num || ring->tx_pending != net->svq->num ||
	    ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG(extack, "ring sizes are fixed by the device");
		return -EINVAL;
	}
	return 0;
}

static const struct ethtool_ops v4net_ethtool_ops = {
	.get_drvinfo		= v4net_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_ringparam		= v4net_get_ringparam,
	.set_ringparam		= v4net_set_ringparam,
	.get_sset_count		= v4net_get_sset_count,
	.get_strings		= v4net_get_strings,
	.get_ethtool_stats	= v4net_get_ethtool_stats,
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

static int v4net_validate(struct virtio4_device *vdev)
{
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
	return 0;
}

/* Receive, transmit and, with CTRL_VQ, the control queue (index 2 with one pair). */
static int v4net_init_vqs(struct v4net *net)
{
	virtio4_callback_t *callbacks[] = { v4net_rx_done, v4net_tx_done, v4net_ctrl_done };
	static const char * const names[] = { "rx0", "tx0", "ctrl" };
	unsigned int i, n = virtio4_has_feature(net->vdev, VIRTIO_NET_F_CTRL_VQ) ? 3 : 2;
	struct virtio4_queue *vqs[3] = {};
	int err;

	err = net->vdev->config->find_vqs(net->vdev, n, vqs, callbacks, names, NULL);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		vqs[i]->priv = net;
	net->rvq = vqs[0];
	net->svq = vqs[1];
	net->cvq = vqs[2];
	return 0;
}

/* After a reset: give back every buffer still posted. */
static void v4net_free_buffers(struct v4net *net)
{
	struct sk_buff *skb;
	void *buf;

	while ((buf = net->rvq->ops->detach_unused(net->rvq)))
		skb_free_frag(buf);
	while ((skb = net->svq->ops->detach_unused(net->svq)))
		dev_kfree_skb(skb);
	v4net_ctrl_free_buffers(net);
	if (net->rx_frags.va) {
		__page_frag_cache_drain(virt_to_head_page(net->rx_frags.va),
					net->rx_frags.pagecnt_bias);
		net->rx_frags.va = NULL;
	}
}

static int v4net_probe(struct virtio4_device *vdev)
{
	struct net_device *dev;
	struct v4net *net;
	int err;

	dev = alloc_etherdev(sizeof(*net));
	if (!dev)
		return -ENOMEM;
	SET_NETDEV_DEV(dev, &vdev->dev);
	net = netdev_priv(dev);
	net->vdev = vdev;
	net->dev = dev;
	vdev->priv = net;
	u64_stats_init(&net->rx_stats.syncp);
	u64_stats_init(&net->tx_stats.syncp);
	INIT_DELAYED_WORK(&net->refill, v4net_refill_work);
	spin_lock_init(&net->refill_lock);
	v4net_ctrl_init(net);
	net->mergeable = virtio4_has_feature(vdev, VIRTIO_NET_F_MRG_RXBUF);
	net->rx_len = v4net_rx_len(net);
	err = v4net_init_vqs(net);
	if (err)
		goto err_free;
	v4net_setup_netdev(net);
	netif_napi_add(dev, &net->rx_napi, v4net_rx_poll);
	netif_napi_add_tx(dev, &net->tx_napi, v4net_tx_poll);
	virtio4_device_ready(vdev);
	err = register_netdev(dev);
	if (err)
		goto err_reset;
	v4net_update_link(net);
	return 0;

err_reset:
	vdev->config->reset(vdev);
	v4net_free_buffers(net);
	vdev->config->del_vqs(vdev);
err_free:
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
	VIRTIO_NET_F_GUEST_ANNOUNCE,
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
