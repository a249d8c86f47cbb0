# SPDX-License-Identifier: GPL-2.0
# Runs every KUnit suite we build (the *_kunit modules); the runner counts each case from
# the KTAP on the console, and this test fails if any suite reports a failure.
# kernels: debug
# timeout: 120
. /tests/lib.sh

mods=$(find /lib/modules/"$(uname -r)"/extra -name '*_kunit.ko' | sed 's|.*/||; s|\.ko$||')
[ -n "$mods" ] || fail "no KUnit modules in the image"
for m in $mods; do
	modprobe "$m" || fail "modprobe $m"
done
results=$(ls /sys/kernel/debug/kunit/*/results 2>/dev/null)
[ -n "$results" ] || fail "no KUnit results in debugfs"
for r in $results; do
	grep -q '^ok ' "$r" || fail "suite did not pass: $r: $(tail -n 1 "$r")"
	echo "ok: $(tail -n 1 "$r")"
done
for m in $mods; do
	rmmod "$m" || fail "rmmod $m"
done
