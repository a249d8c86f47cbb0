# SPDX-License-Identifier: GPL-2.0
# Deliberately broken, in a boot shared with another test (make check's shared boots): a
# test-only module leaks eight objects of 64 bytes between kmemleak_start and kmemleak_check,
# whose scan waits for the end of the boot, after the other test. The runner must fail this
# test, the one that leaked, and not the other.
# expect-failure: kernel report: unreferenced object
# shared-with: modules-load-unload
# timeout: 90
. /tests/lib.sh
kmemleak_start
modprobe virtio4_selftest_report what=leak || fail "loading virtio4_selftest_report"
rmmod virtio4_selftest_report || fail "unloading virtio4_selftest_report"
kmemleak_check
echo "the leak is for the end of the boot to find"
