/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aead.h - the AEADs (gcm-aes-gpu): contexts shared with the ring and the
 * CPU fallback.
 */
#ifndef GPU_AES_AEAD_H
#define GPU_AES_AEAD_H

#include <crypto/internal/aead.h>

#include "keys.h"
#include "ring.h"

/**
 * struct gpu_aes_aead_ctx - per-tfm context.
 * @fallback: the CPU driver of the same AEAD (skcipher.c), same key and
 *	authsize.
 * @desc: the algorithm's descriptor (job.h).
 * @key: the key and its key table slot.
 */
struct gpu_aes_aead_ctx {
	struct crypto_aead *fallback;
	const struct gpu_aes_alg_desc *desc;
	struct gpu_aes_tfm_key key;
};

/**
 * struct gpu_aes_aead_req_ctx - per-request context.
 * @job: what the ring knows of the request.
 * @req: the request this context belongs to.
 * @fallback_req: sub-request for the fallback; must be last (its context
 *	follows it).
 */
struct gpu_aes_aead_req_ctx {
	struct gpu_aes_job job;
	struct aead_request *req;
	struct aead_request fallback_req;
};

/**
 * gpu_aes_aead_register() - register the AEAD rows of the mode table
 * this kernel has a CPU driver for.
 *
 * Return: 0 or the crypto API's error.
 */
int gpu_aes_aead_register(void);

/**
 * gpu_aes_aead_unregister() - unregister what gpu_aes_aead_register() did.
 */
void gpu_aes_aead_unregister(void);

#endif /* GPU_AES_AEAD_H */
