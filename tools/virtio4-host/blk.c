// SPDX-License-Identifier: GPL-2.0
/*
 * A virtio-blk device backed by a file or a block device: read, write,
 * flush, GET_ID, discard and write zeroes (virtio 1.x: the status byte is
 * the last byte of the in elements).
 *
 * --volatile-cache: writes (and zeroes, and discards) land in a write cache
 * in this process's memory, a copy of the disk with a dirty bit per sector;
 * reads see the cache; only a flush writes it to the file. A device host that
 * is killed, or a guest whose power is cut, loses what was not flushed, as a
 * disk with a volatile write cache does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/virtio_blk.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host.h"

#define BLK_QUEUE_SIZE	256
#define BLK_SEG_MAX	(BLK_QUEUE_SIZE - 2)
#define BLK_ZERO_CHUNK	(1u << 20)
#define BLK_CACHE_MAX	(1ull << 30)	/* largest disk a volatile cache may cover */

/* A volatile write cache: the disk's bytes, and which sectors are newer than the file's. */
struct blk_cache {
	unsigned char *data;
	unsigned char *dirty;	/* one byte per sector: 1 = data holds the newest bytes */
};

struct blk {
	struct vdev d;
	int fd;
	bool is_bdev;
	bool read_only;
	uint64_t size;
	char serial[VIRTIO_BLK_ID_BYTES];
	unsigned long requests;
	struct blk_cache *cache;	/* NULL: writes go to the file at once */
};

static void blk_cache_new(struct blk *b)
{
	if (b->size > BLK_CACHE_MAX || b->size % 512)
		die("--volatile-cache: the disk must be whole sectors, up to %llu bytes",
		    BLK_CACHE_MAX);
	b->cache = calloc(1, sizeof(*b->cache));
	if (b->cache) {
		b->cache->data = calloc(1, b->size);
		b->cache->dirty = calloc(1, b->size / 512 + 1);
	}
	if (!b->cache || !b->cache->data || !b->cache->dirty)
		die("--volatile-cache: no memory for %llu bytes", (unsigned long long)b->size);
}

/* Into the cache: LEN bytes at SECTOR (DATA NULL: zeroes). */
static void blk_cache_put(struct blk *b, uint64_t sector, const void *data, uint64_t len)
{
	if (data)
		memcpy(b->cache->data + sector * 512, data, len);
	else
		memset(b->cache->data + sector * 512, 0, len);
	memset(b->cache->dirty + sector, 1, (len + 511) / 512);
}

/* Over bytes read from the file: the cache's newer sectors. */
static void blk_cache_get(struct blk *b, uint64_t sector, void *data, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < (len + 511) / 512; i++) {
		uint32_t n = len - i * 512 < 512 ? len - i * 512 : 512;

		if (b->cache->dirty[sector + i])
			memcpy((unsigned char *)data + i * 512,
			       b->cache->data + (sector + i) * 512, n);
	}
}

/*
 * A flush: every dirty run of sectors to the file, then the file to its storage; the sectors
 * stay dirty until that has succeeded, so a failed flush is written again by the next one.
 */
static uint8_t blk_cache_flush(struct blk *b)
{
	uint64_t s = 0, e, sectors = b->size / 512;

	while (s < sectors) {
		if (!b->cache->dirty[s]) {
			s++;
			continue;
		}
		for (e = s; e < sectors && b->cache->dirty[e]; e++)
			;
		if (pwrite(b->fd, b->cache->data + s * 512, (e - s) * 512, s * 512) !=
		    (ssize_t)((e - s) * 512))
			return VIRTIO_BLK_S_IOERR;
		s = e;
	}
	if (fdatasync(b->fd))
		return VIRTIO_BLK_S_IOERR;
	memset(b->cache->dirty, 0, sectors);
	return VIRTIO_BLK_S_OK;
}

/* Is [sector, sector + len) inside the disk? */
static bool blk_in_range(const struct blk *b, uint64_t sector, uint64_t len)
{
	return sector <= b->size / 512 && len <= b->size - sector * 512;
}

static uint8_t blk_read(struct blk *b, uint64_t sector, void *data, uint32_t len)
{
	ssize_t n;

	if (!blk_in_range(b, sector, len))
		return VIRTIO_BLK_S_IOERR;
	n = pread(b->fd, data, len, sector * 512);
	if (n != (ssize_t)len)
		return VIRTIO_BLK_S_IOERR;
	if (b->cache)
		blk_cache_get(b, sector, data, len);
	return VIRTIO_BLK_S_OK;
}

