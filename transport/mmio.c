// SPDX-License-Identifier: GPL-2.0
/*
 * The virtio-mmio transport: memory-mapped virtio devices (QEMU's microvm
 * machine, Firecracker, most ARM guests), put on the virtio4 bus with
 * descriptor rings as queues. Both register layouts: version 2 (virtio 1.x)
 * and version 1 (legacy: the ring found by its page frame number).
 *
 * How a device gets here: a platform device that firmware describes (ACPI
 * LNRO0005, device tree "virtio,mmio") binds to this driver unless Linux's
 * virtio_mmio took it first (steer it with driver_override); or one named
 * on the command line, virtio4_mmio.device=<size>@<base>:<irq>[:<id>], as
 * Linux's virtio_mmio.device= takes it (QEMU's microvm machine without ACPI
 * writes those for every device it has).
 *
 * Interrupts: one line per device, shared by its queues and configuration
 * changes; the interrupt status register says which.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/acpi.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_mmio.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/ring.h>

#define VM_MAGIC 0x74726976		/* "virt" */
#define VM_RESET_WAIT_MS 10000		/* how long a device may take to reset */
#define VM_MAX_CMDLINE_DEVICES 32

struct vm_queue {
	struct virtio4_queue *vq;
	char name[32];
};

struct vm_device {
	struct virtio4_device vdev;
	struct platform_device *pdev;
	void __iomem *base;
	size_t config_len;	/* bytes of device configuration from VIRTIO_MMIO_CONFIG */
	unsigned int version;	/* 1 (legacy) or 2 */
	int irq;
	unsigned int nvqs;
	struct vm_queue *queues;
	bool irq_requested;
	struct virtio4_storm storm;	/* queue interrupts in a row with nothing used */
	bool reset_failed;	/* a reset never completed: keep what it may use */
	struct dentry *break_file;	/* debugfs: break every queue, for tests */
};

#define to_vm(_vdev) container_of(_vdev, struct vm_device, vdev)

/*
 * Device configuration. Version 2: accesses as wide as the field, as
 * virtio 1.x asks; version 1: byte by byte, as a legacy device may not take
 * wider ones.
 */
static void vm_get(struct virtio4_device *vdev, unsigned int offset,
		   void *buf, unsigned int len)
{
	struct vm_device *vm = to_vm(vdev);
	void __iomem *p = vm->base + VIRTIO_MMIO_CONFIG + offset;
	unsigned int i;

	if (offset + len > vm->config_len || offset + len < offset) {
		dev_err_once(&vdev->dev, "config read %u+%u outside %zu bytes\n",
			     offset, len, vm->config_len);
		memset(buf, 0, len);
		return;
	}
	if (vm->version == 2) {
		virtio4_iomem_read(p, buf, len);
		return;
	}
	for (i = 0; i < len; i++)
		virtio4_iomem_read(p + i, buf + i, 1);
}

static void vm_set(struct virtio4_device *vdev, unsigned int offset,
		   const void *buf, unsigned int len)
{
	struct vm_device *vm = to_vm(vdev);
	void __iomem *p = vm->base + VIRTIO_MMIO_CONFIG + offset;
	unsigned int i;

	if (offset + len > vm->config_len || offset + len < offset) {
		dev_err_once(&vdev->dev, "config write %u+%u outside %zu bytes\n",
			     offset, len, vm->config_len);
		return;
	}
	if (vm->version == 2) {
		virtio4_iomem_write(p, buf, len);
		return;
	}
	for (i = 0; i < len; i++)
		virtio4_iomem_write(p + i, buf + i, 1);
}

static u32 vm_generation(struct virtio4_device *vdev)
{
	struct vm_device *vm = to_vm(vdev);

	/* A legacy device has no generation: its reads are never retried. */
	return vm->version == 2 ? readl(vm->base + VIRTIO_MMIO_CONFIG_GENERATION) : 0;
}

