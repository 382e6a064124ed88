// SPDX-License-Identifier: GPL-2.0-only
/*
 * skcipher.c - ecb-aes-gpu, ctr-aes-gpu and xts-aes-gpu: the crypto API
 * side and the CPU fallback.
 *
 * Routing (kmod/README.md, "Routing of a request", gpu_aes_route()):
 * requests shorter than ring_min_bytes or longer than ring_max_bytes, and
 * requests without MAY_BACKLOG, run at once on the fallback and return
 * synchronously; the rest go to the ring (-EINPROGRESS), the backlog
 * (-EBUSY) or, with no helper, the fallback too.  The fallback is a synchronous
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

#include "params.h"
#include "ring.h"
#include "skcipher.h"
#include "stats.h"

static struct gpu_aes_req_ctx *gpu_aes_job_rctx(struct gpu_aes_job *job)
{
	return container_of(job, struct gpu_aes_req_ctx, job);
}

static int gpu_aes_cpu_crypt(struct skcipher_request *req, u32 flags)
{
	struct gpu_aes_tfm_ctx *ctx =
		crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct gpu_aes_req_ctx *rctx = skcipher_request_ctx(req);
	struct skcipher_request *sub = &rctx->fallback_req;

	skcipher_request_set_tfm(sub, ctx->fallback);
	skcipher_request_set_callback(sub, flags, NULL, NULL);
	skcipher_request_set_crypt(sub, req->src, req->dst, req->cryptlen,
				   req->iv);
	if (rctx->job.dir == GPU_AES_DIR_DECRYPT)
		return crypto_skcipher_decrypt(sub);
	return crypto_skcipher_encrypt(sub);
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

static void gpu_aes_sk_copy_in(struct gpu_aes_job *job, u8 *slot)
{
	sg_pcopy_to_buffer(job->src, sg_nents(job->src), slot, job->len, 0);
}

/* XTS leaves the IV as it was, like the xts template. */
static void gpu_aes_sk_copy_out(struct gpu_aes_job *job, const u8 *slot)
{
	sg_pcopy_from_buffer(job->dst, sg_nents(job->dst), slot, job->len, 0);
	if (job->alg == GPU_AES_ALG_CTR)
		gpu_aes_ctr_advance(job->iv, job->len);
}

