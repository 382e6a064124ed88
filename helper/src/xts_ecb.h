/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xts_ecb.h - XTS-AES (IEEE 1619) composed from OpenSSL AES-ECB, for the
 * keys OpenSSL's own XTS refuses: AES-192 (no EVP_aes_192_xts) and equal
 * halves (its default provider will not encrypt with them, while the
 * kernel's xts(aes) accepts them outside FIPS mode).  The unit tests hold
 * it to EVP's XTS for 128 and 256-bit keys.
 */
#ifndef GPU_AES_HELPER_XTS_ECB_H
#define GPU_AES_HELPER_XTS_ECB_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

/*
 * Transforms len (>= 16) bytes at buf in place as one data unit whose
 * tweak input is iv: T = E_K2(iv), each block E_K1(P ^ T) ^ T (or D_K1
 * for decryption), T multiplied by x in GF(2^128) between blocks, the last
 * partial block by ciphertext stealing.  crypt: AES-ECB of the data key in
 * the direction wanted, tweak: AES-ECB encryption with the tweak key (both
 * with padding off).  0, or -1 when len < 16 or OpenSSL fails.
 */
int gpu_aes_xts_ecb(EVP_CIPHER_CTX *crypt, EVP_CIPHER_CTX *tweak, int enc,
		    const uint8_t iv[16], uint8_t *buf, size_t len);

#endif /* GPU_AES_HELPER_XTS_ECB_H */
