// SPDX-License-Identifier: GPL-2.0
/*
 * The packed virtqueue (virtio 1.1, VIRTIO_F_RING_PACKED): the queue API
 * over one ring of descriptors that the driver makes available and the
 * device hands back, used, in the same places.
 *
 * A descriptor is available when its AVAIL bit equals the driver's wrap
 * counter and its USED bit does not; it is used when both bits equal the
 * wrap counter the driver expects of the device. A counter flips each time
 * its place passes the end of the ring. The driver writes a buffer's
 * descriptors at consecutive places from next_avail, its head's flags last;
 * the device writes one used descriptor per buffer, in the order it
 * completes them, at consecutive places from where it wrote the last one,
 * skipping as many places as that buffer had descriptors. The driver moves
 * last_used by that count, which it takes from its own record of the
 * buffer (struct ring_buffer), never from the device.
 *
 * Buffer ids are the entries of the shadow array (common.h): a buffer's id
 * is the index of the first entry it takes. A chain takes as many entries
 * as descriptors with use_dma (they record the mappings), one without. The
 * device is not trusted: an id not in flight, a length beyond the buffer,
 * or a used descriptor while no buffer is in flight break the queue (logged
 * once; nothing is completed; add_buf() fails with -EIO).
 *
 * Event suppression: the driver's area says when to interrupt (never, on
 * every used buffer, or with VIRTIO_RING_F_EVENT_IDX when the device writes
 * a given place), the device's when to kick. last_used keeps the place in
 * bits 0-14 and the wrap counter in bit 15, as the areas' off_wrap does, so
 * that the interrupt handler reads both at once.
 *
 * Locking: as the API says; ring.c's interrupt entry reads last_used and
 * the descriptor there, and turns callbacks off (packed_disable). That disable and a restart
 * on another CPU may interleave on event_flags, the driver's copy of its
 * area's flags, and leave it out of step with the area: at worst an
 * interrupt too many, or callbacks off until the next restart, which the
 * driver that disabled them owes (the API's hand-over rule).
 *
 * detach_buf() and detach_unused() free a buffer's places without the
 * device having used them, so last_used no longer meets the device's
 * cursor: as the API says, they are for a device that was reset (or
 * given up for good), after which nothing is added to the ring.
 */
#include <linux/seq_file.h>
#include "common.h"
#include "trace.h"

#define PACKED_AVAIL	BIT(VRING_PACKED_DESC_F_AVAIL)
#define PACKED_USED	BIT(VRING_PACKED_DESC_F_USED)
#define PACKED_WRAP	BIT(VRING_PACKED_EVENT_F_WRAP_CTR)
#define PACKED_BOTH	(PACKED_AVAIL | PACKED_USED)

/* @place_wrap (a place and its wrap counter) moved on by @n places. */
static u16 packed_advance(const struct ring *r, u16 place_wrap, unsigned int n)
{
	unsigned int place = (place_wrap & ~PACKED_WRAP) + n;
	u16 wrap = place_wrap & PACKED_WRAP;

	if (place >= r->vq.num) {
		place -= r->vq.num;
		wrap ^= PACKED_WRAP;
	}
	return place | wrap;
}

/* Has the device written a used descriptor at @place_wrap? */
static bool packed_is_used(const struct ring *r, u16 place_wrap)
{
	u16 flags = le16_to_cpu(READ_ONCE(r->packed.desc[place_wrap & ~PACKED_WRAP].flags));
	u16 want = (place_wrap & PACKED_WRAP) ? PACKED_BOTH : 0;

	/* Used: both bits equal the wrap counter. */
	return (flags & PACKED_BOTH) == want;
}

/**
 * ring_packed_more_used - is a used buffer waiting to be collected?
 * @r: a packed ring.
 *
 * Context: any context, beside the queue's operations.
 * Return: true if the device wrote a used descriptor at last_used.
 */
