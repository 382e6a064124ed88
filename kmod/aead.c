// SPDX-License-Identifier: GPL-2.0-only
/*
 * aead.c - the AEAD rows of the mode table (gcm-aes-gpu): through the
 * ring, with the same routing and fallback rules as the skciphers
 * (skcipher.c), weighed on text plus associated data.  An AEAD of the
 * table is GCM's shape: a 96-bit IV, a tag of crypto_gcm_check_authsize()'s
 * lengths.
 *
 * The request's scatterlists hold the associated data, then the text, then
 * (decryption) the received tag; cryptlen counts the tag when decrypting.
 * The ring gets text, tag and associated data in the ABI's order (struct
 * gpu_aes_sqe) so the text starts on GPU_AES_DATA_ALIGN.  Only the text
 * (and, encrypting, the tag) is copied back: like the aesni and generic
 * drivers, the associated data in dst is left as the caller put it.  A
 * decryption whose tag does not match completes with -EBADMSG and copies
 * nothing, so no unauthenticated plaintext reaches the caller.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aes.h>
#include <crypto/gcm.h>
#include <crypto/internal/aead.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "aead.h"
#include "dispatch.h"
#include "params.h"
#include "ring.h"
#include "skcipher.h"
#include "stats.h"

static struct gpu_aes_aead_req_ctx *gpu_aes_aead_job_rctx(struct gpu_aes_job *job)
{
	return container_of(job, struct gpu_aes_aead_req_ctx, job);
}

/* The CPU driver gpu_aes displaced (skcipher.c says why and how). */
static int gpu_aes_aead_job_cpu_crypt(struct gpu_aes_job *job, u32 flags)
{
	struct gpu_aes_aead_req_ctx *rctx = gpu_aes_aead_job_rctx(job);
	struct aead_request *req = rctx->req;
	struct gpu_aes_aead_ctx *ctx = crypto_aead_ctx(crypto_aead_reqtfm(req));
	struct aead_request *sub = &rctx->fallback_req;

	aead_request_set_tfm(sub, ctx->fallback);
	aead_request_set_callback(sub, flags, gpu_aes_fallback_done, job);
	aead_request_set_crypt(sub, req->src, req->dst, req->cryptlen, req->iv);
	aead_request_set_ad(sub, req->assoclen);
	if (job->dir == GPU_AES_DIR_DECRYPT)
		return crypto_aead_decrypt(sub);
	return crypto_aead_encrypt(sub);
}

static void gpu_aes_aead_complete(struct gpu_aes_job *job, int err)
{
	aead_request_complete(gpu_aes_aead_job_rctx(job)->req, err);
}

static const struct gpu_aes_job_ops gpu_aes_aead_job_ops = {
	.copy_in = gpu_aes_aead_copy_in,
	.copy_out = gpu_aes_aead_copy_out,
	.cpu_crypt = gpu_aes_aead_job_cpu_crypt,
	.complete = gpu_aes_aead_complete,
};

static int gpu_aes_aead_crypt(struct aead_request *req, u8 dir)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	struct gpu_aes_aead_ctx *ctx = crypto_aead_ctx(tfm);
	struct gpu_aes_aead_req_ctx *rctx = aead_request_ctx(req);
	unsigned int authsize = crypto_aead_authsize(tfm);
	struct gpu_aes_job *job = &rctx->job;
	unsigned int len = req->cryptlen;

	if (dir == GPU_AES_DIR_DECRYPT) {
		/* crypto_aead_decrypt() checks this too; a direct caller may not. */
		if (len < authsize)
			return -EINVAL;
		len -= authsize;
	}
	rctx->req = req;
	gpu_aes_job_init(job, &gpu_aes_aead_job_ops, ctx->desc,
			 &ctx->key, req->src, req->dst, req->iv, len,
			 req->base.flags, dir);
	job->aad_len = req->assoclen;
	job->auth_len = authsize;
	return gpu_aes_route(&gpu_aes_ring, job, (u64)len + req->assoclen);
}

static int gpu_aes_aead_encrypt(struct aead_request *req)
{
	return gpu_aes_aead_crypt(req, GPU_AES_DIR_ENCRYPT);
}

static int gpu_aes_aead_decrypt(struct aead_request *req)
{
	return gpu_aes_aead_crypt(req, GPU_AES_DIR_DECRYPT);
}

