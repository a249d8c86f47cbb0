/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtio4 bus: where transports register devices and drivers register
 * themselves, so that any driver runs over any transport.
 */
#ifndef _VIRTIO4_BUS_H
#define _VIRTIO4_BUS_H

#include <linux/device.h>

extern struct bus_type virtio4_bus;

#endif /* _VIRTIO4_BUS_H */
