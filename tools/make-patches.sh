#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make patches: the same sources as an in-tree patch series for Linux 6.1, in build/patches/:
# a cover letter and one patch per logical piece (API header, bus, ring, PCI transport,
# copying transport, virtio-mmio transport, block driver, network driver, KUnit tests), adding drivers/virtio4/ with
# its Kconfig and Makefiles, and the lines that hook it into drivers/Kconfig, drivers/Makefile
# and MAINTAINERS. Apply with "git am build/patches/*.patch" to a linux-source-6.1 tree.
# Authorship: git config user.name/user.email of this repository.
# Usage: make-patches.sh [OUT_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/patches}
linux=$("$top/tests/qemu/source.sh")
repo=$out/repo
rm -rf "$out"
mkdir -p "$repo/drivers"
cp "$linux/drivers/Kconfig" "$linux/drivers/Makefile" "$repo/drivers/"
cp "$linux/MAINTAINERS" "$repo/"
name=$(git -C "$top" config user.name || echo "virtio4 developers")
email=$(git -C "$top" config user.email || echo "virtio4@localhost")
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=$name \
	GIT_COMMITTER_EMAIL=$email GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" \
	GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" commit -q -m "Linux 6.1 (the files this series touches)"
base=$(git -C "$repo" rev-parse HEAD)
v4=$repo/drivers/virtio4

# put SRC DEST: copy a file of this repository into drivers/virtio4/.
put() {
	mkdir -p "$(dirname "$v4/$2")"
	cp "$top/$1" "$v4/$2"
}

# makefile DIR LINES...: drivers/virtio4/DIR/Makefile with an SPDX line and LINES.
makefile() {
	local dir=$1
	shift
	mkdir -p "$v4/$dir"
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		printf '%s\n' "$@"
	} >"$v4/$dir/Makefile"
}

# kconfig TEXT: append TEXT (a config entry) to drivers/virtio4/Kconfig, before its endif.
kconfig() {
	sed -i '$d' "$v4/Kconfig"
	printf '\n%s\nendif # VIRTIO4\n' "$1" >>"$v4/Kconfig"
}

# subdir DIR: descend into DIR from drivers/virtio4/Makefile.
subdir() {
	echo "obj-\$(CONFIG_VIRTIO4) += $1/" >>"$v4/Makefile"
}

# maintain PATTERN...: add F: patterns to the series' MAINTAINERS entry (each patch names the
# files it adds there).
files=()
maintain() {
	files+=("$@")
	python3 - "$repo/MAINTAINERS" "$name <$email>" "${files[@]}" <<-'EOF'
	import sys
	path, who, files = sys.argv[1], sys.argv[2], sorted(sys.argv[3:])
	title = "VIRTIO4 (VIRTIO DRAFT IV) BUS, RING, TRANSPORTS AND DRIVERS"
	lines = open(path).read().split("\n")
	if title in lines:
	    i = lines.index(title)
	    j = lines.index("", i)
	    del lines[i:j + 1]
	entry = [title, "M:\t" + who, "L:\tvirtualization@lists.linux-foundation.org",
	         "S:\tMaintained"] + ["F:\t" + f for f in files] + [""]
	k = lines.index("VIRTUAL BOX GUEST DEVICE DRIVER")
	lines[k:k] = entry
	open(path, "w").write("\n".join(lines))
	EOF
}

# commit SUBJECT BODY: one patch.
commit() {
	git -C "$repo" add -A
	git -C "$repo" commit -q -s -F - <<-EOF
	virtio4: $1

	$2
	EOF
}

# 1. The API header, and the directory hooked into the build.
put include/virtio4/virtio.h include/virtio4/virtio.h
cat >"$v4/Kconfig" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
menuconfig VIRTIO4
	tristate "virtio draft IV: the virtio4 bus and queue API"
	help
	  Rusty Russell's virtio draft IV (2007): one queue API (add_buf,
	  sync, get_buf, detach_buf, restart) through which guest drivers do
	  virtual I/O over any transport. This is the bus; the ring, the
	  transports and the drivers are below. It coexists with Linux's own
	  virtio (distinct bus, symbols and device names).

	  To compile it as a module, choose M here: the module will be
	  called virtio4.

