// SPDX-License-Identifier: GPL-2.0
/*
 * The block driver, written only against the draft-IV queue API and the
 * virtio4 bus: it knows nothing of rings or PCI.
 *
 * A request is one buffer: an out header (type, sector), the data (out for
 * writes, in for reads) and a one-byte status. Draft IV's article puts the
 * status first among the in elements; virtio 1.x puts it last, and real
 * devices (QEMU's virtio-blk) follow the standard, so this driver does too.
 *
 * With VIRTIO_BLK_F_MQ the device has several request queues: one blk-mq
 * hardware context per queue, each queue's interrupt bound to its own CPUs
 * (managed affinity) and the CPUs mapped to the queue whose interrupt they
 * take, so a request completes on the CPU that submitted it.
 *
 * The device is untrusted. A queue it breaks (the queue implementation found
 * a lie) or a device that asks for a reset makes the driver give the device
 * up: it is reset, every outstanding request fails, and so does every later
 * one until the device is removed. A garbage status byte fails its request.
 *
 * A request not completed within io_timeout is late, not lost: the driver
 * first collects any completion whose interrupt was missed, then waits
 * V4BLK_LATE_GRACE more, and keeps waiting while the device completes other
 * requests (a slow or throttled backend, a storage failover). Only a device
 * that completed nothing in io_timeout + V4BLK_LATE_GRACE is given up, and
 * without a reset: QEMU's reset waits for the stuck backend with its big lock
 * held, which would freeze the whole guest. The device keeps the buffers it
 * holds, so their pages are kept from reuse (never freed; logged), their
 * requests fail, and whatever the device returns later is dropped.
 *
 * An interrupt's completions are collected with the queue's callbacks off,
 * and restart() then asks for the next interrupt once: what the device
 * completes during a collection raises no interrupt of its own.
 *
 * With poll_queues, the last request queues have no callback and take no
 * interrupt: blk-mq maps polled I/O (io_uring's IOPOLL, preadv2's
 * RWF_HIPRI) to them, and their completions are collected by the task that
 * waits for them (.poll), in batches that blk-mq ends together.
 *
 * With irq_batch_us (200 by default; 0: off), a device that holds many
 * requests completes them with fewer interrupts: after each round of
 * completions the device is asked for the next interrupt only once three
 * quarters of the requests in flight are done (the queue API's
 * restart_delayed), and a per-queue timer bounds the wait of those done
 * before that. A timer that expires after the device
 * passed the mark leaves the batch to the interrupt the device owes (so
 * that it finds the batch, not nothing), and collects it itself if that
 * interrupt has not come by its next expiry. One that expires having found
 * fewer than two done shows a device completing too sparsely to batch: the
 * queue then asks for each completion's interrupt at once, as with
 * irq_batch_us=0, until an interrupt finds two or more done (V4BLK_BATCH_MIN)
 * or 64 have passed (V4BLK_BATCH_RETRY). A queue whose restart_delayed
 * cannot delay (!vq->delays: no EVENT_IDX, the copying transport) never
 * starts the timer: there is no wait for it to bound.
 *
 * A guest whose CPU cannot keep up with the device (the device waits for
 * the guest, not the guest for the device) finds fewer than two requests in
 * flight after most collections, though its submitters have many more in
 * hand: completed, and not yet sent again. Batching only what is in flight
 * would then ask for an interrupt per completion or two. So, with fewer
 * than two in flight, a queue whose submitters hold three batches or more
 * (its backlog: requests completed and not yet replaced by new ones), whose
 * last round had two or more in flight at its peak, and whose interrupt
 * came while its CPU was busy (not in the idle task: a CPU gone idle is
 * one whose tasks wait for these very completions), asks for the
 * interrupt only once as many requests as three quarters of that peak are
 * done, the ones not sent yet included (the queue API's restart_after),
 * the batch timer bounding the wait as before. At depth 1 the peak is 1,
 * so no request ever waits for one not sent. The backlog counts from 0
 * again when the timer finds fewer than two done.
 *
 * Locking: each queue's lock serialises every operation on that queue, as
 * the API requires; the queue's callback runs in interrupt context and takes
 * it too, as does its batch timer (hard interrupt context). Queues share no
 * lock. abort_lock serialises giving up the device with itself and with
 * remove.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <uapi/linux/virtio_blk.h>
#include <uapi/linux/virtio_ids.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/bus.h>

#define V4BLK_STATUS_NONE 0xff	/* what the status byte holds until the device writes it */
#define V4BLK_MAX_SEGMENTS 1024U	/* bounds the per-request scatterlist */
#define V4BLK_DEFAULT_SEGMENTS 128U	/* when neither the device nor the user says */
#define V4BLK_MAX_POLL_QUEUES 16U	/* bounds poll_queues */
#define V4BLK_LATE_GRACE (4 * HZ)	/* a late request's wait for a sign of life */
/*
 * irq_batch_us: an expired batch timer that found fewer than
 * V4BLK_BATCH_MIN requests done turns batching off, until an interrupt
 * finds that many done or V4BLK_BATCH_RETRY interrupts have passed.
 */
#define V4BLK_BATCH_MIN 2U
#define V4BLK_BATCH_RETRY 64U
/*
 * irq_batch_us with fewer than two requests in flight: a batch of requests
 * not sent yet is asked for only when the submitters hold this many times
 * the batch (v4blk_batch_ahead()). With two, fio's reads at depth 4 on a
 * 50 us device were asked such batches 993 times in 21435 reads, and
 * nearly all of them (975 timer expiries) waited the whole timer; with
 * three, none at depth 4, while depths 8 to 32 keep theirs.
 */
#define V4BLK_AHEAD_BACKLOG 3U
/*
 * Scatterlist entries in each request (header, two data segments, status):
 * longer lists are chained from the kernel's pool as needed, so a device
 * offering a huge seg_max cannot make every request of every queue carry
 * a scatterlist entry per segment (hundreds of MiB at probe).
 */
#define V4BLK_INLINE_SG 4

static unsigned int max_segments;
module_param(max_segments, uint, 0444);
MODULE_PARM_DESC(max_segments,
		 "Most data segments in one request, at most 1024; 0 = as many as the device takes (default: 0)");

static unsigned int num_queues;
module_param(num_queues, uint, 0444);
MODULE_PARM_DESC(num_queues,
		 "Request queues to use when the device has several; 0 = one per CPU (default: 0)");

static unsigned int poll_queues;
module_param(poll_queues, uint, 0444);
MODULE_PARM_DESC(poll_queues,
		 "Request queues without interrupts, for polled I/O (io_uring IOPOLL), 0..16, taken from the queues used, leaving one with interrupts (default: 0)");

static unsigned int io_timeout = 30;
module_param(io_timeout, uint, 0444);
MODULE_PARM_DESC(io_timeout,
		 "Seconds before a request is late, 1..3600: a device that then completes nothing for 4 s more is given up; per disk: queue/io_timeout in sysfs (default: 30)");

