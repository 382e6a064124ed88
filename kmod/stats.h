/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.h - driver counters (per CPU, summed on read), exported read-only
 * under /sys/class/misc/gpu_aes/stats/, one value per file.
 */
#ifndef GPU_AES_STATS_H
#define GPU_AES_STATS_H

#include <linux/percpu.h>
#include <linux/sysfs.h>
#include <linux/types.h>

#include "gpu_aes.h"
#include "job.h"

/**
 * enum gpu_aes_stat - index of a counter in gpu_aes_stats[].
 * @GPU_AES_STAT_RING_REQUESTS: requests posted to the ring.
 * @GPU_AES_STAT_RING_BYTES: bytes of those requests.
 * @GPU_AES_STAT_FALLBACK_REQUESTS: requests the submission path ran on the
 *	CPU (the sum of the fallback_* reasons below, fallback_policy
 *	standing for its four).
 * @GPU_AES_STAT_FALLBACK_BYTES: bytes of those requests.
 * @GPU_AES_STAT_FALLBACK_NO_HELPER: ... because no helper was attached.
 * @GPU_AES_STAT_FALLBACK_SMALL: ... because shorter than ring_min_bytes.
 * @GPU_AES_STAT_FALLBACK_LARGE: ... because longer than the ring accepts.
 * @GPU_AES_STAT_FALLBACK_FULL: ... because the ring or data area was full
 *	and cannot empty by itself: the oldest request on it timed out and
 *	holds its space until the helper answers it.
 * @GPU_AES_STAT_FALLBACK_STALLED: ... because the helper let a request time
 *	out and has not completed anything since.
 * @GPU_AES_STAT_BACKLOGGED: requests answered with -EBUSY and queued.
 * @GPU_AES_STAT_TIMEOUTS: requests whose deadline passed (on the ring or in
 *	the backlog) and that were recomputed on the CPU.
 * @GPU_AES_STAT_REJECTED_COMPLETIONS: completion entries (or whole CQ
 *	batches, see gpu_aes_ring_reap()) that failed validation.
 * @GPU_AES_STAT_LATE_COMPLETIONS: valid completions of timed-out requests.
 * @GPU_AES_STAT_HELPER_ERRORS: completions with an error status.
 * @GPU_AES_STAT_HELPER_ATTACHES: successful attachments of a region.
 * @GPU_AES_STAT_RECOMPUTED: ring or backlog requests replayed on the CPU
 *	(timeouts, helper errors, helper exit).
 * @GPU_AES_STAT_RING_ALG: ring_<alg>_requests, requests of one algorithm
 *	posted to the ring, one counter per enum gpu_aes_alg value from
 *	here (gpu_aes_alg_ring_stat(), job.h); named from the algorithms'
 *	descriptors by gpu_aes_stats_init().
 * @GPU_AES_STAT_RING_ALG_LAST: the last of them.
 * @GPU_AES_STAT_AUTH_FAILURES: GCM decryptions that went to the ring (or
 *	its backlog) and completed with -EBADMSG, whether the helper or the
 *	CPU replay found the tag wrong.
 * @GPU_AES_STAT_FALLBACK_NO_BACKLOG: ... because the request lacks
 *	CRYPTO_TFM_REQ_MAY_BACKLOG, so its caller gets its answer at once.
 * @GPU_AES_STAT_FALLBACK_UNSUPPORTED: ... because the attached helper does
 *	not serve its algorithm (an older helper: GPU_AES_FEAT_ALGS).
 * @GPU_AES_STAT_FALLBACK_NO_KEY: ... because its tfm has no key slot and
 *	none could be taken over (gpu_aes_key_prepare()).
 * @GPU_AES_STAT_KEY_RECLAIMS: key slots taken over from a tfm that had
 *	left its slot unused.
 * @GPU_AES_STAT_FALLBACK_POLICY: ... because the dispatch policy chose the
 *	CPU (the sum of the five below).
 * @GPU_AES_STAT_FALLBACK_POLICY_COST: ... because the CPU costs less.
 * @GPU_AES_STAT_FALLBACK_POLICY_LONE: ... because it was alone on its
 *	queue and finishes sooner on the CPU than a ring round trip.
 * @GPU_AES_STAT_FALLBACK_POLICY_FORCED: ... because dispatch=cpu.
 * @GPU_AES_STAT_FALLBACK_POLICY_EXPLORE: ... to keep the CPU's cost
 *	estimate current while auto prefers the ring.
 * @GPU_AES_STAT_FALLBACK_POLICY_LOAD: ... because the ring, though
 *	cheaper, is backed up and drains the queue more slowly than the CPU
 *	computes.
 * @GPU_AES_STAT_POLICY_RING_COST: requests the policy sent to the ring
 *	because it costs less (posted, backlogged, or fallen back for a
 *	reason of the ring's: full, stalled, no key, no helper).
 * @GPU_AES_STAT_POLICY_RING_LONE: ... because it was alone on its queue
 *	and finishes sooner on the ring than on the CPU.
 * @GPU_AES_STAT_POLICY_RING_LOAD: ... because the CPU is saturated and
 *	the ring has headroom.
 * @GPU_AES_STAT_POLICY_RING_FORCED: ... because dispatch=ring.
 * @GPU_AES_STAT_POLICY_RING_EXPLORE: ... to keep the ring's cost estimate
 *	current while auto prefers the CPU.
 * @GPU_AES_STAT_HELPER_WAKEUPS: times a submission woke the sleeping
 *	helper (at most once per sleep, however many posts saw it asleep).
 * @GPU_AES_NR_STATS: number of counters.
 */
