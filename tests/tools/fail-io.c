// SPDX-License-Identifier: GPL-2.0
/*
 * virtio4-fail-io: one direct write with the Nth allocation of this thread failing, for
 * tests/guest/alloc-failure-sweep.sh.
 *
 *   virtio4-fail-io DEVICE N [KIB]
 *
 * Opens DEVICE (O_DIRECT) and prepares the data first, so that nothing of the start-up
 * spends the count; then arms /proc/thread-self/fail-nth with N, writes KIB KiB (default 64)
 * at offset 0 in one call, reads fail-nth back (0: the Nth allocation was reached and failed)
 * and disarms it (N = 0: nothing is armed, for failures injected otherwise); then reads the
 * data back and compares. Prints "injected" or "not reached".
 * Exit status: 0 if the write and the read-back succeeded with the same bytes, 3 if the write
 * failed with an error (clean, if the failure hit an allocation the kernel does not retry),
 * 1 if the data did not read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The task's fail-nth, through @fd opened before it is armed: reading and writing it then
 * allocate nothing, so that no count is spent outside the write (an open() would spend one).
 */
static int fail_nth(int fd, const char *val)
{
	return pwrite(fd, val, strlen(val), 0) < 0 ? -1 : 0;
}

static long fail_nth_left(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

int main(int argc, char **argv)
{
	size_t len = (argc > 3 ? strtoul(argv[3], NULL, 10) : 64) * 1024;
	char *out, *in;
	ssize_t w;
	long left;
	int fd, nth;

	if (argc < 3 || !len) {
		fputs("usage: virtio4-fail-io DEVICE N [KIB]\n", stderr);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_DIRECT);
	nth = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0 || nth < 0 || posix_memalign((void **)&out, 4096, len) ||
	    posix_memalign((void **)&in, 4096, len)) {
		perror(argv[1]);
		return 1;
	}
	for (size_t i = 0; i < len; i++)
		out[i] = (char)(rand() ^ atoi(argv[2]));
	if (fail_nth(nth, argv[2])) {
		perror("fail-nth");
		return 1;
	}
	w = pwrite(fd, out, len, 0);
	left = fail_nth_left(nth);
	fail_nth(nth, "0");
	printf("%s\n", left == 0 && strcmp(argv[2], "0") ? "injected" : "not reached");
	if (w < 0) {
		printf("the write failed: %s\n", strerror(errno));
		return 3;
	}
	if (w != (ssize_t)len) {
		printf("FAIL: the write returned %zd of %zu\n", w, len);
		return 1;
	}
	if (pread(fd, in, len, 0) != (ssize_t)len || memcmp(in, out, len)) {
		printf("FAIL: %zu bytes did not read back\n", len);
		return 1;
	}
	return 0;
}
