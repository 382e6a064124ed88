// SPDX-License-Identifier: GPL-2.0-only
/*
 * status.c - /sys/class/misc/gpu_aes/status/: whether a helper is attached
 * (its pid, since when), the ring's geometry, and its occupancy and stalls
 * added up over its queues; /sys/class/misc/gpu_aes/queues/: the same
 * occupancy and stalls per queue, one value per queue in each file (queue
 * 0 first, separated by spaces).  Read-only; each read takes one
 * gpu_aes_ring_status() snapshot, so the ring's internals stay in ring.c.
 *
 * Times are whole seconds of CLOCK_BOOTTIME (what /proc/uptime counts),
 * 0 when there is nothing to date.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/time64.h>

#include "ring.h"
#include "status.h"

enum gpu_aes_status_field {
	GPU_AES_ST_ATTACHED,
	GPU_AES_ST_HELPER_PID,
	GPU_AES_ST_ATTACHED_SINCE,
	GPU_AES_ST_QUEUES,
	GPU_AES_ST_QUEUE_ENTRIES,
	GPU_AES_ST_QUEUE_DATA_BYTES,
	GPU_AES_ST_ENTRIES,
	GPU_AES_ST_DATA_BYTES,
	GPU_AES_ST_KEYS,
	GPU_AES_ST_KEYS_USED,
	/* From here on, per queue too. */
	GPU_AES_ST_IN_FLIGHT,
	GPU_AES_ST_BACKLOG,
	GPU_AES_ST_DATA_USED,
	GPU_AES_ST_STALLED,
	GPU_AES_ST_STALLED_SINCE,
};

struct gpu_aes_status_attr {
	struct device_attribute attr;
	enum gpu_aes_status_field field;
};

static u64 gpu_aes_queue_value(const struct gpu_aes_queue_status *qs,
			       enum gpu_aes_status_field field)
{
	switch (field) {
	case GPU_AES_ST_IN_FLIGHT:
		return qs->in_flight;
	case GPU_AES_ST_BACKLOG:
		return qs->backlog;
	case GPU_AES_ST_DATA_USED:
		return qs->data_used;
	case GPU_AES_ST_STALLED:
		return qs->stalled;
	case GPU_AES_ST_STALLED_SINCE:
		return div_u64(qs->stalled_at, NSEC_PER_SEC);
	default:
		return 0;
	}
}

static u64 gpu_aes_status_value(const struct gpu_aes_ring_status *st,
				enum gpu_aes_status_field field)
{
	switch (field) {
	case GPU_AES_ST_ATTACHED:
		return st->attached;
	case GPU_AES_ST_HELPER_PID:
		return st->helper_pid;
	case GPU_AES_ST_ATTACHED_SINCE:
		return div_u64(st->attached_at, NSEC_PER_SEC);
	case GPU_AES_ST_QUEUES:
		return st->nr_queues;
	case GPU_AES_ST_QUEUE_ENTRIES:
		return st->queue_entries;
	case GPU_AES_ST_QUEUE_DATA_BYTES:
		return st->queue_data_size;
	case GPU_AES_ST_ENTRIES:
		return (u64)st->nr_queues * st->queue_entries;
	case GPU_AES_ST_DATA_BYTES:
		return st->data_size;
	case GPU_AES_ST_KEYS:
		return st->keys;
	case GPU_AES_ST_KEYS_USED:
		return st->keys_used;
	case GPU_AES_ST_STALLED:
		/* How many queues: 0 is none, as a flag would say. */
		return st->stalled_queues;
	default:
		return gpu_aes_queue_value(&st->total, field);
	}
}

static ssize_t gpu_aes_status_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct gpu_aes_status_attr *sa =
		container_of(attr, struct gpu_aes_status_attr, attr);
	struct gpu_aes_ring_status st;

	gpu_aes_ring_status(&gpu_aes_ring, &st, NULL, 0);
	return sysfs_emit(buf, "%llu\n", gpu_aes_status_value(&st, sa->field));
}

static ssize_t gpu_aes_queues_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct gpu_aes_status_attr *sa =
		container_of(attr, struct gpu_aes_status_attr, attr);
	struct gpu_aes_queue_status *qs;
	struct gpu_aes_ring_status st;
	int len = 0;
	u32 i, n;

	qs = kcalloc(GPU_AES_MAX_QUEUES, sizeof(*qs), GFP_KERNEL);
	if (!qs)
		return -ENOMEM;
	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, GPU_AES_MAX_QUEUES);
	n = min(st.nr_queues, GPU_AES_MAX_QUEUES);
	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "",
				     gpu_aes_queue_value(&qs[i], sa->field));
	len += sysfs_emit_at(buf, len, "\n");
	kfree(qs);
	return len;
}

