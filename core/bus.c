// SPDX-License-Identifier: GPL-2.0
/*
 * The virtio4 bus. Transports add devices to it and drivers bind to them;
 * the bus itself knows neither.
 */
#include <linux/module.h>
#include <virtio4/bus.h>

/* The bus every virtio4 device and driver lives on. */
struct bus_type virtio4_bus = {
	.name = "virtio4",
};
EXPORT_SYMBOL_GPL(virtio4_bus);

static int __init virtio4_init(void)
{
	int err;

	err = bus_register(&virtio4_bus);
	if (err)
		pr_err("cannot register the bus: %d\n", err);
	return err;
}

static void __exit virtio4_exit(void)
{
	bus_unregister(&virtio4_bus);
}

module_init(virtio4_init);
module_exit(virtio4_exit);
MODULE_DESCRIPTION("virtio draft IV: the bus");
MODULE_LICENSE("GPL");
