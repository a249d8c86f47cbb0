# SPDX-License-Identifier: GPL-2.0
# Every module we ship loads with modprobe and unloads again, leaving nothing behind.
# kernels: debug stock
# timeout: 90
. /tests/lib.sh

mods=$(shipped_modules)
[ -n "$mods" ] || fail "no shipped modules in the image"
for m in $mods; do
	modprobe "$m" || fail "modprobe $m"
	module_loaded "$m" || fail "$m not in /proc/modules after modprobe"
	echo "ok: $m loaded"
done
for m in $(echo "$mods" | tac); do
	modprobe -r "$m" || fail "modprobe -r $m"
	if module_loaded "$m"; then
		fail "$m still in /proc/modules after modprobe -r"
	fi
	echo "ok: $m unloaded"
done
# Loading twice in a row works too (nothing left registered by the first round).
for m in $mods; do
	modprobe "$m" && modprobe -r "$m" || fail "second load/unload of $m"
done
echo "ok: $(echo $mods | wc -w) modules loaded and unloaded twice"
