// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite that checks the harness counts KUnit results, using the
 * scatterlist facts the draft-IV buffer model relies on: out elements are
 * followed by in elements in one sg array, each keeping its own length.
 */
#include <kunit/test.h>
#include <linux/scatterlist.h>

static void sg_keeps_out_then_in_lengths(struct kunit *test)
{
	struct scatterlist sg[3];
	u8 *buf = kunit_kzalloc(test, 16 + 512 + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	sg_init_table(sg, ARRAY_SIZE(sg));
	sg_set_buf(&sg[0], buf, 16);
	sg_set_buf(&sg[1], buf + 16, 512);
	sg_set_buf(&sg[2], buf + 16 + 512, 1);

	KUNIT_EXPECT_EQ(test, sg[0].length, 16U);
	KUNIT_EXPECT_EQ(test, sg[1].length, 512U);
	KUNIT_EXPECT_EQ(test, sg[2].length, 1U);
	KUNIT_EXPECT_PTR_EQ(test, sg_virt(&sg[2]), (void *)(buf + 16 + 512));
}

static void sg_table_ends_at_last_entry(struct kunit *test)
{
	struct scatterlist sg[4];

	sg_init_table(sg, ARRAY_SIZE(sg));
	KUNIT_EXPECT_TRUE(test, sg_is_last(&sg[3]));
	KUNIT_EXPECT_FALSE(test, sg_is_last(&sg[0]));
	KUNIT_EXPECT_EQ(test, sg_nents(sg), 4);
}

static struct kunit_case virtio4_harness_cases[] = {
	KUNIT_CASE(sg_keeps_out_then_in_lengths),
	KUNIT_CASE(sg_table_ends_at_last_entry),
	{}
};

static struct kunit_suite virtio4_harness_suite = {
	.name = "virtio4-harness",
	.test_cases = virtio4_harness_cases,
};

kunit_test_suite(virtio4_harness_suite);

MODULE_DESCRIPTION("virtio4 harness: a KUnit suite the runner must count");
MODULE_LICENSE("GPL");
