/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stub for our ring.c and copy.c (tests/bench/ring, tests/fuzz): a
 * device is a name, a parent and a release function; put_device() releases.
 */
#ifndef _STUB_DEVICE_H
#define _STUB_DEVICE_H
struct device {
	const char *name;
	struct device *parent;
	void (*release)(struct device *dev);
};

#define device_initialize(dev) do { } while (0)
#define put_device(dev) ((dev)->release(dev))
#endif
