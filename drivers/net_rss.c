// SPDX-License-Identifier: GPL-2.0
/*
 * The network driver's receive-side scaling (VIRTIO_NET_F_RSS): the device
 * hashes each received frame's addresses and ports (Toeplitz, under our key)
 * and puts it on the receive queue our indirection table gives for the hash.
 * The table spreads over the pairs in use until the user sets one
 * (ethtool -X); the key (ethtool -X hkey) and the hash fields per flow type
 * (ethtool -N rx-flow-hash: addresses, or addresses and ports) are the
 * user's to change. Every change goes to the device in one
 * VIRTIO_NET_CTRL_MQ_RSS_CONFIG command, which also sets the pairs in use
 * (VQ_PAIRS_SET would turn RSS off); a change the device refuses is undone.
 *
 * A device offering RSS must offer a key of 40 bytes and a table of 128
 * entries at least (the spec's minimum); one that offers less, or no hash
 * type we use, gets one log line and multiqueue without RSS.
 *
 * Locking: everything here runs under RTNL (ethtool, and the pairs' changes),
 * which guards struct v4net_rss.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/virtio_net.h>
#include "net.h"

/* The hash types we use: IPv4, IPv6 and their TCP and UDP ports, no extension headers. */
#define V4NET_RSS_TYPES	(VIRTIO_NET_RSS_HASH_TYPE_IPv4 | VIRTIO_NET_RSS_HASH_TYPE_TCPv4 | \
			 VIRTIO_NET_RSS_HASH_TYPE_UDPv4 | VIRTIO_NET_RSS_HASH_TYPE_IPv6 | \
			 VIRTIO_NET_RSS_HASH_TYPE_TCPv6 | VIRTIO_NET_RSS_HASH_TYPE_UDPv6)

/* VIRTIO_NET_CTRL_MQ_RSS_CONFIG as we send it: struct virtio_net_rss_config, in line. */
struct v4net_rss_cmd {
	__le32 hash_types;
	__le16 table_mask;
	__le16 unclassified;
	__le16 table[V4NET_RSS_TABLE];
	__le16 max_tx_vq;
	u8 key_len;
	u8 key[V4NET_RSS_KEY];
} __packed;

#define v4net_cfg(field) offsetof(struct virtio_net_config, field)

/**
 * v4net_rss_validate - keep VIRTIO_NET_F_RSS only where it can work
 * @vdev: the device, its features chosen.
 *
 * RSS needs the control queue and several pairs (VIRTIO_NET_F_MQ, checked
 * first), a key and table as large as the spec requires and a hash type we
 * use.
 */
void v4net_rss_validate(struct virtio4_device *vdev)
{
	u32 types;
	u16 table;
	u8 key;

	if (!virtio4_has_feature(vdev, VIRTIO_NET_F_RSS))
		return;
	if (!virtio4_has_feature(vdev, VIRTIO_NET_F_MQ) ||
	    !virtio4_has_feature(vdev, VIRTIO_NET_F_CTRL_VQ))
		goto off;
	key = virtio4_cread8(vdev, v4net_cfg(rss_max_key_size));
	table = virtio4_cread16(vdev, v4net_cfg(rss_max_indirection_table_length));
	types = virtio4_cread32(vdev, v4net_cfg(supported_hash_types));
	if (key >= V4NET_RSS_KEY && table >= V4NET_RSS_TABLE && (types & V4NET_RSS_TYPES))
		return;
	dev_err(&vdev->dev, "ignoring RSS: a key of %u bytes and a table of %u entries (at least %u and %u), hash types %#x\n",
		key, table, V4NET_RSS_KEY, V4NET_RSS_TABLE, types);
off:
	vdev->features &= ~BIT_ULL(VIRTIO_NET_F_RSS);
}

/* The default table: entry i to pair i modulo @pairs. */
static void v4net_rss_spread(struct v4net_rss *rss, unsigned int pairs)
{
	unsigned int i;

	for (i = 0; i < V4NET_RSS_TABLE; i++)
		rss->table[i] = ethtool_rxfh_indir_default(i, pairs);
}

/**
 * v4net_rss_init - the first configuration, before the device runs
 * @net: the device, RSS negotiated or not.
 *
 * Every hash type we use that the device has, a random key, the table over
 * one pair. Sent with the pairs once the interface is registered.
 */
