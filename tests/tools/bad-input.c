// SPDX-License-Identifier: GPL-2.0
/*
 * virtio4-bad-input: garbage from userspace, for tests/guest/bad-input-userspace.sh.
 *
 *   virtio4-bad-input blk DEVICE   block ioctls with bad arguments, I/O at and past the end
 *   virtio4-bad-input host         malformed use of /dev/virtio4-host
 *   virtio4-bad-input host-stuck read|write
 *                                  a device host (a NIC) whose read() buffer or write()
 *                                  payload faults for ever (userfaultfd, never resolved):
 *                                  blocks until killed
 *
 * Each call must fail with the expected errno (or, where the kernel may take it, succeed);
 * "ok: ..." per check, "FAIL: ..." and exit status 1 at the first surprise. Whether the
 * kernel survived is for the test runner to see (Oops, KASAN, ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/blkpg.h>
#include <linux/hdreg.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <virtio4/host.h>

static void fail(const char *what, long ret)
{
	printf("FAIL: %s: returned %ld, errno %d (%s)\n", what, ret, errno, strerror(errno));
	exit(1);
}

/* @ret must be -1 with errno one of @e1, @e2 (0: no second choice). */
static void expect_err(const char *what, long ret, int e1, int e2)
{
	if (ret != -1 || (errno != e1 && (!e2 || errno != e2)))
		fail(what, ret);
	printf("ok: %s: %s\n", what, strerror(errno));
}

static void expect_ret(const char *what, long ret, long want)
{
	if (ret != want)
		fail(what, ret);
	printf("ok: %s: %ld\n", what, ret);
}

static void blk_ioctls(int fd, uint64_t size)
{
	uint64_t range[2];
	int bsz = 3;

	expect_err("BLKGETSIZE64 to NULL", ioctl(fd, BLKGETSIZE64, NULL), EFAULT, 0);
	expect_err("BLKGETSIZE64 to an unmapped address", ioctl(fd, BLKGETSIZE64, (void *)8),
		   EFAULT, 0);
	expect_err("HDIO_GETGEO to NULL", ioctl(fd, HDIO_GETGEO, NULL), EFAULT, EINVAL);
	expect_err("BLKBSZSET of 3 bytes", ioctl(fd, BLKBSZSET, &bsz), EINVAL, 0);
	range[0] = size;
	range[1] = 4096;
	expect_err("BLKDISCARD past the end", ioctl(fd, BLKDISCARD, range), EINVAL, 0);
	range[0] = 0;
	range[1] = UINT64_MAX - 4095;
	expect_err("BLKDISCARD of 2^64 bytes", ioctl(fd, BLKDISCARD, range), EINVAL, 0);
	range[0] = 1;
	range[1] = 4096;
	expect_err("BLKDISCARD misaligned", ioctl(fd, BLKDISCARD, range), EINVAL, 0);
	range[0] = size - 512;
	range[1] = 4096;
	expect_err("BLKZEROOUT across the end", ioctl(fd, BLKZEROOUT, range), EINVAL, 0);
	expect_err("BLKZEROOUT from NULL", ioctl(fd, BLKZEROOUT, NULL), EFAULT, 0);
	expect_err("BLKSECDISCARD (not offered)", ioctl(fd, BLKSECDISCARD, range),
		   EOPNOTSUPP, EINVAL);
	expect_err("an unknown block ioctl", ioctl(fd, _IO(0x12, 0xfe), 0), ENOTTY, EINVAL);
	expect_err("BLKPG from NULL", ioctl(fd, BLKPG, NULL), EFAULT, EINVAL);
}

