// SPDX-License-Identifier: GPL-2.0
/*
 * The virtio4 bus. Transports add devices to it and drivers bind to them;
 * the bus itself knows neither. It owns the virtio 1.x start-up sequence:
 * reset, ACKNOWLEDGE, DRIVER, feature negotiation, FEATURES_OK, the
 * driver's probe, then DRIVER_OK.
 */
#include <linux/debugfs.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/module.h>
#include <uapi/linux/virtio_config.h>
#include <uapi/linux/virtio_ring.h>
#include <virtio4/bus.h>

static bool event_idx = true;
module_param(event_idx, bool, 0444);
MODULE_PARM_DESC(event_idx, "Accept VIRTIO_RING_F_EVENT_IDX when offered (default: true)");

static bool indirect = true;
module_param(indirect, bool, 0444);
MODULE_PARM_DESC(indirect, "Accept VIRTIO_RING_F_INDIRECT_DESC when offered (default: true)");

static bool packed = true;
module_param(packed, bool, 0444);
MODULE_PARM_DESC(packed, "Accept VIRTIO_F_RING_PACKED (the packed ring layout) when offered (default: true)");

static DEFINE_IDA(virtio4_index_ida);
static struct dentry *virtio4_debugfs_root;

static void virtio4_add_status(struct virtio4_device *vdev, u8 status)
{
	vdev->config->set_status(vdev, vdev->config->get_status(vdev) | status);
}

/**
 * virtio4_config_read - read device configuration consistently
 * @vdev: the device.
 * @offset: where in the configuration space.
 * @buf: where to store what was read.
 * @len: how many bytes.
 *
 * Reads again while the configuration generation changes under the read,
 * so a multi-byte field is never torn. A device whose generation never
 * settles gets %VIRTIO4_CONFIG_TRIES reads, then the last one is used and
 * the device is logged (rate-limited): it cannot hang the caller.
 *
 * Context: any context.
 */
void virtio4_config_read(struct virtio4_device *vdev, unsigned int offset,
			 void *buf, unsigned int len)
{
	unsigned int tries = 0;
	u32 gen;

	do {
		if (++tries > VIRTIO4_CONFIG_TRIES) {
			dev_err_ratelimited(&vdev->dev,
					    "configuration generation never settles; %u bytes at %u may be torn\n",
					    len, offset);
			return;
		}
		gen = vdev->config->generation(vdev);
		vdev->config->get(vdev, offset, buf, len);
	} while (gen != vdev->config->generation(vdev));
}
EXPORT_SYMBOL_GPL(virtio4_config_read);

/**
 * virtio4_cread8 - read an 8-bit field of the device configuration
 * @vdev: the device.
 * @offset: the field's offset, e.g. offsetof(struct virtio_blk_config, wce).
 *
 * Context: any context.
 * Return: the field's value.
 */
u8 virtio4_cread8(struct virtio4_device *vdev, unsigned int offset)
{
	u8 v;

	virtio4_config_read(vdev, offset, &v, sizeof(v));
	return v;
}
EXPORT_SYMBOL_GPL(virtio4_cread8);

/**
 * virtio4_cread16 - read a little-endian 16-bit configuration field
 * @vdev: the device.
 * @offset: the field's offset.
 *
 * Context: any context.
 * Return: the field's value in CPU byte order.
 */
u16 virtio4_cread16(struct virtio4_device *vdev, unsigned int offset)
{
	__le16 v;

	virtio4_config_read(vdev, offset, &v, sizeof(v));
	return le16_to_cpu(v);
}
EXPORT_SYMBOL_GPL(virtio4_cread16);

/**
 * virtio4_cread32 - read a little-endian 32-bit configuration field
 * @vdev: the device.
 * @offset: the field's offset.
 *
 * Context: any context.
 * Return: the field's value in CPU byte order.
 */
u32 virtio4_cread32(struct virtio4_device *vdev, unsigned int offset)
{
	__le32 v;

	virtio4_config_read(vdev, offset, &v, sizeof(v));
	return le32_to_cpu(v);
}
EXPORT_SYMBOL_GPL(virtio4_cread32);

/**
 * virtio4_cread64 - read a little-endian 64-bit configuration field
 * @vdev: the device.
 * @offset: the field's offset.
 *
 * Context: any context.
 * Return: the field's value in CPU byte order, never torn.
 */
u64 virtio4_cread64(struct virtio4_device *vdev, unsigned int offset)
{
	__le64 v;

	virtio4_config_read(vdev, offset, &v, sizeof(v));
	return le64_to_cpu(v);
}
EXPORT_SYMBOL_GPL(virtio4_cread64);

