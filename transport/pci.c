// SPDX-License-Identifier: GPL-2.0
/*
 * The PCI transport: QEMU's (and any virtio 1.x) virtio-pci devices, modern
 * interface only, put on the virtio4 bus with descriptor rings as queues.
 *
 * How a device gets here: a PCI device with vendor 0x1af4 and a device id
 * in 0x1000..0x107f binds to this driver (unless Linux's virtio_pci took it
 * first; steer it with /sys/bus/pci/devices/.../driver_override). Probe maps
 * the four virtio capabilities (common, notify, ISR, device config) and
 * registers a virtio4_device; the bus then negotiates features and calls a
 * driver's probe, which calls vp_find_vqs() for its queues.
 *
 * Interrupts: one MSI-X vector per queue plus one for configuration
 * changes when the device has enough; otherwise one shared queue vector
 * plus the configuration vector; otherwise INTx with the ISR register.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_pci.h>
#include <virtio4/ring.h>

enum vp_irq_mode { VP_IRQ_PER_QUEUE, VP_IRQ_SHARED, VP_IRQ_INTX };

#define VP_RESET_WAIT_MS 10000	/* how long a present device may take to reset */

static unsigned int irq_mode;
module_param(irq_mode, uint, 0444);
MODULE_PARM_DESC(irq_mode,
		 "Interrupts: 0 = the best the device allows (MSI-X vector per queue, shared MSI-X, INTx), 1 = at most one shared MSI-X vector for the queues, 2 = INTx only (default: 0)");

static unsigned int queue_size_max;
module_param(queue_size_max, uint, 0444);
MODULE_PARM_DESC(queue_size_max,
		 "Largest queue size to use, a power of two up to 32768; 0 = the device's (default: 0)");

struct vp_queue {
	struct virtio4_queue *vq;
	void __iomem *notify;
	u16 vector;		/* its MSI-X vector, or VIRTIO_MSI_NO_VECTOR */
	char name[32];
	struct cpumask *hint;	/* its vector's affinity hint (set_vq_affinity) */
};

struct vp_device {
	struct virtio4_device vdev;
	struct pci_dev *pdev;
	struct virtio_pci_common_cfg __iomem *common;
	u8 __iomem *isr;
	void __iomem *device;
	size_t device_len;
	void __iomem *notify_base;
	size_t notify_len;
	u32 notify_mult;
	int bars;
	enum vp_irq_mode mode;
	bool managed;		/* the queue vectors' affinity is the kernel's (spread) */
	unsigned int nvectors;
	unsigned int nvqs;
	struct vp_queue *queues;
	bool irqs_requested;
	struct virtio4_storm storm;	/* shared interrupts in a row with nothing used */
	bool reset_failed;	/* a reset never completed: keep what it may use */
	struct dentry *break_file;	/* debugfs: break every queue, for tests */
};

#define to_vp(_vdev) container_of(_vdev, struct vp_device, vdev)

/* Device configuration: accesses as wide as the field, as virtio 1.x asks. */
static void vp_get(struct virtio4_device *vdev, unsigned int offset,
		   void *buf, unsigned int len)
{
	struct vp_device *vp = to_vp(vdev);

	if (!vp->device || offset + len > vp->device_len || offset + len < offset) {
		dev_err_once(&vdev->dev, "config read %u+%u outside %zu bytes\n",
			     offset, len, vp->device_len);
		memset(buf, 0, len);
		return;
	}
	virtio4_iomem_read(vp->device + offset, buf, len);
}

static void vp_set(struct virtio4_device *vdev, unsigned int offset,
		   const void *buf, unsigned int len)
{
	struct vp_device *vp = to_vp(vdev);

	if (!vp->device || offset + len > vp->device_len || offset + len < offset) {
		dev_err_once(&vdev->dev, "config write %u+%u outside %zu bytes\n",
			     offset, len, vp->device_len);
		return;
	}
	virtio4_iomem_write(vp->device + offset, buf, len);
}

static u32 vp_generation(struct virtio4_device *vdev)
{
	return ioread8(&to_vp(vdev)->common->config_generation);
}

static u8 vp_get_status(struct virtio4_device *vdev)
{
	return ioread8(&to_vp(vdev)->common->device_status);
}

static void vp_set_status(struct virtio4_device *vdev, u8 status)
{
	iowrite8(status, &to_vp(vdev)->common->device_status);
}