#define GPU_AES_STATUS_ATTR(_name, _field)				\
	static struct gpu_aes_status_attr gpu_aes_status_##_name = {	\
		.attr = __ATTR(_name, 0444, gpu_aes_status_show, NULL),	\
		.field = (_field),					\
	}

#define GPU_AES_QUEUES_ATTR(_name, _field)				\
	static struct gpu_aes_status_attr gpu_aes_queues_##_name = {	\
		.attr = __ATTR(_name, 0444, gpu_aes_queues_show, NULL),	\
		.field = (_field),					\
	}

GPU_AES_STATUS_ATTR(attached, GPU_AES_ST_ATTACHED);
GPU_AES_STATUS_ATTR(helper_pid, GPU_AES_ST_HELPER_PID);
GPU_AES_STATUS_ATTR(attached_since, GPU_AES_ST_ATTACHED_SINCE);
GPU_AES_STATUS_ATTR(queues, GPU_AES_ST_QUEUES);
GPU_AES_STATUS_ATTR(queue_entries, GPU_AES_ST_QUEUE_ENTRIES);
GPU_AES_STATUS_ATTR(queue_data_bytes, GPU_AES_ST_QUEUE_DATA_BYTES);
GPU_AES_STATUS_ATTR(entries, GPU_AES_ST_ENTRIES);
GPU_AES_STATUS_ATTR(data_bytes, GPU_AES_ST_DATA_BYTES);
GPU_AES_STATUS_ATTR(keys, GPU_AES_ST_KEYS);
GPU_AES_STATUS_ATTR(keys_used, GPU_AES_ST_KEYS_USED);
GPU_AES_STATUS_ATTR(in_flight, GPU_AES_ST_IN_FLIGHT);
GPU_AES_STATUS_ATTR(backlog, GPU_AES_ST_BACKLOG);
GPU_AES_STATUS_ATTR(data_used, GPU_AES_ST_DATA_USED);
GPU_AES_STATUS_ATTR(stalled, GPU_AES_ST_STALLED);
GPU_AES_STATUS_ATTR(stalled_since, GPU_AES_ST_STALLED_SINCE);

GPU_AES_QUEUES_ATTR(in_flight, GPU_AES_ST_IN_FLIGHT);
GPU_AES_QUEUES_ATTR(backlog, GPU_AES_ST_BACKLOG);
GPU_AES_QUEUES_ATTR(data_used, GPU_AES_ST_DATA_USED);
GPU_AES_QUEUES_ATTR(stalled, GPU_AES_ST_STALLED);
GPU_AES_QUEUES_ATTR(stalled_since, GPU_AES_ST_STALLED_SINCE);

static struct attribute *gpu_aes_status_attrs[] = {
	&gpu_aes_status_attached.attr.attr,
	&gpu_aes_status_helper_pid.attr.attr,
	&gpu_aes_status_attached_since.attr.attr,
	&gpu_aes_status_queues.attr.attr,
	&gpu_aes_status_queue_entries.attr.attr,
	&gpu_aes_status_queue_data_bytes.attr.attr,
	&gpu_aes_status_entries.attr.attr,
	&gpu_aes_status_data_bytes.attr.attr,
	&gpu_aes_status_keys.attr.attr,
	&gpu_aes_status_keys_used.attr.attr,
	&gpu_aes_status_in_flight.attr.attr,
	&gpu_aes_status_backlog.attr.attr,
	&gpu_aes_status_data_used.attr.attr,
	&gpu_aes_status_stalled.attr.attr,
	&gpu_aes_status_stalled_since.attr.attr,
	NULL
};

const struct attribute_group gpu_aes_status_group = {
	.name = "status",
	.attrs = gpu_aes_status_attrs,
};

static struct attribute *gpu_aes_queues_attrs[] = {
	&gpu_aes_queues_in_flight.attr.attr,
	&gpu_aes_queues_backlog.attr.attr,
	&gpu_aes_queues_data_used.attr.attr,
	&gpu_aes_queues_stalled.attr.attr,
	&gpu_aes_queues_stalled_since.attr.attr,
	NULL
};

const struct attribute_group gpu_aes_queues_group = {
	.name = "queues",
	.attrs = gpu_aes_queues_attrs,
};
