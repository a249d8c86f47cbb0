/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring cost benchmark: one interface over the two rings, each built in
 * userspace in its own file (their stub headers do not mix). The device
 * side is shared: both lay out virtio 1.x split or packed rings.
 */
#ifndef RING_COST_H
#define RING_COST_H

#include <stdbool.h>

/*
 * Where the ring's parts are, for the simulated device (packed: the ring and
 * the driver's and device's event areas).
 */
struct ring_mem {
	void *desc, *avail, *used;
};

/* What both sides negotiate beside event index (VIRTIO_RING_F_EVENT_IDX). */
struct ring_features {
	bool packed;	/* VIRTIO_F_RING_PACKED */
	bool indirect;	/* VIRTIO_RING_F_INDIRECT_DESC, every chain put in a table */
	bool dma;	/* VIRTIO_F_ACCESS_PLATFORM: buffers go through the DMA API */
};

struct ring_impl {
	const char *name;
	/* A queue of @num descriptors with a callback; fills @mem. */
	void *(*create)(unsigned int num, const struct ring_features *f, struct ring_mem *mem);
	/*
	 * Add a buffer of @out elements the device reads, then @in it writes:
	 * element i is @buf[i], @len[i] bytes. Each side calls the API its own
	 * drivers use for that shape.
	 */
	int (*add)(void *q, void *const *buf, const unsigned int *len, unsigned int out,
		   unsigned int in, void *token);
	void (*kick)(void *q);
	void *(*get)(void *q, unsigned int *len);
	unsigned long *kicks;
};

/* The most elements a buffer has in this benchmark. */
#define RING_COST_MAX_SG	3

extern const struct ring_impl ring_linux, ring_ours;

#endif