static void blk_io(int fd, uint64_t size, char *buf)
{
	expect_ret("read at the end", pread(fd, buf, 4096, size), 0);
	expect_ret("read across the end", pread(fd, buf, 4096, size - 512), 512);
	expect_err("write at the end", pwrite(fd, buf, 4096, size), ENOSPC, 0);
	expect_ret("read at 2^62", pread(fd, buf, 4096, 1LL << 62), 0);
	expect_err("direct read at a misaligned offset", pread(fd, buf, 4096, 1), EINVAL, 0);
	expect_err("direct read of a misaligned length", pread(fd, buf, 100, 0), EINVAL, 0);
	expect_err("direct read into an unmapped buffer", pread(fd, (void *)4096, 4096, 0),
		   EFAULT, 0);
}

static int blk_main(const char *dev)
{
	uint64_t size;
	char *buf, *back;
	int fd = open(dev, O_RDWR | O_DIRECT);

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < 8192)
		fail(dev, fd);
	if (posix_memalign((void **)&buf, 4096, 4096) || posix_memalign((void **)&back, 4096, 4096))
		fail("memory", 0);
	blk_ioctls(fd, size);
	blk_io(fd, size, buf);
	/* After all that, the disk still works. */
	memset(buf, 0x5a, 4096);
	expect_ret("write of the last 4 KiB", pwrite(fd, buf, 4096, size - 4096), 4096);
	expect_ret("read back", pread(fd, back, 4096, size - 4096), 4096);
	if (memcmp(buf, back, 4096))
		fail("the last 4 KiB did not round-trip", 0);
	printf("ok: the disk still round-trips\n");
	return 0;
}

/* Create requests that must be refused, each one field wrong. */
static void host_bad_creates(int fd)
{
	struct virtio4_host_create good = {
		.device_id = 0x7777, .num_queues = 1, .queue_size = { 4 }, .config_len = 8,
	}, c;

	expect_err("CREATE from NULL", ioctl(fd, VIRTIO4_HOST_CREATE, NULL), EFAULT, 0);
	c = good;
	c.device_id = 0;
	expect_err("CREATE of device id 0", ioctl(fd, VIRTIO4_HOST_CREATE, &c), EINVAL, 0);
	c = good;
	c.num_queues = 0;
	expect_err("CREATE with no queue", ioctl(fd, VIRTIO4_HOST_CREATE, &c), EINVAL, 0);
	c = good;
	c.num_queues = VIRTIO4_HOST_MAX_QUEUES + 1;
	expect_err("CREATE with 17 queues", ioctl(fd, VIRTIO4_HOST_CREATE, &c), EINVAL, 0);
	c = good;
	c.queue_size[0] = 0;
	expect_err("CREATE with a queue of size 0", ioctl(fd, VIRTIO4_HOST_CREATE, &c), EINVAL, 0);
	c = good;
	c.queue_size[0] = VIRTIO4_HOST_MAX_QUEUE_SIZE + 1;
	expect_err("CREATE with a huge queue", ioctl(fd, VIRTIO4_HOST_CREATE, &c), EINVAL, 0);
	c = good;
	c.config_len = VIRTIO4_HOST_CONFIG_SIZE + 1;
	expect_err("CREATE with 257 bytes of config", ioctl(fd, VIRTIO4_HOST_CREATE, &c),
		   EINVAL, 0);
	c = good;
	c.flags = 0x80000000;
	expect_err("CREATE with an unknown flag", ioctl(fd, VIRTIO4_HOST_CREATE, &c), EINVAL, 0);
	c = good;
	c.reserved = 1;
	expect_err("CREATE with reserved set", ioctl(fd, VIRTIO4_HOST_CREATE, &c), EINVAL, 0);
	expect_ret("CREATE of a device no driver takes", ioctl(fd, VIRTIO4_HOST_CREATE, &good), 0);
	expect_err("a second CREATE on the same file", ioctl(fd, VIRTIO4_HOST_CREATE, &good),
		   EBUSY, 0);
}

