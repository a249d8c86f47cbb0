// SPDX-License-Identifier: GPL-2.0
/*
 * The network driver's control queue (VIRTIO_NET_F_CTRL_VQ): the queue pairs
 * in use (VIRTIO_NET_F_MQ, ethtool -L), the receive
 * mode and address filters (CTRL_RX: promiscuous, all-multicast, the MAC
 * tables from the interface's unicast and multicast lists), the MAC address
 * (CTRL_MAC_ADDR), VLAN filters (CTRL_VLAN) and the announcement a device
 * asks for after a migration (GUEST_ANNOUNCE); net_rss.c sends RSS's
 * configuration through it.
 *
 * One command at a time (under RTNL), each in a buffer of its own: header,
 * data, then the status byte the device writes. The driver sleeps until the
 * queue's callback says the device answered, for ctrl_timeout_ms at most: a
 * device that never answers costs one wait, one log line and an error,
 * never a CPU spinning under RTNL (Linux 6.1's virtio_net busy-waits there).
 * The unanswered buffer stays the device's until remove resets it, and no
 * further command is sent.
 *
 * Locking: RTNL serializes the commands and guards the ctrl fields of
 * struct v4net; every caller holds it (the netdev operations, and the
 * receive-mode work and the announcement take it).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/virtio_net.h>
#include "net.h"

static unsigned int ctrl_timeout_ms = 5000;
module_param(ctrl_timeout_ms, uint, 0444);
MODULE_PARM_DESC(ctrl_timeout_ms,
		 "Milliseconds a control command waits for the device, 10..60000; one left unanswered turns control commands off until the device is removed (default: 5000)");

/* One command: the device reads @hdr and @data and writes @status. */
struct v4net_ctrl_buf {
	struct virtio_net_ctrl_hdr hdr;
	u8 status ____cacheline_aligned;	/* apart from what the device reads */
	u8 data[] ____cacheline_aligned;
};

/**
 * v4net_ctrl_param_check - is the module parameter ctrl_timeout_ms valid?
 *
 * Return: 0, or -EINVAL with one log line.
 */
int v4net_ctrl_param_check(void)
{
	if (ctrl_timeout_ms >= 10 && ctrl_timeout_ms <= 60000)
		return 0;
	pr_err("ctrl_timeout_ms=%u is outside 10..60000 milliseconds\n", ctrl_timeout_ms);
	return -EINVAL;
}

/**
 * v4net_ctrl_validate - drop the control features a device offered alone
 * @vdev: the device, its features chosen.
 *
 * Each needs the control queue (and an announcement the status field); a
 * device offering one without them is broken.
 */
void v4net_ctrl_validate(struct virtio4_device *vdev)
{
	if (!virtio4_has_feature(vdev, VIRTIO_NET_F_CTRL_VQ))
		vdev->features &= ~(BIT_ULL(VIRTIO_NET_F_CTRL_RX) |
				    BIT_ULL(VIRTIO_NET_F_CTRL_VLAN) |
				    BIT_ULL(VIRTIO_NET_F_CTRL_MAC_ADDR) |
				    BIT_ULL(VIRTIO_NET_F_GUEST_ANNOUNCE) |
				    BIT_ULL(VIRTIO_NET_F_MQ));
	/* The device asks for an announcement in its status field. */
	if (!virtio4_has_feature(vdev, VIRTIO_NET_F_STATUS))
		vdev->features &= ~BIT_ULL(VIRTIO_NET_F_GUEST_ANNOUNCE);
}

/**
 * v4net_ctrl_done - the control queue's callback: a command was answered
 * @vq: the control queue.
 *
 * Return: true: callbacks stay on (answers are rare).
 */
bool v4net_ctrl_done(struct virtio4_queue *vq)
{
	struct v4net *net = vq->priv;

	complete(&net->ctrl_done);
	return true;
}

/* Wait for the device's answer to the one command outstanding. */
static int v4net_ctrl_wait(struct v4net *net, unsigned int *len)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(ctrl_timeout_ms);
	struct virtio4_queue *vq = net->cvq;
	long left;

	while (!vq->ops->get_buf(vq, len)) {
		if (READ_ONCE(vq->broken))
			return -EIO;
		left = (long)(deadline - jiffies);
		if (left <= 0)
			return -ETIMEDOUT;
		wait_for_completion_timeout(&net->ctrl_done, left);
	}
	return 0;
}

