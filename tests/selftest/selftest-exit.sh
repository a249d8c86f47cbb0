# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: the test exits non-zero. The runner must fail it.
# expect-failure: test exit=3
# timeout: 60
echo "exiting with status 3"
exit 3
