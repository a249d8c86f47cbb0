/* SPDX-License-Identifier: GPL-2.0 */
/* Included first into Linux's virtio_ring.c: what the tools/virtio stubs of 6.1 lack. */
#define data_race(expr) (expr)
