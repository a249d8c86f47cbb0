// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the copying transport (transport/copy.c, built in
 * userspace, see copy-prelude.h) against a device host that writes
 * anything. The input is a program: the driver adds buffers and collects
 * them, the device host reads records and writes completions, either
 * plausible ones (a token it was given, any length, known bytes) or raw
 * bytes from the input; the device may be reset at any point.
 *
 * Whatever the host writes, the transport must only hand back outstanding
 * tokens, once, with a length within the buffer's room and, for a
 * completion it took, exactly the bytes the host wrote; write() must take
 * no more than it was given; every buffer must come back; nothing may be
 * read or written out of bounds or leaked (ASan, UBSan, LeakSanitizer).
 */
#include <linux/scatterlist.h>
#include <uapi/linux/virtio_config.h>
#include <virtio4/bus.h>
#include <virtio4/host.h>
#include "../../transport/copy.h"
#include "fuzz.h"

#define QUEUES		2
#define QUEUE_SIZE	8
#define TOKENS		32
#define HELD		64
#define MAX_STEPS	2048
#define ELEM		48

FUZZ_ALLOC_HOOKS;

/* What the driver knows of a buffer, and what a completion wrote into it. */
struct token {
	bool outstanding;
	unsigned int queue, in_len, in_first;
	unsigned int written;		/* bytes of the completion taken, or -1 */
	unsigned int gen;		/* bumped by each add */
	u8 expect[4 * ELEM];
	u8 elem[4][ELEM];
};

/* A buffer as the device host read it. */
struct held {
	u16 queue;
	u64 token;
	u32 in_len;
	struct token *t;
	unsigned int gen;	/* of the buffer read */
};

static struct token tokens[TOKENS];
static struct held held[HELD];
static unsigned int nheld;
static u8 rbuf[4096], wbuf[4096];

static bool fuzz_callback(struct virtio4_queue *vq)
{
	return true;
}

static struct token *returned(void *data, unsigned int len)
{
	struct token *t = data;
	unsigned int i, n = 0;

	CHECK(t >= tokens && t < tokens + TOKENS);
	CHECK(t->outstanding);
	CHECK(len <= t->in_len);
	/* The bytes the host wrote, across the in elements. */
	if (t->written != -1U && len == t->written)
		for (i = t->in_first; i < 4 && n < len; i++) {
			unsigned int k = min(len - n, (unsigned int)ELEM);

			CHECK(!memcmp(t->elem[i], t->expect + n, k));
			n += k;
		}
	t->outstanding = false;
	return t;
}

static void step_add(struct virtio4_queue **vqs, struct input *in)
{
	unsigned int n = 1 + take8(in) % 4, out = 1 + take8(in) % n, i;
	struct token *t = &tokens[take8(in) % TOKENS];
	struct virtio4_queue *vq;
	struct scatterlist sg[4];
	int err;

	if (t->outstanding)
		return;
	t->queue = take8(in) % QUEUES;
	vq = vqs[t->queue];
	sg_init_table(sg, n);
	t->in_len = 0;
	t->in_first = out;
	t->written = -1U;
	t->gen++;
	/* The first out byte names the token, so that the host's view maps back. */
	t->elem[0][0] = t - tokens;
	for (i = 0; i < n; i++) {
		unsigned int len = i < out ? 1 + take8(in) % ELEM : ELEM;

		sg_set_buf(&sg[i], t->elem[i], len);
		if (i >= out)
			t->in_len += len;
	}
	err = vq->ops->add_buf(vq, sg, out, n - out, t);
	CHECK(!err || err == -ENOSPC || err == -EIO || err == -EINVAL || err == -ENOMEM);
	t->outstanding = !err;
}

/* read() as the device host; remember the buffers it was given. */
static void step_read(struct virtio4_device *vdev, struct input *in)
{
	size_t room = 16 + take8(in) * 16, pos = 0;
	const struct virtio4_host_msg *m;
	ssize_t n = virtio4_copy_test_read(vdev, rbuf, min(room, sizeof(rbuf)));

	CHECK(n > 0 || n == -EAGAIN || n == -ENOBUFS);
	while (n > 0 && pos + sizeof(*m) <= (size_t)n) {
		m = (const void *)(rbuf + pos);
		CHECK(m->size >= sizeof(*m) && pos + m->size <= (size_t)n && !(m->size % 8));
		if (m->type == VIRTIO4_HOST_MSG_BUF && nheld < HELD) {
			struct token *t;

			CHECK(m->queue < QUEUES && m->in_len <= 4 * ELEM && m->out_len >= 1);
			CHECK(sizeof(*m) + m->out_len <= m->size);
			t = &tokens[((const u8 *)(m + 1))[0] % TOKENS];
			CHECK(t->outstanding && t->in_len == m->in_len);
			held[nheld++] = (struct held){ m->queue, m->token, m->in_len, t, t->gen };
		}
		pos += m->size;
	}
	CHECK(pos == (size_t)(n > 0 ? n : 0));
}

