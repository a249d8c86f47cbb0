# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: a test-only module takes two locks in both orders (lockdep reports a
# possible deadlock) and the test exits 0. The runner must fail it for the kernel report.
# expect-failure: possible circular locking dependency
# timeout: 60
modprobe virtio4_selftest_report what=lockdep
echo "the lockdep report did not stop this guest"
