// SPDX-License-Identifier: GPL-2.0-only
/*
 * cuda_keys.cu - a worker's copies of the key table: expanded keys in a
 * device table (d_keys) staged through pinned host memory (h_keys), and a
 * host AES context per slot for the per-request blocks the kernel does not
 * compute (XTS E_K2(iv), GCM E_K(J0)).  A copy is made when a batch first
 * needs its slot at a generation, and wiped when the key table entry was
 * wiped or rewritten (keys_drop_stale(), from the backend's idle hook) and
 * when the worker goes (keys_free()), so a freed tfm's key does not
 * outlive it on the GPU or in the helper.
 */
#include "cuda_internal.h"
#include "../src/secret.h"

#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

namespace gpu_aes_cuda {

/*
 * The host staging table is secret memory (out of core dumps) pinned with
 * cudaHostRegister rather than cudaMallocHost's, whose mapping the driver
 * makes and this process cannot vouch for.
 */
bool keys_init(worker *w, uint32_t nr_keys)
{
	size_t h_bytes = nr_keys * sizeof(gpu_aes_dev_key);
	bool ok = true;

	w->nr_keys = nr_keys;
	w->key_gen = (uint32_t *)calloc(nr_keys, sizeof(uint32_t));
	w->key_valid = (uint8_t *)calloc(nr_keys, 1);
	w->hctx = (EVP_CIPHER_CTX **)calloc(nr_keys, sizeof(*w->hctx));
	if (!w->key_gen || !w->key_valid || !w->hctx)
		return false;
	/* Each context will hold a schedule (key_ensure()). */
	gpu_aes_secret_begin();
	for (uint32_t k = 0; k < nr_keys && ok; k++)
		ok = (w->hctx[k] = EVP_CIPHER_CTX_new()) != nullptr;
	gpu_aes_secret_end();
	if (!ok)
		return false;
	w->h_keys = (gpu_aes_dev_key *)gpu_aes_secret_alloc(h_bytes);
	if (!w->h_keys)
		return false;
	if (!CK(w, cudaHostRegister(w->h_keys, h_bytes,
				    cudaHostRegisterDefault)))
		return false;
	w->h_keys_pinned = true;
	return CK(w, cudaMalloc(&w->d_keys, nr_keys * sizeof(gpu_aes_dev_key))) &&
	       CK(w, cudaMemset(w->d_keys, 0, nr_keys * sizeof(gpu_aes_dev_key))) &&
	       CK(w, cudaStreamCreateWithFlags(&w->key_stream,
					       cudaStreamNonBlocking));
}

/* Key copies: wiped on the device and in host memory, then freed. */
void keys_free(worker *w)
{
	if (w->d_keys) {
		cudaMemset(w->d_keys, 0, w->nr_keys * sizeof(gpu_aes_dev_key));
		cudaDeviceSynchronize();
		cudaFree(w->d_keys);
	}
	if (w->h_keys) {
		if (w->h_keys_pinned)
			cudaHostUnregister(w->h_keys);
		/* Wipes before it unmaps. */
		gpu_aes_secret_free(w->h_keys,
				    w->nr_keys * sizeof(gpu_aes_dev_key));
	}
	if (w->hctx) {
		for (uint32_t k = 0; k < w->nr_keys; k++)
			EVP_CIPHER_CTX_free(w->hctx[k]);	/* cleanses */
		free(w->hctx);
	}
	if (w->key_stream)
		cudaStreamDestroy(w->key_stream);
	free(w->key_gen);
	free(w->key_valid);
}

/*
 * Upload slot k's schedules if this worker has another generation.  XTS
 * entries carry the tweak key after the key; other entries get the GCM
 * hash key powers, since the entry does not say which algorithm uses it.
 */
int key_ensure(worker *w, const gpu_aes_region *r, uint16_t k, uint32_t gen)
{
	const gpu_aes_key *e = &r->keys[k];
	uint8_t raw[64], h[16];
	static const uint8_t zero[16] = { 0 };
	uint32_t len, tlen, g1, g2;
	unsigned int nr;
	int rc = -1;
	bool ok;

	if (key_current(w, k, gen))
		return 1;
	g1 = __atomic_load_n(&e->gen, __ATOMIC_ACQUIRE);
	len = __atomic_load_n(&e->key_len, __ATOMIC_RELAXED);
	tlen = __atomic_load_n(&e->tweak_len, __ATOMIC_RELAXED);
	if ((len != 16 && len != 24 && len != 32) || (tlen && tlen != len))
		return -1;
	gpu_aes_secret_copy(raw, e->key, len + tlen);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	g2 = __atomic_load_n(&e->gen, __ATOMIC_RELAXED);
	if (g1 != gen || g2 != gen)
		goto out;	/* rewritten since the request was made */
	/*
	 * A replaced key may still be in use by batches in flight on other
	 * streams: let them finish before overwriting its device copy.
	 */
	if (w->key_valid[k] &&
	    !CK(w, cudaDeviceSynchronize())) {
		rc = -2;
		goto out;
	}
	w->key_valid[k] = 0;
	if (gpu_aes_dev_expand_key(raw, len, &w->h_keys[k], &nr))
		goto out;
	/* The provider's copy of the schedule goes to secret memory too. */
	gpu_aes_secret_begin();
	ok = EVP_EncryptInit_ex(w->hctx[k], len == 16 ? EVP_aes_128_ecb() :
				len == 24 ? EVP_aes_192_ecb() :
				EVP_aes_256_ecb(), NULL, raw + tlen, NULL) == 1 &&
	     EVP_CIPHER_CTX_set_padding(w->hctx[k], 0) == 1;
	gpu_aes_secret_end();
	if (!ok)
		goto out;
	if (!tlen) {
		int n = 0;

		if (EVP_EncryptUpdate(w->hctx[k], h, &n, zero, 16) != 1 ||
		    n != 16)
			goto out;
		gpu_aes_gcm_powers(h, &w->h_keys[k]);
		OPENSSL_cleanse(h, sizeof(h));
	}
	if (!CK(w, cudaMemcpyAsync(&w->d_keys[k], &w->h_keys[k],
				   sizeof(gpu_aes_dev_key),
				   cudaMemcpyHostToDevice, w->key_stream)) ||
	    !CK(w, cudaStreamSynchronize(w->key_stream))) {
		rc = -2;
		goto out;
	}
	w->key_gen[k] = gen;
	w->key_valid[k] = 1;
	rc = 1;
out:
	OPENSSL_cleanse(raw, sizeof(raw));
	return rc;
}

namespace {

/* Zero one slot's schedules in pinned host memory and on the device. */
void key_wipe(worker *w, uint32_t k)
{
	volatile uint8_t *p = (volatile uint8_t *)&w->h_keys[k];

	for (size_t i = 0; i < sizeof(gpu_aes_dev_key); i++)
		p[i] = 0;
	w->key_valid[k] = 0;
	EVP_CIPHER_CTX_reset(w->hctx[k]);	/* cleanses the schedule */
	if (w->dead)
		return;	/* the context is gone: nothing left to reach */
	CK(w, cudaMemsetAsync(&w->d_keys[k], 0, sizeof(gpu_aes_dev_key),
			      w->key_stream));
}

} /* namespace */

/*
 * Only with no batch in flight, on the thread that also runs key_ensure(),
 * so no launch can be reading a schedule we wipe: drop every copy whose
 * key table entry the kernel wiped or rewrote since the upload.
 */
bool keys_drop_stale(worker *w, const gpu_aes_region *r)
{
	bool wiped = false, holds = false;

	for (uint32_t k = 0; k < r->nr_keys; k++) {
		const gpu_aes_key *e = &r->keys[k];

		if (!w->key_valid[k])
			continue;
		if (__atomic_load_n(&e->key_len, __ATOMIC_RELAXED) &&
		    __atomic_load_n(&e->gen, __ATOMIC_RELAXED) ==
		    w->key_gen[k]) {
			holds = true;
			continue;
		}
		if (!wiped && !w->dead)
			CK(w, cudaSetDevice(w->dev));
		key_wipe(w, k);
		wiped = true;
	}
	if (wiped && !w->dead)
		CK(w, cudaStreamSynchronize(w->key_stream));
	return holds;
}

} /* namespace gpu_aes_cuda */