/*
 * The reset is done when the device reads back 0, and only then may the
 * memory it used be freed. A device that is gone (surprise removal) can use
 * nothing more: no wait. One that stays present and does not finish within
 * VP_RESET_WAIT_MS is given up: reset_failed makes del_vqs keep (leak) the
 * rings it may still write.
 */
static void vp_reset(struct virtio4_device *vdev)
{
	struct vp_device *vp = to_vp(vdev);
	unsigned int waited;

	vp->reset_failed = false;
	iowrite8(0, &vp->common->device_status);
	for (waited = 0; ioread8(&vp->common->device_status); waited++) {
		if (!pci_device_is_present(vp->pdev))
			break;
		if (waited == VP_RESET_WAIT_MS) {
			dev_err(&vdev->dev, "device does not complete its reset in %u ms: its rings will be kept, not freed\n",
				VP_RESET_WAIT_MS);
			vp->reset_failed = true;
			break;
		}
		usleep_range(1000, 1100);
	}
	/* No handler may still be running on the old state. */
	if (vp->irqs_requested)
		for (waited = 0; waited < vp->nvectors; waited++)
			synchronize_irq(pci_irq_vector(vp->pdev, waited));
}

static u64 vp_get_features(struct virtio4_device *vdev)
{
	struct vp_device *vp = to_vp(vdev);
	u64 features;

	iowrite32(0, &vp->common->device_feature_select);
	features = ioread32(&vp->common->device_feature);
	iowrite32(1, &vp->common->device_feature_select);
	features |= (u64)ioread32(&vp->common->device_feature) << 32;
	return features;
}

static int vp_finalize_features(struct virtio4_device *vdev)
{
	struct vp_device *vp = to_vp(vdev);

	iowrite32(0, &vp->common->guest_feature_select);
	iowrite32(lower_32_bits(vdev->features), &vp->common->guest_feature);
	iowrite32(1, &vp->common->guest_feature_select);
	iowrite32(upper_32_bits(vdev->features), &vp->common->guest_feature);
	return 0;
}

static bool vp_notify(struct virtio4_queue *vq, void *data)
{
	struct vp_queue *q = data;

	iowrite16(vq->index, q->notify);
	return true;
}

static irqreturn_t vp_config_irq(int irq, void *data)
{
	struct vp_device *vp = data;

	virtio4_config_changed(&vp->vdev);
	return IRQ_HANDLED;
}

static irqreturn_t vp_queue_irq(int irq, void *data)
{
	return virtio4_ring_interrupt(data);
}

static irqreturn_t vp_queues_irq(int irq, void *data)
{
	struct vp_device *vp = data;
	irqreturn_t ret = IRQ_NONE;
	unsigned int i;

	for (i = 0; i < vp->nvqs; i++)
		if (vp->queues[i].vq &&
		    virtio4_ring_shared_interrupt(vp->queues[i].vq) == IRQ_HANDLED)
			ret = IRQ_HANDLED;
	if (ret == IRQ_HANDLED) {
		vp->storm.count = 0;
		return ret;
	}
	/* Claimed or not, as the ring does for a queue's own vector. */
	if (vp->storm.count >= VIRTIO4_RING_STORM)
		return IRQ_HANDLED;
	if (virtio4_storm_add(&vp->storm) < VIRTIO4_RING_STORM)
		return IRQ_NONE;
	for (i = 0; i < vp->nvqs; i++)
		if (vp->queues[i].vq)
			virtio4_ring_break(vp->queues[i].vq,
					   "interrupt storm on the shared interrupt");
	return IRQ_HANDLED;
}

static irqreturn_t vp_intx_irq(int irq, void *data)
{
	struct vp_device *vp = data;
	u8 isr = ioread8(vp->isr);	/* reading clears it */

	if (!isr)
		return IRQ_NONE;
	if (isr & VIRTIO_PCI_ISR_CONFIG)
		vp_config_irq(irq, vp);
	vp_queues_irq(irq, vp);
	return IRQ_HANDLED;
}

/*
 * Allocate vectors for @nvqs queues with callbacks; sets vp->mode and
 * vp->nvectors. With @spread, the queue vectors get managed affinity (the
 * configuration vector, vector 0, is never spread).
 */
