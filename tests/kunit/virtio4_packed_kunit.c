// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the packed ring (VIRTIO_F_RING_PACKED): what it writes
 * into the descriptor ring (the AVAIL and USED bits of each wrap, one id
 * per buffer), how it reads used descriptors written out of order, its
 * event suppression both ways, indirect tables, and its defence against a
 * device that lies. The API's semantics, common to every implementation,
 * are in virtio4_api_kunit.c (suite virtio4-api-packed).
 * The test plays the device, reading and writing the descriptor ring and
 * the event areas directly. Buffers are mapped by dma-direct, so a
 * descriptor's address is a physical address.
 */
#include <kunit/test.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/sizes.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>
#include "../../ring/layout.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define PT_NUM		8
#define PT_BUF		256
#define PT_WRAP		BIT(VRING_PACKED_EVENT_F_WRAP_CTR)
#define PT_AVAIL	BIT(VRING_PACKED_DESC_F_AVAIL)
#define PT_USED		BIT(VRING_PACKED_DESC_F_USED)

struct pt {
	struct device *dma_dev;
	struct virtio4_device vdev;
	struct virtio4_queue *vq;
	struct virtio4_packed_view v;
	unsigned int kicks;
	unsigned int callbacks;
	u16 dev_next;		/* the device's next place to take (wrap in bit 15) */
	u16 dev_used;		/* where it writes the next used descriptor */
	u16 ndescs[PT_NUM];	/* the places of each buffer it took, by id */
	u8 *bufs;		/* PT_NUM * 2 buffers of PT_BUF bytes */
};

static bool pt_notify(struct virtio4_queue *vq, void *data)
{
	struct pt *pt = data;

	pt->kicks++;
	return true;
}

static bool pt_callback(struct virtio4_queue *vq)
{
	struct pt *pt = vq->priv;

	pt->callbacks++;
	return true;
}

/* The test's packed ring, with @features and @callback (NULL: a polled queue). */
static void pt_new_cb(struct kunit *test, u64 features, virtio4_callback_t *callback)
{
	struct pt *pt = test->priv;
	struct virtio4_queue *vq;

	pt->vdev.features = features | BIT_ULL(VIRTIO_F_RING_PACKED);
	vq = virtio4_ring_new(&pt->vdev, pt->dma_dev, 0, PT_NUM, pt_notify,
			      pt, callback, "kunit");
	pt->vq = IS_ERR(vq) ? NULL : vq;
	KUNIT_ASSERT_NOT_NULL(test, pt->vq);
	pt->vq->priv = pt;
	virtio4_ring_test_packed_view(pt->vq, &pt->v);
	pt->dev_next = PT_WRAP;
	pt->dev_used = PT_WRAP;
}

static void pt_new(struct kunit *test, u64 features)
{
	pt_new_cb(test, features, pt_callback);
}

