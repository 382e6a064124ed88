// SPDX-License-Identifier: GPL-2.0-only
/*
 * backend_cpu.c - AES on the host with OpenSSL's EVP (AES-NI/VAES).
 *
 * threads <= 1: a batch runs inline in submit() and is done before submit()
 * returns.  threads > 1: submit() queues the batch and returns; a pool of
 * workers takes chunks of segments from the oldest queued batches, and the
 * worker that finishes a batch's last chunk calls done().  So the core can
 * collect the next batch while this one runs, as with the cuda backend.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "backend.h"
#include "backend_cpu.h"

#define MAX_JOBS	16
/* A worker claims segments up to this many bytes (or CHUNK_SEGS) at once. */
#define CHUNK_BYTES	(256U << 10)
#define CHUNK_SEGS	64U

enum { CTX_ECB_ENC, CTX_ECB_DEC, CTX_CTR, NR_CTX };

/* OpenSSL contexts for one key slot, valid for one generation of it. */
struct key_cache {
	uint32_t gen;
	uint32_t key_len;
	/*
	 * The raw key the contexts were made from: a slot rewritten without a
	 * new generation (a wiped entry restarts at gen 0) must not reuse
	 * them.  Wiped with the contexts.
	 */
	uint8_t key[32];
	EVP_CIPHER_CTX *ctx[NR_CTX];
};

struct worker {
	struct gpu_aes_backend *be;
	struct key_cache *cache;	/* nr_keys entries, this worker only */
	pthread_t thread;
	int started;
};

struct job {
	struct gpu_aes_batch *batch;
	uint64_t order;
	uint32_t next;		/* first unclaimed segment */
	uint32_t left;		/* segments not finished */
};

struct gpu_aes_backend {
	const struct gpu_aes_region *region;
	unsigned int nr_workers;	/* 0: inline */
	struct worker *workers;		/* max(nr_workers, 1) */

	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job was queued, or stop */
	pthread_cond_t idle;		/* a job finished */
	struct job jobs[MAX_JOBS];	/* batch == NULL: free */
	unsigned int nr_jobs;
	uint64_t order;
	int stop;
};

static const EVP_CIPHER *cipher_for(unsigned int alg, uint32_t key_len)
{
	if (alg == GPU_AES_ALG_ECB)
		return key_len == 16 ? EVP_aes_128_ecb() :
		       key_len == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
	return key_len == 16 ? EVP_aes_128_ctr() :
	       key_len == 24 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
}

static void cache_drop(struct key_cache *kc)
{
	int i;

	/* EVP_CIPHER_CTX_free cleanses the expanded key it holds. */
	for (i = 0; i < NR_CTX; i++) {
		EVP_CIPHER_CTX_free(kc->ctx[i]);
		kc->ctx[i] = NULL;
	}
	explicit_bzero(kc->key, sizeof(kc->key));
	kc->gen = 0;
	kc->key_len = 0;
}

static EVP_CIPHER_CTX *ctx_for(struct worker *w, const struct gpu_aes_segment *s)
{
	const struct gpu_aes_key *k = &w->be->region->keys[s->key_slot];
	struct key_cache *kc = &w->cache[s->key_slot];
	uint32_t key_len = __atomic_load_n(&k->key_len, __ATOMIC_RELAXED);
	unsigned int idx;
	EVP_CIPHER_CTX *ctx;

	if (key_len != 16 && key_len != 24 && key_len != 32)
		return NULL;
	if (kc->gen != s->key_gen || kc->key_len != key_len ||
	    memcmp(kc->key, k->key, key_len) != 0) {
		cache_drop(kc);
		kc->gen = s->key_gen;
		kc->key_len = key_len;
		memcpy(kc->key, k->key, key_len);
	}
	idx = s->alg == GPU_AES_ALG_CTR ? CTX_CTR :
	      s->dir == GPU_AES_DIR_DECRYPT ? CTX_ECB_DEC : CTX_ECB_ENC;
	ctx = kc->ctx[idx];
	if (ctx)
		return ctx;
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return NULL;
	/* CTR is its own inverse: both directions encrypt the counter. */
	if (EVP_CipherInit_ex(ctx, cipher_for(s->alg, key_len), NULL, k->key,
			      NULL, idx != CTX_ECB_DEC) != 1 ||
	    EVP_CIPHER_CTX_set_padding(ctx, 0) != 1) {
		EVP_CIPHER_CTX_free(ctx);
		return NULL;
	}
	kc->ctx[idx] = ctx;
	return ctx;
}

