// SPDX-License-Identifier: GPL-2.0-only
/*
 * backend_cpu.c - AES on the host with OpenSSL's EVP (AES-NI/VAES).
 *
 * threads <= 1: a batch runs inline in submit() and is done before submit()
 * returns.  threads > 1: submit() queues the batch and returns; a pool of
 * workers takes chunks of segments from the oldest queued batches, and the
 * worker that finishes a batch's last chunk calls done().  So the core can
 * collect the next batch while this one runs, as with the cuda backend.
 *
 * Each segment runs through cpu_aes.c, with OpenSSL contexts cached per
 * worker and key slot.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "backend_cpu.h"
#include "cpu_aes.h"
#include "secret.h"

#define MAX_JOBS	16
/* A worker claims segments up to this many bytes (or CHUNK_SEGS) at once. */
#define CHUNK_BYTES	(256U << 10)
#define CHUNK_SEGS	64U

/*
 * A key slot's contexts, valid for one generation of it.  The raw keys are
 * compared too: a slot rewritten without a new generation (a wiped entry
 * restarts at gen 0) must not reuse them.
 */
struct key_cache {
	uint32_t gen;
	struct gpu_aes_cpu_key k;
};

struct worker {
	struct gpu_aes_backend *be;
	/* nr_keys entries, this worker only; secret memory (secret.h). */
	struct key_cache *cache;
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

static size_t cache_bytes(const struct gpu_aes_backend *be)
{
	return (size_t)be->region->nr_keys * sizeof(struct key_cache);
}

static void cache_drop(struct key_cache *kc)
{
	gpu_aes_cpu_key_wipe(&kc->k);
	kc->gen = 0;
}

/*
 * The slot's key, refilled from the key table when the entry changed since
 * it was filled; NULL when the entry does not fit the request (the core
 * checked it, but the kernel may have rewritten it since).
 */
static struct gpu_aes_cpu_key *cache_for(struct worker *w,
					 const struct gpu_aes_segment *s)
{
	const struct gpu_aes_key *k = &w->be->region->keys[s->key_slot];
	struct key_cache *kc = &w->cache[s->key_slot];
	uint32_t key_len = __atomic_load_n(&k->key_len, __ATOMIC_RELAXED);
	uint32_t tweak_len = __atomic_load_n(&k->tweak_len, __ATOMIC_RELAXED);

	if (!gpu_aes_key_len_valid(key_len))
		return NULL;
	if (tweak_len != (gpu_aes_alg_keys(s->alg) == 2 ? key_len : 0))
		return NULL;
	if (kc->gen != s->key_gen || kc->k.key_len != key_len ||
	    kc->k.tweak_len != tweak_len ||
	    !gpu_aes_secret_equal(kc->k.key, k->key, key_len + tweak_len)) {
		gpu_aes_cpu_key_set(&kc->k, k->key, key_len, tweak_len);
		kc->gen = s->key_gen;
	}
	return &kc->k;
}

static int32_t run_segment(struct worker *w, const struct gpu_aes_segment *s)
{
	uint8_t *p = w->be->region->data + s->data_off;
	struct gpu_aes_cpu_op op = {
		.alg = s->alg,
		.dir = s->dir,
		.auth_len = s->auth_len,
		.iv = s->iv,
		.in = p,
		.out = p,
		.len = s->len,
		.aad = p + gpu_aes_gcm_aad_off(0, s->len),
		.aad_len = s->aad_len,
		.tag = p + gpu_aes_gcm_tag_off(0, s->len),
	};
	struct gpu_aes_cpu_key *k;

	/* GCM still has a tag to compute or check over the AAD. */
	if (!s->len && !gpu_aes_alg_aead(s->alg))
		return GPU_AES_STATUS_OK;
	k = cache_for(w, s);
	if (!k)
		return GPU_AES_STATUS_EIO;
	return gpu_aes_cpu_crypt(k, &op);
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

	pthread_setname_np(pthread_self(), "gpuaes-cpu");

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
static bool cpu_idle(struct gpu_aes_backend *be)
{
	unsigned int i, n = be->nr_workers ? be->nr_workers : 1;
	bool holds = false;
	uint32_t k;

	pthread_mutex_lock(&be->lock);
	if (be->nr_jobs) {
		pthread_mutex_unlock(&be->lock);
		return true;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < be->region->nr_keys; k++) {
			struct key_cache *kc = &be->workers[i].cache[k];
			const struct gpu_aes_key *e = &be->region->keys[k];

			if (kc->k.key_len &&
			    (__atomic_load_n(&e->gen, __ATOMIC_RELAXED) != kc->gen ||
			     __atomic_load_n(&e->key_len, __ATOMIC_RELAXED) !=
			     kc->k.key_len ||
			     __atomic_load_n(&e->tweak_len, __ATOMIC_RELAXED) !=
			     kc->k.tweak_len))
				cache_drop(kc);
			holds |= kc->k.key_len != 0;
		}
	pthread_mutex_unlock(&be->lock);
	return holds;
}

size_t gpu_aes_backend_cpu_cached(struct gpu_aes_backend *be)
{
	unsigned int i, n = be->nr_workers ? be->nr_workers : 1;
	size_t count = 0;
	uint32_t k;

	pthread_mutex_lock(&be->lock);
	for (i = 0; i < n; i++)
		for (k = 0; k < be->region->nr_keys; k++)
			count += gpu_aes_cpu_key_held(
				&be->workers[i].cache[k].k);
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
		gpu_aes_secret_free(w->cache, cache_bytes(be));
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
		be->workers[i].cache = gpu_aes_secret_alloc(cache_bytes(be));
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
	.algs = GPU_AES_ALGS_KNOWN,
	.probe = cpu_probe,
	.open = cpu_open,
	.submit = cpu_submit,
	.drain = cpu_drain,
	.close = cpu_close,
	.idle = cpu_idle,
};
