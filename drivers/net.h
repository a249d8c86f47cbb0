/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network driver's device (net.c), its control queue (net_ctrl.c) and
 * receive-side scaling (net_rss.c).
 */
#ifndef VIRTIO4_NET_H
#define VIRTIO4_NET_H

#include <linux/completion.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <virtio4/bus.h>

struct v4net;

#define V4NET_TX_MIN_FREE (MAX_SKB_FRAGS + 2)	/* room for the largest skb */

/**
 * struct v4net_stats - one queue's counters, for ethtool -S and stats64
 * @syncp: guards the counters' 64-bit reads.
 * @packets: packets received or sent.
 * @bytes: their bytes, Ethernet header included.
 * @drops: packets dropped, for any reason.
 * @length_errors: received frames shorter than their headers, or with more
 *	buffers than the device used or than an skb holds.
 * @frame_errors: received frames with a bad num_buffers.
 * @header_errors: received frames whose virtio-net header lied.
 * @alloc_failures: receive refills that ran out of memory.
 * @drained: further buffers of dropped merged packets.
 */
struct v4net_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t drops;
	u64_stats_t length_errors;
	u64_stats_t frame_errors;
	u64_stats_t header_errors;
	u64_stats_t alloc_failures;
	u64_stats_t drained;
};

/**
 * struct v4net_rq - one receive queue
 * @vq: the queue.
 * @napi: collects received packets and refills @vq.
 * @frags: where receive buffers come from; used where @vq is.
 * @stats: its counters.
 * @net: the device.
 * @index: the queue's number among the receive queues (rxN).
 * @name: "rxN".
 */
struct v4net_rq {
	struct virtio4_queue *vq;
	struct napi_struct napi;
	struct page_frag_cache frags;
	struct v4net_stats stats;
	struct v4net *net;
	unsigned int index;
	char name[8];
};

/**
 * struct v4net_sq - one transmit queue
 * @vq: the queue.
 * @napi: reaps sent packets.
 * @stats: its counters.
 * @sg: the buffer being sent; under the queue's transmit lock.
 * @net: the device.
 * @index: the queue's number among the transmit queues (txN, the netdev
 *	transmit queue of the same number).
 * @name: "txN".
 */
struct v4net_sq {
	struct virtio4_queue *vq;
	struct napi_struct napi;
	struct v4net_stats stats;
	struct scatterlist sg[V4NET_TX_MIN_FREE];
	struct v4net *net;
	unsigned int index;
	char name[8];
};

#define V4NET_RSS_KEY	40	/* bytes of the RSS key: the spec's minimum */
#define V4NET_RSS_TABLE	128	/* entries of the indirection table: the same */

/**
 * struct v4net_rss - receive-side scaling (VIRTIO_NET_F_RSS); under RTNL
 * @on: negotiated.
 * @supported: the hash types (VIRTIO_NET_RSS_HASH_TYPE_*) the device has
 *	that we use.
 * @types: those in use.
 * @table: the indirection table: the receive queue of each entry.
 * @key: the Toeplitz key.
 */
struct v4net_rss {
	bool on;
	u32 supported;
	u32 types;
	u16 table[V4NET_RSS_TABLE];
	u8 key[V4NET_RSS_KEY];
};

/**
 * struct v4net - one virtio-net device
 * @vdev: the device on the virtio4 bus.
 * @dev: its network interface.
 * @rq: the receive queues, @max_pairs of them.
 * @sq: the transmit queues, @max_pairs of them.
 * @cvq: the control queue, or NULL without VIRTIO_NET_F_CTRL_VQ.
 * @max_pairs: the queue pairs created: what the device offers
 *	(VIRTIO_NET_F_MQ), at most one per CPU; 1 without MQ.
 * @pairs: the pairs in use (ethtool -L); the device uses only these. Under
 *	RTNL.
 * @refill: retries the refills that ran out of memory.
 * @refill_lock: guards @refill_on.
 * @refill_on: @refill may be scheduled.
 * @mergeable: VIRTIO_NET_F_MRG_RXBUF is negotiated.
 * @rx_len: bytes in one receive buffer.
 * @dead: given up: the link stays down.
 * @said_unused: a receive buffer given back unused (0 bytes) was logged: once
 *	a NIC (any receive queue's NAPI may set it).
 * @ctrl_done: completed by @cvq's callback.
 *	(@ctrl_dead and the ctrl counters: under RTNL, one command at a time.)
 * @ctrl_dead: a command went unanswered: no more are sent.
 * @ctrl_commands: control commands the device carried out.
 * @ctrl_errors: control commands refused, unanswered or not sent.
 * @announces: announcements asked for by the device (GUEST_ANNOUNCE).
 * @rx_mode_work: sends the receive mode and address filters (set_rx_mode
 *	runs in atomic context, a control command sleeps).
 * @rss: receive-side scaling's configuration, as the device has it.
 */
struct v4net {
	struct virtio4_device *vdev;
	struct net_device *dev;
	struct v4net_rq *rq;
	struct v4net_sq *sq;
	struct virtio4_queue *cvq;
	unsigned int max_pairs;
	unsigned int pairs;
	struct delayed_work refill;
	spinlock_t refill_lock;		/* guards refill_on */
	bool refill_on;
	bool mergeable;
	unsigned int rx_len;
	bool dead;
	bool said_unused;
	struct completion ctrl_done;
	bool ctrl_dead;
	unsigned long ctrl_commands;
	unsigned long ctrl_errors;
	unsigned long announces;
	struct work_struct rx_mode_work;
	struct v4net_rss rss;
};

/* net_ctrl.c */
int v4net_ctrl_param_check(void);
void v4net_ctrl_validate(struct virtio4_device *vdev);
void v4net_ctrl_init(struct v4net *net);
bool v4net_ctrl_done(struct virtio4_queue *vq);
void v4net_ctrl_setup_netdev(struct v4net *net);
void v4net_ctrl_stop(struct v4net *net);
void v4net_ctrl_free_buffers(struct v4net *net);
void v4net_announce(struct v4net *net);
void v4net_set_rx_mode(struct net_device *dev);
int v4net_set_mac_address(struct net_device *dev, void *addr);
int v4net_vlan_add(struct net_device *dev, __be16 proto, u16 vid);
int v4net_vlan_kill(struct net_device *dev, __be16 proto, u16 vid);
int v4net_ctrl_set_pairs(struct v4net *net, unsigned int pairs);
int v4net_ctrl_tell_mac(struct v4net *net);
int v4net_ctrl(struct v4net *net, u8 class, u8 cmd, const void *data, unsigned int len);

/* net_rss.c */
void v4net_rss_validate(struct virtio4_device *vdev);
void v4net_rss_init(struct v4net *net);
int v4net_rss_set_pairs(struct v4net *net, unsigned int pairs);
u32 v4net_get_rxfh_key_size(struct net_device *dev);
u32 v4net_get_rxfh_indir_size(struct net_device *dev);
int v4net_get_rxfh(struct net_device *dev, u32 *indir, u8 *key, u8 *hfunc);
int v4net_set_rxfh(struct net_device *dev, const u32 *indir, const u8 *key, const u8 hfunc);
int v4net_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *info, u32 *rule_locs);
int v4net_set_rxnfc(struct net_device *dev, struct ethtool_rxnfc *info);

#endif
