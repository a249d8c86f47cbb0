/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for transport/copy.c (tests/fuzz): see tests/fuzz/copy-prelude.h. */
