/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * params.h - module parameters of gpu_aes.ko, defined in main.c.
 *
 * The request path reads the writable ones with READ_ONCE() on every
 * request, so a change through /sys/module/gpu_aes/parameters/ takes effect
 * for the next request without any locking.
 */
#ifndef GPU_AES_PARAMS_H
#define GPU_AES_PARAMS_H

/*
 * cra_priority of ecb and ctr; xts and gcm register one above (struct
 * gpu_aes_alg_desc).  Read once, at registration.
 */
extern int gpu_aes_priority;
/*
 * Defaults, here so kring/ (which builds the request path in userspace)
 * starts from the module's values.  256 keeps lone tiny requests (testmgr
 * vectors, IVs, headers) off the ring but lets dm-crypt's 512-byte sectors,
 * one request each, batch on it.
 */
#define GPU_AES_DEFAULT_RING_MIN_BYTES	256U
#define GPU_AES_DEFAULT_RING_MAX_BYTES	1048576U	/* 1 MiB */
#define GPU_AES_DEFAULT_TIMEOUT_MS	1000U

/* Requests shorter than this go to the CPU fallback. */
extern unsigned int gpu_aes_ring_min_bytes;
/* Requests longer than this go to the CPU fallback (also data area / 4). */
extern unsigned int gpu_aes_ring_max_bytes;
/* Per-request deadline on the ring (and in the backlog), milliseconds. */
extern unsigned int gpu_aes_timeout_ms;

#endif /* GPU_AES_PARAMS_H */