/* Random completions: refused (EINVAL), or dropped as stale; never more. */
static void host_garbage_writes(int fd)
{
	unsigned char buf[512];
	unsigned int i, j, refused = 0;
	long ret;

	srand(4);
	for (i = 0; i < 2000; i++) {
		size_t len = 1 + rand() % sizeof(buf);

		for (j = 0; j < len; j++)
			buf[j] = rand();
		ret = write(fd, buf, len);
		if (ret == -1 && errno == EINVAL)
			refused++;
		else if (ret < 0 || ret > (long)len)
			fail("a garbage write", ret);
	}
	printf("ok: 2000 garbage writes, %u refused with EINVAL, none taken beyond its bytes\n",
	       refused);
	if (refused < 1900)
		fail("too few garbage writes were refused", refused);
}

/*
 * Config changes at once after CREATE, before the device is on the bus (its
 * registration runs from a work): a child sharing the file keeps trying
 * SET_CONFIG (ENODEV until the device exists) while the parent creates it,
 * then sends NEEDS_RESET. Both are taken, and told to the driver later.
 */
static void host_change_at_create(void)
{
	struct virtio4_host_create c = {
		.device_id = 0x7777, .num_queues = 1, .queue_size = { 4 }, .config_len = 8,
	};
	struct virtio4_host_config cfg = { .offset = 0, .len = 4 };
	int fd = open("/dev/virtio4-host", O_RDWR | O_NONBLOCK);
	unsigned long tries = 0;
	int status;
	pid_t child;

	if (fd < 0)
		fail("open /dev/virtio4-host", fd);
	child = fork();
	if (child < 0)
		fail("fork", child);
	if (!child) {
		while (ioctl(fd, VIRTIO4_HOST_SET_CONFIG, &cfg)) {
			if (errno != ENODEV || ++tries > 100000000UL)
				_exit(1);
		}
		_exit(ioctl(fd, VIRTIO4_HOST_NEEDS_RESET) ? 2 : 0);
	}
	usleep(10000);	/* the child is trying by now */
	expect_ret("CREATE while SET_CONFIG is tried", ioctl(fd, VIRTIO4_HOST_CREATE, &c), 0);
	if (waitpid(child, &status, 0) != child)
		fail("waitpid", -1);
	expect_ret("SET_CONFIG and NEEDS_RESET right after CREATE (child's exit status)",
		   WIFEXITED(status) ? WEXITSTATUS(status) : 128, 0);
	close(fd);
}

static int host_main(void)
{
	struct virtio4_host_config cfg = { .offset = 0, .len = 4 };
	char small[8];
	int fd = open("/dev/virtio4-host", O_RDWR | O_NONBLOCK);

	if (fd < 0)
		fail("open /dev/virtio4-host", fd);
	host_change_at_create();
	expect_err("an unknown ioctl", ioctl(fd, _IO(0x55, 0x55), 0), ENOTTY, 0);
	expect_err("SET_CONFIG before CREATE", ioctl(fd, VIRTIO4_HOST_SET_CONFIG, &cfg), ENODEV, 0);
	expect_err("NEEDS_RESET before CREATE", ioctl(fd, VIRTIO4_HOST_NEEDS_RESET), ENODEV, 0);
	expect_err("read before CREATE", read(fd, small, sizeof(small)), ENODEV, 0);
	expect_err("write before CREATE", write(fd, small, sizeof(small)), ENODEV, 0);
	host_bad_creates(fd);
	expect_err("SET_CONFIG from NULL", ioctl(fd, VIRTIO4_HOST_SET_CONFIG, NULL), EFAULT, 0);
	cfg.offset = 300;
	expect_err("SET_CONFIG past the config space", ioctl(fd, VIRTIO4_HOST_SET_CONFIG, &cfg),
		   EINVAL, 0);
	cfg.offset = 4;
	cfg.len = UINT32_MAX;
	expect_err("SET_CONFIG of 4 GiB", ioctl(fd, VIRTIO4_HOST_SET_CONFIG, &cfg), EINVAL, 0);
	expect_err("write from an unmapped address", write(fd, (void *)4096, 64), EFAULT, EINVAL);
	host_garbage_writes(fd);
	cfg.len = 4;
	expect_ret("a good SET_CONFIG afterwards", ioctl(fd, VIRTIO4_HOST_SET_CONFIG, &cfg), 0);
	close(fd);
	return 0;
}

