// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the descriptor ring: what it puts in shared memory, how
 * it suppresses notifications, and its defence against a device that
 * writes lies into the used ring. The API's semantics, common to both
 * implementations, are in virtio4_api_kunit.c.
 * The test plays the device, reading the available ring and writing the
 * used ring directly. Buffers are mapped by dma-direct (no IOMMU in the
 * test guests), so a descriptor's address is a physical address.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>
#include "../../ring/layout.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define RT_NUM 8
#define RT_BUF 256

struct rt {
	struct kunit *test;
	struct device *dma_dev;
	struct virtio4_device vdev;
	struct virtio4_queue *vq;
	struct virtio4_ring_view v;
	unsigned int kicks;
	unsigned int callbacks;
	bool cb_result;
	u16 dev_avail;		/* the device's cursor in the available ring */
	u8 *bufs;		/* RT_NUM * 2 buffers of RT_BUF bytes */
};

static bool rt_notify(struct virtio4_queue *vq, void *data)
{
	struct rt *rt = data;

	rt->kicks++;
	return true;
}

static bool rt_callback(struct virtio4_queue *vq)
{
	struct rt *rt = vq->priv;

	rt->callbacks++;
	return rt->cb_result;
}

/* The test's ring, with @features and @callback (NULL: a polled queue). */
static void rt_new_cb(struct kunit *test, u64 features, virtio4_callback_t *callback)
{
	struct rt *rt = test->priv;
	struct virtio4_queue *vq;

	rt->vdev.features = features;
	vq = virtio4_ring_new(&rt->vdev, rt->dma_dev, 0, RT_NUM, rt_notify,
			      rt, callback, "kunit");
	rt->vq = IS_ERR(vq) ? NULL : vq;
	KUNIT_ASSERT_NOT_NULL(test, rt->vq);
	rt->vq->priv = rt;
	virtio4_ring_test_view(rt->vq, &rt->v);
}

static void rt_new(struct kunit *test, u64 features)
{
	rt_new_cb(test, features, rt_callback);
}

static int rt_init(struct kunit *test)
{
	struct rt *rt = kunit_kzalloc(test, sizeof(*rt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rt);
	rt->bufs = kunit_kzalloc(test, RT_NUM * 2 * RT_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rt->bufs);
	test->priv = rt;
	rt->test = test;
	/* A bare device, never registered: enough for dma-direct mappings. */
	rt->dma_dev = kunit_kzalloc(test, sizeof(*rt->dma_dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rt->dma_dev);
	rt->dma_dev->dma_mask = &rt->dma_dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(rt->dma_dev, DMA_BIT_MASK(64)), 0);
	rt->cb_result = true;
	rt->vdev.ready = true;	/* the test is the bus: DRIVER_OK */
	rt_new(test, BIT_ULL(VIRTIO_RING_F_EVENT_IDX));
	return 0;
}

static void rt_exit(struct kunit *test)
{
	struct rt *rt = test->priv;

	if (rt && rt->vq)
		virtio4_ring_del(rt->vq);
}

/*
 * Add a buffer of one out and one in element, token @token (1-based),
 * without sync(): the device does not see it yet.
 */
static int rt_add_unsynced(struct rt *rt, unsigned long token, unsigned int out_len,
			   unsigned int in_len)
{
	struct scatterlist sg[2];
	u8 *buf = rt->bufs + (token % RT_NUM) * 2 * RT_BUF;
	unsigned int n = 0, out = 0, in = 0;

	sg_init_table(sg, 2);
	if (out_len) {
		sg_set_buf(&sg[n++], buf, out_len);
		out = 1;
	}
	if (in_len) {
		sg_set_buf(&sg[n++], buf + RT_BUF, in_len);
		in = 1;
	}
	if (n)
		sg_mark_end(&sg[n - 1]);
	return rt->vq->ops->add_buf(rt->vq, sg, out, in, (void *)token);
}

/* As rt_add_unsynced(), then sync(): the device sees the buffer. */
static int rt_add(struct rt *rt, unsigned long token, unsigned int out_len,
		  unsigned int in_len)
{
	int err = rt_add_unsynced(rt, token, out_len, in_len);

	rt->vq->ops->sync(rt->vq);
	return err;
}

/* The device takes the next available head; the test fails if there is none. */
static int dev_pop(struct rt *rt)
{
	u16 head;

	if (le16_to_cpu(READ_ONCE(rt->v.avail->idx)) == rt->dev_avail) {
		KUNIT_FAIL(rt->test, "the device finds no buffer available");
		return -1;
	}
	head = le16_to_cpu(rt->v.avail->ring[rt->dev_avail % RT_NUM]);
	rt->dev_avail++;
	return head;
}

/* The device writes a used entry and publishes it. */
static void dev_push(struct rt *rt, u32 id, u32 len)
{
	u16 idx = le16_to_cpu(rt->v.used->idx);

	rt->v.used->ring[idx % RT_NUM].id = cpu_to_le32(id);
	rt->v.used->ring[idx % RT_NUM].len = cpu_to_le32(len);
	/* As a device must: the entry before the index that publishes it. */
	virt_wmb();
	WRITE_ONCE(rt->v.used->idx, cpu_to_le16(idx + 1));
}

static void dev_set_used_idx(struct rt *rt, u16 idx)
{
	WRITE_ONCE(rt->v.used->idx, cpu_to_le16(idx));
}

/* Add buffers @first..@last of 8 out bytes each and make them available. */
static void rt_add_synced(struct kunit *test, struct rt *rt, unsigned long first,
			  unsigned long last)
{
	unsigned long t;

	for (t = first; t <= last; t++)
		KUNIT_ASSERT_EQ(test, rt_add_unsynced(rt, t, 8, 0), 0);
	rt->vq->ops->sync(rt->vq);
}

static void device_sees_out_then_in(struct kunit *test)
{
	struct rt *rt = test->priv;
	struct ring_desc *d;
	int head;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 16, 100), 0);
	head = dev_pop(rt);
	KUNIT_ASSERT_GE(test, head, 0);
	d = &rt->v.desc[head];
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->len), 16U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(d->flags), VRING_DESC_F_NEXT);
	d = &rt->v.desc[le16_to_cpu(d->next)];
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->len), 100U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(d->flags), VRING_DESC_F_WRITE);
	KUNIT_EXPECT_EQ(test, rt->vq->num_free, RT_NUM - 2);
}