static unsigned int irq_batch_us = 200;
module_param(irq_batch_us, uint, 0444);
MODULE_PARM_DESC(irq_batch_us,
		 "Microseconds a completed request may wait to share an interrupt with the requests in flight beside it, 0..1000; 0 = an interrupt as soon as any completes (default: 200)");

static int v4blk_major;
static DEFINE_IDA(v4blk_index_ida);

/* The virtio 1.x request header, little-endian. */
struct v4blk_outhdr {
	__le32 type;
	__le32 ioprio;
	__le64 sector;
};

/*
 * One request queue, alone in its cache lines. With irq_batch_us, the
 * device is asked for an interrupt only once three quarters of the requests
 * in flight are done (restart_delayed), or, with fewer than two in flight
 * and a @backlog, three quarters of @peak (restart_after), and @batch
 * bounds the wait of those done before: when it expires it collects them
 * and asks for an interrupt at the next completion, unless the device has
 * passed the mark: it then waits once more for the interrupt the device
 * owes (@batch_waited).
 */
struct v4blk_queue {
	struct virtio4_queue *vq;
	spinlock_t lock;	/* serialises the operations on vq */
	unsigned long completed;	/* requests completed; under lock */
	unsigned int in_flight;	/* requests the ring holds; under lock */
	bool abandoned;		/* given up without a reset; under lock */
	bool stopping;		/* the batch timer may not start; under lock */
	bool polled;		/* no callback: its completions are polled */
	struct hrtimer batch;	/* bounds a batch's wait (irq_batch_us) */
	unsigned long batch_expiries;	/* times @batch expired, not stale; under lock */
	bool batch_armed;	/* @batch started for the batch now waiting; under lock */
	bool batch_waited;	/* @batch expired once, an interrupt due; under lock */
	unsigned int batch_off;	/* interrupts left at once, not batched; under lock */
	unsigned int peak;	/* most requests in flight since the last collection; under lock */
	/*
	 * Requests completed and not yet replaced by new ones (the submitters'
	 * work in hand, as this queue counts it; at most the ring's size); under lock.
	 */
	unsigned int backlog;
	unsigned long batch_ahead;	/* batches asked of requests not sent yet; under lock */
	struct v4blk *blk;
	char name[16];
} ____cacheline_aligned_in_smp;

struct v4blk {
	struct virtio4_device *vdev;
	struct v4blk_queue *queues;
	unsigned int nqueues;
	unsigned int npolled;		/* the last npolled of the queues */
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	unsigned int sg_elems;
	int index;
	atomic64_t flushes;
	struct mutex abort_lock;	/* serialises v4blk_abort() and remove */
	bool dead;			/* given up: every request fails */
	struct work_struct broken_work;	/* gives up after a queue broke */
};

/* Per-request state, in the blk-mq pdu: nothing is allocated per I/O. */
struct v4blk_req {
	struct v4blk_outhdr hdr;
	struct virtio_blk_discard_write_zeroes range;
	unsigned long progress;	/* queue's completions when found late */
	bool late;		/* timed out once, waiting for a sign of life */
	u8 status;
	u16 out_num, in_num;	/* the buffer's out and in elements */
	struct sg_table sg_table;	/* header, data..., status */
	struct scatterlist sg[V4BLK_INLINE_SG];	/* its first entries */
};

/* Free what v4blk_map() chained to the request's scatterlist, if anything. */
static void v4blk_unmap(struct v4blk_req *br)
{
	sg_free_table_chained(&br->sg_table, V4BLK_INLINE_SG);
}

static blk_status_t v4blk_status(u8 status)
{
	switch (status) {
	case VIRTIO_BLK_S_OK:
		return BLK_STS_OK;
	case VIRTIO_BLK_S_UNSUPP:
		return BLK_STS_NOTSUPP;
	default:
		return BLK_STS_IOERR;
	}
}

/*
 * Complete every request the device returned on @q; under q->lock. Returns
 * how many it found.
 */
static unsigned int v4blk_collect(struct v4blk_queue *q)
{
	struct virtio4_queue *vq = q->vq;
	struct request *req;
	unsigned int len, n = 0;

	while ((req = vq->ops->get_buf(vq, &len))) {
		n++;
		q->in_flight--;
		/* Given up: the request was failed already, maybe reused. */
		if (unlikely(q->abandoned))
			continue;
		q->completed++;
		blk_mq_complete_request(req);
	}
	q->backlog = min(q->backlog + n, vq->num);
	return n;
}

/*
 * Request sent to the device; under q->lock. It replaces one completed
 * before, if the queue counts any.
 */
static void v4blk_sent(struct v4blk_queue *q)
{
	q->in_flight++;
	q->peak = max(q->peak, q->in_flight);
	if (q->backlog)
		q->backlog--;
}

/*
 * Batch the queue's next completions or not (irq_batch_us), from the @found
 * completions one collection took; under q->lock. @expired: the batch timer
 * collected them.
 */
static void v4blk_batch_adapt(struct v4blk_queue *q, bool expired,
			      unsigned int found)
{
	if (expired) {
		q->batch_off = found < V4BLK_BATCH_MIN ? V4BLK_BATCH_RETRY : 0;
		/* Too few came: what the submitters held is not coming soon. */
		if (q->batch_off)
			q->backlog = 0;
	} else if (found >= V4BLK_BATCH_MIN) {
		q->batch_off = 0;
	} else if (q->batch_off) {
		q->batch_off--;
	}
}

/*
 * With fewer than two requests in flight, the batch to ask for of requests
 * not sent yet (restart_after), or 0 for none: three quarters of the last
 * round's peak in flight (plus one, as restart_delayed counts), when that
 * peak was two or more, the submitters hold V4BLK_AHEAD_BACKLOG times the
 * batch, and this runs in the queue's interrupt (hard interrupt context,
 * not an expiry of @batch, which asks at once, nor the timeout handler's
 * poll) on a CPU that was busy: not in its idle task, whose tasks would be
 * waiting for these completions. Starts the next round's peak; under
 * q->lock.
 */
static unsigned int v4blk_batch_ahead(struct v4blk_queue *q, bool expired)
{
	unsigned int peak = q->peak, n = peak * 3 / 4 + 1;

	q->peak = q->in_flight;
	if (expired || !in_hardirq() || is_idle_task(current))
		return 0;
	if (peak < 2 || q->backlog < V4BLK_AHEAD_BACKLOG * n)
		return 0;
	return n;
}

