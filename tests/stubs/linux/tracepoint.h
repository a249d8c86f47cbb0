/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints compile to nothing in the userspace builds of our ring. */
#ifndef STUB_LINUX_TRACEPOINT_H
#define STUB_LINUX_TRACEPOINT_H

#define TP_PROTO(args...) args
#define TP_ARGS(args...) args
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args)			\
	static inline void trace_##name(proto) {}
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)		\
	static inline void trace_##name(proto) {}

#endif
