// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completions from several threads at once.  A backend of this test's own
 * finishes batches on four threads, newest first, so done() calls overlap
 * and run out of submission order; the producer side (this test, playing
 * the kernel) reaps on every notify from whichever thread calls it.  The
 * CQ is poisoned behind every reap, so a cq_tail published past an entry
 * that is not written yet shows up as a poisoned entry.  Every request
 * must complete exactly once, with the bytes OpenSSL gives.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aes_key.h"
#include "core.h"
#include "harness.h"
#include "region.h"
#include "transport.h"
#include "util.h"

#define C_ENTRIES	256U
#define C_LEN		256U
#define C_TOTAL		60000U
#define C_THREADS	4
#define C_POISON	0xffffffffU

struct lifo_be {
	pthread_mutex_t lock;
	pthread_cond_t cond, idle;
	struct gpu_aes_batch *q[64];
	unsigned int nq, busy;
	int stop;
	pthread_t th[C_THREADS];
	const struct gpu_aes_region *r;
	uint8_t key[16];
};

static struct lifo_be g_be;

static void *lifo_worker(void *arg)
{
	struct lifo_be *be = arg;

	pthread_mutex_lock(&be->lock);
	for (;;) {
		struct gpu_aes_batch *b;

		while (!be->nq && !be->stop)
			pthread_cond_wait(&be->cond, &be->lock);
		if (!be->nq)
			break;
		b = be->q[--be->nq];	/* newest first */
		be->busy++;
		pthread_mutex_unlock(&be->lock);
		for (uint32_t i = 0; i < b->nr; i++) {
			struct gpu_aes_segment *s = &b->segs[i];
			uint8_t *d = be->r->data + s->data_off;

			s->status = ref_crypt(s->alg, s->dir, be->key, 16,
					      s->iv, d, d, s->len) ?
				    GPU_AES_STATUS_EIO : GPU_AES_STATUS_OK;
		}
		b->done(b);
		pthread_mutex_lock(&be->lock);
		be->busy--;
		pthread_cond_broadcast(&be->idle);
	}
	pthread_mutex_unlock(&be->lock);
	return NULL;
}

static int lifo_open(const struct gpu_aes_backend_config *cfg,
		     const struct gpu_aes_region *r,
		     struct gpu_aes_backend **out)
{
	(void)cfg;
	g_be.r = r;
	*out = (struct gpu_aes_backend *)&g_be;
	return 0;
}

static void lifo_submit(struct gpu_aes_backend *be_, struct gpu_aes_batch *b)
{
	struct lifo_be *be = (struct lifo_be *)be_;

	pthread_mutex_lock(&be->lock);
	be->q[be->nq++] = b;
	pthread_cond_signal(&be->cond);
	pthread_mutex_unlock(&be->lock);
}

static void lifo_drain(struct gpu_aes_backend *be_)
{
	struct lifo_be *be = (struct lifo_be *)be_;

	pthread_mutex_lock(&be->lock);
	while (be->nq || be->busy)
		pthread_cond_wait(&be->idle, &be->lock);
	pthread_mutex_unlock(&be->lock);
}

static const struct gpu_aes_backend_ops lifo_ops = {
	.name = "lifo",
	.open = lifo_open,
	.submit = lifo_submit,
	.drain = lifo_drain,
};

/* The kernel's side. */
struct kside {
	struct gpu_aes_region r;
	pthread_mutex_t lock;		/* the reap lock */
	uint32_t cq_head;
	uint32_t reaped;		/* atomic */
	uint32_t bad;			/* atomic */
	uint8_t *seen;			/* per request: completions */
	uint8_t busy[C_ENTRIES];	/* atomic: tag posted, not reaped */
	uint8_t key[16];
};

static void pattern(uint32_t seq, uint8_t *out)
{
	for (uint32_t i = 0; i < C_LEN; i++)
		out[i] = (uint8_t)(seq * 31 + i * 7);
}

