# SPDX-License-Identifier: GPL-2.0
# Deliberately broken: QEMU prints a warning to its stderr (a raw image attached without a
# format) while the test exits 0. The runner must fail it.
# expect-failure: QEMU said: WARNING: Image format was not specified
# setup: truncate -s 1M probe.img
# qemu: -drive file=$WORK/probe.img,if=none,id=probe -device virtio-blk-pci,drive=probe
# timeout: 60
echo "QEMU's warning is for the runner to see"
