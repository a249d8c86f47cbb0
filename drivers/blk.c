// SPDX-License-Identifier: GPL-2.0
/*
 * The block driver, written only against the draft-IV queue API and the
 * virtio4 bus: it knows nothing of rings or PCI.
 *
 * A request is one buffer: an out header (type, sector), the data (out for
 * writes, in for reads) and a one-byte status. Draft IV's article puts the
 * status first among the in elements; virtio 1.x puts it last, and real
 * devices (QEMU's virtio-blk) follow the standard, so this driver does too.
 *
 * Locking: blk->lock serialises every operation on the queue, as the API
 * requires; the queue's callback runs in interrupt context and takes it too.
 */
#include <linux/blk-mq.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <uapi/linux/virtio_blk.h>
#include <uapi/linux/virtio_ids.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/bus.h>

#define V4BLK_STATUS_NONE 0xff	/* what the status byte holds until the device writes it */

static unsigned int max_segments = 128;
module_param(max_segments, uint, 0444);
MODULE_PARM_DESC(max_segments,
		 "Most data segments in one request, further limited by the device (default: 128)");

static int v4blk_major;
static DEFINE_IDA(v4blk_index_ida);

/* The virtio 1.x request header, little-endian. */
struct v4blk_outhdr {
	__le32 type;
	__le32 ioprio;
	__le64 sector;
};

struct v4blk {
	struct virtio4_device *vdev;
	struct virtio4_queue *vq;
	spinlock_t lock;	/* serialises the operations on vq */
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	unsigned int sg_elems;
	int index;
	atomic64_t flushes;
};

/* Per-request state, in the blk-mq pdu: nothing is allocated per I/O. */
struct v4blk_req {
	struct v4blk_outhdr hdr;
	struct virtio_blk_discard_write_zeroes range;
	u8 status;
	struct scatterlist sg[];	/* header, data..., status */
};

static blk_status_t v4blk_status(u8 status)
{
	switch (status) {
	case VIRTIO_BLK_S_OK:
		return BLK_STS_OK;
	case VIRTIO_BLK_S_UNSUPP:
		return BLK_STS_NOTSUPP;
	default:
		return BLK_STS_IOERR;
	}
}

static bool v4blk_done(struct virtio4_queue *vq)
{
	struct v4blk *blk = vq->priv;
	struct request *req;
	unsigned long flags;
	unsigned int len;

	spin_lock_irqsave(&blk->lock, flags);
	while ((req = vq->ops->get_buf(vq, &len)))
		blk_mq_complete_request(req);
	spin_unlock_irqrestore(&blk->lock, flags);
	/* Space was freed: requests that found the queue full may go again. */
	blk_mq_start_stopped_hw_queues(blk->disk->queue, true);
	return true;
}

static void v4blk_complete(struct request *req)
{
	struct v4blk_req *br = blk_mq_rq_to_pdu(req);

	blk_mq_end_request(req, v4blk_status(br->status));
}

/* Fill the header and the request's own out payload; returns its type or -1. */
static int v4blk_setup_hdr(struct request *req, struct v4blk_req *br)
{
	u32 type;

	switch (req_op(req)) {
	case REQ_OP_READ:
		type = VIRTIO_BLK_T_IN;
		break;
	case REQ_OP_WRITE:
		type = VIRTIO_BLK_T_OUT;
		break;
	case REQ_OP_FLUSH:
		type = VIRTIO_BLK_T_FLUSH;
		break;
	case REQ_OP_DISCARD:
		type = VIRTIO_BLK_T_DISCARD;
		break;
	case REQ_OP_WRITE_ZEROES:
		type = VIRTIO_BLK_T_WRITE_ZEROES;
		break;
	case REQ_OP_DRV_IN:
		type = VIRTIO_BLK_T_GET_ID;
		break;
	default:
		return -1;
	}
	br->hdr.type = cpu_to_le32(type);
	br->hdr.ioprio = cpu_to_le32(req_get_ioprio(req));
	br->hdr.sector = cpu_to_le64(type == VIRTIO_BLK_T_IN || type == VIRTIO_BLK_T_OUT ?
				     blk_rq_pos(req) : 0);
	br->status = V4BLK_STATUS_NONE;
	if (type == VIRTIO_BLK_T_DISCARD || type == VIRTIO_BLK_T_WRITE_ZEROES) {
		bool unmap = !(req->cmd_flags & REQ_NOUNMAP);

		br->range.sector = cpu_to_le64(blk_rq_pos(req));
		br->range.num_sectors = cpu_to_le32(blk_rq_sectors(req));
		br->range.flags = cpu_to_le32(type == VIRTIO_BLK_T_WRITE_ZEROES && unmap ?
					      VIRTIO_BLK_WRITE_ZEROES_FLAG_UNMAP : 0);
	}
	return type;
}

