/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for our ring.c (tests/bench/ring, tests/fuzz): see debugfs.h. */
#include <linux/debugfs.h>