static uint8_t blk_write(struct blk *b, uint64_t sector, const void *data,
			 uint32_t len)
{
	if (b->read_only || !blk_in_range(b, sector, len))
		return VIRTIO_BLK_S_IOERR;
	if (b->cache) {
		if (len % 512)
			return VIRTIO_BLK_S_IOERR;	/* the cache holds whole sectors */
		blk_cache_put(b, sector, data, len);
		return VIRTIO_BLK_S_OK;
	}
	return pwrite(b->fd, data, len, sector * 512) == (ssize_t)len ?
	       VIRTIO_BLK_S_OK : VIRTIO_BLK_S_IOERR;
}

static uint8_t blk_zero(struct blk *b, uint64_t off, uint64_t len, bool discard)
{
	static const unsigned char zeros[BLK_ZERO_CHUNK];
	uint64_t range[2] = { off, len };

	if (b->cache) {
		blk_cache_put(b, off / 512, NULL, len);
		return VIRTIO_BLK_S_OK;
	}
	if (!b->is_bdev) {
		int mode = FALLOC_FL_KEEP_SIZE |
			   (discard ? FALLOC_FL_PUNCH_HOLE : FALLOC_FL_ZERO_RANGE);

		if (!fallocate(b->fd, mode, off, len))
			return VIRTIO_BLK_S_OK;
	} else if (!ioctl(b->fd, discard ? BLKDISCARD : BLKZEROOUT, range)) {
		return VIRTIO_BLK_S_OK;
	}
	/* Discard is advice; zeroes must be there, so write them. */
	if (discard)
		return VIRTIO_BLK_S_OK;
	while (len) {
		size_t n = len < BLK_ZERO_CHUNK ? len : BLK_ZERO_CHUNK;

		if (pwrite(b->fd, zeros, n, off) != (ssize_t)n)
			return VIRTIO_BLK_S_IOERR;
		off += n;
		len -= n;
	}
	return VIRTIO_BLK_S_OK;
}

/* Discard or write zeroes: a list of ranges in the out bytes. */
static uint8_t blk_ranges(struct blk *b, const void *p, uint32_t len, bool discard)
{
	const struct virtio_blk_discard_write_zeroes *r = p;
	uint32_t i;

	if (b->read_only || !len || len % sizeof(*r))
		return VIRTIO_BLK_S_IOERR;
	for (i = 0; i < len / sizeof(*r); i++) {
		uint64_t bytes = (uint64_t)r[i].num_sectors * 512;

		if (!blk_in_range(b, r[i].sector, bytes) ||
		    blk_zero(b, r[i].sector * 512, bytes, discard) != VIRTIO_BLK_S_OK)
			return VIRTIO_BLK_S_IOERR;
	}
	return VIRTIO_BLK_S_OK;
}

static void blk_request(struct blk *b, const struct virtio4_host_msg *m)
{
	const struct virtio_blk_outhdr *h = (const void *)(m + 1);
	const unsigned char *payload = (const unsigned char *)(h + 1);
	uint32_t plen = m->out_len - sizeof(*h), dlen;
	unsigned char *reply;
	uint8_t status;

	if (m->out_len < sizeof(*h) || m->in_len < 1) {
		note("%s: request without header or status byte", b->d.name);
		if (m->in_len)
			host_complete(&b->d, m->queue, m->token, "\2", 1);
		return;
	}
	dlen = m->in_len - 1;
	reply = host_reserve(&b->d, m->queue, m->token, m->in_len);
	if (h->type != VIRTIO_BLK_T_IN && h->type != VIRTIO_BLK_T_GET_ID)
		memset(reply, 0, dlen);
	switch (h->type) {
	case VIRTIO_BLK_T_IN:
		status = blk_read(b, h->sector, reply, dlen);
		break;
	case VIRTIO_BLK_T_OUT:
		status = blk_write(b, h->sector, payload, plen);
		break;
	case VIRTIO_BLK_T_FLUSH:
		if (b->cache)
			status = blk_cache_flush(b);
		else
			status = fdatasync(b->fd) ? VIRTIO_BLK_S_IOERR : VIRTIO_BLK_S_OK;
		break;
	case VIRTIO_BLK_T_GET_ID:
		memset(reply, 0, dlen);
		memcpy(reply, b->serial, dlen < sizeof(b->serial) ? dlen : sizeof(b->serial));
		status = VIRTIO_BLK_S_OK;
		break;
	case VIRTIO_BLK_T_DISCARD:
	case VIRTIO_BLK_T_WRITE_ZEROES:
		status = blk_ranges(b, payload, plen, h->type == VIRTIO_BLK_T_DISCARD);
		break;
	default:
		status = VIRTIO_BLK_S_UNSUPP;
		break;
	}
	/* The status byte is the last byte of the in elements. */
	reply[dlen] = status;
	host_commit(&b->d);
	b->requests++;
}

