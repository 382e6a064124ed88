// SPDX-License-Identifier: GPL-2.0-only
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
#include "log.h"

#define DEFAULT_INFLIGHT	4U

struct core_batch {
	struct gpu_aes_batch b;
	int busy;		/* atomic: handed to the backend */
};

#define CACHELINE	64

/* Padding is deliberate: each side's hot fields on their own cache line. */
struct gpu_aes_core { /* NOLINT(clang-analyzer-optin.performance.Padding) */
	const struct gpu_aes_region *r;
	struct gpu_aes_region_hdr *hdr;
	const struct gpu_aes_backend_ops *ops;
	struct gpu_aes_backend *be;
	struct gpu_aes_transport *t;
	unsigned int spin_us;
	uint32_t max_batch;
	unsigned int max_inflight;
	uint32_t mask;
	struct core_batch *batches;

	int stop_fd;
	int stop;		/* atomic */
	int err;		/* atomic: first transport error */

	/* Core thread only. */
	uint32_t sq_head;
	uint32_t cq_reserved;	/* CQ positions promised to taken entries */
	struct gpu_aes_segment *invalid;	/* max_batch entries */

	/*
	 * Completion side.  Any number of threads post at once: each claims
	 * its CQ positions with one fetch-add on cq_claim, writes them, then
	 * publishes cq_tail in claim order (cq_pub), so the producer never
	 * sees an entry that is not written yet.  Nothing is locked there.
	 */
	uint32_t cq_claim __attribute__((aligned(CACHELINE)));	/* atomic */
	uint32_t cq_pub __attribute__((aligned(CACHELINE)));	/* atomic */
	unsigned int inflight_batches __attribute__((aligned(CACHELINE)));

	/*
	 * The core thread sleeps here only when every batch is in flight or
	 * the CQ is full; done() takes the lock only when it sees waiting.
	 */
	pthread_mutex_t lock __attribute__((aligned(CACHELINE)));
	pthread_cond_t freed;
	int waiting;		/* atomic */

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

/* crypto_gcm_check_authsize(): what gcm(aes) accepts as a tag length. */
static int gcm_auth_len_ok(uint32_t n)
{
	return n == 4 || n == 8 || (n >= 12 && n <= 16);
}

static int all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	while (n--)
		acc |= *p++;
	return !acc;
}

/* The fields that depend on the algorithm; the rest are common. */
static int alg_fields_ok(const struct gpu_aes_sqe *sqe)
{
	switch (sqe->alg) {
	case GPU_AES_ALG_ECB:
		return sqe->len % 16 == 0 && !sqe->aad_len && !sqe->auth_len;
	case GPU_AES_ALG_CTR:
		return !sqe->aad_len && !sqe->auth_len;
	case GPU_AES_ALG_XTS:
		/* Ciphertext stealing needs one whole block to steal from. */
		return sqe->len >= 16 && !sqe->aad_len && !sqe->auth_len;
	case GPU_AES_ALG_GCM:
		/* A 96-bit IV only: J0 = IV || 0^31 || 1 is built here. */
		return gcm_auth_len_ok(sqe->auth_len) &&
		       all_zero(sqe->iv + 12, 4);
	default:
		return 0;
	}
}

int32_t gpu_aes_core_check_sqe(const struct gpu_aes_region *r,
			       const struct gpu_aes_sqe *sqe,
			       struct gpu_aes_segment *seg)
{
	const struct gpu_aes_key *k;
	uint32_t key_len, rounds, tweak_len;
	uint64_t span;

	seg->tag = sqe->tag;
	seg->seq = sqe->seq;
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

