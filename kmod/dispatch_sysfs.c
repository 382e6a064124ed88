// SPDX-License-Identifier: GPL-2.0-only
/*
 * dispatch_sysfs.c - /sys/class/misc/gpu_aes/dispatch/: the policy's
 * estimates and what each algorithm's CPU driver is (dispatch.h), beside
 * the policy itself; kernel only (kring shows the estimates itself).
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include "cost.h"
#include "dispatch.h"

static ssize_t estimates_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return gpu_aes_dispatch_show(buf);
}

static DEVICE_ATTR_RO(estimates);

static ssize_t cpu_drivers_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return gpu_aes_dispatch_cpu_drivers_show(buf);
}

static DEVICE_ATTR_RO(cpu_drivers);

static struct attribute *gpu_aes_dispatch_attrs[] = {
	&dev_attr_estimates.attr,
	&dev_attr_cpu_drivers.attr,
	NULL
};

const struct attribute_group gpu_aes_dispatch_group = {
	.name = "dispatch",
	.attrs = gpu_aes_dispatch_attrs,
};