static u8 vm_get_status(struct virtio4_device *vdev)
{
	return readl(to_vm(vdev)->base + VIRTIO_MMIO_STATUS) & 0xff;
}

static void vm_set_status(struct virtio4_device *vdev, u8 status)
{
	writel(status, to_vm(vdev)->base + VIRTIO_MMIO_STATUS);
}

/*
 * The reset is done when the device reads back 0, and only then may the
 * memory it used be freed. One that does not finish within
 * VM_RESET_WAIT_MS is given up: reset_failed makes del_vqs keep (leak)
 * the rings it may still write.
 */
static void vm_reset(struct virtio4_device *vdev)
{
	struct vm_device *vm = to_vm(vdev);
	unsigned int waited;

	vm->reset_failed = false;
	writel(0, vm->base + VIRTIO_MMIO_STATUS);
	for (waited = 0; readl(vm->base + VIRTIO_MMIO_STATUS); waited++) {
		if (waited == VM_RESET_WAIT_MS) {
			dev_err(&vdev->dev, "device does not complete its reset in %u ms: its rings will be kept, not freed\n",
				VM_RESET_WAIT_MS);
			vm->reset_failed = true;
			break;
		}
		usleep_range(1000, 1100);
	}
	/* No handler may still be running on the old state. */
	if (vm->irq_requested)
		synchronize_irq(vm->irq);
}

static u64 vm_get_features(struct virtio4_device *vdev)
{
	struct vm_device *vm = to_vm(vdev);
	u64 features;

	writel(1, vm->base + VIRTIO_MMIO_DEVICE_FEATURES_SEL);
	features = (u64)readl(vm->base + VIRTIO_MMIO_DEVICE_FEATURES) << 32;
	writel(0, vm->base + VIRTIO_MMIO_DEVICE_FEATURES_SEL);
	features |= readl(vm->base + VIRTIO_MMIO_DEVICE_FEATURES);
	/* Bits 32 and up are virtio 1.x's: a legacy device cannot mean them. */
	if (vm->version == 1)
		features = lower_32_bits(features);
	return features;
}

static int vm_finalize_features(struct virtio4_device *vdev)
{
	struct vm_device *vm = to_vm(vdev);

	writel(0, vm->base + VIRTIO_MMIO_DRIVER_FEATURES_SEL);
	writel(lower_32_bits(vdev->features), vm->base + VIRTIO_MMIO_DRIVER_FEATURES);
	if (vm->version == 1)
		return 0;
	writel(1, vm->base + VIRTIO_MMIO_DRIVER_FEATURES_SEL);
	writel(upper_32_bits(vdev->features), vm->base + VIRTIO_MMIO_DRIVER_FEATURES);
	return 0;
}

static bool vm_notify(struct virtio4_queue *vq, void *data)
{
	struct vm_device *vm = data;

	writel(vq->index, vm->base + VIRTIO_MMIO_QUEUE_NOTIFY);
	return true;
}

/* The queues' part of the interrupt: as PCI's shared vector, storms counted here. */
static irqreturn_t vm_queues_irq(struct vm_device *vm)
{
	irqreturn_t ret = IRQ_NONE;
	unsigned int i;

	for (i = 0; i < vm->nvqs; i++)
		if (virtio4_ring_shared_interrupt(vm->queues[i].vq) == IRQ_HANDLED)
			ret = IRQ_HANDLED;
	if (ret == IRQ_HANDLED) {
		vm->storm.count = 0;
		return ret;
	}
	if (vm->storm.count >= VIRTIO4_RING_STORM ||
	    virtio4_storm_add(&vm->storm) < VIRTIO4_RING_STORM)
		return IRQ_HANDLED;
	for (i = 0; i < vm->nvqs; i++)
		virtio4_ring_break(vm->queues[i].vq, "interrupt storm on the device's interrupt");
	return IRQ_HANDLED;
}

