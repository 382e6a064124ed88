// SPDX-License-Identifier: GPL-2.0-only
/*
 * The asynchronous CPU driver of async_driver.h: a worker runs the
 * kernel's own synchronous ctr(aes) or gcm(aes) and calls back, in the
 * order and with the values the crypto API promises (-EBUSY is followed by
 * -EINPROGRESS, then the result; -EINPROGRESS by the result alone).
 */
#include <crypto/gcm.h>
#include <crypto/internal/aead.h>
#include <crypto/internal/skcipher.h>
#include <linux/bottom_half.h>
#include <linux/module.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "async_driver.h"

struct gt_async gt_async;

/* Requests handed to the worker that have not called back yet. */
static atomic_t gt_async_pending = ATOMIC_INIT(0);

/*
 * What a request is answered now: < 0 an answer without computing it
 * (-EINPROGRESS and -EBUSY: the worker will; -ENOSPC: refused), 0 compute
 * it here.  @notice: the worker owes the caller an -EINPROGRESS first.
 */
static int gt_async_answer(u32 flags, bool *notice)
{
	atomic_inc(&gt_async.calls);
	WRITE_ONCE(gt_async.last_flags, flags);
	*notice = false;
	switch (READ_ONCE(gt_async.mode)) {
	case GT_ASYNC_DEFER:
		break;
	case GT_ASYNC_BUSY:
		if (!(flags & CRYPTO_TFM_REQ_MAY_BACKLOG))
			return -ENOSPC;
		*notice = true;
		break;
	default:
		return 0;
	}
	atomic_inc(&gt_async.deferred);
	atomic_inc(&gt_async_pending);
	return *notice ? -EBUSY : -EINPROGRESS;
}

static void gt_async_called_back(void)
{
	if (atomic_dec_and_test(&gt_async_pending))
		wake_up_var(&gt_async_pending);
}

void gt_async_drain(void)
{
	wait_var_event(&gt_async_pending, !atomic_read(&gt_async_pending));
}

/* ---- ctr(aes) ---- */

struct gt_async_sk_ctx {
	struct crypto_skcipher *inner;
};

struct gt_async_sk_rctx {
	struct work_struct work;
	struct skcipher_request *req;
	bool decrypt;
	bool notice;
	struct skcipher_request sub;	/* last: its context follows */
};

static int gt_async_sk_run(struct skcipher_request *req)
{
	struct gt_async_sk_ctx *ctx =
		crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct gt_async_sk_rctx *rctx = skcipher_request_ctx(req);

	skcipher_request_set_tfm(&rctx->sub, ctx->inner);
	skcipher_request_set_callback(&rctx->sub, 0, NULL, NULL);
	skcipher_request_set_crypt(&rctx->sub, req->src, req->dst,
				   req->cryptlen, req->iv);
	return rctx->decrypt ? crypto_skcipher_decrypt(&rctx->sub) :
			       crypto_skcipher_encrypt(&rctx->sub);
}

static void gt_async_sk_work(struct work_struct *work)
{
	struct gt_async_sk_rctx *rctx =
		container_of(work, struct gt_async_sk_rctx, work);
	struct skcipher_request *req = rctx->req;
	int err;

	if (rctx->notice) {
		local_bh_disable();
		skcipher_request_complete(req, -EINPROGRESS);
		local_bh_enable();
	}
	err = gt_async_sk_run(req);
	local_bh_disable();
	skcipher_request_complete(req, err);
	local_bh_enable();
	gt_async_called_back();
}

static int gt_async_sk_crypt(struct skcipher_request *req, bool decrypt)
{
	struct gt_async_sk_rctx *rctx = skcipher_request_ctx(req);
	int ret = gt_async_answer(req->base.flags, &rctx->notice);

	rctx->req = req;
	rctx->decrypt = decrypt;
	if (!ret)
		return gt_async_sk_run(req);
	if (ret != -ENOSPC) {
		INIT_WORK(&rctx->work, gt_async_sk_work);
		queue_work(system_unbound_wq, &rctx->work);
	}
	return ret;
}

static int gt_async_sk_encrypt(struct skcipher_request *req)
{
	return gt_async_sk_crypt(req, false);
}

