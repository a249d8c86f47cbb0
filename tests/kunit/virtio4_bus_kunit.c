// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the virtio4 bus's defences against a device that lies in
 * its configuration space: the test plays a transport whose configuration
 * generation changes on every read.
 */
#include <kunit/test.h>
#include <virtio4/bus.h>

struct bt {
	struct virtio4_device vdev;
	struct virtio4_config_ops ops;
	unsigned int reads;
	u32 generation;
	bool settles;
};

static struct bt *to_bt(struct virtio4_device *vdev)
{
	return container_of(vdev, struct bt, vdev);
}

static void bt_get(struct virtio4_device *vdev, unsigned int offset,
		   void *buf, unsigned int len)
{
	struct bt *bt = to_bt(vdev);

	bt->reads++;
	memset(buf, bt->reads & 0xff, len);
}

/* Changes on every call unless the device settles. */
static u32 bt_generation(struct virtio4_device *vdev)
{
	struct bt *bt = to_bt(vdev);

	return bt->settles ? bt->generation : bt->generation++;
}

static int bt_init(struct kunit *test)
{
	struct bt *bt = kunit_kzalloc(test, sizeof(*bt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bt);
	bt->ops.get = bt_get;
	bt->ops.generation = bt_generation;
	bt->vdev.config = &bt->ops;
	bt->vdev.dev.init_name = "virtio4-kunit-bus";	/* for the log line */
	test->priv = bt;
	return 0;
}

/* A generation that never settles cannot hold the reader forever. */
static void generation_never_settling_is_bounded(struct kunit *test)
{
	struct bt *bt = test->priv;

	virtio4_cread32(&bt->vdev, 0);
	KUNIT_EXPECT_EQ(test, bt->reads, VIRTIO4_CONFIG_TRIES);
	virtio4_cread64(&bt->vdev, 8);
	KUNIT_EXPECT_EQ(test, bt->reads, 2 * VIRTIO4_CONFIG_TRIES);
}

/* A settled generation: one read, its value returned. */
static void settled_generation_reads_once(struct kunit *test)
{
	struct bt *bt = test->priv;

	bt->settles = true;
	KUNIT_EXPECT_EQ(test, virtio4_cread16(&bt->vdev, 0), 0x0101);
	KUNIT_EXPECT_EQ(test, bt->reads, 1U);
}

static struct kunit_case virtio4_bus_cases[] = {
	KUNIT_CASE(generation_never_settling_is_bounded),
	KUNIT_CASE(settled_generation_reads_once),
	{}
};

static struct kunit_suite virtio4_bus_suite = {
	.name = "virtio4-bus",
	.init = bt_init,
	.test_cases = virtio4_bus_cases,
};

kunit_test_suite(virtio4_bus_suite);

MODULE_DESCRIPTION("KUnit tests for the virtio4 bus");
MODULE_LICENSE("GPL");