/* Send @buf; 0 once the device answered. Frees @buf unless the device kept it. */
static int v4net_ctrl_send(struct v4net *net, struct v4net_ctrl_buf *buf,
			   unsigned int len)
{
	struct virtio4_queue *vq = net->cvq;
	unsigned int out = len ? 2 : 1, written;
	struct scatterlist sg[3];
	int err;

	sg_init_table(sg, out + 1);
	sg_set_buf(&sg[0], &buf->hdr, sizeof(buf->hdr));
	if (len)
		sg_set_buf(&sg[1], buf->data, len);
	sg_set_buf(&sg[out], &buf->status, sizeof(buf->status));
	reinit_completion(&net->ctrl_done);
	err = vq->ops->add_buf(vq, sg, out, 1, buf);
	if (err) {
		kfree(buf);
		return err;
	}
	vq->ops->sync(vq);
	err = v4net_ctrl_wait(net, &written);
	if (err) {
		/* The device still holds @buf: freed at remove, after the reset. */
		net->ctrl_dead = true;
		return err;
	}
	err = written < sizeof(buf->status) ? -EPROTO :
	      buf->status == VIRTIO_NET_OK ? 0 : -EIO;
	kfree(buf);
	return err;
}

/*
 * Send one command and wait for its answer, counted in ethtool -S; no log
 * line: v4net_ctrl's, or the caller's own.
 */
