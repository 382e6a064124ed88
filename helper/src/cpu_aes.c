// SPDX-License-Identifier: GPL-2.0-only
/* cpu_aes.c - one request's AES with OpenSSL's EVP (cpu_aes.h). */
#include <string.h>

#include <openssl/crypto.h>

#include "../../uapi/gpu_aes.h"
#include "cpu_aes.h"
#include "secret.h"
#include "xts_ecb.h"

/*
 * OpenSSL 3 refuses an XTS data unit of more than 2^20 blocks (IEEE
 * 1619's limit); the kernel's xts(aes) has none, so longer ones are
 * composed.
 */
#define EVP_XTS_MAX_LEN	(16U << 20)

enum {
	CTX_ECB_ENC, CTX_ECB_DEC, CTX_CTR,
	CTX_XTS_ENC, CTX_XTS_DEC,
	CTX_TWEAK,		/* AES-ECB encryption, XTS tweak key */
	CTX_GCM_ENC, CTX_GCM_DEC,
	CTX_CBC_ENC, CTX_CBC_DEC,
	NR_CTX
};

_Static_assert(NR_CTX == GPU_AES_CPU_NR_CTX, "one context per use");

static const EVP_CIPHER *cipher_for(unsigned int idx, uint32_t key_len)
{
	int k = key_len == 16 ? 0 : key_len == 24 ? 1 : 2;

	switch (idx) {
	case CTX_ECB_ENC:
	case CTX_ECB_DEC:
	case CTX_TWEAK:
		return k == 0 ? EVP_aes_128_ecb() :
		       k == 1 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
	case CTX_CTR:
		return k == 0 ? EVP_aes_128_ctr() :
		       k == 1 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
	case CTX_XTS_ENC:
	case CTX_XTS_DEC:
		/* Never asked for 192: such keys are composed. */
		return k == 0 ? EVP_aes_128_xts() : EVP_aes_256_xts();
	case CTX_CBC_ENC:
	case CTX_CBC_DEC:
		return k == 0 ? EVP_aes_128_cbc() :
		       k == 1 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
	default:
		return k == 0 ? EVP_aes_128_gcm() :
		       k == 1 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
	}
}

void gpu_aes_cpu_key_wipe(struct gpu_aes_cpu_key *kc)
{
	int i;

	/* EVP_CIPHER_CTX_free cleanses the expanded key it holds. */
	for (i = 0; i < NR_CTX; i++) {
		EVP_CIPHER_CTX_free(kc->ctx[i]);
		kc->ctx[i] = NULL;
	}
	explicit_bzero(kc->key, sizeof(kc->key));
	kc->key_len = 0;
	kc->tweak_len = 0;
	kc->xts_compose = 0;
}

void gpu_aes_cpu_key_set(struct gpu_aes_cpu_key *kc, const uint8_t *key,
			 uint32_t key_len, uint32_t tweak_len)
{
	gpu_aes_cpu_key_wipe(kc);
	kc->key_len = key_len;
	kc->tweak_len = tweak_len;
	gpu_aes_secret_copy(kc->key, key, key_len + tweak_len);
	kc->xts_compose = tweak_len &&
		(key_len == 24 ||
		 !CRYPTO_memcmp(kc->key, kc->key + key_len, key_len));
}

unsigned int gpu_aes_cpu_key_held(const struct gpu_aes_cpu_key *kc)
{
	unsigned int count = 0, j;

	for (j = 0; j < sizeof(kc->key); j++)
		count += kc->key[j] != 0;
	for (j = 0; j < NR_CTX; j++)
		count += kc->ctx[j] != NULL;
	return count;
}

static EVP_CIPHER_CTX *ctx_get(struct gpu_aes_cpu_key *kc, unsigned int idx)
{
	EVP_CIPHER_CTX *ctx = kc->ctx[idx];
	const uint8_t *key = idx == CTX_TWEAK ? kc->key + kc->key_len :
			     kc->key;
	/* CTR is its own inverse: both directions encrypt the counter. */
	int enc = idx != CTX_ECB_DEC && idx != CTX_XTS_DEC &&
		  idx != CTX_GCM_DEC && idx != CTX_CBC_DEC;
	int ok;

	if (ctx)
		return ctx;
	/* The provider's copy holds the expanded key: out of core dumps. */
	gpu_aes_secret_begin();
	ctx = EVP_CIPHER_CTX_new();
	ok = ctx &&
	     EVP_CipherInit_ex(ctx, cipher_for(idx, kc->key_len), NULL, NULL,
			       NULL, enc) == 1 &&
	     (!(idx == CTX_GCM_ENC || idx == CTX_GCM_DEC) ||
	      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1) &&
	     EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, enc) == 1 &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
	gpu_aes_secret_end();
	if (!ok) {
		EVP_CIPHER_CTX_free(ctx);
		return NULL;
	}
	kc->ctx[idx] = ctx;
	return ctx;
}