void v4net_rss_init(struct v4net *net)
{
	struct v4net_rss *rss = &net->rss;

	rss->on = virtio4_has_feature(net->vdev, VIRTIO_NET_F_RSS);
	if (!rss->on)
		return;
	rss->supported = virtio4_cread32(net->vdev, v4net_cfg(supported_hash_types)) &
			 V4NET_RSS_TYPES;
	rss->types = rss->supported;
	netdev_rss_key_fill(rss->key, sizeof(rss->key));
	v4net_rss_spread(rss, 1);
}

/* Send @rss with @pairs in use; 0 or -errno. Under RTNL. */
static int v4net_rss_send(struct v4net *net, const struct v4net_rss *rss, unsigned int pairs)
{
	struct v4net_rss_cmd cmd = {
		.hash_types = cpu_to_le32(rss->types),
		.table_mask = cpu_to_le16(V4NET_RSS_TABLE - 1),
		.unclassified = cpu_to_le16(0),
		.max_tx_vq = cpu_to_le16(pairs),
		.key_len = V4NET_RSS_KEY,
	};
	unsigned int i;

	for (i = 0; i < V4NET_RSS_TABLE; i++)
		cmd.table[i] = cpu_to_le16(rss->table[i]);
	memcpy(cmd.key, rss->key, V4NET_RSS_KEY);
	return v4net_ctrl(net, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, &cmd,
			  sizeof(cmd));
}

/* Make @rss the configuration, if the device takes it with @pairs in use. */
static int v4net_rss_commit(struct v4net *net, const struct v4net_rss *rss, unsigned int pairs)
{
	int err = v4net_rss_send(net, rss, pairs);

	if (!err)
		net->rss = *rss;
	return err;
}

/**
 * v4net_rss_set_pairs - have the device use @pairs queue pairs, with RSS
 * @net: the device, RSS negotiated.
 * @pairs: 1..net->max_pairs.
 *
 * The table follows the pairs unless the user set it (the ethtool core
 * refuses fewer pairs than such a table uses).
 *
 * Context: process context, under RTNL.
 * Return: 0 or -errno; the configuration is unchanged on failure.
 */
int v4net_rss_set_pairs(struct v4net *net, unsigned int pairs)
{
	struct v4net_rss rss = net->rss;

	ASSERT_RTNL();
	if (!netif_is_rxfh_configured(net->dev))
		v4net_rss_spread(&rss, pairs);
	return v4net_rss_commit(net, &rss, pairs);
}

/**
 * v4net_get_rxfh_key_size - ethtool: the RSS key's bytes (0 without RSS)
 * @dev: the interface.
 *
 * Return: the key's size.
 */
u32 v4net_get_rxfh_key_size(struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);

	return net->rss.on ? V4NET_RSS_KEY : 0;
}

/**
 * v4net_get_rxfh_indir_size - ethtool: the indirection table's entries (0 without RSS)
 * @dev: the interface.
 *
 * Return: the table's size.
 */
u32 v4net_get_rxfh_indir_size(struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);

	return net->rss.on ? V4NET_RSS_TABLE : 0;
}

/**
 * v4net_get_rxfh - ethtool -x: the indirection table, key and hash function
 * @dev: the interface.
 * @indir: the table goes here, if not NULL.
 * @key: the key goes here, if not NULL.
 * @hfunc: the hash function (Toeplitz) goes here, if not NULL.
 *
 * Context: under RTNL.
 * Return: 0, or -EOPNOTSUPP without RSS.
 */
int v4net_get_rxfh(struct net_device *dev, u32 *indir, u8 *key, u8 *hfunc)
{
	struct v4net *net = netdev_priv(dev);
	unsigned int i;

	if (!net->rss.on)
		return -EOPNOTSUPP;
	for (i = 0; indir && i < V4NET_RSS_TABLE; i++)
		indir[i] = net->rss.table[i];
	if (key)
		memcpy(key, net->rss.key, V4NET_RSS_KEY);
	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	return 0;
}

/**
 * v4net_set_rxfh - ethtool -X: a new indirection table or key, or both
 * @dev: the interface.
 * @indir: the table, if not NULL (the ethtool core checked each entry
 *	against the pairs in use, ETHTOOL_GRXRINGS).
 * @key: the key, if not NULL.
 * @hfunc: the hash function: only Toeplitz.
 *
 * Context: under RTNL.
 * Return: 0 once the device took it, or -errno (nothing changed).
 */
