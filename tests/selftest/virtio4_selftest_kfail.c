// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only KUnit suite for the harness self-test (not named *_kunit, so the
 * kunit test does not load it): its one case fails, or skips when built as
 * virtio4_selftest_kskip (SELFTEST_SKIP), and the module loads fine either
 * way, so that only the runner's reading of the KTAP can fail the test. (A
 * module parameter cannot choose: KUnit runs a module's suites before its
 * parameters are parsed.)
 */
#include <kunit/test.h>
#include <linux/module.h>

static void selftest_case(struct kunit *test)
{
#ifdef SELFTEST_SKIP
	kunit_skip(test, "deliberately skipped");
#endif
	KUNIT_FAIL(test, "deliberately failed");
}

static struct kunit_case selftest_cases[] = {
	KUNIT_CASE(selftest_case),
	{}
};

static struct kunit_suite selftest_suite = {
	.name = "virtio4-selftest",
	.test_cases = selftest_cases,
};

kunit_test_suite(selftest_suite);

MODULE_DESCRIPTION("virtio4 harness self-test: a KUnit case that fails (or skips)");
MODULE_LICENSE("GPL");
