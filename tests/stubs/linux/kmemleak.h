/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub (tests/fuzz, tests/bench/ring): no kmemleak there. */
#ifndef _STUB_KMEMLEAK_H
#define _STUB_KMEMLEAK_H
static inline void kmemleak_not_leak(const void *ptr)
{
}
#endif
