// SPDX-License-Identifier: GPL-2.0-only
/*
 * dispatch_sysfs.c - /sys/class/misc/gpu_aes/dispatch/: the policy's
 * estimates (dispatch.h), beside the policy itself; kernel only (kring
 * shows the estimates itself).
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>

#include "dispatch.h"

static ssize_t estimates_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return gpu_aes_dispatch_show(buf);
}

static DEVICE_ATTR_RO(estimates);

static struct attribute *gpu_aes_dispatch_attrs[] = {
	&dev_attr_estimates.attr,
	NULL
};

const struct attribute_group gpu_aes_dispatch_group = {
	.name = "dispatch",
	.attrs = gpu_aes_dispatch_attrs,
};
