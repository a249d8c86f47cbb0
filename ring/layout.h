/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The split virtqueue as the device sees it (virtio 1.x, little-endian):
 * shared by the ring and by the test doubles that play the device.
 */
#ifndef _VIRTIO4_RING_LAYOUT_H
#define _VIRTIO4_RING_LAYOUT_H

#include <linux/types.h>

struct ring_desc {
	__le64 addr;
	__le32 len;
	__le16 flags;
	__le16 next;
};

struct ring_avail {
	__le16 flags;
	__le16 idx;
	__le16 ring[]; /* then used_event */
};

struct ring_used_elem {
	__le32 id;
	__le32 len;
};

struct ring_used {
	__le16 flags;
	__le16 idx;
	struct ring_used_elem ring[]; /* then avail_event */
};

/**
 * struct virtio4_ring_view - a ring's shared memory, for a test double
 * @desc: the descriptor table.
 * @avail: the available ring.
 * @used: the used ring.
 */
struct virtio4_ring_view {
	struct ring_desc *desc;
	struct ring_avail *avail;
	struct ring_used *used;
};

struct virtio4_queue;

/* Exported only to KUnit tests (namespace EXPORTED_FOR_KUNIT_TESTING). */
void virtio4_ring_test_view(struct virtio4_queue *vq,
			    struct virtio4_ring_view *view);

#endif /* _VIRTIO4_RING_LAYOUT_H */
