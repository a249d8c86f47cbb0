// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for the harness self-test: it raises a WARN when loaded,
 * which the runner must report as a failure.
 */
#include <linux/module.h>

static int __init virtio4_selftest_warn_init(void)
{
	WARN(1, "virtio4 harness self-test: deliberate warning\n");
	return 0;
}

static void __exit virtio4_selftest_warn_exit(void)
{
}

module_init(virtio4_selftest_warn_init);
module_exit(virtio4_selftest_warn_exit);
MODULE_DESCRIPTION("virtio4 harness self-test: raises a WARN on load");
MODULE_LICENSE("GPL");