/* A plausible completion of a held buffer: any length, bytes from the input. */
static void step_complete(struct virtio4_device *vdev, struct virtio4_queue **vqs,
			  struct input *in)
{
	struct virtio4_host_done *d = (void *)wbuf;
	struct held *h;
	unsigned int i, len;
	ssize_t n;

	if (!nheld)
		return;
	h = &held[take8(in) % nheld];
	len = take8(in) % (h->in_len + 8);
	d->token = h->token;
	d->queue = h->queue;
	d->reserved = 0;
	d->len = len;
	for (i = 0; i < VIRTIO4_HOST_ALIGN(len); i++)
		wbuf[sizeof(*d) + i] = i < len ? take8(in) : 0;
	n = virtio4_copy_test_write(vdev, wbuf, sizeof(*d) + VIRTIO4_HOST_ALIGN(len));
	CHECK(n == -EINVAL || n == (ssize_t)(sizeof(*d) + VIRTIO4_HOST_ALIGN(len)));
	/* Taken for the buffer as read (not a stale one): its bytes must arrive. */
	if (n > 0 && h->t->outstanding && h->t->gen == h->gen && h->t->written == -1U) {
		CHECK(len <= h->in_len);
		memcpy(h->t->expect, wbuf + sizeof(*d), len);
		h->t->written = len;
	}
}

/* Raw bytes from the input as completions. */
static void step_raw_write(struct virtio4_device *vdev, struct input *in)
{
	size_t len = take8(in), i;
	ssize_t n;

	for (i = 0; i < len; i++)
		wbuf[i] = take8(in);
	n = virtio4_copy_test_write(vdev, wbuf, len);
	CHECK(n == -EINVAL || n == -EFAULT || (n >= 0 && (size_t)n <= len));
}

static void step_collect(struct virtio4_device *vdev, struct virtio4_queue **vqs)
{
	unsigned int q, len;
	void *data;

	virtio4_copy_test_interrupts(vdev);
	for (q = 0; q < QUEUES; q++)
		while ((data = vqs[q]->ops->get_buf(vqs[q], &len)))
			returned(data, len);
}

static void detach_all(struct virtio4_queue **vqs)
{
	unsigned int q;
	void *data;

	for (q = 0; q < QUEUES; q++)
		while ((data = vqs[q]->ops->detach_unused(vqs[q]))) {
			((struct token *)data)->written = -1U;
			returned(data, 0);
		}
}

static void run(struct virtio4_device *vdev, struct virtio4_queue **vqs, struct input *in)
{
	unsigned int steps = 0;

	while (in->left && steps++ < MAX_STEPS) {
		switch (take8(in) % 9) {
		case 0:
			step_add(vqs, in);
			break;
		case 1:
			vqs[take8(in) % QUEUES]->ops->sync(vqs[take8(in) % QUEUES]);
			break;
		case 2:
			step_read(vdev, in);
			break;
		case 3:
			step_complete(vdev, vqs, in);
			break;
		case 4:
			step_raw_write(vdev, in);
			break;
		case 5:
			step_collect(vdev, vqs);
			break;
		case 6:
			vqs[take8(in) % QUEUES]->ops->restart(vqs[take8(in) % QUEUES]);
			break;
		case 7:
			/* The driver resets the device: it takes every buffer back. */
			vdev->config->reset(vdev);
			detach_all(vqs);
			nheld = take8(in) & 1 ? 0 : nheld;	/* a host may keep stale tokens */
			break;
		default:
			vdev->config->set_status(vdev, take8(in));
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct virtio4_host_create c = {
		.device_id = 0xffff, .features = BIT_ULL(VIRTIO_F_VERSION_1),
		.num_queues = QUEUES, .queue_size = { QUEUE_SIZE, QUEUE_SIZE },
	};
	static const char * const names[] = { "q0", "q1" };
	virtio4_callback_t *callbacks[] = { fuzz_callback, fuzz_callback };
	struct input in = { data, size };
	struct virtio4_queue *vqs[QUEUES];
	struct virtio4_device *vdev;
	unsigned int i;

	vdev = virtio4_copy_test_create(&c);
	CHECK(!IS_ERR(vdev));
	vdev->features = c.features;
	CHECK(!vdev->config->find_vqs(vdev, QUEUES, vqs, callbacks, names, NULL));
	nheld = 0;
	run(vdev, vqs, &in);
	vdev->config->reset(vdev);
	detach_all(vqs);
	for (i = 0; i < TOKENS; i++)
		CHECK(!tokens[i].outstanding);
	vdev->config->del_vqs(vdev);
	virtio4_copy_test_destroy(vdev);
	return 0;
}
