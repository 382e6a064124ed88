// SPDX-License-Identifier: GPL-2.0-only
/*
 * skcipher.c - the skcipher rows of alg.c's table: the crypto API side and
 * the CPU fallback, one registration per descriptor.
 *
 * Routing (kmod/README.md, "Routing of a request", gpu_aes_route() in
 * dispatch.c): a request the policy or a hard bound sends to the CPU runs
 * at once on the fallback and returns synchronously; the rest go to the
 * ring (-EINPROGRESS), the backlog (-EBUSY) or, given back by the ring,
 * the fallback too.
 *
 * The fallback is the driver the consumer would have had without us: the
 * best implementation of the same algorithm, asynchronous ones included.
 * Masking CRYPTO_ALG_ASYNC would get x86 a template over the one-block
 * aes-aesni cipher (xts(ecb(aes-aesni)), gcm_base(ctr(aes-aesni),
 * ghash-generic)), an FPU section per 16 bytes, because every fast x86
 * driver sits behind an asynchronous SIMD wrapper.  That wrapper answers
 * synchronously wherever the FPU is usable and defers to cryptd where it
 * is not; its -EINPROGRESS and -EBUSY reach our caller as its own would
 * have (gpu_aes_job_cpu_done()).  CRYPTO_ALG_NEED_FALLBACK stays masked,
 * so the fallback is never one of our drivers (nor anything else that
 * needs one).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

/* The CPU driver's callback: @data is the job (either request type). */
#ifdef GPU_AES_COMPLETION_TAKES_DATA
void gpu_aes_fallback_done(void *data, int err)
{
	gpu_aes_job_cpu_done(data, err);
}
#else
void gpu_aes_fallback_done(struct crypto_async_request *areq, int err)
{
	gpu_aes_job_cpu_done(areq->data, err);
}
#endif

static int gpu_aes_sk_cpu_crypt(struct gpu_aes_job *job, u32 flags)
{
	struct gpu_aes_req_ctx *rctx = gpu_aes_job_rctx(job);
	struct skcipher_request *req = rctx->req;
	struct gpu_aes_tfm_ctx *ctx =
		crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct skcipher_request *sub = &rctx->fallback_req;
	u8 *iv = req->iv;

	if (job->desc->out_iv == GPU_AES_OUT_IV_KEEP && job->desc->iv_bytes) {
		memcpy(rctx->fallback_iv, req->iv, job->desc->iv_bytes);
		iv = rctx->fallback_iv;
	}
	skcipher_request_set_tfm(sub, ctx->fallback);
	skcipher_request_set_callback(sub, flags, gpu_aes_fallback_done, job);
	skcipher_request_set_crypt(sub, req->src, req->dst, req->cryptlen, iv);
	if (job->dir == GPU_AES_DIR_DECRYPT)
		return crypto_skcipher_decrypt(sub);
	return crypto_skcipher_encrypt(sub);
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

	/* The ABI's rule is the crypto API's: the helper checks it too. */
	if (!gpu_aes_alg_len_valid(ctx->desc->alg, len))
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

	/* XTS's own checks: in FIPS mode, equal halves are refused. */
	if (ctx->desc->key_parts == 2) {
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
	return gpu_aes_key_set(&gpu_aes_ring, &ctx->key, ctx->desc->alg, key,
			       len);
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
				   CRYPTO_ALG_NEED_FALLBACK);
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

void gpu_aes_cra_fill(struct crypto_alg *base, const struct gpu_aes_alg_desc *d,
		      unsigned int ctxsize)
{
	strscpy(base->cra_name, d->cra_name, CRYPTO_MAX_ALG_NAME);
	strscpy(base->cra_driver_name, d->driver, CRYPTO_MAX_ALG_NAME);
	base->cra_priority = gpu_aes_priority + d->priority_above;
	base->cra_flags = GPU_AES_CRA_FLAGS;
	base->cra_blocksize = d->blocksize;
	base->cra_ctxsize = ctxsize;
	base->cra_module = THIS_MODULE;
}

/* One per skcipher descriptor (alg.c), filled in at registration. */
static struct gpu_aes_skcipher gpu_aes_skciphers[GPU_AES_NR_ALGS];
static unsigned int gpu_aes_nr_skciphers;

static void gpu_aes_skcipher_fill(struct gpu_aes_skcipher *a,
				  const struct gpu_aes_alg_desc *d)
{
	struct skcipher_alg *alg = &a->alg;

	memset(a, 0, sizeof(*a));
	a->desc = d;
	gpu_aes_cra_fill(&alg->base, d, sizeof(struct gpu_aes_tfm_ctx));
	alg->min_keysize = d->key_parts * AES_MIN_KEY_SIZE;
	alg->max_keysize = d->key_parts * AES_MAX_KEY_SIZE;
	alg->ivsize = d->iv_bytes;
	alg->chunksize = d->chunksize;
	alg->setkey = gpu_aes_setkey;
	alg->encrypt = gpu_aes_encrypt;
	alg->decrypt = gpu_aes_decrypt;
	alg->init = gpu_aes_init_tfm;
	alg->exit = gpu_aes_exit_tfm;
}

int gpu_aes_skcipher_register(void)
{
	const struct gpu_aes_alg_desc *d;
	unsigned int i;
	int ret;

	for (i = 0; i < GPU_AES_NR_ALGS; i++) {
		d = gpu_aes_alg_row_desc(i);
		if (d->aead)
			continue;
		if (!crypto_has_skcipher(d->cra_name, 0,
					 CRYPTO_ALG_NEED_FALLBACK)) {
			pr_info("%s: this kernel has no %s to fall back on; not registered\n",
				d->driver, d->cra_name);
			gpu_aes_alg_mark_absent(d);
			continue;
		}
		gpu_aes_skcipher_fill(&gpu_aes_skciphers[gpu_aes_nr_skciphers], d);
		ret = crypto_register_skcipher(&gpu_aes_skciphers[gpu_aes_nr_skciphers].alg);
		if (ret)
			goto err;
		gpu_aes_nr_skciphers++;
	}
	return 0;
err:
	gpu_aes_skcipher_unregister();
	return ret;
}

void gpu_aes_skcipher_unregister(void)
{
	while (gpu_aes_nr_skciphers)
		crypto_unregister_skcipher(&gpu_aes_skciphers[--gpu_aes_nr_skciphers].alg);
}
