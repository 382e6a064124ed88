/* SPDX-License-Identifier: GPL-2.0-only */
/* ref.h - OpenSSL as the reference for every GPU result. */
#ifndef GPU_AES_TESTS_REF_H
#define GPU_AES_TESTS_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* alg: 1 ECB, 2 CTR (enum gpu_aes_alg); dir: 0 enc, 1 dec.  0 or -1. */
int ref_crypt(int alg, int dir, const uint8_t *key, unsigned int key_len,
	      const uint8_t iv[16], const uint8_t *in, uint8_t *out,
	      size_t len);

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
