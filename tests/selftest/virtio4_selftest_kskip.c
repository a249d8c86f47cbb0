// SPDX-License-Identifier: GPL-2.0
/* The self-test's KUnit suite, with its case skipping: see virtio4_selftest_kfail.c. */
#define SELFTEST_SKIP
#include "virtio4_selftest_kfail.c"
