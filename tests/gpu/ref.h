/* SPDX-License-Identifier: GPL-2.0-only */
/* ref.h - OpenSSL as the reference for every GPU result. */
#ifndef GPU_AES_TESTS_REF_H
#define GPU_AES_TESTS_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * alg: 1 ECB, 2 CTR, 5 CBC, 6 XCTR (enum gpu_aes_alg; XCTR over OpenSSL's
 * ECB, which has none); dir: 0 enc, 1 dec.  0, or -1 (also for a mode
 * with no reference here).  CBC, XCTR: in and out may be the same buffer.
 */
int ref_crypt(int alg, int dir, const uint8_t *key, unsigned int key_len,
	      const uint8_t iv[16], const uint8_t *in, uint8_t *out,
	      size_t len);

/* One AES block encryption (ECB): the tweak, H and E_K(J0).  0 or -1. */
int ref_block(const uint8_t *key, unsigned int key_len, const uint8_t in[16],
	      uint8_t out[16]);

/*
 * XTS (IEEE 1619, ciphertext stealing) composed from OpenSSL AES-ECB by the
 * cpu backend's helper/src/xts_ecb.c, so every key size and equal halves
 * work; key and tkey are key_len bytes each.
 */
int ref_xts(int dir, const uint8_t *key, const uint8_t *tkey,
	    unsigned int key_len, const uint8_t iv[16], const uint8_t *in,
	    uint8_t *out, size_t len);

/*
 * OpenSSL's own XTS (EVP_aes_{128,256}_xts, key || tkey); -1 where OpenSSL
 * has none (192-bit) or refuses (equal halves when encrypting).
 */
int ref_xts_evp(int dir, const uint8_t *key, const uint8_t *tkey,
		unsigned int key_len, const uint8_t iv[16], const uint8_t *in,
		uint8_t *out, size_t len);

/*
 * GCM (EVP, 12-byte IV).  Encryption writes out and auth_len tag bytes;
 * decryption checks tag: 0 when it matches, 1 when not, -1 on error.
 */
int ref_gcm(int dir, const uint8_t *key, unsigned int key_len,
	    const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
	    const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag,
	    unsigned int auth_len);

/* Deterministic fast PRNG for test data (xoshiro256**). */
struct rng {
	uint64_t s[4];
};
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
void rng_fill(struct rng *r, void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
