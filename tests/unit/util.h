/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared helpers of the unit tests: OpenSSL reference, producer set-up. */
#ifndef GPU_AES_TEST_UTIL_H
#define GPU_AES_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_aes_producer.h"

/*
 * The reference: OpenSSL EVP called directly (never through the helper).
 * 0 on success.
 */
int ref_crypt(unsigned int alg, unsigned int dir, const uint8_t *key,
	      size_t key_len, const uint8_t *iv, const uint8_t *in,
	      uint8_t *out, size_t len);

/*
 * XTS through EVP_aes_{128,256}_xts: key is both halves, key_len 32 or 64.
 * 0 on success, -1 where OpenSSL refuses (AES-192, or equal halves for
 * encryption).
 */
int ref_xts(unsigned int dir, const uint8_t *key, size_t key_len,
	    const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len);

/*
 * GCM through EVP with a 12-byte IV: encryption writes auth_len tag bytes
 * to tag; decryption checks them.  0 on success, 1 on a tag mismatch, -1
 * when OpenSSL fails otherwise.
 */
int ref_gcm(unsigned int dir, const uint8_t *key, size_t key_len,
	    const uint8_t *iv, const uint8_t *aad, size_t aad_len,
	    const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag,
	    size_t auth_len);

/* A producer on the cpu backend; NULL on failure. */
struct gpu_aes_producer *mk_producer(uint32_t entries, uint64_t data_size,
				     unsigned int threads,
				     unsigned int spin_us);

/* Reads a producer stat (for polling loops). */
uint64_t stat_sleeps(struct gpu_aes_producer *p);

/*
 * Waits until cond(arg) returns non-zero: 0 then, -1 after ~20 s (a hang
 * guard so a broken core fails the test instead of hanging CI; never an
 * assertion about speed).
 */
int wait_until(int (*cond)(void *arg), void *arg);

/* One request's completion: pass on_done as its callback, then wait_until(is_done, r). */
struct result {
	int status;
	int done;
};

void on_done(void *cookie, int status);
int is_done(void *arg);

#endif /* GPU_AES_TEST_UTIL_H */
