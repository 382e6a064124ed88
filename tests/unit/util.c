// SPDX-License-Identifier: GPL-2.0-only
#include <sched.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "util.h"

int ref_crypt(unsigned int alg, unsigned int dir, const uint8_t *key,
	      size_t key_len, const uint8_t *iv, const uint8_t *in,
	      uint8_t *out, size_t len)
{
	const EVP_CIPHER *c;
	EVP_CIPHER_CTX *ctx;
	int outl = 0, ok;

	if (alg == GPU_AES_ALG_ECB)
		c = key_len == 16 ? EVP_aes_128_ecb() :
		    key_len == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
	else
		c = key_len == 16 ? EVP_aes_128_ctr() :
		    key_len == 24 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, key,
			       alg == GPU_AES_ALG_CTR ? iv : NULL,
			       alg == GPU_AES_ALG_CTR ||
			       dir == GPU_AES_DIR_ENCRYPT) == 1 &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
	     (len == 0 ||
	      EVP_CipherUpdate(ctx, out, &outl, in, (int)len) == 1);
	EVP_CIPHER_CTX_free(ctx);
	return ok && (size_t)outl == len ? 0 : -1;
}

int ref_xts(unsigned int dir, const uint8_t *key, size_t key_len,
	    const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	const EVP_CIPHER *c = key_len == 32 ? EVP_aes_128_xts() :
			      key_len == 64 ? EVP_aes_256_xts() : NULL;
	EVP_CIPHER_CTX *ctx;
	int outl = 0, ok;

	if (!c)
		return -1;
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, key, iv,
			       dir == GPU_AES_DIR_ENCRYPT) == 1 &&
	     EVP_CipherUpdate(ctx, out, &outl, in, (int)len) == 1;
	EVP_CIPHER_CTX_free(ctx);
	return ok && (size_t)outl == len ? 0 : -1;
}

int ref_gcm(unsigned int dir, const uint8_t *key, size_t key_len,
	    const uint8_t *iv, const uint8_t *aad, size_t aad_len,
	    const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag,
	    size_t auth_len)
{
	const EVP_CIPHER *c = key_len == 16 ? EVP_aes_128_gcm() :
			      key_len == 24 ? EVP_aes_192_gcm() :
			      EVP_aes_256_gcm();
	int enc = dir == GPU_AES_DIR_ENCRYPT, outl = 0, ok, ret = -1;
	EVP_CIPHER_CTX *ctx;
	uint8_t fin[16];

	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) == 1 &&
	     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
	     EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc) == 1 &&
	     (!aad_len ||
	      EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)aad_len) == 1) &&
	     (!len || (EVP_CipherUpdate(ctx, out, &outl, in, (int)len) == 1 &&
		       (size_t)outl == len)) &&
	     (enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG,
					 (int)auth_len, tag) == 1);
	if (ok && enc)
		ret = EVP_CipherFinal_ex(ctx, fin, &outl) == 1 &&
		      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG,
					  (int)auth_len, tag) == 1 ? 0 : -1;
	else if (ok)
		ret = EVP_CipherFinal_ex(ctx, fin, &outl) == 1 ? 0 : 1;
	EVP_CIPHER_CTX_free(ctx);
	return ret;
}

struct gpu_aes_producer *mk_producer(uint32_t entries, uint64_t data_size,
				     unsigned int threads,
				     unsigned int spin_us)
{
	struct gpu_aes_producer_config cfg;
	struct gpu_aes_producer *p = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_entries = entries;
	cfg.nr_keys = 8;
	cfg.data_size = data_size;
	cfg.backend = "cpu";
	cfg.backend_cfg.threads = threads;
	cfg.spin_us = spin_us;
	if (gpu_aes_producer_create(&cfg, &p))
		return NULL;
	return p;
}

uint64_t stat_sleeps(struct gpu_aes_producer *p)
{
	struct gpu_aes_producer_stats s;

	gpu_aes_producer_get_stats(p, &s);
	return s.sleeps;
}

int wait_until(int (*cond)(void *arg), void *arg)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 100000 };
	long i;

	/* A hang guard, never an assertion about speed. */
	for (i = 0; i < 200000; i++) {
		if (cond(arg))
			return 0;
		if (i < 1000)
			sched_yield();
		else
			nanosleep(&ts, NULL);
	}
	return -1;
}

void on_done(void *cookie, int status)
{
	struct result *r = cookie;

	r->status = status;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

int is_done(void *arg)
{
	return __atomic_load_n(&((struct result *)arg)->done, __ATOMIC_ACQUIRE);
}
