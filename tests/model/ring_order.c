// SPDX-License-Identifier: GPL-2.0
/*
 * The ring's notification handshakes on a model of x86's memory order
 * (tso.h), against a device that acts at the worst moment.
 *
 * In each handshake one side publishes a field and then reads the other
 * side's, and the other side does the reverse:
 * - sync(): the driver publishes avail->idx, then reads whether the device
 *   wants a kick (avail_event, or VRING_USED_F_NO_NOTIFY); a device going to
 *   sleep publishes that it wants one, then reads avail->idx a last time.
 * - restart(), restart_delayed() and restart_after(): the driver publishes
 *   that it wants an interrupt (used_event, or VRING_AVAIL_F_NO_INTERRUPT
 *   cleared), then reads used->idx for buffers used meanwhile; a device
 *   completing a buffer publishes used->idx, then reads whether the driver
 *   wants an interrupt.
 * - get_buf() with EVENT_IDX: the same, as it asks for an interrupt at the
 *   next buffer and the driver's next call reads used->idx.
 * x86 lets a load pass an earlier store unless a full barrier lies between
 * them. Without one, both sides read the other's old value: the device sleeps
 * on buffers it never saw (a lost kick), or the driver waits for an
 * interrupt that never comes.
 *
 * The device acts during the driver's load of the other side's field, after
 * the load took its value, and it reads and writes memory, not the driver's
 * store buffer: exactly the interleaving that a missing barrier allows.
 * Each case runs twice: with the ring's barriers, where nothing may be lost,
 * and with the model ignoring full barriers, where the loss must be seen, or
 * the model could not see a missing barrier either.
 *
 * Prints "pass|fail model:CASE ..." per case; exit status 1 if one failed.
 * Usage: ring-order
 */
#include <stdio.h>
#include <stdlib.h>
#include <linux/scatterlist.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>

#define NUM	8	/* ring size */
#define ROUNDS	4	/* handshakes per case */
#define SB_MAX	32	/* store buffer entries */

/* The tools/virtio stubs' allocator hooks (unused here). */
void *__kmalloc_fake, *__kfree_ignore_start, *__kfree_ignore_end;

#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);\
		exit(2);						\
	}								\
} while (0)

/* The driver CPU's store buffer, oldest first, and what it covers. */
static struct {
	volatile void *p;
	unsigned int size;
	unsigned long long v;
} sb[SB_MAX];
static unsigned int sb_len;
static bool barriers_work;
static const char *shared[2][2];	/* [avail, used][start, end) */

/* The device acts at the driver's next load of this field. */
static const volatile void *trigger;
static void (*on_trigger)(void);

static bool is_shared(const volatile void *p)
{
	const char *c = (const char *)p;
	int i;

	for (i = 0; i < 2; i++)
		if (c >= shared[i][0] && c < shared[i][1])
			return true;
	return false;
}

static void mem_write(volatile void *p, unsigned int size, unsigned long long v)
{
	switch (size) {
	case 1:
		*(volatile u8 *)p = v;
		break;
	case 2:
		*(volatile u16 *)p = v;
		break;
	case 4:
		*(volatile u32 *)p = v;
		break;
	case 8:
		*(volatile u64 *)p = v;
		break;
	default:
		EXPECT(!"an access of 1, 2, 4 or 8 bytes");
	}
}

static unsigned long long mem_read(const volatile void *p, unsigned int size)
{
	switch (size) {
	case 1:
		return *(const volatile u8 *)p;
	case 2:
		return *(const volatile u16 *)p;
	case 4:
		return *(const volatile u32 *)p;
	case 8:
		return *(const volatile u64 *)p;
	}
	EXPECT(!"an access of 1, 2, 4 or 8 bytes");
	return 0;
}

static void sb_drain(void)
{
	unsigned int i;

	for (i = 0; i < sb_len; i++)
		mem_write(sb[i].p, sb[i].size, sb[i].v);
	sb_len = 0;
}