static int k_reap(void *arg)
{
	struct kside *k = arg;
	uint8_t in[C_LEN], want[C_LEN], iv[16];
	uint32_t tail, n = 0;

	pthread_mutex_lock(&k->lock);
	tail = __atomic_load_n(&k->r.hdr->cq_tail, __ATOMIC_ACQUIRE);
	/* A tail that went backwards or past the ring: published out of order. */
	if (tail - k->cq_head > C_ENTRIES) {
		__atomic_add_fetch(&k->bad, 1, __ATOMIC_RELAXED);
		tail = k->cq_head;
	}
	for (; k->cq_head != tail; k->cq_head++, n++) {
		struct gpu_aes_cqe *e = &k->r.cq[k->cq_head & (C_ENTRIES - 1)];
		uint32_t seq = e->seq;

		if (e->tag == C_POISON || seq >= C_TOTAL ||
		    e->tag != seq % C_ENTRIES || e->status ||
		    k->seen[seq]++) {
			__atomic_add_fetch(&k->bad, 1, __ATOMIC_RELAXED);
		} else {
			pattern(seq, in);
			memset(iv, (int)seq, sizeof(iv));
			if (ref_crypt(GPU_AES_ALG_CTR, GPU_AES_DIR_ENCRYPT,
				      k->key, 16, iv, in, want, C_LEN) ||
			    memcmp(want, k->r.data + e->tag * C_LEN, C_LEN) != 0)
				__atomic_add_fetch(&k->bad, 1,
						   __ATOMIC_RELAXED);
		}
		if (e->tag < C_ENTRIES)
			__atomic_store_n(&k->busy[e->tag], 0, __ATOMIC_RELEASE);
		memset(e, 0xff, sizeof(*e));
	}
	__atomic_store_n(&k->r.hdr->cq_head, k->cq_head, __ATOMIC_RELEASE);
	__atomic_add_fetch(&k->reaped, n, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&k->lock);
	return 0;
}

struct core_thread {
	struct gpu_aes_core *core;
	pthread_t th;
};

static void *core_main(void *arg)
{
	struct core_thread *c = arg;

	gpu_aes_core_run(c->core);
	return NULL;
}

