/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * job.h - what the ring knows of one request: its algorithm's descriptor,
 * its request type's operations, and the job itself, embedded in the
 * skcipher and AEAD request contexts so nothing is allocated per request.
 *
 * A mode is a row of the ABI's table (uapi/gpu_aes.h, GPU_AES_MODES);
 * alg.c makes its descriptor, which registration, counters, routing,
 * kring and the status files read (docs/design.md, "Adding a mode").
 */
#ifndef GPU_AES_JOB_H
#define GPU_AES_JOB_H

#include <asm/barrier.h>
#include <linux/list.h>
#include <linux/types.h>

#include "gpu_aes.h"

struct gpu_aes_job;
struct gpu_aes_tfm_key;
struct scatterlist;

/* Rows of per-algorithm tables: one per enum gpu_aes_alg value. */
#define GPU_AES_NR_ALGS	GPU_AES_ALG_MAX

/* Room for "NAME(aes)" and "NAME-aes-gpu" of every mode. */
#define GPU_AES_ALG_NAME_MAX	24

/**
 * struct gpu_aes_alg_desc - what differs between the algorithms; every
 * layer reads it (registration, length checks, copies, counters,
 * routing, kring, sysfs), made by alg.c from a row of the ABI's mode table
 * (GPU_AES_MODES).
 * @name: short name, for sysfs and counters ("ecb", "ctr", ...).
 * @cra_name: what consumers ask the crypto API for ("ecb(aes)").
 * @driver: our driver's name ("ecb-aes-gpu").
 * @alg: enum gpu_aes_alg, as posted in the sqe; per-algorithm tables
 *	are indexed by @alg - 1 (gpu_aes_alg_row()).
 * @iv_bytes: bytes of the request's IV the sqe carries (0, 12 or 16).
 * @blocksize: the crypto API's cra_blocksize: 16, or 1 for a stream mode.
 * @chunksize: the skcipher's chunksize (CTR: 16), 0 for its blocksize.
 * @key_parts: 1, or 2 for XTS's data and tweak keys (min/max keysize).
 * @out_iv: enum gpu_aes_out_iv (uapi/gpu_aes.h): what the request's IV
 *	holds once it completes, the crypto API's contract for a caller
 *	that chains requests through it.
 * @priority_above: how far above the priority parameter it registers:
 *	1 for xts and gcm, so no template built over our own ecb or ctr
 *	(which takes the inner driver's priority) ties them.
 * @aead: an AEAD (aead.c registers it), else an skcipher.
 */
struct gpu_aes_alg_desc {
	const char *name;
	char cra_name[GPU_AES_ALG_NAME_MAX];
	char driver[GPU_AES_ALG_NAME_MAX];
	u8 alg;
	u8 iv_bytes;
	u8 blocksize;
	u8 chunksize;
	u8 key_parts;
	u8 out_iv;
	u8 priority_above;
	bool aead;
};

/*
 * Makes every mode's descriptor from the ABI's table, all present: module
 * init (and kring's), before anything reads them.
 */
void gpu_aes_alg_init(void);

/**
 * gpu_aes_alg_row_desc() - the descriptor of a row of the mode table,
 * registered or not (registration walks them all).
 * @row: 0 to GPU_AES_NR_ALGS - 1.
 *
 * Return: it, or NULL past the last row.
 */
const struct gpu_aes_alg_desc *gpu_aes_alg_row_desc(unsigned int row);

/*
 * A mode whose CPU driver this kernel lacks (a template that is gone, a
 * mode older kernels never had): it is not registered, and from then on
 * gpu_aes_alg_desc() and gpu_aes_alg_set() leave it out.  Registration
 * only, before the helper's device exists.
 */
void gpu_aes_alg_mark_absent(const struct gpu_aes_alg_desc *d);

/* The row of per-algorithm tables that @d takes. */
static inline unsigned int gpu_aes_alg_row(const struct gpu_aes_alg_desc *d)
{
	return d->alg - 1;
}

/**
 * gpu_aes_alg_desc() - the descriptor of an algorithm.
 * @alg: enum gpu_aes_alg.
 *
 * Return: it, or NULL if the module serves no such algorithm (none in the
 * table, or none this kernel has a CPU driver for).
 */
const struct gpu_aes_alg_desc *gpu_aes_alg_desc(unsigned int alg);

/* The algorithms the module serves: GPU_AES_ALG_BIT() of each. */
u32 gpu_aes_alg_set(void);