static int32_t run_ecb_ctr_cbc(struct gpu_aes_cpu_key *kc,
			       const struct gpu_aes_cpu_op *op)
{
	int dec = op->dir == GPU_AES_DIR_DECRYPT;
	EVP_CIPHER_CTX *ctx;
	int outl = 0;

	ctx = ctx_get(kc, op->alg == GPU_AES_ALG_CTR ? CTX_CTR :
		      op->alg == GPU_AES_ALG_CBC ?
		      (dec ? CTX_CBC_DEC : CTX_CBC_ENC) :
		      dec ? CTX_ECB_DEC : CTX_ECB_ENC);
	if (!ctx)
		return GPU_AES_STATUS_EIO;
	/*
	 * A fresh IV restarts OpenSSL's CTR state (counter and keystream
	 * position) or CBC chain without expanding the key again.  OpenSSL
	 * increments the whole 128-bit block big-endian, which is the
	 * kernel's ctr(aes).  CBC decryption in place is fine: EVP takes
	 * in == out and keeps the ciphertext block the next one needs.
	 */
	if (op->alg != GPU_AES_ALG_ECB &&
	    EVP_CipherInit_ex(ctx, NULL, NULL, NULL, op->iv, -1) != 1)
		return GPU_AES_STATUS_EIO;
	/* len <= GPU_AES_MAX_DATA (1 GiB) fits an int. */
	if (EVP_CipherUpdate(ctx, op->out, &outl, op->in, (int)op->len) != 1 ||
	    (uint32_t)outl != op->len)
		return GPU_AES_STATUS_EIO;
	return GPU_AES_STATUS_OK;
}

static int32_t run_xts(struct gpu_aes_cpu_key *kc,
		       const struct gpu_aes_cpu_op *op)
{
	int dec = op->dir == GPU_AES_DIR_DECRYPT;
	EVP_CIPHER_CTX *ctx;
	int outl = 0;

	if (kc->xts_compose || op->len > EVP_XTS_MAX_LEN) {
		EVP_CIPHER_CTX *tweak;

		ctx = ctx_get(kc, dec ? CTX_ECB_DEC : CTX_ECB_ENC);
		tweak = ctx_get(kc, CTX_TWEAK);
		if (!ctx || !tweak)
			return GPU_AES_STATUS_EIO;
		/* xts_ecb.c works in place. */
		if (op->out != op->in)
			memmove(op->out, op->in, op->len);
		if (gpu_aes_xts_ecb(ctx, tweak, !dec, op->iv, op->out, op->len))
			return GPU_AES_STATUS_EIO;
		return GPU_AES_STATUS_OK;
	}
	ctx = ctx_get(kc, dec ? CTX_XTS_DEC : CTX_XTS_ENC);
	/* One update is one data unit: a fresh tweak per request. */
	if (!ctx || EVP_CipherInit_ex(ctx, NULL, NULL, NULL, op->iv, -1) != 1 ||
	    EVP_CipherUpdate(ctx, op->out, &outl, op->in, (int)op->len) != 1 ||
	    (uint32_t)outl != op->len)
		return GPU_AES_STATUS_EIO;
	return GPU_AES_STATUS_OK;
}

static int32_t run_gcm(struct gpu_aes_cpu_key *kc,
		       const struct gpu_aes_cpu_op *op)
{
	int dec = op->dir == GPU_AES_DIR_DECRYPT;
	uint8_t tag[16], fin[16];
	EVP_CIPHER_CTX *ctx;
	int outl = 0;

	ctx = ctx_get(kc, dec ? CTX_GCM_DEC : CTX_GCM_ENC);
	if (!ctx)
		return GPU_AES_STATUS_EIO;
	/* The expected tag is read once, before any text is replaced. */
	if (dec)
		memcpy(tag, op->tag, op->auth_len);
	/* A new IV (J0 = IV || 0^31 || 1) restarts GHASH and the counter. */
	if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, op->iv, -1) != 1 ||
	    (op->aad_len &&
	     EVP_CipherUpdate(ctx, NULL, &outl, op->aad,
			      (int)op->aad_len) != 1) ||
	    (op->len &&
	     (EVP_CipherUpdate(ctx, op->out, &outl, op->in,
			       (int)op->len) != 1 ||
	      (uint32_t)outl != op->len)))
		return GPU_AES_STATUS_EIO;
	if (dec) {
		if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, op->auth_len,
					tag) != 1)
			return GPU_AES_STATUS_EIO;
		/* Final fails only on a tag mismatch here. */
		if (EVP_CipherFinal_ex(ctx, fin, &outl) != 1)
			return GPU_AES_STATUS_EBADMSG;
		return GPU_AES_STATUS_OK;
	}
	if (EVP_CipherFinal_ex(ctx, fin, &outl) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, op->auth_len,
				tag) != 1)
		return GPU_AES_STATUS_EIO;
	memcpy(op->tag, tag, op->auth_len);
	return GPU_AES_STATUS_OK;
}

int32_t gpu_aes_cpu_crypt(struct gpu_aes_cpu_key *kc,
			  const struct gpu_aes_cpu_op *op)
{
	if (!gpu_aes_key_len_valid(kc->key_len) ||
	    kc->tweak_len != (op->alg == GPU_AES_ALG_XTS ? kc->key_len : 0))
		return GPU_AES_STATUS_EIO;
	switch (op->alg) {
	case GPU_AES_ALG_GCM:
		/* Even with no text there is a tag over the AAD. */
		return run_gcm(kc, op);
	case GPU_AES_ALG_XTS:
		return op->len ? run_xts(kc, op) : GPU_AES_STATUS_OK;
	case GPU_AES_ALG_ECB:
	case GPU_AES_ALG_CTR:
		return op->len ? run_ecb_ctr_cbc(kc, op) : GPU_AES_STATUS_OK;
	case GPU_AES_ALG_CBC:
		/* Whole blocks only: EVP would keep a partial one back. */
		if (op->len % 16)
			return GPU_AES_STATUS_EIO;
		return op->len ? run_ecb_ctr_cbc(kc, op) : GPU_AES_STATUS_OK;
	default:
		return GPU_AES_STATUS_EIO;
	}
}