static int v4net_ctrl_quiet(struct v4net *net, u8 class, u8 cmd, const void *data,
			    unsigned int len)
{
	struct v4net_ctrl_buf *buf;
	int err = -EIO;

	ASSERT_RTNL();
	if (net->ctrl_dead || READ_ONCE(net->dead))
		goto out;	/* said once already */
	buf = kzalloc(struct_size(buf, data, len), GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	buf->hdr.class = class;
	buf->hdr.cmd = cmd;
	if (len)
		memcpy(buf->data, data, len);
	buf->status = VIRTIO_NET_ERR;
	err = v4net_ctrl_send(net, buf, len);
out:
	if (err)
		WRITE_ONCE(net->ctrl_errors, net->ctrl_errors + 1);
	else
		WRITE_ONCE(net->ctrl_commands, net->ctrl_commands + 1);
	return err;
}

/**
 * v4net_ctrl - send one control command and wait for its answer
 * @net: the device, with a control queue.
 * @class: the command's class (VIRTIO_NET_CTRL_*).
 * @cmd: the command in it.
 * @data: what the device reads after the header, copied.
 * @len: its bytes (0: none).
 *
 * A failure logs one line (rate-limited; a timeout once).
 *
 * Context: process context, under RTNL.
 * Return: 0, -EIO when the device refused it, broke the queue or was given
 * up, -ETIMEDOUT when it did not answer in time, -EPROTO when it answered
 * without a status, or -ENOMEM.
 */
int v4net_ctrl(struct v4net *net, u8 class, u8 cmd, const void *data,
	       unsigned int len)
{
	int err = v4net_ctrl_quiet(net, class, cmd, data, len);

	if (err == -ETIMEDOUT)
		netdev_err(net->dev, "the device did not answer control command %u.%u in %u ms: no more control commands until it is removed\n",
			   class, cmd, ctrl_timeout_ms);
	else if (err && net_ratelimit())
		netdev_warn(net->dev, "control command %u.%u failed: %pe (-EIO: refused by the device)\n",
			    class, cmd, ERR_PTR(err));
	return err;
}

/* One MAC table (virtio_net_ctrl_mac) of @list at @to; returns its bytes. */
static size_t v4net_mac_table(void *to, struct netdev_hw_addr_list *list)
{
	struct virtio_net_ctrl_mac *table = to;
	struct netdev_hw_addr *ha;
	unsigned int i = 0;

	netdev_hw_addr_list_for_each(ha, list)
		ether_addr_copy(table->macs[i++], ha->addr);
	table->entries = (__force __virtio32)cpu_to_le32(i);
	return struct_size(table, macs, i);
}

/* Both MAC tables, unicast then multicast; NULL if out of memory. */
static void *v4net_mac_tables(struct net_device *dev, size_t *len)
{
	struct virtio_net_ctrl_mac *table;
	void *tables;

	netif_addr_lock_bh(dev);
	tables = kzalloc(2 * sizeof(*table) +
			 (netdev_uc_count(dev) + netdev_mc_count(dev)) * ETH_ALEN,
			 GFP_ATOMIC);
	if (tables) {
		*len = v4net_mac_table(tables, &dev->uc);
		*len += v4net_mac_table(tables + *len, &dev->mc);
	}
	netif_addr_unlock_bh(dev);
	return tables;
}

static void v4net_rx_mode_work(struct work_struct *work)
{
	struct v4net *net = container_of(work, struct v4net, rx_mode_work);
	struct net_device *dev = net->dev;
	u8 promisc, allmulti;
	void *tables;
	size_t len;

	rtnl_lock();
	promisc = !!(dev->flags & IFF_PROMISC);
	allmulti = !!(dev->flags & IFF_ALLMULTI);
	if (v4net_ctrl(net, VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, &promisc, 1) ||
	    v4net_ctrl(net, VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_ALLMULTI, &allmulti, 1))
		goto out;
	tables = v4net_mac_tables(dev, &len);
	if (tables) {
		v4net_ctrl(net, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, tables, len);
		kfree(tables);
	} else {
		netdev_warn(dev, "no memory for the MAC filter tables\n");
	}
out:
	rtnl_unlock();
}

/**
 * v4net_set_rx_mode - ndo_set_rx_mode: have the filters sent
 * @dev: the interface.
 *
 * Context: atomic (the address lists' lock); the work sends them.
 */
void v4net_set_rx_mode(struct net_device *dev)
{
	struct v4net *net = netdev_priv(dev);

	if (virtio4_has_feature(net->vdev, VIRTIO_NET_F_CTRL_RX))
		schedule_work(&net->rx_mode_work);
}

/**
 * v4net_set_mac_address - ndo_set_mac_address, told to the device
 * @dev: the interface.
 * @addr: a struct sockaddr with the new address.
 *
 * With CTRL_MAC_ADDR the device filters by the new address (the command
 * goes first: refused, nothing changes); without, only the interface
 * changes, as the device's configured address is read-only in virtio 1.x.
 *
 * Context: process context, under RTNL.
 * Return: 0 or -errno.
 */
int v4net_set_mac_address(struct net_device *dev, void *addr)
{
	struct v4net *net = netdev_priv(dev);
	struct sockaddr *sa = addr;
	int err;

	err = eth_prepare_mac_addr_change(dev, addr);
	if (err)
		return err;
	if (virtio4_has_feature(net->vdev, VIRTIO_NET_F_CTRL_MAC_ADDR)) {
		err = v4net_ctrl(net, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET,
				 sa->sa_data, ETH_ALEN);
		if (err)
			return err;
	}
	eth_commit_mac_addr_change(dev, addr);
	return 0;
}

/**
 * v4net_ctrl_tell_mac - tell a device without an address of its own ours
 * @net: the device, ready, its interface not registered yet.
 *
 * A device without VIRTIO_NET_F_MAC leaves the address to the driver, which
 * picked a random one; with CTRL_MAC_ADDR the device may filter by address,
 * so it is told that one before any frame is sent or expected.
 *
 * Context: process context; takes RTNL.
 * Return: 0, or -errno with one log line: the device would drop what is
 * sent to us.
 */
int v4net_ctrl_tell_mac(struct v4net *net)
{
	struct virtio4_device *vdev = net->vdev;
	int err;

	if (virtio4_has_feature(vdev, VIRTIO_NET_F_MAC) ||
	    !virtio4_has_feature(vdev, VIRTIO_NET_F_CTRL_MAC_ADDR))
		return 0;
	rtnl_lock();
	err = v4net_ctrl_quiet(net, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET,
			       net->dev->dev_addr, ETH_ALEN);
	rtnl_unlock();
	if (err)
		dev_err(&vdev->dev, "the device did not take the address %pM the driver chose for it (%pe%s): not probed\n",
			net->dev->dev_addr, ERR_PTR(err),
			err == -ETIMEDOUT ? ": no answer in ctrl_timeout_ms" : "");
	return err;
}

static int v4net_vlan(struct net_device *dev, u8 cmd, u16 vid)
{
	__le16 v = cpu_to_le16(vid);

	return v4net_ctrl(netdev_priv(dev), VIRTIO_NET_CTRL_VLAN, cmd, &v, sizeof(v));
}

/**
 * v4net_vlan_add - ndo_vlan_rx_add_vid: the device passes VLAN @vid
 * @dev: the interface.
 * @proto: the VLAN protocol (802.1Q: the only filter the device has).
 * @vid: the VLAN.
 *
 * Context: process context, under RTNL.
 * Return: 0 or -errno.
 */
int v4net_vlan_add(struct net_device *dev, __be16 proto, u16 vid)
{
	return v4net_vlan(dev, VIRTIO_NET_CTRL_VLAN_ADD, vid);
}

/**
 * v4net_vlan_kill - ndo_vlan_rx_kill_vid: the device drops VLAN @vid again
 * @dev: the interface.
 * @proto: the VLAN protocol.
 * @vid: the VLAN.
 *
 * Context: process context, under RTNL.
 * Return: 0 or -errno.
 */
int v4net_vlan_kill(struct net_device *dev, __be16 proto, u16 vid)
{
	return v4net_vlan(dev, VIRTIO_NET_CTRL_VLAN_DEL, vid);
}

/**
 * v4net_ctrl_set_pairs - have the device use @pairs queue pairs (VIRTIO_NET_F_MQ)
 * @net: the device.
 * @pairs: 1..net->max_pairs.
 *
 * Once the device answered, it receives on no queue above them.
 *
 * Context: process context, under RTNL.
 * Return: 0 or -errno.
 */
int v4net_ctrl_set_pairs(struct v4net *net, unsigned int pairs)
{
	struct virtio_net_ctrl_mq mq = {
		.virtqueue_pairs = (__force __virtio16)cpu_to_le16(pairs),
	};

	return v4net_ctrl(net, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, &mq,
			  sizeof(mq));
}

/**
 * v4net_announce - the device asked to be announced (VIRTIO_NET_S_ANNOUNCE)
 * @net: the device.
 *
 * Gratuitous ARP and unsolicited neighbour advertisements go out (as after
 * a failover), then the device is told they did (ANNOUNCE_ACK).
 *
 * Context: process context (config_changed), not under RTNL.
 */
void v4net_announce(struct v4net *net)
{
	rtnl_lock();
	__netdev_notify_peers(net->dev);
	WRITE_ONCE(net->announces, net->announces + 1);
	v4net_ctrl(net, VIRTIO_NET_CTRL_ANNOUNCE, VIRTIO_NET_CTRL_ANNOUNCE_ACK, NULL, 0);
	rtnl_unlock();
}

/**
 * v4net_ctrl_init - set up what the control queue needs, before probe uses it
 * @net: the device.
 */
void v4net_ctrl_init(struct v4net *net)
{
	init_completion(&net->ctrl_done);
	INIT_WORK(&net->rx_mode_work, v4net_rx_mode_work);
}

/**
 * v4net_ctrl_setup_netdev - what the interface can do through the control queue
 * @net: the device, its features negotiated.
 */
void v4net_ctrl_setup_netdev(struct v4net *net)
{
	struct virtio4_device *vdev = net->vdev;

	/* Secondary unicast addresses go to the device's table, not promiscuous mode. */
	if (virtio4_has_feature(vdev, VIRTIO_NET_F_CTRL_RX))
		net->dev->priv_flags |= IFF_UNICAST_FLT;
	if (virtio4_has_feature(vdev, VIRTIO_NET_F_CTRL_VLAN))
		net->dev->features |= NETIF_F_HW_VLAN_CTAG_FILTER;
}

/**
 * v4net_ctrl_stop - no command is sent from now on (remove, once unregistered)
 * @net: the device.
 */
void v4net_ctrl_stop(struct v4net *net)
{
	cancel_work_sync(&net->rx_mode_work);
}

/**
 * v4net_ctrl_free_buffers - free a command the device kept (after the reset)
 * @net: the device.
 */
void v4net_ctrl_free_buffers(struct v4net *net)
{
	void *buf;

	if (!net->cvq)
		return;
	while ((buf = net->cvq->ops->detach_unused(net->cvq)))
		kfree(buf);
}