bool ring_packed_more_used(struct ring *r)
{
	return packed_is_used(r, READ_ONCE(r->packed.last_used));
}

/*
 * Make a buffer whose descriptors are written, but for its head's flags,
 * available: id @id, @ndescs places from next_avail, after which the next
 * buffer goes at @next, made available with @avail_bits.
 */
static void packed_publish(struct ring *r, u16 id, u16 head_flags,
			   unsigned int ndescs, u16 next, u16 avail_bits)
{
	struct ring_packed *p = &r->packed;

	head_flags |= p->avail_bits;
	/* The device must see the rest of the buffer before the head that offers it. */
	virt_wmb();
	WRITE_ONCE(p->desc[p->next_avail].flags, cpu_to_le16(head_flags));
	p->next_avail = next;
	p->avail_bits = avail_bits;
	r->num_added += ndescs;
	r->in_flight++;
	trace_virtio4_add_buf(r, r->buffers[id].data, id, r->vq.num_free);
}

/*
 * A failed add wrote @n descriptors from next_avail, its head's flags not
 * among them: mark the @n - 1 after the head neither available nor used,
 * for a later, shorter buffer's head would make them reachable to the
 * device.
 */
static void packed_unwrite(struct ring *r, unsigned int n)
{
	u16 place = r->packed.next_avail, bits = r->packed.avail_bits;
	unsigned int i;

	for (i = 1; i < n; i++) {
		if (++place == r->vq.num) {
			place = 0;
			bits ^= PACKED_BOTH;
		}
		/* The bits of the other lap: not available in this one. */
		r->packed.desc[place].flags = cpu_to_le16(bits ^ PACKED_BOTH);
	}
}

/*
 * The ring place after @place; *@avail_bits: the bits that make a
 * descriptor there available.
 */
static __always_inline u16 packed_next_place(u16 place, u16 num, u16 *avail_bits)
{
	if (unlikely(++place == num)) {
		*avail_bits ^= PACKED_BOTH;
		return 0;
	}
	return place;
}

/*
 * Element @s of buffer @head's chain as descriptor @d, but for its flags
 * (the caller's to write), with shadow entry @id; @flags: WRITE for an in
 * element. @dma: mapped through the DMA API and recorded in the shadow to
 * unmap (a constant at each call).
 */
static __always_inline int packed_chain_desc(struct ring *r, struct ring_packed_desc *d,
					     struct ring_shadow *shadow,
					     struct scatterlist *s, u16 id, u16 head,
					     u16 flags, bool dma)
{
	u32 len = s->length;
	dma_addr_t addr;

	if (unlikely(ring_map_recorded(r, shadow, s, id, flags, &addr, dma)))
		return -ENOMEM;
	d->addr = cpu_to_le64(addr);
	d->len = cpu_to_le32(len);
	d->id = cpu_to_le16(head);
	return 0;
}

/*
 * A chain of @total descriptors at consecutive places, written in one pass
 * over @sg: the head, whose flags packed_publish() writes last, then the
 * other out elements and the in ones, each loop with its own constant
 * flags, NEXT on every descriptor and the last one's cleared after. The
 * buffer's id is the free entry at the head of the list; with @dma
 * (r->use_dma, a constant at each call) it takes one more entry for each
 * further element, to record the mappings to undo, without, none.
 * Should an element fail to map, or the in elements come to more than a
 * used length can say (U32_MAX), the places written are taken back.
 */
