// SPDX-License-Identifier: GPL-2.0
/* The ring cost benchmark's view of Linux's virtio_ring.c (built from linux-source-6.1). */
#include <stdlib.h>
#include <string.h>
#include <linux/virtio.h>
#include <linux/virtio_ring.h>
#include <linux/virtio_config.h>
#include "ring.h"
#include "linux-extra.h"

void *__kmalloc_fake, *__kfree_ignore_start, *__kfree_ignore_end;

static unsigned long linux_kicks;
static struct virtio_device linux_vdev;

static bool linux_notify(struct virtqueue *vq)
{
	linux_kicks++;
	return true;
}

/* A driver's callback, as ours has: with one, the ring asks for interrupts. */
static void linux_callback(struct virtqueue *vq)
{
}

/* Either layout allocated by virtio_ring.c itself, as virtio_pci's queues are. */
static void *linux_create(unsigned int num, const struct ring_features *f,
			  struct ring_mem *mem)
{
	struct virtqueue *vq;

	linux_vdev.features = 1ULL << VIRTIO_RING_F_EVENT_IDX | 1ULL << VIRTIO_F_VERSION_1 |
			      (f->packed ? 1ULL << VIRTIO_F_RING_PACKED : 0) |
			      (f->indirect ? 1ULL << VIRTIO_RING_F_INDIRECT_DESC : 0) |
			      (f->dma ? 1ULL << VIRTIO_F_ACCESS_PLATFORM : 0);
	INIT_LIST_HEAD(&linux_vdev.vqs);
	spin_lock_init(&linux_vdev.vqs_list_lock);
	vq = vring_create_virtqueue(0, num, 4096, &linux_vdev, true, false, false,
				    linux_notify, linux_callback, "linux");
	if (!vq)
		return NULL;
	mem->desc = (void *)(unsigned long)virtqueue_get_desc_addr(vq);
	mem->avail = (void *)(unsigned long)virtqueue_get_avail_addr(vq);
	mem->used = (void *)(unsigned long)virtqueue_get_used_addr(vq);
	return vq;
}

/*
 * What Linux's drivers call: virtio_net fills a receive buffer with
 * virtqueue_add_inbuf(), virtio_blk adds a request with virtqueue_add_sgs(),
 * one list each for its header, data and status.
 */
static int linux_add(void *q, void *const *buf, const unsigned int *len, unsigned int out,
		     unsigned int in, void *token)
{
	struct scatterlist sg[RING_COST_MAX_SG], *sgs[RING_COST_MAX_SG];
	unsigned int i;

	for (i = 0; i < out + in; i++) {
		sg_init_one(&sg[i], buf[i], len[i]);
		sgs[i] = &sg[i];
	}
	if (!out && in == 1)
		return virtqueue_add_inbuf(q, sg, 1, token, GFP_ATOMIC);
	return virtqueue_add_sgs(q, sgs, out, in, token, GFP_ATOMIC);
}

static void linux_kick(void *q)
{
	virtqueue_kick(q);
}

static void *linux_get(void *q, unsigned int *len)
{
	return virtqueue_get_buf(q, len);
}

const struct ring_impl ring_linux = {
	.name = "linux", .create = linux_create, .add = linux_add,
	.kick = linux_kick, .get = linux_get, .kicks = &linux_kicks,
};
