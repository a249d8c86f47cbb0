# SPDX-License-Identifier: GPL-2.0
# Block benchmark guest: two identical null disks (reads return zeroes, writes are dropped, so
# the host's storage adds no noise): 00:04.0 and 00:05.0. Each round runs every fio job on
#   ab: 04.0 on our driver (side "ours") and 05.0 on Linux's virtio_blk (side "linux"),
#   aa: 04.0 and 05.0 both on Linux's virtio_blk (sides "aa0" and "aa1"): the noise control,
# alternating which side goes first from round to round. Each run reports fio's JSON with the
# kicks and interrupts it cost.
# kernels: stock
# timeout: 7200
# qemu: -drive driver=null-co,read-zeroes=on,size=1G,if=none,id=d0 -device virtio-blk-pci,drive=d0,addr=04.0
# qemu: -drive driver=null-co,read-zeroes=on,size=1G,if=none,id=d1 -device virtio-blk-pci,drive=d1,addr=05.0
# qemu: -serial file:$WORK/bench$GUEST.out
. /tests/bench-lib.sh

modprobe virtio_pci && modprobe virtio_blk && modprobe virtio4_pci && modprobe virtio4_blk ||
	fail "loading the drivers"
linux_kicks_setup
echo "bench: $ROUNDS rounds of ${RUNTIME}s runs, $(echo "$JOBS" | wc -l) jobs"
# jobs_on ROUND PAIR SIDE_A SIDE_B: every job on disk 04.0 (SIDE_A) and 05.0 (SIDE_B), in turns;
# odd rounds start with A, even rounds with B.
jobs_on() {
	echo "$JOBS" | while read -r job; do
		if [ $(($1 % 2)) = 1 ]; then
			run_job blk "$1" "$2" "$3" 04.0 "$job"
			run_job blk "$1" "$2" "$4" 05.0 "$job"
		else
			run_job blk "$1" "$2" "$4" 05.0 "$job"
			run_job blk "$1" "$2" "$3" 04.0 "$job"
		fi
	done
}

for round in $(seq "$ROUNDS"); do
	bind_pci 04.0 virtio4-pci
	bind_pci 05.0 virtio-pci
	jobs_on "$round" ab ours linux
	bind_pci 04.0 virtio-pci
	jobs_on "$round" aa aa0 aa1
done
echo "bench: done"