TEST(concurrent_done_posts_in_claim_order_exactly_once)
{
	struct gpu_aes_core_config cfg = { .spin_us = 20, .max_batch = 24,
					   .max_inflight = 8 };
	static struct kside k;
	struct gpu_aes_transport *t = NULL;
	struct gpu_aes_backend *be = NULL;
	struct gpu_aes_core_stats st;
	struct core_thread ct = { 0 };
	uint32_t seq, i;
	int started = 0, ok = 1;

	memset(&k, 0, sizeof(k));
	memset(&g_be, 0, sizeof(g_be));
	pthread_mutex_init(&k.lock, NULL);
	pthread_mutex_init(&g_be.lock, NULL);
	pthread_cond_init(&g_be.cond, NULL);
	pthread_cond_init(&g_be.idle, NULL);
	k.seen = calloc(C_TOTAL, 1);
	CHECK(k.seen);
	CHECK_EQ(gpu_aes_region_alloc(C_ENTRIES, 4, 1 << 20, &k.r, NULL), 0);
	gpu_aes_region_init_hdr(&k.r);
	memset(k.r.cq, 0xff, C_ENTRIES * sizeof(*k.r.cq));
	t_rand_bytes(k.key, sizeof(k.key));
	memcpy(g_be.key, k.key, sizeof(k.key));
	CHECK_EQ(gpu_aes_expand_key(k.key, 16, &k.r.keys[0]), 0);
	k.r.keys[0].gen = 1;
	CHECK_EQ(lifo_ops.open(NULL, &k.r, &be), 0);
	for (i = 0; i < C_THREADS; i++)
		CHECK_EQ(pthread_create(&g_be.th[i], NULL, lifo_worker,
					&g_be), 0);
	CHECK_EQ(gpu_aes_transport_inproc_open(k_reap, &k, &t), 0);
	CHECK_EQ(gpu_aes_core_create(&k.r, &lifo_ops, be, t, &cfg, &ct.core),
		 0);
	started = !pthread_create(&ct.th, NULL, core_main, &ct);

	/*
	 * Tag = seq mod entries, reused once its request is reaped (requests
	 * complete out of order, so wait for that tag, not for a count).
	 */
	for (seq = 0; started && seq < C_TOTAL; seq++) {
		struct gpu_aes_sqe *e = &k.r.sq[seq & (C_ENTRIES - 1)];
		uint64_t one = 1;
		uint32_t tag = seq % C_ENTRIES;
		int spins = 0;

		while (__atomic_load_n(&k.busy[tag], __ATOMIC_ACQUIRE)) {
			if (++spins > 20000000) {
				ok = 0;
				break;
			}
			sched_yield();
		}
		if (!ok)
			break;
		__atomic_store_n(&k.busy[tag], 1, __ATOMIC_RELAXED);
		pattern(seq, k.r.data + tag * C_LEN);
		memset(e, 0, sizeof(*e));
		e->tag = tag;
		e->seq = seq;
		e->alg = GPU_AES_ALG_CTR;
		e->dir = GPU_AES_DIR_ENCRYPT;
		e->key_gen = 1;
		e->data_off = tag * C_LEN;
		e->len = C_LEN;
		memset(e->iv, (int)seq, sizeof(e->iv));
		__atomic_store_n(&k.r.hdr->sq_tail, seq + 1, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&k.r.hdr->helper_flags, __ATOMIC_RELAXED) &
		    GPU_AES_HELPER_NEED_WAKEUP) {
			ssize_t w = write(gpu_aes_transport_inproc_doorbell(t),
					  &one, sizeof(one));
			(void)w;
		}
	}
	/* Hang guard (~20 s), not a timing assertion. */
	for (i = 0; i < 200000 &&
	     __atomic_load_n(&k.reaped, __ATOMIC_ACQUIRE) < C_TOTAL; i++)
		usleep(100);
	if (started) {
		gpu_aes_core_stop(ct.core);
		pthread_join(ct.th, NULL);
	}
	gpu_aes_core_get_stats(ct.core, &st);
	pthread_mutex_lock(&g_be.lock);
	g_be.stop = 1;
	pthread_cond_broadcast(&g_be.cond);
	pthread_mutex_unlock(&g_be.lock);
	for (i = 0; i < C_THREADS; i++)
		pthread_join(g_be.th[i], NULL);
	gpu_aes_core_destroy(ct.core);
	t->ops->close(t);
	for (i = 0; i < C_TOTAL; i++)
		if (k.seen[i] != 1)
			ok = 0;
	free(k.seen);
	gpu_aes_region_free(&k.r);
	CHECK(started);
	CHECK(ok);
	CHECK_EQ(k.bad, 0);
	CHECK_EQ(k.reaped, C_TOTAL);
	CHECK_EQ(st.requests, C_TOTAL);
	CHECK_EQ(st.bytes, (uint64_t)C_TOTAL * C_LEN);
	CHECK_EQ(st.invalid, 0);
	CHECK(st.batches >= C_TOTAL / cfg.max_batch);
}

/*
 * The producer's reaping from several backend threads at once (cpu
 * backend with four workers, batches of at most four requests): every
 * request's callback runs once, with the right bytes, and the counters
 * add up exactly.
 */
#define P_THREADS	6
#define P_REQS		400

struct preq {
	uint8_t in[1024], out[1024], ref[1024], iv[16];
	uint32_t len;
	uint32_t calls;		/* atomic */
	int status;
};

static void preq_done(void *cookie, int status)
{
	struct preq *q = cookie;

	q->status = status;
	__atomic_add_fetch(&q->calls, 1, __ATOMIC_RELEASE);
}

