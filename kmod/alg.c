// SPDX-License-Identifier: GPL-2.0-only
/*
 * alg.c - one descriptor per algorithm (job.h): the registered algorithms
 * point at theirs, so nothing is computed from enum or array order.
 */
#include <crypto/aes.h>
#include <crypto/gcm.h>

#include "job.h"

const struct gpu_aes_alg_desc gpu_aes_ecb_desc = {
	.name = "ecb",
	.index = 0,
	.alg = GPU_AES_ALG_ECB,
	.iv_bytes = 0,
	.ring_stat = GPU_AES_STAT_RING_ECB_REQUESTS,
};

const struct gpu_aes_alg_desc gpu_aes_ctr_desc = {
	.name = "ctr",
	.index = 1,
	.alg = GPU_AES_ALG_CTR,
	.iv_bytes = AES_BLOCK_SIZE,
	.ring_stat = GPU_AES_STAT_RING_CTR_REQUESTS,
};

const struct gpu_aes_alg_desc gpu_aes_xts_desc = {
	.name = "xts",
	.index = 2,
	.alg = GPU_AES_ALG_XTS,
	.iv_bytes = AES_BLOCK_SIZE,
	.priority_above = 1,
	.ring_stat = GPU_AES_STAT_RING_XTS_REQUESTS,
};

const struct gpu_aes_alg_desc gpu_aes_gcm_desc = {
	.name = "gcm",
	.index = 3,
	.alg = GPU_AES_ALG_GCM,
	.iv_bytes = GCM_AES_IV_SIZE,
	.priority_above = 1,
	.ring_stat = GPU_AES_STAT_RING_GCM_REQUESTS,
};

const struct gpu_aes_alg_desc *const gpu_aes_alg_descs[GPU_AES_NR_ALGS] = {
	&gpu_aes_ecb_desc,
	&gpu_aes_ctr_desc,
	&gpu_aes_xts_desc,
	&gpu_aes_gcm_desc,
};
