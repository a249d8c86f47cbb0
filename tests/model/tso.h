/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included first (after tests/stubs/prelude.h) into our ring.c when it is
 * built for the memory-order model (tests/model/ring_order.c): the ring's
 * marked accesses and barriers go through a model of x86's order (TSO)
 * instead of the hardware's, so that a test can run a device between a load
 * and a store that the hardware may reorder.
 *
 * WRITE_ONCE to the shared rings waits in a store buffer, in order, until a
 * full barrier drains it; READ_ONCE sees the CPU's own buffered stores, and
 * memory otherwise. Write and read barriers cost nothing on x86 (stores stay
 * in order, and so do loads). Plain stores (descriptors, ring entries) go
 * straight to memory: the model is about a load passing an earlier store,
 * the one reordering x86 does.
 */
#ifndef _MODEL_TSO_H
#define _MODEL_TSO_H
#include <asm/barrier.h>
#include <linux/compiler.h>

void tso_store(volatile void *p, unsigned int size, unsigned long long v);
unsigned long long tso_load(const volatile void *p, unsigned int size);
void tso_mb(void);

#undef WRITE_ONCE
#define WRITE_ONCE(var, val) \
	tso_store(&(var), sizeof(var), (unsigned long long)(val))
#undef READ_ONCE
#define READ_ONCE(var) ((typeof(var))tso_load(&(var), sizeof(var)))
#undef virt_mb
#define virt_mb() tso_mb() /* barrier: drains the model's store buffer */
#undef virt_wmb
#define virt_wmb() barrier() /* barrier: x86 keeps stores in order */
#undef virt_rmb
#define virt_rmb() barrier() /* barrier: x86 keeps loads in order */
#undef virt_store_mb
#define virt_store_mb(var, val) do { WRITE_ONCE(var, val); tso_mb(); } while (0) /* barrier */
#endif
