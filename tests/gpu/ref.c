// SPDX-License-Identifier: GPL-2.0-only
#include "ref.h"

#include "xts_ecb.h"
#include "../../uapi/gpu_aes.h"

#include <openssl/evp.h>
#include <string.h>

/*
 * HCTR2's XCTR (the kernel's xctr(aes)): block i, from 1, is XORed with
 * E_K(IV ^ le128(i)), the counter carried over all 16 bytes here; the
 * counter blocks go through OpenSSL's ECB a batch at a time.
 */
static int ref_xctr(const uint8_t *key, unsigned int key_len,
		    const uint8_t iv[16], const uint8_t *in, uint8_t *out,
		    size_t len)
{
	enum { BATCH = 4096 };
	uint8_t ks[BATCH];
	const EVP_CIPHER *c = key_len == 16 ? EVP_aes_128_ecb() :
			      key_len == 24 ? EVP_aes_192_ecb() :
					      EVP_aes_256_ecb();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	uint8_t ctr[16] = { 1 };
	size_t off, n, j;
	int ok, outl = 0;

	ok = ctx && EVP_EncryptInit_ex(ctx, c, NULL, key, NULL) &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0);
	for (off = 0; ok && off < len; off += n) {
		n = len - off < BATCH ? len - off : BATCH;
		for (j = 0; j < n; j += 16) {
			for (int k = 0; k < 16; k++)
				ks[j + k] = iv[k] ^ ctr[k];
			for (int k = 0; k < 16 && !++ctr[k]; k++)
				;
		}
		ok = EVP_EncryptUpdate(ctx, ks, &outl, ks, (int)j) &&
		     outl == (int)j;
		for (j = 0; ok && j < n; j++)
			out[off + j] = in[off + j] ^ ks[j];
	}
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

int ref_crypt(int alg, int dir, const uint8_t *key, unsigned int key_len,
	      const uint8_t iv[16], const uint8_t *in, uint8_t *out,
	      size_t len)
{
	const EVP_CIPHER *c;
	EVP_CIPHER_CTX *ctx;
	int ok, n = 0;

	if (alg == GPU_AES_ALG_XCTR)
		return ref_xctr(key, key_len, iv, in, out, len);
	if (alg == GPU_AES_ALG_CTR)
		c = key_len == 16 ? EVP_aes_128_ctr() :
		    key_len == 24 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
	else if (alg == GPU_AES_ALG_CBC)
		c = key_len == 16 ? EVP_aes_128_cbc() :
		    key_len == 24 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
	else if (alg == GPU_AES_ALG_ECB)
		c = key_len == 16 ? EVP_aes_128_ecb() :
		    key_len == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
	else
		return -1;	/* no reference here for that mode */
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, key, alg == GPU_AES_ALG_ECB ? NULL : iv,
			       alg == GPU_AES_ALG_CTR ? 1 : !dir);
	ok = ok && EVP_CIPHER_CTX_set_padding(ctx, 0);
	/* EVP takes int lengths: feed large buffers in pieces. */
	while (ok && len) {
		int step = len > (1U << 30) ? (1 << 30) : (int)len;

		ok = EVP_CipherUpdate(ctx, out, &n, in, step) && n == step;
		in += step;
		out += step;
		len -= (size_t)step;
	}
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

int ref_block(const uint8_t *key, unsigned int key_len, const uint8_t in[16],
	      uint8_t out[16])
{
	return ref_crypt(GPU_AES_ALG_ECB, GPU_AES_DIR_ENCRYPT, key, key_len,
			 NULL, in, out, 16);
}

int ref_xts(int dir, const uint8_t *key, const uint8_t *tkey,
	    unsigned int key_len, const uint8_t iv[16], const uint8_t *in,
	    uint8_t *out, size_t len)
{
	const EVP_CIPHER *ecb = key_len == 16 ? EVP_aes_128_ecb() :
				key_len == 24 ? EVP_aes_192_ecb() :
						EVP_aes_256_ecb();
	EVP_CIPHER_CTX *crypt = EVP_CIPHER_CTX_new();
	EVP_CIPHER_CTX *tweak = EVP_CIPHER_CTX_new();
	int ok;

	ok = crypt && tweak &&
	     EVP_CipherInit_ex(crypt, ecb, NULL, key, NULL, !dir) &&
	     EVP_CIPHER_CTX_set_padding(crypt, 0) &&
	     EVP_CipherInit_ex(tweak, ecb, NULL, tkey, NULL, 1) &&
	     EVP_CIPHER_CTX_set_padding(tweak, 0);
	if (ok) {
		memmove(out, in, len);
		ok = !gpu_aes_xts_ecb(crypt, tweak, !dir, iv, out, len);
	}
	EVP_CIPHER_CTX_free(crypt);
	EVP_CIPHER_CTX_free(tweak);
	return ok ? 0 : -1;
}

int ref_xts_evp(int dir, const uint8_t *key, const uint8_t *tkey,
		unsigned int key_len, const uint8_t iv[16], const uint8_t *in,
		uint8_t *out, size_t len)
{
	uint8_t k2[64];
	EVP_CIPHER_CTX *ctx;
	int ok, n = 0;

	if (key_len != 16 && key_len != 32)
		return -1;
	memcpy(k2, key, key_len);
	memcpy(k2 + key_len, tkey, key_len);
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, key_len == 16 ? EVP_aes_128_xts() :
				    EVP_aes_256_xts(), NULL, k2, iv, !dir) &&
	     EVP_CipherUpdate(ctx, out, &n, in, (int)len) && n == (int)len;
	EVP_CIPHER_CTX_free(ctx);
	memset(k2, 0, sizeof(k2));
	return ok ? 0 : -1;
}

int ref_gcm(int dir, const uint8_t *key, unsigned int key_len,
	    const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
	    const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag,
	    unsigned int auth_len)
{
	const EVP_CIPHER *c = key_len == 16 ? EVP_aes_128_gcm() :
			      key_len == 24 ? EVP_aes_192_gcm() :
					      EVP_aes_256_gcm();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int ok, n = 0, rc = -1;

	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, !dir) &&
	     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) &&
	     EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, !dir);
	if (ok && aad_len)
		ok = EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aad_len);
	if (ok && len)
		ok = EVP_CipherUpdate(ctx, out, &n, in, (int)len) &&
		     n == (int)len;
	if (ok && dir)
		ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG,
					 (int)auth_len, tag);
	if (ok) {
		int fin = EVP_CipherFinal_ex(ctx, out + len, &n);

		if (dir)
			rc = fin ? 0 : 1;
		else if (fin && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG,
						    (int)auth_len, tag))
			rc = 0;
	}
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

static uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		/* splitmix64 */
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return res;
}

void rng_fill(struct rng *r, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len >= 8) {
		uint64_t v = rng_next(r);

		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = rng_next(r);

		memcpy(p, &v, len);
	}
}
