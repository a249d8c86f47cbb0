/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtio4 bus: transports register devices, drivers register
 * themselves, and the bus binds them by virtio device id. Transports and
 * drivers know nothing of each other and load in any order.
 */
#ifndef _VIRTIO4_BUS_H
#define _VIRTIO4_BUS_H

#include <linux/device.h>
#include <linux/mod_devicetable.h>
#include <linux/workqueue.h>
#include <virtio4/virtio.h>

/* Reads of a configuration field before a changing generation is given up. */
#define VIRTIO4_CONFIG_TRIES 64

struct cpumask;
struct irq_affinity;

struct virtio4_device;

/* Matches any vendor in struct virtio4_device_id. */
#define VIRTIO4_ANY_VENDOR 0xffffffff

/**
 * struct virtio4_device_id - a device a driver binds to
 * @device: the virtio device id (VIRTIO_ID_BLOCK, VIRTIO_ID_NET, ...).
 * @vendor: the vendor id, or VIRTIO4_ANY_VENDOR.
 */
struct virtio4_device_id {
	u32 device;
	u32 vendor;
};

/**
 * typedef virtio4_callback_t - a queue's callback; see &struct virtio4_queue
 * @vq: the queue whose buffers were used.
 *
 * Return: false to disable further callbacks until restart().
 */
typedef bool virtio4_callback_t(struct virtio4_queue *vq);

/**
 * struct virtio4_config_ops - what a transport does for its devices
 * @get: read @len bytes of device configuration at @offset into @buf.
 * @set: write @len bytes from @buf to device configuration at @offset.
 * @generation: the configuration generation; it changes when the device
 *	changed its configuration during a read.
 * @get_status: read the device status byte.
 * @set_status: write the device status byte (never 0: use @reset).
 * @reset: reset the device; when it returns, the device uses no buffer and
 *	raises no interrupt.
 * @get_features: the feature bits the device offers.
 * @finalize_features: write the accepted features (vdev->features) to the
 *	device; may drop transport bits it cannot honour. Returns 0 or -errno.
 * @find_vqs: create @nvqs queues, calling @callbacks[i] when queue i has used
 *	buffers. Stores them in @vqs. Returns 0 or -errno (nothing created).
 *	A NULL callback makes a queue the driver polls: it takes no interrupt
 *	(and needs no interrupt vector of its own); such queues come after
 *	those with callbacks (@spread's pre_vectors counts from the first).
 *	@spread, when not NULL, asks for the queues' interrupts to be spread
 *	over the CPUs (managed affinity; the first @spread->pre_vectors
 *	queues are left out); a transport without per-queue interrupts
 *	ignores it.
 * @del_vqs: delete every queue find_vqs() created; the device is reset.
 * @get_vq_affinity: optional; the CPUs queue @index's interrupt is bound to,
 *	or NULL when the transport does not know (then any mapping will do).
 * @set_vq_affinity: optional; send queue @index's interrupt to the CPUs of
 *	@mask (NULL: no preference), as a hint the user may override
 *	(/proc/irq). Does nothing where queues share an interrupt or their
 *	affinity is managed (@spread). Returns 0 or -errno.
 *
 * Every operation may sleep except @get, @set and @generation.
 */
struct virtio4_config_ops {
	void (*get)(struct virtio4_device *vdev, unsigned int offset,
		    void *buf, unsigned int len);
	void (*set)(struct virtio4_device *vdev, unsigned int offset,
		    const void *buf, unsigned int len);
	u32 (*generation)(struct virtio4_device *vdev);
	u8 (*get_status)(struct virtio4_device *vdev);
	void (*set_status)(struct virtio4_device *vdev, u8 status);
	void (*reset)(struct virtio4_device *vdev);
	u64 (*get_features)(struct virtio4_device *vdev);
	int (*finalize_features)(struct virtio4_device *vdev);
	int (*find_vqs)(struct virtio4_device *vdev, unsigned int nvqs,
			struct virtio4_queue *vqs[],
			virtio4_callback_t *callbacks[],
			const char * const names[],
			struct irq_affinity *spread);
	void (*del_vqs)(struct virtio4_device *vdev);
	const struct cpumask *(*get_vq_affinity)(struct virtio4_device *vdev,
						 unsigned int index);
	int (*set_vq_affinity)(struct virtio4_device *vdev, unsigned int index,
			       const struct cpumask *mask);
};