/* Start @q's batch timer, irq_batch_us from now; under q->lock. */
static void v4blk_batch_start(struct v4blk_queue *q)
{
	hrtimer_start(&q->batch, ns_to_ktime(irq_batch_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL);
}

/*
 * Ask for the next interrupt; under q->lock. With irq_batch_us, batching on
 * and a queue that can delay its callback (vq->delays), unless @at_once:
 * with two requests or more in flight, once three quarters of them are
 * done; with fewer, once @ahead are (v4blk_batch_ahead(), if not 0); @batch
 * bounding the wait. Else at the next completion, with @batch stopped (it
 * has no wait left to bound). False if requests completed meanwhile:
 * collect again.
 */
static bool v4blk_rearm(struct v4blk_queue *q, bool at_once, unsigned int ahead)
{
	struct virtio4_queue *vq = q->vq;
	bool armed;

	if (q->polled)
		return true;	/* no interrupts */
	if (!irq_batch_us)
		return vq->ops->restart(vq);
	if (at_once || !vq->delays || q->batch_off || q->stopping ||
	    (q->in_flight < 2 && !ahead)) {
		/*
		 * An expiry this misses (running already, or queued again by
		 * the callback that is still returning) finds it unarmed.
		 */
		q->batch_armed = false;
		hrtimer_try_to_cancel(&q->batch);
		return vq->ops->restart(vq);
	}
	if (q->in_flight >= 2) {
		armed = vq->ops->restart_delayed(vq);
	} else {
		armed = vq->ops->restart_after(vq, ahead);
		if (armed)
			q->batch_ahead++;
	}
	if (!armed)
		return false;
	q->batch_armed = true;
	q->batch_waited = false;
	v4blk_batch_start(q);
	return true;
}

/*
 * Collect @q's completed requests and ask for the next interrupt. From the
 * batch timer (@expired), at the next completion: the batch did not fill in
 * time, and the timer does not go on polling a slow device.
 */
static bool v4blk_run(struct v4blk_queue *q, bool expired)
{
	struct virtio4_queue *vq = q->vq;
	unsigned int found, ahead;
	unsigned long flags;
	bool broken;

	spin_lock_irqsave(&q->lock, flags);
	if (expired) {
		/*
		 * Stale: an interrupt collected meanwhile and asked at once
		 * (unarmed), or started the timer again (queued).
		 */
		if (!q->batch_armed || hrtimer_is_queued(&q->batch)) {
			spin_unlock_irqrestore(&q->lock, flags);
			return true;
		}
		q->batch_expiries++;
		/*
		 * The device passed the mark: its interrupt is on its way and
		 * collects the batch, which collected here would leave it
		 * nothing to find. Waited for once: a device that does not
		 * raise it is collected at the next expiry. Not when stopping:
		 * no timer starts then.
		 */
		if (!q->batch_waited && !q->stopping && vq->ops->callback_due(vq)) {
			q->batch_waited = true;
			v4blk_batch_start(q);
			spin_unlock_irqrestore(&q->lock, flags);
			return true;
		}
		q->batch_armed = false;
	}
	/*
	 * No interrupt for what completes while this collects: it is collected
	 * here, or found by v4blk_rearm()'s restart. With callbacks on, each
	 * get_buf() asks for the next completion, and one that comes during
	 * the collection raises an interrupt that finds it taken already.
	 */
	if (!q->polled)
		vq->ops->disable(vq);
	found = v4blk_collect(q);
	v4blk_batch_adapt(q, expired, found);
	ahead = v4blk_batch_ahead(q, expired);
	while (!v4blk_rearm(q, expired, ahead) && !READ_ONCE(vq->broken))
		v4blk_collect(q);
	broken = READ_ONCE(vq->broken);
	/*
	 * Space was freed: a queue that found the ring full may go again.
	 * Under the lock, as v4blk_queue_rq() stops it, so that no completion
	 * can come between its failed add_buf() and its stop.
	 */
	if (likely(!broken))
		blk_mq_start_stopped_hw_queues(q->blk->disk->queue, true);
	spin_unlock_irqrestore(&q->lock, flags);
	if (unlikely(broken)) {
		schedule_work(&q->blk->broken_work);
		return false;
	}
	return true;
}

static bool v4blk_done(struct virtio4_queue *vq)
{
	return v4blk_run(vq->priv, false);
}

static enum hrtimer_restart v4blk_batch_expired(struct hrtimer *timer)
{
	v4blk_run(container_of(timer, struct v4blk_queue, batch), true);
	return HRTIMER_NORESTART;
}

static void v4blk_complete(struct request *req)
{
	struct v4blk_req *br = blk_mq_rq_to_pdu(req);

	/*
	 * 0xff: the device wrote no status (it went away); anything else is
	 * garbage. Logged here: the block layer says nothing once the disk is
	 * being deleted, as it is when the device leaves.
	 */
	if (unlikely(br->status > VIRTIO_BLK_S_UNSUPP)) {
		struct v4blk *blk = req->q->queuedata;

		if (br->status == V4BLK_STATUS_NONE)
			dev_err_ratelimited(&blk->vdev->dev, "the device returned a request without writing its status: I/O error\n");
		else
			dev_err_ratelimited(&blk->vdev->dev, "bad status %#x from the device: I/O error\n",
					    br->status);
	}
	v4blk_unmap(br);
	blk_mq_end_request(req, v4blk_status(br->status));
}

/* Fail every request queue @q still holds; returns how many. */
static unsigned int v4blk_fail_queue(struct v4blk_queue *q)
{
	struct request *req;
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&q->lock, flags);
	while ((req = q->vq->ops->detach_unused(q->vq))) {
		struct v4blk_req *br = blk_mq_rq_to_pdu(req);

		q->in_flight--;
		br->status = VIRTIO_BLK_S_IOERR;
		blk_mq_complete_request(req);
		n++;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return n;
}

/*
 * Give the device up: no dispatch runs while it is reset, its outstanding
 * requests fail, and so does every later request. Logs one line, once.
 */
static void v4blk_abort(struct v4blk *blk, const char *why)
{
	struct request_queue *rq = blk->disk->queue;
	unsigned int i, failed = 0;

	mutex_lock(&blk->abort_lock);
	if (blk->dead)
		goto out;
	blk_mq_quiesce_queue(rq);
	WRITE_ONCE(blk->dead, true);
	blk->vdev->config->reset(blk->vdev);
	for (i = 0; i < blk->nqueues; i++)
		failed += v4blk_fail_queue(&blk->queues[i]);
	blk_mq_unquiesce_queue(rq);
	/* A queue stopped for a full ring waits for a completion no more. */
	blk_mq_start_stopped_hw_queues(rq, true);
	dev_err(&blk->vdev->dev, "%s: device reset, failed %u outstanding request(s), all further I/O fails\n",
		why, failed);
out:
	mutex_unlock(&blk->abort_lock);
}

static void v4blk_broken_work(struct work_struct *work)
{
	v4blk_abort(container_of(work, struct v4blk, broken_work), "a request queue broke");
}

/*
 * Fail an outstanding request that the device keeps: its pages get a
 * reference that is never dropped, so that the device writing or reading
 * them late cannot reach memory given to someone else. Returns its pages.
 */
static unsigned int v4blk_fail_kept(struct request *req)
{
	struct v4blk_req *br = blk_mq_rq_to_pdu(req);
	struct req_iterator iter;
	struct bio_vec bv;
	unsigned int pages = 0;

	/* Discard and write-zeroes bios carry a size but no pages. */
	if (req->bio && bio_has_data(req->bio)) {
		rq_for_each_segment(bv, req, iter) {
			get_page(bv.bv_page);
			pages++;
		}
	}
	br->status = VIRTIO_BLK_S_IOERR;
	blk_mq_complete_request(req);
	return pages;
}

struct v4blk_kept {
	unsigned int requests;
	unsigned int pages;
};

static bool v4blk_fail_kept_iter(struct request *req, void *data)
{
	struct v4blk_kept *kept = data;

	if (blk_mq_rq_state(req) == MQ_RQ_IN_FLIGHT) {
		kept->pages += v4blk_fail_kept(req);
		kept->requests++;
	}
	return true;
}

/*
 * Give a silent device up without resetting it (see the top of the file):
 * from now on its completions are dropped, every outstanding request fails
 * with its pages kept, and so does every later request.
 */
static void v4blk_abandon(struct v4blk *blk, unsigned int waited_ms)
{
	struct request_queue *rq = blk->disk->queue;
	struct v4blk_kept kept = { };
	unsigned long flags;
	unsigned int i;

	mutex_lock(&blk->abort_lock);
	if (blk->dead)
		goto out;
	blk_mq_quiesce_queue(rq);
	WRITE_ONCE(blk->dead, true);
	/* After this no completion is taken: none can race the failing. */
	for (i = 0; i < blk->nqueues; i++) {
		spin_lock_irqsave(&blk->queues[i].lock, flags);
		blk->queues[i].abandoned = true;
		spin_unlock_irqrestore(&blk->queues[i].lock, flags);
	}
	blk_mq_tagset_busy_iter(&blk->tag_set, v4blk_fail_kept_iter, &kept);
	blk_mq_unquiesce_queue(rq);
	/* A queue stopped for a full ring waits for a completion no more. */
	blk_mq_start_stopped_hw_queues(rq, true);
	dev_err(&blk->vdev->dev, "no completion for %u ms: failed %u outstanding request(s) without a reset (it could freeze a stuck backend), keeping their %u page(s) from reuse; all further I/O fails\n",
		waited_ms, kept.requests, kept.pages);
out:
	mutex_unlock(&blk->abort_lock);
}

static void v4blk_complete_batch(struct io_comp_batch *iob)
{
	struct request *req;

	rq_list_for_each(&iob->req_list, req)
		v4blk_unmap(blk_mq_rq_to_pdu(req));
	blk_mq_end_request_batch(iob);
}

/*
 * blk-mq's .poll, for the queues without interrupts: end the requests the
 * device completed, those with a good status in @iob's batch (ended
 * together by the caller, after this); returns how many were found.
 */
static int v4blk_poll_queue(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct v4blk *blk = hctx->queue->queuedata;
	struct v4blk_queue *q = &blk->queues[hctx->queue_num];
	struct virtio4_queue *vq = q->vq;
	struct v4blk_req *br;
	struct request *req;
	unsigned long flags;
	unsigned int len;
	int found = 0;

	spin_lock_irqsave(&q->lock, flags);
	while ((req = vq->ops->get_buf(vq, &len))) {
		q->in_flight--;
		if (unlikely(q->abandoned))
			continue;
		q->completed++;
		found++;
		br = blk_mq_rq_to_pdu(req);
		/* Marks it complete (a timeout no longer takes it); local. */
		if (blk_mq_complete_request_remote(req))
			continue;
		if (!blk_mq_add_to_batch(req, iob, br->status != VIRTIO_BLK_S_OK,
					 v4blk_complete_batch))
			v4blk_complete(req);
	}
	if (found && likely(!READ_ONCE(vq->broken)))
		blk_mq_start_stopped_hw_queues(hctx->queue, true);
	spin_unlock_irqrestore(&q->lock, flags);
	if (unlikely(READ_ONCE(vq->broken)))
		schedule_work(&blk->broken_work);
	return found;
}

/* Collect what the device completed on @q; true if @req is done now. */
static bool v4blk_poll(struct v4blk_queue *q, struct request *req)
{
	v4blk_done(q->vq);
	return blk_mq_rq_state(req) != MQ_RQ_IN_FLIGHT;
}

/*
 * A request is late (io_timeout). Runs in process context (the block
 * layer's timeout work): a missed interrupt is looked for first; then the
 * request waits V4BLK_LATE_GRACE for the device to complete anything on its
 * queue, and again for as long as it does; a device silent through all of
 * that is given up.
 */
static enum blk_eh_timer_return v4blk_timeout(struct request *req)
{
	struct v4blk *blk = req->q->queuedata;
	struct v4blk_queue *q = &blk->queues[req->mq_hctx->queue_num];
	struct v4blk_req *br = blk_mq_rq_to_pdu(req);
	unsigned long completed;

	if (v4blk_poll(q, req)) {
		if (q->polled)
			dev_warn_ratelimited(&blk->vdev->dev, "a polled request was not collected by its task for %u ms: completed now\n",
					     jiffies_to_msecs(req->q->rq_timeout));
		else
			dev_warn_ratelimited(&blk->vdev->dev, "a request's interrupt was missed: completed by polling\n");
		return BLK_EH_DONE;
	}
	completed = READ_ONCE(q->completed);
	if (!br->late || completed != br->progress) {
		if (!br->late)
			dev_warn_ratelimited(&blk->vdev->dev, "a request is late (%u ms): waiting for the device\n",
					     jiffies_to_msecs(req->q->rq_timeout));
		br->late = true;
		br->progress = completed;
		req->timeout = V4BLK_LATE_GRACE;
		return BLK_EH_RESET_TIMER;
	}
	/* The request is outstanding, so v4blk_abandon() fails it. */
	v4blk_abandon(blk, jiffies_to_msecs(req->q->rq_timeout + V4BLK_LATE_GRACE));
	return BLK_EH_DONE;
}

/* Fill the header and the request's own out payload; returns its type or -1. */
static int v4blk_setup_hdr(struct request *req, struct v4blk_req *br)
{
	u32 type;

	switch (req_op(req)) {
	case REQ_OP_READ:
		type = VIRTIO_BLK_T_IN;
		break;
	case REQ_OP_WRITE:
		type = VIRTIO_BLK_T_OUT;
		break;
	case REQ_OP_FLUSH:
		type = VIRTIO_BLK_T_FLUSH;
		break;
	case REQ_OP_DISCARD:
		type = VIRTIO_BLK_T_DISCARD;
		break;
	case REQ_OP_WRITE_ZEROES:
		type = VIRTIO_BLK_T_WRITE_ZEROES;
		break;
	case REQ_OP_DRV_IN:
		type = VIRTIO_BLK_T_GET_ID;
		break;
	default:
		return -1;
	}
	br->hdr.type = cpu_to_le32(type);
	br->hdr.ioprio = cpu_to_le32(req_get_ioprio(req));
	br->hdr.sector = cpu_to_le64(type == VIRTIO_BLK_T_IN || type == VIRTIO_BLK_T_OUT ?
				     blk_rq_pos(req) : 0);
	br->status = V4BLK_STATUS_NONE;
	br->late = false;
	if (type == VIRTIO_BLK_T_DISCARD || type == VIRTIO_BLK_T_WRITE_ZEROES) {
		bool unmap = !(req->cmd_flags & REQ_NOUNMAP);

		br->range.sector = cpu_to_le64(blk_rq_pos(req));
		br->range.num_sectors = cpu_to_le32(blk_rq_sectors(req));
		br->range.flags = cpu_to_le32(type == VIRTIO_BLK_T_WRITE_ZEROES && unmap ?
					      VIRTIO_BLK_WRITE_ZEROES_FLAG_UNMAP : 0);
	}
	return type;
}

/*
 * Build header, data and status into br->sg_table: the request's inline
 * entries when they are enough, else a chained table from the kernel's
 * scatterlist pool (freed by v4blk_unmap()). Returns 0 with the element
 * counts in @br, or -ENOMEM.
 */
static int v4blk_map(struct request *req, struct v4blk_req *br, u32 type)
{
	bool range = type == VIRTIO_BLK_T_DISCARD || type == VIRTIO_BLK_T_WRITE_ZEROES;
	unsigned int n = range ? 1 : blk_rq_nr_phys_segments(req);
	struct scatterlist *last;

	br->sg_table.sgl = br->sg;
	if (sg_alloc_table_chained(&br->sg_table, n + 2, br->sg, V4BLK_INLINE_SG))
		return -ENOMEM;
	last = br->sg_table.sgl;
	sg_set_buf(last, &br->hdr, sizeof(br->hdr));
	if (range) {
		last = sg_next(last);
		sg_set_buf(last, &br->range, sizeof(br->range));
	} else if (n) {
		n = __blk_rq_map_sg(req->q, req, sg_next(last), &last);
		sg_unmark_end(last);
	}
	last = sg_next(last);
	sg_set_buf(last, &br->status, sizeof(br->status));
	sg_mark_end(last);
	if (type == VIRTIO_BLK_T_IN || type == VIRTIO_BLK_T_GET_ID) {
		br->out_num = 1;
		br->in_num = n + 1;
	} else {
		br->out_num = n + 1;
		br->in_num = 1;
	}
	return 0;
}

/* Make @req a buffer and start it; anything but BLK_STS_OK leaves it unstarted. */
static blk_status_t v4blk_prep(struct v4blk *blk, struct request *req)
{
	struct v4blk_req *br = blk_mq_rq_to_pdu(req);
	int type;

	if (unlikely(READ_ONCE(blk->dead)))
		return BLK_STS_IOERR;
	type = v4blk_setup_hdr(req, br);
	if (type < 0)
		return BLK_STS_NOTSUPP;
	if (v4blk_map(req, br, type))
		return BLK_STS_RESOURCE;	/* blk-mq tries again soon */
	blk_mq_start_request(req);
	return BLK_STS_OK;
}

static blk_status_t v4blk_queue_rq(struct blk_mq_hw_ctx *hctx,
				   const struct blk_mq_queue_data *bd)
{
	struct v4blk *blk = hctx->queue->queuedata;
	struct request *req = bd->rq;
	struct v4blk_req *br = blk_mq_rq_to_pdu(req);
	struct v4blk_queue *q = &blk->queues[hctx->queue_num];
	struct virtio4_queue *vq = q->vq;
	blk_status_t status;
	unsigned long flags;
	bool stopped;
	int err;

	status = v4blk_prep(blk, req);
	if (status != BLK_STS_OK)
		return status;

	spin_lock_irqsave(&q->lock, flags);
	err = vq->ops->add_buf(vq, br->sg_table.sgl, br->out_num, br->in_num, req);
	if (!err)
		v4blk_sent(q);
	/*
	 * A full ring: stop until v4blk_done() frees room, which it will, as
	 * buffers are in flight. Stopped before unlocking, so that the
	 * completion cannot slip in before the stop and find nothing stopped.
	 */
	stopped = err == -ENOSPC && vq->num_free < vq->num;
	if (stopped)
		blk_mq_stop_hw_queue(hctx);
	if (err || bd->last)
		vq->ops->sync(vq);
	spin_unlock_irqrestore(&q->lock, flags);
	if (unlikely(READ_ONCE(vq->broken)))
		schedule_work(&blk->broken_work);
	if (likely(!err)) {
		/* Counted once sent: a request the ring was full for comes again. */
		if (req_op(req) == REQ_OP_FLUSH)
			atomic64_inc(&blk->flushes);
		return BLK_STS_OK;
	}
	v4blk_unmap(br);
	switch (err) {
	case -ENOSPC:
		if (stopped)
			return BLK_STS_DEV_RESOURCE;	/* a completion restarts it */
		fallthrough;
	case -ENOMEM:
		/* No completion may come: blk-mq runs the queue again soon. */
		return BLK_STS_RESOURCE;
	default:
		return BLK_STS_IOERR;
	}
}

/*
 * One hardware queue's run of prepared requests (the list @run, linked by
 * rq_next; emptied) added under one lock and made visible with one sync.
 * A request the ring takes no more (full, or broken) goes back to blk-mq,
 * which issues it again on its own (v4blk_queue_rq() then stops the
 * queue, or fails it). No flush comes here: blk-mq never plugs one.
 */
static void v4blk_add_run(struct v4blk_queue *q, struct request **run)
{
	struct virtio4_queue *vq = q->vq;
	struct v4blk_req *br;
	struct request *req;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	while ((req = rq_list_pop(run))) {
		br = blk_mq_rq_to_pdu(req);
		if (vq->ops->add_buf(vq, br->sg_table.sgl, br->out_num, br->in_num, req)) {
			v4blk_unmap(br);
			blk_mq_requeue_request(req, true);
		} else {
			v4blk_sent(q);
		}
	}
	vq->ops->sync(vq);
	spin_unlock_irqrestore(&q->lock, flags);
	if (unlikely(READ_ONCE(vq->broken)))
		schedule_work(&q->blk->broken_work);
}

/*
 * blk-mq's .queue_rqs: a plug's requests, all of one disk, in runs of one
 * hardware queue each, every run added by v4blk_add_run(). A request that
 * cannot be prepared is left in @rqlist, unstarted, for blk-mq to issue
 * through v4blk_queue_rq().
 */
static void v4blk_queue_rqs(struct request **rqlist)
{
	struct request *left = NULL, **left_tail = &left;
	struct request *run = NULL, **run_tail = &run;
	struct blk_mq_hw_ctx *hctx = NULL;
	struct request *req;
	struct v4blk *blk;

	while ((req = rq_list_pop(rqlist))) {
		if (run && req->mq_hctx != hctx) {
			v4blk_add_run(&blk->queues[hctx->queue_num], &run);
			run_tail = &run;
		}
		hctx = req->mq_hctx;
		blk = hctx->queue->queuedata;
		/* What dispatch does when it gives a request its driver tag. */
		hctx->tags->rqs[req->tag] = req;
		if (v4blk_prep(blk, req) == BLK_STS_OK)
			rq_list_add_tail(&run_tail, req);
		else
			rq_list_add_tail(&left_tail, req);
	}
	if (run)
		v4blk_add_run(&blk->queues[hctx->queue_num], &run);
	*rqlist = left;
}

static void v4blk_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct v4blk *blk = hctx->queue->queuedata;
	struct v4blk_queue *q = &blk->queues[hctx->queue_num];
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	q->vq->ops->sync(q->vq);
	spin_unlock_irqrestore(&q->lock, flags);
}