static __always_inline int packed_add_direct(struct ring *r, struct scatterlist *sg,
					     unsigned int out_num, unsigned int total,
					     void *data, bool dma)
{
	struct ring_packed *p = &r->packed;
	/* Locals: a store to the ring may not make the compiler reload them. */
	struct ring_packed_desc *desc = p->desc;
	struct ring_shadow *shadow = r->shadow;
	u16 head = r->free_head, id = head, place = p->next_avail;
	u16 avail_bits = p->avail_bits, num = r->vq.num;
	u16 head_flags = out_num ? 0 : VRING_DESC_F_WRITE;
	struct scatterlist *s = sg;
	struct ring_buffer *b;
	unsigned int n = 0;
	u64 in_len = 0;
	int err;

	if (!out_num)
		in_len = s->length;
	err = packed_chain_desc(r, &desc[place], shadow, s, id, head, head_flags, dma);
	if (unlikely(err))
		goto err_unmap;
	for (n = 1; n < out_num; n++) {
		s = sg_next(s);
		if (dma)
			id = shadow[id].next;
		place = packed_next_place(place, num, &avail_bits);
		err = packed_chain_desc(r, &desc[place], shadow, s, id, head, 0, dma);
		if (unlikely(err))
			goto err_unmap;
		desc[place].flags = cpu_to_le16(VRING_DESC_F_NEXT | avail_bits);
	}
	for (; n < total; n++) {
		s = sg_next(s);
		if (dma)
			id = shadow[id].next;
		place = packed_next_place(place, num, &avail_bits);
		in_len += s->length;
		err = packed_chain_desc(r, &desc[place], shadow, s, id, head,
					VRING_DESC_F_WRITE, dma);
		if (unlikely(err))
			goto err_unmap;
		desc[place].flags = cpu_to_le16(VRING_DESC_F_NEXT | VRING_DESC_F_WRITE |
						avail_bits);
	}
	if (unlikely(in_len > U32_MAX)) {
		err = -EINVAL;
		goto err_unmap;
	}
	if (total > 1) {
		desc[place].flags &= cpu_to_le16(~VRING_DESC_F_NEXT);
		head_flags |= VRING_DESC_F_NEXT;
	}
	r->free_head = shadow[id].next;
	r->vq.num_free -= total;
	b = &r->buffers[head];
	b->data = data;
	b->in_len = in_len;
	b->ndescs = total;
	b->last = id;
	place = packed_next_place(place, num, &avail_bits);
	packed_publish(r, head, head_flags, total, place, avail_bits);
	return 0;

err_unmap:
	if (dma)
		ring_unmap_chain(r, head, n);
	packed_unwrite(r, n);
	return err;
}

/*
 * packed_add_direct() of a device behind the DMA API, and of one without:
 * each out of line, for packed_add_chain() to take no stack frame of its
 * own (the compiler gives it the one its longest path needs on all).
 */
static noinline int packed_add_direct_dma(struct ring *r, struct scatterlist *sg,
					  unsigned int out_num, unsigned int total,
					  void *data)
{
	return packed_add_direct(r, sg, out_num, total, data, true);
}

static noinline int packed_add_direct_phys(struct ring *r, struct scatterlist *sg,
					   unsigned int out_num, unsigned int total,
					   void *data)
{
	return packed_add_direct(r, sg, out_num, total, data, false);
}

/* One ring descriptor pointing at a table of @total packed descriptors. */
static noinline int packed_add_indirect(struct ring *r, struct scatterlist *sg,
					unsigned int out_num, unsigned int total,
					void *data)
{
	struct ring_packed_desc *table, *d = &r->packed.desc[r->packed.next_avail];
	u16 head = r->free_head, next;
	dma_addr_t table_dma;
	u32 in_len;
	int err;

	table = ring_indirect_alloc(r, head, total);
	if (!table)
		return -ENOMEM;
	err = ring_fill_indirect(r, table, sg, out_num, total, &in_len, true);
	if (err)
		goto err_free;
	err = ring_map_table(r, table, total * sizeof(*table), &table_dma);
	if (err)
		goto err_unmap;

	ring_record_indirect(r, data, in_len, table, total, table_dma,
			     total * sizeof(*table));
	d->addr = cpu_to_le64(table_dma);
	d->len = cpu_to_le32(total * sizeof(*table));
	d->id = cpu_to_le16(head);
	next = packed_advance(r, r->packed.next_avail, 1);
	packed_publish(r, head, VRING_DESC_F_INDIRECT, 1, next & ~PACKED_WRAP,
		       r->packed.avail_bits ^ (next & PACKED_WRAP ? PACKED_BOTH : 0));
	return 0;

err_unmap:
	ring_unmap_indirect(r, table, total);
err_free:
	ring_indirect_free(r, table, total);
	return err;
}

