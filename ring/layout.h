/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The split and packed virtqueues as the device sees them (virtio 1.x,
 * little-endian):
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

/* The packed virtqueue (VIRTIO_F_RING_PACKED): one ring of these. */
struct ring_packed_desc {
	__le64 addr;
	__le32 len;
	__le16 id;
	__le16 flags;	/* VRING_DESC_F_*, and the AVAIL and USED bits */
};

/* An event suppression area: the driver's (for interrupts) or the device's (for kicks). */
struct ring_packed_event {
	__le16 off_wrap;	/* a ring place, and its wrap counter in bit 15 */
	__le16 flags;		/* VRING_PACKED_EVENT_FLAG_ENABLE, _DISABLE or _DESC */
};

/**
 * struct virtio4_ring_view - a ring's shared memory, for a test double
 * @desc: the descriptor table.
 * @avail: the available ring.
 * @used: the used ring.
 * @pool: the ring's pool of small indirect tables, or NULL.
 * @pool_size: its size in bytes.
 */
struct virtio4_ring_view {
	struct ring_desc *desc;
	struct ring_avail *avail;
	struct ring_used *used;
	void *pool;
	size_t pool_size;
};

/**
 * struct virtio4_packed_view - a packed ring's shared memory, for a test double
 * @desc: the descriptor ring.
 * @driver: the driver's event suppression area.
 * @device: the device's event suppression area.
 */
struct virtio4_packed_view {
	struct ring_packed_desc *desc;
	struct ring_packed_event *driver;
	struct ring_packed_event *device;
};

struct virtio4_queue;

/* Exported only to KUnit tests (namespace EXPORTED_FOR_KUNIT_TESTING). */
void virtio4_ring_test_view(struct virtio4_queue *vq,
			    struct virtio4_ring_view *view);
void virtio4_ring_test_packed_view(struct virtio4_queue *vq,
				   struct virtio4_packed_view *view);

#endif /* _VIRTIO4_RING_LAYOUT_H */
