// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit conformance suite of the draft-IV queue API, run against both
 * implementations: the descriptor ring, split (suite virtio4-api-ring) and
 * packed (virtio4-api-packed), and the copying transport (virtio4-api-copy).
 * The cases are the same functions; only the test device differs: for the
 * split ring it reads the available ring and writes the used ring, for the
 * packed one it takes available descriptors and writes used ones in their
 * places, for the copying transport it reads requests and writes
 * completions through the device host protocol. A fourth suite,
 * virtio4-copy-protocol, checks how the copying transport treats a device
 * host that sends bad completions.
 */
#include <kunit/test.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>
#include "../../ring/layout.h"
#include "../../transport/copy.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define API_NUM		8	/* queue size */
#define API_OUT		16	/* bytes of a buffer's out element */
#define API_IN		64	/* bytes of its in element */
#define API_RBUF	4096

struct api;

/* One implementation and its test device. */
struct api_impl {
	int (*init)(struct kunit *test, struct api *a);
	void (*exit)(struct api *a);
	/* The device takes the next available buffer: its handle, or -1. */
	s64 (*take)(struct api *a);
	/* The device uses buffer @handle, writing @len bytes. */
	void (*complete)(struct kunit *test, struct api *a, s64 handle, u32 len);
	/* Deliver the interrupts of completions so far. */
	void (*interrupt)(struct api *a);
};

struct api {
	const struct api_impl *impl;
	struct virtio4_queue *vq;
	unsigned int callbacks;
	bool cb_result;
	unsigned int collected;	/* by api_handoff_callback() */
	bool restarted;
	u8 *bufs;		/* API_NUM * 2 buffers of API_OUT + API_IN bytes */
	/* Ring. */
	struct device *dma_dev;
	struct virtio4_device ring_vdev;
	struct virtio4_ring_view view;
	u16 dev_avail;
	/* Packed ring: places with the wrap counter in bit 15. */
	struct virtio4_packed_view pview;
	u16 dev_next;			/* the next descriptor to take */
	u16 dev_used;			/* where the next used one goes */
	u16 dev_ndescs[API_NUM];	/* each taken buffer's descriptors, by id */
	/* Copying transport. */
	struct virtio4_device *copy_vdev;
	u8 *rbuf;
	u64 tokens[API_NUM];
	u32 in_lens[API_NUM];
	unsigned int ntokens;
};

static bool api_callback(struct virtio4_queue *vq)
{
	struct api *a = vq->priv;

	a->callbacks++;
	return a->cb_result;
}

/* --- The ring's test device. --- */

static bool ring_notify(struct virtio4_queue *vq, void *data)
{
	return true;
}

/* A ring of API_NUM descriptors with @features. */
static int ring_new(struct kunit *test, struct api *a, u64 features)
{
	a->dma_dev = kunit_kzalloc(test, sizeof(*a->dma_dev), GFP_KERNEL);
	if (!a->dma_dev)
		return -ENOMEM;
	/* A bare device, never registered: enough for dma-direct mappings. */
	a->dma_dev->dma_mask = &a->dma_dev->coherent_dma_mask;
	if (dma_set_mask_and_coherent(a->dma_dev, DMA_BIT_MASK(64)))
		return -EIO;
	a->ring_vdev.features = features;
	a->ring_vdev.ready = true;	/* the test is the bus: DRIVER_OK */
	a->vq = virtio4_ring_new(&a->ring_vdev, a->dma_dev, 0, API_NUM,
				 ring_notify, a, api_callback, "kunit");
	return PTR_ERR_OR_ZERO(a->vq);
}

static int ring_init(struct kunit *test, struct api *a)
{
	int err = ring_new(test, a, BIT_ULL(VIRTIO_RING_F_EVENT_IDX));

	if (!err)
		virtio4_ring_test_view(a->vq, &a->view);
	return err;
}

static void ring_exit(struct api *a)
{
	virtio4_ring_del(a->vq);
}

static s64 ring_take(struct api *a)
{
	u16 head;

	if (le16_to_cpu(READ_ONCE(a->view.avail->idx)) == a->dev_avail)
		return -1;
	head = le16_to_cpu(a->view.avail->ring[a->dev_avail % API_NUM]);
	a->dev_avail++;
	return head;
}