struct pthr {
	struct gpu_aes_producer *p;
	const uint8_t *key;
	struct preq *reqs;
	uint64_t seed;
	int err;
};

/* The harness's generator is not for threads: one of our own each. */
static uint8_t xs8(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint8_t)(*s >> 24);
}

static void *psubmit(void *arg)
{
	struct pthr *t = arg;
	uint64_t s = t->seed;

	for (unsigned int i = 0; i < P_REQS; i++) {
		struct preq *q = &t->reqs[i];
		uint32_t j;

		q->len = 1 + (uint32_t)((xs8(&s) << 8 | xs8(&s)) % sizeof(q->in));
		for (j = 0; j < q->len; j++)
			q->in[j] = xs8(&s);
		for (j = 0; j < sizeof(q->iv); j++)
			q->iv[j] = xs8(&s);
		q->status = 1;
		if (ref_crypt(GPU_AES_ALG_CTR, GPU_AES_DIR_ENCRYPT, t->key, 32,
			      q->iv, q->in, q->ref, q->len) ||
		    gpu_aes_producer_submit_wait(t->p, GPU_AES_ALG_CTR,
						 GPU_AES_DIR_ENCRYPT, 0, q->iv,
						 q->in, q->out, q->len,
						 preq_done, q)) {
			t->err = 1;
			break;
		}
	}
	return NULL;
}

TEST(concurrent_reapers_complete_each_request_once)
{
	static struct preq reqs[P_THREADS][P_REQS];
	struct gpu_aes_producer_config cfg;
	struct gpu_aes_producer_stats st;
	struct gpu_aes_producer *p = NULL;
	struct pthr th[P_THREADS];
	pthread_t tid[P_THREADS];
	uint8_t key[32];
	unsigned int i, j, once = 0, right = 0;
	int err = 0;

	memset(reqs, 0, sizeof(reqs));
	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_entries = 64;
	cfg.nr_keys = 2;
	cfg.data_size = 1 << 20;
	cfg.backend = "cpu";
	cfg.backend_cfg.threads = 4;
	cfg.max_batch = 4;
	cfg.max_inflight = 8;
	CHECK_EQ(gpu_aes_producer_create(&cfg, &p), 0);
	t_rand_bytes(key, sizeof(key));
	CHECK_EQ(gpu_aes_producer_setkey(p, 0, key, 32), 0);
	for (i = 0; i < P_THREADS; i++) {
		th[i] = (struct pthr){ p, key, reqs[i], t_rand() | 1, 0 };
		if (pthread_create(&tid[i], NULL, psubmit, &th[i]))
			th[i].err = 2;
	}
	for (i = 0; i < P_THREADS; i++) {
		if (th[i].err != 2)
			pthread_join(tid[i], NULL);
		err |= th[i].err;
	}
	gpu_aes_producer_wait_idle(p);
	gpu_aes_producer_get_stats(p, &st);
	gpu_aes_producer_destroy(p);
	for (i = 0; i < P_THREADS; i++)
		for (j = 0; j < P_REQS; j++) {
			struct preq *q = &reqs[i][j];

			once += __atomic_load_n(&q->calls, __ATOMIC_ACQUIRE) == 1;
			right += q->status == 0 &&
				 !memcmp(q->out, q->ref, q->len);
		}
	CHECK_EQ(err, 0);
	CHECK_EQ(once, P_THREADS * P_REQS);
	CHECK_EQ(right, P_THREADS * P_REQS);
	CHECK_EQ(st.submitted, P_THREADS * P_REQS);
	CHECK_EQ(st.completed, P_THREADS * P_REQS);
	CHECK_EQ(st.requests, P_THREADS * P_REQS);
	CHECK_EQ(st.rejected, 0);
	CHECK_EQ(st.invalid, 0);
	CHECK(st.batches >= P_THREADS * P_REQS / 4);
}