static int vp_alloc_vectors(struct vp_device *vp, unsigned int nvqs,
			    struct irq_affinity *spread, enum vp_irq_mode best)
{
	struct irq_affinity desc = { .pre_vectors = 1 };
	unsigned int flags = PCI_IRQ_MSIX;
	struct pci_dev *pdev = vp->pdev;

	if (spread) {
		desc.pre_vectors += spread->pre_vectors;
		flags |= PCI_IRQ_AFFINITY;
	}
	vp->nvectors = nvqs + 1;
	vp->mode = VP_IRQ_PER_QUEUE;
	vp->managed = !!spread;
	if (best == VP_IRQ_PER_QUEUE &&
	    pci_alloc_irq_vectors_affinity(pdev, nvqs + 1, nvqs + 1, flags,
					   spread ? &desc : NULL) > 0)
		return 0;
	vp->nvectors = 2;
	vp->mode = VP_IRQ_SHARED;
	if (best <= VP_IRQ_SHARED && pci_alloc_irq_vectors(pdev, 2, 2, PCI_IRQ_MSIX) > 0)
		return 0;
	vp->nvectors = 1;
	vp->mode = VP_IRQ_INTX;
	if (pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_LEGACY) > 0)
		return 0;
	vp->nvectors = 0;
	dev_err(&vp->vdev.dev, "no interrupt available\n");
	return -ENODEV;
}

/*
 * Each queue's vector in vp->mode: in order, one each for the queues with
 * callbacks, none for the queues the driver polls (nor with INTx).
 */
static void vp_assign_vectors(struct vp_device *vp, virtio4_callback_t *callbacks[])
{
	u16 next = 1;
	unsigned int i;

	for (i = 0; i < vp->nvqs; i++) {
		if (!callbacks[i] || vp->mode == VP_IRQ_INTX)
			vp->queues[i].vector = VIRTIO_MSI_NO_VECTOR;
		else if (vp->mode == VP_IRQ_SHARED)
			vp->queues[i].vector = 1;
		else
			vp->queues[i].vector = next++;
	}
}

static void vp_free_irqs(struct vp_device *vp)
{
	unsigned int i;

	if (!vp->irqs_requested)
		return;
	vp->irqs_requested = false;
	if (vp->mode == VP_IRQ_INTX) {
		free_irq(pci_irq_vector(vp->pdev, 0), vp);
		return;
	}
	free_irq(pci_irq_vector(vp->pdev, 0), vp);
	if (vp->mode == VP_IRQ_SHARED) {
		free_irq(pci_irq_vector(vp->pdev, 1), vp);
		return;
	}
	for (i = 0; i < vp->nvqs; i++) {
		struct vp_queue *q = &vp->queues[i];

		if (q->vector == VIRTIO_MSI_NO_VECTOR)
			continue;
		/* free_irq() WARNs on a hint left behind. */
		if (q->hint)
			irq_set_affinity_and_hint(pci_irq_vector(vp->pdev, q->vector), NULL);
		free_irq(pci_irq_vector(vp->pdev, q->vector), q->vq);
	}
}

static int vp_request_irqs(struct vp_device *vp)
{
	const char *name = dev_name(&vp->vdev.dev);
	struct pci_dev *pdev = vp->pdev;
	unsigned int i = 0;
	int err;

	if (vp->mode == VP_IRQ_INTX) {
		err = request_irq(pci_irq_vector(pdev, 0), vp_intx_irq,
				  IRQF_SHARED, name, vp);
		vp->irqs_requested = !err;
		return err;
	}
	err = request_irq(pci_irq_vector(pdev, 0), vp_config_irq, 0, name, vp);
	if (err)
		return err;
	if (vp->mode == VP_IRQ_SHARED) {
		err = request_irq(pci_irq_vector(pdev, 1), vp_queues_irq, 0, name, vp);
		if (err)
			goto err_config;
	} else {
		for (i = 0; i < vp->nvqs; i++) {
			if (vp->queues[i].vector == VIRTIO_MSI_NO_VECTOR)
				continue;
			err = request_irq(pci_irq_vector(pdev, vp->queues[i].vector),
					  vp_queue_irq, 0, vp->queues[i].name,
					  vp->queues[i].vq);
			if (err)
				goto err_queues;
		}
	}
	vp->irqs_requested = true;
	return 0;

err_queues:
	while (i--)
		if (vp->queues[i].vector != VIRTIO_MSI_NO_VECTOR)
			free_irq(pci_irq_vector(pdev, vp->queues[i].vector),
				 vp->queues[i].vq);
err_config:
	free_irq(pci_irq_vector(pdev, 0), vp);
	return err;
}