/* Map each CPU to the queue whose interrupt it takes, when that is known. */
static void v4blk_map_irq_queues(struct v4blk *blk, struct blk_mq_queue_map *map)
{
	const struct cpumask *mask;
	unsigned int i, cpu;

	if (!blk->vdev->config->get_vq_affinity)
		goto fallback;
	for (i = 0; i < map->nr_queues; i++) {
		mask = blk->vdev->config->get_vq_affinity(blk->vdev, i);
		if (!mask)
			goto fallback;
		for_each_cpu(cpu, mask)
			map->mq_map[cpu] = map->queue_offset + i;
	}
	return;
fallback:
	blk_mq_map_queues(map);
}

/*
 * The queues with interrupts serve the default map; with poll queues, the
 * read map has none of its own (it falls back to the default) and the poll
 * map has the last queues, spread over the CPUs by blk-mq.
 */
static void v4blk_map_queues(struct blk_mq_tag_set *set)
{
	struct v4blk *blk = set->driver_data;
	struct blk_mq_queue_map *map = &set->map[HCTX_TYPE_DEFAULT];

	map->nr_queues = blk->nqueues - blk->npolled;
	map->queue_offset = 0;
	v4blk_map_irq_queues(blk, map);
	if (set->nr_maps <= HCTX_TYPE_POLL)
		return;
	set->map[HCTX_TYPE_READ].nr_queues = 0;
	map = &set->map[HCTX_TYPE_POLL];
	map->nr_queues = blk->npolled;
	map->queue_offset = blk->nqueues - blk->npolled;
	blk_mq_map_queues(map);
}

