// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_backend - the GPU correctness suite through the helper path: the
 * in-process producer posts requests exactly as gpu_aes.ko does, the core
 * batches them, the cuda backend runs them; every byte is compared with
 * OpenSSL.  Random keys of each size (re-keyed mid-run), random IVs
 * including carries across 2^32/2^64/2^128, random lengths 1 B..64 MiB,
 * random mixes of algorithms/directions/keys per batch, in place and out of
 * place, outputs poisoned first.  A second phase has 8 threads submitting
 * at once, so batches mix requests of several submitters whose data lie
 * interleaved in the data area (as with many CPUs in the kernel).
 * XTS (every key size, equal halves, ciphertext stealing) is checked
 * against OpenSSL's XTS for 128/256-bit keys, and for 192-bit keys and
 * equal halves (which OpenSSL lacks or refuses) against the cpu backend
 * and XTS composed from OpenSSL's AES-ECB, which must agree.  GCM (every
 * key size, 0..64 KiB of AAD, empty to MiB texts, every tag size) against
 * OpenSSL's GCM; decryptions with a flipped bit in the tag, the
 * ciphertext or the AAD must complete with exactly GPU_AES_STATUS_EBADMSG
 * and leave the output buffer untouched.  All four algorithms share
 * batches.
 * Prints "N passed, M failed"; without a GPU prints SKIP and exits 0.
 * Usage: check_backend [rounds] [gpus]
 */
#include "../../helper/include/gpu_aes_producer.h"
#include "../../helper/cuda/aes_gpu.h"
#include "../../helper/cuda/cuda_backend.h"
#include "ref.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NKEYS 24	/* ECB, CTR, GCM */
#define NXKEYS 12	/* XTS, slots NKEYS.. */
#define MAXQ 256

struct req {
	int alg, dir, key;
	uint32_t len, aad_len, auth_len;
	int flip;		/* GCM decryption: 1 tag, 2 text, 3 AAD */
	uint8_t iv[16];
	uint8_t *in, *out, *want, *aad;
	uint8_t tag[16], want_tag[16];
	int want_status;
	int status;
	int done;
};

static uint8_t keys[NKEYS + NXKEYS][64];	/* XTS: key, tweak key */
static unsigned int key_len[NKEYS + NXKEYS];	/* XTS: one key's */
static struct gpu_aes_producer *cpu_p;	/* the cpu backend, for XTS */