enum gpu_aes_stat {
	GPU_AES_STAT_RING_REQUESTS,
	GPU_AES_STAT_RING_BYTES,
	GPU_AES_STAT_FALLBACK_REQUESTS,
	GPU_AES_STAT_FALLBACK_BYTES,
	GPU_AES_STAT_FALLBACK_NO_HELPER,
	GPU_AES_STAT_FALLBACK_SMALL,
	GPU_AES_STAT_FALLBACK_LARGE,
	GPU_AES_STAT_FALLBACK_FULL,
	GPU_AES_STAT_FALLBACK_STALLED,
	GPU_AES_STAT_BACKLOGGED,
	GPU_AES_STAT_TIMEOUTS,
	GPU_AES_STAT_REJECTED_COMPLETIONS,
	GPU_AES_STAT_LATE_COMPLETIONS,
	GPU_AES_STAT_HELPER_ERRORS,
	GPU_AES_STAT_HELPER_ATTACHES,
	GPU_AES_STAT_RECOMPUTED,
	/* One per algorithm: gpu_aes_alg_desc.ring_stat (job.h). */
	GPU_AES_STAT_RING_ALG,
	GPU_AES_STAT_RING_ALG_LAST = GPU_AES_STAT_RING_ALG + GPU_AES_ALG_MAX - 1,
	GPU_AES_STAT_AUTH_FAILURES,
	GPU_AES_STAT_FALLBACK_NO_BACKLOG,
	GPU_AES_STAT_FALLBACK_NO_KEY,
	GPU_AES_STAT_FALLBACK_UNSUPPORTED,
	GPU_AES_STAT_KEY_RECLAIMS,
	GPU_AES_STAT_FALLBACK_POLICY,
	GPU_AES_STAT_FALLBACK_POLICY_COST,
	GPU_AES_STAT_FALLBACK_POLICY_LONE,
	GPU_AES_STAT_FALLBACK_POLICY_FORCED,
	GPU_AES_STAT_FALLBACK_POLICY_EXPLORE,
	GPU_AES_STAT_FALLBACK_POLICY_LOAD,
	GPU_AES_STAT_POLICY_RING_COST,
	GPU_AES_STAT_POLICY_RING_LONE,
	GPU_AES_STAT_POLICY_RING_LOAD,
	GPU_AES_STAT_POLICY_RING_FORCED,
	GPU_AES_STAT_POLICY_RING_EXPLORE,
	GPU_AES_STAT_HELPER_WAKEUPS,
	GPU_AES_NR_STATS
};