/**
 * virtio4_iomem_read - read a memory-mapped device configuration field
 * @p: the field, in a mapping of the device's configuration space.
 * @buf: where to store it, little-endian as the device keeps it.
 * @len: its size.
 *
 * For transports whose configuration space is memory-mapped (PCI,
 * virtio-mmio version 2): accesses as wide as the field, as virtio 1.x
 * asks (2 and 4 bytes; 8 as two 4-byte halves, low first), any other
 * length byte by byte. The caller checks @p and @len lie in the mapping.
 *
 * Context: any context.
 */
void virtio4_iomem_read(void __iomem *p, void *buf, unsigned int len)
{
	__le32 l[2];
	__le16 w;
	unsigned int i;

	switch (len) {
	case 2:
		w = cpu_to_le16(ioread16(p));
		memcpy(buf, &w, 2);
		return;
	case 4:
		l[0] = cpu_to_le32(ioread32(p));
		memcpy(buf, l, 4);
		return;
	case 8:
		l[0] = cpu_to_le32(ioread32(p));
		l[1] = cpu_to_le32(ioread32(p + 4));
		memcpy(buf, l, 8);
		return;
	}
	for (i = 0; i < len; i++)
		((u8 *)buf)[i] = ioread8(p + i);
}
EXPORT_SYMBOL_GPL(virtio4_iomem_read);

/**
 * virtio4_iomem_write - write a memory-mapped device configuration field
 * @p: the field, in a mapping of the device's configuration space.
 * @buf: the value, little-endian as the device keeps it.
 * @len: its size.
 *
 * As virtio4_iomem_read(), the other way.
 *
 * Context: any context.
 */
void virtio4_iomem_write(void __iomem *p, const void *buf, unsigned int len)
{
	__le32 l;
	__le16 w;
	unsigned int i;

	switch (len) {
	case 2:
		memcpy(&w, buf, 2);
		iowrite16(le16_to_cpu(w), p);
		return;
	case 4:
		memcpy(&l, buf, 4);
		iowrite32(le32_to_cpu(l), p);
		return;
	case 8:
		memcpy(&l, buf, 4);
		iowrite32(le32_to_cpu(l), p);
		memcpy(&l, buf + 4, 4);
		iowrite32(le32_to_cpu(l), p + 4);
		return;
	}
	for (i = 0; i < len; i++)
		iowrite8(((const u8 *)buf)[i], p + i);
}
EXPORT_SYMBOL_GPL(virtio4_iomem_write);

/**
 * virtio4_device_ready - tell the device the driver is ready (DRIVER_OK)
 * @vdev: the device.
 *
 * A driver that must receive before its probe returns (a network driver
 * filling its receive queue) calls this first; otherwise the bus does it
 * after probe.
 *
 * Context: process context.
 */
void virtio4_device_ready(struct virtio4_device *vdev)
{
	u8 status = vdev->config->get_status(vdev);

	/* What the driver set up before this is seen by its callbacks. */
	smp_store_release(&vdev->ready, true);
	if (!(status & VIRTIO_CONFIG_S_DRIVER_OK))
		vdev->config->set_status(vdev, status | VIRTIO_CONFIG_S_DRIVER_OK);
}
EXPORT_SYMBOL_GPL(virtio4_device_ready);

/*
 * No device_lock here: remove runs under it and cancels this work, so
 * waiting for it would deadlock the two. None is needed either: the work is
 * queued only while config_enabled, which is set after the driver's probe
 * and cleared (cancelling the work) before its remove, so the driver stays
 * bound while it runs.
 */
static void virtio4_config_work(struct work_struct *work)
{
	struct virtio4_device *vdev =
		container_of(work, struct virtio4_device, config_work);
	struct virtio4_driver *drv = to_virtio4_driver(vdev->dev.driver);

	if (drv->config_changed)
		drv->config_changed(vdev);
}

/**
 * virtio4_config_changed - a transport reports a configuration change
 * @vdev: the device whose configuration changed.
 *
 * The driver's config_changed() runs later in process context, or after
 * its probe if the change arrives before the driver is ready for it.
 *
 * Context: any context, typically the transport's interrupt handler.
 */
void virtio4_config_changed(struct virtio4_device *vdev)
{
	unsigned long flags;

	spin_lock_irqsave(&vdev->config_lock, flags);
	if (vdev->config_enabled)
		schedule_work(&vdev->config_work);
	else
		vdev->config_pending = true;
	spin_unlock_irqrestore(&vdev->config_lock, flags);
}
EXPORT_SYMBOL_GPL(virtio4_config_changed);

static void virtio4_config_enable(struct virtio4_device *vdev, bool enable)
{
	spin_lock_irq(&vdev->config_lock);
	vdev->config_enabled = enable;
	if (enable && vdev->config_pending)
		schedule_work(&vdev->config_work);
	vdev->config_pending = false;
	spin_unlock_irq(&vdev->config_lock);
	if (!enable)
		cancel_work_sync(&vdev->config_work);
}