static void blk_config(struct blk *b, struct virtio4_host_create *c)
{
	struct virtio_blk_config cfg = { 0 };

	cfg.capacity = b->size / 512;
	cfg.seg_max = BLK_SEG_MAX;
	cfg.size_max = 1u << 20;
	cfg.blk_size = 512;
	cfg.max_discard_sectors = 1u << 22;
	cfg.max_discard_seg = 1;
	cfg.discard_sector_alignment = 8;
	cfg.max_write_zeroes_sectors = 1u << 22;
	cfg.max_write_zeroes_seg = 1;
	c->device_id = VIRTIO_ID_BLOCK;
	c->vendor_id = 0x34766976;	/* "viv4" */
	c->features = 1ULL << VIRTIO_F_VERSION_1 | 1ULL << VIRTIO_BLK_F_FLUSH |
		      1ULL << VIRTIO_BLK_F_SEG_MAX | 1ULL << VIRTIO_BLK_F_SIZE_MAX |
		      1ULL << VIRTIO_BLK_F_BLK_SIZE;
	if (b->read_only)
		c->features |= 1ULL << VIRTIO_BLK_F_RO;
	else
		c->features |= 1ULL << VIRTIO_BLK_F_DISCARD |
			       1ULL << VIRTIO_BLK_F_WRITE_ZEROES;
	c->num_queues = 1;
	c->queue_size[0] = BLK_QUEUE_SIZE;
	c->config_len = sizeof(cfg);
	memcpy(c->config, &cfg, sizeof(cfg));
}

static void blk_open(struct blk *b, const char *path)
{
	struct stat st;

	b->fd = open(path, (b->read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (b->fd < 0 && !b->read_only && errno == EROFS) {
		b->read_only = true;
		b->fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (b->fd < 0 || fstat(b->fd, &st))
		die("%s: %s", path, strerror(errno));
	b->is_bdev = S_ISBLK(st.st_mode);
	if (b->is_bdev) {
		int ro = 0;

		if (ioctl(b->fd, BLKGETSIZE64, &b->size))
			die("%s: BLKGETSIZE64: %s", path, strerror(errno));
		if (!ioctl(b->fd, BLKROGET, &ro) && ro)
			b->read_only = true;
	} else {
		b->size = st.st_size;
	}
}

static void blk_usage(void)
{
	fputs("usage: virtio4-host blk [--read-only] [--serial ID] [--misbehave MODE[:N]]\n"
	      "                         [--volatile-cache] [-v] FILE\n", stderr);
	exit(2);
}

int blk_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "read-only", no_argument, NULL, 'r' },
		{ "serial", required_argument, NULL, 's' },
		{ "misbehave", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "volatile-cache", no_argument, NULL, 'c' },
		{ }
	};
	struct virtio4_host_create c = { 0 };
	struct blk b = { .d.name = "blk" };
	const char *serial = NULL;
	bool volatile_cache = false;
	int o;

	while ((o = getopt_long(argc, argv, "rs:m:vc", opts, NULL)) != -1) {
		if (o == 'r')
			b.read_only = true;
		else if (o == 's')
			serial = optarg;
		else if (o == 'm' && !parse_misbehave(&b.d, optarg))
			continue;
		else if (o == 'v')
			verbose = 1;
		else if (o == 'c')
			volatile_cache = true;
		else
			blk_usage();
	}
	if (optind != argc - 1)
		blk_usage();
	blk_open(&b, argv[optind]);
	if (volatile_cache && !b.read_only)
		blk_cache_new(&b);
	snprintf(b.serial, sizeof(b.serial), "%s",
		 serial ? serial : basename(argv[optind]));
	blk_config(&b, &c);
	host_create(&b.d, &c);
	note("blk: serving %s (%llu bytes%s%s) as serial '%.20s'", argv[optind],
	     (unsigned long long)b.size, b.read_only ? ", read-only" : "",
	     b.cache ? ", volatile write cache" : "", b.serial);
	for (;;) {
		const struct virtio4_host_msg *m;
		size_t pos = 0;

		host_read(&b.d, false);
		while ((m = host_next(&b.d, &pos)))
			if (m->type == VIRTIO4_HOST_MSG_BUF)
				blk_request(&b, m);
		host_flush(&b.d);
	}
}