static void cb(void *cookie, int status)
{
	struct req *r = cookie;

	r->status = status;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static void pick_iv(struct rng *g, uint8_t iv[16])
{
	uint64_t hi = rng_next(g), lo = rng_next(g);

	switch (rng_next(g) % 5) {
	case 0:
		lo = (lo & ~0xffffffffULL) | (0xffffffffULL - rng_next(g) % 64);
		break;
	case 1:
		lo = ~0ULL - rng_next(g) % 64;
		break;
	case 2:
		hi = ~0ULL;
		lo = ~0ULL - rng_next(g) % 64;
		break;
	default:
		break;
	}
	gpu_aes_ctr_store(hi, lo, iv);
}

static uint32_t pick_len(struct rng *g, int alg)
{
	uint32_t len;

	switch (rng_next(g) % 16) {
	case 0: /* large: up to 64 MiB */
		len = 1 + (uint32_t)(rng_next(g) % (64U << 20));
		break;
	case 1: case 2: case 3:
		len = 1 + (uint32_t)(rng_next(g) % (1U << 20));
		break;
	default:
		len = 1 + (uint32_t)(rng_next(g) % 8192);
		break;
	}
	if (alg == GPU_AES_ALG_ECB)
		len = (len + 15) & ~15U;
	return len;
}

static int setkey(struct gpu_aes_producer *p, struct rng *g, int k)
{
	if (k >= NKEYS) {
		int err;

		key_len[k] = 16 + 8 * (k % 3);
		rng_fill(g, keys[k], 64);
		if (k >= NKEYS + 9)	/* equal halves */
			memcpy(keys[k] + key_len[k], keys[k], key_len[k]);
		err = gpu_aes_producer_setkey_xts(p, (unsigned int)k, keys[k],
						  2 * key_len[k]);
		if (!err)
			err = gpu_aes_producer_setkey_xts(cpu_p, (unsigned int)k,
							  keys[k], 2 * key_len[k]);
		return err;
	}
	key_len[k] = 16 + 8 * (k % 3);
	rng_fill(g, keys[k], 32);
	return gpu_aes_producer_setkey(p, (unsigned int)k, keys[k], key_len[k]);
}

static const unsigned int auth_lens[] = { 4, 8, 12, 13, 14, 15, 16 };

/*
 * Draws the rest of a request of alg (r->len set) and what it must
 * produce.  0, or -1 when the references failed or disagree.
 */
static int make_req(struct rng *g, struct req *r, int alg, int inplace)
{
	r->alg = alg;
	r->dir = (int)(rng_next(g) % 2);
	r->flip = 0;
	r->want_status = 0;
	r->aad_len = r->auth_len = 0;
	r->aad = NULL;
	if (alg == GPU_AES_ALG_XTS) {
		r->key = NKEYS + (int)(rng_next(g) % NXKEYS);
		/* IEEE 1619's data unit limit, 2^20 blocks, OpenSSL enforces */
		if (r->len > (16U << 20))
			r->len %= 16U << 20;
		if (r->len < 16)
			r->len += 16;
	} else {
		r->key = (int)(rng_next(g) % NKEYS);
	}
	pick_iv(g, r->iv);
	if (alg == GPU_AES_ALG_GCM) {
		uint32_t pick = (uint32_t)(rng_next(g) % 8);

		if (rng_next(g) % 8 == 0)
			r->len = 0;
		memset(r->iv + 12, 0, 4);
		r->aad_len = pick == 0 ? 0 : pick < 5 ?
			     (uint32_t)(rng_next(g) % 80) : pick < 7 ?
			     64 + (uint32_t)(rng_next(g) % 200) :
			     (uint32_t)(rng_next(g) % 70000);
		r->auth_len = auth_lens[rng_next(g) % 7];
		if (r->dir && rng_next(g) % 3 == 0)
			r->flip = 1 + (int)(rng_next(g) % 3);
		if (r->flip == 2 && !r->len)
			r->flip = 1;
		if (r->flip == 3 && !r->aad_len)
			r->flip = 1;
		/* a flipped request is checked out of place: dst untouched */
		if (r->flip)
			inplace = 0;
	}
	r->in = malloc(r->len ? r->len : 1);
	r->want = malloc(r->len ? r->len : 1);
	r->aad = malloc(r->aad_len ? r->aad_len : 1);
	r->out = inplace ? r->in : malloc(r->len ? r->len : 1);
	if (!r->in || !r->want || !r->out || !r->aad)
		return -1;
	rng_fill(g, r->in, r->len);
	rng_fill(g, r->aad, r->aad_len);
	if (alg == GPU_AES_ALG_XTS) {
		const uint8_t *k = keys[r->key], *tk = k + key_len[r->key];
		int odd = key_len[r->key] == 24 || !memcmp(k, tk, key_len[r->key]);

		if (!odd)
			return ref_xts_evp(r->dir, k, tk, key_len[r->key], r->iv,
					   r->in, r->want, r->len);
		/* No OpenSSL XTS here: the cpu backend and ECB-made XTS agree. */
		uint8_t *c = malloc(r->len);
		int rc = !c || ref_xts(r->dir, k, tk, key_len[r->key], r->iv,
				       r->in, r->want, r->len) ||
			 gpu_aes_producer_run(cpu_p, GPU_AES_ALG_XTS,
					      (unsigned int)r->dir,
					      (unsigned int)r->key, r->iv, r->in,
					      c, r->len) ||
			 memcmp(c, r->want, r->len);

		free(c);
		if (rc)
			printf("FAIL: XTS references disagree (keylen %u len %u)\n",
			       key_len[r->key], r->len);
		return rc ? -1 : 0;
	}
	if (alg == GPU_AES_ALG_GCM) {
		const uint8_t *k = keys[r->key];

		if (!r->dir)
			return ref_gcm(0, k, key_len[r->key], r->iv, r->aad,
				       r->aad_len, r->in, r->want, r->len,
				       r->want_tag, r->auth_len);
		/* decryption of a real ciphertext, maybe with one bit flipped */
		memcpy(r->want, r->in, r->len);
		if (ref_gcm(0, k, key_len[r->key], r->iv, r->aad, r->aad_len,
			    r->want, r->in, r->len, r->tag, r->auth_len))
			return -1;
		if (r->flip == 1)
			r->tag[rng_next(g) % r->auth_len] ^=
				(uint8_t)(1U << (rng_next(g) % 8));
		else if (r->flip == 2)
			r->in[rng_next(g) % r->len] ^= (uint8_t)(1U << (rng_next(g) % 8));
		else if (r->flip == 3)
			r->aad[rng_next(g) % r->aad_len] ^=
				(uint8_t)(1U << (rng_next(g) % 8));
		if (r->flip)
			r->want_status = GPU_AES_STATUS_EBADMSG;
		return 0;
	}
	return ref_crypt(alg, r->dir, keys[r->key], key_len[r->key], r->iv,
			 r->in, r->want, r->len);
}

static int req_submit(struct gpu_aes_producer *p, struct req *r)
{
	if (r->alg == GPU_AES_ALG_GCM)
		return gpu_aes_producer_submit_gcm_wait(
			p, (unsigned int)r->dir, (unsigned int)r->key, r->iv,
			r->aad, r->aad_len, r->in, r->out, r->len, r->tag,
			r->auth_len, cb, r);
	return gpu_aes_producer_submit_wait(
		p, (unsigned int)r->alg, (unsigned int)r->dir,
		(unsigned int)r->key, r->iv, r->in, r->out, r->len, cb, r);
}

static int req_ok(const struct req *r)
{
	if (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) ||
	    r->status != r->want_status)
		return 0;
	if (r->want_status) {
		/* nothing released: the poisoned output stays as it was */
		for (uint32_t i = 0; i < r->len; i++)
			if (r->out[i] != 0xa5)
				return 0;
		return 1;
	}
	if (memcmp(r->out, r->want, r->len))
		return 0;
	return r->alg != GPU_AES_ALG_GCM || r->dir ||
	       !memcmp(r->tag, r->want_tag, r->auth_len);
}

