// SPDX-License-Identifier: GPL-2.0-only
/*
 * core.c - the consumer side of the queues (core.h).
 *
 * One core thread takes submissions from every queue into batches; any
 * number of backend threads post completions back, each to the queue its
 * request came on.  Per queue, completion positions are claimed with one
 * fetch-add and published in claim order, so no lock is taken on either
 * side and the producer never sees an entry that is not written yet.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "cost_window.h"
#include "log.h"

#define DEFAULT_INFLIGHT	4U
/* Each batch holds max_batch segments (up to 8192 * 64 bytes). */
#define MAX_INFLIGHT	64U
#define DEFAULT_MAX_BATCH	8192U

struct core_batch {
	struct gpu_aes_batch b;
	int busy;		/* atomic: handed to the backend */
};

#define CACHELINE	GPU_AES_CACHELINE

/*
 * One queue's consumer state.  The core thread alone moves sq_head and
 * cq_reserved; completion threads move cq_claim and cq_pub, each on a
 * line of its own.  The padding is the point.
 */
struct core_queue { /* NOLINT(clang-analyzer-optin.performance.Padding) */
	uint32_t sq_head;
	uint32_t cq_reserved;	/* CQ positions promised to taken entries */
	uint32_t cq_claim __attribute__((aligned(CACHELINE)));	/* atomic */
	uint32_t cq_pub __attribute__((aligned(CACHELINE)));	/* atomic */
	int reap_queued __attribute__((aligned(CACHELINE)));	/* atomic */
} __attribute__((aligned(CACHELINE)));

/* Padding is deliberate: each side's hot fields on their own cache line. */
struct gpu_aes_core { /* NOLINT(clang-analyzer-optin.performance.Padding) */
	const struct gpu_aes_region *r;
	const struct gpu_aes_backend_ops *ops;
	struct gpu_aes_backend *be;
	struct gpu_aes_transport *t;
	unsigned int spin_us;
	uint32_t max_batch;
	unsigned int max_inflight;
	uint32_t mask;
	struct core_batch *batches;
	struct core_queue *q;	/* nr_queues */
	uint32_t next_q;	/* core thread: where the next scan starts */

	int stop_fd;
	int stop;		/* atomic */
	int err;		/* atomic: first transport error */

	struct gpu_aes_segment *invalid;	/* max_batch entries */

	unsigned int inflight_batches __attribute__((aligned(CACHELINE)));

	/*
	 * The core thread sleeps here only when every batch is in flight or
	 * the CQs are full; done() takes the lock only when it sees waiting.
	 */
	pthread_mutex_t lock __attribute__((aligned(CACHELINE)));
	pthread_cond_t freed;
	int waiting;		/* atomic */

	/*
	 * Reapers: the producer copies results out in the call that reaps a
	 * queue, so a batch spanning many queues is reaped by several threads
	 * at once rather than copied out by one.  Queues to reap wait in
	 * @reap_fifo (each at most once: core_queue.reap_queued).
	 */
	pthread_mutex_t reap_lock __attribute__((aligned(CACHELINE)));
	pthread_cond_t reap_cond;
	uint32_t *reap_fifo;	/* nr_queues entries */
	uint32_t reap_head, reap_tail;
	unsigned int reap_idle;	/* reapers waiting on reap_cond */
	int reap_stop;
	pthread_t *reapers;
	unsigned int nr_reapers;
	unsigned int reapers_started;

	/* The cost this helper publishes; the core thread alone uses these. */
	uint64_t (*cpu_ns)(void *arg);
	void *cpu_arg;
	uint64_t pub_at, pub_cpu, pub_bytes;
	uint64_t spun_ns;	/* core thread: time spent waiting in spins */
	double idle_cpu_share;	/* core thread: CPU per ns with nothing to do */
	struct gpu_aes_cost_acc cost_acc;	/* windows not yet a figure */

	struct gpu_aes_core_stats stats __attribute__((aligned(CACHELINE)));
};

static uint32_t load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static int stopping(struct gpu_aes_core *c)
{
	return __atomic_load_n(&c->stop, __ATOMIC_RELAXED);
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	while (n--)
		acc |= *p++;
	return !acc;
}

