/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two ring layouts share inside virtio4_ring.ko: the ring's state,
 * the driver-private record of every buffer, DMA mapping and the detach of
 * a used buffer. ring.c holds the split layout and the entry points that
 * transports call; packed.c the packed layout (VIRTIO_F_RING_PACKED).
 *
 * Both keep what they need to free a buffer in driver memory: @shadow,
 * entries chained through @shadow[i].next from a buffer's head to its last;
 * free entries form a list from @free_head. An entry's address, length and
 * flags are read only to undo a DMA mapping (use_dma): a chain's elements
 * write them only then (a buffer with an indirect table records its table
 * in its head's entry always). In the split layout an entry is a
 * descriptor, its index the descriptor's in the table, and a chain takes
 * one per element. In the packed one an entry's index is only a name (the
 * buffer id the device hands back), the place in the ring counted apart: a
 * chain takes one entry per element with use_dma, to record each mapping,
 * and one in all without.
 */
#ifndef _VIRTIO4_RING_COMMON_H
#define _VIRTIO4_RING_COMMON_H

#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>
#include "layout.h"

/*
 * A shadow entry: the link to the buffer's next entry (or, free, to the next
 * free one) always; with use_dma, the address, length and flags of the
 * element it maps, to unmap it (only the flags' WRITE bit is read: a
 * chain's last entry may keep NEXT).
 */
struct ring_shadow {
	dma_addr_t addr;
	u32 len;
	u16 flags;		/* VRING_DESC_F_WRITE, _NEXT, _INDIRECT */
	u16 next;
};

/*
 * Indirect tables of up to RING_POOL_ENTRIES entries (a cache line) come
 * from a pool, one table per buffer id, when the device reads guest
 * physical addresses (no use_dma) and the ring has at most
 * RING_POOL_MAX_NUM entries: no allocation, no mapping per buffer. The
 * pool is allocated at the ring's first indirect table (most queues never
 * have one), once: if that fails, the ring goes on without. Larger tables,
 * and every table of a device behind the DMA API (mapped for the device to
 * read only, and unmapped from the addresses in it), are allocated per
 * buffer.
 */
#define RING_POOL_ENTRIES	4
#define RING_POOL_MAX_NUM	1024

/* One outstanding buffer, indexed by its id (its first shadow entry). */
struct ring_buffer {
	void *data;		/* the driver's token; NULL when not a head */
	u32 in_len;		/* bytes the device may write */
	/* Ring descriptors the buffer holds, and with use_dma its shadow entries. */
	u16 ndescs;
	u16 last;		/* its last shadow entry */
	void *indirect;		/* its indirect table, or NULL */
	unsigned int indirect_num;	/* entries in that table */
};

/**
 * struct ring_packed - the state of a packed ring (VIRTIO_F_RING_PACKED)
 * @desc: the descriptor ring, shared.
 * @driver: the driver's event suppression area (when to interrupt), shared.
 * @device: the device's event suppression area (when to kick), shared.
 * @next_avail: the ring place the next descriptor goes to.
 * @avail_bits: the AVAIL and USED flags of a descriptor made available at
 *	@next_avail: AVAIL alone in a lap whose wrap counter is 1, USED alone
 *	in one whose counter is 0.
 * @last_used: the ring place of the next used descriptor to read, and its
 *	wrap counter in bit 15 (read at once by the interrupt handler).
 * @event_flags: what the driver last wrote to @driver->flags.
 * @used_ahead: get_buf() found the descriptor at @last_used used already
 *	when it moved there.
 */
struct ring_packed {
	struct ring_packed_desc *desc;
	struct ring_packed_event *driver;
	struct ring_packed_event *device;
	u16 next_avail;
	u16 avail_bits;
	u16 last_used;
	u16 event_flags;
	bool used_ahead;
};

/**
 * struct ring_split - the state of a split ring
 * @desc: the descriptor table, shared.
 * @avail: the available ring, shared.
 * @used: the used ring, shared.
 * @avail_idx: the next available index, published by sync().
 * @last_used: the next used index to read.
 * @used_seen: the used index get_buf() last read: the entries from
 *	@last_used up to it are the device's, checked and not yet taken.
 * @avail_flags: what the driver last wrote to @avail->flags.
 */