static int pt_init(struct kunit *test)
{
	struct pt *pt = kunit_kzalloc(test, sizeof(*pt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pt);
	pt->bufs = kunit_kzalloc(test, PT_NUM * 2 * PT_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pt->bufs);
	test->priv = pt;
	/* A bare device, never registered: enough for dma-direct mappings. */
	pt->dma_dev = kunit_kzalloc(test, sizeof(*pt->dma_dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pt->dma_dev);
	pt->dma_dev->dma_mask = &pt->dma_dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ(test, dma_set_mask_and_coherent(pt->dma_dev, DMA_BIT_MASK(64)), 0);
	pt->vdev.ready = true;	/* the test is the bus: DRIVER_OK */
	pt_new(test, BIT_ULL(VIRTIO_RING_F_EVENT_IDX));
	return 0;
}

static void pt_exit(struct kunit *test)
{
	struct pt *pt = test->priv;

	if (pt && pt->vq)
		virtio4_ring_del(pt->vq);
}

/* @at (a place and its wrap counter) moved on by @n places. */
static u16 pt_step(u16 at, unsigned int n)
{
	unsigned int place = (at & ~PT_WRAP) + n;

	return place >= PT_NUM ? (place - PT_NUM) | ((at ^ PT_WRAP) & PT_WRAP) :
				 place | (at & PT_WRAP);
}

static struct ring_packed_desc *pt_desc(struct pt *pt, u16 at)
{
	return &pt->v.desc[at & ~PT_WRAP];
}

/* Add and sync a buffer of an out element of @out_len and an in one of @in_len bytes. */
static int pt_add(struct pt *pt, unsigned long token, unsigned int out_len,
		  unsigned int in_len)
{
	u8 *buf = pt->bufs + (token % PT_NUM) * 2 * PT_BUF;
	unsigned int n = 0, out = 0;
	struct scatterlist sg[2];
	int err;

	sg_init_table(sg, 2);
	if (out_len) {
		sg_set_buf(&sg[n++], buf, out_len);
		out = 1;
	}
	if (in_len)
		sg_set_buf(&sg[n++], buf + PT_BUF, in_len);
	if (n)
		sg_mark_end(&sg[n - 1]);
	err = pt->vq->ops->add_buf(pt->vq, sg, out, n - out, (void *)token);
	if (!err)
		pt->vq->ops->sync(pt->vq);
	return err;
}

/* The device takes the buffer at dev_next: its id, or -1 if none is available. */
static int dev_take(struct pt *pt)
{
	bool wrap = pt->dev_next & PT_WRAP;
	u16 flags = le16_to_cpu(READ_ONCE(pt_desc(pt, pt->dev_next)->flags)), id, n = 1;

	if (!!(flags & PT_AVAIL) != wrap || !!(flags & PT_USED) == wrap)
		return -1;
	/* As a device must: the descriptor after the flags that offer it. */
	virt_rmb();
	id = le16_to_cpu(pt_desc(pt, pt->dev_next)->id);
	while ((flags & VRING_DESC_F_NEXT) && n < PT_NUM)
		flags = le16_to_cpu(pt_desc(pt, pt_step(pt->dev_next, n++))->flags);
	if (id < PT_NUM)
		pt->ndescs[id] = n;
	pt->dev_next = pt_step(pt->dev_next, n);
	return id;
}

/* The device writes a used descriptor for @id at dev_used and skips @places. */
static void dev_use(struct pt *pt, u16 id, u32 len, unsigned int places)
{
	struct ring_packed_desc *d = pt_desc(pt, pt->dev_used);

	d->id = cpu_to_le16(id);
	d->len = cpu_to_le32(len);
	/* The id and length before the flags that hand them back. */
	virt_wmb();
	WRITE_ONCE(d->flags, cpu_to_le16(pt->dev_used & PT_WRAP ? PT_AVAIL | PT_USED : 0));
	pt->dev_used = pt_step(pt->dev_used, places);
}

/* The device uses buffer @id as it should: its places as it took them. */
static void dev_complete(struct pt *pt, int id, u32 len)
{
	dev_use(pt, id, len, id >= 0 && id < PT_NUM ? pt->ndescs[id] : 1);
}

static void *pt_get(struct pt *pt, unsigned int *len)
{
	return pt->vq->ops->get_buf(pt->vq, len);
}

static void device_sees_a_chain_with_avail_bits(struct kunit *test)
{
	struct pt *pt = test->priv;
	struct ring_packed_desc *d = pt->v.desc;

	KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 16, 100), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d[0].len), 16U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(d[0].flags), VRING_DESC_F_NEXT | PT_AVAIL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d[1].len), 100U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(d[1].flags), VRING_DESC_F_WRITE | PT_AVAIL);
	KUNIT_EXPECT_EQ(test, d[0].id, d[1].id);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(d[2].flags), 0U);	/* nothing more offered */
	KUNIT_EXPECT_EQ(test, dev_take(pt), (int)le16_to_cpu(d[0].id));
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, PT_NUM - 2);
}

/*
 * Three rounds of the ring and more, one or two descriptors a buffer: the second
 * round is offered with the USED bit (wrap counter 0), every token comes
 * back with its length, and all places are free at the end.
 */
static void wrap_counters_flip_each_round(struct kunit *test)
{
	struct pt *pt = test->priv;
	unsigned long t;
	unsigned int len;
	bool seen_second_round = false;

	for (t = 1; t <= 3 * PT_NUM; t++) {
		u16 head = pt->dev_next;

		KUNIT_ASSERT_EQ(test, pt_add(pt, t, t % 3 ? 8 : 0, 4 + t % 2 * 4), 0);
		if (!(head & PT_WRAP)) {
			KUNIT_EXPECT_TRUE(test, le16_to_cpu(pt_desc(pt, head)->flags) & PT_USED);
			KUNIT_EXPECT_FALSE(test, le16_to_cpu(pt_desc(pt, head)->flags) & PT_AVAIL);
			seen_second_round = true;
		}
		dev_complete(pt, dev_take(pt), 4);
		KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)t);
		KUNIT_EXPECT_EQ(test, len, 4U);
	}
	KUNIT_EXPECT_TRUE(test, seen_second_round);
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, PT_NUM);
}

