/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio4-host: the device host of the copying transport. One struct
 * vdev is one device created on /dev/virtio4-host; the device models
 * (blk.c, net.c) read its records and complete its buffers through the
 * functions below, which batch completions into one write().
 */
#ifndef VIRTIO4_HOST_TOOL_H
#define VIRTIO4_HOST_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <virtio4/host.h>

/* How the device misbehaves, for hardening tests (--misbehave MODE[:N]). */
enum misbehave {
	MB_NONE,
	MB_WRONG_TOKEN,	/* complete with a token that is not in flight */
	MB_DUPLICATE,	/* complete the same buffer twice */
	MB_OVERSTATE,	/* claim more bytes than the buffer has room for */
	MB_NEVER,	/* stop completing */
	MB_EXIT,	/* exit with buffers outstanding */
	MB_BAD_STATUS,	/* garbage in the last byte written (a block status) */
	MB_SHORT,	/* claim 2 bytes written: shorter than any header */
	MB_NEEDS_RESET,	/* set DEVICE_NEEDS_RESET and stop completing */
	MB_REFUSE_FEATURES, /* never accept FEATURES_OK */
	MB_SPLIT,	/* net: spread each received frame over 64-byte pieces of buffers */
	/* net: a receive header that lies about every frame (the driver must refuse it) */
	MB_GSO_NOT_TCP,	/* TCPv4 GSO on IPv4 frames that are not TCP */
	MB_GSO_SIZE_0,	/* TCPv4 GSO in segments of 0 bytes */
	MB_CSUM_PAST_END, /* a partial checksum placed past the frame's end */
	MB_CTRL_SILENT,	/* net: offer a control queue, never answer a command on it */
	MB_RSS_SMALL_TABLE, /* net --rss: offer a table of 64 entries, under the spec's 128 */
	MB_STRAY_QUEUE,	/* net --queues N: receive every frame on the last pair, in use or not */
};

struct vdev {
	const char *name;
	int fd;
	unsigned char *rbuf;	/* records read */
	size_t rlen;		/* bytes of them */
	unsigned char *wbuf;	/* completions to write */
	size_t wused;
	uint64_t features;	/* negotiated, once FEATURES_OK */
	uint8_t status;
	enum misbehave misbehave;
	unsigned long after;	/* misbehave after this many good completions */
	unsigned long completions;
	unsigned long rejected;	/* completions the kernel refused */
	bool stopped;		/* MB_NEEDS_RESET happened */
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define HOST_RBUF_SIZE	(8u << 20)
#define HOST_WBUF_SIZE	(8u << 20)

extern int verbose;

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int parse_misbehave(struct vdev *d, const char *arg);
void host_create(struct vdev *d, const struct virtio4_host_create *c);
/* Read records (waiting for one unless @nonblock); 0 if none, else bytes. */
ssize_t host_read(struct vdev *d, bool nonblock);
/* The next record at *@pos of the last read, or NULL; advances *@pos. */
const struct virtio4_host_msg *host_next(struct vdev *d, size_t *pos);
/* Room for a completion of @len bytes; fill it, then host_commit(). */
void *host_reserve(struct vdev *d, uint16_t queue, uint64_t token, uint32_t len);
void host_commit(struct vdev *d);
void host_complete(struct vdev *d, uint16_t queue, uint64_t token,
		   const void *data, uint32_t len);
void host_flush(struct vdev *d);
void host_set_config(struct vdev *d, uint32_t offset, const void *data, uint32_t len);

int blk_main(int argc, char **argv);
int net_main(int argc, char **argv);

#endif
