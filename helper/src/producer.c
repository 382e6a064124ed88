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
/*
 * Or'ed into TAG_POSTED for a GCM decryption, the one request that may
 * complete with GPU_AES_STATUS_EBADMSG: the reaper's compare-and-swap then
 * checks the status against the very request it completes.
 */
#define TAG_MAY_FAIL_AUTH	0x100U

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
	uint32_t len;		/* reserved bytes */
	uint64_t data_off;
	/* Copy-out on success, set when posted. */
	void *dst;		/* text_len bytes from data_off */
	uint8_t *tag_dst;	/* GCM encryption: auth_len tag bytes */
	uint32_t text_len;
	uint32_t auth_len;
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
	t->tag_dst = NULL;
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
 * release store of sq_tail, full barrier, then NEED_WAKEUP.  On success
 * the reaper copies sqe->len text bytes to dst and (GCM) sqe->auth_len tag
 * bytes to tag_dst, either NULL for none.  Returns with the lock dropped.
 */
static void post_locked(struct gpu_aes_producer *p, uint32_t tag,
			const struct gpu_aes_sqe *sqe, void *dst,
			uint8_t *tag_dst, gpu_aes_producer_cb cb, void *cookie)
{
	struct gpu_aes_sqe *e = &p->r.sq[p->sq_tail & p->mask];
	struct ptag *t = &p->tags[tag];
	uint32_t state = TAG_POSTED;
	uint64_t one = 1;
	int wake;

	*e = *sqe;
	e->tag = tag;
	e->seq = SW_SEQ(__atomic_load_n(&t->sw, __ATOMIC_RELAXED));
	t->dst = dst;
	t->tag_dst = tag_dst;
	t->text_len = sqe->len;
	t->auth_len = sqe->auth_len;
	t->cb = cb;
	t->cookie = cookie;
	if (sqe->alg == GPU_AES_ALG_GCM && sqe->dir == GPU_AES_DIR_DECRYPT)
		state |= TAG_MAY_FAIL_AUTH;
	/* Release: a reaper that wins the tag sees everything above. */
	__atomic_store_n(&t->sw, SW(e->seq, state), __ATOMIC_RELEASE);
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

/* len: the text bytes; ECB, CTR, XTS use the whole reservation. */
static void fill_sqe(struct gpu_aes_producer *p, const struct ptag *t,
		     unsigned int alg, unsigned int dir, unsigned int key_slot,
		     const uint8_t *iv, uint32_t len, struct gpu_aes_sqe *sqe)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->alg = (uint8_t)alg;
	sqe->dir = (uint8_t)dir;
	sqe->key_slot = (uint16_t)key_slot;
	sqe->key_gen = key_slot < p->r.nr_keys ? p->r.keys[key_slot].gen : 0;
	sqe->data_off = t->data_off;
	sqe->len = len;
	/* ECB has no IV: its field stays zero, as the kernel leaves it. */
	if (iv && alg != GPU_AES_ALG_ECB)
		memcpy(sqe->iv, iv, sizeof(sqe->iv));
}

static int valid_status(int32_t st)
{
	return st == GPU_AES_STATUS_OK || st == GPU_AES_STATUS_EIO ||
	       st == GPU_AES_STATUS_EINVAL || st == GPU_AES_STATUS_EBADMSG;
}

/*
 * Moves the tag the completion names from POSTED (with the completion's
 * seq) to REAPING; 0 when it is not ours to complete: a bad tag, a stale
 * or duplicate completion, or EBADMSG for anything but a GCM decryption.
 */
