/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checksum and segmentation offload done by the device host, for a
 * receiving NIC that did not negotiate taking a partial checksum or a
 * large TCP frame (offload.c). No state: unit-tested on the build host
 * (tests/tools/offload-test.c).
 */
#ifndef VIRTIO4_HOST_OFFLOAD_H
#define VIRTIO4_HOST_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The largest frame offload_segment() emits: an Ethernet header with a VLAN
 * tag, an IPv6 header and 65535 bytes after it (the most its length says).
 */
#define OFFLOAD_MAX_SEGMENT	(18 + 40 + 65535)

/*
 * Complete a partial checksum: the ones' complement of the sum from @start
 * to the end of the frame, stored at @start + @offset. False if that is
 * not inside the @len bytes of @frame.
 */
bool offload_checksum(unsigned char *frame, uint32_t len, uint32_t start,
		      uint32_t offset);

/*
 * Cut a TCP frame over IPv4 (or IPv6 if @v6) into frames of at most
 * @gso_size bytes of payload, each handed to @emit with its headers and
 * checksums complete. Returns the number of frames, or -1 (nothing emitted)
 * if the frame is not such a TCP frame, @gso_size is 0, or a segment would
 * not fit its IP length field.
 */
int offload_segment(const unsigned char *frame, uint32_t len, bool v6,
		    uint32_t gso_size,
		    void (*emit)(void *arg, const unsigned char *seg, uint32_t len),
		    void *arg);

#endif