static void vp_del_queues(struct vp_device *vp)
{
	unsigned int i;

	for (i = 0; i < vp->nvqs; i++) {
		kfree(vp->queues[i].hint);
		if (!vp->queues[i].vq)
			continue;
		if (vp->reset_failed)
			virtio4_ring_abandon(vp->queues[i].vq);
		else
			virtio4_ring_del(vp->queues[i].vq);
	}
	kfree(vp->queues);
	vp->queues = NULL;
	vp->nvqs = 0;
}

static void vp_del_vqs(struct virtio4_device *vdev)
{
	struct vp_device *vp = to_vp(vdev);

	/* Waits for a write in progress; none starts after. */
	debugfs_remove(vp->break_file);
	vp->break_file = NULL;
	vp_reset(vdev);
	vp_free_irqs(vp);
	vp_del_queues(vp);
	pci_free_irq_vectors(vp->pdev);
	vp->nvectors = 0;
}

/*
 * Tell the device about queue @index's ring and vector, not enabling it
 * yet; returns 0 or -errno (-EBUSY: the device refused the vector).
 */
static int vp_activate_queue(struct vp_device *vp, unsigned int index)
{
	struct virtio_pci_common_cfg __iomem *c = vp->common;
	struct virtio4_queue *vq = vp->queues[index].vq;
	struct virtio4_ring_layout l;
	u16 vector = vp->queues[index].vector;
	u64 off;

	virtio4_ring_layout(vq, &l);
	iowrite16(vq->num, &c->queue_size);
	iowrite32(lower_32_bits(l.desc), &c->queue_desc_lo);
	iowrite32(upper_32_bits(l.desc), &c->queue_desc_hi);
	iowrite32(lower_32_bits(l.avail), &c->queue_avail_lo);
	iowrite32(upper_32_bits(l.avail), &c->queue_avail_hi);
	iowrite32(lower_32_bits(l.used), &c->queue_used_lo);
	iowrite32(upper_32_bits(l.used), &c->queue_used_hi);
	iowrite16(vector, &c->queue_msix_vector);
	if (ioread16(&c->queue_msix_vector) != vector) {
		dev_err(&vp->vdev.dev, "queue %u: device refused its MSI-X vector\n",
			index);
		return -EBUSY;
	}
	off = (u64)ioread16(&c->queue_notify_off) * vp->notify_mult;
	if (off + 2 > vp->notify_len) {
		dev_err(&vp->vdev.dev, "queue %u: notify offset %llu outside %zu bytes\n",
			index, off, vp->notify_len);
		return -EINVAL;
	}
	vp->queues[index].notify = vp->notify_base + off;
	return 0;
}

static int vp_new_queue(struct vp_device *vp, unsigned int index,
			virtio4_callback_t *callback, const char *name)
{
	struct vp_queue *q = &vp->queues[index];
	unsigned int num;

	iowrite16(index, &vp->common->queue_select);
	num = ioread16(&vp->common->queue_size);
	if (!num || ioread16(&vp->common->queue_enable)) {
		dev_err(&vp->vdev.dev, "queue %u is not available\n", index);
		return -ENOENT;
	}
	if (queue_size_max && num > queue_size_max)
		num = queue_size_max;
	snprintf(q->name, sizeof(q->name), "%s-%s", dev_name(&vp->vdev.dev), name);
	q->vq = virtio4_ring_new(&vp->vdev, &vp->pdev->dev, index, num,
				 vp_notify, q, callback, q->name);
	if (IS_ERR(q->vq)) {
		int err = PTR_ERR(q->vq);

		q->vq = NULL;
		return err;
	}
	return vp_activate_queue(vp, index);
}

/*
 * debugfs virtio4/<device>/break: writing 1 breaks every queue, as if the
 * device had lied, so that tests can watch the driver fail its I/O and
 * remain removable. The callbacks run with interrupts off, as from the
 * device's interrupt.
 */