static int32_t run_segment(struct worker *w, const struct gpu_aes_segment *s)
{
	uint8_t *p = w->be->region->data + s->data_off;
	EVP_CIPHER_CTX *ctx;
	int outl = 0;

	if (!s->len)
		return GPU_AES_STATUS_OK;
	ctx = ctx_for(w, s);
	if (!ctx)
		return GPU_AES_STATUS_EIO;
	/*
	 * A fresh IV restarts OpenSSL's CTR state (counter and keystream
	 * position) without expanding the key again.  OpenSSL increments the
	 * whole 128-bit block big-endian, which is the kernel's ctr(aes).
	 */
	if (s->alg == GPU_AES_ALG_CTR &&
	    EVP_CipherInit_ex(ctx, NULL, NULL, NULL, s->iv, -1) != 1)
		return GPU_AES_STATUS_EIO;
	/* len <= GPU_AES_MAX_DATA (1 GiB), checked by the core, fits an int. */
	if (EVP_CipherUpdate(ctx, p, &outl, p, (int)s->len) != 1 ||
	    (uint32_t)outl != s->len)
		return GPU_AES_STATUS_EIO;
	return GPU_AES_STATUS_OK;
}

static void run_range(struct worker *w, struct gpu_aes_batch *b,
		      uint32_t from, uint32_t to)
{
	uint32_t i;

	for (i = from; i < to; i++)
		b->segs[i].status = run_segment(w, &b->segs[i]);
}

/* Oldest job with unclaimed segments, or NULL.  Called with lock held. */
static struct job *next_job(struct gpu_aes_backend *be)
{
	struct job *best = NULL;
	unsigned int i;

	for (i = 0; i < MAX_JOBS; i++) {
		struct job *j = &be->jobs[i];

		if (j->batch && j->next < j->batch->nr &&
		    (!best || j->order < best->order))
			best = j;
	}
	return best;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct gpu_aes_backend *be = w->be;

	pthread_mutex_lock(&be->lock);
	for (;;) {
		struct gpu_aes_batch *b, *finished = NULL;
		uint32_t from, to;
		uint64_t bytes = 0;
		struct job *j;

		j = next_job(be);
		if (!j) {
			if (be->stop)
				break;
			pthread_cond_wait(&be->work, &be->lock);
			continue;
		}
		b = j->batch;
		from = j->next;
		to = from;
		do {
			bytes += b->segs[to].len;
			to++;
		} while (to < b->nr && to - from < CHUNK_SEGS &&
			 bytes < CHUNK_BYTES);
		j->next = to;
		pthread_mutex_unlock(&be->lock);

		run_range(w, b, from, to);

		pthread_mutex_lock(&be->lock);
		j->left -= to - from;
		if (!j->left) {
			finished = b;
			j->batch = NULL;
		}
		if (finished) {
			/*
			 * done() may take the core's lock: never under ours.
			 * The job counts until done() returns, so drain()
			 * means every done() has run.
			 */
			pthread_mutex_unlock(&be->lock);
			finished->done(finished);
			pthread_mutex_lock(&be->lock);
			be->nr_jobs--;
			pthread_cond_broadcast(&be->idle);
		}
	}
	pthread_mutex_unlock(&be->lock);
	return NULL;
}

/*
 * Drops cached contexts of slots the kernel wiped or rewrote.  Runs only
 * with no job queued, so no worker is using its cache.
 */
static void cpu_idle(struct gpu_aes_backend *be)
{
	unsigned int i, n = be->nr_workers ? be->nr_workers : 1;
	uint32_t k;

	pthread_mutex_lock(&be->lock);
	if (be->nr_jobs) {
		pthread_mutex_unlock(&be->lock);
		return;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < be->region->nr_keys; k++) {
			struct key_cache *kc = &be->workers[i].cache[k];
			const struct gpu_aes_key *e = &be->region->keys[k];

			if (kc->key_len &&
			    (__atomic_load_n(&e->gen, __ATOMIC_RELAXED) != kc->gen ||
			     __atomic_load_n(&e->key_len, __ATOMIC_RELAXED) !=
			     kc->key_len))
				cache_drop(kc);
		}
	pthread_mutex_unlock(&be->lock);
}