void tso_store(volatile void *p, unsigned int size, unsigned long long v)
{
	if (!is_shared(p)) {
		mem_write(p, size, v);
		return;
	}
	EXPECT(sb_len < SB_MAX);
	sb[sb_len].p = p;
	sb[sb_len].size = size;
	sb[sb_len].v = v;
	sb_len++;
}

unsigned long long tso_load(const volatile void *p, unsigned int size)
{
	unsigned long long v = mem_read(p, size);
	int i;

	if (!is_shared(p))
		return v;
	for (i = (int)sb_len - 1; i >= 0; i--) {
		if (sb[i].p == p) {
			EXPECT(sb[i].size == size);
			v = sb[i].v;
			break;
		}
	}
	if (p == trigger) {
		trigger = NULL;
		on_trigger();
	}
	return v;
}

void tso_mb(void)
{
	if (barriers_work)
		sb_drain();
}

/* The device: it sees memory only. */
static struct {
	struct vring_avail *avail;
	struct vring_used *used;
	bool event_idx;
	u16 last_avail;		/* avail entries taken */
	u16 taken[NUM];		/* heads taken and not used yet */
	unsigned int ntaken;
	u16 used_idx;
	bool asleep;		/* until a kick */
	unsigned int interrupts;
} dev;

static u16 *avail_event(void)
{
	return (u16 *)&dev.used->ring[NUM];
}

static u16 *used_event(void)
{
	return &dev.avail->ring[NUM];
}

static void dev_take(void)
{
	u16 idx = mem_read(&dev.avail->idx, 2);

	for (; dev.last_avail != idx; dev.last_avail++) {
		EXPECT(dev.ntaken < NUM);
		dev.taken[dev.ntaken++] = dev.avail->ring[dev.last_avail % NUM];
	}
}

/* Busy: no kicks wanted (with EVENT_IDX, avail_event is left behind). */
static void dev_busy(void)
{
	dev.asleep = false;
	if (!dev.event_idx)
		mem_write(&dev.used->flags, 2, VRING_USED_F_NO_NOTIFY);
}

/* Going to sleep: ask for a kick, then (a full barrier) look a last time. */
static void dev_try_sleep(void)
{
	if (dev.asleep)
		return;
	dev_take();
	if (dev.event_idx)
		mem_write(avail_event(), 2, dev.last_avail);
	else
		mem_write(&dev.used->flags, 2, 0);
	__sync_synchronize();
	if (mem_read(&dev.avail->idx, 2) != dev.last_avail) {
		dev_take();
		dev_busy();
		return;
	}
	dev.asleep = true;
}

/* Use the oldest buffer taken, then (a full barrier) interrupt if asked. */
static void dev_complete(void)
{
	u16 old = dev.used_idx;
	bool want;

	EXPECT(dev.ntaken);
	dev.used->ring[old % NUM].id = dev.taken[0];
	dev.used->ring[old % NUM].len = 0;
	memmove(dev.taken, dev.taken + 1, --dev.ntaken * sizeof(dev.taken[0]));
	mem_write(&dev.used->idx, 2, ++dev.used_idx);
	__sync_synchronize();
	if (dev.event_idx)
		want = vring_need_event(mem_read(used_event(), 2), dev.used_idx, old);
	else
		want = !(mem_read(&dev.avail->flags, 2) & VRING_AVAIL_F_NO_INTERRUPT);
	dev.interrupts += want;
}

static bool dev_kicked(struct virtio4_queue *vq, void *data)
{
	if (dev.asleep)
		dev_busy();
	return true;
}

static bool callback(struct virtio4_queue *vq)
{
	return true;
}

static struct virtio4_device vdev;
static struct device dma_dev;
static u8 buffers[NUM][16];
static unsigned int next_buffer;

