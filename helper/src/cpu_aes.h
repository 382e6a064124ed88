/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpu_aes.h - one request's AES on the host with OpenSSL's EVP: the cpu
 * backend runs every segment through it, and kring/ uses it as the
 * software fallback that the kernel's request path replays on (the role
 * the displaced CPU driver has in the kernel).
 *
 * A mode runs on the EVP cipher its row of the ABI's mode table names
 * (uapi/gpu_aes.h, the EVP column).  XTS is EVP's for 128 and 256-bit
 * keys with distinct halves; AES-192 keys and equal halves (which EVP
 * does not do) and data units longer than EVP's IEEE 1619 limit go
 * through xts_ecb.c, built from AES-ECB.  XCTR, which OpenSSL lacks, is
 * built in cpu_aes.c from the ECB cipher its EVP column names.
 */
#ifndef GPU_AES_HELPER_CPU_AES_H
#define GPU_AES_HELPER_CPU_AES_H

#include <stdint.h>

#include <openssl/evp.h>

#include "../../uapi/gpu_aes.h"

/* One per mode and direction, and the XTS tweak key's (cpu_aes.c). */
#define GPU_AES_CPU_NR_CTX	(2 * GPU_AES_ALG_MAX + 1)

/*
 * One key and the OpenSSL contexts made from it, each on first use.  Not
 * for two threads at once: a context holds a request's state.  The
 * contexts are made in secret memory (secret.h); a caller that must keep
 * keys out of core dumps puts the struct there too (gpu_aes_secret_alloc).
 */
struct gpu_aes_cpu_key {
	uint32_t key_len;	/* 16, 24, 32, or 0: no key */
	uint32_t tweak_len;	/* XTS: == key_len; else 0 */
	int xts_compose;	/* XTS through xts_ecb.c, not EVP's XTS */
	uint8_t key[64];	/* the key, then (XTS) the tweak key */
	EVP_CIPHER_CTX *ctx[GPU_AES_CPU_NR_CTX];
};

/*
 * One request.  in and out may be equal (in place) or not overlap.  GCM:
 * the tag is read from @tag before any text is written (decryption) or
 * written there (encryption); @aad may lie in front of @in.
 */
struct gpu_aes_cpu_op {
	uint8_t alg;		/* enum gpu_aes_alg */
	uint8_t dir;		/* enum gpu_aes_dir */
	uint8_t auth_len;	/* GCM: tag bytes */
	const uint8_t *iv;	/* 16 bytes as in struct gpu_aes_sqe */
	const uint8_t *in;
	uint8_t *out;
	uint32_t len;
	const uint8_t *aad;	/* GCM */
	uint32_t aad_len;
	uint8_t *tag;		/* GCM */
};

/*
 * Takes @key (key_len bytes, then tweak_len bytes of XTS tweak key) in
 * place of the old one, whose contexts are freed.  The caller checked the
 * lengths (gpu_aes_key_len_valid()).
 */
void gpu_aes_cpu_key_set(struct gpu_aes_cpu_key *kc, const uint8_t *key,
			 uint32_t key_len, uint32_t tweak_len);

/* Frees the contexts (OpenSSL cleanses them) and wipes the key. */
void gpu_aes_cpu_key_wipe(struct gpu_aes_cpu_key *kc);

/* Non-zero bytes of key plus live contexts: 0 when nothing is held. */
unsigned int gpu_aes_cpu_key_held(const struct gpu_aes_cpu_key *kc);

/*
 * Runs @op with @kc.  GPU_AES_STATUS_OK, GPU_AES_STATUS_EBADMSG (a GCM
 * decryption whose tag does not match: out holds text that must not be
 * released) or
 * GPU_AES_STATUS_EIO (OpenSSL failed, or the key does not fit the
 * algorithm).
 */
int32_t gpu_aes_cpu_crypt(struct gpu_aes_cpu_key *kc,
			  const struct gpu_aes_cpu_op *op);

#endif /* GPU_AES_HELPER_CPU_AES_H */