/* Build header, data and status into br->sg; returns the element counts. */
static void v4blk_map(struct v4blk *blk, struct request *req,
		      struct v4blk_req *br, u32 type,
		      unsigned int *out, unsigned int *in)
{
	unsigned int n = 0;

	sg_init_table(br->sg, blk->sg_elems + 2);
	sg_set_buf(&br->sg[0], &br->hdr, sizeof(br->hdr));
	if (type == VIRTIO_BLK_T_DISCARD || type == VIRTIO_BLK_T_WRITE_ZEROES) {
		sg_set_buf(&br->sg[1], &br->range, sizeof(br->range));
		n = 1;
	} else if (blk_rq_nr_phys_segments(req)) {
		n = blk_rq_map_sg(req->q, req, &br->sg[1]);
		sg_unmark_end(&br->sg[n]);
	}
	sg_set_buf(&br->sg[n + 1], &br->status, sizeof(br->status));
	sg_mark_end(&br->sg[n + 1]);
	if (type == VIRTIO_BLK_T_IN || type == VIRTIO_BLK_T_GET_ID) {
		*out = 1;
		*in = n + 1;
	} else {
		*out = n + 1;
		*in = 1;
	}
}

static blk_status_t v4blk_queue_rq(struct blk_mq_hw_ctx *hctx,
				   const struct blk_mq_queue_data *bd)
{
	struct v4blk *blk = hctx->queue->queuedata;
	struct request *req = bd->rq;
	struct v4blk_req *br = blk_mq_rq_to_pdu(req);
	struct virtio4_queue *vq = blk->vq;
	unsigned int out, in;
	unsigned long flags;
	int type, err;

	type = v4blk_setup_hdr(req, br);
	if (type < 0)
		return BLK_STS_NOTSUPP;
	v4blk_map(blk, req, br, type, &out, &in);
	blk_mq_start_request(req);
	if (type == VIRTIO_BLK_T_FLUSH)
		atomic64_inc(&blk->flushes);

	spin_lock_irqsave(&blk->lock, flags);
	err = vq->ops->add_buf(vq, br->sg, out, in, req);
	if (err || bd->last)
		vq->ops->sync(vq);
	spin_unlock_irqrestore(&blk->lock, flags);

	switch (err) {
	case 0:
		return BLK_STS_OK;
	case -ENOSPC:
	case -ENOMEM:
		/* Restarted by v4blk_done() once the device uses a buffer. */
		blk_mq_stop_hw_queue(hctx);
		return BLK_STS_DEV_RESOURCE;
	default:
		return BLK_STS_IOERR;
	}
}

static void v4blk_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct v4blk *blk = hctx->queue->queuedata;
	unsigned long flags;

	spin_lock_irqsave(&blk->lock, flags);
	blk->vq->ops->sync(blk->vq);
	spin_unlock_irqrestore(&blk->lock, flags);
}

static const struct blk_mq_ops v4blk_mq_ops = {
	.queue_rq	= v4blk_queue_rq,
	.commit_rqs	= v4blk_commit_rqs,
	.complete	= v4blk_complete,
};

static const struct block_device_operations v4blk_fops = {
	.owner = THIS_MODULE,
};

/* The device's id string (VIRTIO_BLK_T_GET_ID), NUL-terminated in @buf. */
static int v4blk_get_id(struct v4blk *blk, char *buf)
{
	struct request_queue *q = blk->disk->queue;
	struct request *req;
	int err;

	req = blk_mq_alloc_request(q, REQ_OP_DRV_IN, 0);
	if (IS_ERR(req))
		return PTR_ERR(req);
	err = blk_rq_map_kern(q, req, buf, VIRTIO_BLK_ID_BYTES, GFP_KERNEL);
	if (!err)
		err = blk_status_to_errno(blk_execute_rq(req, false));
	blk_mq_free_request(req);
	buf[VIRTIO_BLK_ID_BYTES] = '\0';
	return err;
}

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct v4blk *blk = dev_to_disk(dev)->private_data;
	char *id;
	int err;

	id = kzalloc(VIRTIO_BLK_ID_BYTES + 1, GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	err = v4blk_get_id(blk, id);
	if (!err)
		err = sysfs_emit(buf, "%s\n", id);
	kfree(id);
	return err;
}
static DEVICE_ATTR_RO(serial);

static ssize_t flushes_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct v4blk *blk = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%lld\n", atomic64_read(&blk->flushes));
}
static DEVICE_ATTR_RO(flushes);

static struct attribute *v4blk_attrs[] = {
	&dev_attr_serial.attr,
	&dev_attr_flushes.attr,
	NULL,
};

