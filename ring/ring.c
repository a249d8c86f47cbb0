// SPDX-License-Identifier: GPL-2.0
/*
 * The descriptor ring: draft IV's efficient implementation of the queue
 * API, as the virtio 1.x split virtqueue (a descriptor table, an available
 * ring the driver writes and a used ring the device writes), and the entry
 * points transports call for either layout (packed.c has the packed one).
 *
 * The device is not trusted. Everything the ring needs to free a buffer
 * (chain links, and with the DMA API the addresses and lengths to unmap)
 * is kept in driver-private shadow arrays and never read back from shared
 * memory; what the device writes (the used index, ids and lengths) is
 * checked before use. A device that lies marks the queue broken: it is
 * logged once, nothing bogus is completed, and add_buf() fails with -EIO
 * from then on.
 *
 * Locking: as the API says, the driver serialises the operations on one
 * queue. virtio4_ring_interrupt() may run concurrently with them; it only
 * reads the used index and, when the callback returns false, calls
 * disable(), which the API lets run beside the other operations (it writes
 * only the callback flag and what asks the device for no interrupt). A
 * disable and a restart, restart_delayed or restart_after on another CPU
 * may interleave their stores (used_event, avail_flags): at worst an
 * interrupt too many, or none until the next restart, which the driver
 * that disabled owes (the API's hand-over rule), as in packed.c.
 */
#include <linux/debugfs.h>
#include <linux/kmemleak.h>
#include <linux/seq_file.h>
#include <linux/module.h>
#include <uapi/linux/virtio_config.h>
#include <kunit/visibility.h>
#include "common.h"

bool ring_indirect_always;
module_param_named(indirect_always, ring_indirect_always, bool, 0644);
MODULE_PARM_DESC(indirect_always,
		 "Put every multi-element buffer in an indirect table when the device allows; otherwise only buffers that do not fit directly (default: false)");

#define CREATE_TRACE_POINTS
#include "trace.h"

static __le16 *ring_used_event(struct ring *r)
{
	return &r->split.avail->ring[r->vq.num];
}

static __le16 *ring_avail_event(struct ring *r)
{
	return (__le16 *)&r->split.used->ring[r->vq.num];
}

__printf(2, 3) void ring_set_broken(struct ring *r, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (r->vq.broken)
		return;
	WRITE_ONCE(r->vq.broken, true);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	dev_err(&r->vdev->dev, "queue %s broken: %pV\n", r->name, &vaf);
	va_end(args);
}

/* The pool's size in bytes. */
static size_t ring_pool_size(const struct ring *r)
{
	return (size_t)r->vq.num * RING_POOL_ENTRIES * sizeof(struct ring_desc);
}

/**
 * ring_indirect_alloc_slow - ring_indirect_alloc() of a table not from the pool
 * @r: the ring.
 * @id: the buffer id the table is for.
 * @total: its entries (16 bytes each, in both layouts).
 *
 * Tries the pool's one allocation at the ring's first table (none can
 * have come from elsewhere before), then allocates the table if it does
 * not fit there.
 *
 * Context: the queue's operations' (the driver's lock); does not sleep.
 * Return: the table, or NULL if memory is short (counted).
 */
void *ring_indirect_alloc_slow(struct ring *r, u16 id, unsigned int total)
{
	void *table;

	BUILD_BUG_ON(sizeof(struct ring_desc) != sizeof(struct ring_packed_desc));
	if (!r->pool_tried) {
		r->pool_tried = true;
		if (!r->use_dma && r->vq.num <= RING_POOL_MAX_NUM)
			r->pool = kmalloc(ring_pool_size(r), GFP_ATOMIC | __GFP_NOWARN);
		if (ring_pooled(r, total))
			return ring_pool_table(r, id);
	}
	table = kmalloc_array(total, sizeof(struct ring_desc), GFP_ATOMIC);
	if (!table)
		r->alloc_failures++;
	return table;
}

/**
 * ring_used_bad - break the queue over a used entry ring_used_ok() refused
 * @r: the ring.
 * @id: the buffer id the device wrote.
 * @len: the length it wrote.
 *
 * Out of line, and called last (a tail call), so that the common case of
 * get_buf() needs no stack frame.
 * Context: the queue's operations' (the driver's lock).
 * Return: NULL, for get_buf() to return.
 */
noinline void *ring_used_bad(struct ring *r, u32 id, u32 len)
{
	if (id >= r->vq.num || !r->buffers[id].data)
		ring_set_broken(r, "used id %u is not in flight (ring size %u)",
				id, r->vq.num);
	else
		ring_set_broken(r, "used length %u exceeds the buffer's %u",
				len, r->buffers[id].in_len);
	return NULL;
}