/**
 * struct virtio4_device - a device on the virtio4 bus
 * @dev: the driver-model device; its parent is the transport's device.
 * @id: which device this is (device and vendor id).
 * @config: the transport's operations.
 * @features: the negotiated feature bits, valid from the driver's probe on.
 * @index: a unique number, naming the device "virtio4.<index>".
 * @config_work: runs the driver's config_changed() in process context.
 * @config_lock: protects @config_enabled and @config_pending.
 * @config_enabled: the driver is bound and wants config_changed() calls.
 * @config_pending: a change arrived while they were disabled.
 * @ready: DRIVER_OK was set (virtio4_device_ready()): the driver has set up
 *	what its callbacks read, so transports deliver interrupts from now on.
 *	Cleared when a driver starts probing and after it is removed.
 * @debugfs: the device's directory in debugfs (virtio4/virtio4.<index>),
 *	where its queues show their state; NULL when not on the bus.
 * @priv: for the driver's use.
 * @legacy: set by the transport before it registers the device: the device
 *	speaks legacy virtio (0.9.5, e.g. a version 1 virtio-mmio device): it
 *	offers no VIRTIO_F_VERSION_1 and knows no FEATURES_OK, and keeps its
 *	configuration and rings in the guest's byte order, which a transport
 *	accepts only on a little-endian guest (the byte order virtio 1.x
 *	fixes, so that drivers read both alike).
 */
struct virtio4_device {
	struct device dev;
	struct virtio4_device_id id;
	const struct virtio4_config_ops *config;
	u64 features;
	int index;
	struct work_struct config_work;
	spinlock_t config_lock;	/* protects config_enabled, config_pending */
	bool config_enabled;
	bool config_pending;
	bool ready;
	struct dentry *debugfs;
	void *priv;
	bool legacy;
};

/**
 * struct virtio4_driver - a driver on the virtio4 bus
 * @driver: the driver-model driver.
 * @id_table: the devices it binds, ending with an entry whose device is 0.
 * @feature_table: the device feature bits it understands.
 * @feature_table_size: the number of entries in @feature_table.
 * @validate: optional: called once the features are chosen (vdev->features)
 *	and before the device accepts them; may clear bits that depend on each
 *	other. Returns 0 or -errno.
 * @probe: set up a device whose features are negotiated; its queues are
 *	created here. Returns 0 or -errno.
 * @remove: tear down a device; called with the device still working, the
 *	driver must reset it (or call del_vqs) before freeing buffers.
 * @config_changed: the device changed its configuration (process context).
 */
struct virtio4_driver {
	struct device_driver driver;
	const struct virtio4_device_id *id_table;
	const unsigned int *feature_table;
	unsigned int feature_table_size;
	int (*validate)(struct virtio4_device *vdev);
	int (*probe)(struct virtio4_device *vdev);
	void (*remove)(struct virtio4_device *vdev);
	void (*config_changed)(struct virtio4_device *vdev);
};

extern struct bus_type virtio4_bus;

static inline struct virtio4_device *to_virtio4_device(struct device *dev)
{
	return container_of(dev, struct virtio4_device, dev);
}

static inline struct virtio4_driver *to_virtio4_driver(struct device_driver *drv)
{
	return container_of(drv, struct virtio4_driver, driver);
}

/**
 * virtio4_has_feature - is a feature bit negotiated?
 * @vdev: the device.
 * @bit: the feature bit number.
 *
 * Return: true if @bit was offered by the device and accepted.
 */
static inline bool virtio4_has_feature(const struct virtio4_device *vdev,
				       unsigned int bit)
{
	return bit < 64 && (vdev->features & BIT_ULL(bit));
}

/**
 * virtio4_is_ready - may the device's interrupts reach its driver?
 * @vdev: the device.
 *
 * A transport (or queue implementation) drops a queue interrupt that comes
 * before DRIVER_OK: the driver may not have set up what its callback reads.
 * Pairs with the release in virtio4_device_ready().
 *
 * Context: any context.
 * Return: true once the driver called virtio4_device_ready().
 */
static inline bool virtio4_is_ready(struct virtio4_device *vdev)
{
	/* Pairs with the release in virtio4_device_ready(). */
	return smp_load_acquire(&vdev->ready);
}

int virtio4_register_device(struct virtio4_device *vdev);
void virtio4_unregister_device(struct virtio4_device *vdev);
int virtio4_register_driver(struct virtio4_driver *drv);
void virtio4_unregister_driver(struct virtio4_driver *drv);
void virtio4_config_changed(struct virtio4_device *vdev);
void virtio4_device_ready(struct virtio4_device *vdev);
void virtio4_config_read(struct virtio4_device *vdev, unsigned int offset,
			 void *buf, unsigned int len);

u8 virtio4_cread8(struct virtio4_device *vdev, unsigned int offset);
u16 virtio4_cread16(struct virtio4_device *vdev, unsigned int offset);
u32 virtio4_cread32(struct virtio4_device *vdev, unsigned int offset);
u64 virtio4_cread64(struct virtio4_device *vdev, unsigned int offset);
void virtio4_iomem_read(void __iomem *p, void *buf, unsigned int len);
void virtio4_iomem_write(void __iomem *p, const void *buf, unsigned int len);

/**
 * module_virtio4_driver - register a virtio4 driver for the module's life
 * @drv: the &struct virtio4_driver.
 */
#define module_virtio4_driver(drv) \
	module_driver(drv, virtio4_register_driver, virtio4_unregister_driver)

#endif /* _VIRTIO4_BUS_H */