struct ring_split {
	struct ring_desc *desc;
	struct ring_avail *avail;
	struct ring_used *used;
	u16 avail_idx;
	u16 last_used;
	u16 used_seen;
	u16 avail_flags;
};

struct ring {
	struct virtio4_queue vq;
	struct virtio4_device *vdev;
	struct device *dma_dev;
	virtio4_notify_t *notify;
	void *notify_data;

	/* Shared with the device: one block, laid out by the layout. */
	void *mem;
	dma_addr_t mem_dma;
	size_t mem_size;
	union {
		struct ring_split split;
		struct ring_packed packed;
	};

	/* Private. */
	struct ring_shadow *shadow;
	struct ring_buffer *buffers;
	void *pool;		/* per-id indirect tables, or NULL (see RING_POOL_ENTRIES) */
	bool pool_tried;	/* the pool's one allocation was attempted */
	bool is_packed;
	bool event_idx;
	bool indirect;
	bool use_dma;		/* VIRTIO_F_ACCESS_PLATFORM: addresses via the DMA API */
	bool callbacks;		/* the driver wants callbacks */
	bool delayed;		/* ... only at the mark restart_delayed or restart_after set */
	u16 mark;		/* callback once more than this are used past last_used */
	u16 free_head;
	u16 in_flight;		/* buffers the device holds */
	/*
	 * Split: buffers added since the last sync; packed: descriptors since
	 * the last kick, cut to a whole ring at each sync (32 bits: a driver
	 * adds fewer than 2^32 descriptors between two syncs, as the API asks
	 * a sync after adding).
	 */
	u32 num_added;
	u64 spurious;		/* interrupts with nothing used */
	u64 indirect_tables;	/* buffers added through an indirect table */
	u64 alloc_failures;	/* indirect tables that could not be allocated */
	struct virtio4_storm storm;	/* ... in a row */
	struct dentry *debugfs;
	char name[32];
};

#define to_ring(_vq) container_of(_vq, struct ring, vq)

extern const struct virtio4_queue_ops ring_packed_ops;
extern bool ring_indirect_always;

__printf(2, 3) void ring_set_broken(struct ring *r, const char *fmt, ...);
void ring_kick(struct ring *r, unsigned int where);
int ring_detach_buf(struct virtio4_queue *vq, void *data);
void *ring_detach_unused(struct virtio4_queue *vq);
void *ring_indirect_alloc_slow(struct ring *r, u16 id, unsigned int total);

size_t ring_packed_size(unsigned int num);
void ring_packed_init(struct ring *r, unsigned int num);
bool ring_packed_more_used(struct ring *r);
bool ring_packed_used_past(struct ring *r, unsigned int mark);
bool ring_callback_due(struct virtio4_queue *vq);
void ring_packed_layout(struct ring *r, struct virtio4_ring_layout *layout);
void ring_packed_debugfs_show(struct ring *r, struct seq_file *m);

enum { RING_ADD_DIRECT, RING_ADD_INDIRECT };

/*
 * How add_buf() adds a buffer of @out_num out and @in_num in elements, in
 * either layout: RING_ADD_DIRECT (a chain of ring descriptors),
 * RING_ADD_INDIRECT (one descriptor and a table), or the error it returns.
 * Counted in 64 bits, so that no sum wraps; when it returns no error, the
 * total fits an unsigned int.
 */
static inline int ring_add_how(struct ring *r, unsigned int out_num,
			       unsigned int in_num, const void *data)
{
	u64 total = (u64)out_num + in_num;

	if (unlikely(r->vq.broken))
		return -EIO;
	/* The common case first: the chain fits in the ring (0 - 1 does not). */
	if (likely(data && total - 1 < r->vq.num_free) &&
	    !(READ_ONCE(ring_indirect_always) && r->indirect && total > 1))
		return RING_ADD_DIRECT;
	if (!data || !total || total > UINT_MAX)
		return -EINVAL;
	if (!r->vq.num_free)
		return -ENOSPC;
	if (r->indirect && total > 1)
		return RING_ADD_INDIRECT;
	return total > r->vq.num ? -EINVAL : -ENOSPC;
}