/* Used out of order: each used descriptor moves the reader by its own buffer's places. */
static void used_out_of_order(struct kunit *test)
{
	struct pt *pt = test->priv;
	int id[3], i;
	unsigned int len;

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, pt_add(pt, i + 1, 8, i ? 8 : 0), 0);
		id[i] = dev_take(pt);
	}
	dev_complete(pt, id[2], 8);
	dev_complete(pt, id[0], 0);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)3UL);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)1UL);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), NULL);
	dev_complete(pt, id[1], 8);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)2UL);
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, PT_NUM);
	KUNIT_EXPECT_FALSE(test, pt->vq->broken);
}

/* The device's event area: every add kicks, none, or the one that offers a place. */
static void device_area_suppresses_kicks(struct kunit *test)
{
	struct pt *pt = test->priv;

	KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 1U);	/* flags 0: ENABLE */
	pt->v.device->flags = cpu_to_le16(VRING_PACKED_EVENT_FLAG_DISABLE);
	KUNIT_ASSERT_EQ(test, pt_add(pt, 2, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 1U);
	/* Wait for place 3 of the first round; places 2 and 3 come next. */
	pt->v.device->off_wrap = cpu_to_le16(3 | PT_WRAP);
	pt->v.device->flags = cpu_to_le16(VRING_PACKED_EVENT_FLAG_DESC);
	KUNIT_ASSERT_EQ(test, pt_add(pt, 3, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 1U);
	KUNIT_ASSERT_EQ(test, pt_add(pt, 4, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 2U);
	/* The same place in the next round is not this one. */
	pt->v.device->off_wrap = cpu_to_le16(4);
	KUNIT_ASSERT_EQ(test, pt_add(pt, 5, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 2U);
	pt->vq->ops->sync(pt->vq);
	KUNIT_EXPECT_EQ(test, pt->kicks, 2U);	/* nothing new, no kick */
}

/*
 * A device that takes descriptors after it names the place it wants a kick
 * for, and leaves that place behind (QEMU 7.2's virtio-net after a transmit
 * it had to queue): the place lies among those offered since the last
 * kick, if not since the last sync, and the next buffer kicks.
 */
static void stale_device_place_still_kicks(struct kunit *test)
{
	struct pt *pt = test->priv;

	KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 1U);
	pt->v.device->flags = cpu_to_le16(VRING_PACKED_EVENT_FLAG_DISABLE);
	KUNIT_ASSERT_EQ(test, pt_add(pt, 2, 8, 0), 0);
	KUNIT_ASSERT_EQ(test, pt_add(pt, 3, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 1U);
	/* It takes the first, asks for place 1, then takes places 1 and 2 too. */
	KUNIT_ASSERT_EQ(test, dev_take(pt), 0);
	pt->v.device->off_wrap = cpu_to_le16(1 | PT_WRAP);
	pt->v.device->flags = cpu_to_le16(VRING_PACKED_EVENT_FLAG_DESC);
	KUNIT_ASSERT_GE(test, dev_take(pt), 0);
	KUNIT_ASSERT_GE(test, dev_take(pt), 0);
	KUNIT_ASSERT_EQ(test, pt_add(pt, 4, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 2U);
	/* Kicked: the place is behind what was offered since. */
	KUNIT_ASSERT_EQ(test, pt_add(pt, 5, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, pt->kicks, 2U);
}

/*
 * 65536 descriptors offered without a sync (the device takes each as it
 * finds it, and asks for no kick), then the device asks for a kick at the
 * last place offered: the count of descriptors since the last kick is cut
 * to a ring at the sync, which kicks. Counted in 16 bits, it would be 0.
 */
static void unsynced_lap_count_still_kicks(struct kunit *test)
{
	const unsigned int count = U16_MAX + 1;	/* a 16-bit count's wrap */
	struct pt *pt = test->priv;
	struct scatterlist sg;
	unsigned int len, i;

	pt->v.device->flags = cpu_to_le16(VRING_PACKED_EVENT_FLAG_DISABLE);
	sg_init_one(&sg, pt->bufs, 8);
	for (i = 0; i < count; i++) {
		KUNIT_ASSERT_EQ(test, pt->vq->ops->add_buf(pt->vq, &sg, 1, 0, (void *)1UL), 0);
		dev_complete(pt, dev_take(pt), 0);
		KUNIT_ASSERT_PTR_EQ(test, pt_get(pt, &len), (void *)1UL);
	}
	KUNIT_EXPECT_EQ(test, pt->kicks, 0U);
	/*
	 * count / PT_NUM rounds, an even number: back at place 0 of a round
	 * like the first; the last buffer was at place 7 of the round before.
	 */
	KUNIT_ASSERT_EQ(test, pt->dev_next, PT_WRAP);
	pt->v.device->off_wrap = cpu_to_le16(PT_NUM - 1);
	pt->v.device->flags = cpu_to_le16(VRING_PACKED_EVENT_FLAG_DESC);
	pt->vq->ops->sync(pt->vq);
	KUNIT_EXPECT_EQ(test, pt->kicks, 1U);
}

/* The driver's event area: where it asks for the next interrupt, or none. */
static void driver_area_follows_callbacks(struct kunit *test)
{
	struct pt *pt = test->priv;
	unsigned int len;
	unsigned long t;

	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags), VRING_PACKED_EVENT_FLAG_DESC);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), PT_WRAP);
	for (t = 1; t <= 4; t++)
		KUNIT_ASSERT_EQ(test, pt_add(pt, t, 8, 8), 0);
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)1UL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 2 | PT_WRAP);
	pt->vq->ops->disable(pt->vq);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags), VRING_PACKED_EVENT_FLAG_DISABLE);
	KUNIT_EXPECT_TRUE(test, pt->vq->ops->restart(pt->vq));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags), VRING_PACKED_EVENT_FLAG_DESC);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 2 | PT_WRAP);
	/* Three buffers of two places in flight: the mark three quarters into them. */
	KUNIT_EXPECT_TRUE(test, pt->vq->ops->restart_delayed(pt->vq));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), (2 + 6 * 3 / 4) | PT_WRAP);
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)2UL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 6 | PT_WRAP);	/* left */
	/* Two used, none collected: four places, past 3/4 of four. */
	dev_complete(pt, dev_take(pt), 0);
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_FALSE(test, pt->vq->ops->restart_delayed(pt->vq));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags), VRING_PACKED_EVENT_FLAG_DISABLE);
	KUNIT_EXPECT_FALSE(test, pt->vq->ops->restart(pt->vq));
}

