// SPDX-License-Identifier: GPL-2.0-only
/*
 * skcipher.c - ecb-aes-gpu, ctr-aes-gpu and xts-aes-gpu: the crypto API
 * side and the CPU fallback.
 *
 * Routing (kmod/README.md, "Routing of a request", gpu_aes_route() in
 * dispatch.c): a request the policy or a hard bound sends to the CPU runs
 * at once on the fallback and returns synchronously; the rest go to the
 * ring (-EINPROGRESS), the backlog (-EBUSY) or, given back by the ring,
 * the fallback too.  The fallback is a synchronous
 * software skcipher of the same algorithm (CRYPTO_ALG_ASYNC masked out), so
 * it can run in any context and never picks this driver again
 * (CRYPTO_ALG_NEED_FALLBACK masked out).
 */
#include <crypto/aes.h>
#include <crypto/internal/skcipher.h>
#include <crypto/xts.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "dispatch.h"
#include "params.h"
#include "ring.h"
#include "skcipher.h"
#include "stats.h"

static struct gpu_aes_req_ctx *gpu_aes_job_rctx(struct gpu_aes_job *job)
{
	return container_of(job, struct gpu_aes_req_ctx, job);
}

/* Synchronous software tfm: no callback, never sleeps, any context. */
static int gpu_aes_cpu_crypt(struct skcipher_request *req)
{
	struct gpu_aes_tfm_ctx *ctx =
		crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct gpu_aes_req_ctx *rctx = skcipher_request_ctx(req);
	struct skcipher_request *sub = &rctx->fallback_req;

	skcipher_request_set_tfm(sub, ctx->fallback);
	skcipher_request_set_callback(sub, 0, NULL, NULL);
	skcipher_request_set_crypt(sub, req->src, req->dst, req->cryptlen,
				   req->iv);
	if (rctx->job.dir == GPU_AES_DIR_DECRYPT)
		return crypto_skcipher_decrypt(sub);
	return crypto_skcipher_encrypt(sub);
}

static int gpu_aes_sk_cpu_crypt(struct gpu_aes_job *job)
{
	return gpu_aes_cpu_crypt(gpu_aes_job_rctx(job)->req);
}

static void gpu_aes_sk_complete(struct gpu_aes_job *job, int err)
{
	skcipher_request_complete(gpu_aes_job_rctx(job)->req, err);
}

static const struct gpu_aes_job_ops gpu_aes_sk_job_ops = {
	.copy_in = gpu_aes_sk_copy_in,
	.copy_out = gpu_aes_sk_copy_out,
	.cpu_crypt = gpu_aes_sk_cpu_crypt,
	.complete = gpu_aes_sk_complete,
};

static int gpu_aes_crypt(struct skcipher_request *req, u8 dir)
{
	struct gpu_aes_tfm_ctx *ctx =
		crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct gpu_aes_req_ctx *rctx = skcipher_request_ctx(req);
	unsigned int len = req->cryptlen;
	u8 alg = ctx->desc->alg;

	if (alg == GPU_AES_ALG_ECB && !IS_ALIGNED(len, AES_BLOCK_SIZE))
		return -EINVAL;
	/* Ciphertext stealing needs one whole block to steal from. */
	if (alg == GPU_AES_ALG_XTS && len < AES_BLOCK_SIZE)
		return -EINVAL;
	if (!len)
		return 0;
	rctx->req = req;
	gpu_aes_job_init(&rctx->job, &gpu_aes_sk_job_ops, ctx->desc, &ctx->key,
			 req->src, req->dst, req->iv, len, req->base.flags, dir);
	return gpu_aes_route(&gpu_aes_ring, &rctx->job, len);
}

static int gpu_aes_encrypt(struct skcipher_request *req)
{
	return gpu_aes_crypt(req, GPU_AES_DIR_ENCRYPT);
}

static int gpu_aes_decrypt(struct skcipher_request *req)
{
	return gpu_aes_crypt(req, GPU_AES_DIR_DECRYPT);
}

static int gpu_aes_setkey(struct crypto_skcipher *tfm, const u8 *key,
			  unsigned int len)
{
	struct gpu_aes_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	int ret;

	if (ctx->desc->alg == GPU_AES_ALG_XTS) {
		ret = xts_verify_key(tfm, key, len);
		if (ret)
			return ret;
	}
	crypto_skcipher_clear_flags(ctx->fallback, CRYPTO_TFM_REQ_MASK);
	crypto_skcipher_set_flags(ctx->fallback, crypto_skcipher_get_flags(tfm) &
				  CRYPTO_TFM_REQ_MASK);
	ret = crypto_skcipher_setkey(ctx->fallback, key, len);
	if (ret)
		return ret;
	if (ctx->desc->alg == GPU_AES_ALG_XTS)
		return gpu_aes_key_set_xts(&gpu_aes_ring, &ctx->key, key, len);
	return gpu_aes_key_set(&gpu_aes_ring, &ctx->key, key, len);
}