static void ring_complete(struct kunit *test, struct api *a, s64 head, u32 len)
{
	u16 idx = le16_to_cpu(a->view.used->idx);

	a->view.used->ring[idx % API_NUM].id = cpu_to_le32(head);
	a->view.used->ring[idx % API_NUM].len = cpu_to_le32(len);
	/* As a device must: the entry before the index that publishes it. */
	virt_wmb();
	WRITE_ONCE(a->view.used->idx, cpu_to_le16(idx + 1));
}

static void ring_interrupt(struct api *a)
{
	virtio4_ring_interrupt(a->vq);
}

static const struct api_impl api_ring = {
	.init = ring_init,
	.exit = ring_exit,
	.take = ring_take,
	.complete = ring_complete,
	.interrupt = ring_interrupt,
};

/* --- The packed ring's test device. --- */

#define API_WRAP	BIT(VRING_PACKED_EVENT_F_WRAP_CTR)
#define API_AVAIL	BIT(VRING_PACKED_DESC_F_AVAIL)
#define API_USED	BIT(VRING_PACKED_DESC_F_USED)

/* @at (a place and its wrap counter) moved on by @n places. */
static u16 packed_step(u16 at, unsigned int n)
{
	unsigned int place = (at & ~API_WRAP) + n;

	return place >= API_NUM ? (place - API_NUM) | ((at ^ API_WRAP) & API_WRAP) :
				  place | (at & API_WRAP);
}

static int packed_init(struct kunit *test, struct api *a)
{
	int err = ring_new(test, a, BIT_ULL(VIRTIO_RING_F_EVENT_IDX) |
				    BIT_ULL(VIRTIO_F_RING_PACKED));

	if (err)
		return err;
	virtio4_ring_test_packed_view(a->vq, &a->pview);
	a->dev_next = API_WRAP;
	a->dev_used = API_WRAP;
	return 0;
}

/* Take the buffer whose head is at dev_next, if available: its id. */
static s64 packed_take(struct api *a)
{
	struct ring_packed_desc *d = &a->pview.desc[a->dev_next & ~API_WRAP];
	bool wrap = a->dev_next & API_WRAP;
	u16 flags = le16_to_cpu(READ_ONCE(d->flags)), id, n = 1;

	if (!!(flags & API_AVAIL) != wrap || !!(flags & API_USED) == wrap)
		return -1;
	/* As a device must: the descriptor after the flags that offer it. */
	virt_rmb();
	id = le16_to_cpu(d->id);
	while (flags & VRING_DESC_F_NEXT)
		flags = le16_to_cpu(a->pview.desc[packed_step(a->dev_next, n++) & ~API_WRAP].flags);
	if (id < API_NUM)
		a->dev_ndescs[id] = n;
	a->dev_next = packed_step(a->dev_next, n);
	return id;
}

/* Write buffer @id's used descriptor at dev_used, and skip its places. */
static void packed_complete(struct kunit *test, struct api *a, s64 id, u32 len)
{
	struct ring_packed_desc *d = &a->pview.desc[a->dev_used & ~API_WRAP];

	d->id = cpu_to_le16(id);
	d->len = cpu_to_le32(len);
	/* The id and length before the flags that hand them back. */
	virt_wmb();
	WRITE_ONCE(d->flags, cpu_to_le16(a->dev_used & API_WRAP ? API_AVAIL | API_USED : 0));
	a->dev_used = packed_step(a->dev_used, a->dev_ndescs[id]);
}

static const struct api_impl api_packed = {
	.init = packed_init,
	.exit = ring_exit,
	.take = packed_take,
	.complete = packed_complete,
	.interrupt = ring_interrupt,
};

/* --- The copying transport's test device: a device host in the kernel. --- */

static int copy_init(struct kunit *test, struct api *a)
{
	struct virtio4_host_create c = {
		.device_id = 0xffff,
		.features = BIT_ULL(VIRTIO_F_VERSION_1),
		.num_queues = 1,
		.queue_size = { API_NUM },
	};
	virtio4_callback_t *cbs[] = { api_callback };
	const char * const names[] = { "kunit" };
	struct virtio4_queue *vqs[1];
	int err;

	a->rbuf = kunit_kzalloc(test, API_RBUF, GFP_KERNEL);
	if (!a->rbuf)
		return -ENOMEM;
	a->copy_vdev = virtio4_copy_test_create(&c);
	if (IS_ERR(a->copy_vdev))
		return PTR_ERR(a->copy_vdev);
	err = a->copy_vdev->config->find_vqs(a->copy_vdev, 1, vqs, cbs, names, NULL);
	if (err) {
		virtio4_copy_test_destroy(a->copy_vdev);
		return err;
	}
	a->copy_vdev->ready = true;	/* the test is the bus: DRIVER_OK */
	a->vq = vqs[0];
	return 0;
}

