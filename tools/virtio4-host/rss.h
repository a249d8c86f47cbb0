/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive-side scaling as a virtio-net device computes it
 * (VIRTIO_NET_F_RSS): the Toeplitz hash of a received frame's addresses and
 * ports under the driver's key, for the hash types the driver chose. No
 * state: unit-tested on the build host (tests/tools/offload-test.c).
 */
#ifndef VIRTIO4_HOST_RSS_H
#define VIRTIO4_HOST_RSS_H

#include <stdbool.h>
#include <stdint.h>

#define RSS_MAX_KEY	40	/* bytes: rss_max_key_size */
#define RSS_MAX_TABLE	128	/* entries: rss_max_indirection_table_length */

/*
 * The Toeplitz hash of @len bytes at @in under @key (@key_len bytes; the
 * key's bits past its end count as zeroes).
 */
uint32_t rss_toeplitz(const uint8_t *key, unsigned int key_len, const uint8_t *in,
		      unsigned int len);

/*
 * The hash of Ethernet frame @frame (@len bytes) for hash types @types
 * (VIRTIO_NET_RSS_HASH_TYPE_*, the _EX ones aside): over source and
 * destination address, then source and destination port, of a TCP or UDP
 * frame over IPv4 or IPv6 (no extension headers, not a fragment) whose type
 * is on; else over the addresses alone where IPv4 or IPv6 is on. False if
 * none applies: the frame is unclassified.
 */
bool rss_hash(const uint8_t *key, unsigned int key_len, uint32_t types,
	      const unsigned char *frame, uint32_t len, uint32_t *hash);

#endif