/*
 * packed_add_direct() of a one-element buffer (a network driver's receive
 * buffer): one descriptor, no chain to walk. Should the element fail to
 * map, nothing was written.
 */
static int packed_add_one(struct ring *r, struct scatterlist *s,
			  unsigned int out_num, void *data)
{
	struct ring_packed *p = &r->packed;
	u16 place = p->next_avail, avail_bits = p->avail_bits, next;
	u16 flags = out_num ? 0 : VRING_DESC_F_WRITE;
	struct ring_packed_desc *d = &p->desc[place];
	u32 len = s->length;
	dma_addr_t addr;
	int head = ring_take_one(r, s, len, flags, data, &addr);

	if (unlikely(head < 0))
		return head;
	d->addr = cpu_to_le64(addr);
	d->len = cpu_to_le32(len);
	d->id = cpu_to_le16(head);
	next = packed_next_place(place, r->vq.num, &avail_bits);
	packed_publish(r, head, flags, 1, next, avail_bits);
	return 0;
}

/* add_buf() of anything but a one-element buffer that fits. */
static noinline int packed_add_chain(struct ring *r, struct scatterlist *sg,
				     unsigned int out_num, unsigned int in_num,
				     void *data)
{
	int how = ring_add_how(r, out_num, in_num, data);
	unsigned int total = out_num + in_num;

	if (likely(how == RING_ADD_DIRECT)) {
		if (r->use_dma)
			return packed_add_direct_dma(r, sg, out_num, total, data);
		return packed_add_direct_phys(r, sg, out_num, total, data);
	}
	if (how == RING_ADD_INDIRECT)
		return packed_add_indirect(r, sg, out_num, total, data);
	return how;
}

static int packed_add_buf(struct virtio4_queue *vq, struct scatterlist sg[],
			  unsigned int out_num, unsigned int in_num, void *data)
{
	struct ring *r = to_ring(vq);
	unsigned int total = out_num + in_num;

	if (total != 1)
		return packed_add_chain(r, sg, out_num, in_num, data);
	/* One element that fits (a receive buffer): no chain, no stack frame. */
	if (likely(out_num <= 1 && ring_one_fits(r, data)))
		return packed_add_one(r, sg, out_num, data);
	return packed_add_chain(r, sg, out_num, in_num, data);
}

/*
 * Does the device want a kick? Its area's flags and place are read at
 * once: the device may change both. With a place, the kick is due if the
 * place lies among the descriptors made available since the last kick, not
 * only since the last sync: a device may re-enable kicks at a place it
 * then takes in the same pass without moving the place on (QEMU 7.2's
 * virtio-net, after a transmit the network could not take at once), and
 * would wait for a kick that the split ring's rule never sends.
 */
static bool packed_need_kick(struct ring *r)
{
	struct ring_packed *p = &r->packed;
	u16 new = p->next_avail, old, flags, event;
	struct ring_packed_event e;
	u32 snapshot;

	/*
	 * At most a whole ring since the last kick (sync cuts the count
	 * there): any place is among them. As in the split ring, a place more
	 * than a lap old cannot be told from a new one.
	 */
	old = new - r->num_added;
	snapshot = READ_ONCE(*(u32 *)p->device);
	memcpy(&e, &snapshot, sizeof(e));
	flags = le16_to_cpu(e.flags);
	if (flags != VRING_PACKED_EVENT_FLAG_DESC)
		return flags != VRING_PACKED_EVENT_FLAG_DISABLE;
	/*
	 * The place the device waits for, counted from the start of this wrap
	 * of the ring: one in the wrap before lies num places back.
	 */
	event = le16_to_cpu(e.off_wrap) & ~PACKED_WRAP;
	if (!!(le16_to_cpu(e.off_wrap) & PACKED_WRAP) != !!(p->avail_bits & PACKED_AVAIL))
		event -= r->vq.num;
	return vring_need_event(event, new, old);
}

