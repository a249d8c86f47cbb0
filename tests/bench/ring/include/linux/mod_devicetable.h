/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for the ring cost benchmark: nothing needed. */