static int gpu_aes_aead_setkey(struct crypto_aead *tfm, const u8 *key,
			       unsigned int len)
{
	struct gpu_aes_aead_ctx *ctx = crypto_aead_ctx(tfm);
	int ret;

	crypto_aead_clear_flags(ctx->fallback, CRYPTO_TFM_REQ_MASK);
	crypto_aead_set_flags(ctx->fallback, crypto_aead_get_flags(tfm) &
			      CRYPTO_TFM_REQ_MASK);
	ret = crypto_aead_setkey(ctx->fallback, key, len);
	if (ret)
		return ret;
	return gpu_aes_key_set(&gpu_aes_ring, &ctx->key, ctx->desc->alg, key,
			       len);
}

static int gpu_aes_aead_setauthsize(struct crypto_aead *tfm,
				    unsigned int authsize)
{
	struct gpu_aes_aead_ctx *ctx = crypto_aead_ctx(tfm);
	int ret;

	ret = crypto_gcm_check_authsize(authsize);
	if (ret)
		return ret;
	return crypto_aead_setauthsize(ctx->fallback, authsize);
}

/* A registered AEAD and the descriptor of its algorithm. */
struct gpu_aes_aead {
	struct aead_alg alg;
	const struct gpu_aes_alg_desc *desc;
};

static int gpu_aes_aead_init_tfm(struct crypto_aead *tfm)
{
	struct gpu_aes_aead_ctx *ctx = crypto_aead_ctx(tfm);
	struct crypto_aead *fb;

	fb = crypto_alloc_aead(crypto_tfm_alg_name(&tfm->base), 0,
			       CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(fb))
		return PTR_ERR(fb);
	ctx->fallback = fb;
	ctx->desc = container_of(crypto_aead_alg(tfm), struct gpu_aes_aead,
				 alg)->desc;
	gpu_aes_dispatch_note_cpu_driver(ctx->desc,
					 crypto_tfm_alg_driver_name(crypto_aead_tfm(fb)));
	gpu_aes_key_init(&ctx->key);
	crypto_aead_set_reqsize(tfm, sizeof(struct gpu_aes_aead_req_ctx) +
				crypto_aead_reqsize(fb));
	return 0;
}

static void gpu_aes_aead_exit_tfm(struct crypto_aead *tfm)
{
	struct gpu_aes_aead_ctx *ctx = crypto_aead_ctx(tfm);

	gpu_aes_key_release(&gpu_aes_ring, &ctx->key);
	crypto_free_aead(ctx->fallback);
}

/* One per AEAD descriptor (alg.c), filled in at registration. */
static struct gpu_aes_aead gpu_aes_aeads[GPU_AES_NR_ALGS];
static unsigned int gpu_aes_nr_aeads;

static void gpu_aes_aead_fill(struct gpu_aes_aead *a,
			      const struct gpu_aes_alg_desc *d)
{
	struct aead_alg *alg = &a->alg;

	memset(a, 0, sizeof(*a));
	a->desc = d;
	gpu_aes_cra_fill(&alg->base, d, sizeof(struct gpu_aes_aead_ctx));
	alg->ivsize = d->iv_bytes;
	alg->maxauthsize = AES_BLOCK_SIZE;
	alg->chunksize = AES_BLOCK_SIZE;
	alg->setkey = gpu_aes_aead_setkey;
	alg->setauthsize = gpu_aes_aead_setauthsize;
	alg->encrypt = gpu_aes_aead_encrypt;
	alg->decrypt = gpu_aes_aead_decrypt;
	alg->init = gpu_aes_aead_init_tfm;
	alg->exit = gpu_aes_aead_exit_tfm;
}

int gpu_aes_aead_register(void)
{
	const struct gpu_aes_alg_desc *d;
	unsigned int i;
	int ret;

	for (i = 0; i < GPU_AES_NR_ALGS; i++) {
		d = gpu_aes_alg_row_desc(i);
		if (!d->aead)
			continue;
		/* crypto_has_aead(), which 6.1 lacks */
		if (!crypto_has_alg(d->cra_name, CRYPTO_ALG_TYPE_AEAD,
				    CRYPTO_ALG_TYPE_MASK |
				    CRYPTO_ALG_NEED_FALLBACK)) {
			pr_info("%s: this kernel has no %s to fall back on; not registered\n",
				d->driver, d->cra_name);
			gpu_aes_alg_mark_absent(d);
			continue;
		}
		gpu_aes_aead_fill(&gpu_aes_aeads[gpu_aes_nr_aeads], d);
		ret = crypto_register_aead(&gpu_aes_aeads[gpu_aes_nr_aeads].alg);
		if (ret)
			goto err;
		gpu_aes_nr_aeads++;
	}
	return 0;
err:
	gpu_aes_aead_unregister();
	return ret;
}

void gpu_aes_aead_unregister(void)
{
	while (gpu_aes_nr_aeads)
		crypto_unregister_aead(&gpu_aes_aeads[--gpu_aes_nr_aeads].alg);
}
