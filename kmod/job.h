/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * job.h - what the ring knows of one request: its algorithm's descriptor,
 * its request type's operations, and the job itself, embedded in the
 * skcipher and AEAD request contexts so nothing is allocated per request.
 *
 * Adding an algorithm: a descriptor here (alg.c), its counter in stats.h,
 * its registration in skcipher.c or aead.c, and its rules in the ABI
 * (docs/design.md, "Adding an algorithm").
 */
#ifndef GPU_AES_JOB_H
#define GPU_AES_JOB_H

#include <linux/list.h>
#include <linux/types.h>

#include "gpu_aes.h"
#include "stats.h"

struct gpu_aes_job;
struct gpu_aes_tfm_key;
struct scatterlist;

/* Algorithms the module serves: gpu_aes_alg_desc.index runs below this. */
#define GPU_AES_NR_ALGS	4

/**
 * struct gpu_aes_alg_desc - what differs between the algorithms.
 * @name: short name, for sysfs ("ecb", "ctr", "xts", "gcm").
 * @index: 0 .. GPU_AES_NR_ALGS - 1, the row of per-algorithm tables
 *	(dispatch.c).
 * @alg: enum gpu_aes_alg, as posted in the sqe.
 * @iv_bytes: bytes of the request's IV the sqe carries (0, 12 or 16).
 * @priority_above: how far above the priority parameter it registers:
 *	1 for xts and gcm, so no template built over our own ecb or ctr
 *	(which takes the inner driver's priority) ties them.
 * @ring_stat: the per-algorithm ring request counter.
 */
struct gpu_aes_alg_desc {
	const char *name;
	u8 index;
	u8 alg;
	u8 iv_bytes;
	u8 priority_above;
	enum gpu_aes_stat ring_stat;
};

extern const struct gpu_aes_alg_desc gpu_aes_ecb_desc;
extern const struct gpu_aes_alg_desc gpu_aes_ctr_desc;
extern const struct gpu_aes_alg_desc gpu_aes_xts_desc;
extern const struct gpu_aes_alg_desc gpu_aes_gcm_desc;
/* Every descriptor, by index. */
extern const struct gpu_aes_alg_desc *const gpu_aes_alg_descs[GPU_AES_NR_ALGS];

/**
 * struct gpu_aes_job_ops - what differs between skcipher and AEAD requests.
 * @copy_in: copy the request's input into its data space @slot, laid out
 *	as struct gpu_aes_sqe says for the job's algorithm.  No lock held.
 * @copy_out: copy the helper's result from @slot to the request's
 *	destination (and set the output IV where the algorithm has one).
 *	Called only for GPU_AES_STATUS_OK.  No lock held.
 * @cpu_crypt: run the request synchronously on the software fallback
 *	(any context, never sleeps); returns its result.
 * @complete: call the request's completion callback with @err; the caller
 *	has BHs disabled.
 */
struct gpu_aes_job_ops {
	void (*copy_in)(struct gpu_aes_job *job, u8 *slot);
	void (*copy_out)(struct gpu_aes_job *job, const u8 *slot);
	int (*cpu_crypt)(struct gpu_aes_job *job);
	void (*complete)(struct gpu_aes_job *job, int err);
};

/**
 * struct gpu_aes_job - one request as the ring sees it.
 * @node: on a queue's backlog, or a private list while being completed.
 * @ops: the request type's operations.
 * @desc: the algorithm's descriptor.
 * @key: the tfm's key state.
 * @src: source scatterlist (AEAD: associated data, then text, then tag).
 * @dst: destination scatterlist, same layout.
 * @iv: the request's IV (CTR: updated on completion), or NULL for ECB.
 * @lone_t0: ktime_get_ns() when it was posted alone on its queue, for
 *	the policy's latency estimate (ring.h, lone_completed); else 0.
 * @deadline: when the request is recomputed on the CPU (jiffies), set once
 *	when its caller is first told it will be answered later (-EBUSY or
 *	-EINPROGRESS) and never moved after: posting an admitted request
 *	keeps the deadline it got in the backlog.
 * @len: text bytes (GCM decryption: without the tag).
 * @aad_len: GCM: associated data bytes; else 0.
 * @tag: tag in its queue, from reservation to completion.
 * @status: result while being completed.
 * @queue: the queue it was reserved on.
 * @dir: enum gpu_aes_dir.
 * @auth_len: GCM: tag bytes; else 0.
 * @may_backlog: the request has CRYPTO_TFM_REQ_MAY_BACKLOG.
 * @backlogged: answered -EBUSY and not yet told -EINPROGRESS.
 */
struct gpu_aes_job {
	struct list_head node;
	const struct gpu_aes_job_ops *ops;
	const struct gpu_aes_alg_desc *desc;
	struct gpu_aes_tfm_key *key;
	struct scatterlist *src;
	struct scatterlist *dst;
	u8 *iv;
	u64 lone_t0;
	unsigned long deadline;
	u32 len;
	u32 aad_len;
	u32 tag;
	int status;
	u16 queue;
	u8 dir;
	u8 auth_len;
	bool may_backlog;
	bool backlogged;
};

/**
 * gpu_aes_job_init() - fill a job for a new request.
 * @job: the job, in the request context.
 * @ops: the request type's operations.
 * @desc: the algorithm.
 * @key: the tfm's key state.
 * @src: source scatterlist.
 * @dst: destination scatterlist.
 * @iv: the request's IV, or NULL.
 * @len: text bytes.
 * @req_flags: the request's CRYPTO_TFM_REQ_* flags.
 * @dir: enum gpu_aes_dir.
 *
 * An AEAD sets @aad_len and @auth_len after.
 */
void gpu_aes_job_init(struct gpu_aes_job *job, const struct gpu_aes_job_ops *ops,
		      const struct gpu_aes_alg_desc *desc,
		      struct gpu_aes_tfm_key *key, struct scatterlist *src,
		      struct scatterlist *dst, u8 *iv, u32 len, u32 req_flags,
		      u8 dir);

/**
 * gpu_aes_job_span() - data area bytes a job occupies (see struct
 * gpu_aes_sqe), before rounding up to GPU_AES_DATA_ALIGN.
 * @job: the job.
 *
 * Return: the span.
 */
static inline u64 gpu_aes_job_span(const struct gpu_aes_job *job)
{
	return gpu_aes_sqe_span(job->desc->alg, job->len, job->aad_len);
}

/* Copying a skcipher request's text in and out of its data space. */
void gpu_aes_sk_copy_in(struct gpu_aes_job *job, u8 *slot);
void gpu_aes_sk_copy_out(struct gpu_aes_job *job, const u8 *slot);

/* The same for an AEAD request: text, tag and AAD in the ABI's layout. */
void gpu_aes_aead_copy_in(struct gpu_aes_job *job, u8 *slot);
void gpu_aes_aead_copy_out(struct gpu_aes_job *job, const u8 *slot);

/**
 * gpu_aes_ctr_advance() - add the number of blocks in @len to a counter.
 * @iv: 128-bit big-endian counter, updated in place.
 * @len: bytes processed; a partial last block counts as a block.
 */
void gpu_aes_ctr_advance(u8 *iv, unsigned int len);

#endif /* GPU_AES_JOB_H */