/*
 * add_buf() writes a buffer into the ring, sync() shows it to the device:
 * the available index moves once, at sync, over every buffer added since
 * the last, and only then does the driver read whether to kick.
 */
static void buffers_seen_at_sync(struct kunit *test)
{
	struct rt *rt = test->priv;

	KUNIT_ASSERT_EQ(test, rt_add_unsynced(rt, 1, 8, 0), 0);
	KUNIT_ASSERT_EQ(test, rt_add_unsynced(rt, 2, 8, 8), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(READ_ONCE(rt->v.avail->idx)), 0U);
	KUNIT_EXPECT_EQ(test, rt->kicks, 0U);
	rt->vq->ops->sync(rt->vq);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(READ_ONCE(rt->v.avail->idx)), 2U);
	KUNIT_EXPECT_EQ(test, rt->kicks, 1U);
	KUNIT_EXPECT_EQ(test, dev_pop(rt), 0);
	KUNIT_EXPECT_EQ(test, dev_pop(rt), 1);
}

/*
 * get_buf() reads the used index once for the entries it covers, and asks
 * for the next interrupt (used_event) when it takes the last of them: an
 * entry the device adds meanwhile is found after them, and once all are
 * taken the device's next one owes an interrupt.
 */
static void used_event_once_seen_are_taken(struct kunit *test)
{
	struct rt *rt = test->priv;
	__le16 *used_event = &rt->v.avail->ring[RT_NUM];
	unsigned int len;

	rt_add_synced(test, rt, 1, 4);
	dev_push(rt, dev_pop(rt), 0);
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)1UL);
	/* Entry 2 was seen with entry 1: the device has crossed any mark before it. */
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 0U);
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)2UL);
	/*
	 * Asked at 2 once the two seen are taken; the device's third entry,
	 * written before, raised nothing: the next call reads the index again.
	 */
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 2U);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)3UL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 3U);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), NULL);
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_TRUE(test, vring_need_event(le16_to_cpu(*used_event), 4, 3));
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)4UL);
}

/*
 * A one-element buffer takes its own add path: it is refused as any other
 * is (no token, an element count that wraps, no room, a broken queue).
 */