/*
 * get_buf() asks for the next interrupt (the driver area's place) only
 * when the next descriptor is not used yet: while it is, the device has
 * passed that place and would raise nothing for it. The next call then
 * takes that descriptor, and the one after the last used is asked for.
 */
static void driver_area_once_used_are_taken(struct kunit *test)
{
	struct pt *pt = test->priv;
	unsigned int len;
	unsigned long t;

	for (t = 1; t <= 4; t++)
		KUNIT_ASSERT_EQ(test, pt_add(pt, t, 8, 8), 0);
	dev_complete(pt, dev_take(pt), 0);
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)1UL);
	/* The second used already: the area left where it was. */
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), PT_WRAP);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)2UL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 4 | PT_WRAP);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), NULL);
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)3UL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 6 | PT_WRAP);
}

/*
 * callback_due: true once the used descriptors cover more places than the
 * mark restart_delayed set (three quarters of eight: six), or any after a
 * plain restart; never with callbacks off.
 */
static void callback_due_past_the_mark(struct kunit *test)
{
	struct pt *pt = test->priv;
	const struct virtio4_queue_ops *ops = pt->vq->ops;
	unsigned int len;
	unsigned long t;

	for (t = 1; t <= 4; t++)
		KUNIT_ASSERT_EQ(test, pt_add(pt, t, 8, 8), 0);
	KUNIT_ASSERT_TRUE(test, ops->restart_delayed(pt->vq));
	for (t = 0; t < 3; t++)
		dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_FALSE(test, ops->callback_due(pt->vq));
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_TRUE(test, ops->callback_due(pt->vq));
	ops->disable(pt->vq);
	KUNIT_EXPECT_FALSE(test, ops->callback_due(pt->vq));
	for (t = 1; t <= 4; t++)
		KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)t);

	KUNIT_ASSERT_EQ(test, pt_add(pt, 5, 8, 8), 0);
	KUNIT_ASSERT_TRUE(test, ops->restart(pt->vq));
	KUNIT_EXPECT_FALSE(test, ops->callback_due(pt->vq));
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_TRUE(test, ops->callback_due(pt->vq));
}

