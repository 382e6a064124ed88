/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ECB, CBC, CTR, XTS and XCTR over a flat buffer with the kernel's AES
 * library (GCM comes from lib/crypto/aesgcm.c, CONFIG_CRYPTO_LIB_AESGCM).
 *
 * The fake helper's whole compute side: what gpu-aes-helper's cpu backend
 * does with OpenSSL, done here with lib/crypto/aes.c so the suites need no
 * userspace.  It shares no code with the driver's CPU fallback (a crypto
 * API tfm), so a bug in one is not hidden by the same bug in the other.
 */
#ifndef GPU_AES_KUNIT_AES_REF_H
#define GPU_AES_KUNIT_AES_REF_H

#include <crypto/aes.h>
#include <linux/types.h>

#define AES_REF_CTR_BLOCK	AES_BLOCK_SIZE

void aes_ref_ecb(const struct crypto_aes_ctx *ctx, bool decrypt, u8 *buf,
		 size_t len);
/* @len a multiple of AES_BLOCK_SIZE. */
void aes_ref_cbc(const struct crypto_aes_ctx *ctx, bool decrypt,
		 const u8 iv[AES_BLOCK_SIZE], u8 *buf, size_t len);
void aes_ref_ctr(const struct crypto_aes_ctx *ctx, const u8 iv[AES_BLOCK_SIZE],
		 u8 *buf, size_t len);
/* HCTR2's XCTR; its own inverse; the IV is not changed. */
void aes_ref_xctr(const struct crypto_aes_ctx *ctx,
		  const u8 iv[AES_BLOCK_SIZE], u8 *buf, size_t len);
/* @len >= AES_BLOCK_SIZE; any tail is ciphertext stealing. */
void aes_ref_xts(const struct crypto_aes_ctx *data,
		 const struct crypto_aes_ctx *tweak, bool decrypt,
		 const u8 iv[AES_BLOCK_SIZE], u8 *buf, size_t len);

#endif /* GPU_AES_KUNIT_AES_REF_H */
