# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: a KUnit case fails while the test itself exits 0. The runner must fail
# the test from the KTAP on the console.
# expect-failure: KUnit: fail kunit:virtio4-selftest.selftest_case
# timeout: 60
modprobe virtio4_selftest_kfail
echo "loaded; the case's failure is for the runner to see"