size_t gpu_aes_backend_cpu_cached(struct gpu_aes_backend *be)
{
	unsigned int i, n = be->nr_workers ? be->nr_workers : 1;
	size_t count = 0, j;
	uint32_t k;

	pthread_mutex_lock(&be->lock);
	for (i = 0; i < n; i++)
		for (k = 0; k < be->region->nr_keys; k++) {
			const struct key_cache *kc = &be->workers[i].cache[k];

			for (j = 0; j < sizeof(kc->key); j++)
				count += kc->key[j] != 0;
			for (j = 0; j < NR_CTX; j++)
				count += kc->ctx[j] != NULL;
		}
	pthread_mutex_unlock(&be->lock);
	return count;
}

static int cpu_probe(void)
{
	return 0;
}

static void cpu_free(struct gpu_aes_backend *be)
{
	unsigned int i, n = be->nr_workers ? be->nr_workers : 1;
	uint32_t k;

	for (i = 0; i < n; i++) {
		struct worker *w = &be->workers[i];

		if (!w->cache)
			continue;
		for (k = 0; k < be->region->nr_keys; k++)
			cache_drop(&w->cache[k]);
		free(w->cache);
	}
	free(be->workers);
	pthread_cond_destroy(&be->idle);
	pthread_cond_destroy(&be->work);
	pthread_mutex_destroy(&be->lock);
	free(be);
}

static void cpu_stop_workers(struct gpu_aes_backend *be)
{
	unsigned int i;

	pthread_mutex_lock(&be->lock);
	be->stop = 1;
	pthread_cond_broadcast(&be->work);
	pthread_mutex_unlock(&be->lock);
	for (i = 0; i < be->nr_workers; i++)
		if (be->workers[i].started)
			pthread_join(be->workers[i].thread, NULL);
}

static int cpu_open(const struct gpu_aes_backend_config *cfg,
		    const struct gpu_aes_region *region,
		    struct gpu_aes_backend **out)
{
	struct gpu_aes_backend *be;
	unsigned int i, n;

	be = calloc(1, sizeof(*be));
	if (!be)
		return -ENOMEM;
	be->region = region;
	be->nr_workers = cfg && cfg->threads > 1 ? cfg->threads : 0;
	n = be->nr_workers ? be->nr_workers : 1;
	pthread_mutex_init(&be->lock, NULL);
	pthread_cond_init(&be->work, NULL);
	pthread_cond_init(&be->idle, NULL);
	be->workers = calloc(n, sizeof(*be->workers));
	if (!be->workers) {
		cpu_free(be);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		be->workers[i].be = be;
		be->workers[i].cache = calloc(region->nr_keys,
					      sizeof(struct key_cache));
		if (!be->workers[i].cache) {
			cpu_free(be);
			return -ENOMEM;
		}
	}
	for (i = 0; i < be->nr_workers; i++) {
		int err = pthread_create(&be->workers[i].thread, NULL,
					 worker_main, &be->workers[i]);
		if (err) {
			cpu_stop_workers(be);
			cpu_free(be);
			return -err;
		}
		be->workers[i].started = 1;
	}
	*out = be;
	return 0;
}

static void cpu_submit(struct gpu_aes_backend *be, struct gpu_aes_batch *b)
{
	unsigned int i;

	if (!be->nr_workers || !b->nr) {
		run_range(&be->workers[0], b, 0, b->nr);
		b->done(b);
		return;
	}
	pthread_mutex_lock(&be->lock);
	while (be->nr_jobs == MAX_JOBS)
		pthread_cond_wait(&be->idle, &be->lock);
	for (i = 0; be->jobs[i].batch; i++)
		;
	be->jobs[i].batch = b;
	be->jobs[i].order = be->order++;
	be->jobs[i].next = 0;
	be->jobs[i].left = b->nr;
	be->nr_jobs++;
	pthread_cond_broadcast(&be->work);
	pthread_mutex_unlock(&be->lock);
}

static void cpu_drain(struct gpu_aes_backend *be)
{
	pthread_mutex_lock(&be->lock);
	while (be->nr_jobs)
		pthread_cond_wait(&be->idle, &be->lock);
	pthread_mutex_unlock(&be->lock);
}

static void cpu_close(struct gpu_aes_backend *be)
{
	if (!be)
		return;
	cpu_drain(be);
	cpu_stop_workers(be);
	cpu_free(be);
}

const struct gpu_aes_backend_ops gpu_aes_backend_cpu = {
	.name = "cpu",
	.probe = cpu_probe,
	.open = cpu_open,
	.submit = cpu_submit,
	.drain = cpu_drain,
	.close = cpu_close,
	.idle = cpu_idle,
};
