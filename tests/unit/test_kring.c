// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's request path (kmod/ring.c, keys.c, job.c through kring)
 * end to end with the real helper core and cpu backend: many CPUs on many
 * queues at once, a full queue (backlog, and the CPU for requests that may
 * not wait), the helper leaving (stop) and dying (kill) with requests in
 * flight, and the keys: a freed tfm's key table entry wiped, the backend's
 * copies dropped when it goes idle.
 *
 * A gate in front of the cpu backend (gated_ops) holds the helper's
 * batches where a test needs requests to stay in flight: it decides what
 * is in flight, not how long anything takes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_cpu.h"
#include "harness.h"
#include "util.h"

/* ---- the gate ---- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int closed;		/* batches wait, unless a token lets one by */
	unsigned int tokens;
	unsigned int waiting;	/* batches held now */
	unsigned int held;	/* batches ever held */
	unsigned int passed;	/* batches handed on and back from submit() */
} gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0,
	   0 };

static void gate_reset(int closed, unsigned int tokens)
{
	pthread_mutex_lock(&gate.lock);
	gate.closed = closed;
	gate.tokens = tokens;
	gate.waiting = 0;
	gate.held = 0;
	gate.passed = 0;
	pthread_mutex_unlock(&gate.lock);
}

static void gate_open(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.closed = 0;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

static void gate_let_one(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.tokens++;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

static int gated_open(const struct gpu_aes_backend_config *cfg,
		      const struct gpu_aes_region *r,
		      struct gpu_aes_backend **out)
{
	return gpu_aes_backend_cpu.open(cfg, r, out);
}

static void gated_submit(struct gpu_aes_backend *be, struct gpu_aes_batch *b)
{
	pthread_mutex_lock(&gate.lock);
	if (gate.closed && !gate.tokens) {
		gate.held++;
		gate.waiting++;
		pthread_cond_broadcast(&gate.cond);
		while (gate.closed && !gate.tokens)
			pthread_cond_wait(&gate.cond, &gate.lock);
		gate.waiting--;
	}
	if (gate.closed)
		gate.tokens--;
	pthread_mutex_unlock(&gate.lock);
	/* Inline (one thread): the batch is completed when this returns. */
	gpu_aes_backend_cpu.submit(be, b);
	pthread_mutex_lock(&gate.lock);
	gate.passed++;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

static void gated_drain(struct gpu_aes_backend *be)
{
	gpu_aes_backend_cpu.drain(be);
}

static void gated_close(struct gpu_aes_backend *be)
{
	gpu_aes_backend_cpu.close(be);
}

static bool gated_idle(struct gpu_aes_backend *be)
{
	return gpu_aes_backend_cpu.idle(be);
}

static const struct gpu_aes_backend_ops gated_ops = {
	.name = "gated-cpu",
	.algs = GPU_AES_ALGS_KNOWN,
	.open = gated_open,
	.submit = gated_submit,
	.drain = gated_drain,
	.close = gated_close,
	.idle = gated_idle,
};

struct gate_wait {
	unsigned int held, waiting, passed;
};

static int gate_reached(void *arg)
{
	const struct gate_wait *w = arg;
	int ok;

	pthread_mutex_lock(&gate.lock);
	ok = gate.held == w->held && gate.waiting == w->waiting &&
	     gate.passed == w->passed;
	pthread_mutex_unlock(&gate.lock);
	return ok;
}

/* Waits until the gate has held, holds and passed exactly so many. */
static int gate_wait_for(unsigned int held, unsigned int waiting,
			 unsigned int passed)
{
	struct gate_wait w = { held, waiting, passed };

	return wait_until(gate_reached, &w);
}

/*
 * @queues queues of 16 entries behind the gate, closed but for @tokens
 * batches; @threads: the cpu backend's.
 */
static int gated_start(struct kfix *f, uint32_t queues, unsigned int threads,
		       unsigned int tokens)
{
	struct kring_host_config cfg;

	gate_reset(1, tokens);
	kfix_config(&cfg, queues, 16, 1 << 20, threads, 0);
	cfg.ops = &gated_ops;
	return kfix_start_cfg(f, &cfg);
}

/* ---- requests that record what happened to them ---- */

#define EV_MAX	4

struct kreq {
	struct kring_req *req;
	uint8_t in[512], out[512], ref[512], iv[16], next_iv[16];
	uint32_t len;
	int ret;		/* kring_submit()'s */
	int events[EV_MAX];	/* callbacks, in order */
	unsigned int nr_events;	/* atomic */
	pthread_t by;		/* the thread of the final callback */
};

static void kreq_done(void *arg, int err)
{
	struct kreq *k = arg;
	unsigned int n = __atomic_load_n(&k->nr_events, __ATOMIC_RELAXED);

	if (n < EV_MAX)
		k->events[n] = err;
	if (err != -EINPROGRESS)
		k->by = pthread_self();
	__atomic_store_n(&k->nr_events, n + 1, __ATOMIC_RELEASE);
}

/* Finished: its last callback was a final one. */
static int kreq_final(const struct kreq *k)
{
	unsigned int n = __atomic_load_n(&k->nr_events, __ATOMIC_ACQUIRE);

	return n && n <= EV_MAX && k->events[n - 1] != -EINPROGRESS;
}

/* A CTR encryption of random bytes with its OpenSSL reference. */
static int kreq_prep(struct kreq *k, struct kring_tfm *t, const uint8_t *key,
		     size_t key_len, uint32_t len, uint32_t flags)
{
	memset(k, 0, sizeof(*k));
	k->len = len;
	t_rand_bytes(k->in, len);
	t_rand_bytes(k->iv, 16);
	memcpy(k->next_iv, k->iv, 16);
	t_ctr_add(k->next_iv, len);
	if (ref_crypt(GPU_AES_ALG_CTR, GPU_AES_DIR_ENCRYPT, key, key_len,
		      k->iv, k->in, k->ref, len))
		return -1;
	k->req = kring_req_new(t);
	if (!k->req)
		return -1;
	kring_req_set(k->req, GPU_AES_DIR_ENCRYPT, k->in, k->out, len, 0,
		      k->iv, flags, kreq_done, k);
	return 0;
}

/* Completed once, right: [-EINPROGRESS,] 0, and the bytes and IV. */
static int kreq_right(const struct kreq *k, int admitted)
{
	unsigned int n = __atomic_load_n(&k->nr_events, __ATOMIC_ACQUIRE);

	if (n != (unsigned int)(admitted + 1) ||
	    (admitted && k->events[0] != -EINPROGRESS) || k->events[n - 1])
		return 0;
	return !memcmp(k->out, k->ref, k->len) && !memcmp(k->iv, k->next_iv, 16);
}

struct kreqs {
	struct kreq *k;
	unsigned int n;
};

static int kreqs_final(void *arg)
{
	const struct kreqs *a = arg;

	for (unsigned int i = 0; i < a->n; i++)
		if (!kreq_final(&a->k[i]))
			return 0;
	return 1;
}

/* A CPU that submits its share of prepared requests without waiting. */
struct sub_thread {
	struct kreq *k;
	pthread_t th;
	unsigned int n;
	int cpu;
	int err;
};

static void *sub_main(void *arg)
{
	struct sub_thread *s = arg;
	unsigned int i;

	kring_set_cpu(s->cpu);
	for (i = 0; i < s->n; i++) {
		s->k[i].ret = kring_submit(s->k[i].req);
		if (s->k[i].ret != -EINPROGRESS && s->k[i].ret != -EBUSY) {
			s->err = 1;
			return NULL;
		}
	}
	return NULL;
}

/* ---- many CPUs at once ---- */

#define MC_CPUS		8
#define MC_QUEUES	4
#define MC_REQS		150
#define MC_MAX		4096U

struct mc_req {
	unsigned int alg, dir;
	uint32_t len, aad_len;
	uint8_t *src, *dst, *ref;
	uint8_t iv[16], next_iv[16];
	int ret;
	struct kring_req *req;
	struct result r;
};

struct mc_thread {
	uint64_t seed;
	pthread_t th;
	struct mc_req reqs[MC_REQS];
	int cpu;
	int err;
};

static struct {
	struct kring_tfm *t[4];	/* ECB, CTR, XTS, GCM */
	uint8_t key[4][64];
	size_t key_len[4];
} mc;

static uint64_t mc_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void mc_bytes(uint64_t *s, uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)(mc_rand(s) >> 24);
}

/*
 * One request: buffers laid out as the crypto API has them (GCM: AAD,
 * text, tag), its reference from OpenSSL into ref.  0 or -1.
 */
static int mc_prep(struct mc_req *q, uint64_t *s)
{
	unsigned int a;
	size_t all;
	uint8_t tag[16];

	q->alg = 1 + (unsigned int)(mc_rand(s) % 4);
	a = q->alg - 1;
	q->dir = (unsigned int)(mc_rand(s) & 1);
	q->len = 1 + (uint32_t)(mc_rand(s) % MC_MAX);
	q->aad_len = 0;
	if (q->alg == GPU_AES_ALG_ECB)
		q->len = (q->len + 15) & ~15U;
	if (q->alg == GPU_AES_ALG_XTS && q->len < 16)
		q->len = 16;
	if (q->alg == GPU_AES_ALG_GCM) {
		/* Encryption only: a decryption needs a tag made first. */
		q->dir = GPU_AES_DIR_ENCRYPT;
		q->aad_len = (uint32_t)(mc_rand(s) % 48);
	}
	all = q->aad_len + q->len + 16;
	q->src = malloc(all);
	q->dst = calloc(1, all);
	q->ref = calloc(1, all);
	if (!q->src || !q->dst || !q->ref)
		return -1;
	mc_bytes(s, q->src, all);
	memset(q->iv, 0, 16);
	mc_bytes(s, q->iv, q->alg == GPU_AES_ALG_GCM ? 12 : 16);
	memcpy(q->next_iv, q->iv, 16);
	switch (q->alg) {
	case GPU_AES_ALG_ECB:
	case GPU_AES_ALG_CTR:
		if (ref_crypt(q->alg, q->dir, mc.key[a], mc.key_len[a], q->iv,
			      q->src, q->ref, q->len))
			return -1;
		if (q->alg == GPU_AES_ALG_CTR)
			t_ctr_add(q->next_iv, q->len);
		return 0;
	case GPU_AES_ALG_XTS:
		return ref_xts(q->dir, mc.key[a], mc.key_len[a], q->iv, q->src,
			       q->ref, q->len);
	default:
		/* dst keeps the caller's AAD bytes (zero here). */
		if (ref_gcm(GPU_AES_DIR_ENCRYPT, mc.key[a], mc.key_len[a],
			    q->iv, q->src, q->aad_len, q->src + q->aad_len,
			    q->ref + q->aad_len, q->len, tag, 16))
			return -1;
		memcpy(q->ref + q->aad_len + q->len, tag, 16);
		return 0;
	}
}

static int mc_all_done(void *arg)
{
	struct mc_thread *t = arg;

	for (unsigned int i = 0; i < MC_REQS; i++)
		if (t->reqs[i].ret && !is_done(&t->reqs[i].r))
			return 0;
	return 1;
}

static void *mc_main(void *arg)
{
	struct mc_thread *t = arg;
	uint64_t s = t->seed;
	unsigned int i;

	kring_set_cpu(t->cpu);
	for (i = 0; i < MC_REQS; i++) {
		struct mc_req *q = &t->reqs[i];

		if (mc_prep(q, &s)) {
			t->err = 1;
			return NULL;
		}
		q->req = kring_req_new(mc.t[q->alg - 1]);
		if (!q->req) {
			t->err = 1;
			return NULL;
		}
		kring_req_set(q->req, (enum gpu_aes_dir)q->dir, q->src, q->dst,
			      q->len, q->aad_len, q->iv, KRING_MAY_BACKLOG,
			      on_done, &q->r);
		q->ret = kring_submit(q->req);
		/* 0: run on the CPU before the call returned (see below). */
		if (q->ret != -EINPROGRESS && q->ret != -EBUSY && q->ret) {
			t->err = 2;
			return NULL;
		}
	}
	if (wait_until(mc_all_done, t))
		t->err = 3;
	return NULL;
}

/*
 * Eight CPUs on four queues (CPU c on queue c % 4) submit ECB, CTR, XTS
 * and GCM requests at once, each keeping all of its own outstanding.
 * Every request completes exactly once with OpenSSL's bytes (and CTR's
 * output IV); each queue carried exactly the requests of its two CPUs
 * that went to the ring: all of them, but for any that found their queue
 * full behind the other CPU's reservation while that thread was
 * preempted in its copy-in (a thread, unlike a kernel submitter, always
 * can be), which ran on the CPU at once (fallback_full), and any that
 * were backlogged and then found it so when a reap would have let them in,
 * which ran on the CPU there (recomputed, after their -EINPROGRESS), and
 * nowhere else.
 */
TEST(kring_many_cpus_submit_at_once)
{
	static const char *const per_alg[4] = {
		"ring_ecb_requests", "ring_ctr_requests", "ring_xts_requests",
		"ring_gcm_requests",
	};
	static struct mc_thread th[MC_CPUS];
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	int64_t bl0 = kstat("backlogged"), rec0 = kstat("recomputed");
	int64_t full0 = kstat("fallback_full");
	int64_t alg0[4], per_q[MC_QUEUES] = { 0 }, nr_alg[4] = { 0 };
	int64_t q_cpu[MC_QUEUES] = { 0 }, q_rec[MC_QUEUES] = { 0 };
	const struct gpu_aes_region *r;
	unsigned int i, j, started = 0, bad = 0, busy = 0, cpu = 0, rec = 0;
	struct kfix f;
	int err = 0;

	memset(th, 0, sizeof(th));
	memset(&mc, 0, sizeof(mc));
	for (i = 0; i < 4; i++)
		alg0[i] = kstat(per_alg[i]);
	CHECK_EQ(kfix_start(&f, MC_QUEUES, 32, 1 << 20, 3, 50), 0);
	r = kring_host_region(f.host);
	for (i = 0; i < 4; i++) {
		static const size_t len[4] = { 16, 24, 64, 32 };

		mc.key_len[i] = len[i];
		t_rand_bytes(mc.key[i], sizeof(mc.key[i]));
		mc.t[i] = kr_tfm(i + 1, mc.key[i], mc.key_len[i]);
		CHECK(mc.t[i]);
	}
	for (i = 0; i < MC_CPUS; i++) {
		th[i].cpu = (int)i;
		th[i].seed = t_rand() | 1;
		if (pthread_create(&th[i].th, NULL, mc_main, &th[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(th[i].th, NULL);
		err |= th[i].err;
	}
	/* Entries each queue was given (its sq_tail ran from zero). */
	for (i = 0; i < MC_QUEUES; i++)
		per_q[i] = __atomic_load_n(&r->queues[i].qhdr->sq_tail,
					   __ATOMIC_ACQUIRE);
	for (i = 0; i < 4; i++)
		kring_tfm_free(mc.t[i]);
	kfix_stop(&f);
	for (i = 0; i < started; i++)
		for (j = 0; j < MC_REQS; j++) {
			struct mc_req *q = &th[i].reqs[j];
			size_t n = q->aad_len + q->len +
				   (q->alg == GPU_AES_ALG_GCM ? 16 : 0);

			busy += q->ret == -EBUSY;
			if (q->ret) {
				if (!is_done(&q->r) || q->r.status ||
				    q->r.admitted != (q->ret == -EBUSY))
					bad++;
			} else if (is_done(&q->r)) {
				bad++;	/* a callback after a synchronous answer */
			}
			if (!q->dst || memcmp(q->dst, q->ref, n) != 0 ||
			    memcmp(q->iv, q->next_iv, 16) != 0)
				bad++;
			if (!q->ret) {
				cpu++;
				q_cpu[i % MC_QUEUES]++;
			} else if (kring_req_cpu_runs(q->req)) {
				/* Backlogged, then sent to the CPU. */
				if (q->ret != -EBUSY ||
				    kring_req_cpu_runs(q->req) != 1)
					bad++;
				rec++;
				q_rec[i % MC_QUEUES]++;
			} else if (q->alg) {
				nr_alg[q->alg - 1]++;
			}
			kring_req_free(q->req);
			free(q->src);
			free(q->dst);
			free(q->ref);
		}
	CHECK_EQ(started, MC_CPUS);
	CHECK_EQ(err, 0);
	CHECK_EQ(bad, 0);
	for (i = 0; i < MC_QUEUES; i++)
		CHECK_EQ(per_q[i], 2 * MC_REQS - q_cpu[i] - q_rec[i]);
	CHECK_EQ(kstat("ring_requests") - ring0, MC_CPUS * MC_REQS - cpu - rec);
	for (i = 0; i < 4; i++)
		CHECK_EQ(kstat(per_alg[i]) - alg0[i], nr_alg[i]);
	CHECK_EQ(kstat("backlogged") - bl0, busy);
	CHECK_EQ(kstat("fallback_requests") - fb0, cpu);
	CHECK_EQ(kstat("fallback_full") - full0, cpu);
	CHECK_EQ(kstat("recomputed") - rec0, rec);
	/* Most on the ring: a full queue behind a preempted copy is rare. */
	CHECK(cpu + rec <= MC_CPUS * MC_REQS / 4);
}

/* ---- a full queue ---- */

#define FQ_N	24	/* 16 entries: 8 more than fit */

/*
 * The helper holds its batch {r0}; r1..r15 take the queue's other tags,
 * r16..r23 find it full and are backlogged (-EBUSY).  Then r0's batch is
 * let through: r0 completes from the ring, its tag goes to r16 (told
 * -EINPROGRESS as it is admitted), and the helper's next batch is held.
 */
static int full_queue(struct kfix *f, struct kring_tfm *t, const uint8_t *key,
		      struct kreq *k)
{
	unsigned int i;

	if (gated_start(f, 1, 1, 0))
		return -1;
	if (kreq_prep(&k[0], t, key, 16, 512, KRING_MAY_BACKLOG))
		return -2;
	k[0].ret = kring_submit(k[0].req);
	if (k[0].ret != -EINPROGRESS || gate_wait_for(1, 1, 0))
		return -3;
	for (i = 1; i < FQ_N; i++) {
		if (kreq_prep(&k[i], t, key, 16, 512 - 16 * i,
			      KRING_MAY_BACKLOG))
			return -4;
		k[i].ret = kring_submit(k[i].req);
		if (k[i].ret != (i < 16 ? -EINPROGRESS : -EBUSY))
			return -(int)(100 + i);
	}
	for (i = 0; i < FQ_N; i++)
		if (__atomic_load_n(&k[i].nr_events, __ATOMIC_ACQUIRE))
			return -5;
	gate_let_one();
	if (gate_wait_for(2, 1, 1))
		return -6;
	/* Exactly r0 done, exactly r16 admitted. */
	if (!kreq_right(&k[0], 0) || k[16].nr_events != 1 ||
	    k[16].events[0] != -EINPROGRESS)
		return -7;
	for (i = 1; i < FQ_N; i++)
		if (i != 16 && k[i].nr_events)
			return -8;
	return 0;
}

/*
 * A full queue: MAY_BACKLOG requests get -EBUSY, then -EINPROGRESS when
 * admitted, then their result; a request without the flag is run at once
 * on the CPU, synchronously, never calling back (fallback_no_backlog for
 * one that may sleep, fallback_full for one that may not, which takes the
 * ring instead once the queue has room).
 */
TEST(kring_full_queue_backlogs_or_runs_on_cpu)
{
	static struct kreq k[FQ_N + 1];
	struct kreqs all = { k, FQ_N };
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	int64_t bl0 = kstat("backlogged"), nb0 = kstat("fallback_no_backlog");
	int64_t rec0 = kstat("recomputed"), full0 = kstat("fallback_full");
	struct kreq *x = &k[FQ_N];
	struct kring_tfm *t;
	uint8_t key[16];
	unsigned int i;
	struct kfix f;

	t_rand_bytes(key, sizeof(key));
	t = kr_tfm(GPU_AES_ALG_CTR, key, 16);
	CHECK(t);
	CHECK_EQ(full_queue(&f, t, key, k), 0);
	CHECK_EQ(kstat("backlogged") - bl0, FQ_N - 16);

	/*
	 * No backlog flag: the CPU, now, while the queue is full, for a
	 * caller that may sleep (AF_ALG's AEAD AIO) and one that may not
	 * (IPsec), which alone would have taken the ring had it had room.
	 */
	CHECK_EQ(kreq_prep(x, t, key, 16, 300, KRING_MAY_SLEEP), 0);
	CHECK_EQ(kring_submit(x->req), 0);
	CHECK_MEM(x->out, x->ref, x->len);
	CHECK_MEM(x->iv, x->next_iv, 16);
	CHECK_EQ(kstat("fallback_no_backlog") - nb0, 1);
	kring_req_free(x->req);
	CHECK_EQ(kreq_prep(x, t, key, 16, 310, 0), 0);
	CHECK_EQ(kring_submit(x->req), 0);
	CHECK_MEM(x->out, x->ref, x->len);
	CHECK_EQ(kstat("fallback_full") - full0, 1);
	CHECK_EQ(kstat("fallback_requests") - fb0, 2);

	gate_open();
	CHECK_EQ(wait_until(kreqs_final, &all), 0);
	for (i = 0; i < FQ_N; i++)
		if (!kreq_right(&k[i], i >= 16))
			t_failf(__FILE__, __LINE__, "request %u", i);
	for (i = 0; i < FQ_N; i++)
		CHECK(kreq_right(&k[i], i >= 16));
	CHECK_EQ(__atomic_load_n(&x->nr_events, __ATOMIC_ACQUIRE), 0);
	/*
	 * With room: the caller that may sleep still gets its answer at
	 * once; the one that may not takes the ring, -EINPROGRESS and one
	 * callback, never -EBUSY.
	 */
	kring_req_free(x->req);
	CHECK_EQ(kreq_prep(x, t, key, 16, 333, KRING_MAY_SLEEP), 0);
	CHECK_EQ(kring_submit(x->req), 0);
	CHECK_MEM(x->out, x->ref, x->len);
	CHECK_EQ(__atomic_load_n(&x->nr_events, __ATOMIC_ACQUIRE), 0);
	kring_req_free(x->req);
	CHECK_EQ(kreq_prep(x, t, key, 16, 347, 0), 0);
	CHECK_EQ(kring_submit(x->req), -EINPROGRESS);
	all.k = x;
	all.n = 1;
	CHECK_EQ(wait_until(kreqs_final, &all), 0);
	CHECK(kreq_right(x, 0));
	kfix_stop(&f);
	kring_tfm_free(t);
	for (i = 0; i <= FQ_N; i++)
		kring_req_free(k[i].req);
	CHECK_EQ(kstat("ring_requests") - ring0, FQ_N + 1);
	CHECK_EQ(kstat("backlogged") - bl0, FQ_N - 16);
	CHECK_EQ(kstat("fallback_no_backlog") - nb0, 2);
	CHECK_EQ(kstat("fallback_full") - full0, 1);
	CHECK_EQ(kstat("fallback_requests") - fb0, 3);
	CHECK_EQ(kstat("recomputed") - rec0, 0);
}

struct killer {
	struct kring_host *host;
	pthread_t th;
};

static void *kill_main(void *arg)
{
	struct killer *k = arg;

	kring_host_kill(k->host);
	return NULL;
}

/*
 * The helper dies with a batch held in its backend, more entries on the
 * SQ and requests in the backlog: the kernel replays every request on the
 * CPU and completes each exactly once with the right bytes.  r0 came from
 * the ring before; the other 23 are the replayed ones, all completed on
 * the thread that detached, and `recomputed` counts exactly them.  The
 * helper's late completion of its held batch changes nothing.
 */
TEST(kring_kill_replays_requests_in_flight)
{
	static struct kreq k[FQ_N];
	struct kreqs all = { k, FQ_N };
	int64_t ring0 = kstat("ring_requests"), rec0 = kstat("recomputed");
	int64_t fb0 = kstat("fallback_requests"), late0 =
		kstat("late_completions");
	int64_t rej0 = kstat("rejected_completions");
	unsigned int i, on_killer = 0, ring_done;
	struct killer kl;
	struct kring_tfm *t;
	uint8_t key[16];
	struct kfix f;

	t_rand_bytes(key, sizeof(key));
	t = kr_tfm(GPU_AES_ALG_CTR, key, 16);
	CHECK(t);
	CHECK_EQ(full_queue(&f, t, key, k), 0);
	/* Completed so far: from the ring, the helper's batch held. */
	ring_done = 0;
	for (i = 0; i < FQ_N; i++)
		ring_done += kreq_final(&k[i]);
	CHECK_EQ(ring_done, 1);
	CHECK_EQ(kstat("recomputed") - rec0, 0);

	kl.host = kfix_release(&f);
	CHECK_EQ(pthread_create(&kl.th, NULL, kill_main, &kl), 0);
	/* Detach replays everything before the helper's threads go. */
	CHECK_EQ(wait_until(kreqs_final, &all), 0);
	gate_open();
	pthread_join(kl.th, NULL);

	for (i = 0; i < FQ_N; i++) {
		if (!kreq_right(&k[i], i >= 16))
			t_failf(__FILE__, __LINE__, "request %u", i);
		CHECK(kreq_right(&k[i], i >= 16));
		on_killer += i && pthread_equal(k[i].by, kl.th);
	}
	CHECK(!pthread_equal(k[0].by, kl.th));
	CHECK_EQ(on_killer, FQ_N - 1);
	CHECK_EQ(kstat("recomputed") - rec0, FQ_N - ring_done);
	CHECK_EQ(ring_done + (kstat("recomputed") - rec0), FQ_N);
	/* Posted: r0..r15 and the admitted r16; the rest never were. */
	CHECK_EQ(kstat("ring_requests") - ring0, 17);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
	CHECK_EQ(kstat("late_completions") - late0, 0);
	CHECK_EQ(kstat("rejected_completions") - rej0, 0);
	kring_tfm_free(t);
	for (i = 0; i < FQ_N; i++)
		kring_req_free(k[i].req);
}

/*
 * The helper dies while four CPUs' requests fill four queues: two of its
 * batches got past the gate and completed, the third is held in the
 * backend, the rest are on the SQs and in the backlogs.  Every request
 * completes once with the right bytes; those completed before the kill
 * came from the ring, all the others were replayed on the thread that
 * detached, `recomputed` counts exactly those, and together they are all
 * of them.  (The backend is inline so that nothing completes from the
 * ring while the helper is killed: with a worker still reaping, requests
 * it admitted from a backlog just as the queue went are replayed on that
 * worker's thread instead.)
 */
#define KC_CPUS		4
#define KC_REQS		150

TEST(kring_kill_with_many_cpus_replays_the_rest)
{
	static struct kreq k[KC_CPUS * KC_REQS];
	struct kreqs all = { k, KC_CPUS * KC_REQS };
	int64_t rec0 = kstat("recomputed"), fb0 = kstat("fallback_requests");
	unsigned int i, started = 0, bad = 0, on_killer = 0, ring_done = 0;
	struct sub_thread th[KC_CPUS];
	struct kring_tfm *t;
	struct killer kl;
	uint8_t key[24];
	struct kfix f;
	int err = 0;

	t_rand_bytes(key, sizeof(key));
	CHECK_EQ(gated_start(&f, KC_CPUS, 1, 2), 0);
	t = kr_tfm(GPU_AES_ALG_CTR, key, sizeof(key));
	CHECK(t);
	for (i = 0; i < KC_CPUS * KC_REQS; i++)
		CHECK_EQ(kreq_prep(&k[i], t, key, sizeof(key),
				   16 + (uint32_t)(t_rand() % 497),
				   KRING_MAY_BACKLOG), 0);
	for (i = 0; i < KC_CPUS; i++) {
		th[i] = (struct sub_thread){ .k = k + i * KC_REQS,
					     .n = KC_REQS, .cpu = (int)i };
		if (pthread_create(&th[i].th, NULL, sub_main, &th[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(th[i].th, NULL);
		err |= th[i].err;
	}
	CHECK_EQ(started, KC_CPUS);
	CHECK_EQ(err, 0);
	/* Two batches done (inline), the third held: nothing moves now. */
	CHECK_EQ(gate_wait_for(1, 1, 2), 0);
	for (i = 0; i < KC_CPUS * KC_REQS; i++)
		ring_done += kreq_final(&k[i]);
	CHECK_EQ(kstat("recomputed") - rec0, 0);
	/* At most two batches of at most 64. */
	CHECK(ring_done >= 1 && ring_done <= 2 * KC_CPUS * 16);

	kl.host = kfix_release(&f);
	CHECK_EQ(pthread_create(&kl.th, NULL, kill_main, &kl), 0);
	CHECK_EQ(wait_until(kreqs_final, &all), 0);
	gate_open();
	pthread_join(kl.th, NULL);
	for (i = 0; i < KC_CPUS * KC_REQS; i++) {
		if (!kreq_right(&k[i], k[i].ret == -EBUSY))
			bad++;
		on_killer += pthread_equal(k[i].by, kl.th) != 0;
		kring_req_free(k[i].req);
	}
	kring_tfm_free(t);
	CHECK_EQ(bad, 0);
	CHECK_EQ(on_killer, KC_CPUS * KC_REQS - ring_done);
	CHECK_EQ(kstat("recomputed") - rec0, on_killer);
	CHECK_EQ(ring_done + (kstat("recomputed") - rec0), KC_CPUS * KC_REQS);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}

/* ---- the helper leaves normally ---- */

#define ST_CPUS		4
#define ST_REQS		200

/*
 * kring_host_stop() with requests in flight and in the backlog, submitted
 * by four CPUs that have not waited for any: when it returns, every one
 * of them has completed exactly once with the right bytes.  Those the
 * helper did not finish were replayed on the stopping thread, and
 * `recomputed` counts exactly those: completions from the helper's
 * threads plus recomputed ones are all of them.
 */
TEST(kring_stop_completes_everything_once)
{
	static struct kreq k[ST_CPUS][ST_REQS];
	int64_t rec0 = kstat("recomputed"), fb0 = kstat("fallback_requests");
	struct sub_thread th[ST_CPUS];
	unsigned int i, j, started = 0, bad = 0, on_stopper = 0, from_ring = 0;
	uint8_t key[32];
	struct kring_tfm *t;
	pthread_t me = pthread_self();
	struct kfix f;
	int err = 0;

	t_rand_bytes(key, sizeof(key));
	CHECK_EQ(kfix_start(&f, ST_CPUS, 16, 1 << 20, 3, 50), 0);
	t = kr_tfm(GPU_AES_ALG_CTR, key, 32);
	CHECK(t);
	/* Prepared here: the harness's generator is this thread's. */
	for (i = 0; i < ST_CPUS; i++)
		for (j = 0; j < ST_REQS; j++) {
			CHECK_EQ(kreq_prep(&k[i][j], t, key, 32,
					   16 + (uint32_t)(t_rand() % 497),
					   KRING_MAY_BACKLOG), 0);
		}
	for (i = 0; i < ST_CPUS; i++) {
		th[i] = (struct sub_thread){ .k = k[i], .n = ST_REQS,
					     .cpu = (int)i };
		if (pthread_create(&th[i].th, NULL, sub_main, &th[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(th[i].th, NULL);
		err |= th[i].err;
	}
	kfix_stop(&f);
	for (i = 0; i < ST_CPUS; i++)
		for (j = 0; j < ST_REQS; j++) {
			struct kreq *q = &k[i][j];

			if (!kreq_right(q, q->ret == -EBUSY))
				bad++;
			if (pthread_equal(q->by, me))
				on_stopper++;
			else
				from_ring++;
			kring_req_free(q->req);
		}
	kring_tfm_free(t);
	CHECK_EQ(started, ST_CPUS);
	CHECK_EQ(err, 0);
	CHECK_EQ(bad, 0);
	CHECK_EQ(kstat("recomputed") - rec0, on_stopper);
	CHECK_EQ(from_ring + (kstat("recomputed") - rec0), ST_CPUS * ST_REQS);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}

/* ---- keys ---- */

/* The slot whose entry holds @key (XTS: both halves); -1 if none. */
static int find_slot(const struct gpu_aes_region *r, const uint8_t *key,
		     uint32_t key_len, uint32_t tweak_len)
{
	int found = -1;
	uint32_t s;

	for (s = 0; s < r->nr_keys; s++) {
		const struct gpu_aes_key *e = &r->keys[s];

		if (e->key_len == key_len && e->tweak_len == tweak_len &&
		    !memcmp(e->key, key, key_len + tweak_len)) {
			if (found >= 0)
				return -2;	/* twice: wrong too */
			found = (int)s;
		}
	}
	return found;
}

static int slot_zero(const struct gpu_aes_region *r, int s)
{
	static const uint8_t zero[sizeof(struct gpu_aes_key)];

	return s >= 0 && !memcmp(&r->keys[s], zero, sizeof(zero));
}

/* A callback that holds the thread completing it until released. */
struct hold {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int status;
	int reached, release, returned;
};

static void hold_done(void *arg, int err)
{
	struct hold *h = arg;

	if (err == -EINPROGRESS)
		return;
	pthread_mutex_lock(&h->lock);
	h->status = err;
	h->reached = 1;
	while (!h->release)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	__atomic_store_n(&h->returned, 1, __ATOMIC_RELEASE);
}

static int hold_reached(void *arg)
{
	struct hold *h = arg;
	int v;

	pthread_mutex_lock(&h->lock);
	v = h->reached;
	pthread_mutex_unlock(&h->lock);
	return v;
}

static int hold_returned(void *arg)
{
	return __atomic_load_n(&((struct hold *)arg)->returned,
			       __ATOMIC_ACQUIRE);
}

struct cached_arg {
	struct gpu_aes_backend *be;
};

static int nothing_cached(void *arg)
{
	return gpu_aes_backend_cpu_cached(((struct cached_arg *)arg)->be) == 0;
}

/*
 * Freeing a tfm wipes its key table entry (all zero) and leaves the other
 * tfms' entries alone.
 *
 * @hold_last: the last tfm's request holds the helper in its completion
 * callback until the tfm is freed, so the core's idle pass (before it
 * sleeps) comes after every free: then the cpu backend holds no key at
 * all.  With the inline backend the callback runs on the core's own
 * thread; with a threaded one the core sleeps while the batch is held and
 * must look again on its own (its timed wait) to make the idle pass.
 */
static void keys_wiped(unsigned int threads, int hold_last)
{
	static const struct {
		unsigned int alg;
		uint32_t key_len, tweak_len;
	} tf[4] = {
		{ GPU_AES_ALG_XTS, 24, 24 },
		{ GPU_AES_ALG_GCM, 32, 0 },
		{ GPU_AES_ALG_ECB, 16, 0 },
		{ GPU_AES_ALG_CTR, 24, 0 },
	};
	const unsigned int nr = hold_last ? 3 : 4;
	uint8_t key[4][64], buf[256], out[256 + 16], iv[16] = { 0 };
	struct hold h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  1, 0, 0, 0 };
	struct kring_tfm *t[4] = { NULL, NULL, NULL, NULL };
	const struct gpu_aes_region *r;
	struct cached_arg ca;
	struct kring_req *req;
	int slot[4];
	unsigned int i, j;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 2, 16, 1 << 20, threads, 0), 0);
	r = kring_host_region(f.host);
	ca.be = kring_host_backend(f.host);
	t_rand_bytes(buf, sizeof(buf));
	for (i = 0; i < 4; i++) {
		uint32_t all = tf[i].key_len + tf[i].tweak_len;

		slot[i] = -1;
		t_rand_bytes(key[i], sizeof(key[i]));
		t[i] = kr_tfm(tf[i].alg, key[i], all);
		CHECK(t[i]);
		/* Not in the table before its first ring request. */
		CHECK_EQ(find_slot(r, key[i], tf[i].key_len, tf[i].tweak_len),
			 -1);
		if (i >= nr)
			continue;
		if (tf[i].alg == GPU_AES_ALG_GCM)
			CHECK_EQ(kr_run_gcm(t[i], GPU_AES_DIR_ENCRYPT, iv, buf,
					    16, buf, out, 64, out + 64), 0);
		else
			CHECK_EQ(kr_run(t[i], GPU_AES_DIR_ENCRYPT, iv, buf, out,
					sizeof(buf)), 0);
		slot[i] = find_slot(r, key[i], tf[i].key_len, tf[i].tweak_len);
		CHECK(slot[i] >= 0);
		for (j = 0; j < i; j++)
			CHECK(slot[j] != slot[i]);
	}
	/* The backend held keys while they were in use. */
	CHECK(gpu_aes_backend_cpu_cached(ca.be) > 0);
	for (i = 0; i < nr; i++) {
		kring_tfm_free(t[i]);
		t[i] = NULL;
		CHECK(slot_zero(r, slot[i]));
		for (j = i + 1; j < nr; j++)
			CHECK_EQ(find_slot(r, key[j], tf[j].key_len,
					   tf[j].tweak_len), slot[j]);
	}
	if (!hold_last) {
		kfix_stop(&f);
		return;
	}

	/* The last one: its callback holds the helper. */
	req = kring_req_new(t[3]);
	CHECK(req);
	kring_req_set(req, GPU_AES_DIR_ENCRYPT, buf, out, sizeof(buf), 0, iv,
		      KRING_MAY_BACKLOG, hold_done, &h);
	CHECK_EQ(kring_submit(req), -EINPROGRESS);
	CHECK_EQ(wait_until(hold_reached, &h), 0);
	CHECK_EQ(h.status, 0);
	slot[3] = find_slot(r, key[3], tf[3].key_len, tf[3].tweak_len);
	CHECK(slot[3] >= 0);
	CHECK(gpu_aes_backend_cpu_cached(ca.be) > 0);
	kring_tfm_free(t[3]);
	CHECK(slot_zero(r, slot[3]));
	pthread_mutex_lock(&h.lock);
	h.release = 1;
	pthread_cond_broadcast(&h.cond);
	pthread_mutex_unlock(&h.lock);
	CHECK_EQ(wait_until(hold_returned, &h), 0);
	/* Nothing is left to wake it: the idle pass after this batch. */
	CHECK_EQ(wait_until(nothing_cached, &ca), 0);
	for (i = 0; i < 4; i++)
		CHECK(slot_zero(r, slot[i]));
	kring_req_free(req);
	kfix_stop(&f);
}

TEST(kring_tfm_free_wipes_key_slot)
{
	keys_wiped(3, 0);
}

TEST(kring_backend_holds_no_key_after_idle)
{
	keys_wiped(1, 1);
}

TEST(kring_threaded_backend_holds_no_key_after_idle)
{
	keys_wiped(3, 1);
}

struct in_poll_arg {
	const struct gpu_aes_region *r;
};

/*
 * The core is in poll() for good: NEED_WAKEUP set, and the handler's look
 * made before it sleeps has re-armed the doorbell.
 */
static int core_in_poll(void *arg)
{
	const struct gpu_aes_region *r = ((struct in_poll_arg *)arg)->r;

	return (__atomic_load_n(&r->queues[0].qhdr->helper_flags,
				__ATOMIC_ACQUIRE) &
		GPU_AES_HELPER_NEED_WAKEUP) && kring_doorbell_armed();
}

/*
 * One wake-up per sleep, and each sleep armed again: a lone request to a
 * sleeping helper wakes it once, every time.  Each round frees its tfm and
 * waits until the backend dropped the key, so the core sleeps without a
 * timeout (it wakes up now and then while it holds keys) and nothing but
 * the doorbell can wake it: the count is exact.  A doorbell left rung
 * would leave the second request unserved (and uncounted).
 */
TEST(kring_one_wakeup_per_sleep)
{
	const unsigned int rounds = 6;
	int64_t wake0 = kstat("helper_wakeups");
	uint8_t key[16], in[512], out[512], ref[512], iv[16] = { 0 };
	struct in_poll_arg ip;
	struct cached_arg ca;
	unsigned int i;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 1, 16, 1 << 20, 1, 0), 0);
	ip.r = kring_host_region(f.host);
	ca.be = kring_host_backend(f.host);
	for (i = 0; i < rounds; i++) {
		struct kring_tfm *t;

		CHECK_EQ(wait_until(nothing_cached, &ca), 0);
		CHECK_EQ(wait_until(core_in_poll, &ip), 0);
		CHECK_EQ(kstat("helper_wakeups") - wake0, i);
		t_rand_bytes(key, sizeof(key));
		t_rand_bytes(in, sizeof(in));
		t = kr_tfm(GPU_AES_ALG_CTR, key, sizeof(key));
		CHECK(t);
		CHECK_EQ(kr_run(t, GPU_AES_DIR_ENCRYPT, iv, in, out, sizeof(in)),
			 0);
		CHECK_EQ(ref_crypt(GPU_AES_ALG_CTR, GPU_AES_DIR_ENCRYPT, key,
				   sizeof(key), iv, in, ref, sizeof(in)), 0);
		CHECK_MEM(out, ref, sizeof(in));
		kring_tfm_free(t);
	}
	CHECK_EQ(kstat("helper_wakeups") - wake0, rounds);
	kfix_stop(&f);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A consumer that submits nothing (a benchmark's main thread preparing
 * buffers) counts with the submitters, so in-process its CPU is not read
 * as the helper's: what it spends shows up whole in the consumers' sum.
 * Registering twice is one registration.
 */
TEST(kring_consumer_thread_is_not_the_helper)
{
	volatile uint64_t x = 0;
	uint64_t a0, a1, t0, t1;

	CHECK_EQ(kring_consumer_thread(), 0);
	CHECK_EQ(kring_consumer_thread(), 0);
	a0 = kring_submitters_cpu_ns();
	t0 = thread_cpu_ns();
	/* Work until this thread has run 5 ms more (a loop bound, no check). */
	while (thread_cpu_ns() - t0 < 5000000)
		x += x * 3 + 1;
	t1 = thread_cpu_ns();
	a1 = kring_submitters_cpu_ns();
	CHECK(a1 - a0 >= t1 - t0);
}

/* What the request type refuses before anything reaches the ring. */
TEST(kring_rejects_bad_keys_and_lengths)
{
	static const unsigned int bad_one[] = { 0, 1, 15, 17, 20, 31, 33, 64 };
	static const unsigned int bad_xts[] = { 0, 16, 31, 33, 40, 48 + 1, 80 };
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	uint8_t key[80] = { 7 }, buf[64] = { 0 }, iv[16] = { 0 };
	struct kring_tfm *t, *x;
	unsigned int i;
	struct kfix f;

	for (i = 0; i < sizeof(bad_one) / sizeof(bad_one[0]); i++) {
		CHECK_EQ(kring_tfm_new(GPU_AES_ALG_ECB, key, bad_one[i], &t),
			 -EINVAL);
		CHECK_EQ(kring_tfm_new(GPU_AES_ALG_CTR, key, bad_one[i], &t),
			 -EINVAL);
	}
	for (i = 0; i < sizeof(bad_xts) / sizeof(bad_xts[0]); i++)
		CHECK_EQ(kring_tfm_new(GPU_AES_ALG_XTS, key, bad_xts[i], &t),
			 -EINVAL);
	CHECK_EQ(kring_tfm_new((enum gpu_aes_alg)(GPU_AES_ALG_MAX + 1), key, 16,
			       &t), -EINVAL);

	CHECK_EQ(kfix_start(&f, 1, 16, 1 << 20, 1, 0), 0);
	t = kr_tfm(GPU_AES_ALG_ECB, key, 16);
	x = kr_tfm(GPU_AES_ALG_XTS, key, 32);
	CHECK(t && x);
	/* ECB takes whole blocks, XTS one at least; empty is done at once. */
	CHECK_EQ(kr_run(t, GPU_AES_DIR_ENCRYPT, NULL, buf, buf, 17), -EINVAL);
	CHECK_EQ(kr_run(t, GPU_AES_DIR_DECRYPT, NULL, buf, buf, 8), -EINVAL);
	CHECK_EQ(kr_run(x, GPU_AES_DIR_ENCRYPT, iv, buf, buf, 15), -EINVAL);
	CHECK_EQ(kr_run(t, GPU_AES_DIR_ENCRYPT, NULL, buf, buf, 0), 0);
	CHECK_EQ(kstat("ring_requests") - ring0, 0);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
	kring_tfm_free(t);
	kring_tfm_free(x);
	kfix_stop(&f);
}

/*
 * kring_cpu_direct(), gpu-aes-bench --decision's "direct": the bytes and
 * the output IV the request path's CPU fallback gives, for every
 * skcipher, with no counter of the module moved.
 */
TEST(kring_cpu_direct_is_the_fallback_without_the_layer)
{
	static const unsigned int algs[] = {
		GPU_AES_ALG_ECB, GPU_AES_ALG_CBC, GPU_AES_ALG_CTR,
		GPU_AES_ALG_XTS, GPU_AES_ALG_XCTR,
	};
	uint8_t key[64], in[4096], via[4096], direct[4096];
	unsigned int i, dir;
	struct kfix f;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 7 + 1);
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 13 + 5);
	CHECK_EQ(kfix_start(&f, 1, 16, 1 << 20, 1, 0), 0);
	CHECK_EQ(kring_set_dispatch("cpu"), 0);
	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		for (dir = 0; dir < 2; dir++) {
			struct kring_tfm *t = kr_tfm(algs[i], key,
				algs[i] == GPU_AES_ALG_XTS ? 64 : 32);
			struct kring_req *r = t ? kring_req_new(t) : NULL;
			uint8_t iv_via[16], iv_direct[16];
			int64_t fb0, ring0;

			CHECK(r);
			memset(iv_via, 0x5a, sizeof(iv_via));
			memset(iv_direct, 0x5a, sizeof(iv_direct));
			CHECK_EQ(kr_req_run(t, dir, in, via, 4096, 0, iv_via),
				 0);
			fb0 = kstat("fallback_requests");
			ring0 = kstat("ring_requests");
			kring_req_set(r, (enum gpu_aes_dir)dir, in, direct,
				      4096, 0, iv_direct, KRING_MAY_BACKLOG,
				      NULL, NULL);
			CHECK_EQ(kring_cpu_direct(r), 0);
			CHECK_EQ(memcmp(via, direct, 4096), 0);
			CHECK_EQ(memcmp(iv_via, iv_direct, 16), 0);
			CHECK_EQ(kstat("fallback_requests") - fb0, 0);
			CHECK_EQ(kstat("ring_requests") - ring0, 0);
			kring_req_free(r);
			kring_tfm_free(t);
		}
	CHECK_EQ(kring_set_dispatch("ring"), 0);
	kfix_stop(&f);
}

/*
 * kring_copy_to_slot() is the module's copy into a data space (around the
 * cache on x86-64: an unaligned head, 64-byte streaming runs, a tail):
 * every length and alignment around those edges lands byte for byte, and
 * nothing before or after the slot is touched.
 */
TEST(kring_copy_to_slot_exact)
{
	enum { GUARD = 64, MAXLEN = 300 };
	static uint8_t src[16 + MAXLEN], slot[GUARD + 16 + MAXLEN + GUARD];
	unsigned int len, so, dof, i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 37 + 11);
	for (len = 0; len <= MAXLEN; len += len < 160 ? 1 : 7)
		for (so = 0; so < 16; so += 5)
			for (dof = 0; dof < 16; dof++) {
				uint8_t *d = slot + GUARD + dof;

				memset(slot, 0xa5, sizeof(slot));
				kring_copy_to_slot(d, src + so, len);
				kring_copy_to_slot_fence();
				CHECK_MEM(d, src + so, len);
				for (i = 0; i < GUARD + dof; i++)
					CHECK_EQ(slot[i], 0xa5);
				for (i = GUARD + dof + len; i < sizeof(slot);
				     i++)
					CHECK_EQ(slot[i], 0xa5);
			}
}

/* ---- a region attached by hand, with no helper ---- */

/* Detached and freed after a test that failed half way. */
static struct gpu_aes_region raw;

static int raw_after_test(void)
{
	if (!raw.base)
		return 0;
	kring_detach();
	gpu_aes_region_free(&raw);
	return 1;
}

__attribute__((constructor)) static void raw_register(void)
{
	t_after_each(raw_after_test);
}

static void raw_free(void)
{
	kring_detach();
	gpu_aes_region_free(&raw);
}

/* The SETUP of @raw: queues of 16 entries and 1 MiB, serving @algs. */
static int raw_alloc(uint32_t queues, uint32_t algs, struct gpu_aes_setup *s)
{
	struct gpu_aes_geometry g;
	int err;

	err = kfix_prepare();
	if (!err)
		err = gpu_aes_region_geometry(queues, 16, 16, 1 << 20, &g);
	if (!err)
		err = gpu_aes_region_alloc(&g, &raw, NULL);
	if (err)
		return err;
	memset(s, 0, sizeof(*s));
	s->abi_version = GPU_AES_ABI_VERSION;
	s->features = GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS;
	s->algs = algs;
	s->geo = g;
	s->region_addr = (uint64_t)(uintptr_t)raw.base;
	s->region_size = raw.size;
	return 0;
}

struct attach_call {
	const struct gpu_aes_setup *s;
	int ret;
};

static void *attach_main(void *arg)
{
	struct attach_call *a = arg;

	a->ret = kring_attach(raw.base, a->s);
	return NULL;
}

/*
 * The helper's side of a race that the test below is about: its reads and
 * writes of the header while the kernel's attach writes it are hidden
 * from ThreadSanitizer (a hostile helper is the point, not a bug here).
 */

/* Attach has written the header (its last field, the data slice's size). */
__attribute__((no_sanitize("thread")))
static int hdr_written(void *arg)
{
	const struct gpu_aes_setup *s = arg;

	return __atomic_load_n(&raw.hdr->queue_data_size, __ATOMIC_RELAXED) ==
	       s->geo.queue_data_size;
}

__attribute__((no_sanitize("thread")))
static void hdr_set_algs(uint32_t algs)
{
	__atomic_store_n(&raw.hdr->algs, algs, __ATOMIC_RELAXED);
}

/*
 * The algorithms the module posts are the ones it agreed to at SETUP,
 * whatever the header says by the time it publishes the attachment: the
 * header is the helper's memory, and a helper thread may rewrite it while
 * another makes the SETUP call.  Here the attach is held on the key lock,
 * right after it wrote the header, while the test rewrites the header's
 * algorithms to all of them; a helper that agreed to ECB alone must then
 * still get no CTR request.  (Issue 49: attach read the set back from the
 * header, and a racing helper thread made the module post what it never
 * agreed to.)
 */
TEST(kring_attach_posts_only_what_was_agreed)
{
	/* Static: a request posted by mistake outlives a failed check. */
	static uint8_t key[16] = { 1 }, iv[16] = { 2 }, buf[4096] = { 3 };
	static struct result res;
	struct gpu_aes_setup s;
	struct attach_call a;
	struct kring_req *req;
	struct kring_tfm *t;
	int64_t unsup, ring;
	pthread_t th;

	CHECK_EQ(raw_alloc(1, GPU_AES_ALG_BIT(GPU_AES_ALG_ECB), &s), 0);
	a.s = &s;
	a.ret = -1;
	kring_hold_key_lock(1);
	if (pthread_create(&th, NULL, attach_main, &a)) {
		kring_hold_key_lock(0);
		CHECK(0);
	}
	if (wait_until(hdr_written, &s) == 0) {
		/* Give the header's other stores time to land: nothing waits. */
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		hdr_set_algs(GPU_AES_ALGS_KNOWN);
	}
	kring_hold_key_lock(0);
	pthread_join(th, NULL);
	CHECK_EQ(a.ret, 0);
	CHECK_EQ(raw.hdr->algs, GPU_AES_ALGS_KNOWN);

	t = kr_tfm(GPU_AES_ALG_CTR, key, sizeof(key));
	CHECK(t);
	req = kring_req_new(t);
	CHECK(req);
	kring_req_set(req, GPU_AES_DIR_ENCRYPT, buf, buf, sizeof(buf), 0, iv,
		      KRING_MAY_BACKLOG, on_done, &res);
	unsup = kstat("fallback_unsupported");
	ring = kstat("ring_requests");
	/* The CPU, at once: the helper never agreed to CTR. */
	CHECK_EQ(kring_submit(req), 0);
	CHECK_EQ(kstat("fallback_unsupported") - unsup, 1);
	CHECK_EQ(kstat("ring_requests") - ring, 0);
	kring_req_free(req);
	kring_tfm_free(t);
	raw_free();
}