/*
 * restart_after(n) in places: buffers not added yet taken as long as those
 * in flight (two places each here, so three buffers: the sixth place), or
 * one place each with none in flight; at most the whole ring. The device
 * owes the interrupt only once its used descriptors cover that many.
 */
static void restart_after_counts_places(struct kunit *test)
{
	struct pt *pt = test->priv;
	const struct virtio4_queue_ops *ops = pt->vq->ops;
	unsigned int len;
	unsigned long t;

	for (t = 1; t <= 2; t++)
		KUNIT_ASSERT_EQ(test, pt_add(pt, t, 8, 8), 0);
	KUNIT_EXPECT_TRUE(test, ops->restart_after(pt->vq, 3));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 5 | PT_WRAP);
	dev_complete(pt, dev_take(pt), 0);
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_FALSE(test, ops->callback_due(pt->vq));
	KUNIT_ASSERT_EQ(test, pt_add(pt, 3, 8, 8), 0);
	dev_complete(pt, dev_take(pt), 0);
	KUNIT_EXPECT_TRUE(test, ops->callback_due(pt->vq));
	ops->disable(pt->vq);
	for (t = 1; t <= 3; t++)
		KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)t);

	/* Nothing in flight, last_used at place 6: one place a buffer, across the wrap. */
	KUNIT_EXPECT_TRUE(test, ops->restart_after(pt->vq, 3));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 0U);
	KUNIT_EXPECT_TRUE(test, ops->restart_after(pt->vq, 1000));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 5U);
	KUNIT_EXPECT_TRUE(test, ops->restart_after(pt->vq, 0));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap), 6 | PT_WRAP);
}

/* Without EVENT_IDX the driver asks for every interrupt or none. */
static void driver_area_without_event_idx(struct kunit *test)
{
	struct pt *pt = test->priv;

	virtio4_ring_del(pt->vq);
	pt_new(test, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags), VRING_PACKED_EVENT_FLAG_ENABLE);
	pt->vq->ops->disable(pt->vq);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags), VRING_PACKED_EVENT_FLAG_DISABLE);
	KUNIT_EXPECT_TRUE(test, pt->vq->ops->restart_delayed(pt->vq));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags), VRING_PACKED_EVENT_FLAG_ENABLE);
}

static void indirect_when_direct_does_not_fit(struct kunit *test)
{
	struct pt *pt = test->priv;
	struct ring_packed_desc *table, *d;
	unsigned int len, i;

	virtio4_ring_del(pt->vq);
	pt_new(test, BIT_ULL(VIRTIO_RING_F_INDIRECT_DESC));
	/* The new ring's last place (the old ring's memory is freed). */
	d = &pt->v.desc[PT_NUM - 1];
	for (i = 1; i < PT_NUM; i++)
		KUNIT_ASSERT_EQ(test, pt_add(pt, i, 8, 0), 0);
	/* One place left: a two-element buffer goes in an indirect table. */
	KUNIT_ASSERT_EQ(test, pt_add(pt, 100, 16, 32), 0);
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, 0U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(d->flags), VRING_DESC_F_INDIRECT | PT_AVAIL);
	KUNIT_ASSERT_EQ(test, le32_to_cpu(d->len), 2 * sizeof(*table));
	table = phys_to_virt(le64_to_cpu(d->addr));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(table[0].len), 16U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(table[0].flags), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(table[1].len), 32U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(table[1].flags), VRING_DESC_F_WRITE);
	for (i = 1; i < PT_NUM; i++)
		dev_take(pt);
	dev_use(pt, dev_take(pt), 32, 1);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)100UL);
	KUNIT_EXPECT_EQ(test, len, 32U);
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, 1U);
}

/* A one-element buffer @token is all the device finds; it comes back used. */
static void expect_alone(struct kunit *test, unsigned long token)
{
	struct pt *pt = test->priv;
	unsigned int len;
	int id;

	KUNIT_ASSERT_EQ(test, pt_add(pt, token, 0, 8), 0);
	id = dev_take(pt);
	KUNIT_ASSERT_GE(test, id, 0);
	KUNIT_EXPECT_EQ(test, dev_take(pt), -1);
	dev_complete(pt, id, 8);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)token);
}