static struct virtio4_queue *setup(bool event_idx)
{
	struct virtio4_ring_layout layout;
	struct virtio4_queue *vq;

	/* The ring sets itself up in memory, as with a device still reset. */
	memset(shared, 0, sizeof(shared));
	sb_len = 0;
	trigger = NULL;
	vdev.features = event_idx ? 1ULL << VIRTIO_RING_F_EVENT_IDX : 0;
	vq = virtio4_ring_new(&vdev, &dma_dev, 0, NUM, dev_kicked, NULL,
			      callback, "model");
	EXPECT(!IS_ERR(vq));
	virtio4_ring_layout(vq, &layout);
	memset(&dev, 0, sizeof(dev));
	dev.avail = (struct vring_avail *)(unsigned long)layout.avail;
	dev.used = (struct vring_used *)(unsigned long)layout.used;
	dev.event_idx = event_idx;
	shared[0][0] = (const char *)dev.avail;
	shared[0][1] = (const char *)&dev.avail->ring[NUM + 1];
	shared[1][0] = (const char *)dev.used;
	shared[1][1] = (const char *)(avail_event() + 1);
	dev_busy();
	return vq;
}

static void teardown(struct virtio4_queue *vq)
{
	sb_drain();
	memset(shared, 0, sizeof(shared));
	virtio4_ring_del(vq);
}

static void add_one(struct virtio4_queue *vq)
{
	u8 *buf = buffers[next_buffer++ % NUM];
	struct scatterlist sg;

	sg_init_one(&sg, buf, sizeof(buffers[0]));
	EXPECT(vq->ops->add_buf(vq, &sg, 0, 1, buf) == 0);
}

/* Two buffers added and made visible, both taken by the device. */
static void two_taken(struct virtio4_queue *vq)
{
	add_one(vq);
	add_one(vq);
	vq->ops->sync(vq);
	sb_drain();
	dev_take();
	EXPECT(dev.ntaken == 2);
}

/* Let the device catch up, complete what it took, and collect it all. */
static void settle(struct virtio4_queue *vq)
{
	unsigned int len;

	sb_drain();
	if (!dev.asleep)
		dev_take();
	while (dev.ntaken)
		dev_complete();
	sb_drain();
	while (vq->ops->get_buf(vq, &len))
		;
	sb_drain();
}

/* sync(): rounds in which the device is about to sleep as the driver adds. */
static unsigned int lost_kicks(bool event_idx)
{
	struct virtio4_queue *vq = setup(event_idx);
	unsigned int round, lost = 0;

	for (round = 0; round < ROUNDS; round++) {
		add_one(vq);
		trigger = event_idx ? (void *)avail_event() : (void *)&dev.used->flags;
		on_trigger = dev_try_sleep;
		vq->ops->sync(vq);
		trigger = NULL;
		sb_drain();
		/* Asleep, with a buffer it never saw, and no kick woke it. */
		if (dev.asleep && mem_read(&dev.avail->idx, 2) != dev.last_avail)
			lost++;
		dev_busy();	/* whatever woke it: every round starts busy */
		settle(vq);
	}
	teardown(vq);
	return lost;
}

enum restart_how { RESTART, RESTART_DELAYED, RESTART_AFTER_ONE };

/*
 * The restart @how asks for. restart_after() for the next buffer used: the
 * device owes the interrupt for the one it completes during the handshake
 * (a mark past what is in flight owes none, so this check cannot hold it);
 * restart_delayed() and restart_after() share the handshake's code, each
 * entry point run here.
 */
static bool restart(struct virtio4_queue *vq, enum restart_how how)
{
	if (how == RESTART_DELAYED)
		return vq->ops->restart_delayed(vq);
	if (how == RESTART_AFTER_ONE)
		return vq->ops->restart_after(vq, 1);
	return vq->ops->restart(vq);
}

/*
 * restart(), restart_delayed() or restart_after(): with interrupts off, the
 * driver collects a buffer (used_event stays behind), then re-enables them
 * as the device uses the next one.
 */
