// SPDX-License-Identifier: GPL-2.0
/*
 * The device host's side of /dev/virtio4-host: create a device, read its
 * records, batch completions into write()s, and misbehave on request.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "host.h"

int verbose;

static void vnote(const char *fmt, va_list ap)
{
	fputs("virtio4-host: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
	exit(1);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

int parse_misbehave(struct vdev *d, const char *arg)
{
	static const char * const names[] = {
		[MB_NONE] = "none", [MB_WRONG_TOKEN] = "wrong-token",
		[MB_DUPLICATE] = "duplicate", [MB_OVERSTATE] = "overstate",
		[MB_NEVER] = "never-complete", [MB_EXIT] = "exit",
		[MB_BAD_STATUS] = "bad-status", [MB_SHORT] = "short",
		[MB_NEEDS_RESET] = "needs-reset",
		[MB_REFUSE_FEATURES] = "refuse-features", [MB_SPLIT] = "split",
		[MB_GSO_NOT_TCP] = "gso-not-tcp", [MB_GSO_SIZE_0] = "gso-size-0",
		[MB_CSUM_PAST_END] = "csum-past-end", [MB_CTRL_SILENT] = "ctrl-silent",
		[MB_RSS_SMALL_TABLE] = "rss-small-table", [MB_STRAY_QUEUE] = "stray-queue",
	};
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (strlen(names[i]) == n && !strncmp(arg, names[i], n)) {
			d->misbehave = i;
			d->after = colon ? strtoul(colon + 1, NULL, 0) : 0;
			return 0;
		}
	}
	return -1;
}

void host_create(struct vdev *d, const struct virtio4_host_create *create)
{
	struct virtio4_host_create c = *create;

	if (d->misbehave == MB_REFUSE_FEATURES)
		c.flags |= VIRTIO4_HOST_F_REFUSE_FEATURES;
	/* Non-blocking: a read() that finds nothing must not starve other files. */
	d->fd = open("/dev/virtio4-host", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (d->fd < 0)
		die("open /dev/virtio4-host: %s (is virtio4_copy loaded?)", strerror(errno));
	d->rbuf = malloc(HOST_RBUF_SIZE);
	d->wbuf = malloc(HOST_WBUF_SIZE);
	if (!d->rbuf || !d->wbuf)
		die("out of memory");
	if (ioctl(d->fd, VIRTIO4_HOST_CREATE, &c))
		die("%s: VIRTIO4_HOST_CREATE: %s", d->name, strerror(errno));
}

ssize_t host_read(struct vdev *d, bool nonblock)
{
	struct pollfd p = { .fd = d->fd, .events = POLLIN };
	ssize_t n;

	d->rlen = 0;
	if (!nonblock && poll(&p, 1, -1) < 0 && errno != EINTR)
		die("%s: poll: %s", d->name, strerror(errno));
	n = read(d->fd, d->rbuf, HOST_RBUF_SIZE);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		n = 0;
	else if (n < 0)
		die("%s: read: %s", d->name, strerror(errno));
	d->rlen = n;
	return n;
}

const struct virtio4_host_msg *host_next(struct vdev *d, size_t *pos)
{
	const struct virtio4_host_msg *m;

	if (*pos + sizeof(*m) > d->rlen)
		return NULL;
	m = (const void *)(d->rbuf + *pos);
	if (m->size < sizeof(*m) || *pos + m->size > d->rlen)
		die("%s: malformed record of %u bytes", d->name, m->size);
	*pos += m->size;
	if (m->type == VIRTIO4_HOST_MSG_STATUS) {
		d->status = m->out_len;
		d->features = m->token;
		if (verbose)
			note("%s: status %#x features %#llx", d->name, d->status,
			     (unsigned long long)d->features);
	}
	return m;
}