if VIRTIO4
endif # VIRTIO4
EOF
cat >"$v4/Makefile" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
subdir-ccflags-y := -I$(srctree)/$(src)/include -D'pr_fmt(fmt)=KBUILD_MODNAME ": " fmt'
EOF
sed -i 's|^source "drivers/virtio/Kconfig"$|&\n\nsource "drivers/virtio4/Kconfig"|' "$repo/drivers/Kconfig"
sed -i 's|^obj-y\t\t\t\t+= virtio/$|&\nobj-$(CONFIG_VIRTIO4)\t\t+= virtio4/|' "$repo/drivers/Makefile"
maintain drivers/virtio4/Kconfig drivers/virtio4/Makefile drivers/virtio4/include/virtio4/virtio.h
commit "add the draft-IV queue API" \
"The queue API of virtio draft IV: a buffer is one scatterlist, first the
elements the device reads, then those it writes; add_buf() exposes it
with a token, sync() publishes and notifies, get_buf() returns used
tokens with the length written, restart() re-enables the callback,
detach_buf() and detach_unused() take buffers back after a reset.

The directory drivers/virtio4/ holds the bus, the ring, two transports
and two drivers, added by the following patches."

# 2. The bus.
put include/virtio4/bus.h include/virtio4/bus.h
put core/bus.c core/bus.c
makefile core "obj-\$(CONFIG_VIRTIO4) += virtio4.o" "virtio4-y := bus.o"
subdir core
maintain drivers/virtio4/core/ drivers/virtio4/include/virtio4/bus.h
commit "add the virtio4 bus" \
"Devices, drivers, feature negotiation (VIRTIO_F_VERSION_1 required; the
ring features accepted unless the event_idx, indirect or packed
parameters say no), status handshake, configuration reads bounded by the
generation count, configuration change work, sysfs attributes and a
debugfs directory per device."

# 3. The descriptor ring.
put include/virtio4/ring.h include/virtio4/ring.h
for f in ring.c packed.c common.h layout.h trace.h; do put "ring/$f" "ring/$f"; done
makefile ring "obj-\$(CONFIG_VIRTIO4_RING) += virtio4_ring.o" "virtio4_ring-y := ring.o packed.o" \
	"CFLAGS_ring.o := -I\$(srctree)/\$(src)	# trace.h, for the tracepoint machinery"
kconfig "config VIRTIO4_RING
	tristate
	help
	  The virtio 1.x split and packed virtqueues as draft-IV queues, for
	  transports that share memory with their device. Selected by the
	  transports that need it; the device is not trusted: every used
	  entry is checked before use."
subdir ring
maintain drivers/virtio4/ring/ drivers/virtio4/include/virtio4/ring.h
commit "add the descriptor ring" \
"The split and packed virtqueues of virtio 1.x behind the draft-IV queue
operations, with event index and indirect descriptors; the packed layout
when the device offers VIRTIO_F_RING_PACKED (the bus's packed parameter
refuses it). The device is not trusted:
addresses, lengths and chain links live in private shadow arrays, every
used entry is checked (id in flight, length within the buffer, index
within the ring), and a lying device breaks the queue with one log line.
An interrupt storm with nothing used breaks it too. Tracepoints follow a
buffer from add_buf to used; debugfs shows each queue."

# 4. The PCI transport.
put transport/pci.c transport/pci.c
makefile transport "obj-\$(CONFIG_VIRTIO4_PCI) += virtio4_pci.o" "virtio4_pci-y := pci.o"
kconfig "config VIRTIO4_PCI
	tristate \"virtio4 PCI transport\"
	depends on PCI
	select VIRTIO4_RING
	help
	  Drives virtio 1.x PCI devices (QEMU's virtio-pci, modern
	  interface) through the virtio4 bus, with MSI-X per queue, a shared
	  vector or INTx."
subdir transport
maintain drivers/virtio4/transport/Makefile drivers/virtio4/transport/pci.c
commit "add the PCI transport" \
"The modern virtio-pci interface: capabilities, common configuration,
notification, ISR and device configuration, each mapped and checked;
queues on rings, with MSI-X vectors spread over the CPUs for drivers
that ask (blk-mq), a shared vector, or INTx (irq_mode). It binds only
devices that no other driver claimed, so it coexists with virtio_pci."

