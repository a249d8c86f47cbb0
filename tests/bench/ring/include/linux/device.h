/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for the ring cost benchmark: a device is only a name. */
#ifndef _STUB_DEVICE_H
#define _STUB_DEVICE_H
struct device { const char *name; };
#endif
