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