static ssize_t vp_break_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *ppos)
{
	struct vp_device *vp = file->private_data;
	unsigned int i;
	bool yes;
	int err;

	err = kstrtobool_from_user(buf, len, &yes);
	if (err)
		return err;
	if (!yes)
		return -EINVAL;
	local_irq_disable();
	for (i = 0; i < vp->nvqs; i++)
		virtio4_ring_break(vp->queues[i].vq, "broken on request (debugfs)");
	local_irq_enable();
	return len;
}

static const struct file_operations vp_break_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = vp_break_write,
	.llseek = no_llseek,
};

/*
 * The queues with interrupts of the @best mode the device allows, or a
 * lesser one: -EBUSY when the device refused an MSI-X vector (then nothing
 * is left set up, and a lesser mode may do).
 */
static int vp_find_vqs_mode(struct vp_device *vp, unsigned int nvqs,
			    struct virtio4_queue *vqs[],
			    virtio4_callback_t *callbacks[],
			    const char * const names[],
			    struct irq_affinity *spread, enum vp_irq_mode best)
{
	struct virtio4_device *vdev = &vp->vdev;
	unsigned int i, with_callback = 0;
	int err;

	vp->queues = kcalloc(nvqs, sizeof(*vp->queues), GFP_KERNEL);
	if (!vp->queues)
		return -ENOMEM;
	vp->nvqs = nvqs;
	vp->storm.count = 0;
	for (i = 0; i < nvqs; i++)
		with_callback += !!callbacks[i];
	err = vp_alloc_vectors(vp, with_callback, spread, best);
	if (err)
		goto err_queues;
	vp_assign_vectors(vp, callbacks);
	if (vp->mode != VP_IRQ_INTX) {
		iowrite16(0, &vp->common->msix_config);
		if (ioread16(&vp->common->msix_config) != 0) {
			dev_err(&vdev->dev, "device refused the config MSI-X vector\n");
			err = -EBUSY;
			goto err_vectors;
		}
	}
	for (i = 0; i < nvqs; i++) {
		err = vp_new_queue(vp, i, callbacks[i], names[i]);
		if (err)
			goto err_vectors;
	}
	err = vp_request_irqs(vp);
	if (err)
		goto err_vectors;
	/* Every vector taken: only now may the device use the queues. */
	for (i = 0; i < nvqs; i++) {
		iowrite16(i, &vp->common->queue_select);
		iowrite16(1, &vp->common->queue_enable);
		vqs[i] = vp->queues[i].vq;
	}
	if (vdev->debugfs)
		vp->break_file = debugfs_create_file("break", 0200, vdev->debugfs, vp,
						     &vp_break_fops);
	return 0;

err_vectors:
	/*
	 * No queue is enabled yet, so the device uses none of them: a refused
	 * vector needs no reset (which would undo the feature negotiation the
	 * retry with a lesser mode relies on). Other errors fail the probe.
	 */
	if (err != -EBUSY)
		vp_reset(vdev);
	pci_free_irq_vectors(vp->pdev);
	vp->nvectors = 0;
err_queues:
	vp_del_queues(vp);
	return err;
}

static int vp_find_vqs(struct virtio4_device *vdev, unsigned int nvqs,
		       struct virtio4_queue *vqs[],
		       virtio4_callback_t *callbacks[],
		       const char * const names[],
		       struct irq_affinity *spread)
{
	struct vp_device *vp = to_vp(vdev);
	unsigned int avail = ioread16(&vp->common->num_queues);
	enum vp_irq_mode best = irq_mode;
	int err;

	if (nvqs > avail) {
		dev_err(&vdev->dev, "driver wants %u queues, device has %u\n",
			nvqs, avail);
		return -ENOENT;
	}
	/* A refused vector: fall back to a shared vector, then to INTx. */
	for (;;) {
		err = vp_find_vqs_mode(vp, nvqs, vqs, callbacks, names, spread, best);
		if (err != -EBUSY || vp->mode == VP_IRQ_INTX)
			return err;
		best = vp->mode + 1;
		dev_warn(&vdev->dev, "falling back to %s\n",
			 best == VP_IRQ_SHARED ? "one shared MSI-X vector" : "INTx");
	}
}

static const struct cpumask *vp_get_vq_affinity(struct virtio4_device *vdev,
						unsigned int index)
{
	struct vp_device *vp = to_vp(vdev);

	if (vp->mode != VP_IRQ_PER_QUEUE || index >= vp->nvqs ||
	    vp->queues[index].vector == VIRTIO_MSI_NO_VECTOR)
		return NULL;
	return pci_irq_get_affinity(vp->pdev, vp->queues[index].vector);
}