/*
 * An add that fails once its descriptors are written (its in elements come
 * to 4 GiB, more than a used length can say) offers none of them, across
 * the end of the ring too: the one-element buffers added after it at the
 * same places are all the device finds, though the failed add's descriptors
 * lay beyond the first, written with the next lap's bits. (A failed DMA
 * mapping unwinds the same way with fewer places written; dma-direct does
 * not fail, so no case reaches it.)
 */
static void failed_add_offers_nothing(struct kunit *test)
{
	struct pt *pt = test->priv;
	struct scatterlist sg[3];
	unsigned int len;
	unsigned long t;

	for (t = 1; t < PT_NUM; t++) {
		KUNIT_ASSERT_EQ(test, pt_add(pt, t, 0, 8), 0);
		dev_complete(pt, dev_take(pt), 8);
		KUNIT_ASSERT_PTR_EQ(test, pt_get(pt, &len), (void *)t);
	}
	sg_init_table(sg, 3);
	sg_set_buf(&sg[0], pt->bufs, 16);
	sg_set_buf(&sg[1], pt->bufs + PT_BUF, PT_BUF);
	sg_set_buf(&sg[2], pt->bufs + PT_BUF, PT_BUF);
	sg[1].length = SZ_2G;
	sg[2].length = SZ_2G;
	KUNIT_EXPECT_EQ(test, pt->vq->ops->add_buf(pt->vq, sg, 1, 2, (void *)100UL), -EINVAL);
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, PT_NUM);
	expect_alone(test, 101);
	/* The next buffer, at place 0 of the next lap, is all there is there too. */
	expect_alone(test, 102);
	KUNIT_EXPECT_FALSE(test, pt->vq->broken);
}

/*
 * Add buffer @token of three elements: 16 bytes out, 8 in and @in_len in
 * (the last two at PT_BUF and PT_BUF + 8 into the test's first buffer).
 */
static int pt_add_three(struct pt *pt, unsigned long token, unsigned int in_len)
{
	struct scatterlist sg[3];
	int err;

	sg_init_table(sg, 3);
	sg_set_buf(&sg[0], pt->bufs, 16);
	sg_set_buf(&sg[1], pt->bufs + PT_BUF, 8);
	sg_set_buf(&sg[2], pt->bufs + PT_BUF + 8, 8);
	sg[2].length = in_len;
	err = pt->vq->ops->add_buf(pt->vq, sg, 1, 2, (void *)token);
	if (!err)
		pt->vq->ops->sync(pt->vq);
	return err;
}

/*
 * Behind the DMA API (VIRTIO_F_ACCESS_PLATFORM; dma-direct maps to physical
 * addresses) a chain takes one buffer id per descriptor, to record each
 * mapping. Two chains of three a round for three rounds of the ring, the
 * device using the second first: the device sees each element where it
 * is, with its length and the chain's flags, the chains take ids 0 and 3
 * (the ids go back to the free list whole), and each comes back with its
 * length; a chain whose in elements come to more than a used length can
 * say is refused with nothing offered; and detach_unused gives back what
 * is outstanding.
 */