static void req_free(struct req *r)
{
	if (r->out != r->in)
		free(r->out);
	free(r->in);
	free(r->want);
	free(r->aad);
}

struct conc {
	struct gpu_aes_producer *p;
	uint64_t seed;
	int iters;
	unsigned long long passed, failed;
	pthread_t tid;
};

/* One submitter of phase 2: synchronous requests, every byte checked. */
static void *conc_main(void *arg)
{
	struct conc *c = arg;
	struct rng g;

	rng_seed(&g, c->seed);
	for (int i = 0; i < c->iters; i++) {
		int alg = 1 + (int)(rng_next(&g) % 4);
		struct req r;

		memset(&r, 0, sizeof(r));
		r.len = 1 + (uint32_t)(rng_next(&g) %
			(rng_next(&g) % 8 ? 65536 : (4U << 20)));
		if (alg == GPU_AES_ALG_ECB)
			r.len = (r.len + 15) & ~15U;
		if (make_req(&g, &r, alg, 0)) {
			c->failed++;
			req_free(&r);
			break;
		}
		memset(r.out, 0xa5, r.len);
		r.status = 1;
		if (req_submit(c->p, &r)) {
			c->failed++;
			req_free(&r);
			break;
		}
		while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
			gpu_aes_producer_wait_idle(c->p);
		if (req_ok(&r)) {
			c->passed++;
		} else {
			c->failed++;
			printf("FAIL: concurrent alg %d dir %d keylen %u len %u aad %u status %d\n",
			       r.alg, r.dir, key_len[r.key], r.len, r.aad_len,
			       r.status);
		}
		req_free(&r);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	const char *gpus = argc > 2 ? argv[2] : NULL;
	struct gpu_aes_producer_config cfg;
	struct gpu_aes_producer *p;
	static struct req q[MAXQ];
	unsigned long long passed = 0, failed = 0, bytes = 0;
	struct rng g;
	int err;

	if (gpu_aes_backend_cuda.probe() != 0) {
		printf("SKIP: check-gpu: no CUDA GPU on this machine\n");
		return 0;
	}
	rng_seed(&g, 20261121);
	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_entries = 1024;
	cfg.nr_keys = NKEYS + NXKEYS;
	cfg.data_size = 256U << 20;
	cfg.backend = "cuda";
	cfg.backend_cfg.gpus = gpus;
	cfg.spin_us = 20;
	err = gpu_aes_producer_create(&cfg, &p);
	if (err) {
		printf("FAIL: producer with the cuda backend: %d\n", err);
		return 1;
	}
	if (strcmp(gpu_aes_producer_backend(p), "cuda")) {
		printf("FAIL: backend is %s, not cuda\n",
		       gpu_aes_producer_backend(p));
		return 1;
	}
	{
		struct gpu_aes_producer_config cc = cfg;

		cc.backend = "cpu";
		cc.data_size = 80U << 20;
		cc.nr_entries = 64;
		err = gpu_aes_producer_create(&cc, &cpu_p);
		if (err) {
			printf("FAIL: producer with the cpu backend: %d\n", err);
			return 1;
		}
	}
	for (int k = 0; k < NKEYS + NXKEYS; k++)
		if (setkey(p, &g, k))
			return 1;
	for (int it = 0; it < rounds; it++) {
		int n = 1 + (int)(rng_next(&g) % (rng_next(&g) % 4 ? 16 : MAXQ));
		uint64_t total = 0;

		/* Re-key a slot now and then: new gen, new device copy. */
		if (it % 7 == 3 && setkey(p, &g, (int)(rng_next(&g) % NKEYS)))
			return 1;
		for (int i = 0; i < n; i++) {
			struct req *r = &q[i];
			int inplace = (int)(rng_next(&g) % 2);
			int alg = 1 + (int)(rng_next(&g) % 4);

			r->len = pick_len(&g, alg);
			if (total + r->len > (96U << 20))
				r->len = 16;
			if (make_req(&g, r, alg, inplace)) {
				printf("FAIL: reference for alg %d len %u\n",
				       alg, r->len);
				return 1;
			}
			total += r->len + r->aad_len;
			if (r->out != r->in)
				memset(r->out, 0xa5, r->len);
			r->done = 0;
			r->status = 1;
		}
		for (int i = 0; i < n; i++) {
			struct req *r = &q[i];

			err = req_submit(p, r);
			if (err) {
				printf("FAIL: submit alg %d len %u: %d\n",
				       r->alg, r->len, err);
				return 1;
			}
		}
		gpu_aes_producer_wait_idle(p);
		for (int i = 0; i < n; i++) {
			struct req *r = &q[i];

			if (req_ok(r)) {
				passed++;
				bytes += r->len;
			} else {
				failed++;
				printf("FAIL: round %d req %d alg %d dir %d keylen %u len %u aad %u auth %u flip %d status %d (want %d)\n",
				       it, i, r->alg, r->dir, key_len[r->key],
				       r->len, r->aad_len, r->auth_len, r->flip,
				       r->status, r->want_status);
			}
			req_free(r);
		}
	}
	/* Phase 2: 8 submitters at once, keys fixed (a re-key would fail
	 * the other threads' requests in flight, by design). */
	struct conc conc[8];

	for (int t = 0; t < 8; t++) {
		conc[t] = (struct conc){ p, 1000 + (uint64_t)t,
					 rounds < 20 ? 20 : rounds * 2, 0, 0, 0 };
		if (pthread_create(&conc[t].tid, NULL, conc_main, &conc[t]))
			return 1;
	}
	for (int t = 0; t < 8; t++) {
		pthread_join(conc[t].tid, NULL);
		passed += conc[t].passed;
		failed += conc[t].failed;
	}

	struct gpu_aes_producer_stats st;

	gpu_aes_producer_get_stats(p, &st);
	gpu_aes_producer_destroy(p);
	gpu_aes_producer_destroy(cpu_p);
	printf("check_backend: %llu passed, %llu failed (%llu MiB compared, %llu batches, rejected %llu)\n",
	       passed, failed, bytes >> 20, (unsigned long long)st.batches,
	       (unsigned long long)st.rejected);
	return failed || st.rejected ? 1 : 0;
}
