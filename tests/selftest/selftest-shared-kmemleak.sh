# SPDX-License-Identifier: GPL-2.0
# Deliberately broken, in a boot shared with another test (make check's shared boots): a
# test-only module leaks eight objects of 64 bytes between kmemleak_start and kmemleak_check,
# whose scan waits for the end of the boot, after the other test. The runner must fail this
# test, the one that leaked, and not the other, though processes it leaves behind (orphans,
# whose parent /init becomes) exit during the scans.
# expect-failure: kernel report: unreferenced object
# shared-with: modules-load-unload
# timeout: 90
. /tests/lib.sh
kmemleak_start
modprobe virtio4_selftest_report what=leak || fail "loading virtio4_selftest_report"
rmmod virtio4_selftest_report || fail "unloading virtio4_selftest_report"
kmemleak_check
exits_meanwhile 240
echo "the leak is for the end of the boot to find"
