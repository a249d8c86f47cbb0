// SPDX-License-Identifier: GPL-2.0
/*
 * The copying transport: draft IV's "read/write" implementation of the
 * queue API. The device is a userspace process, the device host, which
 * reads the buffers the driver makes available from /dev/virtio4-host and
 * writes back completions; the transport copies between the driver's
 * buffers and the process, so nothing is shared. The protocol is in
 * include/virtio4/host.h.
 *
 * One open file is one device. Its queues keep each buffer the driver adds
 * in a slot: the token, the elements (page, offset, length) and a state:
 *
 *   add_buf -> ADDED -sync-> PENDING -read-> DEVICE -write-> USED -get_buf->
 *   FREE. While read() or write() copies a slot's bytes it is BUSY. A reset
 *   turns PENDING and DEVICE slots into ORPHAN ones, left for the driver to
 *   detach. Closing the file completes every outstanding slot unwritten.
 *
 * The device host is not trusted: every completion names a queue, a slot
 * and that slot's sequence number, and may not write more than the room the
 * buffer has. Tokens carry the device's reset epoch, so completions of
 * buffers read before a reset are dropped without complaint.
 *
 * Locking: each queue's spinlock protects its slots and lists; the driver
 * serialises its own calls as the API says, and may make them in any
 * context. The device's io_lock (a mutex) serialises the copies between
 * slots and the kernel's bounce buffers, reset and queue set-up and
 * teardown, so no slot is BUSY while the driver resets or frees (poll()
 * takes it too, to look at the queues). User
 * memory is never touched under io_lock: read() and write() copy through
 * a bounce buffer each (read_lock and write_lock own them), so a device
 * host whose buffer faults for ever (userfaultfd, a FUSE mapping) holds up
 * only its own calls, never a reset, a timeout or a removal. Completions
 * reach the driver's callback from an irq_work, in hard interrupt context
 * as a device's interrupt would, never on the stack of the writing process.
 */
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/irq_work.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <uapi/linux/virtio_config.h>
#include <virtio4/bus.h>
#include <virtio4/host.h>
#include <kunit/visibility.h>
#include "copy.h"

enum copy_state { SLOT_FREE, SLOT_ADDED, SLOT_PENDING, SLOT_BUSY, SLOT_DEVICE,
		  SLOT_USED, SLOT_ORPHAN };

/* One element of a buffer: where its bytes are. */
struct copy_elem {
	struct page *page;
	unsigned int offset;
	unsigned int len;
};

/* One buffer's slot; the slot index and @seq make up its token. */
struct copy_slot {
	struct list_head node;	/* in the queue's free, added, pending or used list */
	void *data;
	struct copy_elem *elems;
	unsigned int cap;	/* room in @elems */
	u16 out_num;
	u16 total;
	u32 out_len;
	u32 in_len;
	u32 used_len;
	u16 seq;
	u8 state;
};

struct copy_dev;

struct copy_queue {
	struct virtio4_queue vq;
	struct copy_dev *cd;
	spinlock_t lock;	/* protects the slots, the lists and the flags */
	struct copy_slot *slots;
	struct list_head free, added, pending, used;
	struct list_head landed;	/* used by this write(), not yet published */
	bool callbacks;		/* the driver wants callbacks */
	bool dead;		/* the device host is gone */
	struct irq_work irq;
	struct dentry *debugfs;
	char name[32];
};

#define to_copy_queue(_vq) container_of(_vq, struct copy_queue, vq)

/* A kernel buffer for one record, grown to the largest seen. */
struct copy_bounce {
	void *buf;
	size_t size;
};

#define COPY_BOUNCE_MIN	4096	/* a bounce buffer's first size */

struct copy_dev {
	struct virtio4_device vdev;
	struct mutex io_lock;	/* serialises slot copies, reset, find/del_vqs; guards vqs, nvqs */
	struct mutex read_lock;	/* serialises read(); owns @rbounce */
	struct mutex write_lock;	/* serialises write(); owns @wbounce */
	struct copy_bounce rbounce, wbounce;
	wait_queue_head_t wait;
	bool signal;		/* something may be ready to read */
	bool dead;		/* the file is closing */
	bool registered;	/* on the bus; under config_lock */
	bool change_pending;	/* a config change came before that */
	struct work_struct register_work;
	spinlock_t config_lock;	/* protects config, generation, status */
	u8 config[VIRTIO4_HOST_CONFIG_SIZE];
	u32 config_len;
	u32 generation;
	u8 status;
	bool status_changed;	/* a STATUS record is due */
	bool reset_due;		/* a STATUS record of 0 is due, before that one */
	u16 epoch;		/* bumped by each reset */
	u64 offered;
	u32 flags;		/* VIRTIO4_HOST_F_* */
	unsigned int nsizes;
	u16 sizes[VIRTIO4_HOST_MAX_QUEUES];
	unsigned int nvqs;
	struct copy_queue **vqs;
	unsigned int next_vq;	/* where read() starts, for fairness */
	u64 stale;		/* completions dropped as older than a reset */
};

#define to_copy_dev(_vdev) container_of(_vdev, struct copy_dev, vdev)

static u64 copy_token(struct copy_dev *cd, struct copy_slot *s, unsigned int i)
{
	return (u64)cd->epoch << 48 | (u64)s->seq << 32 | i;
}

/* A token from before the last reset: its buffer was taken back. */
static bool copy_stale_token(struct copy_dev *cd, u64 token)
{
	return (u16)(token >> 48) != cd->epoch;
}

/* The slot @token names in @q if the device holds it, else NULL. Context: q->lock. */
static struct copy_slot *copy_find(struct copy_queue *q, u64 token)
{
	u32 i = lower_32_bits(token);

	if (i < q->vq.num && q->slots[i].state == SLOT_DEVICE &&
	    q->slots[i].seq == (u16)(token >> 32))
		return &q->slots[i];
	return NULL;
}

/* Wake the device host: something may be ready to read. */
static void copy_signal(struct copy_dev *cd)
{
	WRITE_ONCE(cd->signal, true);
	wake_up_interruptible_poll(&cd->wait, EPOLLIN | EPOLLRDNORM);
}

/* --- The queue operations, called by the driver. --- */

