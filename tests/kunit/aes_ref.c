// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fake helper's AES: ECB and CTR in place over a flat buffer.
 */
#include <crypto/algapi.h>
#include <crypto/utils.h>
#include <linux/string.h>

#include "aes_ref.h"

/* Callers pass a multiple of AES_BLOCK_SIZE; a tail is left untouched. */
void aes_ref_ecb(const struct crypto_aes_ctx *ctx, bool decrypt, u8 *buf,
		 size_t len)
{
	for (; len >= AES_BLOCK_SIZE; len -= AES_BLOCK_SIZE,
	     buf += AES_BLOCK_SIZE) {
		if (decrypt)
			aes_decrypt(ctx, buf, buf);
		else
			aes_encrypt(ctx, buf, buf);
	}
}

/*
 * The kernel's ctr(aes): the IV is a 128-bit big-endian counter that carries
 * across all 16 bytes, and a partial last block uses a prefix of its
 * keystream block.
 */
void aes_ref_ctr(const struct crypto_aes_ctx *ctx, const u8 iv[AES_BLOCK_SIZE],
		 u8 *buf, size_t len)
{
	u8 ctr[AES_BLOCK_SIZE], ks[AES_BLOCK_SIZE];
	size_t n;

	memcpy(ctr, iv, sizeof(ctr));
	while (len) {
		n = min_t(size_t, len, AES_BLOCK_SIZE);
		aes_encrypt(ctx, ks, ctr);
		crypto_xor(buf, ks, n);
		crypto_inc(ctr, AES_BLOCK_SIZE);
		buf += n;
		len -= n;
	}
	memzero_explicit(ks, sizeof(ks));
}