void host_flush(struct vdev *d)
{
	size_t off = 0;
	ssize_t n;

	while (off < d->wused) {
		n = write(d->fd, d->wbuf + off, d->wused - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EINVAL && d->misbehave != MB_NONE) {
			/* Expected: the kernel refused the lie; skip that record. */
			const struct virtio4_host_done *c = (const void *)(d->wbuf + off);

			d->rejected++;
			if (c->len > d->wused - off - sizeof(*c))
				break;
			off += sizeof(*c) + VIRTIO4_HOST_ALIGN(c->len);
			continue;
		}
		if (n < 0)
			die("%s: write: %s", d->name, strerror(errno));
		off += n;
	}
	d->wused = 0;
}

void *host_reserve(struct vdev *d, uint16_t queue, uint64_t token, uint32_t len)
{
	size_t need = sizeof(struct virtio4_host_done) + VIRTIO4_HOST_ALIGN(len);
	struct virtio4_host_done *c;

	if (2 * need + 8 > HOST_WBUF_SIZE)
		die("%s: completion of %u bytes is too large", d->name, len);
	/* Twice the room: a misbehaving device may duplicate or lengthen it. */
	if (d->wused + 2 * need + 8 > HOST_WBUF_SIZE)
		host_flush(d);
	c = (void *)(d->wbuf + d->wused);
	c->token = token;
	c->queue = queue;
	c->reserved = 0;
	c->len = len;
	memset((unsigned char *)(c + 1) + len, 0, VIRTIO4_HOST_ALIGN(len) - len);
	return c + 1;
}

/* Apply the misbehaviour, if its time has come, to the reserved completion. */
static void host_misbehave(struct vdev *d, struct virtio4_host_done *c)
{
	size_t size = sizeof(*c) + VIRTIO4_HOST_ALIGN(c->len);

	switch (d->misbehave) {
	case MB_WRONG_TOKEN:
		c->token ^= 0x5a5aULL;
		break;
	case MB_DUPLICATE:
		memcpy((unsigned char *)c + size, c, size);
		d->wused += size;
		break;
	case MB_OVERSTATE:
		/* Claim 8 bytes beyond the room, and send them. */
		memset((unsigned char *)(c + 1) + c->len, 0xa5, 8);
		c->len = VIRTIO4_HOST_ALIGN(c->len) + 8;
		break;
	case MB_EXIT:
		note("%s: exiting with buffers outstanding, as asked", d->name);
		exit(0);
	case MB_BAD_STATUS:
		if (c->len)
			((unsigned char *)(c + 1))[c->len - 1] = 0x77;
		break;
	case MB_SHORT:
		if (c->len > 2)
			c->len = 2;
		break;
	default:
		break;
	}
}

void host_commit(struct vdev *d)
{
	struct virtio4_host_done *c = (void *)(d->wbuf + d->wused);
	size_t size = sizeof(*c) + VIRTIO4_HOST_ALIGN(c->len);

	if (d->misbehave != MB_NONE && d->completions >= d->after) {
		if (d->misbehave == MB_NEVER)
			return;		/* the completion is never written */
		if (d->misbehave == MB_NEEDS_RESET) {
			if (!d->stopped && ioctl(d->fd, VIRTIO4_HOST_NEEDS_RESET))
				die("%s: VIRTIO4_HOST_NEEDS_RESET: %s", d->name, strerror(errno));
			if (!d->stopped)
				note("%s: stopped, device needs a reset", d->name);
			d->stopped = true;
			return;
		}
		host_misbehave(d, c);
		size = sizeof(*c) + VIRTIO4_HOST_ALIGN(c->len);
	}
	d->wused += size;
	d->completions++;
}

void host_complete(struct vdev *d, uint16_t queue, uint64_t token,
		   const void *data, uint32_t len)
{
	void *p = host_reserve(d, queue, token, len);

	if (len)
		memcpy(p, data, len);
	host_commit(d);
}

void host_set_config(struct vdev *d, uint32_t offset, const void *data, uint32_t len)
{
	struct virtio4_host_config c = { .offset = offset, .len = len };

	if (len > sizeof(c.data))
		die("config change too large");
	memcpy(c.data, data, len);
	if (ioctl(d->fd, VIRTIO4_HOST_SET_CONFIG, &c))
		die("%s: VIRTIO4_HOST_SET_CONFIG: %s", d->name, strerror(errno));
}