/*
 * Offer buffer @head in the available ring. The device sees it at the next
 * sync(), which publishes the index once for all the buffers added since.
 */
static void ring_publish(struct ring *r, u16 head)
{
	u16 idx = r->split.avail_idx;

	r->split.avail->ring[idx & (r->vq.num - 1)] = cpu_to_le16(head);
	r->split.avail_idx = idx + 1;
	r->num_added++;
	r->in_flight++;
	trace_virtio4_add_buf(r, r->buffers[head].data, head, r->vq.num_free);
}

/* One ring descriptor pointing at a table of @total descriptors. */
static noinline int ring_add_indirect(struct ring *r, struct scatterlist *sg,
				      unsigned int out_num, unsigned int total,
				      void *data)
{
	struct ring_desc *table;
	u16 head = r->free_head;
	dma_addr_t table_dma;
	u32 in_len;
	int err;

	table = ring_indirect_alloc(r, head, total);
	if (!table)
		return -ENOMEM;
	err = ring_fill_indirect(r, table, sg, out_num, total, &in_len, false);
	if (err)
		goto err_free;
	err = ring_map_table(r, table, total * sizeof(*table), &table_dma);
	if (err)
		goto err_unmap;

	r->split.desc[head].addr = cpu_to_le64(table_dma);
	r->split.desc[head].len = cpu_to_le32(total * sizeof(*table));
	r->split.desc[head].flags = cpu_to_le16(VRING_DESC_F_INDIRECT);
	ring_record_indirect(r, data, in_len, table, total, table_dma,
			     total * sizeof(*table));
	ring_publish(r, head);
	return 0;

err_unmap:
	ring_unmap_indirect(r, table, total);
err_free:
	ring_indirect_free(r, table, total);
	return err;
}

/*
 * Element @s of a chain as descriptor @i (next: the free entry after it),
 * with @flags: NEXT, and WRITE for an in element. @dma: mapped through the
 * DMA API and recorded in the shadow to unmap (a constant at each call).
 */
static __always_inline int ring_chain_desc(struct ring *r, struct ring_desc *desc,
					   struct ring_shadow *shadow,
					   struct scatterlist *s, u16 i,
					   u16 flags, bool dma)
{
	u32 len = s->length;
	dma_addr_t addr;

	if (unlikely(ring_map_recorded(r, shadow, s, i, flags, &addr, dma)))
		return -ENOMEM;
	desc[i].addr = cpu_to_le64(addr);
	desc[i].len = cpu_to_le32(len);
	desc[i].flags = cpu_to_le16(flags);
	desc[i].next = cpu_to_le16(shadow[i].next);
	return 0;
}

/*
 * A chain of @total descriptors taken from the free list, in one pass over
 * @sg; allocates nothing. The out elements, then the in ones: each loop
 * writes its own constant flags, NEXT on every descriptor, and the last
 * one's is cleared after (the device sees none of them before sync()).
 * The shared table and the shadow are reached through locals: a store to
 * the table may not make the compiler reload them (the kernel builds
 * without strict aliasing). @dma: r->use_dma, a constant at each call.
 */
static __always_inline int ring_add_direct(struct ring *r, struct scatterlist *sg,
					   unsigned int out_num, unsigned int total,
					   void *data, bool dma)
{
	struct ring_shadow *shadow = r->shadow;
	struct ring_desc *desc = r->split.desc;
	u16 head = r->free_head, i = head, last = head;
	struct scatterlist *s = sg;
	struct ring_buffer *b;
	unsigned int n;
	u64 in_len = 0;
	int err;

	for (n = 0; n < out_num; n++, s = sg_next(s)) {
		err = ring_chain_desc(r, desc, shadow, s, i, VRING_DESC_F_NEXT, dma);
		if (unlikely(err))
			goto err_unmap;
		last = i;
		i = shadow[i].next;
	}
	for (; n < total; n++, s = sg_next(s)) {
		in_len += s->length;
		err = ring_chain_desc(r, desc, shadow, s, i,
				      VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, dma);
		if (unlikely(err))
			goto err_unmap;
		last = i;
		i = shadow[i].next;
	}
	if (unlikely(in_len > U32_MAX)) {
		err = -EINVAL;
		goto err_unmap;
	}
	desc[last].flags &= cpu_to_le16(~VRING_DESC_F_NEXT);
	r->free_head = i;
	r->vq.num_free -= total;
	/* A free entry has no indirect table: only these fields change. */
	b = &r->buffers[head];
	b->data = data;
	b->in_len = in_len;
	b->ndescs = total;
	b->last = last;
	ring_publish(r, head);
	return 0;

err_unmap:
	if (dma)
		ring_unmap_chain(r, head, n);
	return err;
}

