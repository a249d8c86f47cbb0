/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for the ring's storm window (tests/fuzz, tests/bench/ring): time stands still. */
#ifndef _STUB_JIFFIES_H
#define _STUB_JIFFIES_H
#define HZ 100
static unsigned long jiffies __attribute__((unused));
#define time_after(a, b) ((long)((b) - (a)) < 0)
#endif