static void one_element_refusals(struct kunit *test)
{
	struct rt *rt = test->priv;
	struct scatterlist sg;
	unsigned long t;

	sg_init_one(&sg, rt->bufs, 8);
	KUNIT_EXPECT_EQ(test, rt->vq->ops->add_buf(rt->vq, &sg, 0, 1, NULL), -EINVAL);
	/* UINT_MAX + 2 out and in elements: a total of 1 once wrapped. */
	KUNIT_EXPECT_EQ(test, rt->vq->ops->add_buf(rt->vq, &sg, UINT_MAX, 2, (void *)1UL),
			-EINVAL);
	for (t = 1; t <= RT_NUM; t++)
		KUNIT_ASSERT_EQ(test, rt->vq->ops->add_buf(rt->vq, &sg, 0, 1, (void *)t), 0);
	KUNIT_EXPECT_EQ(test, rt->vq->ops->add_buf(rt->vq, &sg, 0, 1, (void *)100UL), -ENOSPC);
	/* Room again, as after a reset (no device here), for the broken test alone. */
	while (rt->vq->ops->detach_unused(rt->vq))
		;
	virtio4_ring_break(rt->vq, "kunit: broken on purpose");
	KUNIT_EXPECT_EQ(test, rt->vq->ops->add_buf(rt->vq, &sg, 1, 0, (void *)1UL), -EIO);
	KUNIT_EXPECT_EQ(test, rt->vq->num_free, RT_NUM);
}

static void completion_after_detach_breaks_queue(struct kunit *test)
{
	struct rt *rt = test->priv;
	unsigned int len;
	int head;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 7, 8, 8), 0);
	head = dev_pop(rt);
	KUNIT_ASSERT_EQ(test, rt->vq->ops->detach_buf(rt->vq, (void *)7UL), 0);
	dev_push(rt, head, 1);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), NULL);
	KUNIT_EXPECT_TRUE(test, virtio4_ring_is_broken(rt->vq));
}

static void interrupt_with_nothing_used_is_spurious(struct kunit *test)
{
	struct rt *rt = test->priv;

	KUNIT_EXPECT_EQ(test, virtio4_ring_interrupt(rt->vq), IRQ_NONE);
	KUNIT_EXPECT_EQ(test, rt->callbacks, 0U);
}

/*
 * Before DRIVER_OK no interrupt reaches the driver: its callback would read
 * state that a driver sets up after find_vqs() (its queue's priv).
 */
static void no_callback_before_device_ready(struct kunit *test)
{
	struct rt *rt = test->priv;

	rt->vdev.ready = false;
	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	dev_push(rt, dev_pop(rt), 8);
	KUNIT_EXPECT_EQ(test, virtio4_ring_interrupt(rt->vq), IRQ_NONE);
	virtio4_ring_break(rt->vq, "kunit: broken before ready");
	KUNIT_EXPECT_EQ(test, rt->callbacks, 0U);
	rt->vdev.ready = true;
	KUNIT_EXPECT_TRUE(test, virtio4_ring_is_broken(rt->vq));
}

static void event_idx_suppresses_kicks(struct kunit *test)
{
	struct rt *rt = test->priv;
	__le16 *avail_event = (__le16 *)&rt->v.used->ring[RT_NUM];

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 0), 0);
	rt->vq->ops->sync(rt->vq);
	KUNIT_EXPECT_EQ(test, rt->kicks, 1U);	/* avail_event 0: wants the first */
	KUNIT_ASSERT_EQ(test, rt_add(rt, 2, 8, 0), 0);
	rt->vq->ops->sync(rt->vq);
	KUNIT_EXPECT_EQ(test, rt->kicks, 1U);	/* not asked for index 1 */
	*avail_event = cpu_to_le16(2);
	KUNIT_ASSERT_EQ(test, rt_add(rt, 3, 8, 0), 0);
	rt->vq->ops->sync(rt->vq);
	KUNIT_EXPECT_EQ(test, rt->kicks, 2U);
	rt->vq->ops->sync(rt->vq);
	KUNIT_EXPECT_EQ(test, rt->kicks, 2U);	/* nothing new, no kick */
}

/*
 * restart_delayed puts used_event three quarters into what is in flight,
 * get_buf leaves it there, and it refuses when the device is already past.
 */
static void restart_delayed_marks_three_quarters(struct kunit *test)
{
	struct rt *rt = test->priv;
	__le16 *used_event = &rt->v.avail->ring[RT_NUM];
	unsigned long t;
	unsigned int len;

	rt_add_synced(test, rt, 1, 4);
	KUNIT_EXPECT_TRUE(test, rt->vq->ops->restart_delayed(rt->vq));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 3U);	/* 3/4 of 4 */
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)1UL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 3U);	/* left at the mark */
	/* Three used, none collected: past the mark (3/4 of 3 = 2). */
	for (t = 0; t < 3; t++)
		dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_FALSE(test, rt->vq->ops->restart_delayed(rt->vq));
	for (t = 2; t <= 4; t++)
		KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)t);
	/* A plain restart asks for the very next completion again. */
	KUNIT_EXPECT_TRUE(test, rt->vq->ops->restart(rt->vq));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 4U);
}

