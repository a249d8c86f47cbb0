/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included first into transport/copy.c when the fuzzer builds it in
 * userspace, after tests/stubs/prelude.h: the kernel services the copying
 * transport uses, reduced to what a single-threaded fuzzer needs. An
 * irq_work runs when the harness syncs it (virtio4_copy_test_interrupts),
 * as an interrupt would run later, outside the locks of its raiser.
 */
#ifndef _FUZZ_COPY_PRELUDE_H
#define _FUZZ_COPY_PRELUDE_H
#include <errno.h>
#include <fcntl.h>
#include <linux/uio.h>
#include <linux/list.h>
#include <linux/scatterlist.h>

#define ERESTARTSYS	512
#define CAP_SYS_ADMIN	21
#define EPOLLIN		0x0001
#define EPOLLOUT	0x0004
#define EPOLLRDNORM	0x0040
#define EPOLLWRNORM	0x0100
#define EPOLLERR	0x0008
#define EPOLLHUP	0x0010
#define IOCB_NOWAIT	(1 << 7)
#define MISC_DYNAMIC_MINOR 255
#define __user
#define __init
#define __exit
#define __poll_t unsigned int
#define THIS_MODULE NULL
#define module_init(f) static void *const f##_unused __attribute__((unused)) = (f)
#define module_exit(f) static void *const f##_unused __attribute__((unused)) = (f)
#define nth_page(pg, n) ((struct page *)((unsigned long)(pg) + (n) * PAGE_SIZE))
#define page_address(pg) ((void *)(pg))
#define min3(a, b, c) min(min(a, b), c)
#define lower_32_bits(n) ((u32)(n))
#define kvcalloc(n, s, gfp) kzalloc((n) * (s), gfp)
#define kvfree(p) kfree(p)
#define kvmalloc(s, gfp) kmalloc(s, gfp)
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define dev_warn_ratelimited(dev, ...) do { } while (0)
#define pr_warn(...) do { } while (0)
#define smp_mb() __sync_synchronize()	/* a full barrier, as the kernel's */
#define capable(cap) true
#define ERR_CAST(p) ((void *)(p))
#define INIT_WORK(w, f) ((w)->func = (void *)(f))
#define schedule_work(w) true
#define flush_work(w) true

struct irq_work {
	void (*func)(struct irq_work *work);
	bool pending;
};

static inline void init_irq_work(struct irq_work *work, void (*func)(struct irq_work *))
{
	work->func = func;
	work->pending = false;
}

static inline bool irq_work_queue(struct irq_work *work)
{
	bool was = work->pending;

	work->pending = true;
	return !was;
}

static inline void irq_work_sync(struct irq_work *work)
{
	if (work->pending) {
		work->pending = false;
		work->func(work);
	}
}

struct mutex { int held; };
#define mutex_init(m) ((m)->held = 0)
#define mutex_lock(m) ((m)->held = 1)
#define mutex_unlock(m) ((m)->held = 0)
#define mutex_lock_interruptible(m) ((m)->held = 1, 0)

typedef struct { int unused; } wait_queue_head_t;
#define init_waitqueue_head(w) do { } while (0)
#define wake_up_interruptible_poll(w, m) do { } while (0)
#define wait_event_interruptible(w, cond) ((cond) ? 0 : -ERESTARTSYS)

struct inode;
struct poll_table_struct;

struct file {
	void *private_data;
	spinlock_t f_lock;	/* unused: one thread */
	unsigned int f_flags;
};

struct kiocb {
	struct file *ki_filp;
	int ki_flags;
};

struct file_operations {
	void *owner;
	int (*open)(struct inode *inode, struct file *file);
	int (*release)(struct inode *inode, struct file *file);
	ssize_t (*read_iter)(struct kiocb *iocb, struct iov_iter *to);
	ssize_t (*write_iter)(struct kiocb *iocb, struct iov_iter *from);
	__poll_t (*poll)(struct file *file, struct poll_table_struct *wait);
	long (*unlocked_ioctl)(struct file *file, unsigned int cmd, unsigned long arg);
	long (*compat_ioctl)(struct file *file, unsigned int cmd, unsigned long arg);
	long (*llseek)(struct file *file, long off, int whence);
};

typedef struct poll_table_struct poll_table;
#define poll_wait(f, w, p) do { } while (0)
#define nonseekable_open(i, f) 0
#define no_llseek NULL
#define compat_ptr_ioctl NULL

struct miscdevice {
	int minor;
	const char *name;
	const struct file_operations *fops;
	unsigned int mode;
	struct device *this_device;
};

#define misc_register(m) 0
#define misc_deregister(m) do { } while (0)
#define misc_open(i, f) 0

/* The stub's inline function cannot store the flags: a macro can. */
#define spin_lock_irqsave(lock, flags) do { (flags) = 0; spin_lock(lock); } while (0)

/* memdup_user() from a kernel pointer (fuzz_copy_stubs.c; the iov_iter functions too). */
void *memdup_user(const void *src, size_t len);
#endif