# 5. The copying transport.
put include/virtio4/host.h include/virtio4/host.h
put transport/copy.c transport/copy.c
put transport/copy.h transport/copy.h
echo "obj-\$(CONFIG_VIRTIO4_COPY) += virtio4_copy.o" >>"$v4/transport/Makefile"
echo "virtio4_copy-y := copy.o" >>"$v4/transport/Makefile"
maintain drivers/virtio4/include/virtio4/host.h drivers/virtio4/transport/copy.[ch]
kconfig "config VIRTIO4_COPY
	tristate \"virtio4 copying transport (devices served by a process)\"
	help
	  Draft IV's read/write implementation: a userspace device host
	  creates devices on /dev/virtio4-host, reads the buffers drivers
	  make available and writes completions; nothing is shared."
commit "add the copying transport" \
"Draft IV's second implementation of the queue API: no shared memory, a
userspace device host reads records of available buffers from
/dev/virtio4-host and writes completions back. Every completion is
checked (queue, slot, sequence number, length) before its bytes are
copied into the driver's pages."

# 5b. The virtio-mmio transport.
put transport/mmio.c transport/mmio.c
echo "obj-\$(CONFIG_VIRTIO4_MMIO) += virtio4_mmio.o" >>"$v4/transport/Makefile"
echo "virtio4_mmio-y := mmio.o" >>"$v4/transport/Makefile"
maintain drivers/virtio4/transport/mmio.c
kconfig "config VIRTIO4_MMIO
	tristate \"virtio4 virtio-mmio transport\"
	depends on HAS_IOMEM
	select VIRTIO4_RING
	help
	  Drives memory-mapped virtio devices (QEMU's microvm, Firecracker,
	  most ARM guests), register layouts version 2 and legacy version 1,
	  found by ACPI (LNRO0005), the device tree (virtio,mmio) or the
	  device= module parameter."
commit "add the virtio-mmio transport" \
"Memory-mapped virtio devices through the virtio4 bus: version 2
(virtio 1.x) and legacy version 1, whose ring is found by its page frame
number and whose used ring lies at the alignment the ring's own layout
gives. One interrupt line per device, shared by its queues and
configuration changes. Devices come from ACPI, the device tree or the
device=<size>@<base>:<irq>[:<id>] parameter; a window too small, no
virtio magic, or a version other than 1 and 2 give no device and one log
line. It binds only devices that no other driver claimed, so it coexists
with virtio_mmio."

# 6. The block driver.
put drivers/blk.c drivers/blk.c
makefile drivers "obj-\$(CONFIG_VIRTIO4_BLK) += virtio4_blk.o" "virtio4_blk-y := blk.o"
kconfig "config VIRTIO4_BLK
	tristate \"virtio4 block driver\"
	depends on BLOCK
	help
	  virtio-blk devices on the virtio4 bus, as /dev/v4blkN: blk-mq with
	  one hardware queue per virtqueue, discard, write zeroes, flush,
	  serial, and I/O timeouts that give a dead device up.

	  To compile it as a module, choose M here: the module will be
	  called virtio4_blk."
subdir drivers
maintain drivers/virtio4/drivers/Makefile drivers/virtio4/drivers/blk.c
commit "add the block driver" \
"The virtio 1.x block protocol over the draft-IV API: one buffer per
request (header, data, status byte), one kick per batch (commit_rqs),
multi-queue with the transport's interrupt affinity, discard and write
zeroes, the serial in sysfs, and a device that breaks a queue, asks for
a reset or never completes is given up: outstanding I/O fails, later I/O
fails at once, removal still works."

# 7. The network driver.
put drivers/net.c drivers/net.c
put drivers/net.h drivers/net.h
put drivers/net_ctrl.c drivers/net_ctrl.c
put drivers/net_rss.c drivers/net_rss.c
put drivers/net_hdr.c drivers/net_hdr.c
put drivers/net_hdr.h drivers/net_hdr.h
echo "obj-\$(CONFIG_VIRTIO4_NET) += virtio4_net.o" >>"$v4/drivers/Makefile"
echo "virtio4_net-y := net.o net_ctrl.o net_rss.o net_hdr.o" >>"$v4/drivers/Makefile"
maintain drivers/virtio4/drivers/net.c drivers/virtio4/drivers/net.h \
	drivers/virtio4/drivers/net_ctrl.c drivers/virtio4/drivers/net_rss.c \
	drivers/virtio4/drivers/net_hdr.c drivers/virtio4/drivers/net_hdr.h
