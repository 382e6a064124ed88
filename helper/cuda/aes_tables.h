/* SPDX-License-Identifier: GPL-2.0-only */
/* aes_tables.h - the lookup tables the kernel replicates in shared memory. */
#ifndef GPU_AES_CUDA_AES_TABLES_H
#define GPU_AES_CUDA_AES_TABLES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Words hold AES column bytes little endian (row 0 in the low byte).
 * te0[x] = (2s, s, s, 3s), td0[x] = (14i, 9i, 13i, 11i), td4[x] = (i,i,i,i)
 * with s = S(x), i = S^-1(x); rows 1..3 are byte rotations of row 0.
 */
struct gpu_aes_tables {
	uint32_t te0[256];
	uint32_t td0[256];
	uint32_t td4[256];
	uint8_t sbox[256];
	uint8_t isbox[256];
};

void gpu_aes_make_tables(struct gpu_aes_tables *t);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_CUDA_AES_TABLES_H */
