// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <poll.h>
#include <pthread.h>
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
	struct core_batch *next_free;
};

struct gpu_aes_core {
	const struct gpu_aes_region *r;
	struct gpu_aes_region_hdr *hdr;
	const struct gpu_aes_backend_ops *ops;
	struct gpu_aes_backend *be;
	struct gpu_aes_transport *t;
	unsigned int spin_us;
	uint32_t max_batch;
	unsigned int max_inflight;
	uint32_t mask;

	int stop_fd;
	int stop;		/* atomic */
	int err;		/* atomic: first transport error */

	/* Core thread only. */
	uint32_t sq_head;
	struct gpu_aes_segment *invalid;	/* max_batch entries */

	/* Completion side, shared with the backend's threads. */
	pthread_mutex_t lock;
	pthread_cond_t freed;		/* a batch finished */
	uint32_t cq_tail;
	uint32_t inflight_segs;		/* taken, completion not yet posted */
	unsigned int inflight_batches;
	struct core_batch *batches;
	struct core_batch *free_list;
	struct gpu_aes_core_stats stats;
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

int32_t gpu_aes_core_check_sqe(const struct gpu_aes_region *r,
			       const struct gpu_aes_sqe *sqe,
			       struct gpu_aes_segment *seg)
{
	const struct gpu_aes_key *k;
	uint32_t key_len, rounds;

	seg->tag = sqe->tag;
	seg->seq = sqe->seq;
	seg->alg = sqe->alg;
	seg->dir = sqe->dir;
	seg->key_slot = sqe->key_slot;
	seg->key_gen = sqe->key_gen;
	seg->data_off = sqe->data_off;
	seg->len = sqe->len;
	memcpy(seg->iv, sqe->iv, sizeof(seg->iv));
	seg->status = GPU_AES_STATUS_EIO;