static int gpu_aes_sk_cpu_crypt(struct gpu_aes_job *job)
{
	return gpu_aes_cpu_crypt(gpu_aes_job_rctx(job)->req, 0);
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
	struct gpu_aes_job *job = &rctx->job;
	unsigned int len = req->cryptlen;
	int ret;

	if (ctx->mode == GPU_AES_ALG_ECB && !IS_ALIGNED(len, AES_BLOCK_SIZE))
		return -EINVAL;
	/* Ciphertext stealing needs one whole block to steal from. */
	if (ctx->mode == GPU_AES_ALG_XTS && len < AES_BLOCK_SIZE)
		return -EINVAL;
	if (!len)
		return 0;
	rctx->req = req;
	job->ops = &gpu_aes_sk_job_ops;
	job->key = &ctx->key;
	job->src = req->src;
	job->dst = req->dst;
	job->iv = req->iv;
	job->len = len;
	job->aad_len = 0;
	job->alg = ctx->mode;
	job->dir = dir;
	job->auth_len = 0;
	job->may_backlog = req->base.flags & CRYPTO_TFM_REQ_MAY_BACKLOG;
	job->backlogged = false;
	ret = gpu_aes_route(&gpu_aes_ring, job, len);
	if (ret != GPU_AES_RING_FALLBACK)
		return ret;
	return gpu_aes_cpu_crypt(req,
				 req->base.flags & CRYPTO_TFM_REQ_MAY_SLEEP);
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

	if (ctx->mode == GPU_AES_ALG_XTS) {
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
	if (ctx->mode == GPU_AES_ALG_XTS)
		return gpu_aes_key_set_xts(&gpu_aes_ring, &ctx->key, key, len);
	return gpu_aes_key_set(&gpu_aes_ring, &ctx->key, key, len);
}

static struct skcipher_alg gpu_aes_algs[];

static int gpu_aes_init_tfm(struct crypto_skcipher *tfm)
{
	struct gpu_aes_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct crypto_skcipher *fb;

	fb = crypto_alloc_skcipher(crypto_tfm_alg_name(&tfm->base), 0,
				   CRYPTO_ALG_ASYNC | CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(fb))
		return PTR_ERR(fb);
	ctx->fallback = fb;
	/* gpu_aes_algs[] is in enum gpu_aes_alg order. */
	ctx->mode = GPU_AES_ALG_ECB + (crypto_skcipher_alg(tfm) - gpu_aes_algs);
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

static struct skcipher_alg gpu_aes_algs[] = {
	{
		.base = {
			.cra_name = "ecb(aes)",
			.cra_driver_name = "ecb-aes-gpu",
			.cra_flags = GPU_AES_CRA_FLAGS,
			.cra_blocksize = AES_BLOCK_SIZE,
			.cra_ctxsize = sizeof(struct gpu_aes_tfm_ctx),
			.cra_module = THIS_MODULE,
		},
		.min_keysize = AES_MIN_KEY_SIZE,
		.max_keysize = AES_MAX_KEY_SIZE,
		.setkey = gpu_aes_setkey,
		.encrypt = gpu_aes_encrypt,
		.decrypt = gpu_aes_decrypt,
		.init = gpu_aes_init_tfm,
		.exit = gpu_aes_exit_tfm,
	}, {
		.base = {
			.cra_name = "ctr(aes)",
			.cra_driver_name = "ctr-aes-gpu",
			.cra_flags = GPU_AES_CRA_FLAGS,
			.cra_blocksize = 1,
			.cra_ctxsize = sizeof(struct gpu_aes_tfm_ctx),
			.cra_module = THIS_MODULE,
		},
		.min_keysize = AES_MIN_KEY_SIZE,
		.max_keysize = AES_MAX_KEY_SIZE,
		.ivsize = AES_BLOCK_SIZE,
		.chunksize = AES_BLOCK_SIZE,
		.setkey = gpu_aes_setkey,
		.encrypt = gpu_aes_encrypt,
		.decrypt = gpu_aes_decrypt,
		.init = gpu_aes_init_tfm,
		.exit = gpu_aes_exit_tfm,
	}, {
		.base = {
			.cra_name = "xts(aes)",
			.cra_driver_name = "xts-aes-gpu",
			.cra_flags = GPU_AES_CRA_FLAGS,
			.cra_blocksize = AES_BLOCK_SIZE,
			.cra_ctxsize = sizeof(struct gpu_aes_tfm_ctx),
			.cra_module = THIS_MODULE,
		},
		.min_keysize = 2 * AES_MIN_KEY_SIZE,
		.max_keysize = 2 * AES_MAX_KEY_SIZE,
		.ivsize = AES_BLOCK_SIZE,
		.setkey = gpu_aes_setkey,
		.encrypt = gpu_aes_encrypt,
		.decrypt = gpu_aes_decrypt,
		.init = gpu_aes_init_tfm,
		.exit = gpu_aes_exit_tfm,
	},
};

int gpu_aes_skcipher_register(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gpu_aes_algs); i++)
		gpu_aes_algs[i].base.cra_priority = gpu_aes_priority;
	/* See gpu_aes_priority: above any template over our ecb. */
	gpu_aes_algs[GPU_AES_ALG_XTS - GPU_AES_ALG_ECB].base.cra_priority++;
	return crypto_register_skciphers(gpu_aes_algs,
					 ARRAY_SIZE(gpu_aes_algs));
}

void gpu_aes_skcipher_unregister(void)
{
	crypto_unregister_skciphers(gpu_aes_algs, ARRAY_SIZE(gpu_aes_algs));
}
