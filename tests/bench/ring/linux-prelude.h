/* SPDX-License-Identifier: GPL-2.0 */
/* Included first into Linux's virtio_ring.c: what the tools/virtio stubs of 6.1 lack. */
#define data_race(expr) (expr)
/* 64-bit physical addresses: virtio_ring.c allocates the packed ring itself (vring_alloc_queue). */
#define CONFIG_PHYS_ADDR_T_64BIT 1