static int gt_async_sk_decrypt(struct skcipher_request *req)
{
	return gt_async_sk_crypt(req, true);
}

static int gt_async_sk_setkey(struct crypto_skcipher *tfm, const u8 *key,
			      unsigned int len)
{
	struct gt_async_sk_ctx *ctx = crypto_skcipher_ctx(tfm);

	return crypto_skcipher_setkey(ctx->inner, key, len);
}

static int gt_async_sk_init(struct crypto_skcipher *tfm)
{
	struct gt_async_sk_ctx *ctx = crypto_skcipher_ctx(tfm);

	/* The kernel's synchronous implementation: never ourselves again. */
	ctx->inner = crypto_alloc_skcipher("ctr(aes)", 0, CRYPTO_ALG_ASYNC |
					   CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(ctx->inner))
		return PTR_ERR(ctx->inner);
	crypto_skcipher_set_reqsize(tfm, sizeof(struct gt_async_sk_rctx) +
				    crypto_skcipher_reqsize(ctx->inner));
	return 0;
}

static void gt_async_sk_exit(struct crypto_skcipher *tfm)
{
	struct gt_async_sk_ctx *ctx = crypto_skcipher_ctx(tfm);

	crypto_free_skcipher(ctx->inner);
}

static struct skcipher_alg gt_async_ctr = {
	.base = {
		.cra_name = "ctr(aes)",
		.cra_driver_name = GT_ASYNC_CTR_DRIVER,
		.cra_priority = GT_ASYNC_PRIORITY,
		.cra_flags = CRYPTO_ALG_ASYNC,
		.cra_blocksize = 1,
		.cra_ctxsize = sizeof(struct gt_async_sk_ctx),
		.cra_module = THIS_MODULE,
	},
	.min_keysize = AES_MIN_KEY_SIZE,
	.max_keysize = AES_MAX_KEY_SIZE,
	.ivsize = AES_BLOCK_SIZE,
	.chunksize = AES_BLOCK_SIZE,
	.setkey = gt_async_sk_setkey,
	.encrypt = gt_async_sk_encrypt,
	.decrypt = gt_async_sk_decrypt,
	.init = gt_async_sk_init,
	.exit = gt_async_sk_exit,
};

/* ---- gcm(aes) ---- */

struct gt_async_aead_ctx {
	struct crypto_aead *inner;
};

struct gt_async_aead_rctx {
	struct work_struct work;
	struct aead_request *req;
	bool decrypt;
	bool notice;
	struct aead_request sub;	/* last: its context follows */
};

static int gt_async_aead_run(struct aead_request *req)
{
	struct gt_async_aead_ctx *ctx = crypto_aead_ctx(crypto_aead_reqtfm(req));
	struct gt_async_aead_rctx *rctx = aead_request_ctx(req);

	aead_request_set_tfm(&rctx->sub, ctx->inner);
	aead_request_set_callback(&rctx->sub, 0, NULL, NULL);
	aead_request_set_crypt(&rctx->sub, req->src, req->dst, req->cryptlen,
			       req->iv);
	aead_request_set_ad(&rctx->sub, req->assoclen);
	return rctx->decrypt ? crypto_aead_decrypt(&rctx->sub) :
			       crypto_aead_encrypt(&rctx->sub);
}

static void gt_async_aead_work(struct work_struct *work)
{
	struct gt_async_aead_rctx *rctx =
		container_of(work, struct gt_async_aead_rctx, work);
	struct aead_request *req = rctx->req;
	int err;

	if (rctx->notice) {
		local_bh_disable();
		aead_request_complete(req, -EINPROGRESS);
		local_bh_enable();
	}
	err = gt_async_aead_run(req);
	local_bh_disable();
	aead_request_complete(req, err);
	local_bh_enable();
	gt_async_called_back();
}

static int gt_async_aead_crypt(struct aead_request *req, bool decrypt)
{
	struct gt_async_aead_rctx *rctx = aead_request_ctx(req);
	int ret = gt_async_answer(req->base.flags, &rctx->notice);

	rctx->req = req;
	rctx->decrypt = decrypt;
	if (!ret)
		return gt_async_aead_run(req);
	if (ret != -ENOSPC) {
		INIT_WORK(&rctx->work, gt_async_aead_work);
		queue_work(system_unbound_wq, &rctx->work);
	}
	return ret;
}

