// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: our ring (ring/ring.c and ring/packed.c, built in
 * userspace on the kernel's tools/virtio stubs) against a device that
 * writes anything it likes into the used ring. The input is a program: each
 * byte picks the next step, driver's (add, sync, get, restart, detach) or
 * device's (a used entry with any id and length, any used index, any
 * flags), and the bytes after it are the step's arguments.
 * Built twice: fuzz-ring for the split layout, and with FUZZ_PACKED
 * fuzz-packed for the packed one, whose device writes used descriptors
 * (any id, length and flags, at its cursor or anywhere), flips any
 * descriptor's flags and writes anything into its event area.
 *
 * Whatever the device writes, the ring must only ever hand back a token
 * that is outstanding, once, with a length within the buffer's room; every
 * buffer must come back (get_buf, detach_buf or detach_unused) exactly
 * once; nothing may be read or written out of bounds or leaked (ASan,
 * UBSan, LeakSanitizer).
 */
#include <linux/scatterlist.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>
#include "../../ring/layout.h"
#include "fuzz.h"

#define MAX_NUM		16	/* largest ring tried */
#define TOKENS		64	/* buffers the model tracks */
#define MAX_STEPS	4096

/* What the driver side knows of each buffer. */
struct token {
	bool outstanding;
	u32 in_len;
	u8 data[4][64];
};

FUZZ_ALLOC_HOOKS;

static struct token tokens[TOKENS];
static struct virtio4_device vdev;
static struct device dma_dev;

static bool fuzz_notify(struct virtio4_queue *vq, void *data)
{
	return true;
}

static bool fuzz_callback(struct virtio4_queue *vq)
{
	return true;
}

/* A token the ring handed back: it must be ours and outstanding. */
static struct token *returned(void *data)
{
	struct token *t = data;

	CHECK(t >= tokens && t < tokens + TOKENS);
	CHECK(t->outstanding);
	t->outstanding = false;
	return t;
}

static void step_add(struct virtio4_queue *vq, struct input *in)
{
	unsigned int n = 1 + take8(in) % 4, out = take8(in) % (n + 1), i;
	struct token *t = &tokens[take8(in) % TOKENS];
	struct scatterlist sg[4];
	int err;

	if (t->outstanding)
		return;
	sg_init_table(sg, n);
	t->in_len = 0;
	for (i = 0; i < n; i++) {
		unsigned int len = 1 + take8(in) % 64;

		sg_set_buf(&sg[i], t->data[i], len);
		if (i >= out)
			t->in_len += len;
	}
	err = vq->ops->add_buf(vq, sg, out, n - out, t);
	CHECK(!err || err == -ENOSPC || err == -EIO || err == -EINVAL || err == -ENOMEM);
	t->outstanding = !err;
}

static void step_get(struct virtio4_queue *vq)
{
	unsigned int len;
	void *data = vq->ops->get_buf(vq, &len);

	if (data)
		CHECK(len <= returned(data)->in_len);
}

#ifdef FUZZ_PACKED
#define WRAP		(1 << VRING_PACKED_EVENT_F_WRAP_CTR)
#define USED_BITS	(1 << VRING_PACKED_DESC_F_AVAIL | 1 << VRING_PACKED_DESC_F_USED)

/* The device's view: its ring, event area and where it writes the next used descriptor. */
struct device_side {
	struct ring_packed_desc *desc;
	struct ring_packed_event *event;
	u16 cursor;		/* a place, the wrap counter in bit 15 */
};

/* A used descriptor: often at the cursor with the right bits, so that it gets read. */
static void step_used_entry(struct virtio4_queue *vq, struct device_side *dev,
			    struct input *in)
{
	u8 how = take8(in), skip = take8(in);
	u16 id = take16(in), at = how & 8 ? take16(in) % vq->num : dev->cursor & ~WRAP;
	u32 len = take32(in);
	u16 flags = dev->cursor & WRAP ? USED_BITS : 0;

	if (how & 1)
		id %= vq->num;
	if (how & 2)
		len %= 256;
	if (how & 4)
		flags = take16(in);
	dev->desc[at].id = id;
	dev->desc[at].len = len;
	__atomic_store_n(&dev->desc[at].flags, flags, __ATOMIC_RELEASE);
	/* Move on by what the ring says the buffer had, or by anything. */
	at = (dev->cursor & ~WRAP) + 1 + skip % vq->num;
	dev->cursor = at >= vq->num ? (at - vq->num) | ((dev->cursor ^ WRAP) & WRAP) :
				      at | (dev->cursor & WRAP);
}

static void step_device_flags(struct virtio4_queue *vq, struct device_side *dev,
			      struct input *in)
{
	u16 at = take16(in) % vq->num;

	__atomic_store_n(&dev->desc[at].flags, take16(in), __ATOMIC_RELEASE);
}

static void step_device_event(struct device_side *dev, struct input *in)
{
	dev->event->off_wrap = take16(in);
	dev->event->flags = take8(in) % 4;
}