static void copy_exit(struct api *a)
{
	a->copy_vdev->config->del_vqs(a->copy_vdev);
	virtio4_copy_test_destroy(a->copy_vdev);
}

/* Read what the device host would; keep the tokens of the buffers. */
static ssize_t copy_read(struct api *a, size_t room)
{
	ssize_t n = virtio4_copy_test_read(a->copy_vdev, a->rbuf, room), pos = 0;
	struct virtio4_host_msg *m;

	while (pos < n) {
		m = (void *)(a->rbuf + pos);
		if (m->type == VIRTIO4_HOST_MSG_BUF && a->ntokens < API_NUM) {
			a->in_lens[a->ntokens] = m->in_len;
			a->tokens[a->ntokens++] = m->token;
		}
		pos += m->size;
	}
	return n;
}

static s64 copy_take(struct api *a)
{
	s64 token;

	if (!a->ntokens)
		copy_read(a, API_RBUF);
	if (!a->ntokens)
		return -1;
	token = a->tokens[0];
	a->ntokens--;
	memmove(a->tokens, a->tokens + 1, a->ntokens * sizeof(a->tokens[0]));
	memmove(a->in_lens, a->in_lens + 1, a->ntokens * sizeof(a->in_lens[0]));
	return token;
}

/* Write one completion of @len bytes of 0xab for @token; the write()'s result. */
static ssize_t copy_write(struct api *a, u64 token, u16 queue, u32 len, size_t size)
{
	struct virtio4_host_done *d = (void *)a->rbuf;

	memset(a->rbuf, 0, API_RBUF);
	d->token = token;
	d->queue = queue;
	d->len = len;
	memset(d + 1, 0xab, min_t(size_t, len, API_RBUF - sizeof(*d)));
	return virtio4_copy_test_write(a->copy_vdev, a->rbuf, size);
}

static size_t copy_done_size(u32 len)
{
	return sizeof(struct virtio4_host_done) + VIRTIO4_HOST_ALIGN(len);
}

static void copy_complete(struct kunit *test, struct api *a, s64 token, u32 len)
{
	KUNIT_EXPECT_EQ(test, copy_write(a, token, 0, len, copy_done_size(len)),
			(ssize_t)copy_done_size(len));
}

static void copy_interrupt(struct api *a)
{
	virtio4_copy_test_interrupts(a->copy_vdev);
}

static const struct api_impl api_copy = {
	.init = copy_init,
	.exit = copy_exit,
	.take = copy_take,
	.complete = copy_complete,
	.interrupt = copy_interrupt,
};

/* --- The cases, the same for both. --- */

static int api_init(struct kunit *test, const struct api_impl *impl)
{
	struct api *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->bufs = kunit_kzalloc(test, API_NUM * 2 * (API_OUT + API_IN), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a->bufs);
	a->impl = impl;
	a->cb_result = true;
	KUNIT_ASSERT_EQ(test, impl->init(test, a), 0);
	a->vq->priv = a;
	test->priv = a;
	return 0;
}

static int api_ring_init(struct kunit *test)
{
	return api_init(test, &api_ring);
}

static int api_packed_init(struct kunit *test)
{
	return api_init(test, &api_packed);
}

static int api_copy_init(struct kunit *test)
{
	return api_init(test, &api_copy);
}

static void api_exit(struct kunit *test)
{
	struct api *a = test->priv;

	if (a && a->vq)
		a->impl->exit(a);
}

/* Add a buffer of one out and one in element with token @token, and sync. */
static int api_add(struct api *a, unsigned long token)
{
	u8 *buf = a->bufs + (token % (2 * API_NUM)) * (API_OUT + API_IN);
	struct scatterlist sg[2];
	int err;

	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf, API_OUT);
	sg_set_buf(&sg[1], buf + API_OUT, API_IN);
	err = a->vq->ops->add_buf(a->vq, sg, 1, 1, (void *)token);
	if (!err)
		a->vq->ops->sync(a->vq);
	return err;
}

