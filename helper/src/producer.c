// SPDX-License-Identifier: GPL-2.0-only
/*
 * producer.c - the kernel's side of the rings, in process (see
 * include/gpu_aes_producer.h).  Mirrors gpu_aes.ko: tags with sequence
 * numbers, a byte-ring data allocator, NEED_WAKEUP-gated doorbells, and
 * completions validated before they are followed.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../include/gpu_aes_producer.h"
#include "aes_key.h"
#include "core.h"
#include "log.h"
#include "region.h"
#include "transport.h"

enum tag_state { TAG_FREE, TAG_RESERVED, TAG_POSTED, TAG_REAPING };

#define CACHELINE	64
/* CQEs one reaper claims at a time (the kernel's chunk per lock hold). */
#define REAP_CHUNK	32

/*
 * A tag's sequence number and state share one word: a reaper moves
 * POSTED -> REAPING with one compare-and-swap of (seq, POSTED), so two
 * reapers holding duplicate completions cannot both win, and a stale one
 * cannot win against a reused tag.  Every other transition runs under
 * p->lock.
 */
#define SW(seq, state)	((uint64_t)(seq) << 32 | (state))
#define SW_SEQ(sw)	((uint32_t)((sw) >> 32))
#define SW_STATE(sw)	((uint32_t)(sw))

struct ptag {
	uint64_t sw;		/* atomic: SW(seq, state) */
	uint32_t fifo_pos;	/* its entry in the data fifo */
	uint32_t len;
	uint64_t data_off;
	void *dst;
	gpu_aes_producer_cb cb;
	void *cookie;
};

/* Data area runs in reservation order; released from the oldest. */
struct fifo_ent {
	uint64_t end;		/* ring position after this run */
	int done;
};

/* Padding is deliberate: submit and reap sides on their own cache lines. */
struct gpu_aes_producer { /* NOLINT(clang-analyzer-optin.performance.Padding) */
	struct gpu_aes_region r;
	const struct gpu_aes_backend_ops *ops;
	struct gpu_aes_backend *be;
	struct gpu_aes_transport *t;
	struct gpu_aes_core *core;
	pthread_t core_thread;
	int core_started;
	int doorbell;
	uint32_t mask;
	struct ptag *tags;
	uint32_t *key_gen;		/* per slot, never reused; under lock */

	/* Submission side and tag/data allocation. */
	pthread_mutex_t lock __attribute__((aligned(CACHELINE)));
	pthread_cond_t room;		/* tags released, when waiters */
	unsigned int waiters;		/* threads in cond_wait(room) */
	uint32_t *free_tags;
	uint32_t nr_free;
	uint32_t nr_posted;
	struct fifo_ent *fifo;
	uint32_t fifo_head, fifo_tail;
	uint64_t data_head, data_tail;	/* free-running ring positions */
	uint32_t sq_tail;
	struct gpu_aes_producer_stats st;	/* completed/rejected unused */

	/*
	 * Completion side, as GPU_AES_IOC_COMPLETE: any number of reapers;
	 * each claims a chunk of CQEs under cq_lock, then validates, copies
	 * out and calls back outside it.
	 */
	pthread_mutex_t cq_lock __attribute__((aligned(CACHELINE)));
	uint32_t cq_head;

	uint64_t completed __attribute__((aligned(CACHELINE)));	/* atomic */
	uint64_t rejected;					/* atomic */
};

static uint64_t align64(uint64_t v)
{
	return (v + GPU_AES_DATA_ALIGN - 1) & ~(uint64_t)(GPU_AES_DATA_ALIGN - 1);
}

static int reserve_locked(struct gpu_aes_producer *p, uint32_t len,
			  struct gpu_aes_producer_buf *buf)
{
	uint64_t size = p->r.data_size, alen = align64(len), off, skip, start;
	struct ptag *t;
	uint32_t tag;

