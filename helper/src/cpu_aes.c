// SPDX-License-Identifier: GPL-2.0-only
/* cpu_aes.c - one request's AES with OpenSSL's EVP (cpu_aes.h). */
#include <stdio.h>
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

/*
 * A context per mode and direction, ctx_index(), with the cipher the
 * mode's EVP column names; then the XTS tweak key's AES-ECB encryption.
 */
#define CTX_TWEAK	(2 * GPU_AES_ALG_MAX)
#define NR_CTX		(CTX_TWEAK + 1)

_Static_assert(NR_CTX == GPU_AES_CPU_NR_CTX, "one context per use");

static unsigned int ctx_index(uint8_t alg, uint8_t dir)
{
	return 2U * (alg - 1U) + dir;
}

/* aes-<bits>-<EVP column>: XTS is never asked for 192 (composed). */
static const EVP_CIPHER *cipher_for(unsigned int idx, uint32_t key_len)
{
	uint8_t alg = idx == CTX_TWEAK ? GPU_AES_ALG_ECB : (uint8_t)(idx / 2 + 1);
	char name[32];

	snprintf(name, sizeof(name), "aes-%u-%s", key_len * 8,
		 gpu_aes_alg_evp(alg));
	return EVP_get_cipherbyname(name);
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
	uint8_t alg = idx == CTX_TWEAK ? GPU_AES_ALG_ECB : (uint8_t)(idx / 2 + 1);
	/* A stream mode encrypts its keystream both ways. */
	int enc = idx % 2 == GPU_AES_DIR_ENCRYPT || idx == CTX_TWEAK ||
		  gpu_aes_alg_kind(alg) == GPU_AES_KIND_STREAM;
	const EVP_CIPHER *cipher;
	int ok;

	if (ctx)
		return ctx;
	/* A name lookup (a snprintf and a hash) per context, not per request. */
	cipher = cipher_for(idx, kc->key_len);
	if (!cipher)
		return NULL;
	/* The provider's copy holds the expanded key: out of core dumps. */
	gpu_aes_secret_begin();
	ctx = EVP_CIPHER_CTX_new();
	ok = ctx &&
	     EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc) == 1 &&
	     (!gpu_aes_alg_aead(alg) ||
	      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN,
				  gpu_aes_alg_iv_bytes(alg), NULL) == 1) &&
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

/*
 * A mode that is EVP's own cipher, with no tag: one update over the
 * text, after a fresh IV where the mode has one.  A fresh IV restarts
 * OpenSSL's counter and keystream position, or its chain, without
 * expanding the key again.  OpenSSL's CTR increments the whole 128-bit
 * block big-endian, which is the kernel's ctr(aes); EVP's chaining
 * decryption in place keeps the ciphertext block the next one needs.
 */
static int32_t run_evp(struct gpu_aes_cpu_key *kc,
		       const struct gpu_aes_cpu_op *op)
{
	EVP_CIPHER_CTX *ctx = ctx_get(kc, ctx_index(op->alg, op->dir));
	int outl = 0;

	if (!ctx)
		return GPU_AES_STATUS_EIO;
	if (gpu_aes_alg_iv_bytes(op->alg) &&
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

		ctx = ctx_get(kc, ctx_index(GPU_AES_ALG_ECB, op->dir));
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
	ctx = ctx_get(kc, ctx_index(op->alg, op->dir));
	/* One update is one data unit: a fresh tweak per request. */
	if (!ctx || EVP_CipherInit_ex(ctx, NULL, NULL, NULL, op->iv, -1) != 1 ||
	    EVP_CipherUpdate(ctx, op->out, &outl, op->in, (int)op->len) != 1 ||
	    (uint32_t)outl != op->len)
		return GPU_AES_STATUS_EIO;
	return GPU_AES_STATUS_OK;
}

/*
 * XCTR (HCTR2's, the kernel's crypto/xctr.c), which OpenSSL lacks: the
 * keystream of block i, from 1, is E_K(IV ^ le128(i)).  The counter
 * blocks are made here, XCTR_BATCH bytes at a time, and encrypted with one
 * update of the mode's context, the ECB cipher its EVP column names; a
 * partial last block uses a prefix of its keystream.  Little-endian i
 * below 2^64 touches bytes 0-7 only; a request is far shorter.
 */
#define XCTR_BATCH	4096U

static int32_t run_xctr(struct gpu_aes_cpu_key *kc,
			const struct gpu_aes_cpu_op *op)
{
	EVP_CIPHER_CTX *ctx = ctx_get(kc, ctx_index(op->alg, op->dir));
	uint8_t ks[XCTR_BATCH];
	int32_t status = GPU_AES_STATUS_OK;
	uint64_t block = 1;
	uint32_t off, n, j;
	int outl = 0;

	if (!ctx)
		return GPU_AES_STATUS_EIO;
	for (off = 0; off < op->len; off += n) {
		n = op->len - off;
		if (n > XCTR_BATCH)
			n = XCTR_BATCH;
		for (j = 0; j < n; j += 16, block++) {
			memcpy(ks + j, op->iv, 16);
			for (int k = 0; k < 8; k++)
				ks[j + k] ^= (uint8_t)(block >> (8 * k));
		}
		/* j: n rounded up to whole blocks, at most XCTR_BATCH */
		if (EVP_CipherUpdate(ctx, ks, &outl, ks, (int)j) != 1 ||
		    (uint32_t)outl != j) {
			status = GPU_AES_STATUS_EIO;
			break;
		}
		for (j = 0; j < n; j++)
			op->out[off + j] = op->in[off + j] ^ ks[j];
	}
	explicit_bzero(ks, sizeof(ks));
	return status;
}

static int32_t run_gcm(struct gpu_aes_cpu_key *kc,
		       const struct gpu_aes_cpu_op *op)
{
	int dec = op->dir == GPU_AES_DIR_DECRYPT;
	uint8_t tag[16], fin[16];
	EVP_CIPHER_CTX *ctx;
	int outl = 0;

	ctx = ctx_get(kc, ctx_index(op->alg, op->dir));
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
	int keys = gpu_aes_alg_keys(op->alg);

	if (!keys || op->dir > GPU_AES_DIR_DECRYPT ||
	    !gpu_aes_key_len_valid(kc->key_len) ||
	    kc->tweak_len != (keys == 2 ? kc->key_len : 0))
		return GPU_AES_STATUS_EIO;
	/* Even with no text an AEAD has a tag over the AAD. */
	if (gpu_aes_alg_aead(op->alg))
		return run_gcm(kc, op);
	if (!op->len)
		return GPU_AES_STATUS_OK;
	/* EVP would keep a partial block back, or refuse a short text. */
	if (!gpu_aes_alg_len_valid(op->alg, op->len))
		return GPU_AES_STATUS_EIO;
	if (keys == 2)
		return run_xts(kc, op);
	if (op->alg == GPU_AES_ALG_XCTR)
		return run_xctr(kc, op);
	return run_evp(kc, op);
}