/* ring_add_direct() of a device behind the DMA API: out of line, the other is the common case. */
static noinline int ring_add_direct_dma(struct ring *r, struct scatterlist *sg,
					unsigned int out_num, unsigned int total,
					void *data)
{
	return ring_add_direct(r, sg, out_num, total, data, true);
}

/*
 * ring_add_direct() of a one-element buffer (a network driver's receive
 * buffer): one descriptor, no chain to walk. Its next field is left as it
 * is: without VRING_DESC_F_NEXT the device does not read it.
 */
static int ring_add_one(struct ring *r, struct scatterlist *s,
			unsigned int out_num, void *data)
{
	u16 flags = out_num ? 0 : VRING_DESC_F_WRITE;
	u32 len = s->length;
	dma_addr_t addr;
	int head = ring_take_one(r, s, len, flags, data, &addr);

	if (unlikely(head < 0))
		return head;
	r->split.desc[head].addr = cpu_to_le64(addr);
	r->split.desc[head].len = cpu_to_le32(len);
	r->split.desc[head].flags = cpu_to_le16(flags);
	ring_publish(r, head);
	return 0;
}

/* add_buf() of anything but a one-element buffer that fits. */
static noinline int ring_add_chain(struct ring *r, struct scatterlist *sg,
				   unsigned int out_num, unsigned int in_num, void *data)
{
	int how = ring_add_how(r, out_num, in_num, data);
	unsigned int total = out_num + in_num;

	if (likely(how == RING_ADD_DIRECT)) {
		if (r->use_dma)
			return ring_add_direct_dma(r, sg, out_num, total, data);
		return ring_add_direct(r, sg, out_num, total, data, false);
	}
	if (how == RING_ADD_INDIRECT)
		return ring_add_indirect(r, sg, out_num, total, data);
	return how;
}

static int ring_add_buf(struct virtio4_queue *vq, struct scatterlist sg[],
			unsigned int out_num, unsigned int in_num, void *data)
{
	struct ring *r = to_ring(vq);
	unsigned int total = out_num + in_num;

	if (total != 1)
		return ring_add_chain(r, sg, out_num, in_num, data);
	/* One element that fits (a receive buffer): no chain, no stack frame. */
	if (likely(out_num <= 1 && ring_one_fits(r, data)))
		return ring_add_one(r, sg, out_num, data);
	return ring_add_chain(r, sg, out_num, in_num, data);
}

static bool ring_need_kick(struct ring *r)
{
	u16 new = r->split.avail_idx, old = new - r->num_added;

	r->num_added = 0;
	if (r->event_idx)
		return vring_need_event(le16_to_cpu(READ_ONCE(*ring_avail_event(r))),
					new, old);
	return !(le16_to_cpu(READ_ONCE(r->split.used->flags)) & VRING_USED_F_NO_NOTIFY);
}

static void ring_sync(struct virtio4_queue *vq)
{
	struct ring *r = to_ring(vq);

	if (unlikely(r->vq.broken) || !r->num_added)
		return;
	/* The device must see the ring entries before the index that covers them. */
	virt_wmb();
	WRITE_ONCE(r->split.avail->idx, cpu_to_le16(r->split.avail_idx));
	/* Publish the new index before reading whether the device wants a kick. */
	virt_mb();
	if (ring_need_kick(r))
		ring_kick(r, r->split.avail_idx);
}

/* Notify the device (@where: the avail index or ring place, for the trace). */
void ring_kick(struct ring *r, unsigned int where)
{
	r->vq.kicks++;
	trace_virtio4_kick(r, NULL, where, r->in_flight);
	if (!r->notify(&r->vq, r->notify_data))
		ring_set_broken(r, "notification failed");
}

static bool ring_more_used(struct ring *r)
{
	return le16_to_cpu(READ_ONCE(r->split.used->idx)) != READ_ONCE(r->split.last_used);
}

/* The device's used index @used_idx claims more entries than are in flight. */
static noinline void *ring_used_idx_bad(struct ring *r, u16 used_idx)
{
	ring_set_broken(r, "used index moved from %u to %u", r->split.last_used, used_idx);
	return NULL;
}

/*
 * Take the used entry at last_used, buffer @id with @used_len bytes
 * written, off the ring; return its token. @indirect: whether the buffer
 * has a table to free (a constant at each call: the common case, no
 * table, then makes no call).
 */
