/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the descriptor ring, to follow one request through it:
 * virtio4_add_buf (the driver adds a buffer: its token and descriptor head),
 * virtio4_kick (the device is notified), virtio4_interrupt (an interrupt
 * found used buffers) and virtio4_used (get_buf hands a buffer back: the
 * same token, the used length). Each names the device and the queue.
 *
 *   echo 1 > /sys/kernel/tracing/events/virtio4/enable
 *   cat /sys/kernel/tracing/trace_pipe
 *
 * Included by ring.c (which creates the tracepoints) and packed.c, after
 * struct ring (common.h).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM virtio4

#if !defined(_VIRTIO4_RING_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _VIRTIO4_RING_TRACE_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(virtio4_queue_event,
		    TP_PROTO(const struct ring *r, const void *data,
			     unsigned int a, unsigned int b),
		    TP_ARGS(r, data, a, b),
		    TP_STRUCT__entry(__string(dev, dev_name(&r->vdev->dev))
				     __string(queue, r->name)
				     __field(const void *, data)
				     __field(unsigned int, a)
				     __field(unsigned int, b)),
		    TP_fast_assign(__assign_str(dev, dev_name(&r->vdev->dev));
				   __assign_str(queue, r->name);
				   __entry->data = data;
				   __entry->a = a;
				   __entry->b = b;),
		    TP_printk("%s %s token=%p id=%u len=%u", __get_str(dev),
			      __get_str(queue), __entry->data, __entry->a,
			      __entry->b));

DEFINE_EVENT_PRINT(virtio4_queue_event, virtio4_add_buf,
		   TP_PROTO(const struct ring *r, const void *data,
			    unsigned int head, unsigned int num_free),
		   TP_ARGS(r, data, head, num_free),
		   TP_printk("%s %s token=%p head=%u free=%u", __get_str(dev),
			     __get_str(queue), __entry->data, __entry->a,
			     __entry->b));

DEFINE_EVENT_PRINT(virtio4_queue_event, virtio4_kick,
		   TP_PROTO(const struct ring *r, const void *data,
			    unsigned int avail_idx, unsigned int in_flight),
		   TP_ARGS(r, data, avail_idx, in_flight),
		   TP_printk("%s %s avail_idx=%u in_flight=%u", __get_str(dev),
			     __get_str(queue), __entry->a, __entry->b));

DEFINE_EVENT_PRINT(virtio4_queue_event, virtio4_interrupt,
		   TP_PROTO(const struct ring *r, const void *data,
			    unsigned int used_idx, unsigned int last_used),
		   TP_ARGS(r, data, used_idx, last_used),
		   TP_printk("%s %s used_idx=%u last_used=%u", __get_str(dev),
			     __get_str(queue), __entry->a, __entry->b));

/* The class's format: a and b are the used id and length. */
DEFINE_EVENT(virtio4_queue_event, virtio4_used,
	     TP_PROTO(const struct ring *r, const void *data, unsigned int a,
		      unsigned int b),
	     TP_ARGS(r, data, a, b));

#endif /* _VIRTIO4_RING_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