static int win_tag(struct gpu_aes_producer *p, const struct gpu_aes_cqe *e)
{
	uint64_t cur;

	if (e->tag >= p->r.nr_entries || !valid_status(e->status))
		return 0;
	cur = __atomic_load_n(&p->tags[e->tag].sw, __ATOMIC_RELAXED);
	if (SW_SEQ(cur) != e->seq ||
	    (SW_STATE(cur) & ~TAG_MAY_FAIL_AUTH) != TAG_POSTED ||
	    (e->status == GPU_AES_STATUS_EBADMSG &&
	     !(SW_STATE(cur) & TAG_MAY_FAIL_AUTH)))
		return 0;
	/* Exactly once: only one reaper moves this very word on. */
	return __atomic_compare_exchange_n(&p->tags[e->tag].sw, &cur,
					   SW(e->seq, TAG_REAPING), 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
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

			if (!win_tag(p, e)) {
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

			/* Nothing of a failed request is released. */
			if (ents[i].status == GPU_AES_STATUS_OK) {
				const uint8_t *d = p->r.data + t->data_off;
				uint64_t tag_off =
					gpu_aes_gcm_tag_off(0, t->text_len);

				if (t->dst)
					memcpy(t->dst, d, t->text_len);
				if (t->tag_dst)
					memcpy(t->tag_dst, d + tag_off,
					       t->auth_len);
			}
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
	__atomic_store_n(&dst->tweak_len, src ? src->tweak_len : 0,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&dst->gen, src ? src->gen : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dst->key_len, src ? src->key_len : 0,
			 __ATOMIC_RELEASE);
}

static int setkey(struct gpu_aes_producer *p, unsigned int key_slot,
		  const uint8_t *key, size_t key_len, int xts)
{
	struct gpu_aes_key e;
	int err;

	if (key_slot >= p->r.nr_keys)
		return -EINVAL;
	memset(&e, 0, sizeof(e));
	err = xts ? gpu_aes_expand_xts_key(key, key_len, &e) :
		    gpu_aes_expand_key(key, key_len, &e);
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

int gpu_aes_producer_setkey(struct gpu_aes_producer *p, unsigned int key_slot,
			    const uint8_t *key, size_t key_len)
{
	return setkey(p, key_slot, key, key_len, 0);
}

int gpu_aes_producer_setkey_xts(struct gpu_aes_producer *p,
				unsigned int key_slot, const uint8_t *key,
				size_t key_len)
{
	return setkey(p, key_slot, key, key_len, 1);
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
	fill_sqe(p, &p->tags[buf->tag], alg, dir, key_slot, iv,
		 p->tags[buf->tag].len, &sqe);
	post_locked(p, buf->tag, &sqe, dst, NULL, cb, cookie);
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
	post_locked(p, buf->tag, sqe, NULL, NULL, cb, cookie);
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

/* crypto_gcm_check_authsize(). */
static int gcm_auth_len_ok(uint32_t n)
{
	return n == 4 || n == 8 || (n >= 12 && n <= 16);
}

/*
 * Posts a GCM request over a reservation laid out as struct gpu_aes_sqe
 * says.  The span is checked against the reservation the tag really has,
 * as the kernel never posts an entry beyond its own slot.
 */
static int post_gcm_buf(struct gpu_aes_producer *p,
			const struct gpu_aes_producer_buf *buf,
			unsigned int dir, unsigned int key_slot,
			const uint8_t *iv, uint32_t len, uint32_t aad_len,
			uint32_t auth_len, void *dst, uint8_t *tag_dst,
			gpu_aes_producer_cb cb, void *cookie)
{
	struct gpu_aes_sqe sqe;
	struct ptag *t;

	if (!iv || !gcm_auth_len_ok(auth_len))
		return -EINVAL;
	pthread_mutex_lock(&p->lock);
	if (!valid_buf_locked(p, buf)) {
		pthread_mutex_unlock(&p->lock);
		return -EINVAL;
	}
	t = &p->tags[buf->tag];
	if (gpu_aes_sqe_span(GPU_AES_ALG_GCM, len, aad_len) > t->len) {
		pthread_mutex_unlock(&p->lock);
		return -EINVAL;
	}
	fill_sqe(p, t, GPU_AES_ALG_GCM, dir, key_slot, NULL, len, &sqe);
	/* The IV is 12 bytes; the 4 after it stay zero (J0's counter). */
	memcpy(sqe.iv, iv, 12);
	sqe.aad_len = aad_len;
	sqe.auth_len = (uint8_t)auth_len;
	post_locked(p, buf->tag, &sqe, dst,
		    dir == GPU_AES_DIR_ENCRYPT ? tag_dst : NULL, cb, cookie);
	return 0;
}

int gpu_aes_producer_post_gcm(struct gpu_aes_producer *p,
			      const struct gpu_aes_producer_buf *buf,
			      unsigned int dir, unsigned int key_slot,
			      const uint8_t *iv, uint32_t len,
			      uint32_t aad_len, uint32_t auth_len,
			      gpu_aes_producer_cb cb, void *cookie)
{
	return post_gcm_buf(p, buf, dir, key_slot, iv, len, aad_len, auth_len,
			    NULL, NULL, cb, cookie);
}

static int submit_gcm(struct gpu_aes_producer *p, int wait, unsigned int dir,
		      unsigned int key_slot, const uint8_t *iv,
		      const void *aad, uint32_t aad_len, const void *src,
		      void *dst, uint32_t len, uint8_t *tag, uint32_t auth_len,
		      gpu_aes_producer_cb cb, void *cookie)
{
	uint64_t span = gpu_aes_sqe_span(GPU_AES_ALG_GCM, len, aad_len);
	struct gpu_aes_producer_buf buf;
	uint8_t *d;
	int err;

	if (!iv || !gcm_auth_len_ok(auth_len) || span > UINT32_MAX ||
	    (dir == GPU_AES_DIR_DECRYPT && !tag))
		return -EINVAL;
	err = wait ? gpu_aes_producer_reserve_wait(p, (uint32_t)span, &buf) :
		     gpu_aes_producer_reserve(p, (uint32_t)span, &buf);
	if (err)
		return err;
	/* The copies run unlocked: the reservation is ours alone. */
	d = buf.data;
	if (len)
		memcpy(d, src, len);
	/* The whole tag slot is written, so no stale bytes sit in it. */
	memset(d + gpu_aes_gcm_tag_off(0, len), 0, 16);
	if (dir == GPU_AES_DIR_DECRYPT)
		memcpy(d + gpu_aes_gcm_tag_off(0, len), tag, auth_len);
	if (aad_len)
		memcpy(d + gpu_aes_gcm_aad_off(0, len), aad, aad_len);
	err = post_gcm_buf(p, &buf, dir, key_slot, iv, len, aad_len, auth_len,
			   dst, tag, cb, cookie);
	if (err)
		gpu_aes_producer_unreserve(p, &buf);
	return err;
}

int gpu_aes_producer_submit_gcm(struct gpu_aes_producer *p, unsigned int dir,
				unsigned int key_slot, const uint8_t *iv,
				const void *aad, uint32_t aad_len,
				const void *src, void *dst, uint32_t len,
				uint8_t *tag, uint32_t auth_len,
				gpu_aes_producer_cb cb, void *cookie)
{
	return submit_gcm(p, 0, dir, key_slot, iv, aad, aad_len, src, dst,
			  len, tag, auth_len, cb, cookie);
}

int gpu_aes_producer_submit_gcm_wait(struct gpu_aes_producer *p,
				     unsigned int dir, unsigned int key_slot,
				     const uint8_t *iv, const void *aad,
				     uint32_t aad_len, const void *src,
				     void *dst, uint32_t len, uint8_t *tag,
				     uint32_t auth_len, gpu_aes_producer_cb cb,
				     void *cookie)
{
	return submit_gcm(p, 1, dir, key_slot, iv, aad, aad_len, src, dst,
			  len, tag, auth_len, cb, cookie);
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

static void waiter_init(struct waiter *w)
{
	w->done = 0;
	w->status = 0;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
}

/* err: the submission's result; the request's status once it completes. */
static int waiter_finish(struct waiter *w, int err)
{
	if (!err) {
		pthread_mutex_lock(&w->lock);
		while (!w->done)
			pthread_cond_wait(&w->cond, &w->lock);
		err = w->status;
		pthread_mutex_unlock(&w->lock);
	}
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	return err;
}

int gpu_aes_producer_run(struct gpu_aes_producer *p, unsigned int alg,
			 unsigned int dir, unsigned int key_slot,
			 const uint8_t *iv, const void *src, void *dst,
			 uint32_t len)
{
	struct waiter w;

	waiter_init(&w);
	return waiter_finish(&w, submit(p, 1, alg, dir, key_slot, iv, src,
					dst, len, wake_waiter, &w));
}

int gpu_aes_producer_run_gcm(struct gpu_aes_producer *p, unsigned int dir,
			     unsigned int key_slot, const uint8_t *iv,
			     const void *aad, uint32_t aad_len,
			     const void *src, void *dst, uint32_t len,
			     uint8_t *tag, uint32_t auth_len)
{
	struct waiter w;

	waiter_init(&w);
	return waiter_finish(&w, submit_gcm(p, 1, dir, key_slot, iv, aad,
					    aad_len, src, dst, len, tag,
					    auth_len, wake_waiter, &w));
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