	if (alen > size)
		return -EINVAL;
	if (!p->nr_free || p->fifo_tail - p->fifo_head == p->r.nr_entries) {
		p->st.eagain++;
		return -EAGAIN;
	}
	off = p->data_head % size;
	/* An empty ring restarts at offset 0, so any len <= size fits. */
	if (p->data_head == p->data_tail && off + alen > size) {
		p->data_head += size - off;
		p->data_tail = p->data_head;
		off = 0;
	}
	/* A request never wraps: skip the tail end of the area instead. */
	skip = off + alen > size ? size - off : 0;
	if (p->data_head - p->data_tail + skip + alen > size) {
		p->st.eagain++;
		return -EAGAIN;
	}
	start = p->data_head + skip;
	p->data_head = start + alen;

	tag = p->free_tags[--p->nr_free];
	t = &p->tags[tag];
	__atomic_store_n(&t->sw,
			 SW(SW_SEQ(__atomic_load_n(&t->sw, __ATOMIC_RELAXED)),
			    TAG_RESERVED), __ATOMIC_RELAXED);
	t->len = len;
	t->data_off = start % size;
	t->fifo_pos = p->fifo_tail;
	p->fifo[p->fifo_tail & p->mask].end = p->data_head;
	p->fifo[p->fifo_tail & p->mask].done = 0;
	p->fifo_tail++;

	buf->tag = tag;
	buf->len = len;
	buf->data_off = t->data_off;
	buf->data = p->r.data + t->data_off;
	return 0;
}

/* Only for tags in RESERVED or REAPING, which no other thread moves. */
static void release_locked(struct gpu_aes_producer *p, uint32_t tag)
{
	struct ptag *t = &p->tags[tag];
	uint64_t sw = __atomic_load_n(&t->sw, __ATOMIC_RELAXED);

	p->fifo[t->fifo_pos & p->mask].done = 1;
	while (p->fifo_head != p->fifo_tail &&
	       p->fifo[p->fifo_head & p->mask].done) {
		p->data_tail = p->fifo[p->fifo_head & p->mask].end;
		p->fifo_head++;
	}
	if (SW_STATE(sw) == TAG_REAPING)
		p->nr_posted--;
	t->dst = NULL;
	t->cb = NULL;
	t->cookie = NULL;
	/* A late completion for the old use of this tag will not match. */
	__atomic_store_n(&t->sw, SW(SW_SEQ(sw) + 1, TAG_FREE),
			 __ATOMIC_RELAXED);
	p->free_tags[p->nr_free++] = tag;
}

/* One wake-up per release batch, and none when nobody waits. */
static void wake_room_locked(struct gpu_aes_producer *p)
{
	if (p->waiters)
		pthread_cond_broadcast(&p->room);
}

static void wait_room_locked(struct gpu_aes_producer *p)
{
	p->waiters++;
	pthread_cond_wait(&p->room, &p->lock);
	p->waiters--;
}

static int valid_buf_locked(struct gpu_aes_producer *p,
			    const struct gpu_aes_producer_buf *buf)
{
	return buf->tag < p->r.nr_entries &&
	       SW_STATE(__atomic_load_n(&p->tags[buf->tag].sw,
					__ATOMIC_RELAXED)) == TAG_RESERVED;
}

/*
 * Publishes one entry and decides on a wake-up, exactly like the kernel:
 * release store of sq_tail, full barrier, then NEED_WAKEUP.  Returns with
 * the lock dropped.
 */
static void post_locked(struct gpu_aes_producer *p, uint32_t tag,
			const struct gpu_aes_sqe *sqe, void *dst,
			gpu_aes_producer_cb cb, void *cookie)
{
	struct gpu_aes_sqe *e = &p->r.sq[p->sq_tail & p->mask];
	struct ptag *t = &p->tags[tag];
	uint64_t one = 1;
	int wake;

	*e = *sqe;
	e->tag = tag;
	e->seq = SW_SEQ(__atomic_load_n(&t->sw, __ATOMIC_RELAXED));
	t->dst = dst;
	t->cb = cb;
	t->cookie = cookie;
	/* Release: a reaper that wins the tag sees dst, cb and cookie. */
	__atomic_store_n(&t->sw, SW(e->seq, TAG_POSTED), __ATOMIC_RELEASE);
	p->nr_posted++;
	p->st.submitted++;
	p->sq_tail++;
	__atomic_store_n(&p->r.hdr->sq_tail, p->sq_tail, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	wake = (__atomic_load_n(&p->r.hdr->helper_flags, __ATOMIC_RELAXED) &
		GPU_AES_HELPER_NEED_WAKEUP) != 0;
	if (wake)
		p->st.wakeups++;
	pthread_mutex_unlock(&p->lock);
	if (wake && write(p->doorbell, &one, sizeof(one)) < 0)
		log_err("in-process doorbell: %s", strerror(errno));
}

static void fill_sqe(struct gpu_aes_producer *p, const struct ptag *t,
		     unsigned int alg, unsigned int dir, unsigned int key_slot,
		     const uint8_t *iv, struct gpu_aes_sqe *sqe)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->alg = (uint8_t)alg;
	sqe->dir = (uint8_t)dir;
	sqe->key_slot = (uint16_t)key_slot;
	sqe->key_gen = key_slot < p->r.nr_keys ? p->r.keys[key_slot].gen : 0;
	sqe->data_off = t->data_off;
	sqe->len = t->len;
	if (iv)
		memcpy(sqe->iv, iv, sizeof(sqe->iv));
}

