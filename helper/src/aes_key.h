/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aes_key.h - AES key expansion (FIPS-197 5.2), the helper's one
 * implementation: into a key table entry, the way the kernel writes it
 * (raw key, encryption round keys and the equivalent inverse cipher's round
 * keys (FIPS-197 5.3.5), all as bytes in AES order), or into bare
 * schedules, from which the cuda backend makes its device keys.
 */
#ifndef GPU_AES_HELPER_AES_KEY_H
#define GPU_AES_HELPER_AES_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "../../uapi/gpu_aes.h"

/* Bytes of one key schedule: at most 15 round keys (AES-256) of 16. */
#define GPU_AES_SCHED_BYTES	240

/*
 * The schedules alone, for a caller that keeps them in its own layout (the
 * cuda backend's device keys): enc gets the encryption round keys and dec
 * the equivalent inverse cipher's, as bytes in AES order, 16 * (rounds + 1)
 * bytes each, the rest of both arrays zeroed.  Returns rounds (10, 12 or
 * 14), or -EINVAL unless len is 16, 24 or 32 (then enc and dec are
 * untouched).
 */
int gpu_aes_expand_schedules(const uint8_t *key, size_t len,
			     uint8_t enc[GPU_AES_SCHED_BYTES],
			     uint8_t dec[GPU_AES_SCHED_BYTES]);

/*
 * Fills key_len, rounds, key, enc_sched and dec_sched of *e and zeroes the
 * rest of those arrays, tweak_len and tweak_sched (a one-key entry: ECB,
 * CTR, GCM); leaves gen alone.  -EINVAL unless len is 16, 24 or 32 (then
 * *e is untouched).
 */
int gpu_aes_expand_key(const uint8_t *key, size_t len, struct gpu_aes_key *e);

/*
 * An XTS entry: key is the data key then the tweak key, len 32, 48 or 64.
 * As gpu_aes_expand_key() for the data key, plus the tweak key after it in
 * key[], tweak_len == key_len and tweak_sched its encryption schedule.
 * Equal halves are not refused here (the kernel refuses them only in FIPS
 * mode or for CRYPTO_TFM_REQ_FORBID_WEAK_KEYS).  -EINVAL for another len
 * (then *e is untouched).
 */
int gpu_aes_expand_xts_key(const uint8_t *key, size_t len,
			   struct gpu_aes_key *e);

/* The AES S-box, shared with tests that run a reference cipher. */
extern const uint8_t gpu_aes_sbox[256];

#endif /* GPU_AES_HELPER_AES_KEY_H */
