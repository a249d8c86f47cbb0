# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: a test-only module leaks eight objects of 64 bytes between
# kmemleak_start and kmemleak_check (tests/qemu/guest-lib.sh), the way a test checks its own
# leaks. The check must report them (one stale pointer once hid a single leaked object), and
# the runner must fail the test for it.
# expect-failure: kernel report: unreferenced object
# timeout: 90
. /tests/lib.sh
kmemleak_start
modprobe virtio4_selftest_report what=leak || fail "loading virtio4_selftest_report"
rmmod virtio4_selftest_report || fail "unloading virtio4_selftest_report"
kmemleak_check
echo "kmemleak_check did not see the leak"