static int valid_status(int32_t st)
{
	return st == GPU_AES_STATUS_OK || st == GPU_AES_STATUS_EIO ||
	       st == GPU_AES_STATUS_EINVAL;
}

/*
 * Claims up to REAP_CHUNK completions: copies them (one read of each
 * entry) and hands the CQ space back.  Returns how many; *bad is set for
 * a tail that is not within one ring of cq_head.
 */
static uint32_t claim_chunk(struct gpu_aes_producer *p,
			    struct gpu_aes_cqe *ents, int *bad)
{
	uint32_t tail, n, i;

	pthread_mutex_lock(&p->cq_lock);
	tail = __atomic_load_n(&p->r.hdr->cq_tail, __ATOMIC_ACQUIRE);
	n = tail - p->cq_head;
	if (n > p->r.nr_entries) {
		*bad = 1;
		n = 0;
	}
	if (n > REAP_CHUNK)
		n = REAP_CHUNK;
	for (i = 0; i < n; i++)
		ents[i] = p->r.cq[(p->cq_head + i) & p->mask];
	p->cq_head += n;
	__atomic_store_n(&p->r.hdr->cq_head, p->cq_head, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&p->cq_lock);
	return n;
}

/*
 * Called by the core (from any thread, several at once) after it posted
 * completions, where the kernel is entered with GPU_AES_IOC_COMPLETE.
 */
static int reap(void *arg)
{
	struct gpu_aes_producer *p = arg;
	struct gpu_aes_cqe ents[REAP_CHUNK];
	uint32_t tags[REAP_CHUNK];
	uint32_t n, i, k;
	int bad = 0;

	while ((n = claim_chunk(p, ents, &bad)) != 0) {
		uint32_t rejected = 0;

		for (i = 0, k = 0; i < n; i++) {
			const struct gpu_aes_cqe *e = &ents[i];
			uint64_t want = SW(e->seq, TAG_POSTED);

			/* Exactly once: only one reaper moves POSTED on. */
			if (e->tag >= p->r.nr_entries || !valid_status(e->status) ||
			    !__atomic_compare_exchange_n(
				    &p->tags[e->tag].sw, &want,
				    SW(e->seq, TAG_REAPING), 0,
				    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				rejected++;
				continue;
			}
			ents[k].tag = e->tag;
			ents[k++].status = e->status;
		}
		if (rejected)
			__atomic_add_fetch(&p->rejected, rejected,
					   __ATOMIC_RELAXED);
		/* Counted before the callbacks, so a woken waiter sees its own. */
		__atomic_add_fetch(&p->completed, k, __ATOMIC_RELAXED);

		/* REAPING tags are this thread's alone: no lock for copy-out. */
		for (i = 0; i < k; i++) {
			struct ptag *t = &p->tags[ents[i].tag];

			if (t->dst && ents[i].status == GPU_AES_STATUS_OK)
				memcpy(t->dst, p->r.data + t->data_off, t->len);
			if (t->cb)
				t->cb(t->cookie, ents[i].status);
			tags[i] = ents[i].tag;
		}

		pthread_mutex_lock(&p->lock);
		for (i = 0; i < k; i++)
			release_locked(p, tags[i]);
		if (k)
			wake_room_locked(p);
		pthread_mutex_unlock(&p->lock);
	}
	/* Garbage tail: nothing taken, counted once per call. */
	if (bad)
		__atomic_add_fetch(&p->rejected, 1, __ATOMIC_RELAXED);
	return 0;
}

static void *core_main(void *arg)
{
	struct gpu_aes_producer *p = arg;
	int err = gpu_aes_core_run(p->core);

	if (err)
		log_err("in-process helper core stopped: %s", strerror(-err));
	return NULL;
}

const char *gpu_aes_producer_backend(const struct gpu_aes_producer *p)
{
	return p->ops->name;
}

const struct gpu_aes_region *
gpu_aes_producer_region(const struct gpu_aes_producer *p)
{
	return &p->r;
}

static void producer_free(struct gpu_aes_producer *p)
{
	if (p->core_started) {
		gpu_aes_core_stop(p->core);
		pthread_join(p->core_thread, NULL);
	}
	gpu_aes_core_destroy(p->core);
	if (p->ops && p->be)
		p->ops->close(p->be);
	if (p->t)
		p->t->ops->close(p->t);
	gpu_aes_region_free(&p->r);
	free(p->tags);
	free(p->free_tags);
	free(p->fifo);
	free(p->key_gen);
	pthread_cond_destroy(&p->room);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->cq_lock);
	free(p);
}