static __always_inline void *ring_take(struct ring *r, u16 id, u32 used_len,
				       unsigned int *len, bool indirect)
{
	u16 last = r->split.last_used + 1;
	void *data = r->buffers[id].data;

	trace_virtio4_used(r, data, id, used_len);
	ring_detach_chain(r, id);
	if (indirect)
		ring_free_indirect(r, &r->buffers[id]);
	WRITE_ONCE(r->split.last_used, last);
	/*
	 * Ask for the next completion, once the entries read are all taken
	 * (before then, the device's next entry lies past a used_event it has
	 * already crossed and raises no interrupt, wherever used_event is). A
	 * full barrier, not a plain store: the next call reads used->idx, and
	 * a load passing this store would let driver and device each see the
	 * other's old index (no interrupt).
	 */
	if (last == r->split.used_seen && r->event_idx && READ_ONCE(r->callbacks) &&
	    !r->delayed) {
		/* The store, then a full barrier. */
		virt_store_mb(*ring_used_event(r), cpu_to_le16(last));
	}
	*len = used_len;
	return data;
}

/* ring_take() of a buffer with an indirect table: the one that calls out. */
static noinline void *ring_take_indirect(struct ring *r, u16 id, u32 used_len,
					 unsigned int *len)
{
	return ring_take(r, id, used_len, len, true);
}

static void *ring_get_buf(struct virtio4_queue *vq, unsigned int *len)
{
	struct ring *r = to_ring(vq);
	u16 last = r->split.last_used, slot;
	u32 id, used_len;

	if (unlikely(r->vq.broken))
		return NULL;
	/*
	 * The index is read again only once the entries it covered are taken.
	 * Errors are tail calls: the common case needs no stack frame.
	 */
	if (last == r->split.used_seen) {
		u16 used_idx = le16_to_cpu(READ_ONCE(r->split.used->idx));

		if (used_idx == last)
			return NULL;
		/* Buffers added but not yet synced were never shown to the device. */
		if (unlikely((u16)(used_idx - last) + r->num_added > r->in_flight))
			return ring_used_idx_bad(r, used_idx);
		/* Read the entries only after the index that covers them. */
		virt_rmb();
		r->split.used_seen = used_idx;
	}
	slot = last & (vq->num - 1);
	id = le32_to_cpu(READ_ONCE(r->split.used->ring[slot].id));
	used_len = le32_to_cpu(READ_ONCE(r->split.used->ring[slot].len));
	if (!ring_used_ok(r, id, used_len))
		return ring_used_bad(r, id, used_len);
	if (unlikely(r->buffers[id].indirect))
		return ring_take_indirect(r, id, used_len, len);
	return ring_take(r, id, used_len, len, false);
}

int ring_detach_buf(struct virtio4_queue *vq, void *data)
{
	struct ring *r = to_ring(vq);
	unsigned int i;

	if (!data)
		return -ENOENT;
	for (i = 0; i < vq->num; i++) {
		if (r->buffers[i].data == data) {
			ring_detach(r, i);
			return 0;
		}
	}
	return -ENOENT;
}

void *ring_detach_unused(struct virtio4_queue *vq)
{
	struct ring *r = to_ring(vq);
	unsigned int i;
	void *data;

	for (i = 0; i < vq->num; i++) {
		data = r->buffers[i].data;
		if (data) {
			ring_detach(r, i);
			return data;
		}
	}
	return NULL;
}

static void ring_disable_callbacks(struct ring *r)
{
	WRITE_ONCE(r->callbacks, false);
	/*
	 * With EVENT_IDX, used_event one behind last_used: the device's used
	 * index is past it already and crosses it again only after 65536
	 * more (the polled queues' one interrupt a lap). Left where it was,
	 * a mark ahead (restart_delayed's, or one set before the device used
	 * anything) would still raise an interrupt while the driver collects.
	 */
	if (r->event_idx) {
		WRITE_ONCE(*ring_used_event(r),
			   cpu_to_le16(READ_ONCE(r->split.last_used) - 1));
	} else {
		r->split.avail_flags |= VRING_AVAIL_F_NO_INTERRUPT;
		WRITE_ONCE(r->split.avail->flags, cpu_to_le16(r->split.avail_flags));
	}
}

static void ring_disable(struct virtio4_queue *vq)
{
	ring_disable_callbacks(to_ring(vq));
}

static bool ring_restart(struct virtio4_queue *vq)
{
	struct ring *r = to_ring(vq);

	r->delayed = false;
	r->mark = 0;
	WRITE_ONCE(r->callbacks, true);
	if (r->event_idx) {
		WRITE_ONCE(*ring_used_event(r), cpu_to_le16(r->split.last_used));
	} else {
		r->split.avail_flags &= ~VRING_AVAIL_F_NO_INTERRUPT;
		WRITE_ONCE(r->split.avail->flags, cpu_to_le16(r->split.avail_flags));
	}
	/* Publish the re-enable before checking for buffers used meanwhile. */
	virt_mb();
	/* A broken queue has nothing to collect, whatever its indices say. */
	if (unlikely(ring_more_used(r) && !READ_ONCE(vq->broken))) {
		ring_disable_callbacks(r);
		return false;
	}
	return true;
}