static irqreturn_t vm_interrupt(int irq, void *data)
{
	struct vm_device *vm = data;
	u32 status = readl(vm->base + VIRTIO_MMIO_INTERRUPT_STATUS);

	if (!status)
		return IRQ_NONE;	/* another device's, on a shared line */
	writel(status, vm->base + VIRTIO_MMIO_INTERRUPT_ACK);
	if (status & VIRTIO_MMIO_INT_CONFIG)
		virtio4_config_changed(&vm->vdev);
	if (status & VIRTIO_MMIO_INT_VRING)
		vm_queues_irq(vm);
	return IRQ_HANDLED;
}

/* Tell the device queue @index is gone (the device is reset already). */
static void vm_deactivate_queue(struct vm_device *vm, unsigned int index)
{
	writel(index, vm->base + VIRTIO_MMIO_QUEUE_SEL);
	if (vm->version == 1)
		writel(0, vm->base + VIRTIO_MMIO_QUEUE_PFN);
	else
		writel(0, vm->base + VIRTIO_MMIO_QUEUE_READY);
}

static void vm_del_queues(struct vm_device *vm)
{
	unsigned int i;

	for (i = 0; i < vm->nvqs; i++) {
		if (!vm->queues[i].vq)
			continue;
		if (vm->reset_failed) {
			virtio4_ring_abandon(vm->queues[i].vq);
			continue;
		}
		vm_deactivate_queue(vm, i);
		virtio4_ring_del(vm->queues[i].vq);
	}
	kfree(vm->queues);
	vm->queues = NULL;
	vm->nvqs = 0;
}

static void vm_del_vqs(struct virtio4_device *vdev)
{
	struct vm_device *vm = to_vm(vdev);

	/* Waits for a write in progress; none starts after. */
	debugfs_remove(vm->break_file);
	vm->break_file = NULL;
	vm_reset(vdev);
	if (vm->irq_requested)
		free_irq(vm->irq, vm);
	vm->irq_requested = false;
	vm_del_queues(vm);
}

/*
 * A legacy device finds the used ring itself, QUEUE_ALIGN bytes after the
 * available ring's end: the alignment that gives the ring's own layout, or
 * 0 when no power of two does.
 */
static u32 vm_legacy_align(struct virtio4_queue *vq,
			   const struct virtio4_ring_layout *l)
{
	u64 avail_end = l->avail - l->desc + 6 + 2 * vq->num;
	u64 used = l->used - l->desc;
	u32 align = used ? 1U << __ffs64(used) : 0;

	if (l->avail - l->desc != 16ULL * vq->num || !align ||
	    ALIGN(avail_end, align) != used)
		return 0;
	return align;
}

/* Tell the device where queue @index is and let it use it; 0 or -errno. */
static int vm_activate_queue(struct vm_device *vm, unsigned int index)
{
	struct virtio4_queue *vq = vm->queues[index].vq;
	void __iomem *base = vm->base;
	struct virtio4_ring_layout l;
	u64 pfn;
	u32 align;

	virtio4_ring_layout(vq, &l);
	writel(index, base + VIRTIO_MMIO_QUEUE_SEL);
	writel(vq->num, base + VIRTIO_MMIO_QUEUE_NUM);
	if (vm->version == 2) {
		writel(lower_32_bits(l.desc), base + VIRTIO_MMIO_QUEUE_DESC_LOW);
		writel(upper_32_bits(l.desc), base + VIRTIO_MMIO_QUEUE_DESC_HIGH);
		writel(lower_32_bits(l.avail), base + VIRTIO_MMIO_QUEUE_AVAIL_LOW);
		writel(upper_32_bits(l.avail), base + VIRTIO_MMIO_QUEUE_AVAIL_HIGH);
		writel(lower_32_bits(l.used), base + VIRTIO_MMIO_QUEUE_USED_LOW);
		writel(upper_32_bits(l.used), base + VIRTIO_MMIO_QUEUE_USED_HIGH);
		writel(1, base + VIRTIO_MMIO_QUEUE_READY);
		return 0;
	}
	pfn = l.desc >> PAGE_SHIFT;
	align = vm_legacy_align(vq, &l);
	if (!align || l.desc & ~PAGE_MASK || pfn > U32_MAX) {
		dev_err(&vm->vdev.dev, "queue %u: ring at %pad cannot be given to a legacy device\n",
			index, &l.desc);
		return -EINVAL;
	}
	writel(PAGE_SIZE, base + VIRTIO_MMIO_GUEST_PAGE_SIZE);
	writel(align, base + VIRTIO_MMIO_QUEUE_ALIGN);
	writel(pfn, base + VIRTIO_MMIO_QUEUE_PFN);
	return 0;
}

