# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: a test-only module raises a WARN. The runner must fail this test.
# expect-failure: kernel report
# timeout: 60
modprobe virtio4_selftest_warn
echo "the WARN did not stop this guest"