/* Has the device used more than @mark entries past last_used? */
static bool ring_used_past(struct ring *r, u16 mark)
{
	u16 used_idx = le16_to_cpu(READ_ONCE(r->split.used->idx));

	return (u16)(used_idx - r->split.last_used) > mark;
}

/*
 * With EVENT_IDX, ask for the interrupt only once more than @mark entries
 * past last_used are used (used_event marks the spot, and get_buf leaves it
 * there); without, this is restart.
 */
static bool ring_restart_at(struct virtio4_queue *vq, u16 mark)
{
	struct ring *r = to_ring(vq);

	if (!r->event_idx)
		return ring_restart(vq);
	r->delayed = true;
	r->mark = mark;
	WRITE_ONCE(r->callbacks, true);
	WRITE_ONCE(*ring_used_event(r), cpu_to_le16(r->split.last_used + mark));
	/* Publish the mark before checking whether the device passed it. */
	virt_mb();
	if (unlikely(ring_used_past(r, mark) && !READ_ONCE(vq->broken))) {
		ring_disable_callbacks(r);
		return false;
	}
	return true;
}

/* Once three quarters of the buffers in flight are used. */
static bool ring_restart_delayed(struct virtio4_queue *vq)
{
	return ring_restart_at(vq, to_ring(vq)->in_flight * 3 / 4);
}

/* Once @n more are used, in flight or not yet added (1..num). */
static bool ring_restart_after(struct virtio4_queue *vq, unsigned int n)
{
	return ring_restart_at(vq, clamp(n, 1U, vq->num) - 1);
}

/**
 * ring_callback_due - the queue op callback_due(), both layouts
 * @vq: the queue.
 *
 * Has the device used past r->mark (entries past last_used, split; places,
 * packed) with callbacks on? Then it crossed the point asked for (or,
 * without EVENT_IDX, used a buffer with interrupts asked for) and owes the
 * interrupt.
 *
 * Context: the queue's operations' (the driver's lock).
 * Return: true if an interrupt is owed.
 */
bool ring_callback_due(struct virtio4_queue *vq)
{
	struct ring *r = to_ring(vq);

	if (!READ_ONCE(r->callbacks) || READ_ONCE(vq->broken))
		return false;
	if (r->is_packed)
		return ring_packed_used_past(r, r->mark);
	return ring_used_past(r, r->mark);
}

static const struct virtio4_queue_ops ring_ops = {
	.add_buf = ring_add_buf,
	.sync = ring_sync,
	.get_buf = ring_get_buf,
	.detach_buf = ring_detach_buf,
	.disable = ring_disable,
	.restart = ring_restart,
	.restart_delayed = ring_restart_delayed,
	.restart_after = ring_restart_after,
	.callback_due = ring_callback_due,
	.detach_unused = ring_detach_unused,
};

/*
 * Tell the driver, through its callback, that the queue just broke; before
 * the device is ready the driver finds out from add_buf() instead.
 */
static void ring_notify_broken(struct ring *r)
{
	if (r->vq.cb && virtio4_is_ready(r->vdev))
		r->vq.cb(&r->vq);
}

/*
 * An interrupt with nothing used on a queue that has a vector of its own. A
 * few are normal (a late interrupt for buffers already collected); a device
 * raising them without end is hostile: the queue is broken, and from then on
 * its interrupts are claimed so that the kernel does not disable the line
 * with a "nobody cared" trace.
 */
static irqreturn_t ring_spurious(struct ring *r)
{
	if (READ_ONCE(r->vq.broken))
		return r->storm.count >= VIRTIO4_RING_STORM ? IRQ_HANDLED : IRQ_NONE;
	if (virtio4_storm_add(&r->storm) < VIRTIO4_RING_STORM)
		return IRQ_NONE;
	ring_set_broken(r, "interrupt storm: %u interrupts in a row with nothing used",
			r->storm.count);
	ring_notify_broken(r);
	return IRQ_HANDLED;
}

static irqreturn_t ring_interrupt(struct virtio4_queue *vq, bool own)
{
	struct ring *r = to_ring(vq);
	bool more;

	/* Before DRIVER_OK the driver's state may not be set up: not ours. */
	if (unlikely(!virtio4_is_ready(r->vdev)))
		return IRQ_NONE;
	more = r->is_packed ? ring_packed_more_used(r) : ring_more_used(r);
	if (unlikely(!more || READ_ONCE(vq->broken))) {
		r->spurious++;
		return own ? ring_spurious(r) : IRQ_NONE;
	}
	r->storm.count = 0;
	vq->interrupts++;
	if (r->is_packed)
		trace_virtio4_interrupt(r, NULL, READ_ONCE(r->packed.last_used),
					READ_ONCE(r->packed.last_used));
	else
		trace_virtio4_interrupt(r, NULL, le16_to_cpu(READ_ONCE(r->split.used->idx)),
					READ_ONCE(r->split.last_used));
	if (READ_ONCE(r->callbacks) && vq->cb && !vq->cb(vq))
		vq->ops->disable(vq);
	return IRQ_HANDLED;
}