kconfig "config VIRTIO4_NET
	tristate \"virtio4 network driver\"
	depends on NET
	help
	  virtio-net devices on the virtio4 bus: NAPI receive with mergeable
	  buffers from a page fragment cache, checksum and TSO offloads when
	  negotiated, several queue pairs (ethtool -L), a control queue for
	  receive, MAC and VLAN filters, ethtool statistics per queue. A device that breaks a queue or asks
	  for a reset takes the link down for good.

	  To compile it as a module, choose M here: the module will be
	  called virtio4_net."
commit "add the network driver" \
"The virtio 1.x network protocol over the draft-IV API: receive buffers
from a page fragment cache refilled in batches (a work retries after an
allocation failure), transmit from the skb with the header pushed in
front or in its own element, completions reaped by the next transmit or
by a NAPI called back once most of what is in flight is sent. Frames
shorter than their header or with a bad num_buffers are dropped and
counted, and so is a frame whose virtio-net header lies about it
(net_hdr.c: flags or a GSO type not negotiated, a checksum outside the
frame, a GSO frame that is not TCP), with one rate-limited line.
With VIRTIO_NET_F_MQ, one queue pair per CPU (ethtool -L, XPS); with
VIRTIO_NET_F_RSS, receive-side scaling (net_rss.c: ethtool -x/-X, the
hash fields per flow type with ethtool -N rx-flow-hash).
The control queue (net_ctrl.c) carries the receive mode and MAC tables,
VLAN filters, the MAC address and announcements; a command the device
never answers fails after ctrl_timeout_ms instead of spinning."

# 8. The KUnit tests.
for f in "$top"/tests/kunit/*.c; do put "tests/kunit/$(basename "$f")" "tests/kunit/$(basename "$f")"; done
makefile tests/kunit
for f in "$top"/tests/kunit/*.c; do
	f=$(basename "$f" .c)
	echo "obj-\$(CONFIG_VIRTIO4_KUNIT_TEST) += $f.o" >>"$v4/tests/kunit/Makefile"
done
makefile tests "obj-\$(CONFIG_VIRTIO4_KUNIT_TEST) += kunit/"
kconfig "config VIRTIO4_KUNIT_TEST
	tristate \"KUnit tests for virtio4\" if !KUNIT_ALL_TESTS
	depends on KUNIT && VIRTIO4_RING && VIRTIO4_COPY
	default KUNIT_ALL_TESTS
	help
	  The ring against a device that lies in every way the used ring
	  allows, the queue API over both implementations, the copying
	  transport's protocol checks and the bus's configuration reads.
	  For development: run them with the KUnit tooling or load the
	  modules; say N otherwise."
subdir tests
maintain drivers/virtio4/tests/
commit "add KUnit tests" \
"Suites virtio4-ring and virtio4-ring-packed (every kind of lie in the
used ring breaks the queue, interrupt storms, event suppression, the
packed ring's wrap counters), virtio4-api-ring, virtio4-api-packed and
virtio4-api-copy (the same API cases over the three implementations),
virtio4-copy-protocol (the device host's completions are checked) and
virtio4-bus (bounded configuration reads)."

git -C "$repo" format-patch -q --cover-letter -o "$out" "$base"
cover=$(ls "$out"/0000-*.patch)
python3 - "$cover" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("*** SUBJECT HERE ***", "virtio4: virtio draft IV as a bus, a ring, three transports and two drivers")
s = s.replace("*** BLURB HERE ***", """This series adds drivers/virtio4/: Rusty Russell's virtio draft IV (2007)
queue API (add_buf, sync, get_buf, detach_buf, restart) as a bus of its
own, the virtio 1.x split and packed rings behind it, a PCI transport
for QEMU's virtio-pci devices, a virtio-mmio transport (version 2 and
legacy version 1) and a copying transport whose devices are served by a
userspace process, and block and network drivers that speak the virtio
1.x device protocols. It coexists with Linux's virtio: distinct bus,
symbols, device and module names.

The device is not trusted anywhere: the ring checks every used entry and
the copying transport every completion; a lying device breaks its queue
with one log line, and the drivers fail what is outstanding and give the
device up instead of hanging.

The patches are generated from the out-of-tree project (tools/make-patches.sh);
the whole series applies to Linux 6.1 and builds with W=1.""")
open(p, "w").write(s)
EOF
ls "$out"/*.patch | sed "s|^$top/||"