int32_t gpu_aes_core_check_sqe(const struct gpu_aes_region *r, uint32_t queue,
			       const struct gpu_aes_sqe *sqe,
			       struct gpu_aes_segment *seg)
{
	uint64_t slice = r->queue_data_size, base = queue * slice, span;
	const struct gpu_aes_key *k;
	uint32_t key_len, tweak_len;

	seg->tag = sqe->tag;
	seg->seq = sqe->seq;
	seg->queue = (uint16_t)queue;
	seg->alg = sqe->alg;
	seg->dir = sqe->dir;
	seg->key_slot = sqe->key_slot;
	seg->key_gen = sqe->key_gen;
	seg->data_off = sqe->data_off;
	seg->len = sqe->len;
	seg->aad_len = sqe->aad_len;
	seg->auth_len = sqe->auth_len;
	memcpy(seg->iv, sqe->iv, sizeof(seg->iv));
	seg->status = GPU_AES_STATUS_EIO;

	/* Not agreed at SETUP: the backend may not know it. */
	if (seg->alg > GPU_AES_ALG_MAX || !(r->algs & GPU_AES_ALG_BIT(seg->alg)))
		return GPU_AES_STATUS_EINVAL;
	if (!gpu_aes_sqe_alg_fields_valid(sqe))
		return GPU_AES_STATUS_EINVAL;
	if (seg->dir != GPU_AES_DIR_ENCRYPT && seg->dir != GPU_AES_DIR_DECRYPT)
		return GPU_AES_STATUS_EINVAL;
	/* Room for later ABI fields: a newer kernel's entry is refused. */
	if (!all_zero(sqe->reserved1, sizeof(sqe->reserved1)))
		return GPU_AES_STATUS_EINVAL;
	if (seg->key_slot >= r->nr_keys)
		return GPU_AES_STATUS_EINVAL;
	k = &r->keys[seg->key_slot];
	key_len = __atomic_load_n(&k->key_len, __ATOMIC_RELAXED);
	tweak_len = __atomic_load_n(&k->tweak_len, __ATOMIC_RELAXED);
	if (!gpu_aes_key_len_valid(key_len))
		return GPU_AES_STATUS_EINVAL;
	/* An XTS request on a one-key entry would run with a zero tweak key. */
	if (tweak_len != (gpu_aes_alg_keys(seg->alg) == 2 ? key_len : 0))
		return GPU_AES_STATUS_EINVAL;
	/* A rewritten slot holds another key than the request was made with. */
	if (__atomic_load_n(&k->gen, __ATOMIC_RELAXED) != seg->key_gen)
		return GPU_AES_STATUS_EINVAL;
	/*
	 * Inside its own queue's slice: another queue's bytes are in use by
	 * other requests.  From 32-bit lengths the span cannot overflow.
	 */
	span = gpu_aes_sqe_span(seg->alg, seg->len, seg->aad_len);
	if (seg->data_off < base || seg->data_off - base >= slice ||
	    span > slice - (seg->data_off - base))
		return GPU_AES_STATUS_EINVAL;
	/* Backends load 16-byte blocks; the kernel aligns to 64. */
	if (seg->data_off % 16)
		return GPU_AES_STATUS_EINVAL;
	return GPU_AES_STATUS_OK;
}

static void set_error(struct gpu_aes_core *c, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&c->err, &zero, err, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	gpu_aes_core_stop(c);
}

static void notify(struct gpu_aes_core *c, uint32_t qid)
{
	int err = c->t->ops->notify(c->t, qid);

	if (err)
		set_error(c, err);
}

static void stat_add(uint64_t *v, uint64_t n)
{
	__atomic_add_fetch(v, n, __ATOMIC_RELAXED);
}

/*
 * Writes completions of one queue in the order given at positions claimed
 * for them, and publishes its cq_tail once every earlier claimer has
 * published: a later claimer never exposes an earlier claimer's unwritten
 * entries.  The wait covers only another thread's few stores between its
 * claim and its publish; yield in case that thread was preempted there.
 */