/* The device uses the next available buffer, writing @len bytes. */
static void api_use_next(struct kunit *test, u32 len)
{
	struct api *a = test->priv;
	s64 handle = a->impl->take(a);

	KUNIT_ASSERT_GE(test, handle, 0);
	a->impl->complete(test, a, handle, len);
}

static void *api_get(struct api *a, unsigned int *len)
{
	return a->vq->ops->get_buf(a->vq, len);
}

static void full_queue_enospc_until_get_buf(struct kunit *test)
{
	struct api *a = test->priv;
	unsigned int i, len;

	for (i = 1; i <= API_NUM / 2; i++)
		KUNIT_ASSERT_EQ(test, api_add(a, i), 0);
	KUNIT_EXPECT_EQ(test, a->vq->num_free, 0U);
	KUNIT_EXPECT_EQ(test, api_add(a, 99), -ENOSPC);
	api_use_next(test, 0);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), (void *)1UL);
	KUNIT_EXPECT_EQ(test, a->vq->num_free, 2U);
	KUNIT_EXPECT_EQ(test, api_add(a, 99), 0);
}

static void tokens_and_lengths_come_back(struct kunit *test)
{
	struct api *a = test->priv;
	s64 h1, h2, h3;
	unsigned int len = 0;

	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_ASSERT_EQ(test, api_add(a, 2), 0);
	KUNIT_ASSERT_EQ(test, api_add(a, 3), 0);
	h1 = a->impl->take(a);
	h2 = a->impl->take(a);
	h3 = a->impl->take(a);
	KUNIT_ASSERT_TRUE(test, h1 >= 0 && h2 >= 0 && h3 >= 0);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), NULL);
	/* Out of order, each with its own length. */
	a->impl->complete(test, a, h3, 33);
	a->impl->complete(test, a, h1, 0);
	a->impl->complete(test, a, h2, API_IN);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), (void *)3UL);
	KUNIT_EXPECT_EQ(test, len, 33U);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), (void *)1UL);
	KUNIT_EXPECT_EQ(test, len, 0U);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), (void *)2UL);
	KUNIT_EXPECT_EQ(test, len, (unsigned int)API_IN);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), NULL);
	KUNIT_EXPECT_EQ(test, a->vq->num_free, (unsigned int)API_NUM);
}

static void bad_buffers_einval(struct kunit *test)
{
	struct api *a = test->priv;
	struct scatterlist sg[1];

	sg_init_one(sg, a->bufs, API_OUT);
	KUNIT_EXPECT_EQ(test, a->vq->ops->add_buf(a->vq, sg, 0, 0, (void *)1UL), -EINVAL);
	KUNIT_EXPECT_EQ(test, a->vq->ops->add_buf(a->vq, sg, 1, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, a->vq->num_free, (unsigned int)API_NUM);
}

static void detach_unused_and_unknown(struct kunit *test)
{
	struct api *a = test->priv;
	unsigned int len;

	KUNIT_ASSERT_EQ(test, api_add(a, 7), 0);
	KUNIT_EXPECT_EQ(test, a->vq->ops->detach_buf(a->vq, (void *)8UL), -ENOENT);
	KUNIT_EXPECT_EQ(test, a->vq->ops->detach_buf(a->vq, (void *)7UL), 0);
	KUNIT_EXPECT_EQ(test, a->vq->ops->detach_buf(a->vq, (void *)7UL), -ENOENT);
	KUNIT_EXPECT_EQ(test, a->vq->num_free, (unsigned int)API_NUM);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), NULL);
	KUNIT_EXPECT_PTR_EQ(test, a->vq->ops->detach_unused(a->vq), NULL);
}

static void detach_unused_returns_each_once(struct kunit *test)
{
	struct api *a = test->priv;
	unsigned long seen = 0, t;
	void *data;

	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_ASSERT_EQ(test, api_add(a, 2), 0);
	KUNIT_ASSERT_EQ(test, api_add(a, 3), 0);
	while ((data = a->vq->ops->detach_unused(a->vq))) {
		t = (unsigned long)data;
		KUNIT_EXPECT_FALSE(test, seen & BIT(t));
		seen |= BIT(t);
	}
	KUNIT_EXPECT_EQ(test, seen, BIT(1) | BIT(2) | BIT(3));
	KUNIT_EXPECT_EQ(test, a->vq->num_free, (unsigned int)API_NUM);
}

