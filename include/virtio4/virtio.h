/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The draft-IV virtio API: a queue of buffers between a driver and a device.
 *
 * A buffer is one scatterlist array: first the elements the device reads
 * ("out"), then the elements the device writes ("in"). The driver adds
 * buffers with add_buf(), tells the device with sync(), and collects used
 * buffers with get_buf(), usually from the queue's callback.
 *
 * Names follow Rusty Russell's "virtio draft IV" (2007), prefixed virtio4_
 * so that this API coexists with Linux's own virtio in one kernel.
 */
#ifndef _VIRTIO4_VIRTIO_H
#define _VIRTIO4_VIRTIO_H

#include <linux/types.h>
#include <linux/scatterlist.h>

struct virtio4_queue;

/**
 * struct virtio4_queue_ops - the operations of one queue implementation
 * @add_buf: expose a buffer to the other end. @sg holds @out_num readable
 *	elements followed by @in_num writable ones; @data is the driver's token
 *	for the buffer and must not be NULL. Returns 0, -ENOSPC when the queue
 *	has no room for the buffer now, -EINVAL when the buffer could never fit
 *	or has no element, -ENOMEM when memory is short, or -EIO once the queue
 *	is broken.
 * @sync: after one or more add_buf() calls, make the new buffers visible to
 *	the other end and notify it (unless it asked not to be notified).
 * @get_buf: get the next used buffer. Returns the token given to add_buf()
 *	and stores in *@len the number of bytes the device wrote into the in
 *	elements, or returns NULL when no buffer is used (or the queue is
 *	broken). May be called at any time, so polling works.
 * @detach_buf: take back a buffer the device has not used, by its token,
 *	once the device is reset or given up (at shutdown); nothing may be
 *	added to the queue after that. Returns 0, or -ENOENT when no such
 *	buffer is outstanding.
 * @disable: this project's addition: turn callbacks off, as a callback
 *	returning false does, until @restart. The one operation that may run
 *	beside others on the same queue: a callback calls it before it hands
 *	the work to a context that may @restart the queue at once (NAPI, on
 *	another CPU), and then returns true, so that the restart stays in
 *	force. A callback that returned false after that hand-over could turn
 *	callbacks off after the restart, with nobody left to turn them on.
 *	A callback may also turn them off while it collects under the driver's
 *	lock, and @restart them before it returns, so that what the device
 *	uses meanwhile raises no interrupt (the block driver).
 * @restart: re-enable callbacks after the callback returned false. Returns
 *	false, leaving callbacks disabled, when used buffers are already
 *	pending: the driver must collect them first and try again.
 * @restart_delayed: this project's addition: as @restart, but the device
 *	may wait until most of the buffers outstanding now are used before it
 *	calls back (with VIRTIO_RING_F_EVENT_IDX; otherwise as @restart). For
 *	completions nobody waits for, such as sent packets.
 * @restart_after: this project's addition: as @restart, but the device may
 *	wait until @n more buffers are used, counted from the last one
 *	get_buf() returned, whether added yet or not, before it calls back
 *	(with VIRTIO_RING_F_EVENT_IDX; otherwise as @restart). @n is taken as
 *	1 to the queue's size (0 as 1, more than @num as @num). For a driver
 *	that expects more buffers soon: if fewer than @n are ever used, the
 *	callback never comes, so the driver must bound the wait (a timer that
 *	collects). The packed layout counts ring places, not buffers: it takes
 *	buffers not added yet to be as long as those in flight on average,
 *	rounded down (one place each when none is in flight), so the callback
 *	comes sooner if they are longer, later if they are shorter.
 * @callback_due: this project's addition: with callbacks on, and nothing
 *	collected since @restart, @restart_delayed or @restart_after, whether
 *	the device has used buffers past the point they asked to be called back
 *	at. If so, a device keeping to the protocol has raised its interrupt or
 *	is about to: a driver's timer bounding the wait may leave those
 *	buffers to the callback, rather than collect them first and leave the
 *	interrupt nothing to find. False with callbacks off or a broken queue.
 * @detach_unused: this project's addition for shutdown, once the device is
 *	reset: take back any one outstanding buffer and return its token, or
 *	NULL when none is left. For drivers that do not track their buffers
 *	(a network driver's receive pages).
 *
 * Locking is the driver's: no two operations on one queue may run at the
 * same time. Operations on different queues are independent. All operations
 * may be called in any context, including interrupt context.
 */
struct virtio4_queue_ops {
	int (*add_buf)(struct virtio4_queue *vq, struct scatterlist sg[],
		       unsigned int out_num, unsigned int in_num, void *data);
	void (*sync)(struct virtio4_queue *vq);
	void *(*get_buf)(struct virtio4_queue *vq, unsigned int *len);
	int (*detach_buf)(struct virtio4_queue *vq, void *data);
	void (*disable)(struct virtio4_queue *vq);
	bool (*restart)(struct virtio4_queue *vq);
	bool (*restart_delayed)(struct virtio4_queue *vq);
	bool (*restart_after)(struct virtio4_queue *vq, unsigned int n);
	bool (*callback_due)(struct virtio4_queue *vq);
	void *(*detach_unused)(struct virtio4_queue *vq);
};

/**
 * struct virtio4_queue - a queue for virtual I/O
 * @ops: the operations of the queue's implementation.
 * @cb: set by the driver: called (in interrupt context) when buffers have
 *	been used, once the device is ready (DRIVER_OK). Returning false
 *	disables further callbacks until @ops->restart succeeds; returning true
 *	leaves them as the callback left them (on, or off by @ops->disable).
 * @priv: for the driver's use.
 * @index: the queue's number within its device.
 * @num: the number of descriptors: the most buffer elements that can be
 *	outstanding at once (more with indirect descriptors).
 * @num_free: how many of @num are free now; read it under the driver's lock.
 * @kicks: how many times sync() notified the device.
 * @interrupts: how many interrupts found used buffers.
 * @delays: @ops->restart_delayed and @ops->restart_after can leave the
 *	callback for later than the next used buffer (a ring with
 *	VIRTIO_RING_F_EVENT_IDX); false where they are @ops->restart, so that
 *	a driver bounding its wait with a timer starts none.
 * @broken: set, once and for good, when the device broke the protocol on
 *	this queue (or went away); the implementation logs why. Drivers look
 *	at it when get_buf() returns NULL and after sync(); a break found
 *	anywhere else (an interrupt storm) runs the queue's callback once
 *	more. The driver then fails what it has outstanding: those buffers
 *	will never be used.
 *
 * @index, @num, @num_free, @kicks, @interrupts, @delays and @broken are this project's
 * additions to draft IV, kept by the implementation and only read by
 * drivers: a block driver sizes its queue depth from @num, a network driver
 * stops its transmit queue before @num_free runs out and reports the counts.
 */
struct virtio4_queue {
	const struct virtio4_queue_ops *ops;
	bool (*cb)(struct virtio4_queue *vq);
	void *priv;
	unsigned int index;
	unsigned int num;
	unsigned int num_free;
	u64 kicks;
	u64 interrupts;
	bool delays;
	bool broken;
};

#endif /* _VIRTIO4_VIRTIO_H */
