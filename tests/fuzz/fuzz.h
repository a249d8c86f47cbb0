/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer targets share: the input read as a program (one byte
 * picks a step, the next bytes are its arguments; zeros once it runs out),
 * the check that traps for libFuzzer, and the stubs' allocator hooks.
 */
#ifndef _FUZZ_H
#define _FUZZ_H

struct input {
	const u8 *p;
	size_t left;
};

static inline u8 take8(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static inline u16 take16(struct input *in)
{
	return take8(in) | (u16)take8(in) << 8;
}

static inline u32 take32(struct input *in)
{
	u32 v = take8(in);

	v |= (u32)take8(in) << 8;
	v |= (u32)take8(in) << 16;
	return v | (u32)take8(in) << 24;
}

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* The tools/virtio stubs' allocator hooks (unused here), defined once per target. */
#define FUZZ_ALLOC_HOOKS void *__kmalloc_fake, *__kfree_ignore_start, *__kfree_ignore_end

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#endif
