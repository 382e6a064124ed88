// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "xts_ecb.h"

/* Blocks per ECB call: amortises EVP's per-call cost, bounds the stack. */
#define CHUNK_BLOCKS	32

/*
 * T * x in GF(2^128) with IEEE 1619's little-endian bit order: byte 0 is
 * the least significant, and a carry out of bit 127 folds back as
 * x^7 + x^2 + x + 1 (0x87).
 */
static void mul_x(uint8_t t[16])
{
	uint8_t carry = t[15] >> 7;
	int i;

	for (i = 15; i > 0; i--)
		t[i] = (uint8_t)(t[i] << 1 | t[i - 1] >> 7);
	t[0] = (uint8_t)(t[0] << 1 ^ (carry ? 0x87 : 0));
}

static void xor_bytes(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] ^= src[i];
}

static int ecb(EVP_CIPHER_CTX *ctx, uint8_t *p, size_t n)
{
	int outl = 0;

	return EVP_CipherUpdate(ctx, p, &outl, p, (int)n) == 1 &&
	       (size_t)outl == n ? 0 : -1;
}

/* nblocks whole blocks with tweaks t, t*x, ...; leaves t at the next one. */
static int xts_blocks(EVP_CIPHER_CTX *crypt, uint8_t t[16], uint8_t *p,
		      size_t nblocks)
{
	uint8_t tw[CHUNK_BLOCKS * 16];
	size_t done, n, i;
	int ret = 0;

	for (done = 0; done < nblocks && !ret; done += n) {
		n = nblocks - done;
		if (n > CHUNK_BLOCKS)
			n = CHUNK_BLOCKS;
		for (i = 0; i < n; i++) {
			memcpy(tw + 16 * i, t, 16);
			mul_x(t);
		}
		xor_bytes(p, tw, 16 * n);
		ret = ecb(crypt, p, 16 * n);
		xor_bytes(p, tw, 16 * n);
		p += 16 * n;
	}
	/* Tweaks are E_K2 outputs: key-derived, so not left on the stack. */
	explicit_bzero(tw, sizeof(tw));
	return ret;
}

int gpu_aes_xts_ecb(EVP_CIPHER_CTX *crypt, EVP_CIPHER_CTX *tweak, int enc,
		    const uint8_t iv[16], uint8_t *buf, size_t len)
{
	size_t full = len / 16, tail = len % 16;
	uint8_t t[16], prev[16], pp[16];
	uint8_t *last, *part;
	int ret;

	if (len < 16)
		return -1;
	memcpy(t, iv, 16);
	ret = ecb(tweak, t, 16);
	if (ret || !tail) {
		if (!ret)
			ret = xts_blocks(crypt, t, buf, full);
		goto out;
	}

	/*
	 * Ciphertext stealing (IEEE 1619 5.3.2 / 5.4.2): the last whole block
	 * and the partial one swap places.  Encryption runs that block with
	 * T(m-1), gives its head to the partial output and takes the partial
	 * input plus its own tail through T(m); decryption undoes it, so it
	 * uses T(m) first and T(m-1) second.
	 */
	if (full > 1)
		ret = xts_blocks(crypt, t, buf, full - 1);
	last = buf + 16 * (full - 1);
	part = last + 16;
	if (!ret && enc)
		ret = xts_blocks(crypt, t, last, 1);	/* t becomes T(m) */
	if (!ret && !enc) {
		memcpy(prev, t, 16);
		mul_x(t);
		ret = xts_blocks(crypt, t, last, 1);
	}
	if (!ret) {
		memcpy(pp, last, 16);
		memcpy(pp, part, tail);
		memcpy(part, last, tail);
		memcpy(last, pp, 16);
		ret = xts_blocks(crypt, enc ? t : prev, last, 1);
	}
out:
	explicit_bzero(t, sizeof(t));
	explicit_bzero(prev, sizeof(prev));
	explicit_bzero(pp, sizeof(pp));
	return ret;
}
