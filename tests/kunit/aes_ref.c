// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fake helper's AES: ECB, CBC, CTR, XTS and XCTR in place over a flat
 * buffer.
 */
#include <crypto/algapi.h>
#include <crypto/gf128mul.h>
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

/* SP 800-38A CBC over whole blocks, in place, from @iv. */
void aes_ref_cbc(const struct crypto_aes_ctx *ctx, bool decrypt,
		 const u8 iv[AES_BLOCK_SIZE], u8 *buf, size_t len)
{
	u8 prev[AES_BLOCK_SIZE], in[AES_BLOCK_SIZE];

	memcpy(prev, iv, AES_BLOCK_SIZE);
	for (; len >= AES_BLOCK_SIZE; len -= AES_BLOCK_SIZE,
	     buf += AES_BLOCK_SIZE) {
		if (decrypt) {
			memcpy(in, buf, AES_BLOCK_SIZE);
			aes_decrypt(ctx, buf, buf);
			crypto_xor(buf, prev, AES_BLOCK_SIZE);
			memcpy(prev, in, AES_BLOCK_SIZE);
		} else {
			crypto_xor(buf, prev, AES_BLOCK_SIZE);
			aes_encrypt(ctx, buf, buf);
			memcpy(prev, buf, AES_BLOCK_SIZE);
		}
	}
	memzero_explicit(prev, sizeof(prev));
	memzero_explicit(in, sizeof(in));
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

/*
 * HCTR2's XCTR, the kernel's xctr(aes): block i, from 1, is XORed with
 * E_K(IV ^ le128(i)); a partial last block uses a prefix of its keystream
 * block.  The counter is kept as 16 little-endian bytes and carries across
 * all of them.
 */
void aes_ref_xctr(const struct crypto_aes_ctx *ctx,
		  const u8 iv[AES_BLOCK_SIZE], u8 *buf, size_t len)
{
	u8 ctr[AES_BLOCK_SIZE] = { 1 }, blk[AES_BLOCK_SIZE];
	size_t n;
	int k;

	while (len) {
		n = min_t(size_t, len, AES_BLOCK_SIZE);
		crypto_xor_cpy(blk, iv, ctr, AES_BLOCK_SIZE);
		aes_encrypt(ctx, blk, blk);
		crypto_xor(buf, blk, n);
		for (k = 0; k < AES_BLOCK_SIZE && !++ctr[k]; k++)
			;
		buf += n;
		len -= n;
	}
	memzero_explicit(blk, sizeof(blk));
}

static void aes_ref_xts_block(const struct crypto_aes_ctx *ctx, bool decrypt,
			      const le128 *t, u8 *buf)
{
	crypto_xor(buf, (const u8 *)t, AES_BLOCK_SIZE);
	if (decrypt)
		aes_decrypt(ctx, buf, buf);
	else
		aes_encrypt(ctx, buf, buf);
	crypto_xor(buf, (const u8 *)t, AES_BLOCK_SIZE);
}

/*
 * IEEE 1619 XTS-AES, as the kernel's xts template does it: the tweak is
 * the IV encrypted with the second key, multiplied by x (gf128mul_x_ble)
 * per block; a partial last block steals the tail of the ciphertext of the
 * block before it, and the last two tweaks swap roles when decrypting.
 */
void aes_ref_xts(const struct crypto_aes_ctx *data,
		 const struct crypto_aes_ctx *tweak, bool decrypt,
		 const u8 iv[AES_BLOCK_SIZE], u8 *buf, size_t len)
{
	size_t tail = len % AES_BLOCK_SIZE;
	size_t n = len / AES_BLOCK_SIZE - (tail ? 1 : 0);
	u8 stolen[AES_BLOCK_SIZE];
	le128 t, next;
	u8 *p;

	if (len < AES_BLOCK_SIZE)
		return;
	aes_encrypt(tweak, (u8 *)&t, iv);
	for (; n; n--, buf += AES_BLOCK_SIZE) {
		aes_ref_xts_block(data, decrypt, &t, buf);
		gf128mul_x_ble(&t, &t);
	}
	if (!tail)
		return;
	p = buf;
	gf128mul_x_ble(&next, &t);
	/* Block m-1 with the tweak it needs first, then swap the tails. */
	aes_ref_xts_block(data, decrypt, decrypt ? &next : &t, p);
	memcpy(stolen, p + AES_BLOCK_SIZE, tail);
	memcpy(p + AES_BLOCK_SIZE, p, tail);
	memcpy(p, stolen, tail);
	aes_ref_xts_block(data, decrypt, decrypt ? &t : &next, p);
	memzero_explicit(stolen, sizeof(stolen));
}
