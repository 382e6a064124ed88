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

#define NKEYS 24
#define MAXQ 256

struct req {
	int alg, dir, key;
	uint32_t len;
	uint8_t iv[16];
	uint8_t *in, *out, *want;
	int status;
	int done;
};

static uint8_t keys[NKEYS][32];
static unsigned int key_len[NKEYS];

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
		int alg = rng_next(&g) % 2 ? GPU_AES_ALG_CTR : GPU_AES_ALG_ECB;
		int dir = (int)(rng_next(&g) % 2), k = (int)(rng_next(&g) % NKEYS);
		uint32_t len = 1 + (uint32_t)(rng_next(&g) %
				 (rng_next(&g) % 8 ? 65536 : (4U << 20)));
		uint8_t iv[16], *in, *out, *want;
		int st;

		if (alg == GPU_AES_ALG_ECB)
			len = (len + 15) & ~15U;
		pick_iv(&g, iv);
		in = malloc(len);
		out = malloc(len);
		want = malloc(len);
		if (!in || !out || !want) {
			c->failed++;
			break;
		}
		rng_fill(&g, in, len);
		memset(out, 0xa5, len);
		if (ref_crypt(alg, dir, keys[k], key_len[k], iv, in, want, len))
			c->failed++;
		st = gpu_aes_producer_run(c->p, (unsigned int)alg,
					  (unsigned int)dir, (unsigned int)k,
					  iv, in, out, len);
		if (st == 0 && !memcmp(out, want, len)) {
			c->passed++;
		} else {
			c->failed++;
			printf("FAIL: concurrent alg %d dir %d keylen %u len %u status %d\n",
			       alg, dir, key_len[k], len, st);
		}
		free(in);
		free(out);
		free(want);
	}
	return NULL;
}

static int setkey(struct gpu_aes_producer *p, struct rng *g, int k)
{
	key_len[k] = 16 + 8 * (k % 3);
	rng_fill(g, keys[k], 32);
	return gpu_aes_producer_setkey(p, (unsigned int)k, keys[k], key_len[k]);
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
	cfg.nr_keys = NKEYS;
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
	for (int k = 0; k < NKEYS; k++)
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

			r->alg = rng_next(&g) % 2 ? GPU_AES_ALG_CTR :
						    GPU_AES_ALG_ECB;
			r->dir = (int)(rng_next(&g) % 2);
			r->key = (int)(rng_next(&g) % NKEYS);
			r->len = pick_len(&g, r->alg);
			if (total + r->len > (96U << 20))
				r->len = r->alg == GPU_AES_ALG_ECB ? 16 : 1;
			total += r->len;
			pick_iv(&g, r->iv);
			r->in = malloc(r->len);
			r->want = malloc(r->len);
			r->out = inplace ? r->in : malloc(r->len);
			if (!r->in || !r->want || !r->out)
				return 1;
			rng_fill(&g, r->in, r->len);
			if (ref_crypt(r->alg, r->dir, keys[r->key],
				      key_len[r->key], r->iv, r->in, r->want,
				      r->len))
				return 1;
			if (!inplace)
				memset(r->out, 0xa5, r->len);
			r->done = 0;
			r->status = 1;
		}
		for (int i = 0; i < n; i++) {
			struct req *r = &q[i];

			err = gpu_aes_producer_submit_wait(
				p, (unsigned int)r->alg, (unsigned int)r->dir,
				(unsigned int)r->key, r->iv, r->in, r->out,
				r->len, cb, r);
			if (err) {
				printf("FAIL: submit len %u: %d\n", r->len, err);
				return 1;
			}
		}
		gpu_aes_producer_wait_idle(p);
		for (int i = 0; i < n; i++) {
			struct req *r = &q[i];
			int ok = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) &&
				 r->status == 0 &&
				 !memcmp(r->out, r->want, r->len);

			if (ok) {
				passed++;
				bytes += r->len;
			} else {
				failed++;
				printf("FAIL: round %d req %d alg %d dir %d keylen %u len %u status %d\n",
				       it, i, r->alg, r->dir, key_len[r->key],
				       r->len, r->status);
			}
			if (r->out != r->in)
				free(r->out);
			free(r->in);
			free(r->want);
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
	printf("check_backend: %llu passed, %llu failed (%llu MiB compared, %llu batches, rejected %llu)\n",
	       passed, failed, bytes >> 20, (unsigned long long)st.batches,
	       (unsigned long long)st.rejected);
	return failed || st.rejected ? 1 : 0;
}