/**
 * virtio4_ring_interrupt - the interrupt of a queue's own vector
 * @vq: the queue the interrupt is for.
 *
 * Calls the queue's callback if buffers were used and callbacks are on;
 * a callback returning false turns them off until restart().
 * %VIRTIO4_RING_STORM interrupts in a row with nothing used break the queue.
 *
 * Context: interrupt context.
 * Return: IRQ_NONE if nothing was used, IRQ_HANDLED otherwise.
 */
irqreturn_t virtio4_ring_interrupt(struct virtio4_queue *vq)
{
	return ring_interrupt(vq, true);
}
EXPORT_SYMBOL_GPL(virtio4_ring_interrupt);

/**
 * virtio4_ring_shared_interrupt - an interrupt shared with other queues
 * @vq: one of the queues the interrupt may be for.
 *
 * As virtio4_ring_interrupt(), but an interrupt with nothing used is not
 * counted towards a storm: it was probably for another queue. The
 * transport watches a shared line as a whole (virtio4_ring_break()).
 *
 * Context: interrupt context.
 * Return: IRQ_NONE if nothing was used, IRQ_HANDLED otherwise.
 */
irqreturn_t virtio4_ring_shared_interrupt(struct virtio4_queue *vq)
{
	return ring_interrupt(vq, false);
}
EXPORT_SYMBOL_GPL(virtio4_ring_shared_interrupt);

static size_t ring_sizes(unsigned int num, size_t *avail_off, size_t *used_off)
{
	*avail_off = sizeof(struct ring_desc) * num;
	*used_off = ALIGN(*avail_off + sizeof(struct ring_avail) +
			  sizeof(__le16) * (num + 1), SMP_CACHE_BYTES);
	return *used_off + sizeof(struct ring_used) +
	       sizeof(struct ring_used_elem) * num + sizeof(__le16);
}

static int ring_alloc(struct ring *r, unsigned int num)
{
	size_t avail_off, used_off;
	unsigned int i;

	r->shadow = kcalloc(num, sizeof(*r->shadow), GFP_KERNEL);
	r->buffers = kcalloc(num, sizeof(*r->buffers), GFP_KERNEL);
	if (!r->shadow || !r->buffers)
		return -ENOMEM;
	if (r->is_packed)
		r->mem_size = ring_packed_size(num);
	else
		r->mem_size = ring_sizes(num, &avail_off, &used_off);
	/*
	 * The ring's own addresses follow the same rule as the buffers': a
	 * device without ACCESS_PLATFORM reads guest physical addresses, which
	 * a DMA-API address is not once an IOMMU translates for the device.
	 */
	if (r->use_dma) {
		r->mem = dma_alloc_coherent(r->dma_dev, r->mem_size, &r->mem_dma,
					    GFP_KERNEL);
	} else {
		r->mem = alloc_pages_exact(r->mem_size, GFP_KERNEL | __GFP_ZERO);
		if (r->mem)
			r->mem_dma = virt_to_phys(r->mem);
	}
	if (!r->mem)
		return -ENOMEM;
	for (i = 0; i < num; i++)
		r->shadow[i].next = i + 1;
	if (r->is_packed) {
		ring_packed_init(r, num);
		return 0;
	}
	r->split.desc = r->mem;
	r->split.avail = r->mem + avail_off;
	r->split.used = r->mem + used_off;
	return 0;
}

static void ring_free(struct ring *r)
{
	if (r->mem && r->use_dma)
		dma_free_coherent(r->dma_dev, r->mem_size, r->mem, r->mem_dma);
	else if (r->mem)
		free_pages_exact(r->mem, r->mem_size);
	kfree(r->pool);
	kfree(r->buffers);
	kfree(r->shadow);
	kfree(r);
}