static void post_queue(struct gpu_aes_core *c, uint32_t qid,
		       const struct gpu_aes_segment *segs, uint32_t nr)
{
	const struct gpu_aes_region_queue *rq = &c->r->queues[qid];
	struct core_queue *q = &c->q[qid];
	uint32_t i, start, tail;
	unsigned int spins = 0;

	/*
	 * acq_rel: positions are claimed in completion order, not in the order
	 * room was reserved, so our positions may have been freed by a reap the
	 * core saw only before a later batch; that batch's claim (earlier in
	 * cq_claim's order) carries the ordering to us.
	 */
	start = __atomic_fetch_add(&q->cq_claim, nr, __ATOMIC_ACQ_REL);
	for (i = 0, tail = start; i < nr; i++, tail++) {
		struct gpu_aes_cqe *e = &rq->cq[tail & c->mask];

		e->tag = segs[i].tag;
		e->seq = segs[i].seq;
		e->status = segs[i].status;
		e->reserved = 0;
	}
	while (__atomic_load_n(&q->cq_pub, __ATOMIC_ACQUIRE) != start) {
		if (++spins < 256)
			cpu_relax();
		else
			sched_yield();
	}
	store_release(&rq->qhdr->cq_tail, tail);
	store_release(&q->cq_pub, tail);
}