static void callbacks_stop_after_false(struct kunit *test)
{
	struct api *a = test->priv;
	unsigned int len;

	a->cb_result = false;
	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_ASSERT_EQ(test, api_add(a, 2), 0);
	KUNIT_ASSERT_EQ(test, api_add(a, 3), 0);
	api_use_next(test, 0);
	a->impl->interrupt(a);
	KUNIT_EXPECT_EQ(test, a->callbacks, 1U);
	api_use_next(test, 0);
	a->impl->interrupt(a);
	KUNIT_EXPECT_EQ(test, a->callbacks, 1U);	/* off now */
	/* Used buffers pending: restart refuses and leaves callbacks off. */
	KUNIT_EXPECT_FALSE(test, a->vq->ops->restart(a->vq));
	KUNIT_EXPECT_NOT_NULL(test, api_get(a, &len));
	KUNIT_EXPECT_FALSE(test, a->vq->ops->restart(a->vq));
	api_use_next(test, 0);
	a->impl->interrupt(a);
	KUNIT_EXPECT_EQ(test, a->callbacks, 1U);
	KUNIT_EXPECT_NOT_NULL(test, api_get(a, &len));
	KUNIT_EXPECT_NOT_NULL(test, api_get(a, &len));
	KUNIT_EXPECT_TRUE(test, a->vq->ops->restart(a->vq));
	/* On again: the next completion calls back. */
	KUNIT_ASSERT_EQ(test, api_add(a, 4), 0);
	api_use_next(test, 0);
	a->impl->interrupt(a);
	KUNIT_EXPECT_EQ(test, a->callbacks, 2U);
}

static void restart_true_when_nothing_pending(struct kunit *test)
{
	struct api *a = test->priv;

	KUNIT_EXPECT_TRUE(test, a->vq->ops->restart(a->vq));
	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	/* Outstanding but not used is not pending. */
	KUNIT_EXPECT_TRUE(test, a->vq->ops->restart(a->vq));
	api_use_next(test, 5);
	KUNIT_EXPECT_FALSE(test, a->vq->ops->restart(a->vq));
}

/*
 * callback_due, as a driver's timer asks it: after restart, a buffer used
 * owes the interrupt (the implementation's interrupt then calls back); with
 * callbacks off nothing is owed.
 */
static void callback_due_once_used(struct kunit *test)
{
	struct api *a = test->priv;
	unsigned int len;

	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_ASSERT_TRUE(test, a->vq->ops->restart(a->vq));
	KUNIT_EXPECT_FALSE(test, a->vq->ops->callback_due(a->vq));
	api_use_next(test, 5);
	KUNIT_EXPECT_TRUE(test, a->vq->ops->callback_due(a->vq));
	a->vq->ops->disable(a->vq);
	KUNIT_EXPECT_FALSE(test, a->vq->ops->callback_due(a->vq));
	KUNIT_EXPECT_PTR_EQ(test, a->vq->ops->get_buf(a->vq, &len), (void *)1UL);
}

/*
 * A callback that hands the work on, as to NAPI: it turns callbacks off,
 * the poll (run at once here, as on another CPU) collects and restarts the
 * queue, and the callback returns true. The restart must stay in force: a
 * callback returning false after the hand-over would turn callbacks off
 * behind the poll's back, with nothing left to collect the next buffer.
 */
static bool api_handoff_callback(struct virtio4_queue *vq)
{
	struct api *a = vq->priv;
	unsigned int len;

	a->callbacks++;
	vq->ops->disable(vq);
	while (vq->ops->get_buf(vq, &len))
		a->collected++;
	a->restarted = vq->ops->restart(vq);
	return true;
}

static void handoff_restart_stays_in_force(struct kunit *test)
{
	struct api *a = test->priv;

	a->vq->cb = api_handoff_callback;
	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_ASSERT_EQ(test, api_add(a, 2), 0);
	api_use_next(test, 0);
	a->impl->interrupt(a);
	KUNIT_EXPECT_EQ(test, a->callbacks, 1U);
	KUNIT_EXPECT_EQ(test, a->collected, 1U);
	KUNIT_EXPECT_TRUE(test, a->restarted);
	api_use_next(test, 0);
	a->impl->interrupt(a);
	KUNIT_EXPECT_EQ(test, a->callbacks, 2U);
	KUNIT_EXPECT_EQ(test, a->collected, 2U);
}