/*
 * disable() asks for no interrupt whatever mark was set before: not
 * restart_delayed's three quarters, nor restart's next completion. The
 * device's rule (vring_need_event) must not fire for what it completes
 * while the driver collects with callbacks off.
 */
static void disable_asks_for_no_interrupt(struct kunit *test)
{
	struct rt *rt = test->priv;
	__le16 *used_event = &rt->v.avail->ring[RT_NUM];
	unsigned long t;
	unsigned int len;

	rt_add_synced(test, rt, 1, 4);
	KUNIT_ASSERT_TRUE(test, rt->vq->ops->restart_delayed(rt->vq));
	rt->vq->ops->disable(rt->vq);
	for (t = 0; t < 4; t++)
		dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_FALSE(test, vring_need_event(le16_to_cpu(*used_event), 4, 0));
	for (t = 1; t <= 4; t++)
		KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)t);

	rt_add_synced(test, rt, 5, 5);
	KUNIT_ASSERT_TRUE(test, rt->vq->ops->restart(rt->vq));
	rt->vq->ops->disable(rt->vq);
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_FALSE(test, vring_need_event(le16_to_cpu(*used_event), 5, 4));
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)5UL);
}

/*
 * callback_due: with callbacks on, true once the device used past the point
 * asked for, exactly when the device's rule (vring_need_event) owes the
 * interrupt: not at restart_delayed's mark, one past it; at once after a
 * plain restart; never with callbacks off.
 */
static void callback_due_past_the_mark(struct kunit *test)
{
	struct rt *rt = test->priv;
	const struct virtio4_queue_ops *ops = rt->vq->ops;
	__le16 *used_event = &rt->v.avail->ring[RT_NUM];
	unsigned long t;
	unsigned int len;

	rt_add_synced(test, rt, 1, 4);
	KUNIT_ASSERT_TRUE(test, ops->restart_delayed(rt->vq));
	for (t = 0; t < 3; t++)
		dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_FALSE(test, vring_need_event(le16_to_cpu(*used_event), 3, 0));
	KUNIT_EXPECT_FALSE(test, ops->callback_due(rt->vq));
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_TRUE(test, vring_need_event(le16_to_cpu(*used_event), 4, 3));
	KUNIT_EXPECT_TRUE(test, ops->callback_due(rt->vq));
	ops->disable(rt->vq);
	KUNIT_EXPECT_FALSE(test, ops->callback_due(rt->vq));
	for (t = 1; t <= 4; t++)
		KUNIT_EXPECT_PTR_EQ(test, ops->get_buf(rt->vq, &len), (void *)t);

	rt_add_synced(test, rt, 5, 6);
	KUNIT_ASSERT_TRUE(test, ops->restart(rt->vq));
	KUNIT_EXPECT_FALSE(test, ops->callback_due(rt->vq));
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_TRUE(test, ops->callback_due(rt->vq));
	KUNIT_EXPECT_PTR_EQ(test, ops->get_buf(rt->vq, &len), (void *)5UL);
	KUNIT_EXPECT_FALSE(test, ops->callback_due(rt->vq));
}

/*
 * restart_after(n) asks for the interrupt once n more buffers are used,
 * counting buffers not added yet: with two in flight and n = 4, the device
 * owes nothing for those two, nor for a third added later, only for the
 * fourth (vring_need_event, and callback_due alike). n is taken as 1 to
 * the ring's size, and a device already past the mark is refused.
 */