static u64 virtio4_driver_features(const struct virtio4_driver *drv)
{
	/* ACCESS_PLATFORM: the rings then map buffers with the DMA API. */
	u64 features = BIT_ULL(VIRTIO_F_VERSION_1) | BIT_ULL(VIRTIO_F_ACCESS_PLATFORM);
	unsigned int i;

	for (i = 0; i < drv->feature_table_size; i++)
		if (drv->feature_table[i] < 64)
			features |= BIT_ULL(drv->feature_table[i]);
	if (event_idx)
		features |= BIT_ULL(VIRTIO_RING_F_EVENT_IDX);
	if (indirect)
		features |= BIT_ULL(VIRTIO_RING_F_INDIRECT_DESC);
	if (packed)
		features |= BIT_ULL(VIRTIO_F_RING_PACKED);
	return features;
}

static int virtio4_negotiate(struct virtio4_device *vdev,
			     const struct virtio4_driver *drv)
{
	u64 offered = vdev->config->get_features(vdev);
	int err;

	if (!vdev->legacy && !(offered & BIT_ULL(VIRTIO_F_VERSION_1))) {
		dev_err(&vdev->dev, "device does not offer VIRTIO_F_VERSION_1\n");
		return -ENODEV;
	}
	vdev->features = offered & virtio4_driver_features(drv);
	if (drv->validate) {
		err = drv->validate(vdev);
		if (err)
			return err;
	}
	err = vdev->config->finalize_features(vdev);
	if (err)
		return err;
	/* A legacy device takes the features as written: no FEATURES_OK. */
	if (vdev->legacy)
		return 0;
	virtio4_add_status(vdev, VIRTIO_CONFIG_S_FEATURES_OK);
	if (!(vdev->config->get_status(vdev) & VIRTIO_CONFIG_S_FEATURES_OK)) {
		dev_err(&vdev->dev, "device refused FEATURES_OK (features %#llx)\n",
			vdev->features);
		return -ENODEV;
	}
	return 0;
}

static int virtio4_probe(struct device *dev)
{
	struct virtio4_device *vdev = to_virtio4_device(dev);
	struct virtio4_driver *drv = to_virtio4_driver(dev->driver);
	int err;

	WRITE_ONCE(vdev->ready, false);
	vdev->config->reset(vdev);
	virtio4_add_status(vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE |
			   VIRTIO_CONFIG_S_DRIVER);
	err = virtio4_negotiate(vdev, drv);
	if (err)
		goto err_failed;
	err = drv->probe(vdev);
	if (err)
		goto err_failed;
	virtio4_device_ready(vdev);
	virtio4_config_enable(vdev, true);
	return 0;

err_failed:
	WRITE_ONCE(vdev->ready, false);
	virtio4_add_status(vdev, VIRTIO_CONFIG_S_FAILED);
	return err;
}

static void virtio4_remove(struct device *dev)
{
	struct virtio4_device *vdev = to_virtio4_device(dev);
	struct virtio4_driver *drv = to_virtio4_driver(dev->driver);

	virtio4_config_enable(vdev, false);
	drv->remove(vdev);
	WRITE_ONCE(vdev->ready, false);
	vdev->config->reset(vdev);
	virtio4_add_status(vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
}

static int virtio4_match(struct device *dev, struct device_driver *drv)
{
	const struct virtio4_device_id *id = to_virtio4_driver(drv)->id_table;
	struct virtio4_device *vdev = to_virtio4_device(dev);

	for (; id && id->device; id++)
		if (id->device == vdev->id.device &&
		    (id->vendor == VIRTIO4_ANY_VENDOR || id->vendor == vdev->id.vendor))
			return 1;
	return 0;
}

static int virtio4_uevent(struct device *dev, struct kobj_uevent_env *env)
{
	struct virtio4_device *vdev = to_virtio4_device(dev);

	return add_uevent_var(env, "MODALIAS=virtio4:d%08Xv%08X",
			      vdev->id.device, vdev->id.vendor);
}

static ssize_t device_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", to_virtio4_device(dev)->id.device);
}
static DEVICE_ATTR_RO(device);

static ssize_t vendor_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", to_virtio4_device(dev)->id.vendor);
}
static DEVICE_ATTR_RO(vendor);

static ssize_t modalias_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct virtio4_device *vdev = to_virtio4_device(dev);

	return sysfs_emit(buf, "virtio4:d%08Xv%08X\n", vdev->id.device,
			  vdev->id.vendor);
}
static DEVICE_ATTR_RO(modalias);

static ssize_t features_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%#llx\n", to_virtio4_device(dev)->features);
}
static DEVICE_ATTR_RO(features);

