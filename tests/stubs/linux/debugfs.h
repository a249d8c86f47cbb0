/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stub for our ring.c (tests/bench/ring, tests/fuzz): no debugfs. */
#ifndef _STUB_DEBUGFS_H
#define _STUB_DEBUGFS_H
struct dentry;
struct seq_file { void *private; };
#define debugfs_create_file(n, m, p, d, f) ((struct dentry *)NULL)
#define debugfs_remove(d) do { (void)(d); } while (0)
#define seq_printf(m, ...) do { (void)(m); } while (0)
#define DEFINE_SHOW_ATTRIBUTE(name) \
	static const int name##_fops __attribute__((unused)) = sizeof(&name##_show)
#endif