static void restart_after_counts_buffers_not_added_yet(struct kunit *test)
{
	struct rt *rt = test->priv;
	const struct virtio4_queue_ops *ops = rt->vq->ops;
	__le16 *used_event = &rt->v.avail->ring[RT_NUM];
	unsigned long t;
	unsigned int len;

	rt_add_synced(test, rt, 1, 2);
	KUNIT_EXPECT_TRUE(test, ops->restart_after(rt->vq, 4));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 3U);	/* past it: the fourth */
	dev_push(rt, dev_pop(rt), 0);
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_FALSE(test, vring_need_event(le16_to_cpu(*used_event), 2, 0));
	KUNIT_EXPECT_FALSE(test, ops->callback_due(rt->vq));
	rt_add_synced(test, rt, 3, 4);
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_FALSE(test, vring_need_event(le16_to_cpu(*used_event), 3, 2));
	KUNIT_EXPECT_FALSE(test, ops->callback_due(rt->vq));
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_TRUE(test, vring_need_event(le16_to_cpu(*used_event), 4, 3));
	KUNIT_EXPECT_TRUE(test, ops->callback_due(rt->vq));
	ops->disable(rt->vq);
	for (t = 1; t <= 4; t++)
		KUNIT_EXPECT_PTR_EQ(test, ops->get_buf(rt->vq, &len), (void *)t);

	/* 0 is 1: the next one; more than the ring is the ring. */
	KUNIT_EXPECT_TRUE(test, ops->restart_after(rt->vq, 0));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 4U);
	KUNIT_EXPECT_TRUE(test, ops->restart_after(rt->vq, 1000));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), 4U + RT_NUM - 1);
	/* Two used, none collected: past a mark of two (the second). */
	rt_add_synced(test, rt, 5, 6);
	dev_push(rt, dev_pop(rt), 0);
	dev_push(rt, dev_pop(rt), 0);
	KUNIT_EXPECT_FALSE(test, ops->restart_after(rt->vq, 2));
	KUNIT_EXPECT_TRUE(test, ops->restart_after(rt->vq, 3));
	KUNIT_EXPECT_FALSE(test, ops->callback_due(rt->vq));
}

static void no_notify_flag_suppresses_kicks(struct kunit *test)
{
	struct rt *rt = test->priv;

	virtio4_ring_del(rt->vq);
	rt_new(test, 0);
	rt->v.used->flags = cpu_to_le16(VRING_USED_F_NO_NOTIFY);
	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 0), 0);
	rt->vq->ops->sync(rt->vq);
	KUNIT_EXPECT_EQ(test, rt->kicks, 0U);
	rt->v.used->flags = 0;
	KUNIT_ASSERT_EQ(test, rt_add(rt, 2, 8, 0), 0);
	rt->vq->ops->sync(rt->vq);
	KUNIT_EXPECT_EQ(test, rt->kicks, 1U);
}

/*
 * On a new ring with @features (VIRTIO_RING_F_INDIRECT_DESC among them),
 * fill all but one descriptor with one-element buffers, then add buffer
 * 100 (16 bytes out, 32 in): it does not fit as a chain and goes in an
 * indirect table. The device takes every buffer; the indirect one's head
 * goes to *@head, and its table, checked entry by entry, is returned.
 */
static struct ring_desc *rt_indirect_table(struct kunit *test, u64 features, int *head)
{
	struct rt *rt = test->priv;
	struct ring_desc *table;
	unsigned int i;

	virtio4_ring_del(rt->vq);
	rt_new(test, features);
	KUNIT_EXPECT_NULL(test, rt->v.pool);	/* none before the first table */
	for (i = 1; i < RT_NUM; i++)
		KUNIT_ASSERT_EQ(test, rt_add(rt, i, 8, 0), 0);
	KUNIT_ASSERT_EQ(test, rt_add(rt, 100, 16, 32), 0);
	KUNIT_EXPECT_EQ(test, rt->vq->num_free, 0U);
	virtio4_ring_test_view(rt->vq, &rt->v);
	for (i = 1; i < RT_NUM; i++)
		dev_pop(rt);
	*head = dev_pop(rt);
	KUNIT_ASSERT_GE(test, *head, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(rt->v.desc[*head].flags), VRING_DESC_F_INDIRECT);
	KUNIT_ASSERT_EQ(test, le32_to_cpu(rt->v.desc[*head].len), 2 * sizeof(*table));
	/* Without an IOMMU a DMA address is the physical one. */
	table = phys_to_virt(le64_to_cpu(rt->v.desc[*head].addr));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(table[0].len), 16U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(table[0].flags), VRING_DESC_F_NEXT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(table[1].len), 32U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(table[1].flags), VRING_DESC_F_WRITE);
	return table;
}

/* The device uses rt_indirect_table()'s buffer: it comes back whole. */
static void rt_indirect_done(struct kunit *test, int head)
{
	struct rt *rt = test->priv;
	unsigned int len;

	dev_push(rt, head, 32);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)100UL);
	KUNIT_EXPECT_EQ(test, len, 32U);
	KUNIT_EXPECT_EQ(test, rt->vq->num_free, 1U);
}

static void indirect_when_direct_does_not_fit(struct kunit *test)
{
	int head;

	rt_indirect_table(test, BIT_ULL(VIRTIO_RING_F_INDIRECT_DESC), &head);
	rt_indirect_done(test, head);
}

/* Does @table lie in the ring's pool of small indirect tables? */
static bool rt_in_pool(struct rt *rt, const void *table)
{
	return rt->v.pool && table >= rt->v.pool && table < rt->v.pool + rt->v.pool_size;
}

