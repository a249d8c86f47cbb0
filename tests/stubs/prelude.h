/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included first into our ring.c when it is built in userspace (the ring
 * cost benchmark, tests/bench/ring; the fuzzers, tests/fuzz), on top of the
 * kernel's tools/virtio stubs: what those stubs lack.
 */
#ifndef _STUB_PRELUDE_H
#define _STUB_PRELUDE_H
#include <stdarg.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/irqreturn.h>
#include <linux/err.h>
#include <linux/compiler.h>

/*
 * The 6.1 tools/virtio stub stores through typeof(val): WRITE_ONCE(a_bool,
 * true) writes an int, over the next fields (found by tests/fuzz). Store
 * through the variable's own type, as the kernel does.
 */
#undef WRITE_ONCE
#define WRITE_ONCE(var, val) (*((volatile typeof(var) *)(&(var))) = (val))

/* Kept out of line in the kernel, as here: the stubs lack the word. */
#ifndef noinline
#define noinline __attribute__((__noinline__))
#endif

/* bus.h's accessors of memory-mapped configuration name __iomem, which the stubs lack. */
#ifndef __iomem
#define __iomem
#endif

/*
 * The stubs' alloc_pages_exact() ignores __GFP_ZERO (which they define as 0):
 * ring memory came back with garbage where the kernel's is zeroed (found by
 * tests/model, whose device reads the rings as a device finds them).
 */
#define alloc_pages_exact(size, gfp) kzalloc(size, gfp)

#define module_param(name, type, perm)
#define module_param_named(name, value, type, perm)
#define MODULE_PARM_DESC(name, desc)
#define MODULE_DESCRIPTION(desc)
#define U32_MAX ((u32)~0U)
#ifndef min_t
#define min_t(type, x, y) ((type)(x) < (type)(y) ? (type)(x) : (type)(y))
#endif
#ifndef max
#define max(x, y) ((x) > (y) ? (x) : (y))
#endif
#ifndef clamp
#define clamp(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))
#endif
#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#endif
#define SMP_CACHE_BYTES 64
#define ALIGN(x, a) (((x) + (a) - 1) & ~((typeof(x))(a) - 1))
#define kcalloc(n, s, gfp) kzalloc((n) * (s), gfp)
#define strscpy(d, s, n) snprintf(d, n, "%s", s)
#define is_power_of_2(n) ((n) != 0 && ((n) & ((n) - 1)) == 0)
#define cpu_to_le16(x) ((__le16)(u16)(x))
#define cpu_to_le32(x) ((__le32)(u32)(x))
#define cpu_to_le64(x) ((__le64)(u64)(x))
#define le16_to_cpu(x) ((u16)(x))
#define le32_to_cpu(x) ((u32)(x))
#define le64_to_cpu(x) ((u64)(x))

struct va_format {
	const char *fmt;
	va_list *va;
};

struct device_driver { const char *name; };

/* The bus's ready flag (include/virtio4/bus.h), with the compiler's acquire/release. */
#ifndef smp_load_acquire
#define smp_load_acquire(p) __atomic_load_n(p, __ATOMIC_ACQUIRE) /* barrier: acquire */
#endif
#ifndef smp_store_release
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE) /* barrier: release */
#endif
#endif
