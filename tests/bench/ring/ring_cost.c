// SPDX-License-Identifier: GPL-2.0
/*
 * The ring cost benchmark: the same producer/consumer loop over Linux's
 * virtio_ring.c and our ring.c, both built in userspace, for callgrind to
 * count the instructions each ring spends per buffer (add, kick decision,
 * get). A simulated device in this file uses every buffer in order and
 * asks for a kick per batch (event index), as a real one would, over the
 * split layout or, with "packed", the packed one.
 *
 * Usage: ring-cost linux|ours [ITERATIONS] [packed]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/virtio_ring.h>
#include "ring.h"

#define NUM	256	/* descriptors */
#define BATCH	16	/* buffers per kick */
#define OUT	16
#define IN	64

struct device_side {
	struct vring_avail *avail;
	struct vring_used *used;
	unsigned short last_avail;
};

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

/* The device uses every available buffer in order, writing IN bytes to each. */
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
		u->len = IN;
		__atomic_store_n(&u->flags, d->used & WRAP ? AVAIL | USED : 0, __ATOMIC_RELEASE);
		d->used = packed_step(d->used, n);
		d->next = packed_step(d->next, n);
	}
	/* Event index: kick me when anything new is added. */
	d->device->off_wrap = d->next;
	d->device->flags = VRING_PACKED_EVENT_FLAG_DESC;
}

/* The device uses every available buffer, writing IN bytes to each. */
static void device_process(struct device_side *d)
{
	unsigned short idx = d->used->idx;

	while (d->last_avail != __atomic_load_n(&d->avail->idx, __ATOMIC_ACQUIRE)) {
		unsigned short head = d->avail->ring[d->last_avail % NUM];

		d->used->ring[idx % NUM].id = head;
		d->used->ring[idx % NUM].len = IN;
		idx++;
		d->last_avail++;
	}
	__atomic_store_n(&d->used->idx, idx, __ATOMIC_RELEASE);
	/* Event index: kick me when anything new is added. */
	*(unsigned short *)&d->used->ring[NUM] = d->last_avail;
}

int main(int argc, char **argv)
{
	static char out[BATCH][OUT], in[BATCH][IN];
	const struct ring_impl *impl;
	struct device_side d = { 0 };
	struct packed_side p = { .next = WRAP, .used = WRAP };
	unsigned long it, iterations = 20000, buffers = 0;
	bool packed;
	struct ring_mem mem;
	unsigned int b, len;
	void *q;

	if (argc < 2 || (strcmp(argv[1], "linux") && strcmp(argv[1], "ours"))) {
		fprintf(stderr, "usage: ring-cost linux|ours [ITERATIONS] [packed]\n");
		return 2;
	}
	impl = strcmp(argv[1], "linux") ? &ring_ours : &ring_linux;
	if (argc > 2)
		iterations = strtoul(argv[2], NULL, 0);
	packed = argc > 3 && !strcmp(argv[3], "packed");
	q = impl->create(NUM, packed, &mem);
	if (!q) {
		fprintf(stderr, "ring-cost: cannot create the %s ring\n", impl->name);
		return 1;
	}
	d.avail = mem.avail;
	d.used = mem.used;
	p.desc = mem.desc;
	p.device = mem.used;
	for (it = 0; it < iterations; it++) {
		for (b = 0; b < BATCH; b++)
			if (impl->add(q, out[b], OUT, in[b], IN, &out[b])) {
				fprintf(stderr, "ring-cost: add failed\n");
				return 1;
			}
		impl->kick(q);
		if (packed)
			packed_process(&p);
		else
			device_process(&d);
		for (b = 0; b < BATCH; b++) {
			if (impl->get(q, &len) != &out[b] || len != IN) {
				fprintf(stderr, "ring-cost: wrong buffer back\n");
				return 1;
			}
			buffers++;
		}
	}
	printf("%s%s: %lu buffers, %lu kicks\n", impl->name, packed ? " packed" : "", buffers,
	       *impl->kicks);
	return 0;
}