static const struct attribute_group v4blk_attr_group = {
	.attrs = v4blk_attrs,
};

static const struct attribute_group *v4blk_attr_groups[] = {
	&v4blk_attr_group,
	NULL,
};

#define v4blk_cfg(field) offsetof(struct virtio_blk_config, field)

static void v4blk_update_capacity(struct v4blk *blk, bool notify)
{
	u64 capacity = virtio4_cread64(blk->vdev, v4blk_cfg(capacity));

	if (notify)
		set_capacity_and_notify(blk->disk, capacity);
	else
		set_capacity(blk->disk, capacity);
}

static void v4blk_set_block_size(struct v4blk *blk, struct request_queue *q)
{
	u32 size;

	if (!virtio4_has_feature(blk->vdev, VIRTIO_BLK_F_BLK_SIZE))
		return;
	size = virtio4_cread32(blk->vdev, v4blk_cfg(blk_size));
	if (size < SECTOR_SIZE || size > PAGE_SIZE || !is_power_of_2(size)) {
		dev_err(&blk->vdev->dev, "ignoring bad block size %u\n", size);
		return;
	}
	blk_queue_logical_block_size(q, size);
	blk_queue_physical_block_size(q, size);
	blk_queue_io_min(q, size);
}

static void v4blk_set_discard(struct v4blk *blk, struct request_queue *q)
{
	struct virtio4_device *vdev = blk->vdev;
	u32 v;

	if (virtio4_has_feature(vdev, VIRTIO_BLK_F_DISCARD)) {
		v = virtio4_cread32(vdev, v4blk_cfg(max_discard_sectors));
		blk_queue_max_discard_sectors(q, v ? v : UINT_MAX);
		blk_queue_max_discard_segments(q, 1);
		v = virtio4_cread32(vdev, v4blk_cfg(discard_sector_alignment));
		q->limits.discard_granularity = v ? v << SECTOR_SHIFT :
						    queue_logical_block_size(q);
	}
	if (virtio4_has_feature(vdev, VIRTIO_BLK_F_WRITE_ZEROES)) {
		v = virtio4_cread32(vdev, v4blk_cfg(max_write_zeroes_sectors));
		blk_queue_max_write_zeroes_sectors(q, v ? v : UINT_MAX);
	}
}

/* Apply what the device's configuration says to the queue and disk. */
static void v4blk_set_limits(struct v4blk *blk)
{
	struct virtio4_device *vdev = blk->vdev;
	struct request_queue *q = blk->disk->queue;
	u32 size_max;

	blk_queue_max_segments(q, blk->sg_elems);
	blk_queue_max_hw_sectors(q, UINT_MAX >> SECTOR_SHIFT);
	if (virtio4_has_feature(vdev, VIRTIO_BLK_F_SIZE_MAX)) {
		size_max = virtio4_cread32(vdev, v4blk_cfg(size_max));
		if (size_max >= PAGE_SIZE)
			blk_queue_max_segment_size(q, size_max);
	}
	v4blk_set_block_size(blk, q);
	v4blk_set_discard(blk, q);
	blk_queue_write_cache(q, virtio4_has_feature(vdev, VIRTIO_BLK_F_FLUSH), false);
	set_disk_ro(blk->disk, virtio4_has_feature(vdev, VIRTIO_BLK_F_RO));
	v4blk_update_capacity(blk, false);
}

/* How many data segments a request may have: ours, the device's and the ring's. */
static unsigned int v4blk_sg_elems(struct v4blk *blk)
{
	unsigned int n = clamp(max_segments, 1U, 1024U);
	u32 seg_max;

	if (virtio4_has_feature(blk->vdev, VIRTIO_BLK_F_SEG_MAX)) {
		seg_max = virtio4_cread32(blk->vdev, v4blk_cfg(seg_max));
		if (seg_max)
			n = min(n, seg_max);
	}
	if (!virtio4_has_feature(blk->vdev, VIRTIO_RING_F_INDIRECT_DESC) &&
	    blk->vq->num > 2)
		n = min(n, blk->vq->num - 2);
	return n;
}

static int v4blk_init_vq(struct v4blk *blk)
{
	virtio4_callback_t *callbacks[] = { v4blk_done };
	static const char * const names[] = { "requests" };
	struct virtio4_queue *vqs[1];
	int err;

	err = blk->vdev->config->find_vqs(blk->vdev, 1, vqs, callbacks, names);
	if (err)
		return err;
	blk->vq = vqs[0];
	blk->vq->priv = blk;
	return 0;
}