	if (seg->alg != GPU_AES_ALG_ECB && seg->alg != GPU_AES_ALG_CTR)
		return GPU_AES_STATUS_EINVAL;
	if (seg->dir != GPU_AES_DIR_ENCRYPT && seg->dir != GPU_AES_DIR_DECRYPT)
		return GPU_AES_STATUS_EINVAL;
	if (seg->key_slot >= r->nr_keys)
		return GPU_AES_STATUS_EINVAL;
	k = &r->keys[seg->key_slot];
	key_len = __atomic_load_n(&k->key_len, __ATOMIC_RELAXED);
	rounds = __atomic_load_n(&k->rounds, __ATOMIC_RELAXED);
	if ((key_len != 16 && key_len != 24 && key_len != 32) ||
	    rounds != key_len / 4 + 6)
		return GPU_AES_STATUS_EINVAL;
	/* A rewritten slot holds another key than the request was made with. */
	if (__atomic_load_n(&k->gen, __ATOMIC_RELAXED) != seg->key_gen)
		return GPU_AES_STATUS_EINVAL;
	if (seg->data_off > r->data_size ||
	    seg->len > r->data_size - seg->data_off)
		return GPU_AES_STATUS_EINVAL;
	/* Backends load 16-byte blocks; the kernel aligns to 64. */
	if (seg->data_off % 16)
		return GPU_AES_STATUS_EINVAL;
	if (seg->alg == GPU_AES_ALG_ECB && seg->len % 16)
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

/* Writes completions in the order given; called with c->lock held. */
static void post_locked(struct gpu_aes_core *c,
			const struct gpu_aes_segment *segs, uint32_t nr)
{
	uint32_t i, tail = c->cq_tail;

	for (i = 0; i < nr; i++, tail++) {
		struct gpu_aes_cqe *e = &c->r->cq[tail & c->mask];

		e->tag = segs[i].tag;
		e->seq = segs[i].seq;
		e->status = segs[i].status;
		e->reserved = 0;
	}
	c->cq_tail = tail;
	store_release(&c->hdr->cq_tail, tail);
	c->inflight_segs -= nr;
	c->stats.requests += nr;
}

static void batch_done(struct gpu_aes_batch *b)
{
	struct core_batch *cb = (struct core_batch *)b;
	struct gpu_aes_core *c = b->owner;

	pthread_mutex_lock(&c->lock);
	post_locked(c, b->segs, b->nr);
	c->stats.bytes += b->bytes;
	c->inflight_batches--;
	cb->next_free = c->free_list;
	c->free_list = cb;
	pthread_cond_broadcast(&c->freed);
	pthread_mutex_unlock(&c->lock);
	notify(c);
}

/*
 * Room in the CQ for entries not yet taken: every taken entry will post a
 * completion, so count those too.  A producer that reports having reaped
 * more than was posted gets no room at all.
 */
static uint32_t cq_room_locked(struct gpu_aes_core *c)
{
	uint32_t used = c->cq_tail - load_acquire(&c->hdr->cq_head);

	if (used > c->r->nr_entries ||
	    c->inflight_segs > c->r->nr_entries - used)
		return 0;
	return c->r->nr_entries - used - c->inflight_segs;
}

/*
 * Gets a free batch and CQ room for at least one entry.  Returns NULL when
 * asked to stop first.  Called and returns with c->lock held.
 */
static struct core_batch *reserve_locked(struct gpu_aes_core *c,
					 uint32_t *room)
{
	for (;;) {
		struct pollfd pfd = { .fd = c->stop_fd, .events = POLLIN };

		if (stopping(c))
			return NULL;
		*room = cq_room_locked(c);
		if (c->free_list && *room)
			break;
		if (c->inflight_batches) {
			pthread_cond_wait(&c->freed, &c->lock);
			continue;
		}
		/*
		 * Nothing in flight yet the CQ is full: the producer has not
		 * reaped.  Ring it (the kernel reaps in that call), then
		 * back off briefly so a stuck producer costs no CPU.
		 */
		pthread_mutex_unlock(&c->lock);
		notify(c);
		pthread_mutex_lock(&c->lock);
		if (cq_room_locked(c))
			continue;
		pthread_mutex_unlock(&c->lock);
		poll(&pfd, 1, 1);
		pthread_mutex_lock(&c->lock);
	}
	return c->free_list;
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

	pthread_mutex_lock(&c->lock);
	cb = reserve_locked(c, &room);
	if (!cb) {
		pthread_mutex_unlock(&c->lock);
		return 0;
	}
	c->free_list = cb->next_free;
	c->inflight_batches++;
	n = pending < room ? pending : room;
	if (n > c->max_batch)
		n = c->max_batch;
	c->inflight_segs += n;
	pthread_mutex_unlock(&c->lock);

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

	if (nr_invalid || !b->nr) {
		pthread_mutex_lock(&c->lock);
		post_locked(c, c->invalid, nr_invalid);
		c->stats.invalid += nr_invalid;
		if (!b->nr) {
			c->inflight_batches--;
			cb->next_free = c->free_list;
			c->free_list = cb;
		}
		pthread_mutex_unlock(&c->lock);
		notify(c);
	}
	if (b->nr) {
		pthread_mutex_lock(&c->lock);
		c->stats.batches++;
		pthread_mutex_unlock(&c->lock);
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
		if (c->ops->idle) {
			int idle;

			pthread_mutex_lock(&c->lock);
			idle = !c->inflight_batches;
			pthread_mutex_unlock(&c->lock);
			if (idle)
				c->ops->idle(c->be);
		}
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
		pthread_mutex_lock(&c->lock);
		c->stats.sleeps++;
		pthread_mutex_unlock(&c->lock);
		err = c->t->ops->wait(c->t, c->stop_fd);
		set_flags(c, 0);
		if (err)
			set_error(c, err);
	}
	/* Every batch handed out gets its completions posted and notified. */
	c->ops->drain(c->be);
	pthread_mutex_lock(&c->lock);
	while (c->inflight_batches)
		pthread_cond_wait(&c->freed, &c->lock);
	pthread_mutex_unlock(&c->lock);
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
	pthread_mutex_lock(&c->lock);
	*s = c->stats;
	pthread_mutex_unlock(&c->lock);
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

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
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
	c->cq_tail = r->hdr->cq_tail;
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
		cb->next_free = c->free_list;
		c->free_list = cb;
	}
	*out = c;
	return 0;
fail:
	gpu_aes_core_destroy(c);
	return -ENOMEM;
}