/* debugfs virtio4/<device>/<queue>: the ring's state, for people debugging. */
static int ring_debugfs_show(struct seq_file *m, void *unused)
{
	struct ring *r = m->private;

	seq_printf(m, "size %u\nfree %u\nin_flight %u\n", r->vq.num,
		   READ_ONCE(r->vq.num_free), READ_ONCE(r->in_flight));
	if (r->is_packed)
		ring_packed_debugfs_show(r, m);
	else
		seq_printf(m, "layout split\navail_idx %u\nused_idx %u\nlast_used %u\n",
			   le16_to_cpu(READ_ONCE(r->split.avail->idx)),
			   le16_to_cpu(READ_ONCE(r->split.used->idx)),
			   READ_ONCE(r->split.last_used));
	seq_printf(m, "kicks %llu\ninterrupts %llu\nspurious %llu\n",
		   READ_ONCE(r->vq.kicks), READ_ONCE(r->vq.interrupts),
		   READ_ONCE(r->spurious));
	seq_printf(m, "event_idx %d\nindirect %d\nindirect_tables %llu\nalloc_failures %llu\npool %d\n",
		   r->event_idx, r->indirect, READ_ONCE(r->indirect_tables),
		   READ_ONCE(r->alloc_failures), !!READ_ONCE(r->pool));
	seq_printf(m, "broken %d\n", READ_ONCE(r->vq.broken));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ring_debugfs);

/**
 * virtio4_ring_new - create a descriptor ring
 * @vdev: the device the queue belongs to (for its features and logs).
 * @dma_dev: the device that maps buffers for DMA (e.g. the PCI device), when
 *	VIRTIO_F_ACCESS_PLATFORM is negotiated; otherwise the device gets
 *	physical addresses, as virtio 1.x says.
 * @index: the queue's number within @vdev.
 * @num: the number of descriptors, from 1 to 32768: a power of two for a
 *	split ring.
 * @notify: the transport's kick.
 * @notify_data: passed to @notify (the queue's priv is the driver's).
 * @callback: the driver's callback, or NULL for a queue the driver polls:
 *	its callbacks are off from the start (the driver never restarts them);
 *	an interrupt that finds buffers used on it anyway is claimed and
 *	counted, with nothing to call.
 * @name: the queue's name in logs.
 *
 * The ring is packed when VIRTIO_F_RING_PACKED is negotiated in
 * @vdev->features, split otherwise, and uses VIRTIO_RING_F_EVENT_IDX and
 * VIRTIO_RING_F_INDIRECT_DESC when they are.
 *
 * Context: process context.
 * Return: the queue, or an ERR_PTR(): -EINVAL for a bad @num, -ENOMEM.
 */
