# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: the guest's CPUs never start (QEMU's -S), so its kernel never reaches
# /init, as in a boot stalled under TCG. The runner's boot watchdog must stop it, make the boot
# again once, and fail the test when that one stalls too.
# expect-failure: stalled before /init in two boots
# boot-stall: 4
# qemu: -S
exit 0
