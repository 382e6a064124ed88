/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * skcipher.h - the crypto API glue: contexts shared with the ring and the
 * CPU fallback.
 */
#ifndef GPU_AES_SKCIPHER_H
#define GPU_AES_SKCIPHER_H

#include <crypto/internal/skcipher.h>
#include <linux/list.h>

#include "keys.h"

/**
 * struct gpu_aes_tfm_ctx - per-tfm context.
 * @fallback: synchronous software skcipher of the same algorithm.
 * @mode: GPU_AES_ALG_ECB or GPU_AES_ALG_CTR.
 * @key: the key and its key table slot.
 */
struct gpu_aes_tfm_ctx {
	struct crypto_skcipher *fallback;
	u8 mode;
	struct gpu_aes_tfm_key key;
};

/**
 * struct gpu_aes_req_ctx - per-request context (no allocation per request).
 * @node: on the ring's backlog, or a private list while being completed.
 * @req: the request this context belongs to.
 * @deadline: backlog deadline (jiffies).
 * @tag: ring tag while being completed.
 * @status: result while being completed.
 * @dir: GPU_AES_DIR_ENCRYPT or GPU_AES_DIR_DECRYPT.
 * @backlogged: answered -EBUSY and not yet told -EINPROGRESS.
 * @fallback_req: sub-request for the fallback; must be last (its context
 *	follows it).
 */
struct gpu_aes_req_ctx {
	struct list_head node;
	struct skcipher_request *req;
	unsigned long deadline;
	u32 tag;
	int status;
	u8 dir;
	bool backlogged;
	struct skcipher_request fallback_req;
};

/**
 * gpu_aes_cpu_crypt() - run a request synchronously on the fallback.
 * @req: the request.
 * @flags: CRYPTO_TFM_REQ_MAY_SLEEP or 0.
 *
 * Reads req->src, writes req->dst and the output IV, as the fallback does.
 *
 * Return: the fallback's result.
 */
int gpu_aes_cpu_crypt(struct skcipher_request *req, u32 flags);

/**
 * gpu_aes_req_finish() - call a request's completion callback.
 * @req: the request.
 * @err: result, or -EINPROGRESS for a backlogged request now admitted.
 *
 * Disables BHs around the callback, as the crypto API expects of an async
 * completion.
 */
void gpu_aes_req_finish(struct skcipher_request *req, int err);

/**
 * gpu_aes_ctr_advance() - add the number of blocks in @len to a counter.
 * @iv: 128-bit big-endian counter, updated in place.
 * @len: bytes processed; a partial last block counts as a block.
 */
void gpu_aes_ctr_advance(u8 *iv, unsigned int len);

/**
 * gpu_aes_skcipher_register() - register ecb-aes-gpu and ctr-aes-gpu.
 *
 * Return: 0 or the crypto API's error.
 */
int gpu_aes_skcipher_register(void);

/**
 * gpu_aes_skcipher_unregister() - unregister both algorithms.
 */
void gpu_aes_skcipher_unregister(void);

#endif /* GPU_AES_SKCIPHER_H */