/*
 * An indirect table of up to four entries comes from the ring's pool (no
 * allocation per buffer), allocated at the first table; a larger one is
 * allocated. Both reach the device whole and come back.
 */
static void small_indirect_tables_from_the_pool(struct kunit *test)
{
	struct rt *rt = test->priv;
	struct scatterlist sg[5];
	struct ring_desc *table;
	unsigned int len, i;
	int head;

	table = rt_indirect_table(test, BIT_ULL(VIRTIO_RING_F_INDIRECT_DESC), &head);
	KUNIT_ASSERT_NOT_NULL(test, rt->v.pool);
	KUNIT_EXPECT_TRUE(test, rt_in_pool(rt, table));
	rt_indirect_done(test, head);

	/* Five elements, one descriptor free: a table too large for the pool. */
	sg_init_table(sg, ARRAY_SIZE(sg));
	for (i = 0; i < ARRAY_SIZE(sg); i++)
		sg_set_buf(&sg[i], rt->bufs + i * 16, 16);
	KUNIT_ASSERT_EQ(test, rt->vq->ops->add_buf(rt->vq, sg, 2, 3, (void *)200UL), 0);
	rt->vq->ops->sync(rt->vq);
	head = dev_pop(rt);
	KUNIT_ASSERT_GE(test, head, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(rt->v.desc[head].flags), VRING_DESC_F_INDIRECT);
	KUNIT_ASSERT_EQ(test, le32_to_cpu(rt->v.desc[head].len), 5 * sizeof(*table));
	table = phys_to_virt(le64_to_cpu(rt->v.desc[head].addr));
	KUNIT_EXPECT_FALSE(test, rt_in_pool(rt, table));
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, le32_to_cpu(table[i].len), 16U);
		KUNIT_EXPECT_EQ(test, le16_to_cpu(table[i].flags),
				(i < 2 ? 0 : VRING_DESC_F_WRITE) | (i < 4 ? VRING_DESC_F_NEXT : 0));
	}
	dev_push(rt, head, 48);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)200UL);
	KUNIT_EXPECT_EQ(test, len, 48U);
	KUNIT_EXPECT_EQ(test, rt->vq->num_free, 1U);
}

/*
 * Behind the DMA API (VIRTIO_F_ACCESS_PLATFORM) a small table is allocated
 * and mapped as a large one is, never pooled: the device reads it, and
 * the addresses in it are what the ring unmaps. It reaches the device
 * whole, comes back, and nothing leaks (kmemleak) or is unmapped twice.
 */
static void dma_indirect_tables_not_pooled(struct kunit *test)
{
	struct rt *rt = test->priv;
	int head;

	rt_indirect_table(test, BIT_ULL(VIRTIO_RING_F_INDIRECT_DESC) |
			  BIT_ULL(VIRTIO_F_ACCESS_PLATFORM), &head);
	KUNIT_EXPECT_NULL(test, rt->v.pool);
	rt_indirect_done(test, head);
}

/*
 * After the device lies, nothing is completed, add_buf fails with -EIO,
 * restart does not ask the driver to poll again (a broken queue has nothing
 * to collect, whatever its indices say), and the driver gets every
 * outstanding buffer back from detach_unused to fail it.
 */
static void expect_broken(struct kunit *test)
{
	struct rt *rt = test->priv;
	unsigned int len;

	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), NULL);
	KUNIT_EXPECT_TRUE(test, virtio4_ring_is_broken(rt->vq));
	KUNIT_EXPECT_TRUE(test, rt->vq->broken);
	KUNIT_EXPECT_EQ(test, rt_add(rt, 50, 8, 8), -EIO);
	KUNIT_EXPECT_TRUE(test, rt->vq->ops->restart(rt->vq));
	while (rt->vq->ops->detach_unused(rt->vq))
		;
	KUNIT_EXPECT_EQ(test, rt->vq->num_free, RT_NUM);
}

static void used_id_out_of_range_breaks(struct kunit *test)
{
	struct rt *rt = test->priv;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	dev_pop(rt);
	dev_push(rt, RT_NUM, 0);
	expect_broken(test);
}

static void used_id_not_in_flight_breaks(struct kunit *test)
{
	struct rt *rt = test->priv;
	int head;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	head = dev_pop(rt);
	dev_push(rt, (head + 1) % RT_NUM, 0);
	expect_broken(test);
}

static void duplicate_completion_breaks(struct kunit *test)
{
	struct rt *rt = test->priv;
	unsigned int len;
	int head;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	head = dev_pop(rt);
	dev_push(rt, head, 8);
	dev_push(rt, head, 8);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), NULL);
	KUNIT_EXPECT_TRUE(test, virtio4_ring_is_broken(rt->vq));
}