int gpu_aes_producer_create(const struct gpu_aes_producer_config *cfg,
			    struct gpu_aes_producer **out)
{
	struct gpu_aes_core_config ccfg = { 0 };
	struct gpu_aes_producer *p;
	pthread_mutexattr_t ma;
	uint32_t entries = cfg->nr_entries ? cfg->nr_entries : 1024;
	uint32_t keys = cfg->nr_keys ? cfg->nr_keys : 64;
	uint64_t data = cfg->data_size ? cfg->data_size : 64ULL << 20;
	const char *name = cfg->backend ? cfg->backend : "auto";
	uint32_t i;
	int err;

	if (posix_memalign((void **)&p, CACHELINE, sizeof(*p)))
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	pthread_mutexattr_init(&ma);
	/*
	 * Held for a few dozen instructions by many threads at once (the
	 * kernel's ring spinlock): spin briefly before sleeping in the
	 * kernel, or contention costs a futex round trip per request.
	 */
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&p->lock, &ma);
	pthread_mutex_init(&p->cq_lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_cond_init(&p->room, NULL);
	p->ops = gpu_aes_backend_select(name);
	if (!p->ops) {
		log_err("backend '%s' is not built in", name);
		err = -ENOENT;
		goto fail;
	}
	err = gpu_aes_region_alloc(entries, keys, data, &p->r, NULL);
	if (err)
		goto fail;
	gpu_aes_region_init_hdr(&p->r);
	p->mask = entries - 1;
	p->tags = calloc(entries, sizeof(*p->tags));
	p->free_tags = calloc(entries, sizeof(*p->free_tags));
	p->fifo = calloc(entries, sizeof(*p->fifo));
	p->key_gen = calloc(keys, sizeof(*p->key_gen));
	err = -ENOMEM;
	if (!p->tags || !p->free_tags || !p->fifo || !p->key_gen)
		goto fail;
	/* Hand out low tags first (a stack: the last pushed pops first). */
	for (i = 0; i < entries; i++)
		p->free_tags[i] = entries - 1 - i;
	p->nr_free = entries;

	err = p->ops->open(&cfg->backend_cfg, &p->r, &p->be);
	if (err) {
		log_err("backend %s: %s", p->ops->name, strerror(-err));
		p->be = NULL;
		goto fail;
	}
	err = gpu_aes_transport_inproc_open(reap, p, &p->t);
	if (err)
		goto fail;
	p->doorbell = gpu_aes_transport_inproc_doorbell(p->t);
	ccfg.spin_us = cfg->spin_us;
	ccfg.max_batch = cfg->max_batch;
	ccfg.max_inflight = cfg->max_inflight;
	err = gpu_aes_core_create(&p->r, p->ops, p->be, p->t, &ccfg, &p->core);
	if (err)
		goto fail;
	err = -pthread_create(&p->core_thread, NULL, core_main, p);
	if (err)
		goto fail;
	p->core_started = 1;
	*out = p;
	return 0;
fail:
	producer_free(p);
	return err;
}