/* disable() holds until restart(), whatever the callback returns. */
static void disable_holds_until_restart(struct kunit *test)
{
	struct api *a = test->priv;
	unsigned int len;

	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_ASSERT_EQ(test, api_add(a, 2), 0);
	a->vq->ops->disable(a->vq);
	api_use_next(test, 0);
	a->impl->interrupt(a);
	KUNIT_EXPECT_EQ(test, a->callbacks, 0U);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), (void *)1UL);
	KUNIT_EXPECT_TRUE(test, a->vq->ops->restart(a->vq));
	api_use_next(test, 0);
	a->impl->interrupt(a);
	KUNIT_EXPECT_EQ(test, a->callbacks, 1U);
}

static void polling_with_callbacks_off(struct kunit *test)
{
	struct api *a = test->priv;
	unsigned int i, len, got = 0;

	a->cb_result = false;
	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	api_use_next(test, 1);
	a->impl->interrupt(a);
	KUNIT_ASSERT_EQ(test, a->callbacks, 1U);
	for (i = 2; i <= API_NUM / 2; i++)
		KUNIT_ASSERT_EQ(test, api_add(a, i), 0);
	for (i = 2; i <= API_NUM / 2; i++)
		api_use_next(test, i);
	a->impl->interrupt(a);
	while (api_get(a, &len))
		got++;
	KUNIT_EXPECT_EQ(test, got, (unsigned int)API_NUM / 2);
	KUNIT_EXPECT_EQ(test, a->callbacks, 1U);
}

/*
 * The same cases in three arrays: KUnit keeps each case's log in its struct
 * kunit_case, so two suites cannot share one array. Keep them alike.
 */
static struct kunit_case api_ring_cases[] = {
	KUNIT_CASE(full_queue_enospc_until_get_buf),
	KUNIT_CASE(tokens_and_lengths_come_back),
	KUNIT_CASE(bad_buffers_einval),
	KUNIT_CASE(detach_unused_and_unknown),
	KUNIT_CASE(detach_unused_returns_each_once),
	KUNIT_CASE(callbacks_stop_after_false),
	KUNIT_CASE(restart_true_when_nothing_pending),
	KUNIT_CASE(callback_due_once_used),
	KUNIT_CASE(polling_with_callbacks_off),
	KUNIT_CASE(handoff_restart_stays_in_force),
	KUNIT_CASE(disable_holds_until_restart),
	{}
};

static struct kunit_case api_packed_cases[] = {
	KUNIT_CASE(full_queue_enospc_until_get_buf),
	KUNIT_CASE(tokens_and_lengths_come_back),
	KUNIT_CASE(bad_buffers_einval),
	KUNIT_CASE(detach_unused_and_unknown),
	KUNIT_CASE(detach_unused_returns_each_once),
	KUNIT_CASE(callbacks_stop_after_false),
	KUNIT_CASE(restart_true_when_nothing_pending),
	KUNIT_CASE(callback_due_once_used),
	KUNIT_CASE(polling_with_callbacks_off),
	KUNIT_CASE(handoff_restart_stays_in_force),
	KUNIT_CASE(disable_holds_until_restart),
	{}
};

static struct kunit_case api_copy_cases[] = {
	KUNIT_CASE(full_queue_enospc_until_get_buf),
	KUNIT_CASE(tokens_and_lengths_come_back),
	KUNIT_CASE(bad_buffers_einval),
	KUNIT_CASE(detach_unused_and_unknown),
	KUNIT_CASE(detach_unused_returns_each_once),
	KUNIT_CASE(callbacks_stop_after_false),
	KUNIT_CASE(restart_true_when_nothing_pending),
	KUNIT_CASE(callback_due_once_used),
	KUNIT_CASE(polling_with_callbacks_off),
	KUNIT_CASE(handoff_restart_stays_in_force),
	KUNIT_CASE(disable_holds_until_restart),
	{}
};

static struct kunit_suite api_ring_suite = {
	.name = "virtio4-api-ring",
	.init = api_ring_init,
	.exit = api_exit,
	.test_cases = api_ring_cases,
};

static struct kunit_suite api_packed_suite = {
	.name = "virtio4-api-packed",
	.init = api_packed_init,
	.exit = api_exit,
	.test_cases = api_packed_cases,
};

static struct kunit_suite api_copy_suite = {
	.name = "virtio4-api-copy",
	.init = api_copy_init,
	.exit = api_exit,
	.test_cases = api_copy_cases,
};

