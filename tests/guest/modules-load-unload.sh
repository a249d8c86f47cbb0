# SPDX-License-Identifier: GPL-2.0
# Every module we ship loads with modprobe and unloads again with rmmod (each as soon as
# nothing uses it), leaving nothing behind; twice in a row.
# kernels: debug stock
# timeout: 120
. /tests/lib.sh

mods=$(shipped_modules)
[ -n "$mods" ] || fail "no shipped modules in the image"

# unload_all: rmmod every module of $mods that nothing uses, until none is left.
unload_all() {
	local left progress m
	while :; do
		left= progress=
		for m in $mods; do
			module_loaded "$m" || continue
			if [ "$(cat /sys/module/$m/refcnt)" = 0 ] && [ -z "$(ls /sys/module/$m/holders)" ]; then
				rmmod "$m" || fail "rmmod $m"
				echo "ok: $m unloaded"
				progress=1
			else
				left="$left $m"
			fi
		done
		[ -z "$left" ] && return 0
		[ -n "$progress" ] || fail "modules still in use:$left"
	done
}

for round in 1 2; do
	for m in $mods; do
		modprobe "$m" || fail "modprobe $m"
		module_loaded "$m" || fail "$m not in /proc/modules after modprobe"
		echo "ok: $m loaded"
	done
	unload_all
	for m in $mods; do
		if module_loaded "$m"; then
			fail "$m still loaded"
		fi
	done
	echo "ok: round $round: $(echo $mods | wc -w) modules loaded and unloaded"
done
