// SPDX-License-Identifier: GPL-2.0-only
#include "ref.h"

#include <openssl/evp.h>
#include <string.h>

int ref_crypt(int alg, int dir, const uint8_t *key, unsigned int key_len,
	      const uint8_t iv[16], const uint8_t *in, uint8_t *out,
	      size_t len)
{
	const EVP_CIPHER *c;
	EVP_CIPHER_CTX *ctx;
	int ok, n = 0;

	if (alg == 2)
		c = key_len == 16 ? EVP_aes_128_ctr() :
		    key_len == 24 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
	else
		c = key_len == 16 ? EVP_aes_128_ecb() :
		    key_len == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, key, alg == 2 ? iv : NULL,
			       alg == 2 ? 1 : !dir);
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
	return ref_crypt(1, 0, key, key_len, NULL, in, out, 16);
}

static void xts_double(uint8_t t[16])
{
	int carry = t[15] >> 7;

	for (int i = 15; i > 0; i--)
		t[i] = (uint8_t)(t[i] << 1 | t[i - 1] >> 7);
	t[0] = (uint8_t)(t[0] << 1 ^ (carry ? 0x87 : 0));
}

static int xts_block(int dir, const uint8_t *key, unsigned int key_len,
		     const uint8_t t[16], const uint8_t *in, uint8_t *out)
{
	uint8_t x[16];

	for (int i = 0; i < 16; i++)
		x[i] = in[i] ^ t[i];
	if (ref_crypt(1, dir, key, key_len, NULL, x, x, 16))
		return -1;
	for (int i = 0; i < 16; i++)
		out[i] = x[i] ^ t[i];
	return 0;
}

int ref_xts(int dir, const uint8_t *key, const uint8_t *tkey,
	    unsigned int key_len, const uint8_t iv[16], const uint8_t *in,
	    uint8_t *out, size_t len)
{
	size_t m = len / 16, r = len % 16, last = r ? m - 1 : m;
	uint8_t t[16], t2[16], x[16], pp[16];

	if (len < 16 || ref_block(tkey, key_len, iv, t))
		return -1;
	for (size_t i = 0; i < last; i++) {
		if (xts_block(dir, key, key_len, t, in + 16 * i, out + 16 * i))
			return -1;
		xts_double(t);
	}
	if (!r)
		return 0;
	memcpy(t2, t, 16);
	xts_double(t2);
	/* decryption takes the stolen pair in the other order */
	if (xts_block(dir, key, key_len, dir ? t2 : t, in + 16 * last, x))
		return -1;
	memcpy(pp, in + 16 * m, r);
	memcpy(pp + r, x + r, 16 - r);
	memcpy(out + 16 * m, x, r);
	return xts_block(dir, key, key_len, dir ? t : t2, pp, out + 16 * last);
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