static const struct blk_mq_ops v4blk_mq_ops = {
	.queue_rq	= v4blk_queue_rq,
	.queue_rqs	= v4blk_queue_rqs,
	.commit_rqs	= v4blk_commit_rqs,
	.complete	= v4blk_complete,
	.timeout	= v4blk_timeout,
	.map_queues	= v4blk_map_queues,
	.poll		= v4blk_poll_queue,
};

static const struct block_device_operations v4blk_fops = {
	.owner = THIS_MODULE,
};

/* The device's id string (VIRTIO_BLK_T_GET_ID), NUL-terminated in @buf. */
static int v4blk_get_id(struct v4blk *blk, char *buf)
{
	struct request_queue *q = blk->disk->queue;
	struct request *req;
	int err;

	req = blk_mq_alloc_request(q, REQ_OP_DRV_IN, 0);
	if (IS_ERR(req))
		return PTR_ERR(req);
	err = blk_rq_map_kern(q, req, buf, VIRTIO_BLK_ID_BYTES, GFP_KERNEL);
	if (!err)
		err = blk_status_to_errno(blk_execute_rq(req, false));
	blk_mq_free_request(req);
	buf[VIRTIO_BLK_ID_BYTES] = '\0';
	return err;
}

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct v4blk *blk = dev_to_disk(dev)->private_data;
	char *id;
	int err;

	id = kzalloc(VIRTIO_BLK_ID_BYTES + 1, GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	err = v4blk_get_id(blk, id);
	if (!err)
		err = sysfs_emit(buf, "%s\n", id);
	kfree(id);
	return err;
}
static DEVICE_ATTR_RO(serial);

