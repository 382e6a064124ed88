/* SPDX-License-Identifier: GPL-2.0-only */
/* backend_cpu.h - what the cpu backend offers besides its ops (tests). */
#ifndef GPU_AES_HELPER_BACKEND_CPU_H
#define GPU_AES_HELPER_BACKEND_CPU_H

#include "backend.h"

/*
 * Non-zero bytes of cached raw keys plus live OpenSSL contexts, over all
 * workers: 0 means the backend holds no key material.  For tests.
 */
size_t gpu_aes_backend_cpu_cached(struct gpu_aes_backend *be);

#endif /* GPU_AES_HELPER_BACKEND_CPU_H */