void gpu_aes_producer_wait_idle(struct gpu_aes_producer *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->nr_posted)
		wait_room_locked(p);
	pthread_mutex_unlock(&p->lock);
}

void gpu_aes_producer_destroy(struct gpu_aes_producer *p)
{
	if (!p)
		return;
	gpu_aes_producer_wait_idle(p);
	producer_free(p);
}

/*
 * Writes (src) or wipes (NULL) a key table entry.  The helper may read
 * gen, key_len and rounds of any entry at any time (its idle sweep does),
 * so those are stored atomically; the key bytes are wiped with
 * explicit_bzero, which the compiler cannot drop.
 */
static void write_key(struct gpu_aes_key *dst, const struct gpu_aes_key *src)
{
	/* Everything from key[] to the end of the entry. */
	const size_t off = offsetof(struct gpu_aes_key, key);
	uint8_t *bytes = (uint8_t *)dst + off;

	__atomic_store_n(&dst->key_len, 0, __ATOMIC_RELAXED);
	explicit_bzero(bytes, sizeof(*dst) - off);
	if (src)
		memcpy(bytes, (const uint8_t *)src + off, sizeof(*dst) - off);
	__atomic_store_n(&dst->rounds, src ? src->rounds : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dst->reserved, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dst->gen, src ? src->gen : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dst->key_len, src ? src->key_len : 0,
			 __ATOMIC_RELEASE);
}

int gpu_aes_producer_setkey(struct gpu_aes_producer *p, unsigned int key_slot,
			    const uint8_t *key, size_t key_len)
{
	struct gpu_aes_key e;
	int err;

	if (key_slot >= p->r.nr_keys)
		return -EINVAL;
	memset(&e, 0, sizeof(e));
	err = gpu_aes_expand_key(key, key_len, &e);
	if (err)
		return err;
	pthread_mutex_lock(&p->lock);
	/*
	 * A generation is never reused for a slot, even after a wipe, so a
	 * backend caching by (slot, gen) cannot pick up a stale key.
	 */
	e.gen = ++p->key_gen[key_slot];
	write_key(&p->r.keys[key_slot], &e);
	pthread_mutex_unlock(&p->lock);
	explicit_bzero(&e, sizeof(e));
	return 0;
}