/**
 * struct gpu_aes_job_ops - what differs between skcipher and AEAD requests.
 * @copy_in: copy the request's input into its data space @slot, laid out
 *	as struct gpu_aes_sqe says for the job's algorithm.  No lock held.
 * @copy_out: copy the helper's result from @slot to the request's
 *	destination (and set the output IV where the algorithm has one).
 *	Called only for GPU_AES_STATUS_OK.  No lock held.
 * @cpu_crypt: run the request on the CPU driver gpu_aes displaced (the
 *	tfm's fallback), with @flags as the sub-request's
 *	CRYPTO_TFM_REQ_* flags.  Returns its result, or -EINPROGRESS or
 *	-EBUSY where that driver went asynchronous (x86's SIMD wrappers
 *	defer to cryptd where the FPU cannot be used): it then calls
 *	gpu_aes_job_cpu_done() later, in the same order and with the same
 *	values the crypto API promises a caller.  Any context; sleeps only
 *	where @flags has CRYPTO_TFM_REQ_MAY_SLEEP.
 * @complete: call the request's completion callback with @err; the caller
 *	has BHs disabled.
 */
struct gpu_aes_job_ops {
	void (*copy_in)(struct gpu_aes_job *job, u8 *slot);
	void (*copy_out)(struct gpu_aes_job *job, const u8 *slot);
	int (*cpu_crypt)(struct gpu_aes_job *job, u32 flags);
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
 * @deadline: when a backlogged request is recomputed on the CPU
 *	(jiffies), set when its caller hears -EBUSY and never moved after:
 *	posting it once admitted keeps it.  A request posted at once has
 *	its deadline in its tag only (struct gpu_aes_tag).
 * @len: text bytes (GCM decryption: without the tag).
 * @aad_len: GCM: associated data bytes; else 0.
 * @tag: tag in its queue, from reservation to completion.
 * @status: result while being completed.
 * @queue: the queue it was reserved on.
 * @dir: enum gpu_aes_dir.
 * @auth_len: GCM: tag bytes; else 0.
 * @chain_iv: block chaining, decrypting: the last input block, kept by
 *	copy-in for the output IV (an in-place decryption overwrites it).
 * @req_flags: the request's CRYPTO_TFM_REQ_* flags, for a CPU driver
 *	called in its caller's context.
 * @may_backlog: the request has CRYPTO_TFM_REQ_MAY_BACKLOG.
 * @backlogged: answered -EBUSY and not yet told -EINPROGRESS.
 * @replay: on the CPU driver for the ring (gpu_aes_job_replay()): its
 *	caller already heard -EINPROGRESS, so an asynchronous driver's
 *	notices are not passed on, only its result.
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
	u8 chain_iv[16];
	u32 req_flags;
	bool may_backlog;
	bool backlogged;
	bool replay;
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
 * gpu_aes_job_cpu() - run a request on the CPU driver in its caller's
 * context, with the caller's flags: the answer, synchronous or not, is
 * the one that driver would have given the caller.
 * @job: the job.
 *
 * Return: the CPU driver's.
 */
static inline int gpu_aes_job_cpu(struct gpu_aes_job *job)
{
	job->replay = false;
	return job->ops->cpu_crypt(job, job->req_flags);
}

/**
 * gpu_aes_job_cpu_done() - an asynchronous CPU driver's answer to @job
 * (the callback of its sub-request, BHs disabled).
 * @job: the job.
 * @err: -EINPROGRESS (after it answered -EBUSY), or its result.
 */
void gpu_aes_job_cpu_done(struct gpu_aes_job *job, int err);

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

/*
 * @len bytes of @sg from @skip on into a data space; the caller calls
 * gpu_aes_slot_copied() before it publishes them.  Not static: kring's
 * benchmark bound copies with it, as the module does.
 */
void gpu_aes_sg_to_slot(struct scatterlist *sg, unsigned int nents, u8 *slot,
			unsigned int len, unsigned int skip);

/* After copying into a data space, before publishing it. */
static inline void gpu_aes_slot_copied(void)
{
	if (IS_ENABLED(CONFIG_X86_64)) {
		/*
		 * x86-64 copies in around the cache (job.c): those stores
		 * are weakly ordered, and the sqe must not be seen first.
		 */
		wmb();
	}
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

/**
 * gpu_aes_out_iv() - set a completed request's output IV.
 * @d: its algorithm.
 * @dir: enum gpu_aes_dir.
 * @iv: the request's IV, updated in place.
 * @len: text bytes.
 * @in_last: the last input block (block chaining, decrypting), as read
 *	before the request ran.
 * @out_last: the last output block (block chaining, encrypting).
 */
void gpu_aes_out_iv(const struct gpu_aes_alg_desc *d, u8 dir, u8 *iv,
		    unsigned int len, const u8 *in_last, const u8 *out_last);

#endif /* GPU_AES_JOB_H */