static int copy_fill_slot(struct copy_slot *s, struct scatterlist *sg,
			  unsigned int out_num, unsigned int total)
{
	struct scatterlist *e;
	unsigned int i;
	u64 out = 0, in = 0;

	if (s->cap < total) {
		struct copy_elem *elems = kmalloc_array(total, sizeof(*elems),
							GFP_ATOMIC);

		if (!elems)
			return -ENOMEM;
		kfree(s->elems);
		s->elems = elems;
		s->cap = total;
	}
	for_each_sg(sg, e, total, i) {
		s->elems[i].page = sg_page(e);
		s->elems[i].offset = e->offset;
		s->elems[i].len = e->length;
		if (i < out_num)
			out += e->length;
		else
			in += e->length;
	}
	if (out > U32_MAX || in > U32_MAX)
		return -EINVAL;
	s->out_num = out_num;
	s->total = total;
	s->out_len = out;
	s->in_len = in;
	return 0;
}

static int copy_add_buf(struct virtio4_queue *vq, struct scatterlist sg[],
			unsigned int out_num, unsigned int in_num, void *data)
{
	struct copy_queue *q = to_copy_queue(vq);
	unsigned int total = out_num + in_num;
	struct copy_slot *s;
	unsigned long flags;
	int err;

	if (unlikely(READ_ONCE(q->dead)))
		return -EIO;
	if (unlikely(!data || !total || total < out_num || total > vq->num))
		return -EINVAL;
	if (total > vq->num_free)
		return -ENOSPC;
	spin_lock_irqsave(&q->lock, flags);
	s = list_first_entry_or_null(&q->free, struct copy_slot, node);
	if (s)
		list_del(&s->node);
	spin_unlock_irqrestore(&q->lock, flags);
	if (!s)
		return -ENOSPC;
	err = copy_fill_slot(s, sg, out_num, total);
	spin_lock_irqsave(&q->lock, flags);
	/* Checked again under the lock: copy_dev_kill() fails only what it sees. */
	if (!err && q->dead)
		err = -EIO;
	if (err) {
		list_add(&s->node, &q->free);
	} else {
		s->data = data;
		s->seq++;
		s->state = SLOT_ADDED;
		list_add_tail(&s->node, &q->added);
		vq->num_free -= total;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return err;
}

static void copy_sync(struct virtio4_queue *vq)
{
	struct copy_queue *q = to_copy_queue(vq);
	struct copy_slot *s;
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&q->lock, flags);
	kick = list_empty(&q->pending) && !list_empty(&q->added);
	list_for_each_entry(s, &q->added, node)
		s->state = SLOT_PENDING;
	list_splice_tail_init(&q->added, &q->pending);
	spin_unlock_irqrestore(&q->lock, flags);
	/* The host is woken when its work appears, not for every sync. */
	if (kick) {
		vq->kicks++;
		copy_signal(q->cd);
	}
}

static void copy_free_slot(struct copy_queue *q, struct copy_slot *s)
{
	s->data = NULL;
	s->state = SLOT_FREE;
	list_add(&s->node, &q->free);
	q->vq.num_free += s->total;
}