/* Queue @index's ring, not given to the device yet; 0 or -errno. */
static int vm_new_queue(struct vm_device *vm, unsigned int index,
			virtio4_callback_t *callback, const char *name)
{
	struct vm_queue *q = &vm->queues[index];
	void __iomem *base = vm->base;
	bool in_use;
	u32 num;

	writel(index, base + VIRTIO_MMIO_QUEUE_SEL);
	in_use = readl(base + (vm->version == 1 ? VIRTIO_MMIO_QUEUE_PFN :
						  VIRTIO_MMIO_QUEUE_READY));
	num = readl(base + VIRTIO_MMIO_QUEUE_NUM_MAX);
	if (!num || in_use) {
		dev_err(&vm->vdev.dev, "queue %u is not available\n", index);
		return -ENOENT;
	}
	num = min(num, 32768U);
	/* Any size up to the device's maximum will do: a split ring's is a power of two. */
	if (!virtio4_has_feature(&vm->vdev, VIRTIO_F_RING_PACKED))
		num = rounddown_pow_of_two(num);
	snprintf(q->name, sizeof(q->name), "%s-%s", dev_name(&vm->vdev.dev), name);
	q->vq = virtio4_ring_new(&vm->vdev, &vm->pdev->dev, index, num,
				 vm_notify, vm, callback, q->name);
	if (IS_ERR(q->vq)) {
		int err = PTR_ERR(q->vq);

		q->vq = NULL;
		return err;
	}
	return 0;
}

/*
 * debugfs virtio4/<device>/break: writing 1 breaks every queue, as if the
 * device had lied, so that tests can watch the driver fail its I/O and
 * remain removable. The callbacks run with interrupts off, as from the
 * device's interrupt.
 */
static ssize_t vm_break_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	struct vm_device *vm = file->private_data;
	unsigned int i;
	bool yes;
	int err;

	err = kstrtobool_from_user(buf, len, &yes);
	if (err)
		return err;
	if (!yes)
		return -EINVAL;
	local_irq_disable();
	for (i = 0; i < vm->nvqs; i++)
		virtio4_ring_break(vm->queues[i].vq, "broken on request (debugfs)");
	local_irq_enable();
	return len;
}

static const struct file_operations vm_break_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vm_break_write,
	.llseek = no_llseek,
};

static int vm_find_vqs(struct virtio4_device *vdev, unsigned int nvqs,
		       struct virtio4_queue *vqs[],
		       virtio4_callback_t *callbacks[],
		       const char * const names[],
		       struct irq_affinity *spread)
{
	struct vm_device *vm = to_vm(vdev);
	unsigned int i;
	int err;