	if (!alg_fields_ok(sqe))
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
	rounds = __atomic_load_n(&k->rounds, __ATOMIC_RELAXED);
	tweak_len = __atomic_load_n(&k->tweak_len, __ATOMIC_RELAXED);
	if ((key_len != 16 && key_len != 24 && key_len != 32) ||
	    rounds != key_len / 4 + 6)
		return GPU_AES_STATUS_EINVAL;
	/* An XTS request on a one-key entry would run with a zero tweak key. */
	if (tweak_len != (seg->alg == GPU_AES_ALG_XTS ? key_len : 0))
		return GPU_AES_STATUS_EINVAL;
	/* A rewritten slot holds another key than the request was made with. */
	if (__atomic_load_n(&k->gen, __ATOMIC_RELAXED) != seg->key_gen)
		return GPU_AES_STATUS_EINVAL;
	/* From 32-bit lengths: the span itself cannot overflow 64 bits. */
	span = gpu_aes_sqe_span(seg->alg, seg->len, seg->aad_len);
	if (seg->data_off > r->data_size || span > r->data_size - seg->data_off)
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

static void notify(struct gpu_aes_core *c)
{
	int err = c->t->ops->notify(c->t);

	if (err)
		set_error(c, err);
}

static void stat_add(uint64_t *v, uint64_t n)
{
	__atomic_add_fetch(v, n, __ATOMIC_RELAXED);
}

/*
 * Writes completions in the order given at positions claimed for them, and
 * publishes cq_tail once every earlier claimer has published: a later
 * claimer never exposes an earlier claimer's unwritten entries.  The wait
 * covers only another thread's few stores between its claim and its
 * publish; yield in case that thread was preempted there.
 */
static void post(struct gpu_aes_core *c, const struct gpu_aes_segment *segs,
		 uint32_t nr)
{
	uint32_t i, start, tail;
	unsigned int spins = 0;

	if (!nr)
		return;
	/*
	 * acq_rel: positions are claimed in completion order, not in the order
	 * room was reserved, so our positions may have been freed by a reap the
	 * core saw only before a later batch; that batch's claim (earlier in
	 * cq_claim's order) carries the ordering to us.
	 */
	start = __atomic_fetch_add(&c->cq_claim, nr, __ATOMIC_ACQ_REL);
	for (i = 0, tail = start; i < nr; i++, tail++) {
		struct gpu_aes_cqe *e = &c->r->cq[tail & c->mask];

		e->tag = segs[i].tag;
		e->seq = segs[i].seq;
		e->status = segs[i].status;
		e->reserved = 0;
	}
	while (__atomic_load_n(&c->cq_pub, __ATOMIC_ACQUIRE) != start) {
		if (++spins < 256)
			cpu_relax();
		else
			sched_yield();
	}
	store_release(&c->hdr->cq_tail, tail);
	store_release(&c->cq_pub, tail);
	stat_add(&c->stats.requests, nr);
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

	post(c, b->segs, b->nr);
	stat_add(&c->stats.bytes, b->bytes);
	/* The batch may be reused as soon as busy drops. */
	__atomic_store_n(&cb->busy, 0, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&c->inflight_batches, 1, __ATOMIC_RELEASE);
	/* Reaping frees CQ room: wake the core after, not before. */
	notify(c);
	wake_core(c);
}

/*
 * Room in the CQ for entries not yet taken: every taken entry will post a
 * completion, so count those too (cq_reserved runs ahead of cq_tail).  A
 * producer that reports having reaped more than was posted gets no room
 * at all.
 */
static uint32_t cq_room(struct gpu_aes_core *c)
{
	uint32_t head = load_acquire(&c->hdr->cq_head);
	uint32_t pub = load_acquire(&c->cq_pub);
	uint32_t used = c->cq_reserved - head;

	if (pub - head > c->r->nr_entries || used > c->r->nr_entries)
		return 0;
	return c->r->nr_entries - used;
}

static struct core_batch *free_batch(struct gpu_aes_core *c)
{
	for (unsigned int i = 0; i < c->max_inflight; i++)
		if (!__atomic_load_n(&c->batches[i].busy, __ATOMIC_ACQUIRE))
			return &c->batches[i];
	return NULL;
}

/*
 * Gets a free batch and CQ room for at least one entry.  Returns NULL when
 * asked to stop first.  Core thread only.
 */
static struct core_batch *reserve(struct gpu_aes_core *c, uint32_t *room)
{
	for (;;) {
		struct pollfd pfd = { .fd = c->stop_fd, .events = POLLIN };
		struct core_batch *cb;

		if (stopping(c))
			return NULL;
		*room = cq_room(c);
		cb = free_batch(c);
		if (cb && *room)
			return cb;
		if (__atomic_load_n(&c->inflight_batches, __ATOMIC_ACQUIRE)) {
			/*
			 * Announce the sleep, then look again under the lock
			 * that done() takes to wake us: no lost wake-up.
			 */
			pthread_mutex_lock(&c->lock);
			__atomic_store_n(&c->waiting, 1, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			if (!stopping(c) &&
			    __atomic_load_n(&c->inflight_batches,
					    __ATOMIC_ACQUIRE) &&
			    !(free_batch(c) && cq_room(c)))
				pthread_cond_wait(&c->freed, &c->lock);
			__atomic_store_n(&c->waiting, 0, __ATOMIC_RELAXED);
			pthread_mutex_unlock(&c->lock);
			continue;
		}
		/*
		 * Nothing in flight yet the CQ is full: the producer has not
		 * reaped.  Ring it (the kernel reaps in that call), then
		 * back off briefly so a stuck producer costs no CPU.
		 */
		notify(c);
		if (cq_room(c))
			continue;
		poll(&pfd, 1, 1);
	}
}

/* Takes every pending entry (up to max_batch); returns how many. */
static uint32_t take_batch(struct gpu_aes_core *c)
{
	uint32_t pending, room, n, i, nr_invalid = 0;
	struct core_batch *cb;
	struct gpu_aes_batch *b;

	pending = load_acquire(&c->hdr->sq_tail) - c->sq_head;
	if (!pending)
		return 0;
	/* Never read past what can be posted: clamp a bogus tail. */
	if (pending > c->r->nr_entries)
		pending = c->r->nr_entries;

	cb = reserve(c, &room);
	if (!cb)
		return 0;
	n = pending < room ? pending : room;
	if (n > c->max_batch)
		n = c->max_batch;
	c->cq_reserved += n;

	b = &cb->b;
	b->nr = 0;
	b->bytes = 0;
	for (i = 0; i < n; i++) {
		struct gpu_aes_sqe sqe;
		struct gpu_aes_segment *s = &b->segs[b->nr];

		/* One read of the entry; everything below uses the copy. */
		memcpy(&sqe, &c->r->sq[(c->sq_head + i) & c->mask], sizeof(sqe));
		if (gpu_aes_core_check_sqe(c->r, &sqe, s) == GPU_AES_STATUS_OK) {
			b->bytes += s->len;
			b->nr++;
		} else {
			c->invalid[nr_invalid] = *s;
			c->invalid[nr_invalid++].status = GPU_AES_STATUS_EINVAL;
		}
	}
	c->sq_head += n;
	store_release(&c->hdr->sq_head, c->sq_head);

	if (nr_invalid) {
		post(c, c->invalid, nr_invalid);
		stat_add(&c->stats.invalid, nr_invalid);
		notify(c);
	}
	if (b->nr) {
		__atomic_store_n(&cb->busy, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&c->inflight_batches, 1, __ATOMIC_RELAXED);
		stat_add(&c->stats.batches, 1);
		c->ops->submit(c->be, b);
	}
	return n;
}

static int sq_pending(struct gpu_aes_core *c)
{
	return load_acquire(&c->hdr->sq_tail) != c->sq_head;
}

static int spin_for_work(struct gpu_aes_core *c)
{
	uint64_t deadline;
	int i;

	if (!c->spin_us)
		return 0;
	deadline = now_ns() + (uint64_t)c->spin_us * 1000;
	do {
		for (i = 0; i < 64; i++) {
			if (sq_pending(c))
				return 1;
			if (stopping(c))
				return 0;
			cpu_relax();
		}
	} while (now_ns() < deadline);
	return 0;
}

static void set_flags(struct gpu_aes_core *c, uint32_t v)
{
	__atomic_store_n(&c->hdr->helper_flags, v, __ATOMIC_RELAXED);
}

int gpu_aes_core_run(struct gpu_aes_core *c)
{
	while (!stopping(c)) {
		int err;

		if (take_batch(c) || spin_for_work(c))
			continue;
		if (c->ops->idle &&
		    !__atomic_load_n(&c->inflight_batches, __ATOMIC_ACQUIRE))
			c->ops->idle(c->be);
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
		err = c->t->ops->wait(c->t, c->stop_fd);
		set_flags(c, 0);
		if (err)
			set_error(c, err);
	}
	/* Every batch handed out gets its completions posted and notified. */
	c->ops->drain(c->be);
	while (__atomic_load_n(&c->inflight_batches, __ATOMIC_ACQUIRE))
		sched_yield();	/* drain() returned: only a contract breach */
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
}

void gpu_aes_core_destroy(struct gpu_aes_core *c)
{
	if (!c)
		return;
	if (c->batches)
		for (unsigned int i = 0; i < c->max_inflight; i++)
			free(c->batches[i].b.segs);
	free(c->batches);
	free(c->invalid);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	pthread_cond_destroy(&c->freed);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int gpu_aes_core_create(const struct gpu_aes_region *r,
			const struct gpu_aes_backend_ops *ops,
			struct gpu_aes_backend *be,
			struct gpu_aes_transport *t,
			const struct gpu_aes_core_config *cfg,
			struct gpu_aes_core **out)
{
	struct gpu_aes_core *c;
	unsigned int i;

	if (posix_memalign((void **)&c, CACHELINE, sizeof(*c)))
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->freed, NULL);
	c->r = r;
	c->hdr = r->hdr;
	c->ops = ops;
	c->be = be;
	c->t = t;
	c->mask = r->nr_entries - 1;
	c->spin_us = cfg ? cfg->spin_us : 0;
	c->max_batch = cfg && cfg->max_batch && cfg->max_batch < r->nr_entries ?
		       cfg->max_batch : r->nr_entries;
	c->max_inflight = cfg && cfg->max_inflight ? cfg->max_inflight :
			  DEFAULT_INFLIGHT;
	/* Resume where the ring is (a fresh region starts at zero). */
	c->sq_head = r->hdr->sq_head;
	c->cq_claim = r->hdr->cq_tail;
	c->cq_pub = c->cq_claim;
	c->cq_reserved = c->cq_claim;
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->invalid = calloc(c->max_batch, sizeof(*c->invalid));
	c->batches = calloc(c->max_inflight, sizeof(*c->batches));
	if (c->stop_fd < 0 || !c->invalid || !c->batches)
		goto fail;
	for (i = 0; i < c->max_inflight; i++) {
		struct core_batch *cb = &c->batches[i];

		cb->b.segs = calloc(c->max_batch, sizeof(*cb->b.segs));
		if (!cb->b.segs)
			goto fail;
		cb->b.done = batch_done;
		cb->b.owner = c;
	}
	*out = c;
	return 0;
fail:
	gpu_aes_core_destroy(c);
	return -ENOMEM;
}
