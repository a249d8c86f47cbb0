# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: a KUnit case skips (no case of ours may) while the test exits 0. The
# runner must fail the test from the KTAP on the console.
# expect-failure: KUnit: fail kunit:virtio4-selftest.selftest_case skipped: deliberately skipped
# timeout: 60
modprobe virtio4_selftest_kskip
echo "loaded; the skip is for the runner to see"