int v4net_set_rxfh(struct net_device *dev, const u32 *indir, const u8 *key,
		   const u8 hfunc)
{
	struct v4net *net = netdev_priv(dev);
	struct v4net_rss rss = net->rss;
	unsigned int i;

	if (!rss.on)
		return -EOPNOTSUPP;
	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	for (i = 0; indir && i < V4NET_RSS_TABLE; i++)
		rss.table[i] = indir[i];
	if (key)
		memcpy(rss.key, key, V4NET_RSS_KEY);
	return v4net_rss_commit(net, &rss, net->pairs);
}

/* The hash types of one ethtool flow type: its L4 one and its IP version's. */
static int v4net_flow_types(u32 flow_type, u32 *l4, u32 *ip)
{
	switch (flow_type) {
	case TCP_V4_FLOW:
		*l4 = VIRTIO_NET_RSS_HASH_TYPE_TCPv4;
		break;
	case UDP_V4_FLOW:
		*l4 = VIRTIO_NET_RSS_HASH_TYPE_UDPv4;
		break;
	case TCP_V6_FLOW:
		*l4 = VIRTIO_NET_RSS_HASH_TYPE_TCPv6;
		break;
	case UDP_V6_FLOW:
		*l4 = VIRTIO_NET_RSS_HASH_TYPE_UDPv6;
		break;
	case IPV4_FLOW:
	case IPV6_FLOW:
		*l4 = 0;
		break;
	default:
		return -EINVAL;
	}
	*ip = flow_type == TCP_V6_FLOW || flow_type == UDP_V6_FLOW || flow_type == IPV6_FLOW ?
	      VIRTIO_NET_RSS_HASH_TYPE_IPv6 : VIRTIO_NET_RSS_HASH_TYPE_IPv4;
	return 0;
}

#define V4NET_RXH_IP	(RXH_IP_SRC | RXH_IP_DST)
#define V4NET_RXH_L4	(V4NET_RXH_IP | RXH_L4_B_0_1 | RXH_L4_B_2_3)

/**
 * v4net_get_rxnfc - ethtool: the receive rings (pairs in use) and the fields
 *	a flow type is hashed over
 * @dev: the interface.
 * @info: the request (ETHTOOL_GRXRINGS, ETHTOOL_GRXFH) and its answer.
 * @rule_locs: unused (no classification rules).
 *
 * Context: under RTNL.
 * Return: 0 or -errno.
 */
int v4net_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *info,
		    u32 *rule_locs)
{
	struct v4net *net = netdev_priv(dev);
	u32 l4, ip;

	if (!net->rss.on)
		return -EOPNOTSUPP;
	switch (info->cmd) {
	case ETHTOOL_GRXRINGS:
		info->data = net->pairs;
		return 0;
	case ETHTOOL_GRXFH:
		if (v4net_flow_types(info->flow_type, &l4, &ip))
			return -EINVAL;
		info->data = l4 && (net->rss.types & l4) ? V4NET_RXH_L4 :
			     net->rss.types & ip ? V4NET_RXH_IP : 0;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * v4net_set_rxnfc - ethtool -N DEV rx-flow-hash TYPE sd|sdfn
 * @dev: the interface.
 * @info: the request: a flow type hashed over its addresses (sd), or its
 *	addresses and ports (sdfn; not for ip4 and ip6, nor where the device
 *	cannot).
 *
 * Context: under RTNL.
 * Return: 0 once the device took it, or -errno (nothing changed).
 */
int v4net_set_rxnfc(struct net_device *dev, struct ethtool_rxnfc *info)
{
	struct v4net *net = netdev_priv(dev);
	struct v4net_rss rss = net->rss;
	u32 l4, ip;

	if (!rss.on)
		return -EOPNOTSUPP;
	if (info->cmd != ETHTOOL_SRXFH)
		return -EOPNOTSUPP;
	if (v4net_flow_types(info->flow_type, &l4, &ip) ||
	    (info->data != V4NET_RXH_IP && info->data != V4NET_RXH_L4) ||
	    !(rss.supported & ip) || (info->data == V4NET_RXH_L4 && !(rss.supported & l4)))
		return -EINVAL;
	rss.types |= ip;
	if (l4 && info->data == V4NET_RXH_L4)
		rss.types |= l4;
	else
		rss.types &= ~l4;
	return v4net_rss_commit(net, &rss, net->pairs);
}
