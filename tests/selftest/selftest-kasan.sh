# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: a test-only module reads past a kmalloc'ed object (KASAN reports it)
# and the test exits 0. The runner must fail it for the kernel report.
# expect-failure: KASAN: slab-out-of-bounds
# timeout: 60
modprobe virtio4_selftest_report what=kasan
echo "the KASAN report did not stop this guest"
