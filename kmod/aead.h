/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aead.h - gcm-aes-gpu: contexts shared with the ring and the CPU fallback.
 */
#ifndef GPU_AES_AEAD_H
#define GPU_AES_AEAD_H

#include <crypto/internal/aead.h>

#include "keys.h"
#include "ring.h"

/**
 * struct gpu_aes_aead_ctx - per-tfm context of gcm-aes-gpu.
 * @fallback: the CPU driver of gcm(aes) (skcipher.c), same key and
 *	authsize.
 * @key: the key and its key table slot.
 */
struct gpu_aes_aead_ctx {
	struct crypto_aead *fallback;
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
 * gpu_aes_aead_register() - register gcm-aes-gpu.
 *
 * Return: 0 or the crypto API's error.
 */
int gpu_aes_aead_register(void);

/**
 * gpu_aes_aead_unregister() - unregister gcm-aes-gpu.
 */
void gpu_aes_aead_unregister(void);

#endif /* GPU_AES_AEAD_H */
