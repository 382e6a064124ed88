/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * status.h - the helper's attachment and the occupancy of the ring and of
 * each queue, exported read-only under /sys/class/misc/gpu_aes/status/
 * (one value per file: the ring, totals over its queues) and
 * /sys/class/misc/gpu_aes/queues/ (one value per queue in each file).
 */
#ifndef GPU_AES_STATUS_H
#define GPU_AES_STATUS_H

#include <linux/sysfs.h>

/* The "status" and "queues" attribute groups, for miscdevice.groups. */
extern const struct attribute_group gpu_aes_status_group;
extern const struct attribute_group gpu_aes_queues_group;

#endif /* GPU_AES_STATUS_H */