/* Hands queue @qid to a reaper, unless it is already waiting for one. */
static void reap_later(struct gpu_aes_core *c, uint32_t qid)
{
	if (__atomic_exchange_n(&c->q[qid].reap_queued, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_mutex_lock(&c->reap_lock);
	c->reap_fifo[c->reap_tail++ % c->r->nr_queues] = qid;
	if (c->reap_idle)
		pthread_cond_signal(&c->reap_cond);
	pthread_mutex_unlock(&c->reap_lock);
}

static void *reaper_main(void *arg)
{
	struct gpu_aes_core *c = arg;

	/* Named for top -H, and for the benchmark's CPU split by thread. */
	pthread_setname_np(pthread_self(), "gpuaes-reap");

	pthread_mutex_lock(&c->reap_lock);
	for (;;) {
		uint32_t qid;

		if (c->reap_head == c->reap_tail) {
			if (c->reap_stop)
				break;
			c->reap_idle++;
			pthread_cond_wait(&c->reap_cond, &c->reap_lock);
			c->reap_idle--;
			continue;
		}
		qid = c->reap_fifo[c->reap_head++ % c->r->nr_queues];
		pthread_mutex_unlock(&c->reap_lock);
		/* Cleared first: completions posted from now on queue it again. */
		__atomic_store_n(&c->q[qid].reap_queued, 0, __ATOMIC_SEQ_CST);
		notify(c, qid);
		pthread_mutex_lock(&c->reap_lock);
	}
	pthread_mutex_unlock(&c->reap_lock);
	return NULL;
}

/*
 * Posts a batch's completions, queue by queue (a batch holds each queue's
 * entries together, as take_batch() took them), and has each queue reaped
 * once: the first here (a lone request's completion takes no thread hop),
 * the others by the reapers.  Without reapers, one call reaps them all.
 */
static void post(struct gpu_aes_core *c, const struct gpu_aes_segment *segs,
		 uint32_t nr)
{
	uint32_t i, run, first_q;
	int several = 0;

	if (!nr)
		return;
	first_q = segs[0].queue;
	for (i = 0; i < nr; i += run) {
		uint32_t qid = segs[i].queue;

		for (run = 1; i + run < nr && segs[i + run].queue == qid; run++)
			;
		post_queue(c, qid, segs + i, run);
		if (qid == first_q)
			continue;
		several = 1;
		if (c->nr_reapers)
			reap_later(c, qid);
	}
	stat_add(&c->stats.requests, nr);
	notify(c, several && !c->nr_reapers ? GPU_AES_ALL_QUEUES : first_q);
}

/* Wakes the core thread if it sleeps in reserve(); cheap when it does not. */
static void wake_core(struct gpu_aes_core *c)
{
	/* Pairs with the fence in reserve(): either it sees our change or we
	 * see its flag. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&c->waiting, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&c->lock);
	pthread_cond_broadcast(&c->freed);
	pthread_mutex_unlock(&c->lock);
}

static void batch_done(struct gpu_aes_batch *b)
{
	struct core_batch *cb = (struct core_batch *)b;
	struct gpu_aes_core *c = b->owner;
	uint64_t bytes = b->bytes;
	uint32_t nr = b->nr;
	/* Copied first: the reap in post() may let the core reuse segs. */

	post(c, b->segs, nr);
	stat_add(&c->stats.bytes, bytes);
	/* The batch may be reused as soon as busy drops. */
	__atomic_store_n(&cb->busy, 0, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&c->inflight_batches, 1, __ATOMIC_RELEASE);
	/* Reaping freed CQ room: wake the core after, not before. */
	wake_core(c);
}

/*
 * Room in queue @qid's CQ for entries not yet taken: every taken entry
 * will post a completion, so count those too (cq_reserved runs ahead of
 * cq_tail).  A producer that reports having reaped more than was posted
 * gets no room at all.
 */
static uint32_t cq_room(struct gpu_aes_core *c, uint32_t qid)
{
	struct core_queue *q = &c->q[qid];
	uint32_t head = load_acquire(&c->r->queues[qid].qhdr->cq_head);
	uint32_t pub = load_acquire(&q->cq_pub);
	uint32_t used = q->cq_reserved - head;

	if (pub - head > c->r->queue_entries || used > c->r->queue_entries)
		return 0;
	return c->r->queue_entries - used;
}

static struct core_batch *free_batch(struct gpu_aes_core *c)
{
	for (unsigned int i = 0; i < c->max_inflight; i++)
		if (!__atomic_load_n(&c->batches[i].busy, __ATOMIC_ACQUIRE))
			return &c->batches[i];
	return NULL;
}

/* Entries the producer published on queue @qid that the core has not taken. */
static uint32_t sq_pending_q(struct gpu_aes_core *c, uint32_t qid)
{
	uint32_t pending = load_acquire(&c->r->queues[qid].qhdr->sq_tail) -
			   c->q[qid].sq_head;

	/* Never read past what can be posted: clamp a bogus tail. */
	return pending > c->r->queue_entries ? c->r->queue_entries : pending;
}

static int sq_pending(struct gpu_aes_core *c)
{
	for (uint32_t i = 0; i < c->r->nr_queues; i++)
		if (sq_pending_q(c, i))
			return 1;
	return 0;
}

/* Gets a free batch.  Returns NULL when asked to stop first.  Core only. */
static struct core_batch *reserve(struct gpu_aes_core *c)
{
	for (;;) {
		struct core_batch *cb;

		if (stopping(c))
			return NULL;
		cb = free_batch(c);
		if (cb)
			return cb;
		/*
		 * Announce the sleep, then look again under the lock that
		 * done() takes to wake us: no lost wake-up.
		 */
		pthread_mutex_lock(&c->lock);
		__atomic_store_n(&c->waiting, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!stopping(c) && !free_batch(c))
			pthread_cond_wait(&c->freed, &c->lock);
		__atomic_store_n(&c->waiting, 0, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&c->lock);
	}
}

/*
 * How many entries ahead take_queue() asks for.  Each was just written by
 * its submitter's CPU, so each read misses to that CPU's cache, on the
 * core, the one thread every request passes.  Asked for ahead, the
 * misses overlap: taking a batch of 4 KiB requests on 16 threads cost
 * 0.036 us a request instead of 0.043 (H200 host, 943a666:bench-results/
 * 2026-12-01-core).
 */
#define SQE_PREFETCH 16

/*
 * Takes up to @want pending entries of queue @qid into @b (valid ones) and
 * @inv (invalid ones, completed with GPU_AES_STATUS_EINVAL), within the
 * queue's CQ room.  Returns how many it took.
 */
static uint32_t take_queue(struct gpu_aes_core *c, uint32_t qid,
			   struct gpu_aes_batch *b, uint32_t want,
			   uint32_t *nr_inv, uint32_t *algs)
{
	const struct gpu_aes_region_queue *rq = &c->r->queues[qid];
	struct core_queue *q = &c->q[qid];
	uint32_t pending = sq_pending_q(c, qid), room, n, i;

	if (!pending)
		return 0;
	room = cq_room(c, qid);
	n = pending < room ? pending : room;
	if (n > want)
		n = want;
	if (!n)
		return 0;
	q->cq_reserved += n;
	for (i = 0; i < n && i < SQE_PREFETCH; i++)
		__builtin_prefetch(&rq->sq[(q->sq_head + i) & c->mask]);
	for (i = 0; i < n; i++) {
		struct gpu_aes_sqe sqe;
		struct gpu_aes_segment *s = &b->segs[b->nr];

		if (i + SQE_PREFETCH < n)
			__builtin_prefetch(&rq->sq[(q->sq_head + i +
						    SQE_PREFETCH) & c->mask]);
		/* One read of the entry; everything below uses the copy. */
		memcpy(&sqe, &rq->sq[(q->sq_head + i) & c->mask], sizeof(sqe));
		if (gpu_aes_core_check_sqe(c->r, qid, &sqe, s) ==
		    GPU_AES_STATUS_OK) {
			uint64_t *n_alg = &c->stats.alg_requests[s->alg - 1];

			b->bytes += s->len;
			b->nr++;
			*algs |= GPU_AES_ALG_BIT(s->alg);
			/* The core thread is the one writer. */
			__atomic_store_n(n_alg, *n_alg + 1, __ATOMIC_RELAXED);
		} else {
			c->invalid[*nr_inv] = *s;
			c->invalid[(*nr_inv)++].status = GPU_AES_STATUS_EINVAL;
		}
	}
	q->sq_head += n;
	store_release(&rq->qhdr->sq_head, q->sq_head);
	return n;
}

/*
 * Takes every pending entry of every queue (up to max_batch), starting
 * from a different queue each time so none is always last.  Returns how
 * many; 0 when nothing was pending or the CQs were full.
 */
static uint32_t take_batch(struct gpu_aes_core *c)
{
	uint32_t nq = c->r->nr_queues, taken = 0, nr_inv = 0, algs = 0, i;
	int blocked = 0;
	struct core_batch *cb;
	struct gpu_aes_batch *b;

	if (!sq_pending(c))
		return 0;
	cb = reserve(c);
	if (!cb)
		return 0;
	b = &cb->b;
	b->nr = 0;
	b->bytes = 0;
	/* A region has at least one queue (gpu_aes_geometry_valid()). */
	for (i = 0; i < nq && taken < c->max_batch; i++) {
		uint32_t qid = (c->next_q + i) % nq;
		uint32_t n = take_queue(c, qid, b, c->max_batch - taken,
					&nr_inv, &algs);

		blocked |= !n && sq_pending_q(c, qid);
		taken += n;
	}
	c->next_q = nq ? (c->next_q + 1) % nq : 0;

	if (nr_inv) {
		post(c, c->invalid, nr_inv);
		stat_add(&c->stats.invalid, nr_inv);
	}
	if (b->nr) {
		__atomic_store_n(&cb->busy, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&c->inflight_batches, 1, __ATOMIC_RELAXED);
		stat_add(&c->stats.batches, 1);
		for (i = 1; i <= GPU_AES_ALG_MAX; i++)
			if (algs & GPU_AES_ALG_BIT(i))
				stat_add(&c->stats.alg_batches[i - 1], 1);
		c->ops->submit(c->be, b);
	}
	if (!taken && blocked &&
	    !__atomic_load_n(&c->inflight_batches, __ATOMIC_ACQUIRE)) {
		struct pollfd pfd = { .fd = c->stop_fd, .events = POLLIN };

		/*
		 * Nothing in flight yet a CQ is full: the producer has not
		 * reaped.  Ring it (the kernel reaps in that call), then back
		 * off briefly so a stuck producer costs no CPU.
		 */
		notify(c, GPU_AES_ALL_QUEUES);
		poll(&pfd, 1, 1);
	}
	return taken;
}

static int spin_for_work(struct gpu_aes_core *c)
{
	uint64_t start, now, deadline;
	int i, found = 0;

	if (!c->spin_us)
		return 0;
	start = now_ns();
	deadline = start + (uint64_t)c->spin_us * 1000;
	do {
		for (i = 0; i < 64; i++) {
			if (sq_pending(c)) {
				found = 1;
				goto out;
			}
			if (stopping(c))
				goto out;
			cpu_relax();
		}
		now = now_ns();
	} while (now < deadline);
out:
	c->spun_ns += now_ns() - start;
	return found;
}

static void set_flags(struct gpu_aes_core *c, uint32_t v)
{
	for (uint32_t i = 0; i < c->r->nr_queues; i++)
		__atomic_store_n(&c->r->queues[i].qhdr->helper_flags, v,
				 __ATOMIC_RELAXED);
}

/* The reapers finish the queues handed to them, then exit. */
static void reapers_stop(struct gpu_aes_core *c)
{
	unsigned int i;

	pthread_mutex_lock(&c->reap_lock);
	c->reap_stop = 1;
	pthread_cond_broadcast(&c->reap_cond);
	pthread_mutex_unlock(&c->reap_lock);
	for (i = 0; i < c->reapers_started; i++)
		pthread_join(c->reapers[i], NULL);
	c->reapers_started = 0;
}

/* How soon a core asleep with batches in flight looks again. */
#define IDLE_RECHECK_MS	10
/*
 * How soon a core asleep while the backend holds key copies looks again:
 * the kernel wipes a freed tfm's key table entry without a doorbell, so
 * this bounds how long an idle helper keeps a copy of a freed key.
 */
#define KEY_RECHECK_MS	100

/* A window of this many ns between published figures. */
#define PUBLISH_NS	50000000ULL

/*
 * Publishes what serving cost over the last window: CPU per KiB (all of
 * the helper's threads, the kernel's copy-out in its ioctls included) and
 * the rate it moved bytes at.  Windows that moved bytes add up until
 * they say what a KiB costs (cost_window.h); the others publish nothing.
 *
 * What the kernel's policy weighs is what a request adds, so what the
 * helper spends waiting is left out: the core's spinning for work (once
 * per wake-up, however many requests come), and the CPU it spends per
 * second with nothing to do at all (timers, idle wake-ups), learnt from
 * the windows that moved no bytes.  At a trickle of requests those would
 * read as thousands of ns per KiB that more requests would not cost.
 */
static void publish_cost(struct gpu_aes_core *c)
{
	struct gpu_aes_region_hdr *h = c->r->hdr;
	uint64_t now = now_ns(), cpu, bytes, kib, dt;
	uint32_t ns_per_kib, mib_per_s;

	if (!c->cpu_ns || now - c->pub_at < PUBLISH_NS)
		return;
	cpu = c->cpu_ns(c->cpu_arg);
	/* Wall time in spins: a preempted spin counts more than it cost. */
	cpu = cpu > c->spun_ns ? cpu - c->spun_ns : 0;
	if (cpu < c->pub_cpu)
		cpu = c->pub_cpu;
	bytes = __atomic_load_n(&c->stats.bytes, __ATOMIC_RELAXED);
	kib = (bytes - c->pub_bytes) >> 10;
	dt = now - c->pub_at;
	if (c->pub_at && !kib && bytes == c->pub_bytes) {
		double idle = (double)(cpu - c->pub_cpu) / (double)dt;

		c->idle_cpu_share = c->idle_cpu_share > 0 ?
				    (7 * c->idle_cpu_share + idle) / 8 : idle;
	} else if (c->pub_at && kib &&
		   gpu_aes_cost_add(&c->cost_acc, cpu - c->pub_cpu, dt,
				    bytes - c->pub_bytes, c->idle_cpu_share,
				    &ns_per_kib, &mib_per_s)) {
		__atomic_store_n(&h->helper_cpu_ns_per_kib, ns_per_kib,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&h->helper_mib_per_s, mib_per_s,
				 __ATOMIC_RELAXED);
		__atomic_add_fetch(&h->helper_report_seq, 1, __ATOMIC_RELEASE);
	}
	c->pub_at = now;
	c->pub_cpu = cpu;
	c->pub_bytes = bytes;
}

int gpu_aes_core_run(struct gpu_aes_core *c)
{
	while (!stopping(c)) {
		bool holds_keys = false;
		int err, timeout_ms;

		publish_cost(c);
		if (take_batch(c) || spin_for_work(c))
			continue;
		if (c->ops->idle &&
		    !__atomic_load_n(&c->inflight_batches, __ATOMIC_ACQUIRE))
			holds_keys = c->ops->idle(c->be);
		/*
		 * io_uring's SQPOLL handshake: announce the sleep, then look
		 * again.  The full barrier pairs with the producer's between
		 * publishing sq_tail and reading helper_flags, so either it
		 * sees the flag and wakes us, or we see its entry.
		 */
		set_flags(c, GPU_AES_HELPER_NEED_WAKEUP);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (sq_pending(c) || stopping(c)) {
			set_flags(c, 0);
			continue;
		}
		stat_add(&c->stats.sleeps, 1);
		/*
		 * With batches in flight, wake up soon anyway: their end does
		 * not ring the doorbell, and idle() (which wipes the copies of
		 * freed keys) runs only once none is.  While key copies are
		 * held, wake up now and then to let idle() find freed ones.
		 */
		timeout_ms = __atomic_load_n(&c->inflight_batches,
					     __ATOMIC_ACQUIRE) ? IDLE_RECHECK_MS :
			     holds_keys ? KEY_RECHECK_MS : -1;
		err = c->t->ops->wait(c->t, c->stop_fd, timeout_ms);
		set_flags(c, 0);
		if (err)
			set_error(c, err);
	}
	/* Every batch handed out gets its completions posted and notified. */
	c->ops->drain(c->be);
	while (__atomic_load_n(&c->inflight_batches, __ATOMIC_ACQUIRE))
		sched_yield();	/* drain() returned: only a contract breach */
	reapers_stop(c);
	return __atomic_load_n(&c->err, __ATOMIC_RELAXED);
}

void gpu_aes_core_stop(struct gpu_aes_core *c)
{
	uint64_t one = 1;
	ssize_t n;

	__atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
	/* Wakes a poll() in transport wait; a full counter is still readable. */
	n = write(c->stop_fd, &one, sizeof(one));
	(void)n;
	pthread_mutex_lock(&c->lock);
	pthread_cond_broadcast(&c->freed);
	pthread_mutex_unlock(&c->lock);
}

void gpu_aes_core_get_stats(struct gpu_aes_core *c,
			    struct gpu_aes_core_stats *s)
{
	const struct gpu_aes_core_stats *v = &c->stats;

	s->batches = __atomic_load_n(&v->batches, __ATOMIC_RELAXED);
	s->requests = __atomic_load_n(&v->requests, __ATOMIC_RELAXED);
	s->bytes = __atomic_load_n(&v->bytes, __ATOMIC_RELAXED);
	s->invalid = __atomic_load_n(&v->invalid, __ATOMIC_RELAXED);
	s->sleeps = __atomic_load_n(&v->sleeps, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < GPU_AES_ALG_MAX; i++) {
		s->alg_requests[i] = __atomic_load_n(&v->alg_requests[i],
						     __ATOMIC_RELAXED);
		s->alg_batches[i] = __atomic_load_n(&v->alg_batches[i],
						    __ATOMIC_RELAXED);
	}
}

void gpu_aes_core_destroy(struct gpu_aes_core *c)
{
	if (!c)
		return;
	reapers_stop(c);
	if (c->batches)
		for (unsigned int i = 0; i < c->max_inflight; i++)
			free(c->batches[i].b.segs);
	free(c->batches);
	free(c->reapers);
	free(c->reap_fifo);
	pthread_cond_destroy(&c->reap_cond);
	pthread_mutex_destroy(&c->reap_lock);
	free(c->invalid);
	free(c->q);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	pthread_cond_destroy(&c->freed);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/*
 * One reaper per further queue a batch may span, up to half the CPUs this
 * process may run on: copying results out is memory bound, and more
 * copiers than that only contend.
 */
static unsigned int auto_reapers(uint32_t nr_queues)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int n = nr_queues - 1, half = cpus > 1 ? (unsigned int)cpus / 2 : 0;

	return n < half ? n : half;
}

int gpu_aes_core_create(const struct gpu_aes_region *r,
			const struct gpu_aes_backend_ops *ops,
			struct gpu_aes_backend *be,
			struct gpu_aes_transport *t,
			const struct gpu_aes_core_config *cfg,
			struct gpu_aes_core **out)
{
	uint32_t all = r->nr_queues * r->queue_entries, i;
	struct gpu_aes_core *c;

	if (posix_memalign((void **)&c, CACHELINE, sizeof(*c)))
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->freed, NULL);
	pthread_mutex_init(&c->reap_lock, NULL);
	pthread_cond_init(&c->reap_cond, NULL);
	c->r = r;
	c->ops = ops;
	c->be = be;
	c->t = t;
	c->mask = r->queue_entries - 1;
	c->spin_us = cfg ? cfg->spin_us : 0;
	c->cpu_ns = cfg ? cfg->cpu_ns : NULL;
	c->cpu_arg = cfg ? cfg->cpu_arg : NULL;
	if (all > DEFAULT_MAX_BATCH)
		all = DEFAULT_MAX_BATCH;
	c->max_batch = cfg && cfg->max_batch && cfg->max_batch < all ?
		       cfg->max_batch : all;
	c->max_inflight = cfg && cfg->max_inflight ? cfg->max_inflight :
			  ops->max_batches ? ops->max_batches(be) :
			  DEFAULT_INFLIGHT;
	if (!c->max_inflight)
		c->max_inflight = 1;
	if (c->max_inflight > MAX_INFLIGHT)
		c->max_inflight = MAX_INFLIGHT;
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->invalid = calloc(c->max_batch, sizeof(*c->invalid));
	c->batches = calloc(c->max_inflight, sizeof(*c->batches));
	if (posix_memalign((void **)&c->q, CACHELINE,
			   r->nr_queues * sizeof(*c->q)))
		c->q = NULL;
	if (c->stop_fd < 0 || !c->invalid || !c->batches || !c->q)
		goto fail;
	memset(c->q, 0, r->nr_queues * sizeof(*c->q));
	/* Resume where each queue is (a fresh region starts at zero). */
	for (i = 0; i < r->nr_queues; i++) {
		c->q[i].sq_head = r->queues[i].qhdr->sq_head;
		c->q[i].cq_claim = r->queues[i].qhdr->cq_tail;
		c->q[i].cq_pub = c->q[i].cq_claim;
		c->q[i].cq_reserved = c->q[i].cq_claim;
	}
	for (i = 0; i < c->max_inflight; i++) {
		struct core_batch *cb = &c->batches[i];

		cb->b.segs = calloc(c->max_batch, sizeof(*cb->b.segs));
		if (!cb->b.segs)
			goto fail;
		cb->b.done = batch_done;
		cb->b.owner = c;
	}
	c->nr_reapers = cfg && cfg->reapers != GPU_AES_CORE_AUTO_REAPERS ?
			cfg->reapers : auto_reapers(r->nr_queues);
	c->reap_fifo = calloc(r->nr_queues, sizeof(*c->reap_fifo));
	c->reapers = calloc(c->nr_reapers ? c->nr_reapers : 1,
			    sizeof(*c->reapers));
	if (!c->reap_fifo || !c->reapers)
		goto fail;
	for (i = 0; i < c->nr_reapers; i++) {
		if (pthread_create(&c->reapers[i], NULL, reaper_main, c))
			goto fail;
		c->reapers_started++;
	}
	*out = c;
	return 0;
fail:
	gpu_aes_core_destroy(c);
	return -ENOMEM;
}