static void *copy_get_buf(struct virtio4_queue *vq, unsigned int *len)
{
	struct copy_queue *q = to_copy_queue(vq);
	struct copy_slot *s;
	unsigned long flags;
	void *data = NULL;

	spin_lock_irqsave(&q->lock, flags);
	s = list_first_entry_or_null(&q->used, struct copy_slot, node);
	if (s) {
		list_del(&s->node);
		data = s->data;
		*len = s->used_len;
		copy_free_slot(q, s);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return data;
}

/* Take back the outstanding slot @s. Context: q->lock held. */
static int copy_detach(struct copy_queue *q, struct copy_slot *s)
{
	/* The device host is copying it: only a reset (which waits) ends that. */
	if (s->state == SLOT_BUSY)
		return -EBUSY;
	if (s->state != SLOT_ORPHAN && s->state != SLOT_DEVICE)
		list_del(&s->node);
	copy_free_slot(q, s);
	return 0;
}

static int copy_detach_buf(struct virtio4_queue *vq, void *data)
{
	struct copy_queue *q = to_copy_queue(vq);
	int err = -ENOENT;
	unsigned long flags;
	unsigned int i;

	if (!data)
		return -ENOENT;
	spin_lock_irqsave(&q->lock, flags);
	for (i = 0; i < vq->num; i++) {
		if (q->slots[i].state != SLOT_FREE && q->slots[i].data == data) {
			err = copy_detach(q, &q->slots[i]);
			break;
		}
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return err;
}

static void *copy_detach_unused(struct virtio4_queue *vq)
{
	struct copy_queue *q = to_copy_queue(vq);
	void *data = NULL;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&q->lock, flags);
	for (i = 0; i < vq->num; i++) {
		if (q->slots[i].state != SLOT_FREE) {
			data = q->slots[i].data;
			if (copy_detach(q, &q->slots[i]))
				data = NULL;
			break;
		}
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return data;
}

static void copy_disable(struct virtio4_queue *vq)
{
	struct copy_queue *q = to_copy_queue(vq);
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	q->callbacks = false;
	spin_unlock_irqrestore(&q->lock, flags);
}

static bool copy_restart(struct virtio4_queue *vq)
{
	struct copy_queue *q = to_copy_queue(vq);
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&q->lock, flags);
	ok = list_empty(&q->used);
	q->callbacks = ok;
	spin_unlock_irqrestore(&q->lock, flags);
	return ok;
}

/* Every completion is a message anyway: no mark to wait for (vq->delays is false). */
static bool copy_restart_after(struct virtio4_queue *vq, unsigned int n)
{
	return copy_restart(vq);
}

/* Messages landed with callbacks on: the queue's irq_work is queued, or about to be. */
static bool copy_callback_due(struct virtio4_queue *vq)
{
	struct copy_queue *q = to_copy_queue(vq);
	unsigned long flags;
	bool due;

	spin_lock_irqsave(&q->lock, flags);
	due = q->callbacks && !list_empty(&q->used);
	spin_unlock_irqrestore(&q->lock, flags);
	return due;
}

static const struct virtio4_queue_ops copy_queue_ops = {
	.add_buf = copy_add_buf,
	.sync = copy_sync,
	.get_buf = copy_get_buf,
	.detach_buf = copy_detach_buf,
	.disable = copy_disable,
	.restart = copy_restart,
	.restart_delayed = copy_restart,	/* every completion is a message anyway */
	.restart_after = copy_restart_after,
	.callback_due = copy_callback_due,
	.detach_unused = copy_detach_unused,
};

/* The queue's "interrupt": hard interrupt context, like a device's. */
static void copy_interrupt(struct irq_work *work)
{
	struct copy_queue *q = container_of(work, struct copy_queue, irq);
	bool call;

	/* Before DRIVER_OK the driver's state may not be set up. */
	if (!virtio4_is_ready(&q->cd->vdev))
		return;
	spin_lock(&q->lock);
	call = q->callbacks && !list_empty(&q->used);
	spin_unlock(&q->lock);
	if (!call)
		return;
	q->vq.interrupts++;
	if (q->vq.cb && !q->vq.cb(&q->vq))
		copy_disable(&q->vq);
}

/* --- Queue set-up and teardown. --- */

/* debugfs virtio4/<device>/<queue>: the queue's state, for people debugging. */
static int copy_debugfs_show(struct seq_file *m, void *unused)
{
	struct copy_queue *q = m->private;
	unsigned int state[SLOT_ORPHAN + 1] = { 0 };
	struct copy_slot *s;

	spin_lock_irq(&q->lock);
	for (s = q->slots; s < q->slots + q->vq.num; s++)
		state[s->state]++;
	spin_unlock_irq(&q->lock);
	seq_printf(m, "size %u\nfree %u\n", q->vq.num, READ_ONCE(q->vq.num_free));
	seq_printf(m, "buffers added %u pending %u device %u used %u orphan %u\n",
		   state[SLOT_ADDED], state[SLOT_PENDING],
		   state[SLOT_DEVICE] + state[SLOT_BUSY], state[SLOT_USED],
		   state[SLOT_ORPHAN]);
	seq_printf(m, "kicks %llu\ninterrupts %llu\nstale %llu\ndead %d\ncallbacks %d\n",
		   READ_ONCE(q->vq.kicks), READ_ONCE(q->vq.interrupts),
		   READ_ONCE(q->cd->stale), READ_ONCE(q->dead), READ_ONCE(q->callbacks));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(copy_debugfs);

static void copy_queue_free(struct copy_queue *q)
{
	unsigned int i;

	debugfs_remove(q->debugfs);
	irq_work_sync(&q->irq);
	for (i = 0; i < q->vq.num; i++)
		kfree(q->slots[i].elems);
	kvfree(q->slots);
	kfree(q);
}

static struct copy_queue *copy_queue_new(struct copy_dev *cd, unsigned int index,
					 unsigned int num, virtio4_callback_t *cb,
					 const char *name)
{
	struct copy_queue *q = kzalloc(sizeof(*q), GFP_KERNEL);
	unsigned int i;

	if (!q)
		return NULL;
	q->slots = kvcalloc(num, sizeof(*q->slots), GFP_KERNEL);
	if (!q->slots) {
		kfree(q);
		return NULL;
	}
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->free);
	INIT_LIST_HEAD(&q->added);
	INIT_LIST_HEAD(&q->pending);
	INIT_LIST_HEAD(&q->used);
	INIT_LIST_HEAD(&q->landed);
	for (i = 0; i < num; i++)
		list_add_tail(&q->slots[i].node, &q->free);
	init_irq_work(&q->irq, copy_interrupt);
	q->cd = cd;
	q->callbacks = !!cb;	/* none for a queue the driver polls */
	q->dead = cd->dead;
	q->vq.ops = &copy_queue_ops;
	q->vq.cb = cb;
	q->vq.index = index;
	q->vq.num = num;
	q->vq.num_free = num;
	q->vq.delays = false;	/* its restart_delayed is restart */
	strscpy(q->name, name ? name : "", sizeof(q->name));
	if (cd->vdev.debugfs)
		q->debugfs = debugfs_create_file(q->name, 0444, cd->vdev.debugfs,
						 q, &copy_debugfs_fops);
	return q;
}

static void copy_del_vqs(struct virtio4_device *vdev)
{
	struct copy_dev *cd = to_copy_dev(vdev);
	unsigned int i;

	mutex_lock(&cd->io_lock);
	for (i = 0; i < cd->nvqs; i++)
		copy_queue_free(cd->vqs[i]);
	kfree(cd->vqs);
	cd->vqs = NULL;
	cd->nvqs = 0;
	mutex_unlock(&cd->io_lock);
}

static int copy_find_vqs(struct virtio4_device *vdev, unsigned int nvqs,
			 struct virtio4_queue *vqs[],
			 virtio4_callback_t *callbacks[],
			 const char * const names[],
			 struct irq_affinity *spread)
{
	struct copy_dev *cd = to_copy_dev(vdev);
	unsigned int i;
	int err = 0;

	if (nvqs > cd->nsizes) {
		dev_err(&vdev->dev, "driver wants %u queues, the device has %u\n",
			nvqs, cd->nsizes);
		return -ENOENT;
	}
	mutex_lock(&cd->io_lock);
	cd->vqs = kcalloc(nvqs, sizeof(*cd->vqs), GFP_KERNEL);
	if (!cd->vqs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nvqs; i++) {
		cd->vqs[i] = copy_queue_new(cd, i, cd->sizes[i], callbacks[i],
					    names[i]);
		if (!cd->vqs[i]) {
			err = -ENOMEM;
			break;
		}
		cd->nvqs = i + 1;
		vqs[i] = &cd->vqs[i]->vq;
	}
out:
	mutex_unlock(&cd->io_lock);
	if (err)
		copy_del_vqs(vdev);
	return err;
}

/* --- Configuration and status: kept here, for the device host. --- */

static void copy_get(struct virtio4_device *vdev, unsigned int offset,
		     void *buf, unsigned int len)
{
	struct copy_dev *cd = to_copy_dev(vdev);
	unsigned long flags;

	memset(buf, 0, len);
	spin_lock_irqsave(&cd->config_lock, flags);
	if (offset < cd->config_len)
		memcpy(buf, cd->config + offset, min(len, cd->config_len - offset));
	spin_unlock_irqrestore(&cd->config_lock, flags);
}

static void copy_set(struct virtio4_device *vdev, unsigned int offset,
		     const void *buf, unsigned int len)
{
	struct copy_dev *cd = to_copy_dev(vdev);
	unsigned long flags;

	spin_lock_irqsave(&cd->config_lock, flags);
	if (offset < cd->config_len)
		memcpy(cd->config + offset, buf, min(len, cd->config_len - offset));
	spin_unlock_irqrestore(&cd->config_lock, flags);
}

static u32 copy_generation(struct virtio4_device *vdev)
{
	return READ_ONCE(to_copy_dev(vdev)->generation);
}

static u8 copy_get_status(struct virtio4_device *vdev)
{
	return READ_ONCE(to_copy_dev(vdev)->status);
}

static void copy_set_status(struct virtio4_device *vdev, u8 status)
{
	struct copy_dev *cd = to_copy_dev(vdev);

	if (cd->flags & VIRTIO4_HOST_F_REFUSE_FEATURES)
		status &= ~VIRTIO_CONFIG_S_FEATURES_OK;
	spin_lock_irq(&cd->config_lock);
	/* NEEDS_RESET is the device's: only a reset clears it. */
	cd->status = status | (status ? cd->status & VIRTIO_CONFIG_S_NEEDS_RESET : 0);
	cd->status_changed = true;
	spin_unlock_irq(&cd->config_lock);
	copy_signal(cd);
}

/* Void every buffer the device host holds or may read. */
static void copy_queue_reset(struct copy_queue *q)
{
	struct copy_slot *s, *tmp;

	spin_lock_irq(&q->lock);
	list_for_each_entry_safe(s, tmp, &q->pending, node) {
		list_del(&s->node);
		s->state = SLOT_ORPHAN;
	}
	for (s = q->slots; s < q->slots + q->vq.num; s++)
		if (s->state == SLOT_DEVICE)
			s->state = SLOT_ORPHAN;
	spin_unlock_irq(&q->lock);
}

static void copy_reset(struct virtio4_device *vdev)
{
	struct copy_dev *cd = to_copy_dev(vdev);
	unsigned int i;

	mutex_lock(&cd->io_lock);
	cd->epoch++;
	for (i = 0; i < cd->nvqs; i++)
		copy_queue_reset(cd->vqs[i]);
	mutex_unlock(&cd->io_lock);
	spin_lock_irq(&cd->config_lock);
	cd->reset_due = true;
	spin_unlock_irq(&cd->config_lock);
	copy_set_status(vdev, 0);
}

static u64 copy_get_features(struct virtio4_device *vdev)
{
	return to_copy_dev(vdev)->offered;
}

static int copy_finalize_features(struct virtio4_device *vdev)
{
	return 0;
}

static const struct virtio4_config_ops copy_config_ops = {
	.get = copy_get,
	.set = copy_set,
	.generation = copy_generation,
	.get_status = copy_get_status,
	.set_status = copy_set_status,
	.reset = copy_reset,
	.get_features = copy_get_features,
	.finalize_features = copy_finalize_features,
	.find_vqs = copy_find_vqs,
	.del_vqs = copy_del_vqs,
};

/* --- The device host's side: read() of requests. --- */

/* Copy @len bytes between the elements of @s from @first on and @iter. */
static int copy_elems(struct copy_slot *s, unsigned int first, u32 len,
		      struct iov_iter *iter, bool to_iter)
{
	unsigned int i;

	for (i = first; i < s->total && len; i++) {
		struct copy_elem *e = &s->elems[i];
		unsigned int done = 0;

		while (done < e->len && len) {
			unsigned int off = e->offset + done;
			struct page *page = nth_page(e->page, off / PAGE_SIZE);
			size_t n = min3(e->len - done, len,
					(u32)(PAGE_SIZE - off % PAGE_SIZE));
			size_t copied;

			if (to_iter)
				copied = copy_page_to_iter(page, off % PAGE_SIZE, n, iter);
			else
				copied = copy_page_from_iter(page, off % PAGE_SIZE, n, iter);
			if (copied != n)
				return -EFAULT;
			done += n;
			len -= n;
		}
	}
	return 0;
}

static int copy_pad(struct iov_iter *iter, size_t len, bool to_iter)
{
	size_t pad = VIRTIO4_HOST_ALIGN(len) - len;

	if (to_iter)
		return iov_iter_zero(pad, iter) == pad ? 0 : -EFAULT;
	iov_iter_advance(iter, pad);
	return 0;
}

/*
 * The STATUS records due: a reset (status 0), which the device host must
 * see even if the driver has set a new status since, then the status now.
 * Returns their size, 0 if none is due, or -errno.
 */
static ssize_t copy_read_status(struct copy_dev *cd, struct iov_iter *to)
{
	struct virtio4_host_msg msg = { .type = VIRTIO4_HOST_MSG_STATUS,
					.size = sizeof(msg) };
	bool reset, due;
	ssize_t n = 0;

	spin_lock_irq(&cd->config_lock);
	reset = cd->reset_due;
	due = cd->status_changed;
	msg.out_len = reset ? 0 : cd->status;
	spin_unlock_irq(&cd->config_lock);
	if (!reset && !due)
		return 0;
	if (iov_iter_count(to) < sizeof(msg))
		return -ENOBUFS;
	if (msg.out_len & VIRTIO_CONFIG_S_FEATURES_OK)
		msg.token = cd->vdev.features;
	n = copy_to_iter(&msg, sizeof(msg), to);
	if (n != sizeof(msg)) {
		iov_iter_revert(to, n);
		return -EFAULT;
	}
	n = 0;
	spin_lock_irq(&cd->config_lock);
	if (reset)
		cd->reset_due = false;
	else if (cd->status == msg.out_len)
		cd->status_changed = false;
	spin_unlock_irq(&cd->config_lock);
	if (reset)
		n = copy_read_status(cd, to);
	return n < 0 ? sizeof(msg) : sizeof(msg) + n;
}

/* Make @b hold at least @size bytes; its old contents are dropped. */
static int copy_bounce_fit(struct copy_bounce *b, size_t size)
{
	void *buf;

	if (size <= b->size)
		return 0;
	size = max_t(size_t, size, COPY_BOUNCE_MIN);
	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kvfree(b->buf);
	b->buf = buf;
	b->size = size;
	return 0;
}

/*
 * Take the first pending buffer of @q if its record fits in @max bytes:
 * BUSY. Otherwise NULL, and *@size is its record's size (0: none pending).
 */
static struct copy_slot *copy_take(struct copy_queue *q, size_t max, size_t *size)
{
	struct copy_slot *s;

	spin_lock_irq(&q->lock);
	s = list_first_entry_or_null(&q->pending, struct copy_slot, node);
	*size = s ? sizeof(struct virtio4_host_msg) +
		    VIRTIO4_HOST_ALIGN((size_t)s->out_len) : 0;
	if (s && *size <= max) {
		list_del(&s->node);
		s->state = SLOT_BUSY;
	} else {
		s = NULL;
	}
	spin_unlock_irq(&q->lock);
	return s;
}

/*
 * One BUF record of @q into the read bounce buffer, if it fits in @room:
 * 0 if none is pending, its size, or -errno. The slot goes to the device.
 * Context: read_lock and io_lock.
 */
static ssize_t copy_stage_buf(struct copy_dev *cd, struct copy_queue *q,
			      size_t room)
{
	struct virtio4_host_msg msg = { .type = VIRTIO4_HOST_MSG_BUF };
	struct copy_slot *s;
	struct iov_iter it;
	struct kvec kv;
	size_t size;
	int err;

	/* Grow the bounce buffer, outside q->lock, until the record fits. */
	while (!(s = copy_take(q, min(room, cd->rbounce.size), &size))) {
		if (!size)
			return 0;
		if (size > room)
			return -ENOBUFS;
		err = copy_bounce_fit(&cd->rbounce, size);
		if (err)
			return err;
	}
	msg.queue = q->vq.index;
	msg.size = size;
	msg.token = copy_token(cd, s, s - q->slots);
	msg.out_len = s->out_len;
	msg.in_len = s->in_len;
	memcpy(cd->rbounce.buf, &msg, sizeof(msg));
	kv = (struct kvec){ .iov_base = cd->rbounce.buf + sizeof(msg),
			    .iov_len = size - sizeof(msg) };
	iov_iter_kvec(&it, READ, &kv, 1, kv.iov_len);
	/* Kernel memory on both sides: this cannot fail. */
	copy_elems(s, 0, s->out_len, &it, true);
	copy_pad(&it, s->out_len, true);
	spin_lock_irq(&q->lock);
	s->state = SLOT_DEVICE;
	spin_unlock_irq(&q->lock);
	return size;
}

/*
 * The record @msg could not reach the device host: its buffer goes back to
 * the head of the line, unless a reset or a kill came meanwhile.
 */
static void copy_unread(struct copy_dev *cd, const struct virtio4_host_msg *msg)
{
	struct copy_queue *q;
	struct copy_slot *s;

	mutex_lock(&cd->io_lock);
	if (copy_stale_token(cd, msg->token) || msg->queue >= cd->nvqs)
		goto out;
	q = cd->vqs[msg->queue];
	spin_lock_irq(&q->lock);
	s = copy_find(q, msg->token);
	if (s && !q->dead) {
		s->state = SLOT_PENDING;
		list_add(&s->node, &q->pending);
	}
	spin_unlock_irq(&q->lock);
out:
	mutex_unlock(&cd->io_lock);
}

/*
 * One BUF record of queue @qi into @to: 0 if none is pending, its size, or
 * -errno. The copy to the device host's memory runs without io_lock.
 * Context: read_lock.
 */
static ssize_t copy_read_buf(struct copy_dev *cd, unsigned int qi,
			     struct iov_iter *to)
{
	ssize_t n = 0;
	size_t done;

	mutex_lock(&cd->io_lock);
	if (qi < cd->nvqs)
		n = copy_stage_buf(cd, cd->vqs[qi], iov_iter_count(to));
	mutex_unlock(&cd->io_lock);
	if (n <= 0)
		return n;
	done = copy_to_iter(cd->rbounce.buf, n, to);
	if (done == n)
		return n;
	iov_iter_revert(to, done);
	copy_unread(cd, cd->rbounce.buf);
	return -EFAULT;
}

/* Fill @to with whole records; 0 when nothing is ready. Context: read_lock. */
static ssize_t copy_read_records(struct copy_dev *cd, struct iov_iter *to)
{
	unsigned int i, idle = 0, nvqs = READ_ONCE(cd->nvqs);
	ssize_t total = 0, n = 0;

	WRITE_ONCE(cd->signal, false);
	/* Pairs with copy_signal(): see any work published before it. */
	smp_mb();
	n = copy_read_status(cd, to);
	if (n > 0)
		total += n;
	/* Round robin over the queues, one record each, until none has one. */
	for (i = cd->next_vq; n >= 0 && nvqs && idle < nvqs; i++) {
		n = copy_read_buf(cd, i % nvqs, to);
		if (n > 0) {
			total += n;
			idle = 0;
		} else {
			idle++;
		}
		cd->next_vq = (i + 1) % nvqs;
	}
	/*
	 * Records are left over (the buffer ran out, or a copy failed and put
	 * its record back): poll() and a waiting read() must see them.
	 */
	if (n < 0)
		copy_signal(cd);
	return total ? total : n;
}

static ssize_t copy_dev_read(struct copy_dev *cd, struct iov_iter *to,
			     bool nonblock)
{
	ssize_t ret;

	for (;;) {
		if (mutex_lock_interruptible(&cd->read_lock))
			return -ERESTARTSYS;
		ret = copy_read_records(cd, to);
		mutex_unlock(&cd->read_lock);
		if (ret)
			return ret;
		if (nonblock)
			return -EAGAIN;
		if (wait_event_interruptible(cd->wait, READ_ONCE(cd->signal)))
			return -ERESTARTSYS;
	}
}

/* --- The device host's side: write() of completions. --- */

static __printf(2, 3) void copy_bad_input(struct copy_dev *cd, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	dev_warn_ratelimited(&cd->vdev.dev, "device host: %pV\n", &vaf);
	va_end(args);
}

/*
 * Check the completion @done before its bytes are copied in: 1 if it is
 * stale (read before a reset), 0 if it names a buffer in flight with room
 * for it, -EINVAL (and a log line) otherwise. Context: io_lock.
 */
static int copy_check_done(struct copy_dev *cd, const struct virtio4_host_done *done)
{
	struct copy_queue *q;
	struct copy_slot *s;
	u32 in_len = 0;

	if (copy_stale_token(cd, done->token)) {
		/* Read before a reset: the driver has taken the buffer back. */
		cd->stale++;
		return 1;
	}
	if (done->queue >= cd->nvqs || done->reserved) {
		copy_bad_input(cd, "completion for queue %u of %u (reserved %#x)",
			       done->queue, cd->nvqs, done->reserved);
		return -EINVAL;
	}
	q = cd->vqs[done->queue];
	spin_lock_irq(&q->lock);
	s = copy_find(q, done->token);
	if (s)
		in_len = s->in_len;
	spin_unlock_irq(&q->lock);
	if (!s) {
		copy_bad_input(cd, "queue %u: token %#llx is not in flight",
			       done->queue, done->token);
		return -EINVAL;
	}
	if (done->len > in_len) {
		copy_bad_input(cd, "queue %u: used length %u exceeds the buffer's %u",
			       done->queue, done->len, in_len);
		return -EINVAL;
	}
	return 0;
}

/*
 * Copy the bytes of the checked completion @done from @buf into its buffer
 * and land it, unless a reset, a kill or a teardown took the buffer back
 * since the check: then it is dropped. Context: write_lock and io_lock.
 */
static void copy_land(struct copy_dev *cd, const struct virtio4_host_done *done,
		      void *buf)
{
	struct kvec kv = { .iov_base = buf, .iov_len = done->len };
	struct copy_queue *q;
	struct copy_slot *s;
	struct iov_iter it;

	if (copy_stale_token(cd, done->token) || done->queue >= cd->nvqs) {
		cd->stale++;
		return;
	}
	q = cd->vqs[done->queue];
	spin_lock_irq(&q->lock);
	s = copy_find(q, done->token);
	if (s && done->len <= s->in_len)
		s->state = SLOT_BUSY;
	else
		s = NULL;
	spin_unlock_irq(&q->lock);
	if (!s) {
		cd->stale++;
		return;
	}
	iov_iter_kvec(&it, WRITE, &kv, 1, done->len);
	/* Kernel memory on both sides, and checked against in_len: cannot fail. */
	copy_elems(s, s->out_num, done->len, &it, false);
	spin_lock_irq(&q->lock);
	s->used_len = done->len;
	s->state = SLOT_USED;
	list_add_tail(&s->node, &q->landed);
	spin_unlock_irq(&q->lock);
}

/*
 * Apply one completion whose header is @done; its bytes follow in @from.
 * They are copied from the device host's memory into the write bounce
 * buffer without io_lock. Context: write_lock.
 */
static int copy_complete(struct copy_dev *cd, const struct virtio4_host_done *done,
			 struct iov_iter *from)
{
	size_t len = VIRTIO4_HOST_ALIGN((size_t)done->len);
	int ret;

	if (iov_iter_count(from) < len) {
		copy_bad_input(cd, "completion of %u bytes has only %zu",
			       done->len, iov_iter_count(from));
		return -EINVAL;
	}
	mutex_lock(&cd->io_lock);
	ret = copy_check_done(cd, done);
	mutex_unlock(&cd->io_lock);
	if (ret > 0)
		iov_iter_advance(from, len);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = copy_bounce_fit(&cd->wbounce, len);
	if (ret)
		return ret;
	if (copy_from_iter(cd->wbounce.buf, len, from) != len)
		return -EFAULT;
	mutex_lock(&cd->io_lock);
	copy_land(cd, done, cd->wbounce.buf);
	mutex_unlock(&cd->io_lock);
	return 0;
}

/*
 * Make the completions of one write() visible to the driver at once, as a
 * device publishes its used index: a packet spread over several receive
 * buffers is seen whole, never its first buffers without the rest.
 * Context: write_lock and io_lock.
 */
static void copy_publish(struct copy_dev *cd)
{
	unsigned int i;

	for (i = 0; i < cd->nvqs; i++) {
		struct copy_queue *q = cd->vqs[i];
		bool any;

		spin_lock_irq(&q->lock);
		any = !list_empty(&q->landed);
		list_splice_tail_init(&q->landed, &q->used);
		spin_unlock_irq(&q->lock);
		if (any)
			irq_work_queue(&q->irq);
	}
}

/*
 * Completions are published when the write() ends (copy_publish()), so that
 * a packet's buffers reach the driver together.
 */
static ssize_t copy_dev_write(struct copy_dev *cd, struct iov_iter *from)
{
	struct virtio4_host_done done;
	size_t start = iov_iter_count(from), taken = 0;
	int err = 0;

	if (mutex_lock_interruptible(&cd->write_lock))
		return -ERESTARTSYS;
	while (iov_iter_count(from) && !err) {
		if (iov_iter_count(from) < sizeof(done)) {
			copy_bad_input(cd, "short completion of %zu bytes",
				       iov_iter_count(from));
			err = -EINVAL;
		} else if (copy_from_iter(&done, sizeof(done), from) != sizeof(done)) {
			err = -EFAULT;
		} else {
			err = copy_complete(cd, &done, from);
		}
		if (!err)
			taken = start - iov_iter_count(from);
	}
	mutex_lock(&cd->io_lock);
	copy_publish(cd);
	mutex_unlock(&cd->io_lock);
	mutex_unlock(&cd->write_lock);
	return taken ? taken : err;
}

/* --- Devices: creation from the ioctl, removal when the file closes. --- */

static void copy_free_dev(struct copy_dev *cd)
{
	kvfree(cd->rbounce.buf);
	kvfree(cd->wbounce.buf);
	kfree(cd);
}

static void copy_release_dev(struct device *dev)
{
	copy_free_dev(to_copy_dev(to_virtio4_device(dev)));
}

static int copy_check_create(const struct virtio4_host_create *c)
{
	unsigned int i;

	if (!c->device_id || !c->num_queues ||
	    c->num_queues > VIRTIO4_HOST_MAX_QUEUES) {
		pr_warn("create: device id %u with %u queues refused\n",
			c->device_id, c->num_queues);
		return -EINVAL;
	}
	if ((c->flags & ~VIRTIO4_HOST_F_ALL) || c->reserved) {
		pr_warn("create: unknown flags %#x refused\n", c->flags & ~VIRTIO4_HOST_F_ALL);
		return -EINVAL;
	}
	if (c->config_len > VIRTIO4_HOST_CONFIG_SIZE) {
		pr_warn("create: config space of %u bytes refused\n", c->config_len);
		return -EINVAL;
	}
	for (i = 0; i < c->num_queues; i++) {
		if (!c->queue_size[i] || c->queue_size[i] > VIRTIO4_HOST_MAX_QUEUE_SIZE) {
			pr_warn("create: queue %u of size %u refused\n", i,
				c->queue_size[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static struct copy_dev *copy_dev_new(const struct virtio4_host_create *c)
{
	struct copy_dev *cd;

	if (copy_check_create(c))
		return ERR_PTR(-EINVAL);
	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return ERR_PTR(-ENOMEM);
	mutex_init(&cd->io_lock);
	mutex_init(&cd->read_lock);
	mutex_init(&cd->write_lock);
	init_waitqueue_head(&cd->wait);
	spin_lock_init(&cd->config_lock);
	cd->vdev.id.device = c->device_id;
	cd->vdev.id.vendor = c->vendor_id;
	cd->vdev.config = &copy_config_ops;
	cd->vdev.dev.release = copy_release_dev;
	cd->offered = c->features;
	cd->flags = c->flags;
	cd->nsizes = c->num_queues;
	memcpy(cd->sizes, c->queue_size, sizeof(cd->sizes));
	cd->config_len = c->config_len;
	memcpy(cd->config, c->config, c->config_len);
	return cd;
}

/* Fail everything outstanding: the device host is gone. */
static void copy_dev_kill(struct copy_dev *cd)
{
	struct copy_slot *s;
	unsigned int i;

	mutex_lock(&cd->io_lock);
	WRITE_ONCE(cd->dead, true);
	for (i = 0; i < cd->nvqs; i++) {
		struct copy_queue *q = cd->vqs[i];

		spin_lock_irq(&q->lock);
		WRITE_ONCE(q->dead, true);
		for (s = q->slots; s < q->slots + q->vq.num; s++) {
			if (s->state == SLOT_FREE || s->state == SLOT_USED ||
			    s->state == SLOT_ORPHAN)
				continue;
			if (s->state != SLOT_DEVICE)
				list_del(&s->node);
			s->used_len = 0;
			s->state = SLOT_USED;
			list_add_tail(&s->node, &q->used);
		}
		spin_unlock_irq(&q->lock);
		irq_work_queue(&q->irq);
	}
	mutex_unlock(&cd->io_lock);
}

static void copy_register_work(struct work_struct *work)
{
	struct copy_dev *cd = container_of(work, struct copy_dev, register_work);

	/* The bus probes the driver here, which may wait for the device host. */
	bool pending;

	if (virtio4_register_device(&cd->vdev)) {
		dev_err(&cd->vdev.dev, "cannot add the device to the bus\n");
		return;
	}
	spin_lock_irq(&cd->config_lock);
	cd->registered = true;
	pending = cd->change_pending;
	spin_unlock_irq(&cd->config_lock);
	if (pending)
		virtio4_config_changed(&cd->vdev);
}

/*
 * Tell the driver that the configuration or status changed. Not before the
 * device is on the bus: the bus's state for it (its lock, its work) is set
 * up there. A change before that is told once it is.
 */
static void copy_config_changed(struct copy_dev *cd)
{
	bool registered;

	spin_lock_irq(&cd->config_lock);
	registered = cd->registered;
	cd->change_pending = !registered;
	spin_unlock_irq(&cd->config_lock);
	if (registered)
		virtio4_config_changed(&cd->vdev);
}

static struct miscdevice copy_misc;

static long copy_ioctl_create(struct file *file, void __user *arg)
{
	struct virtio4_host_create *c;
	struct copy_dev *cd;
	long err = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	c = memdup_user(arg, sizeof(*c));
	if (IS_ERR(c))
		return PTR_ERR(c);
	cd = copy_dev_new(c);
	kfree(c);
	if (IS_ERR(cd))
		return PTR_ERR(cd);
	cd->vdev.dev.parent = copy_misc.this_device;
	INIT_WORK(&cd->register_work, copy_register_work);
	/* One device per file; the file's lock orders concurrent creates. */
	spin_lock(&file->f_lock);
	if (file->private_data)
		err = -EBUSY;
	else
		file->private_data = cd;
	spin_unlock(&file->f_lock);
	if (err) {
		kfree(cd);
		return err;
	}
	/* Not from here: a probe that reads the disk would wait on this process. */
	schedule_work(&cd->register_work);
	return 0;
}

static long copy_ioctl_config(struct copy_dev *cd, void __user *arg)
{
	struct virtio4_host_config *c;

	c = memdup_user(arg, sizeof(*c));
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (c->offset > cd->config_len || c->len > cd->config_len - c->offset) {
		dev_warn(&cd->vdev.dev, "device host: config change of %u bytes at %u is outside %u bytes\n",
			 c->len, c->offset, cd->config_len);
		kfree(c);
		return -EINVAL;
	}
	spin_lock_irq(&cd->config_lock);
	memcpy(cd->config + c->offset, c->data, c->len);
	cd->generation++;
	spin_unlock_irq(&cd->config_lock);
	kfree(c);
	copy_config_changed(cd);
	return 0;
}

/* The device host stopped: it sets NEEDS_RESET and tells the driver. */
static long copy_ioctl_needs_reset(struct copy_dev *cd)
{
	spin_lock_irq(&cd->config_lock);
	cd->status |= VIRTIO_CONFIG_S_NEEDS_RESET;
	spin_unlock_irq(&cd->config_lock);
	copy_config_changed(cd);
	return 0;
}

static long copy_fop_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct copy_dev *cd = file->private_data;

	switch (cmd) {
	case VIRTIO4_HOST_CREATE:
		return copy_ioctl_create(file, (void __user *)arg);
	case VIRTIO4_HOST_SET_CONFIG:
		return cd ? copy_ioctl_config(cd, (void __user *)arg) : -ENODEV;
	case VIRTIO4_HOST_NEEDS_RESET:
		return cd ? copy_ioctl_needs_reset(cd) : -ENODEV;
	default:
		return -ENOTTY;
	}
}

static ssize_t copy_fop_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct copy_dev *cd = iocb->ki_filp->private_data;

	if (!cd)
		return -ENODEV;
	return copy_dev_read(cd, to, iocb->ki_flags & IOCB_NOWAIT ||
			     iocb->ki_filp->f_flags & O_NONBLOCK);
}

static ssize_t copy_fop_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct copy_dev *cd = iocb->ki_filp->private_data;

	if (!cd)
		return -ENODEV;
	return copy_dev_write(cd, from);
}

/*
 * Is a record ready to read: a STATUS record due, or a buffer pending?
 * poll() reports this, not @signal alone, which may outlive its record (a
 * kick during a read() that then takes the record, a buffer taken back):
 * a device host must not be told that a read() has something when it has
 * nothing. Context: process (takes io_lock).
 */
static bool copy_ready(struct copy_dev *cd)
{
	unsigned int i;
	bool ready;

	spin_lock_irq(&cd->config_lock);
	ready = cd->reset_due || cd->status_changed;
	spin_unlock_irq(&cd->config_lock);
	mutex_lock(&cd->io_lock);
	for (i = 0; !ready && i < cd->nvqs; i++) {
		spin_lock_irq(&cd->vqs[i]->lock);
		ready = !list_empty(&cd->vqs[i]->pending);
		spin_unlock_irq(&cd->vqs[i]->lock);
	}
	mutex_unlock(&cd->io_lock);
	return ready;
}

/* What poll() reports: writable always, readable when a record is ready. */
static __poll_t copy_poll_mask(struct copy_dev *cd)
{
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	if (READ_ONCE(cd->signal) && copy_ready(cd))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static __poll_t copy_fop_poll(struct file *file, poll_table *wait)
{
	struct copy_dev *cd = file->private_data;

	if (!cd)
		return EPOLLERR;
	poll_wait(file, &cd->wait, wait);
	return copy_poll_mask(cd);
}

static int copy_fop_open(struct inode *inode, struct file *file)
{
	/* misc_open() left the miscdevice here; the device comes with CREATE. */
	file->private_data = NULL;
	return nonseekable_open(inode, file);
}

static int copy_fop_release(struct inode *inode, struct file *file)
{
	struct copy_dev *cd = file->private_data;

	if (!cd)
		return 0;
	copy_dev_kill(cd);
	flush_work(&cd->register_work);
	/* Either drops the last reference, which frees the device. */
	if (cd->registered)
		virtio4_unregister_device(&cd->vdev);
	else
		put_device(&cd->vdev.dev);
	return 0;
}

static const struct file_operations copy_fops = {
	.owner = THIS_MODULE,
	.open = copy_fop_open,
	.release = copy_fop_release,
	.read_iter = copy_fop_read_iter,
	.write_iter = copy_fop_write_iter,
	.poll = copy_fop_poll,
	.unlocked_ioctl = copy_fop_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice copy_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "virtio4-host",
	.fops = &copy_fops,
	.mode = 0600,
};

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * virtio4_copy_test_create - a copying device for tests, not on the bus
 * @c: what the device is, as for VIRTIO4_HOST_CREATE.
 *
 * Its queues come from @vdev->config->find_vqs(); the test plays the device
 * host with virtio4_copy_test_read() and virtio4_copy_test_write().
 *
 * Return: the device, or an ERR_PTR.
 */
struct virtio4_device *virtio4_copy_test_create(const struct virtio4_host_create *c)
{
	struct copy_dev *cd = copy_dev_new(c);

	if (IS_ERR(cd))
		return ERR_CAST(cd);
	device_initialize(&cd->vdev.dev);
	return &cd->vdev;
}
EXPORT_SYMBOL_IF_KUNIT(virtio4_copy_test_create);

/**
 * virtio4_copy_test_destroy - remove a device made by virtio4_copy_test_create()
 * @vdev: the device, its queues already deleted.
 */
void virtio4_copy_test_destroy(struct virtio4_device *vdev)
{
	put_device(&vdev->dev);
}
EXPORT_SYMBOL_IF_KUNIT(virtio4_copy_test_destroy);

/**
 * virtio4_copy_test_read - read() of the device host, into a kernel buffer
 * @vdev: the device.
 * @buf: where the records go.
 * @len: room in @buf.
 *
 * Return: bytes read, or -errno (-EAGAIN when nothing is ready).
 */
ssize_t virtio4_copy_test_read(struct virtio4_device *vdev, void *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;

	iov_iter_kvec(&iter, READ, &kv, 1, len);
	return copy_dev_read(to_copy_dev(vdev), &iter, true);
}
EXPORT_SYMBOL_IF_KUNIT(virtio4_copy_test_read);

/**
 * virtio4_copy_test_write - write() of the device host, from a kernel buffer
 * @vdev: the device.
 * @buf: completion records.
 * @len: their bytes.
 *
 * Return: bytes taken, or -errno.
 */
ssize_t virtio4_copy_test_write(struct virtio4_device *vdev, const void *buf,
				size_t len)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter iter;

	iov_iter_kvec(&iter, WRITE, &kv, 1, len);
	return copy_dev_write(to_copy_dev(vdev), &iter);
}
EXPORT_SYMBOL_IF_KUNIT(virtio4_copy_test_write);

/**
 * virtio4_copy_test_poll - what poll() of the device host's file reports
 * @vdev: the device.
 *
 * Return: the poll mask (EPOLLIN when a record is ready to read).
 */
__poll_t virtio4_copy_test_poll(struct virtio4_device *vdev)
{
	return copy_poll_mask(to_copy_dev(vdev));
}
EXPORT_SYMBOL_IF_KUNIT(virtio4_copy_test_poll);

/**
 * virtio4_copy_test_interrupts - wait for the queues' raised interrupts
 * @vdev: the device.
 *
 * Completions raise their queue's interrupt from an irq_work; this waits
 * until every raised one has run the driver's callback.
 */
void virtio4_copy_test_interrupts(struct virtio4_device *vdev)
{
	struct copy_dev *cd = to_copy_dev(vdev);
	unsigned int i;

	for (i = 0; i < cd->nvqs; i++)
		irq_work_sync(&cd->vqs[i]->irq);
}
EXPORT_SYMBOL_IF_KUNIT(virtio4_copy_test_interrupts);
#endif

static int __init copy_init(void)
{
	int err = misc_register(&copy_misc);

	if (err)
		pr_err("cannot register /dev/%s: %d\n", copy_misc.name, err);
	return err;
}

static void __exit copy_exit(void)
{
	misc_deregister(&copy_misc);
}

module_init(copy_init);
module_exit(copy_exit);
MODULE_DESCRIPTION("virtio draft IV: the copying transport, served by a userspace device host");
MODULE_LICENSE("GPL");
