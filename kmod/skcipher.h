/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * skcipher.h - the crypto API glue of ecb-aes-gpu, ctr-aes-gpu and
 * xts-aes-gpu: contexts shared with the ring and the CPU fallback.
 */
#ifndef GPU_AES_SKCIPHER_H
#define GPU_AES_SKCIPHER_H

#include <crypto/aes.h>
#include <crypto/internal/skcipher.h>
#include <linux/list.h>

#include "job.h"
#include "keys.h"
#include "ring.h"

/*
 * Every algorithm of the module.  Never CRYPTO_ALG_ALLOCATES_MEMORY:
 * nothing is allocated per request, and dm-crypt refuses drivers that set
 * it.
 */
#define GPU_AES_CRA_FLAGS	(CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | \
				 CRYPTO_ALG_NEED_FALLBACK)

/**
 * gpu_aes_cra_fill() - what every algorithm of ours has in its base:
 *	names, priority, flags, block and context size, owner.
 * @base: the skcipher's or AEAD's base.
 * @d: its mode's descriptor.
 * @ctxsize: its tfm context's size.
 */
void gpu_aes_cra_fill(struct crypto_alg *base, const struct gpu_aes_alg_desc *d,
		      unsigned int ctxsize);

/**
 * struct gpu_aes_tfm_ctx - per-tfm context.
 * @fallback: the CPU driver of the same algorithm (skcipher.c).
 * @desc: the algorithm's descriptor (job.h).
 * @key: the key and its key table slot.
 */
struct gpu_aes_tfm_ctx {
	struct crypto_skcipher *fallback;
	const struct gpu_aes_alg_desc *desc;
	struct gpu_aes_tfm_key key;
};

/**
 * struct gpu_aes_req_ctx - per-request context (no allocation per request).
 * @job: what the ring knows of the request.
 * @req: the request this context belongs to.
 * @fallback_iv: the IV the CPU driver gets in a mode whose request's IV
 *	stays as it was (OUT_IV KEEP): x86's XTS drivers leave their last
 *	tweak in the IV they are given (6.12), which the ring path never
 *	does and a caller such as AF_ALG reuses for its next request.
 * @fallback_req: sub-request for the fallback; must be last (its context
 *	follows it).
 */
struct gpu_aes_req_ctx {
	struct gpu_aes_job job;
	struct skcipher_request *req;
	u8 fallback_iv[AES_BLOCK_SIZE];
	struct skcipher_request fallback_req;
};

/*
 * The callback of a sub-request to the CPU driver (skciphers and the
 * AEAD alike), whose data is the job: gpu_aes_job_cpu_done().
 */
#ifdef GPU_AES_COMPLETION_TAKES_DATA
void gpu_aes_fallback_done(void *data, int err);
#else
void gpu_aes_fallback_done(struct crypto_async_request *areq, int err);
#endif

/**
 * gpu_aes_skcipher_register() - register ecb-, ctr- and xts-aes-gpu.
 *
 * Return: 0 or the crypto API's error.
 */
int gpu_aes_skcipher_register(void);

/**
 * gpu_aes_skcipher_unregister() - unregister the three algorithms.
 */
void gpu_aes_skcipher_unregister(void);

#endif /* GPU_AES_SKCIPHER_H */