static int v4blk_init_disk(struct v4blk *blk)
{
	struct blk_mq_tag_set *set = &blk->tag_set;
	int err;

	set->ops = &v4blk_mq_ops;
	set->nr_hw_queues = 1;
	set->queue_depth = blk->vq->num;
	set->numa_node = NUMA_NO_NODE;
	set->flags = BLK_MQ_F_SHOULD_MERGE;
	set->cmd_size = struct_size((struct v4blk_req *)NULL, sg, blk->sg_elems + 2);
	err = blk_mq_alloc_tag_set(set);
	if (err)
		return err;
	blk->disk = blk_mq_alloc_disk(set, blk);
	if (IS_ERR(blk->disk)) {
		err = PTR_ERR(blk->disk);
		blk_mq_free_tag_set(set);
		return err;
	}
	blk->disk->major = v4blk_major;
	blk->disk->first_minor = blk->index * 16;
	blk->disk->minors = 16;
	blk->disk->fops = &v4blk_fops;
	blk->disk->private_data = blk;
	snprintf(blk->disk->disk_name, DISK_NAME_LEN, "v4blk%d", blk->index);
	return 0;
}

static void v4blk_free_disk(struct v4blk *blk)
{
	put_disk(blk->disk);
	blk_mq_free_tag_set(&blk->tag_set);
}

static int v4blk_probe(struct virtio4_device *vdev)
{
	struct v4blk *blk;
	int err;

	blk = kzalloc(sizeof(*blk), GFP_KERNEL);
	if (!blk)
		return -ENOMEM;
	blk->vdev = vdev;
	spin_lock_init(&blk->lock);
	vdev->priv = blk;
	err = ida_alloc_max(&v4blk_index_ida, (1 << MINORBITS) / 16 - 1, GFP_KERNEL);
	if (err < 0)
		goto err_free;
	blk->index = err;
	err = v4blk_init_vq(blk);
	if (err)
		goto err_ida;
	blk->sg_elems = v4blk_sg_elems(blk);
	err = v4blk_init_disk(blk);
	if (err)
		goto err_vqs;
	v4blk_set_limits(blk);
	/* The device must be live before the partition scan reads from it. */
	virtio4_device_ready(vdev);
	err = device_add_disk(&vdev->dev, blk->disk, v4blk_attr_groups);
	if (err)
		goto err_disk;
	return 0;

err_disk:
	vdev->config->reset(vdev);
	v4blk_free_disk(blk);
err_vqs:
	vdev->config->del_vqs(vdev);
err_ida:
	ida_free(&v4blk_index_ida, blk->index);
err_free:
	kfree(blk);
	return err;
}

static void v4blk_remove(struct virtio4_device *vdev)
{
	struct v4blk *blk = vdev->priv;

	del_gendisk(blk->disk);
	vdev->config->reset(vdev);
	vdev->config->del_vqs(vdev);
	v4blk_free_disk(blk);
	ida_free(&v4blk_index_ida, blk->index);
	kfree(blk);
}

static void v4blk_config_changed(struct virtio4_device *vdev)
{
	v4blk_update_capacity(vdev->priv, true);
}

static const struct virtio4_device_id v4blk_ids[] = {
	{ VIRTIO_ID_BLOCK, VIRTIO4_ANY_VENDOR },
	{ }
};

static const unsigned int v4blk_features[] = {
	VIRTIO_BLK_F_SIZE_MAX, VIRTIO_BLK_F_SEG_MAX, VIRTIO_BLK_F_RO,
	VIRTIO_BLK_F_BLK_SIZE, VIRTIO_BLK_F_FLUSH, VIRTIO_BLK_F_DISCARD,
	VIRTIO_BLK_F_WRITE_ZEROES,
};

static struct virtio4_driver v4blk_driver = {
	.driver.name		= KBUILD_MODNAME,
	.driver.owner		= THIS_MODULE,
	.id_table		= v4blk_ids,
	.feature_table		= v4blk_features,
	.feature_table_size	= ARRAY_SIZE(v4blk_features),
	.probe			= v4blk_probe,
	.remove			= v4blk_remove,
	.config_changed		= v4blk_config_changed,
};

static int __init v4blk_init(void)
{
	int err;

	v4blk_major = register_blkdev(0, "v4blk");
	if (v4blk_major < 0)
		return v4blk_major;
	err = virtio4_register_driver(&v4blk_driver);
	if (err)
		unregister_blkdev(v4blk_major, "v4blk");
	return err;
}

static void __exit v4blk_exit(void)
{
	virtio4_unregister_driver(&v4blk_driver);
	unregister_blkdev(v4blk_major, "v4blk");
	ida_destroy(&v4blk_index_ida);
}

module_init(v4blk_init);
module_exit(v4blk_exit);
MODULE_ALIAS("virtio4:d00000002v*");
MODULE_DESCRIPTION("virtio draft IV: block driver");
MODULE_LICENSE("GPL");
