// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completions from several threads at once.
 *
 * First by hand (struct mfix): a backend of this test's own finishes
 * batches on four threads, newest first, so done() calls overlap and run
 * out of submission order; four threads play the kernel's CPUs, each
 * posting to its own queue, and every notify reaps (the queue it names,
 * or all) from whichever thread calls it.  Each CQ is poisoned behind
 * every reap, so a cq_tail published past an entry that is not written
 * yet shows up as a poisoned entry, and an entry on the wrong queue shows
 * up by its seq.  Every request must complete exactly once, on its own
 * queue, with the bytes OpenSSL gives.
 *
 * Then the same through the kernel's own request path (kring).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "harness.h"
#include "util.h"

#define C_QUEUES	4U
#define C_ENTRIES	64U
#define C_LEN		256U
#define C_PER_Q		15000U
#define C_TOTAL		(C_QUEUES * C_PER_Q)
#define C_THREADS	4
#define C_POISON	0xffffffffU

struct lifo_be {
	pthread_mutex_t lock;
	pthread_cond_t cond, idle;
	struct gpu_aes_batch *q[64];
	unsigned int nq, busy;
	int stop;
	unsigned int started;
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

static void lifo_drain(struct gpu_aes_backend *be_)
{
	struct lifo_be *be = (struct lifo_be *)be_;

	pthread_mutex_lock(&be->lock);
	while (be->nq || be->busy)
		pthread_cond_wait(&be->idle, &be->lock);
	pthread_mutex_unlock(&be->lock);
}

static void lifo_close(struct gpu_aes_backend *be_)
{
	struct lifo_be *be = (struct lifo_be *)be_;
	unsigned int i;

	lifo_drain(be_);
	pthread_mutex_lock(&be->lock);
	be->stop = 1;
	pthread_cond_broadcast(&be->cond);
	pthread_mutex_unlock(&be->lock);
	for (i = 0; i < be->started; i++)
		pthread_join(be->th[i], NULL);
	be->started = 0;
}

static int lifo_open(const struct gpu_aes_backend_config *cfg,
		     const struct gpu_aes_region *r,
		     struct gpu_aes_backend **out)
{
	(void)cfg;
	g_be.r = r;
	for (; g_be.started < C_THREADS; g_be.started++)
		if (pthread_create(&g_be.th[g_be.started], NULL, lifo_worker,
				   &g_be)) {
			lifo_close((struct gpu_aes_backend *)&g_be);
			return -EAGAIN;
		}
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

static const struct gpu_aes_backend_ops lifo_ops = {
	.name = "lifo",
	.algs = GPU_AES_ALGS_KNOWN,
	.open = lifo_open,
	.submit = lifo_submit,
	.drain = lifo_drain,
	.close = lifo_close,
};

/* The kernel's side: per queue, a reap lock, its head and its tags. */
struct kqueue {
	pthread_mutex_t lock;
	uint32_t cq_head;
	uint8_t busy[C_ENTRIES];	/* atomic: tag posted, not reaped */
};

struct kside {
	struct mfix m;
	struct kqueue q[C_QUEUES];
	uint32_t reaped;		/* atomic */
	uint32_t bad;			/* atomic */
	uint8_t *seen;			/* per request: completions */
	uint8_t key[16];
};

static void pattern(uint32_t seq, uint8_t *out)
{
	for (uint32_t i = 0; i < C_LEN; i++)
		out[i] = (uint8_t)(seq * 31 + i * 7);
}

static void seq_iv(uint32_t seq, uint8_t iv[16])
{
	memset(iv, 0x11, 16);
	iv[0] = (uint8_t)(seq >> 24);
	iv[1] = (uint8_t)(seq >> 16);
	iv[2] = (uint8_t)(seq >> 8);
	iv[3] = (uint8_t)seq;
}

static void k_bad(struct kside *k)
{
	__atomic_add_fetch(&k->bad, 1, __ATOMIC_RELAXED);
}

static void k_reap_queue(struct kside *k, uint32_t qid)
{
	const struct gpu_aes_region_queue *rq = &k->m.r.queues[qid];
	struct kqueue *kq = &k->q[qid];
	uint8_t in[C_LEN], want[C_LEN], iv[16];
	uint32_t tail, n = 0;

	pthread_mutex_lock(&kq->lock);
	tail = __atomic_load_n(&rq->qhdr->cq_tail, __ATOMIC_ACQUIRE);
	/* A tail that went backwards or past the ring: published out of order. */
	if (tail - kq->cq_head > C_ENTRIES) {
		k_bad(k);
		tail = kq->cq_head;
	}
	for (; kq->cq_head != tail; kq->cq_head++, n++) {
		struct gpu_aes_cqe *e = &rq->cq[kq->cq_head & (C_ENTRIES - 1)];
		uint32_t seq = e->seq, tag = e->tag;

		if (tag == C_POISON || seq >= C_TOTAL ||
		    seq / C_PER_Q != qid ||		/* another queue's */
		    tag != seq % C_PER_Q % C_ENTRIES || e->status ||
		    k->seen[seq]++) {
			k_bad(k);
		} else {
			pattern(seq, in);
			seq_iv(seq, iv);
			if (ref_crypt(GPU_AES_ALG_CTR, GPU_AES_DIR_ENCRYPT,
				      k->key, 16, iv, in, want, C_LEN) ||
			    memcmp(want, mfix_slice(&k->m, qid) + tag * C_LEN,
				   C_LEN) != 0)
				k_bad(k);
		}
		if (tag < C_ENTRIES)
			__atomic_store_n(&kq->busy[tag], 0, __ATOMIC_RELEASE);
		memset(e, 0xff, sizeof(*e));
	}
	__atomic_store_n(&rq->qhdr->cq_head, kq->cq_head, __ATOMIC_RELEASE);
	__atomic_add_fetch(&k->reaped, n, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&kq->lock);
}

static int k_reap(void *arg, uint32_t qid)
{
	struct kside *k = arg;

	if (qid == GPU_AES_ALL_QUEUES)
		for (uint32_t q = 0; q < C_QUEUES; q++)
			k_reap_queue(k, q);
	else if (qid < C_QUEUES)
		k_reap_queue(k, qid);
	else
		k_bad(k);
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One CPU of the kernel: posts its queue's requests, reusing tags. */
struct producer {
	struct kside *k;
	uint32_t q;
	int ok;
	pthread_t th;
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	struct kside *k = p->k;
	struct kqueue *kq = &k->q[p->q];
	/* Hang guard (60 s), not a timing assertion. */
	uint64_t give_up = mono_ms() + 60000;
	uint32_t n;

	p->ok = 1;
	for (n = 0; n < C_PER_Q; n++) {
		uint32_t seq = p->q * C_PER_Q + n, tag = n % C_ENTRIES;
		struct gpu_aes_sqe e;
		unsigned int spins = 0;

		/*
		 * Tag = n mod entries, reused once its request is reaped
		 * (requests complete out of order, so wait for that tag).
		 */
		while (__atomic_load_n(&kq->busy[tag], __ATOMIC_ACQUIRE)) {
			if (++spins % 1024 == 0 && mono_ms() > give_up) {
				p->ok = 0;
				return NULL;
			}
			sched_yield();
		}
		__atomic_store_n(&kq->busy[tag], 1, __ATOMIC_RELAXED);
		pattern(seq, mfix_slice(&k->m, p->q) + tag * C_LEN);
		memset(&e, 0, sizeof(e));
		e.tag = tag;
		e.seq = seq;
		e.alg = GPU_AES_ALG_CTR;
		e.dir = GPU_AES_DIR_ENCRYPT;
		e.key_gen = 1;
		e.data_off = (uint64_t)p->q * k->m.r.queue_data_size +
			     tag * C_LEN;
		e.len = C_LEN;
		seq_iv(seq, e.iv);
		mfix_post(&k->m, p->q, &e, 1);
	}
	return NULL;
}

TEST(concurrent_done_posts_in_claim_order_exactly_once)
{
	struct gpu_aes_core_config cfg = { .spin_us = 20, .max_batch = 24,
					   .max_inflight = 8 };
	static struct kside k;
	struct producer prod[C_QUEUES];
	struct gpu_aes_core_stats st;
	uint32_t i, q, started = 0;
	uint64_t give_up;
	int ok = 1;

	memset(&k, 0, sizeof(k));
	memset(&g_be, 0, sizeof(g_be));
	pthread_mutex_init(&g_be.lock, NULL);
	pthread_cond_init(&g_be.cond, NULL);
	pthread_cond_init(&g_be.idle, NULL);
	for (q = 0; q < C_QUEUES; q++)
		pthread_mutex_init(&k.q[q].lock, NULL);
	k.seen = calloc(C_TOTAL, 1);
	CHECK(k.seen);
	CHECK_EQ(mfix_alloc(&k.m, C_QUEUES, C_ENTRIES, 4, 1 << 20), 0);
	for (q = 0; q < C_QUEUES; q++)
		memset(k.m.r.queues[q].cq, 0xff,
		       C_ENTRIES * sizeof(struct gpu_aes_cqe));
	t_rand_bytes(k.key, sizeof(k.key));
	memcpy(g_be.key, k.key, sizeof(k.key));
	mfix_set_key(&k.m, 0, 1, k.key, 16, 0);
	k.m.on_reap = k_reap;
	k.m.on_reap_arg = &k;
	CHECK_EQ(mfix_open(&k.m, &lifo_ops, 0, &cfg), 0);
	CHECK_EQ(mfix_start(&k.m), 0);

	for (q = 0; q < C_QUEUES; q++) {
		prod[q].k = &k;
		prod[q].q = q;
		prod[q].ok = 0;
		if (pthread_create(&prod[q].th, NULL, produce, &prod[q]))
			break;
		started++;
	}
	for (q = 0; q < started; q++) {
		pthread_join(prod[q].th, NULL);
		ok &= prod[q].ok;
	}
	/* Hang guard (60 s), not a timing assertion. */
	give_up = mono_ms() + 60000;
	while (__atomic_load_n(&k.reaped, __ATOMIC_ACQUIRE) < C_TOTAL &&
	       mono_ms() < give_up)
		usleep(100);
	/* Stopped first: every batch's counts are in. */
	mfix_stop(&k.m);
	gpu_aes_core_get_stats(k.m.core, &st);
	mfix_teardown(&k.m);
	for (i = 0; i < C_TOTAL; i++)
		if (k.seen[i] != 1)
			ok = 0;
	free(k.seen);
	CHECK_EQ(started, C_QUEUES);
	CHECK(ok);
	CHECK_EQ(k.bad, 0);
	CHECK_EQ(k.reaped, C_TOTAL);
	CHECK_EQ(st.requests, C_TOTAL);
	CHECK_EQ(st.bytes, (uint64_t)C_TOTAL * C_LEN);
	CHECK_EQ(st.invalid, 0);
	CHECK(st.batches >= C_TOTAL / cfg.max_batch);
}

/*
 * The kernel's reaping (kring) from several backend threads at once: cpu
 * backend with four workers, batches of at most four requests, six
 * submitting CPUs on four queues (two of them shared), every request
 * outstanding until its thread has submitted all of its own, so queues
 * fill and requests wait in the backlog.  Every callback runs once, with
 * the right bytes and output IV, and the counters add up exactly.  On a
 * shared queue a full ring whose oldest tag the other submitter still
 * holds RESERVED does not backlog (gpu_aes_queue_space_returns(): a
 * preempted submitter must not make others wait a deadline): that
 * request runs on the CPU at once, answered 0 with no callback, and is
 * counted as fallback_full; and a backlogged request is not admitted
 * behind such a tag but recomputed on the CPU (its callbacks as usual).
 */
#define P_THREADS	6
#define P_REQS		400

struct preq {
	uint8_t in[1024], out[1024], ref[1024], iv[16], next_iv[16];
	uint32_t len;
	int ret;
	struct kring_req *req;
	struct result r;
};

struct pthr {
	struct kring_tfm *t;
	const uint8_t *key;
	struct preq *reqs;
	uint64_t seed;
	int cpu;
	int err;
	unsigned int full;	/* answered 0: the CPU, the queue full */
};

/* The harness's generator is not for threads: one of our own each. */
static uint8_t xs8(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint8_t)(*s >> 24);
}

struct all_done_arg {
	struct preq *reqs;
	unsigned int n;
};

static int all_done(void *arg)
{
	struct all_done_arg *a = arg;

	/* One answered 0 ran on the CPU at once: no callback comes. */
	for (unsigned int i = 0; i < a->n; i++)
		if (a->reqs[i].ret && !is_done(&a->reqs[i].r))
			return 0;
	return 1;
}

static void *psubmit(void *arg)
{
	struct pthr *t = arg;
	struct all_done_arg all = { t->reqs, P_REQS };
	uint64_t s = t->seed;

	kring_set_cpu(t->cpu);
	for (unsigned int i = 0; i < P_REQS; i++) {
		struct preq *q = &t->reqs[i];
		uint32_t j;

		q->len = 1 + (uint32_t)((xs8(&s) << 8 | xs8(&s)) % sizeof(q->in));
		for (j = 0; j < q->len; j++)
			q->in[j] = xs8(&s);
		for (j = 0; j < sizeof(q->iv); j++)
			q->iv[j] = xs8(&s);
		/* Near a carry now and then. */
		if (i % 7 == 0)
			memset(q->iv + 12, 0xff, 4);
		memcpy(q->next_iv, q->iv, 16);
		t_ctr_add(q->next_iv, q->len);
		q->req = kring_req_new(t->t);
		if (!q->req || ref_crypt(GPU_AES_ALG_CTR, GPU_AES_DIR_ENCRYPT,
					 t->key, 32, q->iv, q->in, q->ref,
					 q->len)) {
			t->err = 1;
			return NULL;
		}
		kring_req_set(q->req, GPU_AES_DIR_ENCRYPT, q->in, q->out,
			      q->len, 0, q->iv, KRING_MAY_BACKLOG, on_done,
			      &q->r);
		q->ret = kring_submit(q->req);
		t->full += q->ret == 0;
		if (q->ret != -EINPROGRESS && q->ret != -EBUSY && q->ret) {
			t->err = 2;
			return NULL;
		}
	}
	if (wait_until(all_done, &all))
		t->err = 3;
	return NULL;
}

TEST(concurrent_reapers_complete_each_request_once)
{
	static struct preq reqs[P_THREADS][P_REQS];
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	int64_t bl0 = kstat("backlogged"), rec0 = kstat("recomputed");
	int64_t rej0 = kstat("rejected_completions"), to0 = kstat("timeouts");
	int64_t full0 = kstat("fallback_full"), posted, recomputed;
	struct kring_host_config cfg;
	struct gpu_aes_core_stats st;
	struct pthr th[P_THREADS];
	pthread_t tid[P_THREADS];
	unsigned int i, j, once = 0, right = 0, busy = 0, started = 0;
	unsigned int full = 0;
	struct kring_tfm *t;
	uint8_t key[32];
	struct kfix f;
	int err = 0;

	memset(reqs, 0, sizeof(reqs));
	kfix_config(&cfg, 4, 64, 1 << 20, 4, 50);
	cfg.core.max_batch = 4;
	cfg.core.max_inflight = 8;
	CHECK_EQ(kfix_start_cfg(&f, &cfg), 0);
	t_rand_bytes(key, sizeof(key));
	t = kr_tfm(GPU_AES_ALG_CTR, key, 32);
	CHECK(t);
	for (i = 0; i < P_THREADS; i++) {
		th[i] = (struct pthr){ t, key, reqs[i], t_rand() | 1, (int)i,
				       0, 0 };
		if (pthread_create(&tid[i], NULL, psubmit, &th[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		err |= th[i].err;
		full += th[i].full;
	}
	kring_host_core_stats(f.host, &st);
	kring_tfm_free(t);
	kfix_stop(&f);
	for (i = 0; i < P_THREADS; i++)
		for (j = 0; j < P_REQS; j++) {
			struct preq *q = &reqs[i][j];

			busy += q->ret == -EBUSY;
			if (q->ret == 0) {
				once += !is_done(&q->r);
				right += !memcmp(q->out, q->ref, q->len) &&
					 !memcmp(q->iv, q->next_iv, 16);
				kring_req_free(q->req);
				continue;
			}
			once += is_done(&q->r) && q->r.status != -EALREADY &&
				q->r.admitted == (q->ret == -EBUSY);
			right += q->r.status == 0 &&
				 !memcmp(q->out, q->ref, q->len) &&
				 !memcmp(q->iv, q->next_iv, 16);
			kring_req_free(q->req);
		}
	CHECK_EQ(started, P_THREADS);
	CHECK_EQ(err, 0);
	CHECK_EQ(once, P_THREADS * P_REQS);
	CHECK_EQ(right, P_THREADS * P_REQS);
	/*
	 * All of them through the ring, the backlogged ones included, but
	 * those a full shared queue sent to the CPU: at once, or from the
	 * backlog (recomputed, only ever backlogged ones).
	 */
	posted = kstat("ring_requests") - ring0;
	recomputed = kstat("recomputed") - rec0;
	CHECK_EQ(posted + recomputed, P_THREADS * P_REQS - full);
	CHECK(recomputed <= busy);
	CHECK_EQ(kstat("backlogged") - bl0, busy);
	CHECK_EQ(kstat("fallback_requests") - fb0, full);
	CHECK_EQ(kstat("fallback_full") - full0, full);
	CHECK_EQ(kstat("rejected_completions") - rej0, 0);
	CHECK_EQ(kstat("timeouts") - to0, 0);
	CHECK_EQ((int64_t)st.requests, posted);
	CHECK_EQ(st.invalid, 0);
	CHECK((int64_t)st.batches >= posted / 4);
}