/* The device uses a buffer added but not synced, which it was never shown. */
static void unsynced_buffer_used_breaks(struct kunit *test)
{
	struct rt *rt = test->priv;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	KUNIT_ASSERT_EQ(test, rt_add_unsynced(rt, 2, 8, 8), 0);
	dev_push(rt, dev_pop(rt), 8);
	dev_push(rt, 2, 8);	/* the second buffer's head, never available */
	expect_broken(test);
}

static void used_length_too_long_breaks(struct kunit *test)
{
	struct rt *rt = test->priv;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	dev_push(rt, dev_pop(rt), 9);
	expect_broken(test);
}

static void used_index_jump_breaks(struct kunit *test)
{
	struct rt *rt = test->priv;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	dev_pop(rt);
	dev_set_used_idx(rt, 2);	/* two used, one in flight */
	expect_broken(test);
}

static void used_index_backwards_breaks(struct kunit *test)
{
	struct rt *rt = test->priv;

	dev_set_used_idx(rt, 0xffff);
	expect_broken(test);
}

/* Empty interrupts on the queue's own vector: a storm breaks the queue, once. */
static void interrupt_storm_breaks_queue(struct kunit *test)
{
	struct rt *rt = test->priv;
	unsigned int i, none = 0;

	for (i = 1; i < VIRTIO4_RING_STORM; i++)
		none += virtio4_ring_interrupt(rt->vq) == IRQ_NONE;
	KUNIT_EXPECT_EQ(test, none, VIRTIO4_RING_STORM - 1);
	KUNIT_EXPECT_FALSE(test, rt->vq->broken);
	KUNIT_EXPECT_EQ(test, virtio4_ring_interrupt(rt->vq), IRQ_HANDLED);
	KUNIT_EXPECT_TRUE(test, rt->vq->broken);
	/* The driver's callback ran once to hear of it; then the storm is claimed. */
	KUNIT_EXPECT_EQ(test, rt->callbacks, 1U);
	KUNIT_EXPECT_EQ(test, virtio4_ring_interrupt(rt->vq), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, rt->callbacks, 1U);
	expect_broken(test);
}

/* Empty interrupts with a pause between them are no storm: the run starts again. */
static void interrupt_run_with_a_gap_is_no_storm(struct kunit *test)
{
	struct rt *rt = test->priv;
	unsigned int i;

	for (i = 1; i < VIRTIO4_RING_STORM; i++)
		virtio4_ring_interrupt(rt->vq);
	msleep(jiffies_to_msecs(VIRTIO4_RING_STORM_GAP) + 50);
	for (i = 1; i < VIRTIO4_RING_STORM; i++)
		virtio4_ring_interrupt(rt->vq);
	KUNIT_EXPECT_FALSE(test, rt->vq->broken);
	KUNIT_EXPECT_EQ(test, rt->callbacks, 0U);
}

/* A used buffer ends a run of empty interrupts; a shared vector never storms. */
static void used_buffer_or_shared_vector_is_no_storm(struct kunit *test)
{
	struct rt *rt = test->priv;
	unsigned int i, len;

	for (i = 1; i < VIRTIO4_RING_STORM; i++)
		virtio4_ring_interrupt(rt->vq);
	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	dev_push(rt, dev_pop(rt), 8);
	KUNIT_EXPECT_EQ(test, virtio4_ring_interrupt(rt->vq), IRQ_HANDLED);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)1UL);
	for (i = 1; i < VIRTIO4_RING_STORM; i++)
		virtio4_ring_interrupt(rt->vq);
	for (i = 0; i < 2 * VIRTIO4_RING_STORM; i++)
		virtio4_ring_shared_interrupt(rt->vq);
	KUNIT_EXPECT_FALSE(test, rt->vq->broken);
}

/* A transport breaks a queue: one callback tells the driver, even twice broken. */
static void transport_break_tells_driver_once(struct kunit *test)
{
	struct rt *rt = test->priv;

	KUNIT_ASSERT_EQ(test, rt_add(rt, 1, 8, 8), 0);
	virtio4_ring_break(rt->vq, "kunit: the device went away");
	virtio4_ring_break(rt->vq, "kunit: and again");
	KUNIT_EXPECT_EQ(test, rt->callbacks, 1U);
	expect_broken(test);
}

/*
 * A queue without a callback is polled: with EVENT_IDX, used_event is set
 * where the device never crosses it and get_buf() never moves it; an
 * interrupt that finds a buffer used anyway is claimed and counted, with
 * nothing to call; without EVENT_IDX, the ring asks for no interrupt from
 * the start.
 */
