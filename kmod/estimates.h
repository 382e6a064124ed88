/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * estimates.h - the figures dispatch=auto weighs, where they live
 * (estimates.c): cost.c keeps them, cost_hooks.c lets KUnit set them.
 */
#ifndef GPU_AES_ESTIMATES_H
#define GPU_AES_ESTIMATES_H

#include <linux/cache.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include "gpu_aes.h"
#include "job.h"

/* Size classes: [256, 1K), [1K, 4K), ... [256K, 1M), 1M and up. */
#define GPU_AES_NR_CLASSES	7

/*
 * Estimates are kept per algorithm and direction: the two can cost
 * opposite things (a chained mode's encryption is one chain per request,
 * its decryption runs every block at once, on the CPU and the GPU alike).
 */
#define GPU_AES_NR_OPS		(2 * GPU_AES_NR_ALGS)

/* The row of @d in direction @dir (enum gpu_aes_dir) of the estimates. */
static inline unsigned int gpu_aes_op_row(const struct gpu_aes_alg_desc *d,
					  u8 dir)
{
	return 2 * gpu_aes_alg_row(d) + (dir == GPU_AES_DIR_DECRYPT);
}

/**
 * gpu_aes_size_class() - the size class of a request.
 * @bytes: its bytes.
 *
 * Return: 0 .. GPU_AES_NR_CLASSES - 1.
 */
unsigned int gpu_aes_size_class(u64 bytes);

/**
 * struct gpu_aes_dispatch_pcpu - one CPU's estimates and decision state,
 *	per algorithm and direction (gpu_aes_op_row()) and size class.
 * @cpu_ns: the CPU driver's cost, ns per KiB.
 * @submit_ns: the ring's cost on the submitting CPU (reservation, copy
 *	in, posting), ns per KiB.
 * @ring_chosen: the last cost decision was the ring (hysteresis).
 * @repeat: decisions left that repeat @last (dispatch.h: GPU_AES_REPEAT).
 * @last: the last decision weighed.
 * @last_lone: whether the request @last was for was alone.
 * @decisions: requests routed on this CPU: which to time.
 * @since_explore: decisions since this CPU last explored.
 * @depth16: sixteen times a mean of what was in flight on this CPU's
 *	queue at its decisions (1/16 of each new look).
 * @explore_at: jiffies of this CPU's last decision that went the other
 *	way to measure it.
 * @saturated: busy >= GPU_AES_SATURATED_PCT over the last window.
 * @sat_at: jiffies of the last busy sample.
 * @sat_idle_us: idle time at that sample.
 * @sat_wall_us: wall time at that sample.
 */
struct gpu_aes_dispatch_pcpu {
	u32 cpu_ns[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u32 submit_ns[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u8 ring_chosen[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u8 repeat[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u8 last[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	bool last_lone[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u32 decisions;
	u32 since_explore;
	u32 depth16;
	unsigned long explore_at;
	bool saturated;
	unsigned long sat_at;
	u64 sat_idle_us;
	u64 sat_wall_us;
};

DECLARE_PER_CPU(struct gpu_aes_dispatch_pcpu, gpu_aes_dispatch_pcpu);

/*
 * What completing a request costs each queue's reapers (ns per KiB), how
 * fast the ring drains each queue while it is backed up (wall ns per KiB
 * completed, from one reap to the next, counted only from a reap that
 * left the queue backed up: in flight only grows between reaps, so the
 * ring had that queue's work waiting all along), and how long a request
 * posted alone takes on the ring, submission to callback (ns, per
 * algorithm, direction and class: a property of the helper and the GPU,
 * not of a queue).  Written by reapers only.
 */
struct gpu_aes_dispatch_queue {
	u32 complete_ns_per_kib;
	u32 drain_ns_per_kib;
	u64 backed_since;
} ____cacheline_aligned_in_smp;

extern struct gpu_aes_dispatch_queue gpu_aes_dispatch_queues[GPU_AES_MAX_QUEUES];
extern u32 gpu_aes_lone_ns[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];

#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
/**
 * struct gpu_aes_dispatch_test - KUnit's hold on the live estimates.
 * @frozen: no sample updates an estimate (tests inject theirs) and no
 *	decision explores.
 * @saturated: -1: measure; 0 or 1: what every CPU is taken to be.
 * @repeat: with @frozen, decisions repeat as they do live
 *	(GPU_AES_REPEAT); without it each one weighs the figures.
 */
struct gpu_aes_dispatch_test {
	bool frozen;
	int saturated;
	bool repeat;
};

extern struct gpu_aes_dispatch_test gpu_aes_dispatch_test;

static inline bool gpu_aes_dispatch_frozen(void)
{
	return READ_ONCE(gpu_aes_dispatch_test.frozen);
}

static inline int gpu_aes_dispatch_test_saturated(void)
{
	return READ_ONCE(gpu_aes_dispatch_test.saturated);
}

/* Tests inject figures and expect the next decision to weigh them. */
static inline bool gpu_aes_dispatch_repeats(void)
{
	return !READ_ONCE(gpu_aes_dispatch_test.frozen) ||
	       READ_ONCE(gpu_aes_dispatch_test.repeat);
}
#else
static inline bool gpu_aes_dispatch_frozen(void)
{
	return false;
}

static inline int gpu_aes_dispatch_test_saturated(void)
{
	return -1;
}

static inline bool gpu_aes_dispatch_repeats(void)
{
	return true;
}
#endif

#endif /* GPU_AES_ESTIMATES_H */