static unsigned int lost_interrupts(bool event_idx, enum restart_how how)
{
	struct virtio4_queue *vq = setup(event_idx);
	unsigned int round, lost = 0, len, irqs;
	bool idle;

	for (round = 0; round < ROUNDS; round++) {
		two_taken(vq);
		vq->ops->disable(vq);
		sb_drain();
		dev_complete();
		EXPECT(vq->ops->get_buf(vq, &len));
		sb_drain();
		trigger = &dev.used->idx;
		on_trigger = dev_complete;
		irqs = dev.interrupts;
		idle = restart(vq, how);
		trigger = NULL;
		sb_drain();
		/* Interrupts on, nothing pending, says the ring; a buffer was used, unannounced. */
		if (idle && dev.interrupts == irqs && vq->ops->get_buf(vq, &len))
			lost++;
		settle(vq);
	}
	teardown(vq);
	return lost;
}

/*
 * get_buf() with interrupts on: having taken a buffer, it asks for an
 * interrupt at the next one (used_event), and the driver's next call reads
 * used->idx as the device uses that next buffer.
 */
static unsigned int lost_get_buf_interrupts(bool event_idx)
{
	struct virtio4_queue *vq = setup(event_idx);
	unsigned int round, lost = 0, len, irqs;
	void *data;

	for (round = 0; round < ROUNDS; round++) {
		two_taken(vq);
		dev_complete();
		EXPECT(vq->ops->get_buf(vq, &len));
		trigger = &dev.used->idx;
		on_trigger = dev_complete;
		irqs = dev.interrupts;
		data = vq->ops->get_buf(vq, &len);
		trigger = NULL;
		sb_drain();
		if (!data && dev.interrupts == irqs && vq->ops->get_buf(vq, &len))
			lost++;
		settle(vq);
	}
	teardown(vq);
	return lost;
}

static unsigned int lost_restart(bool event_idx)
{
	return lost_interrupts(event_idx, RESTART);
}

static unsigned int lost_restart_delayed(bool event_idx)
{
	return lost_interrupts(event_idx, RESTART_DELAYED);
}

static unsigned int lost_restart_after(bool event_idx)
{
	return lost_interrupts(event_idx, RESTART_AFTER_ONE);
}

static const struct model_case {
	const char *name;
	const char *what;
	bool event_idx;
	unsigned int (*run)(bool event_idx);
} cases[] = {
	{ "sync-flags", "kicks", false, lost_kicks },
	{ "sync-event-idx", "kicks", true, lost_kicks },
	{ "restart-flags", "interrupts", false, lost_restart },
	{ "restart-event-idx", "interrupts", true, lost_restart },
	/* Without EVENT_IDX, restart_delayed() is restart(), and get_buf() asks for nothing. */
	{ "restart-delayed-event-idx", "interrupts", true, lost_restart_delayed },
	{ "restart-after-event-idx", "interrupts", true, lost_restart_after },
	{ "get-buf-event-idx", "interrupts", true, lost_get_buf_interrupts },
};

int main(void)
{
	unsigned int i, with, without;
	int failed = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct model_case *c = &cases[i];

		barriers_work = true;
		with = c->run(c->event_idx);
		barriers_work = false;
		without = c->run(c->event_idx);
		if (with) {
			printf("fail model:ring-%s: %u of %u %s lost with the ring's barriers\n",
			       c->name, with, ROUNDS, c->what);
			failed = 1;
		} else if (!without) {
			printf("fail model:ring-%s: nothing lost with full barriers ignored: %s\n",
			       c->name, "the model cannot see a missing one");
			failed = 1;
		} else {
			printf("pass model:ring-%s (0 of %u %s lost; %u %s)\n", c->name, ROUNDS,
			       c->what, without, "with full barriers ignored");
		}
	}
	return failed;
}
