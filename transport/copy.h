/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The copying transport's entry points for KUnit tests, which play the
 * device host with kernel buffers through the same parsing as read() and
 * write() on /dev/virtio4-host.
 */
#ifndef _VIRTIO4_COPY_H
#define _VIRTIO4_COPY_H

#include <linux/poll.h>
#include <virtio4/bus.h>
#include <virtio4/host.h>

/* Exported only to KUnit tests (namespace EXPORTED_FOR_KUNIT_TESTING). */
struct virtio4_device *virtio4_copy_test_create(const struct virtio4_host_create *c);
void virtio4_copy_test_destroy(struct virtio4_device *vdev);
ssize_t virtio4_copy_test_read(struct virtio4_device *vdev, void *buf, size_t len);
ssize_t virtio4_copy_test_write(struct virtio4_device *vdev, const void *buf,
				size_t len);
__poll_t virtio4_copy_test_poll(struct virtio4_device *vdev);
void virtio4_copy_test_interrupts(struct virtio4_device *vdev);

#endif /* _VIRTIO4_COPY_H */
