// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats_sysfs.c - /sys/class/misc/gpu_aes/stats/: one read-only file per
 * counter of stats.h, named by gpu_aes_stat_names[].
 */
#include <linux/device.h>
#include <linux/kernel.h>

#include "stats.h"

struct gpu_aes_stat_attr {
	struct device_attribute attr;
	enum gpu_aes_stat idx;
};

static struct gpu_aes_stat_attr gpu_aes_stat_attrs[GPU_AES_NR_STATS];
static struct attribute *gpu_aes_stat_attr_ptrs[GPU_AES_NR_STATS + 1];

static ssize_t gpu_aes_stat_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct gpu_aes_stat_attr *sa =
		container_of(attr, struct gpu_aes_stat_attr, attr);

	return sysfs_emit(buf, "%lld\n", gpu_aes_stat_read(sa->idx));
}

/*
 * Before the device registers: the group is read then.  A counter without
 * a name (an algorithm the module does not serve) gets no file.
 */
void gpu_aes_stats_sysfs_init(void)
{
	struct gpu_aes_stat_attr *sa;
	int i, n = 0;

	gpu_aes_stats_init();
	for (i = 0; i < GPU_AES_NR_STATS; i++) {
		if (!gpu_aes_stat_names[i])
			continue;
		sa = &gpu_aes_stat_attrs[n];
		sysfs_attr_init(&sa->attr.attr);
		sa->attr.attr.name = gpu_aes_stat_names[i];
		sa->attr.attr.mode = 0444;
		sa->attr.show = gpu_aes_stat_show;
		sa->idx = i;
		gpu_aes_stat_attr_ptrs[n++] = &sa->attr.attr;
	}
	gpu_aes_stat_attr_ptrs[n] = NULL;
}

const struct attribute_group gpu_aes_stats_group = {
	.name = "stats",
	.attrs = gpu_aes_stat_attr_ptrs,
};