static ssize_t flushes_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct v4blk *blk = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%lld\n", atomic64_read(&blk->flushes));
}
static DEVICE_ATTR_RO(flushes);

/* The sum of counter @field (unsigned long) over @blk's queues. */
#define v4blk_queues_sum(blk, field) ({				\
	struct v4blk *__blk = (blk);					\
	unsigned long __n = 0;						\
	unsigned int __i;						\
									\
	for (__i = 0; __i < __blk->nqueues; __i++)			\
		__n += READ_ONCE(__blk->queues[__i].field);		\
	__n;								\
})

/* Times the queues' batch timers expired (irq_batch_us): interrupts of a kind. */
static ssize_t batch_expiries_show(struct device *dev, struct device_attribute *attr,
				   char *buf)
{
	struct v4blk *blk = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%lu\n", v4blk_queues_sum(blk, batch_expiries));
}
static DEVICE_ATTR_RO(batch_expiries);

/* Batches the queues asked of requests not sent yet (irq_batch_us, restart_after). */
static ssize_t batch_ahead_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	struct v4blk *blk = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%lu\n", v4blk_queues_sum(blk, batch_ahead));
}
static DEVICE_ATTR_RO(batch_ahead);

static struct attribute *v4blk_attrs[] = {
	&dev_attr_serial.attr,
	&dev_attr_flushes.attr,
	&dev_attr_batch_expiries.attr,
	&dev_attr_batch_ahead.attr,
	NULL,
};

static const struct attribute_group v4blk_attr_group = {
	.attrs = v4blk_attrs,
};

static const struct attribute_group *v4blk_attr_groups[] = {
	&v4blk_attr_group,
	NULL,
};

#define v4blk_cfg(field) offsetof(struct virtio_blk_config, field)

static void v4blk_update_capacity(struct v4blk *blk, bool notify)
{
	u64 capacity = virtio4_cread64(blk->vdev, v4blk_cfg(capacity));

	if (notify)
		set_capacity_and_notify(blk->disk, capacity);
	else
		set_capacity(blk->disk, capacity);
}

