// SPDX-License-Identifier: GPL-2.0
/*
 * The ring cost benchmark: the same producer/consumer loop over Linux's
 * virtio_ring.c and our ring.c, both built in userspace, for callgrind to
 * count the instructions each ring spends per buffer (add, kick decision,
 * get). A simulated device in this file uses every buffer in order and
 * asks for a kick per batch (event index), as a real one would, over the
 * split layout or, with "packed", the packed one. The buffers have one of
 * the shapes below (what a network receive, a block request puts on a ring).
 *
 * Usage: ring-cost linux|ours ITERATIONS SHAPE [packed]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/virtio_ring.h>
#include "ring.h"

#define NUM	256	/* descriptors */
#define BATCH	16	/* buffers per kick */
#define USED_LEN 64	/* what the device says it wrote into each buffer */

/* What one buffer is: @out elements the device reads, then @in it writes. */
static const struct shape {
	const char *name;
	unsigned int out, in, len[RING_COST_MAX_SG];
	bool indirect, dma;
} shapes[] = {
	/* A network receive buffer (virtio_net: one page-sized piece). */
	{ "rx", 0, 1, { 1536 } },
	/* The first benchmark's shape: a request and its reply. */
	{ "out+in", 1, 1, { 16, 64 } },
	/* A block read: the request header, one data segment, the status byte. */
	{ "blk", 1, 2, { 16, 4096, 1 } },
	/* The same in an indirect table (both rings put every chain in one). */
	{ "blk-indirect", 1, 2, { 16, 4096, 1 }, .indirect = true },
	/* The same mapped through the DMA API (VIRTIO_F_ACCESS_PLATFORM). */
	{ "blk-dma", 1, 2, { 16, 4096, 1 }, .dma = true },
};

struct device_side {
	struct vring_avail *avail;
	struct vring_used *used;
	unsigned short last_avail;
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define WRAP	(1 << VRING_PACKED_EVENT_F_WRAP_CTR)
#define AVAIL	(1 << VRING_PACKED_DESC_F_AVAIL)
#define USED	(1 << VRING_PACKED_DESC_F_USED)

/* The packed device: its cursors are places with the wrap counter in bit 15. */
struct packed_side {
	struct vring_packed_desc *desc;
	struct vring_packed_desc_event *device;
	unsigned short next, used;
};

static unsigned short packed_step(unsigned short at, unsigned int n)
{
	unsigned int place = (at & ~WRAP) + n;

	return place >= NUM ? (place - NUM) | ((at ^ WRAP) & WRAP) : place | (at & WRAP);
}

/* The device uses every available buffer in order, writing USED_LEN bytes to each. */
static void packed_process(struct packed_side *d)
{
	for (;;) {
		struct vring_packed_desc *h = &d->desc[d->next & ~WRAP];
		unsigned short flags = __atomic_load_n(&h->flags, __ATOMIC_ACQUIRE), n = 1;
		unsigned short wrap = !!(d->next & WRAP), id = h->id;
		struct vring_packed_desc *u;

		if (!!(flags & AVAIL) != wrap || !!(flags & USED) == wrap)
			break;
		while (flags & VRING_DESC_F_NEXT)
			flags = d->desc[packed_step(d->next, n++) & ~WRAP].flags;
		u = &d->desc[d->used & ~WRAP];
		u->id = id;
		u->len = USED_LEN;
		__atomic_store_n(&u->flags, d->used & WRAP ? AVAIL | USED : 0, __ATOMIC_RELEASE);
		d->used = packed_step(d->used, n);
		d->next = packed_step(d->next, n);
	}
	/* Event index: kick me when anything new is added. */
	d->device->off_wrap = d->next;
	d->device->flags = VRING_PACKED_EVENT_FLAG_DESC;
}

/* The device uses every available buffer, writing USED_LEN bytes to each. */
static void device_process(struct device_side *d)
{
	unsigned short idx = d->used->idx;

	while (d->last_avail != __atomic_load_n(&d->avail->idx, __ATOMIC_ACQUIRE)) {
		unsigned short head = d->avail->ring[d->last_avail % NUM];

		d->used->ring[idx % NUM].id = head;
		d->used->ring[idx % NUM].len = USED_LEN;
		idx++;
		d->last_avail++;
	}
	__atomic_store_n(&d->used->idx, idx, __ATOMIC_RELEASE);
	/* Event index: kick me when anything new is added. */
	*(unsigned short *)&d->used->ring[NUM] = d->last_avail;
}

static const struct shape *shape_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++)
		if (!strcmp(shapes[i].name, name))
			return &shapes[i];
	return NULL;
}

/* Buffers taken back from the device, each the one expected, with its length. */
static unsigned long buffers;

/* Adds a batch of buffers, kicks, lets the device use them and takes them back in order. */
static int one_batch(const struct ring_impl *impl, void *q, const struct shape *s,
		     bool packed, struct device_side *d, struct packed_side *p)
{
	static char data[BATCH][RING_COST_MAX_SG][4096];
	void *buf[RING_COST_MAX_SG];
	unsigned int b, i, len;

	for (b = 0; b < BATCH; b++) {
		for (i = 0; i < s->out + s->in; i++)
			buf[i] = data[b][i];
		if (impl->add(q, buf, s->len, s->out, s->in, data[b])) {
			fprintf(stderr, "ring-cost: add failed\n");
			return -1;
		}
	}
	impl->kick(q);
	if (packed)
		packed_process(p);
	else
		device_process(d);
	for (b = 0; b < BATCH; b++) {
		if (impl->get(q, &len) != data[b] || len != USED_LEN) {
			fprintf(stderr, "ring-cost: wrong buffer back\n");
			return -1;
		}
		buffers++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct packed_side p = { .next = WRAP, .used = WRAP };
	struct ring_features f = { 0 };
	const struct ring_impl *impl;
	unsigned long it, iterations;
	struct device_side d = { 0 };
	const struct shape *s;
	struct ring_mem mem;
	void *q;

	s = argc < 4 ? NULL : shape_named(argv[3]);
	if (!s || (strcmp(argv[1], "linux") && strcmp(argv[1], "ours"))) {
		fprintf(stderr, "usage: ring-cost linux|ours ITERATIONS SHAPE [packed]\n"
			"SHAPE: rx, out+in, blk, blk-indirect, blk-dma\n");
		return 2;
	}
	impl = strcmp(argv[1], "linux") ? &ring_ours : &ring_linux;
	iterations = strtoul(argv[2], NULL, 0);
	f.packed = argc > 4 && !strcmp(argv[4], "packed");
	f.indirect = s->indirect;
	f.dma = s->dma;
	q = impl->create(NUM, &f, &mem);
	if (!q) {
		fprintf(stderr, "ring-cost: cannot create the %s ring\n", impl->name);
		return 1;
	}
	d.avail = mem.avail;
	d.used = mem.used;
	p.desc = mem.desc;
	p.device = mem.used;
	for (it = 0; it < iterations; it++)
		if (one_batch(impl, q, s, f.packed, &d, &p))
			return 1;
	printf("%s %s%s: %lu buffers, %lu kicks\n", impl->name, s->name,
	       f.packed ? " packed" : "", buffers, *impl->kicks);
	return 0;
}
