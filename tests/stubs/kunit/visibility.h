/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for our ring.c (tests/bench/ring, tests/fuzz). */
#define EXPORT_SYMBOL_IF_KUNIT(s)