struct virtio4_queue *virtio4_ring_new(struct virtio4_device *vdev,
				       struct device *dma_dev,
				       unsigned int index, unsigned int num,
				       virtio4_notify_t *notify, void *notify_data,
				       virtio4_callback_t *callback,
				       const char *name)
{
	bool packed = virtio4_has_feature(vdev, VIRTIO_F_RING_PACKED);
	struct ring *r;

	if (!num || num > 32768 || (!packed && !is_power_of_2(num))) {
		dev_err(&vdev->dev, "queue %s: bad size %u\n", name, num);
		return ERR_PTR(-EINVAL);
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->is_packed = packed;
	r->vdev = vdev;
	r->dma_dev = dma_dev;
	r->notify = notify;
	r->notify_data = notify_data;
	r->event_idx = virtio4_has_feature(vdev, VIRTIO_RING_F_EVENT_IDX);
	r->indirect = virtio4_has_feature(vdev, VIRTIO_RING_F_INDIRECT_DESC);
	r->use_dma = virtio4_has_feature(vdev, VIRTIO_F_ACCESS_PLATFORM);
	r->callbacks = true;
	strscpy(r->name, name, sizeof(r->name));
	if (ring_alloc(r, num)) {
		ring_free(r);
		return ERR_PTR(-ENOMEM);
	}
	r->vq = (struct virtio4_queue) {
		.ops = packed ? &ring_packed_ops : &ring_ops, .cb = callback, .index = index,
		.num = num, .num_free = num, .delays = r->event_idx,
	};
	if (!callback)
		r->vq.ops->disable(&r->vq);
	if (vdev->debugfs)
		r->debugfs = debugfs_create_file(r->name, 0444, vdev->debugfs, r,
						 &ring_debugfs_fops);
	return &r->vq;
}
EXPORT_SYMBOL_GPL(virtio4_ring_new);

/**
 * virtio4_ring_del - free a ring
 * @vq: a queue from virtio4_ring_new().
 *
 * The device must be reset first (it may no longer touch the ring).
 * Buffers still outstanding are unmapped; their tokens are the driver's.
 *
 * Context: process context.
 */
void virtio4_ring_del(struct virtio4_queue *vq)
{
	struct ring *r = to_ring(vq);
	unsigned int i;

	debugfs_remove(r->debugfs);
	for (i = 0; i < vq->num; i++)
		if (r->buffers[i].data)
			ring_detach(r, i);
	ring_free(r);
}
EXPORT_SYMBOL_GPL(virtio4_ring_del);

/**
 * virtio4_ring_abandon - free a ring whose device may still use it
 * @vq: a queue from virtio4_ring_new() whose device did not complete its reset.
 *
 * As virtio4_ring_del(), but the memory the device may still read or write
 * (the ring itself and the indirect tables of outstanding buffers) is kept
 * for good: leaked, with one log line, rather than freed under the device.
 *
 * Context: process context.
 */
void virtio4_ring_abandon(struct virtio4_queue *vq)
{
	struct ring *r = to_ring(vq);
	unsigned int i, tables = 0;
	size_t pool = 0;

	for (i = 0; i < vq->num; i++) {
		struct ring_buffer *b = &r->buffers[i];

		if (b->indirect) {
			if (!ring_pooled(r, b->indirect_num))
				kmemleak_not_leak(b->indirect);
			b->indirect = NULL;
			tables++;
		}
	}
	/* The pool's tables too: kept whole. */
	if (r->pool) {
		kmemleak_not_leak(r->pool);
		pool = ring_pool_size(r);
		r->pool = NULL;
	}
	dev_warn(&r->vdev->dev, "queue %s: keeping %zu bytes of ring, %zu of pooled tables and %u indirect table(s) the device may still use\n",
		 r->name, r->mem_size, pool, tables);
	if (!r->use_dma)
		kmemleak_not_leak(r->mem);
	r->mem = NULL;
	virtio4_ring_del(vq);
}
EXPORT_SYMBOL_GPL(virtio4_ring_abandon);

/**
 * virtio4_ring_layout - where the device finds the ring
 * @vq: the queue.
 * @layout: filled with the bus addresses of its three parts.
 *
 * Context: any context.
 */
void virtio4_ring_layout(struct virtio4_queue *vq,
			 struct virtio4_ring_layout *layout)
{
	struct ring *r = to_ring(vq);

	if (r->is_packed) {
		ring_packed_layout(r, layout);
		return;
	}
	layout->desc = r->mem_dma;
	layout->avail = r->mem_dma + ((void *)r->split.avail - r->mem);
	layout->used = r->mem_dma + ((void *)r->split.used - r->mem);
}
EXPORT_SYMBOL_GPL(virtio4_ring_layout);

/**
 * virtio4_ring_break - stop a queue for good
 * @vq: the queue.
 * @why: what the device did, for the one log line.
 *
 * For a transport whose device misbehaved or went away: get_buf() returns
 * NULL and add_buf() fails with -EIO from now on. The queue's callback is
 * called once more so that the driver sees &virtio4_queue.broken and fails
 * what is outstanding.
 *
 * Context: any context; interrupt context for the callback.
 */
void virtio4_ring_break(struct virtio4_queue *vq, const char *why)
{
	struct ring *r = to_ring(vq);

	if (READ_ONCE(vq->broken))
		return;
	ring_set_broken(r, "%s", why);
	ring_notify_broken(r);
}
EXPORT_SYMBOL_GPL(virtio4_ring_break);

/**
 * virtio4_ring_is_broken - has the queue stopped for good?
 * @vq: the queue.
 *
 * Context: any context.
 * Return: true after the device misbehaved or virtio4_ring_break().
 */
bool virtio4_ring_is_broken(struct virtio4_queue *vq)
{
	return READ_ONCE(vq->broken);
}
EXPORT_SYMBOL_GPL(virtio4_ring_is_broken);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * virtio4_ring_test_view - the ring's shared memory, for KUnit's test device
 * @vq: the queue.
 * @view: filled with its descriptor table, available and used rings.
 */
void virtio4_ring_test_view(struct virtio4_queue *vq,
			    struct virtio4_ring_view *view)
{
	struct ring *r = to_ring(vq);

	WARN_ON_ONCE(r->is_packed);
	view->desc = r->split.desc;
	view->avail = r->split.avail;
	view->used = r->split.used;
	view->pool = r->pool;
	view->pool_size = r->pool ? ring_pool_size(r) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(virtio4_ring_test_view);

/**
 * virtio4_ring_test_packed_view - a packed ring's shared memory, for KUnit's test device
 * @vq: the queue.
 * @view: filled with its descriptor ring and event suppression areas.
 */
void virtio4_ring_test_packed_view(struct virtio4_queue *vq,
				   struct virtio4_packed_view *view)
{
	struct ring *r = to_ring(vq);

	WARN_ON_ONCE(!r->is_packed);
	view->desc = r->packed.desc;
	view->driver = r->packed.driver;
	view->device = r->packed.device;
}
EXPORT_SYMBOL_IF_KUNIT(virtio4_ring_test_packed_view);
#endif

MODULE_DESCRIPTION("virtio draft IV: the descriptor ring (split and packed virtqueues)");
MODULE_LICENSE("GPL");
