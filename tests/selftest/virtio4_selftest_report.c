// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for the harness self-test: on load it provokes the kernel
 * report its "what" parameter names, and loads fine, so that only the
 * runner's reading of the console can fail the test:
 *   lockdep  two locks taken in both orders (a possible deadlock, never a real one)
 *   kasan    a read one byte past a kmalloc'ed object
 *   leak     eight kmalloc'ed objects whose pointers are dropped (kmemleak reports them
 *            once the test asks for a scan)
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

static char *what = "lockdep";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "the report to provoke: lockdep, kasan or leak");

static DEFINE_MUTEX(selftest_a);
static DEFINE_MUTEX(selftest_b);

static void selftest_lock_order(void)
{
	mutex_lock(&selftest_a);
	mutex_lock(&selftest_b);
	mutex_unlock(&selftest_b);
	mutex_unlock(&selftest_a);
	/* The other order: lockdep sees a cycle, though no two threads race here. */
	mutex_lock(&selftest_b);
	mutex_lock(&selftest_a);
	mutex_unlock(&selftest_a);
	mutex_unlock(&selftest_b);
}

static noinline void selftest_out_of_bounds(void)
{
	char *p = kmalloc(8, GFP_KERNEL);
	/* Hidden from the compiler, so that the read is not folded away. */
	size_t i = 8;

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(i);
	pr_info("virtio4 self-test: reading byte %zu of 8: %d\n", i, READ_ONCE(p[i]));
	kfree(p);
}

/*
 * One object of 64 bytes whose pointer is forgotten at once; false if none.
 * Zeroed: kmalloc() leaves SLUB's free pointer inside a new object, so eight
 * objects taken one after the other from a slab's free list pointed each to
 * the next, and one stale pointer to the first hid all eight (make check,
 * 2026-12-05).
 */
static noinline bool selftest_leak_one(void)
{
	return kzalloc(64, GFP_KERNEL);
}

/*
 * Several objects: a stale copy of a pointer (in a register saved on a stack
 * that kmemleak scans, such as a freed task's cached stack) hides the object
 * it points to, and once hid the only one (make check, 2026-12-05).
 */
static void selftest_leak(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < 8; i++)
		n += selftest_leak_one();
	pr_info("virtio4 self-test: leaked %u objects of 64 bytes\n", n);
}

static int __init virtio4_selftest_report_init(void)
{
	if (!strcmp(what, "lockdep"))
		selftest_lock_order();
	else if (!strcmp(what, "kasan"))
		selftest_out_of_bounds();
	else if (!strcmp(what, "leak"))
		selftest_leak();
	else
		return -EINVAL;
	return 0;
}

static void __exit virtio4_selftest_report_exit(void)
{
}

module_init(virtio4_selftest_report_init);
module_exit(virtio4_selftest_report_exit);
MODULE_DESCRIPTION("virtio4 harness self-test: provokes a lockdep, KASAN or kmemleak report on load");
MODULE_LICENSE("GPL");
