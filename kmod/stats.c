// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats.c - driver counters and their sysfs files.
 *
 * Plain atomic64 counters: every event already takes the ring lock or runs
 * a whole AES request, so one shared cache line per counter costs nothing
 * measurable, and a reader gets exact values (tests compare exact deltas).
 */
#include <linux/device.h>
#include <linux/kernel.h>

#include "stats.h"

atomic64_t gpu_aes_stats[GPU_AES_NR_STATS];

void gpu_aes_stat_fallback(enum gpu_aes_fallback_reason why, u64 len)
{
	static const enum gpu_aes_stat reason[] = {
		[GPU_AES_FB_NO_HELPER] = GPU_AES_STAT_FALLBACK_NO_HELPER,
		[GPU_AES_FB_SMALL] = GPU_AES_STAT_FALLBACK_SMALL,
		[GPU_AES_FB_LARGE] = GPU_AES_STAT_FALLBACK_LARGE,
		[GPU_AES_FB_FULL] = GPU_AES_STAT_FALLBACK_FULL,
		[GPU_AES_FB_STALLED] = GPU_AES_STAT_FALLBACK_STALLED,
		[GPU_AES_FB_NO_BACKLOG] = GPU_AES_STAT_FALLBACK_NO_BACKLOG,
		[GPU_AES_FB_NO_KEY] = GPU_AES_STAT_FALLBACK_NO_KEY,
	};

	gpu_aes_stat_inc(reason[why]);
	gpu_aes_stat_inc(GPU_AES_STAT_FALLBACK_REQUESTS);
	gpu_aes_stat_add(GPU_AES_STAT_FALLBACK_BYTES, len);
}

struct gpu_aes_stat_attr {
	struct device_attribute attr;
	enum gpu_aes_stat idx;
};

static ssize_t gpu_aes_stat_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct gpu_aes_stat_attr *sa =
		container_of(attr, struct gpu_aes_stat_attr, attr);

	return sysfs_emit(buf, "%lld\n", gpu_aes_stat_read(sa->idx));
}

#define GPU_AES_STAT_ATTR(_name, _idx)					\
	static struct gpu_aes_stat_attr gpu_aes_attr_##_name = {	\
		.attr = __ATTR(_name, 0444, gpu_aes_stat_show, NULL),	\
		.idx = (_idx),						\
	}

GPU_AES_STAT_ATTR(ring_requests, GPU_AES_STAT_RING_REQUESTS);
GPU_AES_STAT_ATTR(ring_bytes, GPU_AES_STAT_RING_BYTES);
GPU_AES_STAT_ATTR(fallback_requests, GPU_AES_STAT_FALLBACK_REQUESTS);
GPU_AES_STAT_ATTR(fallback_bytes, GPU_AES_STAT_FALLBACK_BYTES);
GPU_AES_STAT_ATTR(fallback_no_helper, GPU_AES_STAT_FALLBACK_NO_HELPER);
GPU_AES_STAT_ATTR(fallback_small, GPU_AES_STAT_FALLBACK_SMALL);
GPU_AES_STAT_ATTR(fallback_large, GPU_AES_STAT_FALLBACK_LARGE);
GPU_AES_STAT_ATTR(fallback_full, GPU_AES_STAT_FALLBACK_FULL);
GPU_AES_STAT_ATTR(fallback_stalled, GPU_AES_STAT_FALLBACK_STALLED);
GPU_AES_STAT_ATTR(backlogged, GPU_AES_STAT_BACKLOGGED);
GPU_AES_STAT_ATTR(timeouts, GPU_AES_STAT_TIMEOUTS);
GPU_AES_STAT_ATTR(rejected_completions, GPU_AES_STAT_REJECTED_COMPLETIONS);
GPU_AES_STAT_ATTR(late_completions, GPU_AES_STAT_LATE_COMPLETIONS);
GPU_AES_STAT_ATTR(helper_errors, GPU_AES_STAT_HELPER_ERRORS);
GPU_AES_STAT_ATTR(helper_attaches, GPU_AES_STAT_HELPER_ATTACHES);
GPU_AES_STAT_ATTR(recomputed, GPU_AES_STAT_RECOMPUTED);
GPU_AES_STAT_ATTR(ring_ecb_requests, GPU_AES_STAT_RING_ECB_REQUESTS);
GPU_AES_STAT_ATTR(ring_ctr_requests, GPU_AES_STAT_RING_CTR_REQUESTS);
GPU_AES_STAT_ATTR(ring_xts_requests, GPU_AES_STAT_RING_XTS_REQUESTS);
GPU_AES_STAT_ATTR(ring_gcm_requests, GPU_AES_STAT_RING_GCM_REQUESTS);
GPU_AES_STAT_ATTR(auth_failures, GPU_AES_STAT_AUTH_FAILURES);
GPU_AES_STAT_ATTR(fallback_no_backlog, GPU_AES_STAT_FALLBACK_NO_BACKLOG);
GPU_AES_STAT_ATTR(fallback_no_key, GPU_AES_STAT_FALLBACK_NO_KEY);
GPU_AES_STAT_ATTR(key_reclaims, GPU_AES_STAT_KEY_RECLAIMS);

static struct attribute *gpu_aes_stat_attrs[] = {
	&gpu_aes_attr_ring_requests.attr.attr,
	&gpu_aes_attr_ring_bytes.attr.attr,
	&gpu_aes_attr_fallback_requests.attr.attr,
	&gpu_aes_attr_fallback_bytes.attr.attr,
	&gpu_aes_attr_fallback_no_helper.attr.attr,
	&gpu_aes_attr_fallback_small.attr.attr,
	&gpu_aes_attr_fallback_large.attr.attr,
	&gpu_aes_attr_fallback_full.attr.attr,
	&gpu_aes_attr_fallback_stalled.attr.attr,
	&gpu_aes_attr_backlogged.attr.attr,
	&gpu_aes_attr_timeouts.attr.attr,
	&gpu_aes_attr_rejected_completions.attr.attr,
	&gpu_aes_attr_late_completions.attr.attr,
	&gpu_aes_attr_helper_errors.attr.attr,
	&gpu_aes_attr_helper_attaches.attr.attr,
	&gpu_aes_attr_recomputed.attr.attr,
	&gpu_aes_attr_ring_ecb_requests.attr.attr,
	&gpu_aes_attr_ring_ctr_requests.attr.attr,
	&gpu_aes_attr_ring_xts_requests.attr.attr,
	&gpu_aes_attr_ring_gcm_requests.attr.attr,
	&gpu_aes_attr_auth_failures.attr.attr,
	&gpu_aes_attr_fallback_no_backlog.attr.attr,
	&gpu_aes_attr_fallback_no_key.attr.attr,
	&gpu_aes_attr_key_reclaims.attr.attr,
	NULL
};

static const struct attribute_group gpu_aes_stat_group = {
	.name = "stats",
	.attrs = gpu_aes_stat_attrs,
};

const struct attribute_group *gpu_aes_stats_groups[] = {
	&gpu_aes_stat_group,
	NULL
};
