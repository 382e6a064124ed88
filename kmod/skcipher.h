/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * skcipher.h - the crypto API glue of ecb-aes-gpu, ctr-aes-gpu and
 * xts-aes-gpu: contexts shared with the ring and the CPU fallback.
 */
#ifndef GPU_AES_SKCIPHER_H
#define GPU_AES_SKCIPHER_H

#include <crypto/internal/skcipher.h>
#include <linux/list.h>

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
 * struct gpu_aes_tfm_ctx - per-tfm context.
 * @fallback: synchronous software skcipher of the same algorithm.
 * @mode: GPU_AES_ALG_ECB, GPU_AES_ALG_CTR or GPU_AES_ALG_XTS.
 * @key: the key and its key table slot.
 */
struct gpu_aes_tfm_ctx {
	struct crypto_skcipher *fallback;
	u8 mode;
	struct gpu_aes_tfm_key key;
};

/**
 * struct gpu_aes_req_ctx - per-request context (no allocation per request).
 * @job: what the ring knows of the request.
 * @req: the request this context belongs to.
 * @fallback_req: sub-request for the fallback; must be last (its context
 *	follows it).
 */
struct gpu_aes_req_ctx {
	struct gpu_aes_job job;
	struct skcipher_request *req;
	struct skcipher_request fallback_req;
};

/**
 * gpu_aes_ctr_advance() - add the number of blocks in @len to a counter.
 * @iv: 128-bit big-endian counter, updated in place.
 * @len: bytes processed; a partial last block counts as a block.
 */
void gpu_aes_ctr_advance(u8 *iv, unsigned int len);

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
