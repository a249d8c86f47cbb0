/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for the ring cost benchmark. */
#define EXPORT_SYMBOL_IF_KUNIT(s)