static void packed_sync(struct virtio4_queue *vq)
{
	struct ring *r = to_ring(vq);

	if (unlikely(vq->broken) || !r->num_added)
		return;
	/* More than a ring since the last kick: any place is among them (need_kick). */
	r->num_added = min(r->num_added, r->vq.num);
	/* Publish the descriptors before reading whether the device wants a kick. */
	virt_mb();
	if (!packed_need_kick(r))
		return;
	r->num_added = 0;
	ring_kick(r, r->packed.next_avail);
}

/*
 * Take the used descriptor at last_used, buffer @id with @used_len bytes
 * written, off the ring; return its token. @indirect: whether the buffer
 * has a table to free (a constant at each call: the common case, no
 * table, then makes no call).
 */
static __always_inline void *packed_take(struct ring *r, u16 last_used, u16 id,
					 u32 used_len, unsigned int *len, bool indirect)
{
	struct ring_packed *p = &r->packed;
	void *data = r->buffers[id].data;
	u16 last = packed_advance(r, last_used, r->buffers[id].ndescs);

	trace_virtio4_used(r, data, id, used_len);
	ring_detach_chain(r, id);
	if (indirect)
		ring_free_indirect(r, &r->buffers[id]);
	WRITE_ONCE(p->last_used, last);
	/*
	 * Ask for the next completion, unless the next descriptor is used
	 * already (the device has passed that place and raises no interrupt
	 * for it, wherever the driver's area points; the next call takes it
	 * without reading its flags again). A full barrier, not a plain store,
	 * as the split ring's used_event: the next call reads the next
	 * descriptor.
	 */
	p->used_ahead = packed_is_used(r, last);
	if (!p->used_ahead && r->event_idx && READ_ONCE(r->callbacks) && !r->delayed) {
		/* The store, then a full barrier. */
		virt_store_mb(p->driver->off_wrap, cpu_to_le16(last));
	}
	*len = used_len;
	return data;
}

/* packed_take() of a buffer with an indirect table: the one that calls out. */
static noinline void *packed_take_indirect(struct ring *r, u16 last_used, u16 id,
					   u32 used_len, unsigned int *len)
{
	return packed_take(r, last_used, id, used_len, len, true);
}

/* Errors are tail calls: the common case needs no stack frame. */
static void *packed_get_buf(struct virtio4_queue *vq, unsigned int *len)
{
	struct ring *r = to_ring(vq);
	struct ring_packed *p = &r->packed;
	u16 last = p->last_used, place = last & ~PACKED_WRAP, id;
	u32 used_len;

	if (unlikely(vq->broken) || (!p->used_ahead && !packed_is_used(r, last)))
		return NULL;
	/* Read the descriptor only after the flags that hand it back (here or before). */
	virt_rmb();
	id = le16_to_cpu(READ_ONCE(p->desc[place].id));
	used_len = le32_to_cpu(READ_ONCE(p->desc[place].len));
	/* With no buffer in flight, no id is: a used descriptor then breaks the queue here. */
	if (!ring_used_ok(r, id, used_len))
		return ring_used_bad(r, id, used_len);
	if (unlikely(r->buffers[id].indirect))
		return packed_take_indirect(r, last, id, used_len, len);
	return packed_take(r, last, id, used_len, len, false);
}

/* Ask the device for no interrupts: the one operation that may run beside the others. */
static void packed_disable_callbacks(struct ring *r)
{
	struct ring_packed *p = &r->packed;

	WRITE_ONCE(r->callbacks, false);
	if (p->event_flags != VRING_PACKED_EVENT_FLAG_DISABLE) {
		p->event_flags = VRING_PACKED_EVENT_FLAG_DISABLE;
		WRITE_ONCE(p->driver->flags, cpu_to_le16(p->event_flags));
	}
}