	vm->queues = kcalloc(nvqs, sizeof(*vm->queues), GFP_KERNEL);
	if (!vm->queues)
		return -ENOMEM;
	vm->nvqs = nvqs;
	vm->storm.count = 0;
	for (i = 0; i < nvqs; i++) {
		err = vm_new_queue(vm, i, callbacks[i], names[i]);
		if (err)
			goto err_queues;
	}
	err = request_irq(vm->irq, vm_interrupt, IRQF_SHARED, dev_name(&vdev->dev), vm);
	if (err)
		goto err_queues;
	vm->irq_requested = true;
	/* The interrupt taken: only now may the device use the queues. */
	for (i = 0; i < nvqs; i++) {
		err = vm_activate_queue(vm, i);
		if (err)
			goto err_irq;
		vqs[i] = vm->queues[i].vq;
	}
	if (vdev->debugfs)
		vm->break_file = debugfs_create_file("break", 0200, vdev->debugfs, vm,
						     &vm_break_fops);
	return 0;

err_irq:
	vm_reset(vdev);
	free_irq(vm->irq, vm);
	vm->irq_requested = false;
err_queues:
	vm_del_queues(vm);
	return err;
}

static const struct virtio4_config_ops vm_config_ops = {
	.get			= vm_get,
	.set			= vm_set,
	.generation		= vm_generation,
	.get_status		= vm_get_status,
	.set_status		= vm_set_status,
	.reset			= vm_reset,
	.get_features		= vm_get_features,
	.finalize_features	= vm_finalize_features,
	.find_vqs		= vm_find_vqs,
	.del_vqs		= vm_del_vqs,
};

static void vm_release(struct device *dev)
{
	kfree(to_vm(to_virtio4_device(dev)));
}

/* Magic, version and device id; 0, -ENODEV quietly for an empty slot, or -errno. */
static int vm_identify(struct vm_device *vm)
{
	struct device *dev = &vm->pdev->dev;
	u32 magic = readl(vm->base + VIRTIO_MMIO_MAGIC_VALUE);

	if (magic != VM_MAGIC) {
		dev_err(dev, "no virtio-mmio device here (magic %#x)\n", magic);
		return -ENODEV;
	}
	vm->version = readl(vm->base + VIRTIO_MMIO_VERSION);
	if (vm->version != 1 && vm->version != 2) {
		dev_err(dev, "virtio-mmio version %u is not 1 or 2\n", vm->version);
		return -ENODEV;
	}
	/* A legacy device keeps the guest's byte order: ours only if it is virtio 1.x's. */
	if (vm->version == 1 && IS_ENABLED(CONFIG_CPU_BIG_ENDIAN)) {
		dev_err(dev, "legacy (version 1) devices are not supported on a big-endian guest\n");
		return -ENODEV;
	}
	vm->vdev.id.device = readl(vm->base + VIRTIO_MMIO_DEVICE_ID);
	vm->vdev.id.vendor = readl(vm->base + VIRTIO_MMIO_VENDOR_ID);
	/* QEMU's machines have slots with no device behind them: id 0. */
	return vm->vdev.id.device ? 0 : -ENODEV;
}

/* The registers mapped and checked; 0, or -errno with vm's mapping undone by devm. */
static int vm_map(struct vm_device *vm)
{
	struct platform_device *pdev = vm->pdev;
	struct resource *res;
	int err;

	vm->base = devm_platform_get_and_ioremap_resource(pdev, 0, &res);
	if (IS_ERR(vm->base))
		return PTR_ERR(vm->base);
	if (resource_size(res) < VIRTIO_MMIO_CONFIG) {
		dev_err(&pdev->dev, "%pR is too small for the registers\n", res);
		return -ENODEV;
	}
	vm->config_len = resource_size(res) - VIRTIO_MMIO_CONFIG;
	vm->irq = platform_get_irq(pdev, 0);
	if (vm->irq < 0)
		return vm->irq;
	err = vm_identify(vm);
	if (err)
		return err;
	/* A legacy device takes a 32-bit page frame number. */
	err = dma_set_mask_and_coherent(&pdev->dev, vm->version == 1 ?
					DMA_BIT_MASK(32 + PAGE_SHIFT) : DMA_BIT_MASK(64));
	if (err)
		dev_err(&pdev->dev, "no usable DMA mask\n");
	return err;
}