static void v4blk_set_block_size(struct v4blk *blk, struct request_queue *q)
{
	u32 size;

	if (!virtio4_has_feature(blk->vdev, VIRTIO_BLK_F_BLK_SIZE))
		return;
	size = virtio4_cread32(blk->vdev, v4blk_cfg(blk_size));
	if (size < SECTOR_SIZE || size > PAGE_SIZE || !is_power_of_2(size)) {
		dev_err(&blk->vdev->dev, "ignoring bad block size %u\n", size);
		return;
	}
	blk_queue_logical_block_size(q, size);
	blk_queue_physical_block_size(q, size);
	blk_queue_io_min(q, size);
}

static void v4blk_set_discard(struct v4blk *blk, struct request_queue *q)
{
	struct virtio4_device *vdev = blk->vdev;
	u32 v;

	if (virtio4_has_feature(vdev, VIRTIO_BLK_F_DISCARD)) {
		v = virtio4_cread32(vdev, v4blk_cfg(max_discard_sectors));
		blk_queue_max_discard_sectors(q, v ? v : UINT_MAX);
		blk_queue_max_discard_segments(q, 1);
		v = virtio4_cread32(vdev, v4blk_cfg(discard_sector_alignment));
		q->limits.discard_granularity = v ? v << SECTOR_SHIFT :
						    queue_logical_block_size(q);
	}
	if (virtio4_has_feature(vdev, VIRTIO_BLK_F_WRITE_ZEROES)) {
		v = virtio4_cread32(vdev, v4blk_cfg(max_write_zeroes_sectors));
		blk_queue_max_write_zeroes_sectors(q, v ? v : UINT_MAX);
	}
}

/* Apply what the device's configuration says to the queue and disk. */
static void v4blk_set_limits(struct v4blk *blk)
{
	struct virtio4_device *vdev = blk->vdev;
	struct request_queue *q = blk->disk->queue;
	u32 size_max;

	blk_queue_max_segments(q, blk->sg_elems);
	blk_queue_max_hw_sectors(q, UINT_MAX >> SECTOR_SHIFT);
	if (virtio4_has_feature(vdev, VIRTIO_BLK_F_SIZE_MAX)) {
		size_max = virtio4_cread32(vdev, v4blk_cfg(size_max));
		if (size_max >= PAGE_SIZE)
			blk_queue_max_segment_size(q, size_max);
	}
	v4blk_set_block_size(blk, q);
	v4blk_set_discard(blk, q);
	blk_queue_write_cache(q, virtio4_has_feature(vdev, VIRTIO_BLK_F_FLUSH), false);
	set_disk_ro(blk->disk, virtio4_has_feature(vdev, VIRTIO_BLK_F_RO));
	v4blk_update_capacity(blk, false);
}

static unsigned int v4blk_min_queue_size(struct v4blk *blk)
{
	unsigned int i, num = UINT_MAX;

	for (i = 0; i < blk->nqueues; i++)
		num = min(num, blk->queues[i].vq->num);
	return num;
}

/* How many data segments a request may have: ours, the device's and the ring's. */
static unsigned int v4blk_sg_elems(struct v4blk *blk)
{
	unsigned int n = max_segments ? max_segments : V4BLK_MAX_SEGMENTS;
	u32 seg_max;

	if (virtio4_has_feature(blk->vdev, VIRTIO_BLK_F_SEG_MAX)) {
		seg_max = virtio4_cread32(blk->vdev, v4blk_cfg(seg_max));
		if (seg_max)
			n = min(n, seg_max);
	} else if (!max_segments) {
		n = V4BLK_DEFAULT_SEGMENTS;	/* the device states no limit */
	}
	if (!virtio4_has_feature(blk->vdev, VIRTIO_RING_F_INDIRECT_DESC) &&
	    v4blk_min_queue_size(blk) > 2)
		n = min(n, v4blk_min_queue_size(blk) - 2);
	return n;
}

/* How many request queues to use: the device's, ours and the CPUs'. */
static unsigned int v4blk_count_queues(struct v4blk *blk)
{
	unsigned int n = num_queues ? num_queues : num_possible_cpus();
	u16 dev_queues;

	if (!virtio4_has_feature(blk->vdev, VIRTIO_BLK_F_MQ))
		return 1;
	dev_queues = virtio4_cread16(blk->vdev, v4blk_cfg(num_queues));
	if (!dev_queues) {
		dev_err(&blk->vdev->dev, "device offers 0 request queues, using 1\n");
		return 1;
	}
	return clamp_t(unsigned int, n, 1, min_t(unsigned int, dev_queues, nr_cpu_ids));
}

/* How many of @n request queues to poll: poll_queues, leaving one with interrupts. */
static unsigned int v4blk_count_polled(struct v4blk *blk, unsigned int n)
{
	unsigned int polled = n > 1 ? min(poll_queues, n - 1) : 0;

	if (polled < poll_queues)
		dev_info(&blk->vdev->dev, "poll_queues=%u: %u of %u request queue(s) polled, one keeps interrupts\n",
			 poll_queues, polled, n);
	return polled;
}

static int v4blk_init_vqs(struct v4blk *blk)
{
	unsigned int i, n = v4blk_count_queues(blk);
	unsigned int npolled = v4blk_count_polled(blk, n);
	struct irq_affinity spread = { };
	virtio4_callback_t **callbacks;
	struct virtio4_queue **vqs;
	const char **names;
	int err = -ENOMEM;

	blk->queues = kcalloc(n, sizeof(*blk->queues), GFP_KERNEL);
	vqs = kcalloc(n, sizeof(*vqs), GFP_KERNEL);
	callbacks = kcalloc(n, sizeof(*callbacks), GFP_KERNEL);
	names = kcalloc(n, sizeof(*names), GFP_KERNEL);
	if (!blk->queues || !vqs || !callbacks || !names)
		goto out;
	for (i = 0; i < n; i++) {
		struct v4blk_queue *q = &blk->queues[i];

		q->polled = i >= n - npolled;
		snprintf(q->name, sizeof(q->name), "%s.%u",
			 q->polled ? "polled" : "requests", i);
		spin_lock_init(&q->lock);
		hrtimer_init(&q->batch, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		q->batch.function = v4blk_batch_expired;
		q->blk = blk;
		callbacks[i] = q->polled ? NULL : v4blk_done;
		names[i] = q->name;
	}
	err = blk->vdev->config->find_vqs(blk->vdev, n, vqs, callbacks, names,
					  n - npolled > 1 ? &spread : NULL);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		blk->queues[i].vq = vqs[i];
		vqs[i]->priv = &blk->queues[i];
	}
	blk->nqueues = n;
	blk->npolled = npolled;
out:
	kfree(names);
	kfree(callbacks);
	kfree(vqs);
	if (err) {
		kfree(blk->queues);
		blk->queues = NULL;
	}
	return err;
}