/*
 * Queue @index's interrupt goes to the CPUs of @mask (NULL: wherever), as a
 * hint the user may override; only where each queue has a vector of its own
 * whose affinity is not managed.
 */
static int vp_set_vq_affinity(struct virtio4_device *vdev, unsigned int index,
			      const struct cpumask *mask)
{
	struct vp_device *vp = to_vp(vdev);
	struct vp_queue *q;
	int err;

	if (vp->mode != VP_IRQ_PER_QUEUE || vp->managed || index >= vp->nvqs ||
	    vp->queues[index].vector == VIRTIO_MSI_NO_VECTOR)
		return 0;
	q = &vp->queues[index];
	if (!mask) {
		if (!q->hint)
			return 0;
		err = irq_set_affinity_and_hint(pci_irq_vector(vp->pdev, q->vector), NULL);
		kfree(q->hint);		/* /proc/irq no longer shows it */
		q->hint = NULL;
		return err;
	}
	if (!q->hint) {
		q->hint = kzalloc(cpumask_size(), GFP_KERNEL);
		if (!q->hint)
			return -ENOMEM;
	}
	cpumask_copy(q->hint, mask);
	return irq_set_affinity_and_hint(pci_irq_vector(vp->pdev, q->vector), q->hint);
}

static const struct virtio4_config_ops vp_config_ops = {
	.get			= vp_get,
	.set			= vp_set,
	.generation		= vp_generation,
	.get_status		= vp_get_status,
	.set_status		= vp_set_status,
	.reset			= vp_reset,
	.get_features		= vp_get_features,
	.finalize_features	= vp_finalize_features,
	.find_vqs		= vp_find_vqs,
	.del_vqs		= vp_del_vqs,
	.get_vq_affinity	= vp_get_vq_affinity,
	.set_vq_affinity	= vp_set_vq_affinity,
};

/* Map the virtio capability of @type; returns its mapping or NULL. */
static void __iomem *vp_map_cap(struct vp_device *vp, u8 type, size_t min_len,
				size_t *len, int *cap_pos)
{
	struct pci_dev *pdev = vp->pdev;
	u32 offset, length;
	u8 cfg_type, bar;
	int pos;

	for (pos = pci_find_capability(pdev, PCI_CAP_ID_VNDR); pos > 0;
	     pos = pci_find_next_capability(pdev, pos, PCI_CAP_ID_VNDR)) {
		pci_read_config_byte(pdev, pos + VIRTIO_PCI_CAP_CFG_TYPE, &cfg_type);
		pci_read_config_byte(pdev, pos + VIRTIO_PCI_CAP_BAR, &bar);
		if (cfg_type != type || bar > PCI_STD_NUM_BARS - 1)
			continue;
		pci_read_config_dword(pdev, pos + VIRTIO_PCI_CAP_OFFSET, &offset);
		pci_read_config_dword(pdev, pos + VIRTIO_PCI_CAP_LENGTH, &length);
		/* An unusable one may be followed by a good one of its type. */
		if (length < min_len || (u64)offset + length > pci_resource_len(pdev, bar)) {
			dev_warn(&pdev->dev, "virtio capability %u: %u+%u outside BAR %u, skipped\n",
				 type, offset, length, bar);
			continue;
		}
		vp->bars |= BIT(bar);
		if (len)
			*len = length;
		if (cap_pos)
			*cap_pos = pos;
		return pci_iomap_range(pdev, bar, offset, length);
	}
	return NULL;
}

static void vp_unmap(struct vp_device *vp)
{
	if (vp->common)
		pci_iounmap(vp->pdev, vp->common);
	if (vp->isr)
		pci_iounmap(vp->pdev, vp->isr);
	if (vp->notify_base)
		pci_iounmap(vp->pdev, vp->notify_base);
	if (vp->device)
		pci_iounmap(vp->pdev, vp->device);
}