static int gt_async_aead_encrypt(struct aead_request *req)
{
	return gt_async_aead_crypt(req, false);
}

static int gt_async_aead_decrypt(struct aead_request *req)
{
	return gt_async_aead_crypt(req, true);
}

static int gt_async_aead_setkey(struct crypto_aead *tfm, const u8 *key,
				unsigned int len)
{
	struct gt_async_aead_ctx *ctx = crypto_aead_ctx(tfm);

	return crypto_aead_setkey(ctx->inner, key, len);
}

static int gt_async_aead_setauthsize(struct crypto_aead *tfm,
				     unsigned int authsize)
{
	struct gt_async_aead_ctx *ctx = crypto_aead_ctx(tfm);

	return crypto_aead_setauthsize(ctx->inner, authsize);
}

static int gt_async_aead_init(struct crypto_aead *tfm)
{
	struct gt_async_aead_ctx *ctx = crypto_aead_ctx(tfm);

	ctx->inner = crypto_alloc_aead("gcm(aes)", 0, CRYPTO_ALG_ASYNC |
				       CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(ctx->inner))
		return PTR_ERR(ctx->inner);
	crypto_aead_set_reqsize(tfm, sizeof(struct gt_async_aead_rctx) +
				crypto_aead_reqsize(ctx->inner));
	return 0;
}

static void gt_async_aead_exit(struct crypto_aead *tfm)
{
	struct gt_async_aead_ctx *ctx = crypto_aead_ctx(tfm);

	crypto_free_aead(ctx->inner);
}

static struct aead_alg gt_async_gcm = {
	.base = {
		.cra_name = "gcm(aes)",
		.cra_driver_name = GT_ASYNC_GCM_DRIVER,
		.cra_priority = GT_ASYNC_PRIORITY,
		.cra_flags = CRYPTO_ALG_ASYNC,
		.cra_blocksize = 1,
		.cra_ctxsize = sizeof(struct gt_async_aead_ctx),
		.cra_module = THIS_MODULE,
	},
	.ivsize = GCM_AES_IV_SIZE,
	.maxauthsize = AES_BLOCK_SIZE,
	.chunksize = AES_BLOCK_SIZE,
	.setkey = gt_async_aead_setkey,
	.setauthsize = gt_async_aead_setauthsize,
	.encrypt = gt_async_aead_encrypt,
	.decrypt = gt_async_aead_decrypt,
	.init = gt_async_aead_init,
	.exit = gt_async_aead_exit,
};

/* Looking a driver up by name waits for its self-test; it must pass. */
static int gt_async_tested(void)
{
	struct crypto_skcipher *sk;
	struct crypto_aead *aead;

	sk = crypto_alloc_skcipher(GT_ASYNC_CTR_DRIVER, 0, 0);
	if (IS_ERR(sk))
		return PTR_ERR(sk);
	crypto_free_skcipher(sk);
	aead = crypto_alloc_aead(GT_ASYNC_GCM_DRIVER, 0, 0);
	if (IS_ERR(aead))
		return PTR_ERR(aead);
	crypto_free_aead(aead);
	return 0;
}

int gt_async_register(void)
{
	int ret;

	WRITE_ONCE(gt_async.mode, GT_ASYNC_SYNC);
	ret = crypto_register_skcipher(&gt_async_ctr);
	if (ret)
		return ret;
	ret = crypto_register_aead(&gt_async_gcm);
	if (ret)
		goto err_ctr;
	ret = gt_async_tested();
	if (ret)
		goto err_gcm;
	return 0;
err_gcm:
	crypto_unregister_aead(&gt_async_gcm);
err_ctr:
	crypto_unregister_skcipher(&gt_async_ctr);
	return ret;
}

void gt_async_unregister(void)
{
	gt_async_drain();
	crypto_unregister_aead(&gt_async_gcm);
	crypto_unregister_skcipher(&gt_async_ctr);
}