/*
 * ring_add_how() of a one-element buffer, when it gives RING_ADD_DIRECT:
 * a token, a free descriptor, a queue not broken.
 */
static inline bool ring_one_fits(struct ring *r, const void *data)
{
	return likely(data && r->vq.num_free && !r->vq.broken);
}

static inline enum dma_data_direction ring_dir(u16 flags)
{
	return (flags & VRING_DESC_F_WRITE) ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/*
 * A device without VIRTIO_F_ACCESS_PLATFORM uses guest physical addresses,
 * bypassing any IOMMU (virtio 1.x, 6.1): no DMA API then, and nothing to
 * unmap. With it (@dma: r->use_dma, or a constant where the caller has
 * tested it), every element is mapped through @dma_dev.
 */
static __always_inline int ring_map_elem(struct ring *r, struct scatterlist *s,
					 u16 flags, dma_addr_t *addr, bool dma)
{
	if (!dma) {
		*addr = sg_phys(s);
		return 0;
	}
	*addr = dma_map_page(r->dma_dev, sg_page(s), s->offset, s->length,
			     ring_dir(flags));
	return dma_mapping_error(r->dma_dev, *addr) ? -ENOMEM : 0;
}

/* Record a mapping to undo (use_dma) in shadow entry @i. */
static inline void ring_shadow_record(struct ring_shadow *shadow, u16 i,
				      dma_addr_t addr, u32 len, u16 flags)
{
	shadow[i].addr = addr;
	shadow[i].len = len;
	shadow[i].flags = flags;
}

/*
 * Map chain element @s (@flags: WRITE for an in element) into *@addr; with
 * @dma (r->use_dma, a constant at each call), through the DMA API, and
 * recorded in shadow entry @id to undo.
 */
static __always_inline int ring_map_recorded(struct ring *r, struct ring_shadow *shadow,
					     struct scatterlist *s, u16 id, u16 flags,
					     dma_addr_t *addr, bool dma)
{
	if (unlikely(ring_map_elem(r, s, flags, addr, dma)))
		return -ENOMEM;
	if (dma)
		ring_shadow_record(shadow, id, *addr, s->length, flags);
	return 0;
}

/*
 * What adding a one-element buffer @data (@s, of @len bytes, device-writable
 * if @flags has VRING_DESC_F_WRITE) does in either layout, but for its descriptor: map
 * the element into *@addr, take the free entry at the head of the list (the
 * buffer's id) and record the buffer. Returns that id, or -ENOMEM with
 * nothing taken if the element does not map.
 */
static __always_inline int ring_take_one(struct ring *r, struct scatterlist *s,
					 u32 len, u16 flags, void *data,
					 dma_addr_t *addr)
{
	u16 head = r->free_head;
	struct ring_buffer *b = &r->buffers[head];

	/* ring_map_recorded()'s two steps; through it this path costs 2 more instructions. */
	if (unlikely(ring_map_elem(r, s, flags, addr, r->use_dma)))
		return -ENOMEM;
	if (r->use_dma)
		ring_shadow_record(r->shadow, head, *addr, len, flags);
	r->free_head = r->shadow[head].next;
	r->vq.num_free--;
	b->data = data;
	b->in_len = (flags & VRING_DESC_F_WRITE) ? len : 0;
	b->ndescs = 1;
	b->last = head;
	return head;
}

static inline void ring_unmap(struct ring *r, dma_addr_t addr, u32 len, u16 flags)
{
	if (r->use_dma)
		dma_unmap_page(r->dma_dev, addr, len, ring_dir(flags));
}

/* Unmap the @n elements of the shadow chain from entry @i (a buffer's, or one being built). */
static inline void ring_unmap_chain(struct ring *r, u16 i, unsigned int n)
{
	for (; n--; i = r->shadow[i].next)
		ring_unmap(r, r->shadow[i].addr, r->shadow[i].len, r->shadow[i].flags);
}

/*
 * Unmap the first @n elements of an indirect @table, written in the ring's
 * layout by its add (the device only reads it).
 */
static inline void ring_unmap_indirect(struct ring *r, const void *table, unsigned int n)
{
	unsigned int i;

	for (i = 0; r->use_dma && i < n; i++) {
		if (r->is_packed) {
			const struct ring_packed_desc *d = table;

			ring_unmap(r, le64_to_cpu(d[i].addr), le32_to_cpu(d[i].len),
				   le16_to_cpu(d[i].flags));
		} else {
			const struct ring_desc *d = table;

			ring_unmap(r, le64_to_cpu(d[i].addr), le32_to_cpu(d[i].len),
				   le16_to_cpu(d[i].flags));
		}
	}
}

/* Does a table of @total entries come from the pool? */
static inline bool ring_pooled(const struct ring *r, unsigned int total)
{
	return r->pool && total <= RING_POOL_ENTRIES;
}

/* Buffer id @id's table in the pool. */
static inline void *ring_pool_table(struct ring *r, u16 id)
{
	return r->pool + (size_t)id * RING_POOL_ENTRIES * sizeof(struct ring_desc);
}

/*
 * An indirect table of @total entries for buffer id @id, for its layout's
 * add to fill: from the pool if it fits there, else allocated (out of
 * line); NULL if memory is short (counted).
 */
static inline void *ring_indirect_alloc(struct ring *r, u16 id, unsigned int total)
{
	if (ring_pooled(r, total))
		return ring_pool_table(r, id);
	return ring_indirect_alloc_slow(r, id, total);
}

/* Give back a table of @total entries from ring_indirect_alloc(). */
static inline void ring_indirect_free(struct ring *r, void *table, unsigned int total)
{
	if (!ring_pooled(r, total))
		kfree(table);
}

/* Map an indirect table of @size bytes for the device to read. */
static inline int ring_map_table(struct ring *r, void *table, size_t size,
				 dma_addr_t *addr)
{
	if (!r->use_dma) {
		*addr = virt_to_phys(table);
		return 0;
	}
	*addr = dma_map_single(r->dma_dev, table, size, DMA_TO_DEVICE);
	return dma_mapping_error(r->dma_dev, *addr) ? -ENOMEM : 0;
}

/*
 * Entry @i of an indirect @table in the ring's layout (@packed, a constant
 * at each call): split entries chain by index, with NEXT in @flags; packed
 * ones are in order and take only WRITE.
 */
static __always_inline void ring_table_desc(void *table, unsigned int i,
					    dma_addr_t addr, u32 len, u16 flags,
					    bool packed)
{
	if (packed) {
		struct ring_packed_desc *d = (struct ring_packed_desc *)table + i;

		d->addr = cpu_to_le64(addr);
		d->len = cpu_to_le32(len);
		d->id = 0;
		d->flags = cpu_to_le16(flags & VRING_DESC_F_WRITE);
	} else {
		struct ring_desc *d = (struct ring_desc *)table + i;

		d->addr = cpu_to_le64(addr);
		d->len = cpu_to_le32(len);
		d->flags = cpu_to_le16(flags);
		d->next = cpu_to_le16(i + 1);
	}
}

/*
 * ring_fill_indirect() with @dma (r->use_dma) a constant: the out
 * elements, then the in ones, each loop with its own flags (split: NEXT on
 * every entry, the last one's cleared after; packed entries keep only
 * WRITE).
 */
static __always_inline int ring_fill_table(struct ring *r, void *table,
					   struct scatterlist *sg,
					   unsigned int out_num,
					   unsigned int total, u32 *in_len,
					   bool packed, bool dma)
{
	struct scatterlist *s = sg;
	dma_addr_t addr;
	unsigned int i;
	u64 in = 0;
	int err = -ENOMEM;

	for (i = 0; i < out_num; i++, s = sg_next(s)) {
		if (unlikely(ring_map_elem(r, s, 0, &addr, dma)))
			goto err_unmap;
		ring_table_desc(table, i, addr, s->length, VRING_DESC_F_NEXT, packed);
	}
	for (; i < total; i++, s = sg_next(s)) {
		in += s->length;
		if (unlikely(ring_map_elem(r, s, VRING_DESC_F_WRITE, &addr, dma)))
			goto err_unmap;
		ring_table_desc(table, i, addr, s->length,
				VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, packed);
	}
	if (unlikely(in > U32_MAX)) {
		err = -EINVAL;
		goto err_unmap;
	}
	if (!packed)
		((struct ring_desc *)table)[total - 1].flags &= cpu_to_le16(~VRING_DESC_F_NEXT);
	*in_len = in;
	return 0;

err_unmap:
	ring_unmap_indirect(r, table, i);
	return err;
}

/*
 * Map the @total elements of @sg into the indirect @table, in one pass, in
 * the ring's layout (@packed: a constant at each call, so each layout's
 * add gets its own loops); their in bytes in *@in_len. The table keeps the
 * addresses to unmap: it is driver memory the device only reads. On
 * failure nothing stays mapped.
 */
static __always_inline int ring_fill_indirect(struct ring *r, void *table,
					      struct scatterlist *sg,
					      unsigned int out_num,
					      unsigned int total, u32 *in_len,
					      bool packed)
{
	if (r->use_dma)
		return ring_fill_table(r, table, sg, out_num, total, in_len, packed, true);
	return ring_fill_table(r, table, sg, out_num, total, in_len, packed, false);
}

/*
 * Buffer @data (@in_len bytes of room) takes the free entry at the head of
 * the list as one descriptor of @size bytes: its indirect @table of @total
 * entries, at @table_dma for the device.
 */
static inline void ring_record_indirect(struct ring *r, void *data, u32 in_len,
					void *table, unsigned int total,
					dma_addr_t table_dma, u32 size)
{
	u16 head = r->free_head;

	r->shadow[head].addr = table_dma;
	r->shadow[head].len = size;
	r->shadow[head].flags = VRING_DESC_F_INDIRECT;
	r->free_head = r->shadow[head].next;
	r->vq.num_free--;
	r->buffers[head] = (struct ring_buffer) {
		.data = data, .in_len = in_len, .ndescs = 1, .last = head,
		.indirect = table, .indirect_num = total,
	};
	r->indirect_tables++;
}

void *ring_used_bad(struct ring *r, u32 id, u32 len);

/*
 * May the driver take the used entry the device wrote: id @id in flight,
 * @len bytes within its buffer's room? If not, ring_used_bad() breaks the
 * queue.
 */
static inline bool ring_used_ok(struct ring *r, u32 id, u32 len)
{
	return likely(id < r->vq.num && r->buffers[id].data &&
		      len <= r->buffers[id].in_len);
}

/* Unmap and free a detached buffer's indirect table (@b has one). */
static inline void ring_free_indirect(struct ring *r, struct ring_buffer *b)
{
	ring_unmap_indirect(r, b->indirect, b->indirect_num);
	ring_indirect_free(r, b->indirect, b->indirect_num);
	b->indirect = NULL;
}

/*
 * Give back buffer @head's descriptors: undo the mappings the shadow
 * records (a chain's, or its indirect table's own, the table itself left
 * to ring_free_indirect()) and return its entries to the free list.
 */
static __always_inline void ring_detach_chain(struct ring *r, u16 head)
{
	struct ring_buffer *b = &r->buffers[head];

	if (r->use_dma)
		ring_unmap_chain(r, head, b->ndescs);
	r->vq.num_free += b->ndescs;
	r->in_flight--;
	r->shadow[b->last].next = r->free_head;
	r->free_head = head;
	b->data = NULL;
}

/*
 * Give buffer @head's descriptors back: unmap its elements (from the
 * shadow, or from its indirect table, which the ring wrote in its layout's
 * format and the device only reads), free its table and return its
 * entries to the free list.
 */
static inline void ring_detach(struct ring *r, u16 head)
{
	ring_detach_chain(r, head);
	if (unlikely(r->buffers[head].indirect))
		ring_free_indirect(r, &r->buffers[head]);
}

#endif /* _VIRTIO4_RING_COMMON_H */
