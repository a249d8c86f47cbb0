// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the virtio4 bus's defences against a device that lies in
 * its configuration space: the test plays a transport whose configuration
 * generation changes on every read.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <uapi/linux/virtio_config.h>
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

/* --- A device on the bus, bound to a driver, for the removal race. --- */

#define BT_DEVICE_ID 0xfffe

struct bt_dev {
	struct virtio4_device vdev;
	u8 status;
	unsigned int config_changes;	/* calls of the driver's config_changed() */
	struct completion unbound;
};

static struct bt_dev *to_bt_dev(struct virtio4_device *vdev)
{
	return container_of(vdev, struct bt_dev, vdev);
}

static u8 bt_get_status(struct virtio4_device *vdev)
{
	return to_bt_dev(vdev)->status;
}

static void bt_set_status(struct virtio4_device *vdev, u8 status)
{
	to_bt_dev(vdev)->status = status;
}

static void bt_reset(struct virtio4_device *vdev)
{
	to_bt_dev(vdev)->status = 0;
}

static u64 bt_get_features(struct virtio4_device *vdev)
{
	return BIT_ULL(VIRTIO_F_VERSION_1);
}

static int bt_finalize_features(struct virtio4_device *vdev)
{
	return 0;
}

static const struct virtio4_config_ops bt_dev_ops = {
	.get_status = bt_get_status,
	.set_status = bt_set_status,
	.reset = bt_reset,
	.get_features = bt_get_features,
	.finalize_features = bt_finalize_features,
};

static void bt_dev_release(struct device *dev)
{
	kfree(to_bt_dev(to_virtio4_device(dev)));
}

static int bt_drv_probe(struct virtio4_device *vdev)
{
	return 0;
}

static void bt_drv_remove(struct virtio4_device *vdev)
{
}

static void bt_drv_config_changed(struct virtio4_device *vdev)
{
	to_bt_dev(vdev)->config_changes++;
}

static const struct virtio4_device_id bt_ids[] = {
	{ BT_DEVICE_ID, VIRTIO4_ANY_VENDOR },
	{ }
};

static struct virtio4_driver bt_driver = {
	.driver.name = "virtio4-kunit-bus",
	.id_table = bt_ids,
	.probe = bt_drv_probe,
	.remove = bt_drv_remove,
	.config_changed = bt_drv_config_changed,
};

/*
 * Unbinding, with device_lock held and just before the bus's remove: a
 * configuration change arrives (as an interrupt would), and its work gets
 * the time to start.
 */
static int bt_unbind_notifier(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	struct device *dev = data;

	if (action != BUS_NOTIFY_UNBIND_DRIVER ||
	    to_virtio4_device(dev)->id.device != BT_DEVICE_ID)
		return NOTIFY_DONE;
	virtio4_config_changed(to_virtio4_device(dev));
	msleep(100);
	return NOTIFY_OK;
}

static struct notifier_block bt_nb = { .notifier_call = bt_unbind_notifier };

static int bt_unbind_thread(void *data)
{
	struct bt_dev *bd = data;

	device_release_driver(&bd->vdev.dev);
	complete(&bd->unbound);
	return 0;
}

/*
 * A configuration change racing removal: the change's work must not wait
 * for device_lock, which the unbinding holds while it waits for the work.
 * The unbinding runs in a thread so that a deadlock fails the case (and
 * leaves that thread stuck) instead of hanging the suite.
 */
static void config_change_racing_removal(struct kunit *test)
{
	struct bt_dev *bd = kzalloc(sizeof(*bd), GFP_KERNEL);
	struct task_struct *t;
	bool unbound;

	KUNIT_ASSERT_NOT_NULL(test, bd);
	init_completion(&bd->unbound);
	bd->vdev.id.device = BT_DEVICE_ID;
	bd->vdev.config = &bt_dev_ops;
	bd->vdev.dev.release = bt_dev_release;
	KUNIT_ASSERT_EQ(test, virtio4_register_driver(&bt_driver), 0);
	KUNIT_ASSERT_EQ(test, bus_register_notifier(&virtio4_bus, &bt_nb), 0);
	KUNIT_ASSERT_EQ(test, virtio4_register_device(&bd->vdev), 0);
	KUNIT_ASSERT_PTR_EQ(test, bd->vdev.dev.driver, &bt_driver.driver);
	KUNIT_EXPECT_TRUE(test, bd->status & VIRTIO_CONFIG_S_DRIVER_OK);

	t = kthread_run(bt_unbind_thread, bd, "virtio4-kunit-unbind");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	unbound = wait_for_completion_timeout(&bd->unbound, 10 * HZ);
	KUNIT_ASSERT_TRUE_MSG(test, unbound,
			      "unbinding deadlocked with the config-change work");
	KUNIT_EXPECT_EQ(test, bd->config_changes, 1U);
	KUNIT_EXPECT_NULL(test, bd->vdev.dev.driver);
	bus_unregister_notifier(&virtio4_bus, &bt_nb);
	virtio4_unregister_device(&bd->vdev);
	virtio4_unregister_driver(&bt_driver);
}

static struct kunit_case virtio4_bus_cases[] = {
	KUNIT_CASE(generation_never_settling_is_bounded),
	KUNIT_CASE(settled_generation_reads_once),
	KUNIT_CASE(config_change_racing_removal),
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