static int vp_map(struct vp_device *vp)
{
	int notify_pos = 0;

	vp->common = vp_map_cap(vp, VIRTIO_PCI_CAP_COMMON_CFG,
				sizeof(struct virtio_pci_common_cfg), NULL, NULL);
	vp->isr = vp_map_cap(vp, VIRTIO_PCI_CAP_ISR_CFG, 1, NULL, NULL);
	vp->notify_base = vp_map_cap(vp, VIRTIO_PCI_CAP_NOTIFY_CFG, 2,
				     &vp->notify_len, &notify_pos);
	vp->device = vp_map_cap(vp, VIRTIO_PCI_CAP_DEVICE_CFG, 0,
				&vp->device_len, NULL);
	if (!vp->common || !vp->isr || !vp->notify_base) {
		dev_err(&vp->pdev->dev, "no modern virtio capabilities (legacy-only device?)\n");
		vp_unmap(vp);
		return -ENODEV;
	}
	pci_read_config_dword(vp->pdev, notify_pos + VIRTIO_PCI_NOTIFY_CAP_MULT,
			      &vp->notify_mult);
	return 0;
}

static void vp_release(struct device *dev)
{
	kfree(to_vp(to_virtio4_device(dev)));
}

static int vp_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct vp_device *vp;
	int err;

	vp = kzalloc(sizeof(*vp), GFP_KERNEL);
	if (!vp)
		return -ENOMEM;
	vp->pdev = pdev;
	err = pci_enable_device(pdev);
	if (err)
		goto err_free;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (err)
		goto err_disable;
	err = vp_map(vp);
	if (err)
		goto err_disable;
	err = pci_request_selected_regions(pdev, vp->bars, KBUILD_MODNAME);
	if (err)
		goto err_unmap;
	pci_set_master(pdev);

	vp->vdev.id.device = pdev->device >= 0x1040 ? pdev->device - 0x1040 :
						      pdev->subsystem_device;
	vp->vdev.id.vendor = pdev->subsystem_vendor;
	vp->vdev.config = &vp_config_ops;
	vp->vdev.dev.parent = &pdev->dev;
	vp->vdev.dev.release = vp_release;
	pci_set_drvdata(pdev, vp);
	err = virtio4_register_device(&vp->vdev);
	if (err)
		goto err_put;
	return 0;

err_put:
	pci_release_selected_regions(pdev, vp->bars);
	vp_unmap(vp);
	pci_disable_device(pdev);
	put_device(&vp->vdev.dev);
	return err;
err_unmap:
	vp_unmap(vp);
err_disable:
	pci_disable_device(pdev);
err_free:
	kfree(vp);
	return err;
}

static void vp_remove(struct pci_dev *pdev)
{
	struct vp_device *vp = pci_get_drvdata(pdev);

	get_device(&vp->vdev.dev);
	virtio4_unregister_device(&vp->vdev);
	pci_release_selected_regions(pdev, vp->bars);
	vp_unmap(vp);
	pci_disable_device(pdev);
	put_device(&vp->vdev.dev);
}

static const struct pci_device_id vp_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, PCI_ANY_ID) },
	{ }
};

/*
 * No MODULE_DEVICE_TABLE: Linux's virtio_pci claims the same devices, so
 * this module is never autoloaded for them; load it, or steer a device to
 * it with driver_override, where it is wanted.
 */

static int vp_probe_filter(struct pci_dev *pdev, const struct pci_device_id *id)
{
	/* 0x1000..0x103f are transitional devices, 0x1040..0x107f modern ones. */
	if (pdev->device < 0x1000 || pdev->device > 0x107f)
		return -ENODEV;
	return vp_probe(pdev, id);
}

static struct pci_driver vp_driver = {
	.name		= "virtio4-pci",
	.id_table	= vp_ids,
	.probe		= vp_probe_filter,
	.remove		= vp_remove,
};

static int __init vp_init(void)
{
	if (irq_mode > VP_IRQ_INTX) {
		pr_err("irq_mode=%u is not 0, 1 or 2\n", irq_mode);
		return -EINVAL;
	}
	if (queue_size_max && (!is_power_of_2(queue_size_max) || queue_size_max > 32768)) {
		pr_err("queue_size_max=%u is not a power of two up to 32768\n", queue_size_max);
		return -EINVAL;
	}
	return pci_register_driver(&vp_driver);
}

static void __exit vp_exit(void)
{
	pci_unregister_driver(&vp_driver);
}

module_init(vp_init);
module_exit(vp_exit);

MODULE_DESCRIPTION("virtio draft IV: the PCI transport (virtio 1.x modern devices)");
MODULE_LICENSE("GPL");