static struct device_side *device_side(struct virtio4_queue *vq,
				       struct virtio4_ring_layout *layout)
{
	static struct device_side dev;

	dev.desc = (void *)(unsigned long)layout->desc;
	dev.event = (void *)(unsigned long)layout->used;
	dev.cursor = WRAP;
	return &dev;
}

static u64 layout_feature(void)
{
	return 1ULL << VIRTIO_F_RING_PACKED;
}
#else
struct device_side {
	struct vring_used *used;
	unsigned int num;
};

static void step_used_entry(struct virtio4_queue *vq, struct device_side *dev,
			    struct input *in)
{
	struct vring_used *used = dev->used;
	u8 how = take8(in);
	u32 id = take32(in), len = take32(in);
	u16 idx = used->idx;

	/* Often plausible values, so that the fuzzer gets past the first check. */
	if (how & 1)
		id %= vq->num;
	if (how & 2)
		len %= 256;
	used->ring[idx % vq->num].id = id;
	used->ring[idx % vq->num].len = len;
	__atomic_store_n(&used->idx, (u16)(idx + (how & 4 ? take8(in) : 1)), __ATOMIC_RELEASE);
}

/* Any used index. */
static void step_device_flags(struct virtio4_queue *vq, struct device_side *dev,
			      struct input *in)
{
	__atomic_store_n(&dev->used->idx, (u16)take32(in), __ATOMIC_RELEASE);
}

/* The device's own fields: flags and avail_event. */
static void step_device_event(struct device_side *dev, struct input *in)
{
	dev->used->flags = take8(in);
	*(u16 *)&dev->used->ring[dev->num] = take8(in);
}

static struct device_side *device_side(struct virtio4_queue *vq,
				       struct virtio4_ring_layout *layout)
{
	static struct device_side dev;

	dev.used = (void *)(unsigned long)layout->used;
	dev.num = vq->num;
	return &dev;
}

static u64 layout_feature(void)
{
	return 0;
}
#endif

static void step_detach(struct virtio4_queue *vq, struct input *in)
{
	struct token *t = &tokens[take8(in) % TOKENS];
	int err = vq->ops->detach_buf(vq, t);

	/* Ours and outstanding: it must come back; otherwise it must not. */
	CHECK(err == (t->outstanding ? 0 : -ENOENT));
	t->outstanding = false;
}

static bool detach_one(struct virtio4_queue *vq)
{
	void *data = vq->ops->detach_unused(vq);

	if (data)
		returned(data);
	return data;
}

/* One of the three restarts; restart_after's count from the input, up to past the ring. */
static void step_restart(struct virtio4_queue *vq, struct input *in)
{
	u8 how = take8(in);

	if (how < 128)
		vq->ops->restart(vq);
	else if (how < 192)
		vq->ops->restart_delayed(vq);
	else
		vq->ops->restart_after(vq, how - 192);
}

static void run(struct virtio4_queue *vq, struct device_side *dev, struct input *in)
{
	unsigned int steps = 0;

	while (in->left && steps++ < MAX_STEPS) {
		switch (take8(in) % 10) {
		case 0:
			step_add(vq, in);
			break;
		case 1:
			vq->ops->sync(vq);
			break;
		case 2:
			step_used_entry(vq, dev, in);
			break;
		case 3:
			step_device_flags(vq, dev, in);
			break;
		case 4:
			step_get(vq);
			break;
		case 5:
			step_restart(vq, in);
			break;
		case 6:
			if (take8(in) & 1)
				virtio4_ring_interrupt(vq);
			else
				virtio4_ring_shared_interrupt(vq);
			break;
		case 7:
			step_detach(vq, in);
			break;
		case 8:
			step_device_event(dev, in);
			break;
		default:
			detach_one(vq);
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct virtio4_ring_layout layout;
	struct virtio4_queue *vq;
	unsigned int i, num;
	u8 setup = take8(&in);

	vdev.features = (setup & 1 ? 1ULL << VIRTIO_RING_F_EVENT_IDX : 0) |
			(setup & 2 ? 1ULL << VIRTIO_RING_F_INDIRECT_DESC : 0) | layout_feature();
	num = 1U << (setup >> 2) % 5;
	CHECK(num <= MAX_NUM);
	vq = virtio4_ring_new(&vdev, &dma_dev, 0, num, fuzz_notify, NULL,
			      fuzz_callback, "fuzz");
	CHECK(!IS_ERR(vq));
	virtio4_ring_layout(vq, &layout);
	run(vq, device_side(vq, &layout), &in);
	/* The device is reset: every buffer still out comes back, once. */
	while (detach_one(vq))
		;
	for (i = 0; i < TOKENS; i++)
		CHECK(!tokens[i].outstanding);
	CHECK(vq->num_free == num);
	virtio4_ring_del(vq);
	return 0;
}