static void dma_chains_come_back_whole(struct kunit *test)
{
	/* The two chains' six descriptors, as pt_add_three() lays them out. */
	static const u32 lens[6] = { 16, 8, 8, 16, 8, 4 };
	static const u32 offs[3] = { 0, PT_BUF, PT_BUF + 8 };
	static const u16 flags[3] = {
		VRING_DESC_F_NEXT, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE, VRING_DESC_F_WRITE,
	};
	struct pt *pt = test->priv;
	unsigned int len, round;
	unsigned long t;
	int id[2], i;

	virtio4_ring_del(pt->vq);
	pt_new(test, BIT_ULL(VIRTIO_RING_F_EVENT_IDX) | BIT_ULL(VIRTIO_F_ACCESS_PLATFORM));
	for (round = 0, t = 1; round < 4; round++, t += 2) {
		u16 at = pt->dev_next;

		KUNIT_ASSERT_EQ(test, pt_add_three(pt, t, 8), 0);
		KUNIT_ASSERT_EQ(test, pt_add_three(pt, t + 1, 4), 0);
		for (i = 0; i < 6; i++, at = pt_step(at, 1)) {
			const struct ring_packed_desc *d = pt_desc(pt, at);

			KUNIT_EXPECT_EQ(test, le64_to_cpu(d->addr),
					virt_to_phys(pt->bufs) + offs[i % 3]);
			KUNIT_EXPECT_EQ(test, le32_to_cpu(d->len), lens[i]);
			KUNIT_EXPECT_EQ(test, le16_to_cpu(d->flags) &
					(VRING_DESC_F_NEXT | VRING_DESC_F_WRITE), flags[i % 3]);
		}
		for (i = 0; i < 2; i++) {
			id[i] = dev_take(pt);
			KUNIT_ASSERT_GE(test, id[i], 0);
			KUNIT_EXPECT_EQ(test, pt->ndescs[id[i]], 3);
		}
		/* From the free list 0..7, back in order each round: three ids each. */
		KUNIT_EXPECT_EQ(test, id[0], 0);
		KUNIT_EXPECT_EQ(test, id[1], 3);
		dev_complete(pt, id[1], 12);
		dev_complete(pt, id[0], 16);
		KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)(t + 1));
		KUNIT_EXPECT_EQ(test, len, 12U);
		KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)t);
		KUNIT_EXPECT_EQ(test, len, 16U);
		KUNIT_EXPECT_EQ(test, pt->vq->num_free, PT_NUM);
	}
	KUNIT_EXPECT_EQ(test, pt_add_three(pt, 100, UINT_MAX - 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, PT_NUM);
	expect_alone(test, 101);
	KUNIT_ASSERT_EQ(test, pt_add_three(pt, 102, 8), 0);
	KUNIT_EXPECT_PTR_EQ(test, pt->vq->ops->detach_unused(pt->vq), (void *)102UL);
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, PT_NUM);
	KUNIT_EXPECT_FALSE(test, pt->vq->broken);
}

/*
 * After the device lies, nothing is completed, add_buf fails with -EIO,
 * restart does not ask the driver to poll again, and the driver gets every
 * outstanding buffer back from detach_unused.
 */
static void expect_broken(struct kunit *test)
{
	struct pt *pt = test->priv;
	unsigned int len;

	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), NULL);
	KUNIT_EXPECT_TRUE(test, virtio4_ring_is_broken(pt->vq));
	KUNIT_EXPECT_EQ(test, pt_add(pt, 50, 8, 8), -EIO);
	KUNIT_EXPECT_TRUE(test, pt->vq->ops->restart(pt->vq));
	while (pt->vq->ops->detach_unused(pt->vq))
		;
	KUNIT_EXPECT_EQ(test, pt->vq->num_free, PT_NUM);
}

/*
 * restart_delayed walks the used descriptors to see whether the device is
 * past the mark: an id not in flight stops the walk, reported as work to
 * do, and the get_buf that follows breaks the queue.
 */
static void restart_delayed_stops_at_a_lie(struct kunit *test)
{
	struct pt *pt = test->priv;

	KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 8, 0), 0);
	KUNIT_ASSERT_EQ(test, pt_add(pt, 2, 8, 0), 0);
	dev_take(pt);
	dev_use(pt, PT_NUM - 1, 0, 1);	/* no buffer has that id */
	KUNIT_EXPECT_FALSE(test, pt->vq->ops->restart_delayed(pt->vq));
	KUNIT_EXPECT_FALSE(test, pt->vq->broken);
	expect_broken(test);
}

static void used_id_out_of_range_breaks(struct kunit *test)
{
	struct pt *pt = test->priv;

	KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 8, 8), 0);
	dev_take(pt);
	dev_use(pt, PT_NUM, 0, 2);
	expect_broken(test);
}

static void used_id_not_in_flight_breaks(struct kunit *test)
{
	struct pt *pt = test->priv;
	int id;

	KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 8, 8), 0);
	id = dev_take(pt);
	dev_use(pt, (id + 1) % PT_NUM, 0, 2);
	expect_broken(test);
}

static void used_length_too_long_breaks(struct kunit *test)
{
	struct pt *pt = test->priv;

	KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 8, 8), 0);
	dev_complete(pt, dev_take(pt), 9);
	expect_broken(test);
}

/* A second used descriptor for a buffer already collected: nothing is in flight. */
static void duplicate_completion_breaks(struct kunit *test)
{
	struct pt *pt = test->priv;
	unsigned int len;
	int id;

	KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 8, 8), 0);
	id = dev_take(pt);
	dev_complete(pt, id, 8);
	dev_complete(pt, id, 8);
	KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)1UL);
	expect_broken(test);
}

