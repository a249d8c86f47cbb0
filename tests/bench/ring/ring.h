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

struct ring_impl {
	const char *name;
	/* A queue of @num descriptors with event index, packed or split; fills @mem. */
	void *(*create)(unsigned int num, bool packed, struct ring_mem *mem);
	/* Add a buffer: @out bytes the device reads, @in bytes it writes. */
	int (*add)(void *q, void *out, unsigned int out_len, void *in,
		   unsigned int in_len, void *token);
	void (*kick)(void *q);
	void *(*get)(void *q, unsigned int *len);
	unsigned long *kicks;
};

extern const struct ring_impl ring_linux, ring_ours;

#endif