static int v4blk_init_disk(struct v4blk *blk)
{
	struct blk_mq_tag_set *set = &blk->tag_set;
	int err;

	set->ops = &v4blk_mq_ops;
	set->nr_hw_queues = blk->nqueues;
	set->nr_maps = blk->npolled ? HCTX_MAX_TYPES : 1;
	set->queue_depth = v4blk_min_queue_size(blk);
	set->driver_data = blk;
	set->timeout = io_timeout * HZ;
	set->numa_node = NUMA_NO_NODE;
	set->flags = BLK_MQ_F_SHOULD_MERGE;
	set->cmd_size = sizeof(struct v4blk_req);
	err = blk_mq_alloc_tag_set(set);
	if (err)
		return err;
	blk->disk = blk_mq_alloc_disk(set, blk);
	if (IS_ERR(blk->disk)) {
		err = PTR_ERR(blk->disk);
		blk_mq_free_tag_set(set);
		return err;
	}
	blk->disk->major = v4blk_major;
	blk->disk->first_minor = blk->index * 16;
	blk->disk->minors = 16;
	blk->disk->fops = &v4blk_fops;
	blk->disk->private_data = blk;
	snprintf(blk->disk->disk_name, DISK_NAME_LEN, "v4blk%d", blk->index);
	return 0;
}

static void v4blk_free_disk(struct v4blk *blk)
{
	put_disk(blk->disk);
	blk_mq_free_tag_set(&blk->tag_set);
}

/*
 * Stop the batch timers, reset the device and delete its queues;
 * v4blk_abort() does nothing after.
 */
static void v4blk_stop(struct v4blk *blk)
{
	unsigned long flags;
	unsigned int i;

	mutex_lock(&blk->abort_lock);
	blk->dead = true;
	mutex_unlock(&blk->abort_lock);
	/* Under the lock: no completion starts a timer after this. */
	for (i = 0; i < blk->nqueues; i++) {
		spin_lock_irqsave(&blk->queues[i].lock, flags);
		blk->queues[i].stopping = true;
		spin_unlock_irqrestore(&blk->queues[i].lock, flags);
		hrtimer_cancel(&blk->queues[i].batch);
	}
	blk->vdev->config->reset(blk->vdev);
	blk->vdev->config->del_vqs(blk->vdev);
	/* No callback runs now: the work cannot be scheduled again. */
	cancel_work_sync(&blk->broken_work);
}

static int v4blk_probe(struct virtio4_device *vdev)
{
	struct v4blk *blk;
	int err;

	blk = kzalloc(sizeof(*blk), GFP_KERNEL);
	if (!blk)
		return -ENOMEM;
	blk->vdev = vdev;
	mutex_init(&blk->abort_lock);
	INIT_WORK(&blk->broken_work, v4blk_broken_work);
	vdev->priv = blk;
	err = ida_alloc_max(&v4blk_index_ida, (1 << MINORBITS) / 16 - 1, GFP_KERNEL);
	if (err < 0)
		goto err_free;
	blk->index = err;
	err = v4blk_init_vqs(blk);
	if (err)
		goto err_ida;
	blk->sg_elems = v4blk_sg_elems(blk);
	err = v4blk_init_disk(blk);
	if (err)
		goto err_vqs;
	v4blk_set_limits(blk);
	/* The device must be live before the partition scan reads from it. */
	virtio4_device_ready(vdev);
	err = device_add_disk(&vdev->dev, blk->disk, v4blk_attr_groups);
	if (err)
		goto err_disk;
	return 0;

err_disk:
	v4blk_stop(blk);
	kfree(blk->queues);
	v4blk_free_disk(blk);
	goto err_ida;
err_vqs:
	v4blk_stop(blk);
	kfree(blk->queues);
err_ida:
	ida_free(&v4blk_index_ida, blk->index);
err_free:
	kfree(blk);
	return err;
}

static void v4blk_remove(struct virtio4_device *vdev)
{
	struct v4blk *blk = vdev->priv;

	del_gendisk(blk->disk);
	v4blk_stop(blk);
	kfree(blk->queues);
	v4blk_free_disk(blk);
	ida_free(&v4blk_index_ida, blk->index);
	kfree(blk);
}

static void v4blk_config_changed(struct virtio4_device *vdev)
{
	struct v4blk *blk = vdev->priv;

	if (vdev->config->get_status(vdev) & VIRTIO_CONFIG_S_NEEDS_RESET) {
		v4blk_abort(blk, "the device asked for a reset");
		return;
	}
	v4blk_update_capacity(blk, true);
}

static const struct virtio4_device_id v4blk_ids[] = {
	{ VIRTIO_ID_BLOCK, VIRTIO4_ANY_VENDOR },
	{ }
};

static const unsigned int v4blk_features[] = {
	VIRTIO_BLK_F_SIZE_MAX, VIRTIO_BLK_F_SEG_MAX, VIRTIO_BLK_F_RO,
	VIRTIO_BLK_F_BLK_SIZE, VIRTIO_BLK_F_FLUSH, VIRTIO_BLK_F_DISCARD,
	VIRTIO_BLK_F_WRITE_ZEROES, VIRTIO_BLK_F_MQ,
};

static struct virtio4_driver v4blk_driver = {
	.driver.name		= KBUILD_MODNAME,
	.driver.owner		= THIS_MODULE,
	.id_table		= v4blk_ids,
	.feature_table		= v4blk_features,
	.feature_table_size	= ARRAY_SIZE(v4blk_features),
	.probe			= v4blk_probe,
	.remove			= v4blk_remove,
	.config_changed		= v4blk_config_changed,
};

static int __init v4blk_init(void)
{
	int err;

	if (!io_timeout || io_timeout > 3600) {
		pr_err("io_timeout=%u is outside 1..3600 seconds\n", io_timeout);
		return -EINVAL;
	}
	if (max_segments > V4BLK_MAX_SEGMENTS) {
		pr_err("max_segments=%u is above %u\n", max_segments, V4BLK_MAX_SEGMENTS);
		return -EINVAL;
	}
	if (poll_queues > V4BLK_MAX_POLL_QUEUES) {
		pr_err("poll_queues=%u is above %u\n", poll_queues, V4BLK_MAX_POLL_QUEUES);
		return -EINVAL;
	}
	if (irq_batch_us > 1000) {
		pr_err("irq_batch_us=%u is above 1000\n", irq_batch_us);
		return -EINVAL;
	}
	v4blk_major = register_blkdev(0, "v4blk");
	if (v4blk_major < 0)
		return v4blk_major;
	err = virtio4_register_driver(&v4blk_driver);
	if (err)
		unregister_blkdev(v4blk_major, "v4blk");
	return err;
}

static void __exit v4blk_exit(void)
{
	virtio4_unregister_driver(&v4blk_driver);
	unregister_blkdev(v4blk_major, "v4blk");
	ida_destroy(&v4blk_index_ida);
}

module_init(v4blk_init);
module_exit(v4blk_exit);
MODULE_ALIAS("virtio4:d00000002v*");
MODULE_DESCRIPTION("virtio draft IV: block driver");
MODULE_LICENSE("GPL");
