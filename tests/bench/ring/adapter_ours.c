// SPDX-License-Identifier: GPL-2.0
/* The ring cost benchmark's view of our ring/ring.c. */
#include <linux/scatterlist.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>
#include "ring.h"

static unsigned long ours_kicks;
static struct virtio4_device ours_vdev;
static struct device ours_dma_dev;

static bool ours_notify(struct virtio4_queue *vq, void *data)
{
	ours_kicks++;
	return true;
}

static void *ours_create(unsigned int num, bool packed, struct ring_mem *mem)
{
	struct virtio4_ring_layout layout;
	struct virtio4_queue *vq;

	ours_vdev.features = 1ULL << VIRTIO_RING_F_EVENT_IDX |
			     (packed ? 1ULL << VIRTIO_F_RING_PACKED : 0);
	vq = virtio4_ring_new(&ours_vdev, &ours_dma_dev, 0, num, ours_notify, NULL,
			      NULL, "ours");
	if (IS_ERR(vq))
		return NULL;
	virtio4_ring_layout(vq, &layout);
	mem->desc = (void *)(unsigned long)layout.desc;
	mem->avail = (void *)(unsigned long)layout.avail;
	mem->used = (void *)(unsigned long)layout.used;
	return vq;
}

static int ours_add(void *q, void *out, unsigned int out_len, void *in,
		    unsigned int in_len, void *token)
{
	struct virtio4_queue *vq = q;
	struct scatterlist sg[2];

	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], out, out_len);
	sg_set_buf(&sg[1], in, in_len);
	return vq->ops->add_buf(vq, sg, 1, 1, token);
}

static void ours_kick(void *q)
{
	struct virtio4_queue *vq = q;

	vq->ops->sync(vq);
}

static void *ours_get(void *q, unsigned int *len)
{
	struct virtio4_queue *vq = q;

	return vq->ops->get_buf(vq, len);
}

const struct ring_impl ring_ours = {
	.name = "ours", .create = ours_create, .add = ours_add,
	.kick = ours_kick, .get = ours_get, .kicks = &ours_kicks,
};