/* --- The copying transport against a device host that lies. --- */

static void bytes_cross_both_ways(struct kunit *test)
{
	struct api *a = test->priv;
	struct virtio4_host_msg *m = (void *)a->rbuf;
	u8 *buf = a->bufs + 1 * (API_OUT + API_IN);
	unsigned int len, i;
	u64 token;

	for (i = 0; i < API_OUT; i++)
		buf[i] = i + 1;
	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_ASSERT_EQ(test, virtio4_copy_test_read(a->copy_vdev, a->rbuf, API_RBUF),
			(ssize_t)(sizeof(*m) + API_OUT));
	KUNIT_EXPECT_EQ(test, m->type, VIRTIO4_HOST_MSG_BUF);
	KUNIT_EXPECT_EQ(test, m->out_len, (u32)API_OUT);
	KUNIT_EXPECT_EQ(test, m->in_len, (u32)API_IN);
	KUNIT_EXPECT_EQ(test, memcmp(m + 1, buf, API_OUT), 0);
	token = m->token;
	copy_complete(test, a, token, 10);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), (void *)1UL);
	KUNIT_EXPECT_EQ(test, len, 10U);
	KUNIT_EXPECT_EQ(test, buf[API_OUT], 0xab);
	KUNIT_EXPECT_EQ(test, buf[API_OUT + 9], 0xab);
	KUNIT_EXPECT_EQ(test, buf[API_OUT + 10], 0);
}

/* @size bytes of a completion for the one taken buffer must fail with EINVAL. */
static void expect_refused(struct kunit *test, u64 token, u16 queue, u32 len,
			   size_t size)
{
	struct api *a = test->priv;
	unsigned int got;

	KUNIT_EXPECT_EQ(test, copy_write(a, token, queue, len, size), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &got), NULL);
}

static s64 take_one(struct kunit *test)
{
	struct api *a = test->priv;
	s64 token;

	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	token = a->impl->take(a);
	KUNIT_ASSERT_GE(test, token, 0);
	return token;
}

/* After a refused completion, the right one still works. */
static void expect_still_works(struct kunit *test, s64 token)
{
	struct api *a = test->priv;
	unsigned int len;

	copy_complete(test, a, token, 1);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), (void *)1UL);
}

static void unknown_token_einval(struct kunit *test)
{
	s64 token = take_one(test);

	expect_refused(test, token ^ 1, 0, 0, copy_done_size(0));
	expect_refused(test, token + (1ULL << 32), 0, 0, copy_done_size(0));
	expect_refused(test, API_NUM + 5, 0, 0, copy_done_size(0));
	expect_still_works(test, token);
}

static void length_beyond_room_einval(struct kunit *test)
{
	s64 token = take_one(test);

	expect_refused(test, token, 0, API_IN + 1, copy_done_size(API_IN + 1));
	expect_still_works(test, token);
}

static void duplicate_completion_einval(struct kunit *test)
{
	struct api *a = test->priv;
	s64 token = take_one(test);

	expect_still_works(test, token);
	KUNIT_EXPECT_EQ(test, copy_write(a, token, 0, 0, copy_done_size(0)), -EINVAL);
	KUNIT_EXPECT_EQ(test, a->vq->num_free, (unsigned int)API_NUM);
}

static void bad_queue_or_record_einval(struct kunit *test)
{
	struct api *a = test->priv;
	struct virtio4_host_done *d = (void *)a->rbuf;
	s64 token = take_one(test);

	expect_refused(test, token, 1, 0, copy_done_size(0));
	expect_refused(test, token, 0, 8, copy_done_size(8) - 8);	/* bytes missing */
	expect_refused(test, token, 0, 0, sizeof(*d) - 1);		/* short header */
	memset(d, 0, sizeof(*d));
	d->token = token;
	d->reserved = 1;
	KUNIT_EXPECT_EQ(test, virtio4_copy_test_write(a->copy_vdev, d, sizeof(*d)), -EINVAL);
	expect_still_works(test, token);
}

static void small_read_buffer_enobufs(struct kunit *test)
{
	struct api *a = test->priv;

	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_EXPECT_EQ(test, virtio4_copy_test_read(a->copy_vdev, a->rbuf, 8), -ENOBUFS);
	/* The record is still there: poll() says so (no kick will come for it). */
	KUNIT_EXPECT_TRUE(test, virtio4_copy_test_poll(a->copy_vdev) & EPOLLIN);
	KUNIT_EXPECT_GT(test, copy_read(a, API_RBUF), 0);
	KUNIT_EXPECT_EQ(test, a->ntokens, 1U);
	KUNIT_EXPECT_EQ(test, virtio4_copy_test_read(a->copy_vdev, a->rbuf, API_RBUF), -EAGAIN);
}