/*
 * Wait for a receive buffer of the NIC (queue 0, room to write) and return
 * its record; reads into ordinary memory at @buf, @len bytes.
 */
static struct virtio4_host_msg host_wait_rx(int fd, char *buf, size_t len)
{
	for (int tries = 0; tries < 300; tries++) {
		ssize_t n = read(fd, buf, len);
		size_t pos = 0;

		while (n > 0 && pos + sizeof(struct virtio4_host_msg) <= (size_t)n) {
			struct virtio4_host_msg m;

			memcpy(&m, buf + pos, sizeof(m));
			if (m.type == VIRTIO4_HOST_MSG_BUF && m.queue == 0 && m.in_len >= 64)
				return m;
			if (m.size < sizeof(m))
				break;
			pos += m.size;
		}
		usleep(100 * 1000);
	}
	fail("no receive buffer within 30 s (is the link up?)", 0);
	exit(1);
}

/*
 * A NIC's device host whose memory faults for ever (userfaultfd, nobody
 * resolving it), in read() (MODE "read": the records' destination) or in
 * write() (MODE "write": a receive completion's payload, its header in
 * ordinary memory). The call stays in the page fault until the process is
 * killed; the driver's reset and removal must not wait for it.
 */
static int host_stuck_main(const char *mode)
{
	struct virtio4_host_create c = {
		.device_id = 1, .num_queues = 2, .queue_size = { 64, 64 }, .config_len = 8,
		.features = 1ULL << 32 | 1ULL << 5,	/* VERSION_1, MAC */
		.config = { 0x02, 0, 0, 0, 0x05, 0x01 },
	};
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	long page = sysconf(_SC_PAGESIZE);
	int fd = open("/dev/virtio4-host", O_RDWR | O_NONBLOCK);
	int uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	struct virtio4_host_done done;
	struct virtio4_host_msg m;
	char *buf;

	if (fd < 0)
		fail("open /dev/virtio4-host", fd);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		fail("userfaultfd", uffd);
	/* Page 0 is ordinary memory; pages 1 to 4 never come. */
	buf = mmap(NULL, 5 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		fail("mmap", -1);
	memset(buf, 0, page);
	reg = (struct uffdio_register){ .range = { (unsigned long)buf + page, 4 * page },
					.mode = UFFDIO_REGISTER_MODE_MISSING };
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		fail("UFFDIO_REGISTER", -1);
	expect_ret("CREATE of a NIC", ioctl(fd, VIRTIO4_HOST_CREATE, &c), 0);
	if (!strcmp(mode, "read")) {
		/* Blocking: it waits for the first record, then faults on it. */
		fcntl(fd, F_SETFL, 0);
		printf("reading into a buffer that faults for ever\n");
		printf("FAIL: read returned %zd\n", read(fd, buf + page, 4 * page));
		return 1;
	}
	m = host_wait_rx(fd, buf, page);
	done = (struct virtio4_host_done){ .token = m.token, .queue = 0, .len = 64 };
	memcpy(buf + page - sizeof(done), &done, sizeof(done));
	printf("writing a completion whose payload faults for ever\n");
	printf("FAIL: write returned %zd\n",
	       write(fd, buf + page - sizeof(done), sizeof(done) + 64));
	return 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "blk"))
		return blk_main(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "host"))
		return host_main();
	if (argc == 3 && !strcmp(argv[1], "host-stuck") &&
	    (!strcmp(argv[2], "read") || !strcmp(argv[2], "write")))
		return host_stuck_main(argv[2]);
	fputs("usage: virtio4-bad-input blk DEVICE | host | host-stuck read|write\n", stderr);
	return 2;
}