int gpu_aes_producer_clearkey(struct gpu_aes_producer *p,
			      unsigned int key_slot)
{

	if (key_slot >= p->r.nr_keys)
		return -EINVAL;
	pthread_mutex_lock(&p->lock);
	write_key(&p->r.keys[key_slot], NULL);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int gpu_aes_producer_reserve(struct gpu_aes_producer *p, uint32_t len,
			     struct gpu_aes_producer_buf *buf)
{
	int err;

	pthread_mutex_lock(&p->lock);
	err = reserve_locked(p, len, buf);
	pthread_mutex_unlock(&p->lock);
	return err;
}

int gpu_aes_producer_reserve_wait(struct gpu_aes_producer *p, uint32_t len,
				  struct gpu_aes_producer_buf *buf)
{
	int err;

	pthread_mutex_lock(&p->lock);
	while ((err = reserve_locked(p, len, buf)) == -EAGAIN)
		wait_room_locked(p);
	pthread_mutex_unlock(&p->lock);
	return err;
}

void gpu_aes_producer_unreserve(struct gpu_aes_producer *p,
				const struct gpu_aes_producer_buf *buf)
{
	pthread_mutex_lock(&p->lock);
	if (valid_buf_locked(p, buf)) {
		release_locked(p, buf->tag);
		wake_room_locked(p);
	}
	pthread_mutex_unlock(&p->lock);
}

static int post_buf(struct gpu_aes_producer *p,
		    const struct gpu_aes_producer_buf *buf, unsigned int alg,
		    unsigned int dir, unsigned int key_slot, const uint8_t *iv,
		    void *dst, gpu_aes_producer_cb cb, void *cookie)
{
	struct gpu_aes_sqe sqe;

	pthread_mutex_lock(&p->lock);
	if (!valid_buf_locked(p, buf)) {
		pthread_mutex_unlock(&p->lock);
		return -EINVAL;
	}
	fill_sqe(p, &p->tags[buf->tag], alg, dir, key_slot, iv, &sqe);
	post_locked(p, buf->tag, &sqe, dst, cb, cookie);
	return 0;
}

int gpu_aes_producer_post(struct gpu_aes_producer *p,
			  const struct gpu_aes_producer_buf *buf,
			  unsigned int alg, unsigned int dir,
			  unsigned int key_slot, const uint8_t *iv,
			  gpu_aes_producer_cb cb, void *cookie)
{
	return post_buf(p, buf, alg, dir, key_slot, iv, NULL, cb, cookie);
}

int gpu_aes_producer_post_sqe(struct gpu_aes_producer *p,
			      const struct gpu_aes_producer_buf *buf,
			      const struct gpu_aes_sqe *sqe,
			      gpu_aes_producer_cb cb, void *cookie)
{
	pthread_mutex_lock(&p->lock);
	if (!valid_buf_locked(p, buf)) {
		pthread_mutex_unlock(&p->lock);
		return -EINVAL;
	}
	post_locked(p, buf->tag, sqe, NULL, cb, cookie);
	return 0;
}

static int submit(struct gpu_aes_producer *p, int wait, unsigned int alg,
		  unsigned int dir, unsigned int key_slot, const uint8_t *iv,
		  const void *src, void *dst, uint32_t len,
		  gpu_aes_producer_cb cb, void *cookie)
{
	struct gpu_aes_producer_buf buf;
	int err;

	err = wait ? gpu_aes_producer_reserve_wait(p, len, &buf) :
		     gpu_aes_producer_reserve(p, len, &buf);
	if (err)
		return err;
	/* The copy runs unlocked: the reservation is ours alone. */
	if (len)
		memcpy(buf.data, src, len);
	return post_buf(p, &buf, alg, dir, key_slot, iv, dst, cb, cookie);
}

int gpu_aes_producer_submit(struct gpu_aes_producer *p, unsigned int alg,
			    unsigned int dir, unsigned int key_slot,
			    const uint8_t *iv, const void *src, void *dst,
			    uint32_t len, gpu_aes_producer_cb cb, void *cookie)
{
	return submit(p, 0, alg, dir, key_slot, iv, src, dst, len, cb, cookie);
}

int gpu_aes_producer_submit_wait(struct gpu_aes_producer *p, unsigned int alg,
				 unsigned int dir, unsigned int key_slot,
				 const uint8_t *iv, const void *src, void *dst,
				 uint32_t len, gpu_aes_producer_cb cb,
				 void *cookie)
{
	return submit(p, 1, alg, dir, key_slot, iv, src, dst, len, cb, cookie);
}

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	int status;
};

static void wake_waiter(void *cookie, int status)
{
	struct waiter *w = cookie;

	pthread_mutex_lock(&w->lock);
	w->status = status;
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

int gpu_aes_producer_run(struct gpu_aes_producer *p, unsigned int alg,
			 unsigned int dir, unsigned int key_slot,
			 const uint8_t *iv, const void *src, void *dst,
			 uint32_t len)
{
	struct waiter w = { .done = 0 };
	int err;

	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	err = submit(p, 1, alg, dir, key_slot, iv, src, dst, len,
		     wake_waiter, &w);
	if (!err) {
		pthread_mutex_lock(&w.lock);
		while (!w.done)
			pthread_cond_wait(&w.cond, &w.lock);
		err = w.status;
		pthread_mutex_unlock(&w.lock);
	}
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	return err;
}

void gpu_aes_producer_get_stats(struct gpu_aes_producer *p,
				struct gpu_aes_producer_stats *s)
{
	struct gpu_aes_core_stats cs;

	gpu_aes_core_get_stats(p->core, &cs);
	pthread_mutex_lock(&p->lock);
	*s = p->st;
	pthread_mutex_unlock(&p->lock);
	s->completed = __atomic_load_n(&p->completed, __ATOMIC_RELAXED);
	s->rejected = __atomic_load_n(&p->rejected, __ATOMIC_RELAXED);
	s->batches = cs.batches;
	s->requests = cs.requests;
	s->bytes = cs.bytes;
	s->invalid = cs.invalid;
	s->sleeps = cs.sleeps;
}