static void polled_queue_asks_for_no_interrupt(struct kunit *test)
{
	struct rt *rt = test->priv;
	__le16 *used_event;
	unsigned long t;
	unsigned int len;

	virtio4_ring_del(rt->vq);
	rt_new_cb(test, BIT_ULL(VIRTIO_RING_F_EVENT_IDX), NULL);
	used_event = &rt->v.avail->ring[RT_NUM];
	for (t = 1; t <= 3; t++) {
		KUNIT_ASSERT_EQ(test, rt_add(rt, t, 8, 8), 0);
		rt->vq->ops->sync(rt->vq);
		dev_push(rt, dev_pop(rt), 8);
		if (t < 3)
			KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)t);
	}
	KUNIT_EXPECT_FALSE(test, vring_need_event(le16_to_cpu(*used_event), 3, 0));
	KUNIT_EXPECT_EQ(test, virtio4_ring_interrupt(rt->vq), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, rt->vq->interrupts, 1ULL);
	KUNIT_EXPECT_EQ(test, rt->callbacks, 0U);
	KUNIT_EXPECT_PTR_EQ(test, rt->vq->ops->get_buf(rt->vq, &len), (void *)3UL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(*used_event), (u16)-1);

	virtio4_ring_del(rt->vq);
	rt_new_cb(test, 0, NULL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(rt->v.avail->flags), VRING_AVAIL_F_NO_INTERRUPT);
}

/* Queue sizes a device may offer that no split ring can have. */
static void bad_queue_sizes_refused(struct kunit *test)
{
	static const unsigned int sizes[] = { 0, 3, 100, 65535, 65536 };
	struct rt *rt = test->priv;
	struct virtio4_queue *vq;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		vq = virtio4_ring_new(&rt->vdev, rt->dma_dev, 1, sizes[i], rt_notify,
				      rt, rt_callback, "kunit-bad");
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(vq), -EINVAL, "size %u", sizes[i]);
		if (!IS_ERR(vq))
			virtio4_ring_del(vq);
	}
}

static struct kunit_case virtio4_ring_cases[] = {
	KUNIT_CASE(device_sees_out_then_in),
	KUNIT_CASE(buffers_seen_at_sync),
	KUNIT_CASE(used_event_once_seen_are_taken),
	KUNIT_CASE(one_element_refusals),
	KUNIT_CASE(completion_after_detach_breaks_queue),
	KUNIT_CASE(interrupt_with_nothing_used_is_spurious),
	KUNIT_CASE(no_callback_before_device_ready),
	KUNIT_CASE(event_idx_suppresses_kicks),
	KUNIT_CASE(restart_delayed_marks_three_quarters),
	KUNIT_CASE(disable_asks_for_no_interrupt),
	KUNIT_CASE(callback_due_past_the_mark),
	KUNIT_CASE(restart_after_counts_buffers_not_added_yet),
	KUNIT_CASE(no_notify_flag_suppresses_kicks),
	KUNIT_CASE(indirect_when_direct_does_not_fit),
	KUNIT_CASE(small_indirect_tables_from_the_pool),
	KUNIT_CASE(dma_indirect_tables_not_pooled),
	KUNIT_CASE(used_id_out_of_range_breaks),
	KUNIT_CASE(used_id_not_in_flight_breaks),
	KUNIT_CASE(duplicate_completion_breaks),
	KUNIT_CASE(unsynced_buffer_used_breaks),
	KUNIT_CASE(used_length_too_long_breaks),
	KUNIT_CASE(used_index_jump_breaks),
	KUNIT_CASE(used_index_backwards_breaks),
	KUNIT_CASE(interrupt_storm_breaks_queue),
	KUNIT_CASE(interrupt_run_with_a_gap_is_no_storm),
	KUNIT_CASE(used_buffer_or_shared_vector_is_no_storm),
	KUNIT_CASE(transport_break_tells_driver_once),
	KUNIT_CASE(bad_queue_sizes_refused),
	KUNIT_CASE(polled_queue_asks_for_no_interrupt),
	{}
};

static struct kunit_suite virtio4_ring_suite = {
	.name = "virtio4-ring",
	.init = rt_init,
	.exit = rt_exit,
	.test_cases = virtio4_ring_cases,
};

kunit_test_suite(virtio4_ring_suite);

MODULE_DESCRIPTION("virtio4 descriptor ring: API semantics and hostile-device KUnit tests");
MODULE_LICENSE("GPL");