static int vm_probe(struct platform_device *pdev)
{
	struct vm_device *vm;
	int err;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return -ENOMEM;
	vm->pdev = pdev;
	err = vm_map(vm);
	if (err)
		goto err_free;
	vm->vdev.legacy = vm->version == 1;
	vm->vdev.config = &vm_config_ops;
	vm->vdev.dev.parent = &pdev->dev;
	vm->vdev.dev.release = vm_release;
	platform_set_drvdata(pdev, vm);
	err = virtio4_register_device(&vm->vdev);
	if (err)
		put_device(&vm->vdev.dev);
	return err;

err_free:
	kfree(vm);
	return err;
}

static int vm_remove(struct platform_device *pdev)
{
	struct vm_device *vm = platform_get_drvdata(pdev);

	virtio4_unregister_device(&vm->vdev);
	return 0;
}

/*
 * Devices named by the device= parameter: <size>@<base>:<irq>[:<id>], as
 * Linux's virtio_mmio.device= (the id names the platform device
 * virtio4-mmio.<id>; a device given without one takes the id after the
 * last one's, from 0). Parsed at load, registered by the module's init,
 * unregistered at its exit.
 */
struct vm_cmdline_device {
	struct resource res[2];
	int id;
	struct platform_device *pdev;
};

static struct vm_cmdline_device vm_cmdline[VM_MAX_CMDLINE_DEVICES];
static unsigned int vm_cmdline_count;
static unsigned int vm_cmdline_next_id;	/* for a device given without an id */
static int vm_cmdline_err;	/* a bad value fails the load, in vm_init() */

/* The device given with platform device id @id, or NULL. */
static struct vm_cmdline_device *vm_cmdline_find(int id)
{
	unsigned int i;

	for (i = 0; i < vm_cmdline_count; i++)
		if (vm_cmdline[i].id == id)
			return &vm_cmdline[i];
	return NULL;
}

/* One <size>@<base>:<irq>[:<id>] into @d (its id, if none is given, @next); 0 or -EINVAL. */
static int vm_cmdline_parse(char *str, unsigned int next, struct vm_cmdline_device *d)
{
	char *size_s, *base_s, *irq_s, *end;
	unsigned long long size, base;
	unsigned int irq, id = next;

	size_s = strsep(&str, "@");
	base_s = strsep(&str, ":");
	irq_s = strsep(&str, ":");
	if (!irq_s)
		return -EINVAL;
	size = memparse(size_s, &end);
	if (end == size_s || *end || !size)
		return -EINVAL;
	base = memparse(base_s, &end);
	if (end == base_s || *end || base + size - 1 < base)
		return -EINVAL;
	if (kstrtouint(irq_s, 0, &irq) || !irq)
		return -EINVAL;
	if ((str && kstrtouint(str, 0, &id)) || id > INT_MAX)
		return -EINVAL;
	d->res[0] = (struct resource)DEFINE_RES_MEM_NAMED(base, size, "virtio4-mmio");
	d->res[1] = (struct resource)DEFINE_RES_IRQ(irq);
	d->id = id;
	return 0;
}

/*
 * The kernel's parameter parser logs a line of its own after a set that
 * fails: a bad value is logged here, remembered, and fails the load in
 * vm_init(), so that it makes one line.
 */