/*
 * poll() says readable only while a record is there to read: not after the
 * read() that took it, nor once the driver took its buffer back (a device
 * host polling two files would block in that read() and starve the other).
 */
static void poll_readable_only_with_a_record(struct kunit *test)
{
	struct api *a = test->priv;

	KUNIT_EXPECT_FALSE(test, virtio4_copy_test_poll(a->copy_vdev) & EPOLLIN);
	KUNIT_ASSERT_EQ(test, api_add(a, 1), 0);
	KUNIT_EXPECT_TRUE(test, virtio4_copy_test_poll(a->copy_vdev) & EPOLLIN);
	KUNIT_EXPECT_GT(test, copy_read(a, API_RBUF), 0);
	KUNIT_EXPECT_FALSE(test, virtio4_copy_test_poll(a->copy_vdev) & EPOLLIN);
	KUNIT_ASSERT_EQ(test, api_add(a, 2), 0);
	KUNIT_ASSERT_EQ(test, a->vq->ops->detach_buf(a->vq, (void *)2UL), 0);
	KUNIT_EXPECT_FALSE(test, virtio4_copy_test_poll(a->copy_vdev) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, virtio4_copy_test_read(a->copy_vdev, a->rbuf, API_RBUF), -EAGAIN);
	KUNIT_EXPECT_TRUE(test, virtio4_copy_test_poll(a->copy_vdev) & EPOLLOUT);
}

static void completion_after_reset_ignored(struct kunit *test)
{
	struct api *a = test->priv;
	s64 token = take_one(test);
	unsigned int len;

	a->copy_vdev->config->reset(a->copy_vdev);
	/* Taken and dropped without complaint: the buffer is the driver's again. */
	copy_complete(test, a, token, 1);
	KUNIT_EXPECT_PTR_EQ(test, api_get(a, &len), NULL);
	KUNIT_EXPECT_PTR_EQ(test, a->vq->ops->detach_unused(a->vq), (void *)1UL);
	KUNIT_EXPECT_EQ(test, a->vq->num_free, (unsigned int)API_NUM);
}

static void bad_create_einval(struct kunit *test)
{
	struct virtio4_host_create c = {
		.device_id = 1, .num_queues = 1, .queue_size = { 8 },
	};
	struct virtio4_host_create bad;

	bad = c;
	bad.num_queues = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(virtio4_copy_test_create(&bad)), -EINVAL);
	bad = c;
	bad.num_queues = VIRTIO4_HOST_MAX_QUEUES + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(virtio4_copy_test_create(&bad)), -EINVAL);
	bad = c;
	bad.queue_size[0] = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(virtio4_copy_test_create(&bad)), -EINVAL);
	bad = c;
	bad.config_len = VIRTIO4_HOST_CONFIG_SIZE + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(virtio4_copy_test_create(&bad)), -EINVAL);
	bad = c;
	bad.device_id = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(virtio4_copy_test_create(&bad)), -EINVAL);
}

static struct kunit_case copy_protocol_cases[] = {
	KUNIT_CASE(bytes_cross_both_ways),
	KUNIT_CASE(unknown_token_einval),
	KUNIT_CASE(length_beyond_room_einval),
	KUNIT_CASE(duplicate_completion_einval),
	KUNIT_CASE(bad_queue_or_record_einval),
	KUNIT_CASE(small_read_buffer_enobufs),
	KUNIT_CASE(poll_readable_only_with_a_record),
	KUNIT_CASE(completion_after_reset_ignored),
	KUNIT_CASE(bad_create_einval),
	{}
};

static struct kunit_suite copy_protocol_suite = {
	.name = "virtio4-copy-protocol",
	.init = api_copy_init,
	.exit = api_exit,
	.test_cases = copy_protocol_cases,
};

kunit_test_suites(&api_ring_suite, &api_packed_suite, &api_copy_suite,
		  &copy_protocol_suite);

MODULE_DESCRIPTION("KUnit: the draft-IV queue API on both implementations");
MODULE_LICENSE("GPL");
