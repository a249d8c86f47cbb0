# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: a test-only module leaks eight objects of 64 bytes between
# kmemleak_start and kmemleak_check (tests/qemu/guest-lib.sh), the way a test checks its own
# leaks. The check must report them (one stale pointer once hid a single leaked object), and
# the runner must fail the test for it, though children of the test's shell exit during the
# scans, as a test's background jobs do (a shell's SIGCHLD once cut a scan short: nothing
# reported).
# expect-failure: kernel report: unreferenced object
# timeout: 90
. /tests/lib.sh
kmemleak_start
modprobe virtio4_selftest_report what=leak || fail "loading virtio4_selftest_report"
rmmod virtio4_selftest_report || fail "unloading virtio4_selftest_report"
exits_meanwhile 40
kmemleak_check
echo "kmemleak_check did not see the leak"
