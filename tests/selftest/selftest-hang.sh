# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: the test never ends. The runner must fail it at its timeout.
# expect-failure: timed out
# timeout: 15
while :; do
	sleep 1
done