/* A registered skcipher and the descriptor of its algorithm. */
struct gpu_aes_skcipher {
	struct skcipher_alg alg;
	const struct gpu_aes_alg_desc *desc;
};

static const struct gpu_aes_alg_desc *
gpu_aes_skcipher_desc(struct crypto_skcipher *tfm)
{
	return container_of(crypto_skcipher_alg(tfm), struct gpu_aes_skcipher,
			    alg)->desc;
}

static int gpu_aes_init_tfm(struct crypto_skcipher *tfm)
{
	struct gpu_aes_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct crypto_skcipher *fb;

	fb = crypto_alloc_skcipher(crypto_tfm_alg_name(&tfm->base), 0,
				   CRYPTO_ALG_ASYNC | CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(fb))
		return PTR_ERR(fb);
	ctx->fallback = fb;
	ctx->desc = gpu_aes_skcipher_desc(tfm);
	gpu_aes_dispatch_note_cpu_driver(ctx->desc,
					 crypto_tfm_alg_driver_name(crypto_skcipher_tfm(fb)));
	gpu_aes_key_init(&ctx->key);
	crypto_skcipher_set_reqsize(tfm, sizeof(struct gpu_aes_req_ctx) +
				    crypto_skcipher_reqsize(fb));
	return 0;
}

static void gpu_aes_exit_tfm(struct crypto_skcipher *tfm)
{
	struct gpu_aes_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);

	gpu_aes_key_release(&gpu_aes_ring, &ctx->key);
	crypto_free_skcipher(ctx->fallback);
}

#define GPU_AES_SKCIPHER_COMMON					\
	.base.cra_flags = GPU_AES_CRA_FLAGS,				\
	.base.cra_ctxsize = sizeof(struct gpu_aes_tfm_ctx),		\
	.base.cra_module = THIS_MODULE,					\
	.setkey = gpu_aes_setkey,					\
	.encrypt = gpu_aes_encrypt,					\
	.decrypt = gpu_aes_decrypt,					\
	.init = gpu_aes_init_tfm,					\
	.exit = gpu_aes_exit_tfm

static struct gpu_aes_skcipher gpu_aes_skciphers[] = {
	{
		.alg = {
			GPU_AES_SKCIPHER_COMMON,
			.base.cra_name = "ecb(aes)",
			.base.cra_driver_name = "ecb-aes-gpu",
			.base.cra_blocksize = AES_BLOCK_SIZE,
			.min_keysize = AES_MIN_KEY_SIZE,
			.max_keysize = AES_MAX_KEY_SIZE,
		},
		.desc = &gpu_aes_ecb_desc,
	}, {
		.alg = {
			GPU_AES_SKCIPHER_COMMON,
			.base.cra_name = "ctr(aes)",
			.base.cra_driver_name = "ctr-aes-gpu",
			.base.cra_blocksize = 1,
			.min_keysize = AES_MIN_KEY_SIZE,
			.max_keysize = AES_MAX_KEY_SIZE,
			.ivsize = AES_BLOCK_SIZE,
			.chunksize = AES_BLOCK_SIZE,
		},
		.desc = &gpu_aes_ctr_desc,
	}, {
		.alg = {
			GPU_AES_SKCIPHER_COMMON,
			.base.cra_name = "xts(aes)",
			.base.cra_driver_name = "xts-aes-gpu",
			.base.cra_blocksize = AES_BLOCK_SIZE,
			.min_keysize = 2 * AES_MIN_KEY_SIZE,
			.max_keysize = 2 * AES_MAX_KEY_SIZE,
			.ivsize = AES_BLOCK_SIZE,
		},
		.desc = &gpu_aes_xts_desc,
	},
};

int gpu_aes_skcipher_register(void)
{
	struct gpu_aes_skcipher *a;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(gpu_aes_skciphers); i++) {
		a = &gpu_aes_skciphers[i];
		a->alg.base.cra_priority = gpu_aes_priority +
					   a->desc->priority_above;
		ret = crypto_register_skcipher(&a->alg);
		if (ret)
			goto err;
	}
	return 0;
err:
	while (i--)
		crypto_unregister_skcipher(&gpu_aes_skciphers[i].alg);
	return ret;
}

void gpu_aes_skcipher_unregister(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gpu_aes_skciphers); i++)
		crypto_unregister_skcipher(&gpu_aes_skciphers[i].alg);
}
