// SPDX-License-Identifier: GPL-2.0
/*
 * The ring cost benchmark: the same producer/consumer loop over Linux's
 * virtio_ring.c and our ring.c, both built in userspace, for callgrind to
 * count the instructions each ring spends per buffer (add, kick decision,
 * get). A simulated device in this file uses every buffer in order and
 * asks for a kick per batch (event index), as a real one would.
 *
 * Usage: ring-cost linux|ours [ITERATIONS]
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
	unsigned long it, iterations = 20000, buffers = 0;
	struct ring_mem mem;
	unsigned int b, len;
	void *q;

	if (argc < 2 || (strcmp(argv[1], "linux") && strcmp(argv[1], "ours"))) {
		fprintf(stderr, "usage: ring-cost linux|ours [ITERATIONS]\n");
		return 2;
	}
	impl = strcmp(argv[1], "linux") ? &ring_ours : &ring_linux;
	if (argc > 2)
		iterations = strtoul(argv[2], NULL, 0);
	q = impl->create(NUM, &mem);
	if (!q) {
		fprintf(stderr, "ring-cost: cannot create the %s ring\n", impl->name);
		return 1;
	}
	d.avail = mem.avail;
	d.used = mem.used;
	for (it = 0; it < iterations; it++) {
		for (b = 0; b < BATCH; b++)
			if (impl->add(q, out[b], OUT, in[b], IN, &out[b])) {
				fprintf(stderr, "ring-cost: add failed\n");
				return 1;
			}
		impl->kick(q);
		device_process(&d);
		for (b = 0; b < BATCH; b++) {
			if (impl->get(q, &len) != &out[b] || len != IN) {
				fprintf(stderr, "ring-cost: wrong buffer back\n");
				return 1;
			}
			buffers++;
		}
	}
	printf("%s: %lu buffers, %lu kicks\n", impl->name, buffers, *impl->kicks);
	return 0;
}
