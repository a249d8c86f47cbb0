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

/* Linux's packed ring, allocated by virtio_ring.c itself (no DMA API: no ACCESS_PLATFORM). */
static void *linux_create_packed(unsigned int num, struct ring_mem *mem)
{
	struct virtqueue *vq;

	linux_vdev.features = 1ULL << VIRTIO_RING_F_EVENT_IDX | 1ULL << VIRTIO_F_VERSION_1 |
			      1ULL << VIRTIO_F_RING_PACKED;
	INIT_LIST_HEAD(&linux_vdev.vqs);
	spin_lock_init(&linux_vdev.vqs_list_lock);
	vq = vring_create_virtqueue(0, num, 4096, &linux_vdev, true, false, false,
				    linux_notify, NULL, "linux");
	if (!vq)
		return NULL;
	mem->desc = (void *)(unsigned long)virtqueue_get_desc_addr(vq);
	mem->avail = (void *)(unsigned long)virtqueue_get_avail_addr(vq);
	mem->used = (void *)(unsigned long)virtqueue_get_used_addr(vq);
	return vq;
}

static void *linux_create(unsigned int num, bool packed, struct ring_mem *mem)
{
	struct vring vring;
	void *pages;

	if (packed)
		return linux_create_packed(num, mem);

	if (posix_memalign(&pages, 4096, vring_size(num, 4096)))
		return NULL;
	memset(pages, 0, vring_size(num, 4096));
	vring_init(&vring, num, pages, 4096);
	mem->desc = vring.desc;
	mem->avail = vring.avail;
	mem->used = vring.used;
	linux_vdev.features = 1ULL << VIRTIO_RING_F_EVENT_IDX | 1ULL << VIRTIO_F_VERSION_1;
	INIT_LIST_HEAD(&linux_vdev.vqs);
	spin_lock_init(&linux_vdev.vqs_list_lock);
	return vring_new_virtqueue(0, num, 4096, &linux_vdev, true, false, pages,
				   linux_notify, NULL, "linux");
}

static int linux_add(void *q, void *out, unsigned int out_len, void *in,
		     unsigned int in_len, void *token)
{
	struct scatterlist o, i, *sgs[2] = { &o, &i };

	sg_init_one(&o, out, out_len);
	sg_init_one(&i, in, in_len);
	return virtqueue_add_sgs(q, sgs, 1, 1, token, GFP_ATOMIC);
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
