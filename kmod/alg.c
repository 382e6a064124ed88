// SPDX-License-Identifier: GPL-2.0-only
/*
 * alg.c - one descriptor per algorithm (job.h): everything that differs
 * between the modes, read by registration, the request path, counters,
 * routing and kring.  A mode is one row here, plus its rules in the ABI.
 *
 * The crypto API's aliases are the driver names only.  Aliasing
 * "ecb(aes)" and the like would deadlock the load: the self-test's
 * init_tfm looks up the fallback by that name, which makes the crypto API
 * request_module() this very module while it is still initialising (seen
 * with modprobe on 6.1).
 */
#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/gcm.h>
#include <linux/module.h>

#include "job.h"

static const struct gpu_aes_alg_desc gpu_aes_ecb_desc = {
	.name = "ecb",
	.cra_name = "ecb(aes)",
	.driver = "ecb-aes-gpu",
	.alg = GPU_AES_ALG_ECB,
	.blocksize = AES_BLOCK_SIZE,
	.key_parts = 1,
	.out_iv = GPU_AES_OUT_IV_KEEP,
};
MODULE_ALIAS_CRYPTO("ecb-aes-gpu");

static const struct gpu_aes_alg_desc gpu_aes_ctr_desc = {
	.name = "ctr",
	.cra_name = "ctr(aes)",
	.driver = "ctr-aes-gpu",
	.alg = GPU_AES_ALG_CTR,
	.iv_bytes = AES_BLOCK_SIZE,
	.blocksize = 1,
	.chunksize = AES_BLOCK_SIZE,
	.key_parts = 1,
	.out_iv = GPU_AES_OUT_IV_CTR,
};
MODULE_ALIAS_CRYPTO("ctr-aes-gpu");

/* The IV is left as it was, like the xts template does. */
static const struct gpu_aes_alg_desc gpu_aes_xts_desc = {
	.name = "xts",
	.cra_name = "xts(aes)",
	.driver = "xts-aes-gpu",
	.alg = GPU_AES_ALG_XTS,
	.iv_bytes = AES_BLOCK_SIZE,
	.blocksize = AES_BLOCK_SIZE,
	.key_parts = 2,
	.out_iv = GPU_AES_OUT_IV_KEEP,
	.priority_above = 1,
};
MODULE_ALIAS_CRYPTO("xts-aes-gpu");

static const struct gpu_aes_alg_desc gpu_aes_gcm_desc = {
	.name = "gcm",
	.cra_name = "gcm(aes)",
	.driver = "gcm-aes-gpu",
	.alg = GPU_AES_ALG_GCM,
	.iv_bytes = GCM_AES_IV_SIZE,
	.blocksize = 1,
	.key_parts = 1,
	.out_iv = GPU_AES_OUT_IV_KEEP,
	.priority_above = 1,
	.aead = true,
};
MODULE_ALIAS_CRYPTO("gcm-aes-gpu");

/*
 * Encryption is serial within a request (one GPU thread runs its chain),
 * decryption parallel per block; the output IV is the last ciphertext
 * block, taken before an in-place decryption overwrites it (job.c).
 */
static const struct gpu_aes_alg_desc gpu_aes_cbc_desc = {
	.name = "cbc",
	.cra_name = "cbc(aes)",
	.driver = "cbc-aes-gpu",
	.alg = GPU_AES_ALG_CBC,
	.iv_bytes = AES_BLOCK_SIZE,
	.blocksize = AES_BLOCK_SIZE,
	.key_parts = 1,
	.out_iv = GPU_AES_OUT_IV_CHAIN,
};
MODULE_ALIAS_CRYPTO("cbc-aes-gpu");

const struct gpu_aes_alg_desc *const gpu_aes_alg_descs[GPU_AES_NR_ALGS] = {
	[GPU_AES_ALG_ECB - 1] = &gpu_aes_ecb_desc,
	[GPU_AES_ALG_CTR - 1] = &gpu_aes_ctr_desc,
	[GPU_AES_ALG_XTS - 1] = &gpu_aes_xts_desc,
	[GPU_AES_ALG_GCM - 1] = &gpu_aes_gcm_desc,
	[GPU_AES_ALG_CBC - 1] = &gpu_aes_cbc_desc,
};

u32 gpu_aes_alg_set(void)
{
	u32 set = 0;
	unsigned int i;

	for (i = 0; i < GPU_AES_NR_ALGS; i++)
		if (gpu_aes_alg_descs[i])
			set |= GPU_AES_ALG_BIT(gpu_aes_alg_descs[i]->alg);
	return set;
}

const struct gpu_aes_alg_desc *gpu_aes_alg_desc(unsigned int alg)
{
	return alg >= 1 && alg <= GPU_AES_NR_ALGS ? gpu_aes_alg_descs[alg - 1] :
						    NULL;
}
