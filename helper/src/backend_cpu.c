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
 * ECB, CTR and GCM are EVP's.  XTS is EVP's for 128 and 256-bit keys with
 * distinct halves; AES-192 keys and equal halves (which EVP does not do)
 * and data units longer than EVP's IEEE 1619 limit go through
 * xts_ecb.c, built from AES-ECB.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "backend.h"
#include "backend_cpu.h"
#include "xts_ecb.h"

#define MAX_JOBS	16
/* A worker claims segments up to this many bytes (or CHUNK_SEGS) at once. */
#define CHUNK_BYTES	(256U << 10)
#define CHUNK_SEGS	64U

/*
 * OpenSSL 3 refuses an XTS data unit of more than 2^20 blocks (IEEE
 * 1619's limit); the kernel's xts(aes) has none, so longer ones are
 * composed.
 */
#define EVP_XTS_MAX_LEN	(16U << 20)

enum {
	CTX_ECB_ENC, CTX_ECB_DEC, CTX_CTR,
	CTX_XTS_ENC, CTX_XTS_DEC,
	CTX_TWEAK,		/* AES-ECB encryption, XTS tweak key */
	CTX_GCM_ENC, CTX_GCM_DEC,
	NR_CTX
};

/* OpenSSL contexts for one key slot, valid for one generation of it. */
struct key_cache {
	uint32_t gen;
	uint32_t key_len;
	uint32_t tweak_len;
	int xts_compose;	/* XTS through xts_ecb.c, not EVP's XTS */
	/*
	 * The raw keys the contexts were made from: a slot rewritten without
	 * a new generation (a wiped entry restarts at gen 0) must not reuse
	 * them.  Wiped with the contexts.
	 */
	uint8_t key[64];
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

static const EVP_CIPHER *cipher_for(unsigned int idx, uint32_t key_len)
{
	int k = key_len == 16 ? 0 : key_len == 24 ? 1 : 2;

	switch (idx) {
	case CTX_ECB_ENC:
	case CTX_ECB_DEC:
	case CTX_TWEAK:
		return k == 0 ? EVP_aes_128_ecb() :
		       k == 1 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
	case CTX_CTR:
		return k == 0 ? EVP_aes_128_ctr() :
		       k == 1 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
	case CTX_XTS_ENC:
	case CTX_XTS_DEC:
		/* Never asked for 192: such keys are composed. */
		return k == 0 ? EVP_aes_128_xts() : EVP_aes_256_xts();
	default:
		return k == 0 ? EVP_aes_128_gcm() :
		       k == 1 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
	}
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
	kc->tweak_len = 0;
	kc->xts_compose = 0;
}

/*
 * The slot's cache, refilled from the key table when the entry changed
 * since it was filled; NULL when the entry does not fit the request (the
 * core checked it, but the kernel may have rewritten it since).
 */
static struct key_cache *cache_for(struct worker *w,
				   const struct gpu_aes_segment *s)
{
	const struct gpu_aes_key *k = &w->be->region->keys[s->key_slot];
	struct key_cache *kc = &w->cache[s->key_slot];
	uint32_t key_len = __atomic_load_n(&k->key_len, __ATOMIC_RELAXED);
	uint32_t tweak_len = __atomic_load_n(&k->tweak_len, __ATOMIC_RELAXED);

	if (key_len != 16 && key_len != 24 && key_len != 32)
		return NULL;
	if (tweak_len != (s->alg == GPU_AES_ALG_XTS ? key_len : 0))
		return NULL;
	if (kc->gen != s->key_gen || kc->key_len != key_len ||
	    kc->tweak_len != tweak_len ||
	    memcmp(kc->key, k->key, key_len + tweak_len) != 0) {
		cache_drop(kc);
		kc->gen = s->key_gen;
		kc->key_len = key_len;
		kc->tweak_len = tweak_len;
		memcpy(kc->key, k->key, key_len + tweak_len);
		kc->xts_compose = tweak_len &&
			(key_len == 24 ||
			 !CRYPTO_memcmp(kc->key, kc->key + key_len, key_len));
	}
	return kc;
}

static EVP_CIPHER_CTX *ctx_get(struct key_cache *kc, unsigned int idx)
{
	EVP_CIPHER_CTX *ctx = kc->ctx[idx];
	const uint8_t *key = idx == CTX_TWEAK ? kc->key + kc->key_len :
			     kc->key;
	/* CTR is its own inverse: both directions encrypt the counter. */
	int enc = idx != CTX_ECB_DEC && idx != CTX_XTS_DEC &&
		  idx != CTX_GCM_DEC;

	if (ctx)
		return ctx;
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return NULL;
	if (EVP_CipherInit_ex(ctx, cipher_for(idx, kc->key_len), NULL, NULL,
			      NULL, enc) != 1 ||
	    ((idx == CTX_GCM_ENC || idx == CTX_GCM_DEC) &&
	     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) != 1) ||
	    EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, enc) != 1 ||
	    EVP_CIPHER_CTX_set_padding(ctx, 0) != 1) {
		EVP_CIPHER_CTX_free(ctx);
		return NULL;
	}
	kc->ctx[idx] = ctx;
	return ctx;
}

