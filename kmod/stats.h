/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.h - driver counters, exported read-only under
 * /sys/class/misc/gpu_aes/stats/, one value per file.
 */
#ifndef GPU_AES_STATS_H
#define GPU_AES_STATS_H

#include <linux/atomic.h>
#include <linux/sysfs.h>

#include "gpu_aes.h"

/**
 * enum gpu_aes_stat - index of a counter in gpu_aes_stats[].
 * @GPU_AES_STAT_RING_REQUESTS: requests posted to the ring.
 * @GPU_AES_STAT_RING_BYTES: bytes of those requests.
 * @GPU_AES_STAT_FALLBACK_REQUESTS: requests the submission path ran on the
 *	CPU (the sum of the fallback_* reasons below).
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
 * @GPU_AES_STAT_RING_ECB_REQUESTS: ecb(aes) requests posted to the ring.
 * @GPU_AES_STAT_RING_CTR_REQUESTS: ctr(aes) requests posted to the ring.
 * @GPU_AES_STAT_RING_XTS_REQUESTS: xts(aes) requests posted to the ring.
 * @GPU_AES_STAT_RING_GCM_REQUESTS: gcm(aes) requests posted to the ring.
 * @GPU_AES_STAT_AUTH_FAILURES: GCM decryptions that went to the ring (or
 *	its backlog) and completed with -EBADMSG, whether the helper or the
 *	CPU replay found the tag wrong.
 * @GPU_AES_STAT_FALLBACK_NO_BACKLOG: ... because the request lacks
 *	CRYPTO_TFM_REQ_MAY_BACKLOG, so its caller gets its answer at once.
 * @GPU_AES_STAT_FALLBACK_NO_KEY: ... because its tfm has no key slot and
 *	none could be taken over (gpu_aes_key_prepare()).
 * @GPU_AES_STAT_KEY_RECLAIMS: key slots taken over from a tfm that had
 *	left its slot unused.
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
	/* In enum gpu_aes_alg order: see gpu_aes_stat_ring_alg(). */
	GPU_AES_STAT_RING_ECB_REQUESTS,
	GPU_AES_STAT_RING_CTR_REQUESTS,
	GPU_AES_STAT_RING_XTS_REQUESTS,
	GPU_AES_STAT_RING_GCM_REQUESTS,
	GPU_AES_STAT_AUTH_FAILURES,
	GPU_AES_STAT_FALLBACK_NO_BACKLOG,
	GPU_AES_STAT_FALLBACK_NO_KEY,
	GPU_AES_STAT_KEY_RECLAIMS,
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
 */
enum gpu_aes_fallback_reason {
	GPU_AES_FB_NO_HELPER,
	GPU_AES_FB_SMALL,
	GPU_AES_FB_LARGE,
	GPU_AES_FB_FULL,
	GPU_AES_FB_STALLED,
	GPU_AES_FB_NO_BACKLOG,
	GPU_AES_FB_NO_KEY,
};

extern atomic64_t gpu_aes_stats[GPU_AES_NR_STATS];

/* The "stats" attribute group, for miscdevice.groups. */
extern const struct attribute_group *gpu_aes_stats_groups[];

static inline void gpu_aes_stat_add(enum gpu_aes_stat s, s64 v)
{
	atomic64_add(v, &gpu_aes_stats[s]);
}

static inline void gpu_aes_stat_inc(enum gpu_aes_stat s)
{
	atomic64_inc(&gpu_aes_stats[s]);
}

static inline s64 gpu_aes_stat_read(enum gpu_aes_stat s)
{
	return atomic64_read(&gpu_aes_stats[s]);
}

/**
 * gpu_aes_stat_ring_alg() - the per-algorithm ring request counter.
 * @alg: enum gpu_aes_alg, kernel-chosen (never read from shared memory).
 *
 * Return: its index in gpu_aes_stats[].
 */
static inline enum gpu_aes_stat gpu_aes_stat_ring_alg(u8 alg)
{
	return GPU_AES_STAT_RING_ECB_REQUESTS + alg - GPU_AES_ALG_ECB;
}

/**
 * gpu_aes_stat_fallback() - count one request run on the CPU at submission.
 * @why: the reason.
 * @len: its length in bytes (GCM: text plus associated data).
 */
void gpu_aes_stat_fallback(enum gpu_aes_fallback_reason why, u64 len);

#endif /* GPU_AES_STATS_H */
