// SPDX-License-Identifier: GPL-2.0
/* The ring cost benchmark's view of our ring/ring.c and ring/packed.c. */
#include <linux/scatterlist.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>
#include "ring.h"

/* ring/common.h's switch (module parameter virtio4.indirect_always). */
extern bool ring_indirect_always;

static unsigned long ours_kicks;
static struct virtio4_device ours_vdev;
static struct device ours_dma_dev;

static bool ours_notify(struct virtio4_queue *vq, void *data)
{
	ours_kicks++;
	return true;
}

static bool ours_callback(struct virtio4_queue *vq)
{
	return true;
}

static void *ours_create(unsigned int num, const struct ring_features *f,
			 struct ring_mem *mem)
{
	struct virtio4_ring_layout layout;
	struct virtio4_queue *vq;

	ours_vdev.features = 1ULL << VIRTIO_RING_F_EVENT_IDX | 1ULL << VIRTIO_F_VERSION_1 |
			     (f->packed ? 1ULL << VIRTIO_F_RING_PACKED : 0) |
			     (f->indirect ? 1ULL << VIRTIO_RING_F_INDIRECT_DESC : 0) |
			     (f->dma ? 1ULL << VIRTIO_F_ACCESS_PLATFORM : 0);
	/* Linux puts every chain in a table when it may; ours only when asked to. */
	ring_indirect_always = f->indirect;
	vq = virtio4_ring_new(&ours_vdev, &ours_dma_dev, 0, num, ours_notify, NULL,
			      ours_callback, "ours");
	if (IS_ERR(vq))
		return NULL;
	virtio4_ring_layout(vq, &layout);
	mem->desc = (void *)(unsigned long)layout.desc;
	mem->avail = (void *)(unsigned long)layout.avail;
	mem->used = (void *)(unsigned long)layout.used;
	return vq;
}

/* What our drivers call for every shape: one list of @out + @in elements. */
static int ours_add(void *q, void *const *buf, const unsigned int *len, unsigned int out,
		    unsigned int in, void *token)
{
	struct virtio4_queue *vq = q;
	struct scatterlist sg[RING_COST_MAX_SG];
	unsigned int i;

	sg_init_table(sg, out + in);
	for (i = 0; i < out + in; i++)
		sg_set_buf(&sg[i], buf[i], len[i]);
	return vq->ops->add_buf(vq, sg, out, in, token);
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
