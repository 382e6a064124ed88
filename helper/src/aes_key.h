/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aes_key.h - AES key expansion (FIPS-197 5.2), the helper's one
 * implementation: the encryption round keys and the equivalent inverse
 * cipher's (FIPS-197 5.3.5), as bytes in AES order, from which the cuda
 * backend makes its device keys.  The key table holds raw keys only; the
 * cpu backend lets OpenSSL expand them.
 */
#ifndef GPU_AES_HELPER_AES_KEY_H
#define GPU_AES_HELPER_AES_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "../../uapi/gpu_aes.h"

/* Bytes of one key schedule: at most 15 round keys (AES-256) of 16. */
#define GPU_AES_SCHED_BYTES	240

/*
 * enc gets the encryption round keys and dec the equivalent inverse
 * cipher's, as bytes in AES order, 16 * (rounds + 1) bytes each, the rest
 * of both arrays zeroed.  Returns rounds (10, 12 or 14), or -EINVAL for a
 * length gpu_aes_key_len_valid() refuses (then enc and dec are untouched).
 */
int gpu_aes_expand_schedules(const uint8_t *key, size_t len,
			     uint8_t enc[GPU_AES_SCHED_BYTES],
			     uint8_t dec[GPU_AES_SCHED_BYTES]);

/* The AES S-box, shared with tests that run a reference cipher. */
extern const uint8_t gpu_aes_sbox[256];

#endif /* GPU_AES_HELPER_AES_KEY_H */