/**
 * enum gpu_aes_fallback_reason - why the submission path used the CPU.
 * @GPU_AES_FB_NO_HELPER: no region attached.
 * @GPU_AES_FB_SMALL: shorter than ring_min_bytes.
 * @GPU_AES_FB_LARGE: longer than ring_max_bytes or data area / 4.
 * @GPU_AES_FB_FULL: no tag or data space, and the oldest tag timed out.
 * @GPU_AES_FB_STALLED: the helper is stalled (see struct gpu_aes_ring).
 * @GPU_AES_FB_NO_BACKLOG: no CRYPTO_TFM_REQ_MAY_BACKLOG (gpu_aes_route()).
 * @GPU_AES_FB_NO_KEY: no key slot to be had.
 * @GPU_AES_FB_UNSUPPORTED: the helper does not serve the algorithm.
 * @GPU_AES_FB_POLICY_COST: the dispatch policy: the CPU costs less.
 * @GPU_AES_FB_POLICY_LONE: ... alone, and sooner done on the CPU.
 * @GPU_AES_FB_POLICY_FORCED: ... dispatch=cpu.
 * @GPU_AES_FB_POLICY_EXPLORE: ... measuring the CPU.
 * @GPU_AES_FB_POLICY_LOAD: ... the ring is backed up and slower than the
 *	CPU.
 */
enum gpu_aes_fallback_reason {
	GPU_AES_FB_NO_HELPER,
	GPU_AES_FB_SMALL,
	GPU_AES_FB_LARGE,
	GPU_AES_FB_FULL,
	GPU_AES_FB_STALLED,
	GPU_AES_FB_NO_BACKLOG,
	GPU_AES_FB_NO_KEY,
	GPU_AES_FB_UNSUPPORTED,
	GPU_AES_FB_POLICY_COST,
	GPU_AES_FB_POLICY_LONE,
	GPU_AES_FB_POLICY_FORCED,
	GPU_AES_FB_POLICY_EXPLORE,
	GPU_AES_FB_POLICY_LOAD,
};

/*
 * One set of counters per CPU: the request path increments its own CPU's
 * copy (one instruction, no shared cache line written), readers sum them.
 */
struct gpu_aes_pcpu_stats {
	u64 v[GPU_AES_NR_STATS];
};

DECLARE_PER_CPU(struct gpu_aes_pcpu_stats, gpu_aes_pcpu_stats);

/*
 * Each counter's name: its sysfs file, and what kring/ reports.  NULL for
 * a ring_<alg>_requests counter of an algorithm the module does not serve.
 */
extern const char *gpu_aes_stat_names[GPU_AES_NR_STATS];

/* Names the per-algorithm counters; before anything reads the names. */
void gpu_aes_stats_init(void);

/*
 * The "stats" attribute group, for miscdevice.groups (stats_sysfs.c): one
 * file per name above, made by gpu_aes_stats_sysfs_init().
 */
extern const struct attribute_group gpu_aes_stats_group;
void gpu_aes_stats_sysfs_init(void);

static inline void gpu_aes_stat_add(enum gpu_aes_stat s, s64 v)
{
	this_cpu_add(gpu_aes_pcpu_stats.v[s], v);
}

static inline void gpu_aes_stat_inc(enum gpu_aes_stat s)
{
	this_cpu_inc(gpu_aes_pcpu_stats.v[s]);
}

/**
 * gpu_aes_stat_read() - a counter's value, summed over every CPU.
 * @s: the counter.
 *
 * Exact once the events being counted have stopped (what tests compare);
 * while they go on, a value some events old, never torn.
 *
 * Return: the sum.
 */
s64 gpu_aes_stat_read(enum gpu_aes_stat s);

/**
 * gpu_aes_stat_fallback() - count one request run on the CPU at submission.
 * @why: the reason.
 * @len: its length in bytes (GCM: text plus associated data).
 */
void gpu_aes_stat_fallback(enum gpu_aes_fallback_reason why, u64 len);

/* The per-algorithm ring request counter of @d. */
static inline enum gpu_aes_stat gpu_aes_alg_ring_stat(const struct gpu_aes_alg_desc *d)
{
	return GPU_AES_STAT_RING_ALG + gpu_aes_alg_row(d);
}

#endif /* GPU_AES_STATS_H */