/* A used flag where no buffer was ever offered. */
static void used_flag_with_nothing_offered_breaks(struct kunit *test)
{
	struct pt *pt = test->priv;

	dev_use(pt, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, virtio4_ring_interrupt(pt->vq), IRQ_HANDLED);
	KUNIT_EXPECT_EQ(test, pt->callbacks, 1U);
	expect_broken(test);
}

/*
 * A queue without a callback is polled: its driver area says DISABLE from
 * the start, with or without EVENT_IDX, and get_buf() never moves it.
 */
static void polled_queue_disables_driver_area(struct kunit *test)
{
	static const u64 features[] = { BIT_ULL(VIRTIO_RING_F_EVENT_IDX), 0 };
	struct pt *pt = test->priv;
	unsigned int len, i;

	for (i = 0; i < ARRAY_SIZE(features); i++) {
		virtio4_ring_del(pt->vq);
		pt_new_cb(test, features[i], NULL);
		KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags),
				VRING_PACKED_EVENT_FLAG_DISABLE);
		KUNIT_ASSERT_EQ(test, pt_add(pt, 1, 8, 8), 0);
		dev_complete(pt, dev_take(pt), 0);
		KUNIT_EXPECT_PTR_EQ(test, pt_get(pt, &len), (void *)1UL);
		KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->flags),
				VRING_PACKED_EVENT_FLAG_DISABLE);
		KUNIT_EXPECT_EQ(test, le16_to_cpu(pt->v.driver->off_wrap),
				features[i] ? PT_WRAP : 0);
	}
	KUNIT_EXPECT_EQ(test, pt->callbacks, 0U);
}

/* A packed ring may have any size up to 32768; 0 and more are refused. */
static void queue_sizes(struct kunit *test)
{
	static const unsigned int bad[] = { 0, 32769, 65536 };
	struct pt *pt = test->priv;
	struct virtio4_queue *vq;
	unsigned int i;

	vq = virtio4_ring_new(&pt->vdev, pt->dma_dev, 1, 100, pt_notify, pt,
			      pt_callback, "kunit-100");
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(vq), 0);
	if (!IS_ERR(vq)) {
		KUNIT_EXPECT_EQ(test, vq->num, 100U);
		virtio4_ring_del(vq);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		vq = virtio4_ring_new(&pt->vdev, pt->dma_dev, 1, bad[i], pt_notify,
				      pt, pt_callback, "kunit-bad");
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(vq), -EINVAL, "size %u", bad[i]);
		if (!IS_ERR(vq))
			virtio4_ring_del(vq);
	}
}

static struct kunit_case virtio4_packed_cases[] = {
	KUNIT_CASE(device_sees_a_chain_with_avail_bits),
	KUNIT_CASE(wrap_counters_flip_each_round),
	KUNIT_CASE(used_out_of_order),
	KUNIT_CASE(device_area_suppresses_kicks),
	KUNIT_CASE(stale_device_place_still_kicks),
	KUNIT_CASE(unsynced_lap_count_still_kicks),
	KUNIT_CASE(driver_area_follows_callbacks),
	KUNIT_CASE(driver_area_once_used_are_taken),
	KUNIT_CASE(restart_delayed_stops_at_a_lie),
	KUNIT_CASE(callback_due_past_the_mark),
	KUNIT_CASE(restart_after_counts_places),
	KUNIT_CASE(driver_area_without_event_idx),
	KUNIT_CASE(indirect_when_direct_does_not_fit),
	KUNIT_CASE(failed_add_offers_nothing),
	KUNIT_CASE(dma_chains_come_back_whole),
	KUNIT_CASE(used_id_out_of_range_breaks),
	KUNIT_CASE(used_id_not_in_flight_breaks),
	KUNIT_CASE(used_length_too_long_breaks),
	KUNIT_CASE(duplicate_completion_breaks),
	KUNIT_CASE(used_flag_with_nothing_offered_breaks),
	KUNIT_CASE(queue_sizes),
	KUNIT_CASE(polled_queue_disables_driver_area),
	{}
};

static struct kunit_suite virtio4_packed_suite = {
	.name = "virtio4-ring-packed",
	.init = pt_init,
	.exit = pt_exit,
	.test_cases = virtio4_packed_cases,
};

kunit_test_suite(virtio4_packed_suite);

MODULE_DESCRIPTION("virtio4 packed ring: layout, event suppression and hostile-device KUnit tests");
MODULE_LICENSE("GPL");
