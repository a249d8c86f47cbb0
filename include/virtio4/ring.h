/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The descriptor-ring implementation of the draft-IV API (the virtio 1.x
 * split and packed virtqueues), as transports see it. The ring knows no
 * transport: a transport creates rings, tells the device where they are,
 * forwards its interrupts and performs the notification the ring asks for.
 */
#ifndef _VIRTIO4_RING_H
#define _VIRTIO4_RING_H

#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <virtio4/bus.h>

/*
 * Interrupts in a row with nothing used after which a queue with a vector
 * of its own is broken (Linux disables a line after 99,900 of 100,000),
 * each no more than VIRTIO4_RING_STORM_GAP after the one before: a gap
 * starts the count again, as the kernel's spurious-interrupt detector does,
 * so that a healthy queue whose used buffers a poller collects first, now
 * and then, never adds up to a storm.
 */
#define VIRTIO4_RING_STORM 10000
#define VIRTIO4_RING_STORM_GAP (HZ / 10)

/**
 * struct virtio4_storm - a run of interrupts that found nothing to do
 * @count: how many, in a row.
 * @last: when the last of them came (jiffies).
 */
struct virtio4_storm {
	u32 count;
	unsigned long last;
};

/**
 * virtio4_storm_add - count one more interrupt that found nothing to do
 * @s: the run.
 *
 * Context: the interrupt handler.
 * Return: the length of the run, this one included.
 */
static inline u32 virtio4_storm_add(struct virtio4_storm *s)
{
	if (time_after(jiffies, s->last + VIRTIO4_RING_STORM_GAP))
		s->count = 0;
	s->last = jiffies;
	return ++s->count;
}

/**
 * typedef virtio4_notify_t - a transport's "kick": tell the device a queue has buffers
 * @vq: the queue.
 * @data: the transport's pointer given to virtio4_ring_new().
 *
 * Return: false if the device is gone; the ring then marks itself broken.
 */
typedef bool virtio4_notify_t(struct virtio4_queue *vq, void *data);

/**
 * struct virtio4_ring_layout - where a ring's parts are, for the device
 * @desc: bus address of the descriptor table (packed: the descriptor ring).
 * @avail: bus address of the available ring (packed: the driver's event
 *	suppression area); virtio 1.x's "driver area".
 * @used: bus address of the used ring (packed: the device's event
 *	suppression area); virtio 1.x's "device area".
 */
struct virtio4_ring_layout {
	dma_addr_t desc;
	dma_addr_t avail;
	dma_addr_t used;
};

struct virtio4_queue *virtio4_ring_new(struct virtio4_device *vdev,
				       struct device *dma_dev,
				       unsigned int index, unsigned int num,
				       virtio4_notify_t *notify, void *notify_data,
				       virtio4_callback_t *callback,
				       const char *name);
void virtio4_ring_del(struct virtio4_queue *vq);
void virtio4_ring_abandon(struct virtio4_queue *vq);
void virtio4_ring_layout(struct virtio4_queue *vq,
			 struct virtio4_ring_layout *layout);
irqreturn_t virtio4_ring_interrupt(struct virtio4_queue *vq);
irqreturn_t virtio4_ring_shared_interrupt(struct virtio4_queue *vq);
void virtio4_ring_break(struct virtio4_queue *vq, const char *why);
bool virtio4_ring_is_broken(struct virtio4_queue *vq);

#endif /* _VIRTIO4_RING_H */
