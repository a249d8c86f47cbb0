// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel services transport/copy.c calls, for its userspace build in
 * fuzz-copy: iov_iter over kvecs (the transport's test entry points use
 * nothing else), and the bus functions, which the fuzzer never needs.
 */
#include <linux/uio.h>
#include <virtio4/bus.h>

/* Copy between @buf and the iterator's segments; to_iter: into them. */
static size_t iter_copy(struct iov_iter *i, void *buf, size_t bytes, bool to_iter)
{
	size_t done = 0;

	bytes = min(bytes, i->count);
	while (done < bytes) {
		const struct kvec *v = i->kvec;
		size_t n = min(bytes - done, v->iov_len - i->iov_offset);

		if (buf && to_iter)
			memcpy((u8 *)v->iov_base + i->iov_offset, (u8 *)buf + done, n);
		else if (buf)
			memcpy((u8 *)buf + done, (u8 *)v->iov_base + i->iov_offset, n);
		else if (to_iter)
			memset((u8 *)v->iov_base + i->iov_offset, 0, n);
		done += n;
		i->iov_offset += n;
		i->count -= n;
		if (i->iov_offset == v->iov_len && i->nr_segs > 1) {
			i->kvec++;
			i->nr_segs--;
			i->iov_offset = 0;
		}
	}
	return done;
}

void iov_iter_kvec(struct iov_iter *i, unsigned int direction, const struct kvec *kvec,
		   unsigned long nr_segs, size_t count)
{
	*i = (struct iov_iter){ .iter_type = ITER_KVEC, .data_source = direction,
				.kvec = kvec, .nr_segs = nr_segs, .count = count };
}

size_t _copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i)
{
	return iter_copy(i, (void *)addr, bytes, true);
}

size_t _copy_from_iter(void *addr, size_t bytes, struct iov_iter *i)
{
	return iter_copy(i, addr, bytes, false);
}

size_t copy_page_to_iter(struct page *page, size_t offset, size_t bytes, struct iov_iter *i)
{
	return iter_copy(i, (u8 *)page + offset, bytes, true);
}

size_t copy_page_from_iter(struct page *page, size_t offset, size_t bytes, struct iov_iter *i)
{
	return iter_copy(i, (u8 *)page + offset, bytes, false);
}

size_t iov_iter_zero(size_t bytes, struct iov_iter *i)
{
	return iter_copy(i, NULL, bytes, true);
}

void iov_iter_advance(struct iov_iter *i, size_t bytes)
{
	u8 sink[64];

	while (bytes && i->count) {
		size_t n = iter_copy(i, sink, min(bytes, sizeof(sink)), false);

		bytes -= n;
	}
}

void iov_iter_revert(struct iov_iter *i, size_t bytes)
{
	i->count += bytes;
	while (bytes) {
		size_t n = min(bytes, i->iov_offset);

		i->iov_offset -= n;
		bytes -= n;
		if (bytes) {
			i->kvec--;
			i->nr_segs++;
			i->iov_offset = i->kvec->iov_len;
		}
	}
}

void *memdup_user(const void *src, size_t len)
{
	void *p = kmalloc(len, GFP_KERNEL);

	if (p)
		memcpy(p, src, len);
	return p;
}

int virtio4_register_device(struct virtio4_device *vdev)
{
	return -ENODEV;
}

void virtio4_unregister_device(struct virtio4_device *vdev)
{
}

void virtio4_config_changed(struct virtio4_device *vdev)
{
}