static void packed_disable(struct virtio4_queue *vq)
{
	packed_disable_callbacks(to_ring(vq));
}

/* Ask for an interrupt: at the used descriptor at @off_wrap with EVENT_IDX. */
static void packed_enable(struct ring *r, u16 off_wrap)
{
	struct ring_packed *p = &r->packed;
	u16 flags = r->event_idx ? VRING_PACKED_EVENT_FLAG_DESC :
				   VRING_PACKED_EVENT_FLAG_ENABLE;

	if (r->event_idx)
		WRITE_ONCE(p->driver->off_wrap, cpu_to_le16(off_wrap));
	if (p->event_flags != flags) {
		/* The place before the flags that make the device read it. */
		virt_wmb();
		p->event_flags = flags;
		WRITE_ONCE(p->driver->flags, cpu_to_le16(flags));
	}
}

static bool packed_restart(struct virtio4_queue *vq)
{
	struct ring *r = to_ring(vq);

	r->delayed = false;
	r->mark = 0;
	WRITE_ONCE(r->callbacks, true);
	packed_enable(r, r->packed.last_used);
	/* Publish the re-enable before checking for buffers used meanwhile. */
	virt_mb();
	/* A broken queue has nothing to collect, whatever its descriptors say. */
	if (unlikely(ring_packed_more_used(r) && !READ_ONCE(vq->broken))) {
		packed_disable_callbacks(r);
		return false;
	}
	return true;
}

/**
 * ring_packed_used_past - has the device used past a mark?
 * @r: a packed ring.
 * @mark: places from last_used.
 *
 * Walks the used descriptors with the driver's own counts; an id that is
 * not in flight stops the walk with true, for get_buf() to find and report.
 *
 * Context: the queue's operations' (the driver's lock).
 * Return: true if the used descriptors cover more than @mark places.
 */
bool ring_packed_used_past(struct ring *r, unsigned int mark)
{
	u16 at = r->packed.last_used, id;
	unsigned int covered = 0;

	while (covered <= mark) {
		if (!packed_is_used(r, at))
			return false;
		/* The id only after the flags that hand it back. */
		virt_rmb();
		id = le16_to_cpu(READ_ONCE(r->packed.desc[at & ~PACKED_WRAP].id));
		if (id >= r->vq.num || !r->buffers[id].data)
			return true;
		covered += r->buffers[id].ndescs;
		at = packed_advance(r, at, r->buffers[id].ndescs);
	}
	return true;
}

/*
 * With EVENT_IDX, ask for the interrupt only once the device has written
 * used descriptors over more than @mark places past last_used (less than a
 * ring); without, this is restart.
 */
static bool packed_restart_at(struct virtio4_queue *vq, unsigned int mark)
{
	struct ring *r = to_ring(vq);

	if (!r->event_idx)
		return packed_restart(vq);
	r->delayed = true;
	r->mark = mark;
	WRITE_ONCE(r->callbacks, true);
	packed_enable(r, packed_advance(r, r->packed.last_used, mark));
	/* Publish the mark before checking whether the device passed it. */
	virt_mb();
	if (unlikely(ring_packed_used_past(r, mark) && !READ_ONCE(vq->broken))) {
		packed_disable_callbacks(r);
		return false;
	}
	return true;
}

/* Once three quarters of the places in flight are used. */
static bool packed_restart_delayed(struct virtio4_queue *vq)
{
	return packed_restart_at(vq, (vq->num - vq->num_free) * 3 / 4);
}

/*
 * Once @n more buffers are used (1..num), in flight or not yet added: as
 * places, each buffer as long as those in flight on average, rounded down
 * (one place at least, and when none is in flight), at most a ring.
 */
