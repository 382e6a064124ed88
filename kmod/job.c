// SPDX-License-Identifier: GPL-2.0-only
/*
 * job.c - filling a job, and copying a request's bytes in and out of its
 * data space: the part of the request path that the userspace build of the
 * ring (kring/) runs too, so its copies are the kernel's own.
 */
#include <crypto/aes.h>
#include <linux/crypto.h>
#include <linux/kernel.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "job.h"

void gpu_aes_job_init(struct gpu_aes_job *job, const struct gpu_aes_job_ops *ops,
		      const struct gpu_aes_alg_desc *desc,
		      struct gpu_aes_tfm_key *key, struct scatterlist *src,
		      struct scatterlist *dst, u8 *iv, u32 len, u32 req_flags,
		      u8 dir)
{
	job->ops = ops;
	job->desc = desc;
	job->key = key;
	job->src = src;
	job->dst = dst;
	job->iv = iv;
	job->len = len;
	job->lone_t0 = 0;
	job->aad_len = 0;
	job->dir = dir;
	job->auth_len = 0;
	job->req_flags = req_flags;
	job->may_backlog = req_flags & CRYPTO_TFM_REQ_MAY_BACKLOG;
	job->backlogged = false;
	job->replay = false;
}

void gpu_aes_ctr_advance(u8 *iv, unsigned int len)
{
	u64 n = DIV_ROUND_UP(len, AES_BLOCK_SIZE);
	__be64 hi_be, lo_be;
	u64 hi, lo;

	memcpy(&hi_be, iv, 8);
	memcpy(&lo_be, iv + 8, 8);
	hi = be64_to_cpu(hi_be);
	lo = be64_to_cpu(lo_be) + n;
	if (lo < n)
		hi++;
	hi_be = cpu_to_be64(hi);
	lo_be = cpu_to_be64(lo);
	memcpy(iv, &hi_be, 8);
	memcpy(iv + 8, &lo_be, 8);
}

void gpu_aes_out_iv(const struct gpu_aes_alg_desc *d, u8 dir, u8 *iv,
		    unsigned int len, const u8 *in_last, const u8 *out_last)
{
	switch (d->out_iv) {
	case GPU_AES_OUT_IV_CTR:
		gpu_aes_ctr_advance(iv, len);
		break;
	case GPU_AES_OUT_IV_CHAIN:
		memcpy(iv, dir == GPU_AES_DIR_DECRYPT ? in_last : out_last,
		       AES_BLOCK_SIZE);
		break;
	}
}

/*
 * sg_pcopy_to_buffer() into the data area, with stores that bypass the
 * cache on x86-64: nothing on this CPU reads the slot again (the helper
 * and the GPU's DMA do), and each cached store would first read its line
 * from memory, which a data area walked as a ring has long evicted.  The
 * caller orders the stores (gpu_aes_slot_copied()) before it publishes
 * the request.
 */
void gpu_aes_sg_to_slot(struct scatterlist *sg, unsigned int nents, u8 *slot,
			unsigned int len, unsigned int skip)
{
	struct sg_mapping_iter miter;
	unsigned int n;

	if (!IS_ENABLED(CONFIG_X86_64)) {
		sg_pcopy_to_buffer(sg, nents, slot, len, skip);
		return;
	}
	sg_miter_start(&miter, sg, nents, SG_MITER_ATOMIC | SG_MITER_FROM_SG);
	if (sg_miter_skip(&miter, skip)) {
		while (len && sg_miter_next(&miter)) {
			n = min_t(size_t, miter.length, len);
			memcpy_flushcache(slot, miter.addr, n);
			slot += n;
			len -= n;
		}
	}
	sg_miter_stop(&miter);
}

/*
 * A block-chaining decryption's output IV is its last input block, which
 * an in-place request loses once the result is copied back: keep it,
 * from the source (the slot's copy went around the cache).
 */
void gpu_aes_sk_copy_in(struct gpu_aes_job *job, u8 *slot)
{
	unsigned int nents = sg_nents(job->src);

	gpu_aes_sg_to_slot(job->src, nents, slot, job->len, 0);
	if (job->desc->out_iv == GPU_AES_OUT_IV_CHAIN &&
	    job->dir == GPU_AES_DIR_DECRYPT)
		sg_pcopy_to_buffer(job->src, nents, job->chain_iv,
				   AES_BLOCK_SIZE, job->len - AES_BLOCK_SIZE);
}

/*
 * A block-chaining encryption's output IV is its last output block, which
 * lives in the slot, the helper's memory: it is read from there once, for
 * both dst and the IV.  Read twice, a helper's store in between would
 * leave the IV unlike the block the caller got.
 */
void gpu_aes_sk_copy_out(struct gpu_aes_job *job, const u8 *slot)
{
	unsigned int nents = sg_nents(job->dst), head = job->len;
	u8 last[AES_BLOCK_SIZE];

	if (job->desc->out_iv == GPU_AES_OUT_IV_CHAIN &&
	    job->dir == GPU_AES_DIR_ENCRYPT) {
		head -= AES_BLOCK_SIZE;
		memcpy(last, slot + head, AES_BLOCK_SIZE);
	}
	sg_pcopy_from_buffer(job->dst, nents, slot, head, 0);
	if (head != job->len)
		sg_pcopy_from_buffer(job->dst, nents, last, AES_BLOCK_SIZE,
				     head);
	gpu_aes_out_iv(job->desc, job->dir, job->iv, job->len, job->chain_iv,
		       last);
}

void gpu_aes_aead_copy_in(struct gpu_aes_job *job, u8 *slot)
{
	unsigned int nents = sg_nents(job->src);

	gpu_aes_sg_to_slot(job->src, nents, slot, job->len, job->aad_len);
	if (job->dir == GPU_AES_DIR_DECRYPT)
		gpu_aes_sg_to_slot(job->src, nents,
				   slot + gpu_aes_gcm_tag_off(0, job->len),
				   job->auth_len, job->aad_len + job->len);
	gpu_aes_sg_to_slot(job->src, nents,
			   slot + gpu_aes_gcm_aad_off(0, job->len),
			   job->aad_len, 0);
}

/*
 * Only the text (and, encrypting, the tag): like the aesni and generic
 * drivers, the associated data in dst is left as the caller put it.
 */
void gpu_aes_aead_copy_out(struct gpu_aes_job *job, const u8 *slot)
{
	unsigned int nents = sg_nents(job->dst);

	sg_pcopy_from_buffer(job->dst, nents, slot, job->len, job->aad_len);
	if (job->dir == GPU_AES_DIR_ENCRYPT)
		sg_pcopy_from_buffer(job->dst, nents,
				     slot + gpu_aes_gcm_tag_off(0, job->len),
				     job->auth_len, job->aad_len + job->len);
}