static int32_t run_ecb_ctr(struct key_cache *kc,
			   const struct gpu_aes_segment *s, uint8_t *p)
{
	EVP_CIPHER_CTX *ctx;
	int outl = 0;

	ctx = ctx_get(kc, s->alg == GPU_AES_ALG_CTR ? CTX_CTR :
		      s->dir == GPU_AES_DIR_DECRYPT ? CTX_ECB_DEC :
		      CTX_ECB_ENC);
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

static int32_t run_xts(struct key_cache *kc, const struct gpu_aes_segment *s,
		       uint8_t *p)
{
	int dec = s->dir == GPU_AES_DIR_DECRYPT;
	EVP_CIPHER_CTX *ctx;
	int outl = 0;

	if (kc->xts_compose || s->len > EVP_XTS_MAX_LEN) {
		EVP_CIPHER_CTX *tweak;

		ctx = ctx_get(kc, dec ? CTX_ECB_DEC : CTX_ECB_ENC);
		tweak = ctx_get(kc, CTX_TWEAK);
		if (!ctx || !tweak ||
		    gpu_aes_xts_ecb(ctx, tweak, !dec, s->iv, p, s->len))
			return GPU_AES_STATUS_EIO;
		return GPU_AES_STATUS_OK;
	}
	ctx = ctx_get(kc, dec ? CTX_XTS_DEC : CTX_XTS_ENC);
	/* One update is one data unit: a fresh tweak per request. */
	if (!ctx || EVP_CipherInit_ex(ctx, NULL, NULL, NULL, s->iv, -1) != 1 ||
	    EVP_CipherUpdate(ctx, p, &outl, p, (int)s->len) != 1 ||
	    (uint32_t)outl != s->len)
		return GPU_AES_STATUS_EIO;
	return GPU_AES_STATUS_OK;
}

static int32_t run_gcm(struct key_cache *kc, const struct gpu_aes_segment *s,
		       uint8_t *p)
{
	uint8_t *tag_p = p + gpu_aes_gcm_tag_off(0, s->len);
	const uint8_t *aad = p + gpu_aes_gcm_aad_off(0, s->len);
	int dec = s->dir == GPU_AES_DIR_DECRYPT;
	uint8_t tag[16], fin[16];
	EVP_CIPHER_CTX *ctx;
	int outl = 0;

	ctx = ctx_get(kc, dec ? CTX_GCM_DEC : CTX_GCM_ENC);
	if (!ctx)
		return GPU_AES_STATUS_EIO;
	/* The expected tag is read once, before any text is replaced. */
	if (dec)
		memcpy(tag, tag_p, s->auth_len);
	/* A new IV (J0 = IV || 0^31 || 1) restarts GHASH and the counter. */
	if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, s->iv, -1) != 1 ||
	    (s->aad_len &&
	     EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)s->aad_len) != 1) ||
	    (s->len &&
	     (EVP_CipherUpdate(ctx, p, &outl, p, (int)s->len) != 1 ||
	      (uint32_t)outl != s->len)))
		return GPU_AES_STATUS_EIO;
	if (dec) {
		if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, s->auth_len,
					tag) != 1)
			return GPU_AES_STATUS_EIO;
		/* Final fails only on a tag mismatch here. */
		if (EVP_CipherFinal_ex(ctx, fin, &outl) != 1)
			return GPU_AES_STATUS_EBADMSG;
		return GPU_AES_STATUS_OK;
	}
	if (EVP_CipherFinal_ex(ctx, fin, &outl) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, s->auth_len,
				tag) != 1)
		return GPU_AES_STATUS_EIO;
	memcpy(tag_p, tag, s->auth_len);
	return GPU_AES_STATUS_OK;
}

static int32_t run_segment(struct worker *w, const struct gpu_aes_segment *s)
{
	uint8_t *p = w->be->region->data + s->data_off;
	struct key_cache *kc;

	/* GCM still has a tag to compute or check over the AAD. */
	if (!s->len && s->alg != GPU_AES_ALG_GCM)
		return GPU_AES_STATUS_OK;
	kc = cache_for(w, s);
	if (!kc)
		return GPU_AES_STATUS_EIO;
	switch (s->alg) {
	case GPU_AES_ALG_XTS:
		return run_xts(kc, s, p);
	case GPU_AES_ALG_GCM:
		return run_gcm(kc, s, p);
	default:
		return run_ecb_ctr(kc, s, p);
	}
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
			     kc->key_len ||
			     __atomic_load_n(&e->tweak_len, __ATOMIC_RELAXED) !=
			     kc->tweak_len))
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
