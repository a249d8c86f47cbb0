/* SPDX-License-Identifier: GPL-2.0 */
/* Nothing to define: see linux/tracepoint.h beside. */