static ssize_t status_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct virtio4_device *vdev = to_virtio4_device(dev);

	return sysfs_emit(buf, "%#04x\n", vdev->config->get_status(vdev));
}
static DEVICE_ATTR_RO(status);

static struct attribute *virtio4_dev_attrs[] = {
	&dev_attr_device.attr,
	&dev_attr_vendor.attr,
	&dev_attr_modalias.attr,
	&dev_attr_features.attr,
	&dev_attr_status.attr,
	NULL,
};
ATTRIBUTE_GROUPS(virtio4_dev);

/* The bus every virtio4 device and driver lives on. */
struct bus_type virtio4_bus = {
	.name = "virtio4",
	.match = virtio4_match,
	.uevent = virtio4_uevent,
	.probe = virtio4_probe,
	.remove = virtio4_remove,
	.dev_groups = virtio4_dev_groups,
};
EXPORT_SYMBOL_GPL(virtio4_bus);

/**
 * virtio4_register_device - add a transport's device to the bus
 * @vdev: the device; the transport has set @vdev->id, @vdev->config,
 *	@vdev->dev.parent and @vdev->dev.release.
 *
 * The device is reset and acknowledged, then offered to the drivers. On
 * failure the caller drops its reference with put_device(&vdev->dev).
 *
 * Context: process context.
 * Return: 0 or -errno.
 */
int virtio4_register_device(struct virtio4_device *vdev)
{
	int err;

	vdev->dev.bus = &virtio4_bus;
	device_initialize(&vdev->dev);
	spin_lock_init(&vdev->config_lock);
	INIT_WORK(&vdev->config_work, virtio4_config_work);
	err = ida_alloc(&virtio4_index_ida, GFP_KERNEL);
	if (err < 0)
		return err;
	vdev->index = err;
	err = dev_set_name(&vdev->dev, "virtio4.%d", vdev->index);
	if (err)
		goto err_ida;
	vdev->config->reset(vdev);
	virtio4_add_status(vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	vdev->debugfs = debugfs_create_dir(dev_name(&vdev->dev), virtio4_debugfs_root);
	err = device_add(&vdev->dev);
	if (err)
		goto err_debugfs;
	return 0;

err_debugfs:
	debugfs_remove(vdev->debugfs);
	vdev->debugfs = NULL;

err_ida:
	ida_free(&virtio4_index_ida, vdev->index);
	return err;
}
EXPORT_SYMBOL_GPL(virtio4_register_device);

/**
 * virtio4_unregister_device - remove a device from the bus
 * @vdev: a device added by virtio4_register_device().
 *
 * Unbinds its driver and drops the bus's reference; the transport's
 * release function frees it when the last reference goes.
 *
 * Context: process context.
 */
void virtio4_unregister_device(struct virtio4_device *vdev)
{
	struct dentry *debugfs = vdev->debugfs;
	int index = vdev->index;

	/* The driver's remove deletes the queues, and their debugfs files. */
	device_unregister(&vdev->dev);
	debugfs_remove(debugfs);
	ida_free(&virtio4_index_ida, index);
}
EXPORT_SYMBOL_GPL(virtio4_unregister_device);

/**
 * virtio4_register_driver - add a driver to the bus
 * @drv: the driver, with its id table, feature table and callbacks.
 *
 * Context: process context.
 * Return: 0 or -errno.
 */
int virtio4_register_driver(struct virtio4_driver *drv)
{
	if (WARN_ON(!drv->probe || !drv->remove))
		return -EINVAL;
	drv->driver.bus = &virtio4_bus;
	return driver_register(&drv->driver);
}
EXPORT_SYMBOL_GPL(virtio4_register_driver);

/**
 * virtio4_unregister_driver - remove a driver from the bus
 * @drv: a driver added by virtio4_register_driver().
 *
 * Context: process context.
 */
void virtio4_unregister_driver(struct virtio4_driver *drv)
{
	driver_unregister(&drv->driver);
}
EXPORT_SYMBOL_GPL(virtio4_unregister_driver);

static int __init virtio4_init(void)
{
	int err;

	err = bus_register(&virtio4_bus);
	if (err) {
		pr_err("cannot register the bus: %d\n", err);
		return err;
	}
	virtio4_debugfs_root = debugfs_create_dir("virtio4", NULL);
	return 0;
}

static void __exit virtio4_exit(void)
{
	debugfs_remove(virtio4_debugfs_root);
	bus_unregister(&virtio4_bus);
	ida_destroy(&virtio4_index_ida);
}

module_init(virtio4_init);
module_exit(virtio4_exit);
MODULE_DESCRIPTION("virtio draft IV: the bus");
MODULE_LICENSE("GPL");
