// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats.c - driver counters: per CPU, so counting a request writes no cache
 * line another CPU counts on; summed when read.  (The sysfs files that
 * show them are stats_sysfs.c.)
 */
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/percpu.h>

#include "job.h"
#include "stats.h"

DEFINE_PER_CPU(struct gpu_aes_pcpu_stats, gpu_aes_pcpu_stats);

const char *gpu_aes_stat_names[GPU_AES_NR_STATS] = {
	[GPU_AES_STAT_RING_REQUESTS] = "ring_requests",
	[GPU_AES_STAT_RING_BYTES] = "ring_bytes",
	[GPU_AES_STAT_FALLBACK_REQUESTS] = "fallback_requests",
	[GPU_AES_STAT_FALLBACK_BYTES] = "fallback_bytes",
	[GPU_AES_STAT_FALLBACK_NO_HELPER] = "fallback_no_helper",
	[GPU_AES_STAT_FALLBACK_SMALL] = "fallback_small",
	[GPU_AES_STAT_FALLBACK_LARGE] = "fallback_large",
	[GPU_AES_STAT_FALLBACK_FULL] = "fallback_full",
	[GPU_AES_STAT_FALLBACK_STALLED] = "fallback_stalled",
	[GPU_AES_STAT_BACKLOGGED] = "backlogged",
	[GPU_AES_STAT_TIMEOUTS] = "timeouts",
	[GPU_AES_STAT_REJECTED_COMPLETIONS] = "rejected_completions",
	[GPU_AES_STAT_LATE_COMPLETIONS] = "late_completions",
	[GPU_AES_STAT_HELPER_ERRORS] = "helper_errors",
	[GPU_AES_STAT_HELPER_ATTACHES] = "helper_attaches",
	[GPU_AES_STAT_RECOMPUTED] = "recomputed",
	[GPU_AES_STAT_AUTH_FAILURES] = "auth_failures",
	[GPU_AES_STAT_FALLBACK_NO_BACKLOG] = "fallback_no_backlog",
	[GPU_AES_STAT_FALLBACK_NO_KEY] = "fallback_no_key",
	[GPU_AES_STAT_FALLBACK_UNSUPPORTED] = "fallback_unsupported",
	[GPU_AES_STAT_KEY_RECLAIMS] = "key_reclaims",
	[GPU_AES_STAT_FALLBACK_POLICY] = "fallback_policy",
	[GPU_AES_STAT_FALLBACK_POLICY_COST] = "fallback_policy_cost",
	[GPU_AES_STAT_FALLBACK_POLICY_LONE] = "fallback_policy_lone",
	[GPU_AES_STAT_FALLBACK_POLICY_FORCED] = "fallback_policy_forced",
	[GPU_AES_STAT_FALLBACK_POLICY_EXPLORE] = "fallback_policy_explore",
	[GPU_AES_STAT_FALLBACK_POLICY_LOAD] = "fallback_policy_load",
	[GPU_AES_STAT_POLICY_RING_COST] = "policy_ring_cost",
	[GPU_AES_STAT_POLICY_RING_LONE] = "policy_ring_lone",
	[GPU_AES_STAT_POLICY_RING_LOAD] = "policy_ring_load",
	[GPU_AES_STAT_POLICY_RING_FORCED] = "policy_ring_forced",
	[GPU_AES_STAT_POLICY_RING_EXPLORE] = "policy_ring_explore",
	[GPU_AES_STAT_HELPER_WAKEUPS] = "helper_wakeups",
};

static char gpu_aes_ring_alg_names[GPU_AES_NR_ALGS][32];

void gpu_aes_stats_init(void)
{
	const struct gpu_aes_alg_desc *d;
	unsigned int i;

	for (i = 0; i < GPU_AES_NR_ALGS; i++) {
		d = gpu_aes_alg_desc(i + 1);
		if (!d)
			continue;
		snprintf(gpu_aes_ring_alg_names[i],
			 sizeof(gpu_aes_ring_alg_names[i]), "ring_%s_requests",
			 d->name);
		gpu_aes_stat_names[gpu_aes_alg_ring_stat(d)] =
			gpu_aes_ring_alg_names[i];
	}
}

s64 gpu_aes_stat_read(enum gpu_aes_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(gpu_aes_pcpu_stats, cpu).v[s]);
	return sum;
}

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
		[GPU_AES_FB_UNSUPPORTED] = GPU_AES_STAT_FALLBACK_UNSUPPORTED,
		[GPU_AES_FB_POLICY_COST] = GPU_AES_STAT_FALLBACK_POLICY_COST,
		[GPU_AES_FB_POLICY_LONE] = GPU_AES_STAT_FALLBACK_POLICY_LONE,
		[GPU_AES_FB_POLICY_FORCED] = GPU_AES_STAT_FALLBACK_POLICY_FORCED,
		[GPU_AES_FB_POLICY_EXPLORE] =
			GPU_AES_STAT_FALLBACK_POLICY_EXPLORE,
		[GPU_AES_FB_POLICY_LOAD] = GPU_AES_STAT_FALLBACK_POLICY_LOAD,
	};

	if (why >= GPU_AES_FB_POLICY_COST)
		gpu_aes_stat_inc(GPU_AES_STAT_FALLBACK_POLICY);
	gpu_aes_stat_inc(reason[why]);
	gpu_aes_stat_inc(GPU_AES_STAT_FALLBACK_REQUESTS);
	gpu_aes_stat_add(GPU_AES_STAT_FALLBACK_BYTES, len);
}
