/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What adapter_linux.c calls in Linux's virtio_ring.c that tools/virtio's
 * headers of 6.1 do not declare (the packed ring is created by the ring).
 */
#ifndef RING_COST_LINUX_EXTRA_H
#define RING_COST_LINUX_EXTRA_H

struct virtqueue *vring_create_virtqueue(unsigned int index, unsigned int num,
					 unsigned int vring_align, struct virtio_device *vdev,
					 bool weak_barriers, bool may_reduce_num, bool ctx,
					 bool (*notify)(struct virtqueue *vq),
					 void (*callback)(struct virtqueue *vq),
					 const char *name);
dma_addr_t virtqueue_get_desc_addr(struct virtqueue *vq);
dma_addr_t virtqueue_get_avail_addr(struct virtqueue *vq);
dma_addr_t virtqueue_get_used_addr(struct virtqueue *vq);

#endif
