/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The device host protocol of the copying transport (virtio4_copy.ko).
 *
 * A userspace process (the device host) opens /dev/virtio4-host and creates
 * one virtio device on that file with VIRTIO4_HOST_CREATE. The device appears
 * on the virtio4 bus and a driver binds to it. From then on:
 *
 *  - read() returns records, each a struct virtio4_host_msg followed by
 *    its payload, padded to 8 bytes: the buffers the driver made available
 *    (the out elements' bytes, and the room in the in elements) and changes
 *    of the device status. One read() returns as many whole records as fit;
 *    it blocks until there is one (or fails with EAGAIN under O_NONBLOCK),
 *    and fails with ENOBUFS if the first record does not fit. poll() tells
 *    when a record is ready. A buffer the driver takes back before the
 *    read() may leave it nothing: a device host serving several files
 *    opens them with O_NONBLOCK, or one blocked read() starves the others.
 *  - write() takes completions, each a struct virtio4_host_done followed by
 *    the bytes for the in elements, padded to 8 bytes. One write() may carry
 *    many; it returns the bytes of the completions it took. A bad completion
 *    (unknown queue or token, a length beyond the buffer's room, a short
 *    record) fails the write() with EINVAL and is logged; completions before
 *    it in the same write() were taken.
 *  - closing the file removes the device: buffers still outstanding
 *    complete with nothing written, which the drivers report as I/O errors.
 *
 * Only a process with CAP_SYS_ADMIN may create devices.
 */
#ifndef _VIRTIO4_HOST_H
#define _VIRTIO4_HOST_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define VIRTIO4_HOST_MAX_QUEUES		16
#define VIRTIO4_HOST_MAX_QUEUE_SIZE	32768
#define VIRTIO4_HOST_CONFIG_SIZE	256

/**
 * struct virtio4_host_create - the device a device host serves
 * @device_id: virtio device id (VIRTIO_ID_BLOCK, VIRTIO_ID_NET, ...).
 * @vendor_id: virtio vendor id, for drivers that match on it.
 * @features: the feature bits the device offers; VIRTIO_F_VERSION_1 is
 *	required by the bus.
 * @num_queues: how many queues the device has, 1..VIRTIO4_HOST_MAX_QUEUES.
 * @config_len: bytes of @config in use, up to VIRTIO4_HOST_CONFIG_SIZE.
 * @flags: VIRTIO4_HOST_F_* bits; others must be 0.
 * @reserved: must be 0.
 * @queue_size: for each queue, its size in buffer elements (1..32768):
 *	the most elements the driver may have outstanding on it.
 * @config: the device configuration space (struct virtio_blk_config...),
 *	little-endian as in virtio 1.x.
 */
struct virtio4_host_create {
	__u32 device_id;
	__u32 vendor_id;
	__u64 features;
	__u32 num_queues;
	__u32 config_len;
	__u32 flags;
	__u32 reserved;
	__u16 queue_size[VIRTIO4_HOST_MAX_QUEUES];
	__u8 config[VIRTIO4_HOST_CONFIG_SIZE];
};

/*
 * The device refuses FEATURES_OK: the driver's FEATURES_OK never shows in the
 * status it reads back. For testing drivers against a broken device.
 */
#define VIRTIO4_HOST_F_REFUSE_FEATURES	0x1U
#define VIRTIO4_HOST_F_ALL		VIRTIO4_HOST_F_REFUSE_FEATURES

/**
 * struct virtio4_host_config - new configuration space contents
 * @offset: where the change starts.
 * @len: how many bytes of @data to copy there.
 * @data: the bytes.
 *
 * VIRTIO4_HOST_SET_CONFIG changes them and notifies the driver, as a
 * device's configuration-change interrupt would (a disk resized).
 */
struct virtio4_host_config {
	__u32 offset;
	__u32 len;
	__u8 data[VIRTIO4_HOST_CONFIG_SIZE];
};

#define VIRTIO4_HOST_IOC_MAGIC	0xE4
#define VIRTIO4_HOST_CREATE	_IOW(VIRTIO4_HOST_IOC_MAGIC, 1, struct virtio4_host_create)
#define VIRTIO4_HOST_SET_CONFIG	_IOW(VIRTIO4_HOST_IOC_MAGIC, 2, struct virtio4_host_config)
/*
 * The device sets DEVICE_NEEDS_RESET in its status and raises a configuration
 * change: it has stopped and drops what it holds; the driver must reset it.
 */
#define VIRTIO4_HOST_NEEDS_RESET	_IO(VIRTIO4_HOST_IOC_MAGIC, 3)

/* Record types of struct virtio4_host_msg. */
#define VIRTIO4_HOST_MSG_BUF	1	/* a buffer the driver made available */
#define VIRTIO4_HOST_MSG_STATUS	2	/* the driver changed the device status */

/**
 * struct virtio4_host_msg - one record read from the device
 * @type: VIRTIO4_HOST_MSG_BUF or VIRTIO4_HOST_MSG_STATUS.
 * @queue: BUF: the queue the buffer is on.
 * @size: bytes of the whole record: this header, the payload and padding.
 * @token: BUF: names the buffer in its completion. STATUS: the negotiated
 *	features once FEATURES_OK is set, else 0.
 * @out_len: BUF: bytes of the out elements, which follow this header.
 *	STATUS: the device status now, or 0 for a reset: every buffer read
 *	before a reset is void and its completion is ignored. A reset's
 *	record always comes, before any record of a buffer added after it.
 * @in_len: BUF: room in the in elements: the most a completion may write.
 */
struct virtio4_host_msg {
	__u16 type;
	__u16 queue;
	__u32 size;
	__u64 token;
	__u32 out_len;
	__u32 in_len;
};

/**
 * struct virtio4_host_done - one completion written to the device
 * @token: the token of the buffer, from its struct virtio4_host_msg.
 * @queue: the queue the buffer is on.
 * @reserved: must be 0.
 * @len: bytes written into the buffer's in elements (the used length);
 *	that many bytes follow this header, padded to 8.
 */
struct virtio4_host_done {
	__u64 token;
	__u16 queue;
	__u16 reserved;
	__u32 len;
};

/* Records are padded to this alignment. */
#define VIRTIO4_HOST_ALIGN(n)	(((n) + 7) & ~(__typeof__(n))7)

#endif /* _VIRTIO4_HOST_H */
