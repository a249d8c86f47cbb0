/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for our ring.c (tests/bench/ring, tests/fuzz). */
#ifndef _STUB_WORKQUEUE_H
#define _STUB_WORKQUEUE_H
struct work_struct { void *func; };
#endif