static int vm_cmdline_set(const char *val, const struct kernel_param *kp)
{
	struct vm_cmdline_device *d = &vm_cmdline[vm_cmdline_count];
	char *str;
	int err;

	if (vm_cmdline_count == VM_MAX_CMDLINE_DEVICES) {
		pr_err("device=%s: at most %u devices\n", val, VM_MAX_CMDLINE_DEVICES);
		vm_cmdline_err = -E2BIG;
		return 0;
	}
	str = kstrdup(val, GFP_KERNEL);
	if (!str)
		return -ENOMEM;
	err = vm_cmdline_parse(str, vm_cmdline_next_id, d);
	kfree(str);
	if (err) {
		pr_err("device=%s is not <size>@<base>:<irq>[:<id>]\n", val);
		vm_cmdline_err = err;
		return 0;
	}
	if (vm_cmdline_find(d->id)) {
		pr_err("device=%s: id %d is taken\n", val, d->id);
		vm_cmdline_err = -EINVAL;
		return 0;
	}
	/* As Linux's virtio_mmio.device=: one without an id follows the last one's. */
	vm_cmdline_next_id = d->id + 1;
	vm_cmdline_count++;
	return 0;
}

static int vm_cmdline_get(char *buf, const struct kernel_param *kp)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < vm_cmdline_count; i++)
		len += sysfs_emit_at(buf, len, "%s%llu@%#llx:%llu:%d", i ? "," : "",
				     (u64)resource_size(&vm_cmdline[i].res[0]),
				     (u64)vm_cmdline[i].res[0].start,
				     (u64)vm_cmdline[i].res[1].start, vm_cmdline[i].id);
	return len + sysfs_emit_at(buf, len, "\n");
}

static const struct kernel_param_ops vm_cmdline_ops = {
	.set = vm_cmdline_set,
	.get = vm_cmdline_get,
};

module_param_cb(device, &vm_cmdline_ops, NULL, 0444);
MODULE_PARM_DESC(device,
		 "A virtio-mmio device: <size>@<base>:<irq>[:<id>] (may be given up to 32 times; e.g. 0x200@0xfeb00e00:12)");

static void vm_cmdline_unregister(void)
{
	unsigned int i;

	for (i = 0; i < vm_cmdline_count; i++) {
		platform_device_unregister(vm_cmdline[i].pdev);
		vm_cmdline[i].pdev = NULL;
	}
}

static int vm_cmdline_register(void)
{
	struct vm_cmdline_device *d;
	unsigned int i;

	for (i = 0; i < vm_cmdline_count; i++) {
		d = &vm_cmdline[i];
		d->pdev = platform_device_register_simple("virtio4-mmio", d->id, d->res,
							  ARRAY_SIZE(d->res));
		if (IS_ERR(d->pdev)) {
			int err = PTR_ERR(d->pdev);

			pr_err("device %pR: cannot register it (%d)\n", &d->res[0], err);
			d->pdev = NULL;
			vm_cmdline_unregister();
			return err;
		}
	}
	return 0;
}

static const struct of_device_id vm_of_ids[] = {
	{ .compatible = "virtio,mmio" },
	{ }
};

#ifdef CONFIG_ACPI
static const struct acpi_device_id vm_acpi_ids[] = {
	{ "LNRO0005" },
	{ }
};
#endif

/*
 * No MODULE_DEVICE_TABLE: Linux's virtio_mmio claims the same devices, so
 * this module is never autoloaded for them; load it, or steer a device to
 * it with driver_override, where it is wanted.
 */
static struct platform_driver vm_driver = {
	.probe		= vm_probe,
	.remove		= vm_remove,
	.driver		= {
		.name			= "virtio4-mmio",
		.of_match_table		= vm_of_ids,
		.acpi_match_table	= ACPI_PTR(vm_acpi_ids),
	},
};

static int __init vm_init(void)
{
	int err;

	if (vm_cmdline_err)
		return vm_cmdline_err;
	err = vm_cmdline_register();
	if (err)
		return err;
	err = platform_driver_register(&vm_driver);
	if (err)
		vm_cmdline_unregister();
	return err;
}

static void __exit vm_exit(void)
{
	platform_driver_unregister(&vm_driver);
	vm_cmdline_unregister();
}

module_init(vm_init);
module_exit(vm_exit);

MODULE_DESCRIPTION("virtio draft IV: the virtio-mmio transport (version 2 and legacy version 1 devices)");
MODULE_LICENSE("GPL");
