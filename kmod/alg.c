// SPDX-License-Identifier: GPL-2.0-only
/*
 * alg.c - one descriptor per mode (job.h), made from the ABI's table of
 * modes (uapi/gpu_aes.h, GPU_AES_MODES): everything that differs between
 * the modes, read by registration, the request path, counters, routing
 * and kring.  A mode this kernel has no CPU driver for is not registered
 * (skcipher.c, aead.c mark it absent), and the module then serves, lists
 * and counts only the others.
 *
 * The crypto API's aliases are the driver names only.  Aliasing
 * "ecb(aes)" and the like would deadlock the load: the self-test's
 * init_tfm looks up the fallback by that name, which makes the crypto API
 * request_module() this very module while it is still initialising (seen
 * with modprobe on 6.1).
 */
#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <linux/module.h>

#include "job.h"

static struct gpu_aes_alg_desc gpu_aes_alg_rows[GPU_AES_NR_ALGS];

#define GPU_AES_ALIAS_(ID, VAL, NAME, ...) \
	MODULE_ALIAS_CRYPTO(#NAME "-aes-gpu");
GPU_AES_MODES(GPU_AES_ALIAS_)

/* Modes registration found no CPU driver for: GPU_AES_ALG_BIT() each. */
static u32 gpu_aes_algs_absent;

void gpu_aes_alg_init(void)
{
	struct gpu_aes_alg_desc *d;
	unsigned int i;
	u8 alg;

	for (i = 0; i < GPU_AES_NR_ALGS; i++) {
		d = &gpu_aes_alg_rows[i];
		alg = i + 1;
		d->alg = alg;
		d->name = gpu_aes_alg_name(alg);
		snprintf(d->cra_name, sizeof(d->cra_name), "%s(aes)", d->name);
		snprintf(d->driver, sizeof(d->driver), "%s-aes-gpu", d->name);
		d->iv_bytes = gpu_aes_alg_iv_bytes(alg);
		d->aead = gpu_aes_alg_aead(alg);
		d->blocksize = gpu_aes_alg_kind(alg) == GPU_AES_KIND_BLOCK ?
			       AES_BLOCK_SIZE : 1;
		d->chunksize = gpu_aes_alg_kind(alg) == GPU_AES_KIND_STREAM ?
			       AES_BLOCK_SIZE : 0;
		d->key_parts = gpu_aes_alg_keys(alg);
		d->out_iv = gpu_aes_alg_out_iv(alg);
		d->priority_above = gpu_aes_alg_prio(alg);
	}
	gpu_aes_algs_absent = 0;
}

const struct gpu_aes_alg_desc *gpu_aes_alg_desc(unsigned int alg)
{
	if (alg < 1 || alg > GPU_AES_NR_ALGS ||
	    (READ_ONCE(gpu_aes_algs_absent) & GPU_AES_ALG_BIT(alg)))
		return NULL;
	return &gpu_aes_alg_rows[alg - 1];
}

u32 gpu_aes_alg_set(void)
{
	return GPU_AES_ALGS_KNOWN & ~READ_ONCE(gpu_aes_algs_absent);
}

void gpu_aes_alg_mark_absent(const struct gpu_aes_alg_desc *d)
{
	WRITE_ONCE(gpu_aes_algs_absent,
		   gpu_aes_algs_absent | GPU_AES_ALG_BIT(d->alg));
}

const struct gpu_aes_alg_desc *gpu_aes_alg_row_desc(unsigned int row)
{
	return row < GPU_AES_NR_ALGS ? &gpu_aes_alg_rows[row] : NULL;
}