static bool packed_restart_after(struct virtio4_queue *vq, unsigned int n)
{
	struct ring *r = to_ring(vq);
	unsigned int places = 1;

	if (r->in_flight)
		places = max((vq->num - vq->num_free) / r->in_flight, 1U);
	return packed_restart_at(vq, min(clamp(n, 1U, vq->num) * places, vq->num) - 1);
}

const struct virtio4_queue_ops ring_packed_ops = {
	.add_buf = packed_add_buf,
	.sync = packed_sync,
	.get_buf = packed_get_buf,
	.detach_buf = ring_detach_buf,
	.disable = packed_disable,
	.restart = packed_restart,
	.restart_delayed = packed_restart_delayed,
	.restart_after = packed_restart_after,
	.callback_due = ring_callback_due,
	.detach_unused = ring_detach_unused,
};

/**
 * ring_packed_size - the bytes of shared memory a packed ring takes
 * @num: its number of descriptors.
 *
 * Return: the size of the descriptor ring and the two event areas after it.
 */
size_t ring_packed_size(unsigned int num)
{
	return sizeof(struct ring_packed_desc) * num +
	       2 * sizeof(struct ring_packed_event);
}

/**
 * ring_packed_init - lay out a packed ring in its zeroed shared memory
 * @r: the ring, whose @mem holds ring_packed_size(@num) bytes.
 * @num: its number of descriptors.
 *
 * Both wrap counters start at 1, so that the zeroed descriptors are
 * neither available nor used. With EVENT_IDX the driver asks for an
 * interrupt at the first used descriptor; without, at every one.
 */
void ring_packed_init(struct ring *r, unsigned int num)
{
	struct ring_packed *p = &r->packed;

	p->desc = r->mem;
	p->driver = r->mem + sizeof(struct ring_packed_desc) * num;
	p->device = p->driver + 1;
	p->avail_bits = PACKED_AVAIL;
	p->last_used = PACKED_WRAP;
	p->event_flags = VRING_PACKED_EVENT_FLAG_ENABLE;
	if (r->event_idx) {
		p->event_flags = VRING_PACKED_EVENT_FLAG_DESC;
		p->driver->off_wrap = cpu_to_le16(PACKED_WRAP);
		p->driver->flags = cpu_to_le16(p->event_flags);
	}
}

/**
 * ring_packed_layout - where the device finds a packed ring
 * @r: the ring.
 * @layout: filled with the bus addresses of its descriptor ring, the
 *	driver's event area and the device's.
 */
void ring_packed_layout(struct ring *r, struct virtio4_ring_layout *layout)
{
	layout->desc = r->mem_dma;
	layout->avail = r->mem_dma + ((void *)r->packed.driver - r->mem);
	layout->used = r->mem_dma + ((void *)r->packed.device - r->mem);
}

/**
 * ring_packed_debugfs_show - a packed ring's places and event areas, for debugfs
 * @r: the ring.
 * @m: the debugfs file.
 */
void ring_packed_debugfs_show(struct ring *r, struct seq_file *m)
{
	struct ring_packed *p = &r->packed;
	u16 last = READ_ONCE(p->last_used), place = last & ~PACKED_WRAP;

	seq_printf(m, "layout packed\nnext_avail %u\navail_wrap %d\n",
		   READ_ONCE(p->next_avail), !!(READ_ONCE(p->avail_bits) & PACKED_AVAIL));
	seq_printf(m, "last_used %u\nused_wrap %d\nlast_used_flags %#x\n",
		   place, !!(last & PACKED_WRAP),
		   le16_to_cpu(READ_ONCE(p->desc[place].flags)));
	seq_printf(m, "driver_event %#x %#x\ndevice_event %#x %#x\n",
		   le16_to_cpu(READ_ONCE(p->driver->off_wrap)),
		   le16_to_cpu(READ_ONCE(p->driver->flags)),
		   le16_to_cpu(READ_ONCE(p->device->off_wrap)),
		   le16_to_cpu(READ_ONCE(p->device->flags)));
}
