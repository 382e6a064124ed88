// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring.c - tags, the data allocator, submission, completion, deadlines and
 * the backlog (see ring.h and docs/design.md).
 *
 * Tags are allocated round robin and freed in allocation order, which is
 * also the data area's order: a tag's data space and the tag itself are
 * freed together once every older tag is released.  So one stuck request
 * holds back reuse behind it, which is what the byte ring needs anyway (a
 * batch's data stays contiguous), and the deadline scan bounds how long.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "params.h"
#include "ring.h"
#include "skcipher.h"

struct gpu_aes_ring gpu_aes_ring;

static void gpu_aes_ring_timeout_fn(struct work_struct *work);

void gpu_aes_ring_init(struct gpu_aes_ring *ring)
{
	memset(ring, 0, sizeof(*ring));
	spin_lock_init(&ring->lock);
	mutex_init(&ring->reap_mutex);
	init_waitqueue_head(&ring->wq);
	INIT_DELAYED_WORK(&ring->timeout_work, gpu_aes_ring_timeout_fn);
	INIT_LIST_HEAD(&ring->backlog);
}

int gpu_aes_setup_check(const struct gpu_aes_setup *s)
{
	struct gpu_aes_layout l;

	if (s->abi_version != GPU_AES_ABI_VERSION ||
	    s->features & ~GPU_AES_FEAT_NEED_WAKEUP ||
	    s->reserved[0] || s->reserved[1] || s->reserved[2])
		return -EINVAL;
	if (!is_power_of_2(s->nr_entries) ||
	    s->nr_entries < GPU_AES_MIN_ENTRIES ||
	    s->nr_entries > GPU_AES_MAX_ENTRIES)
		return -EINVAL;
	if (!s->nr_keys || s->nr_keys > GPU_AES_MAX_KEYS)
		return -EINVAL;
	if (s->data_size < GPU_AES_MIN_DATA || s->data_size > GPU_AES_MAX_DATA ||
	    s->data_size % GPU_AES_PAGE)
		return -EINVAL;
	gpu_aes_layout(s->nr_entries, s->nr_keys, s->data_size, &l);
	if (s->region_size != l.region_size)
		return -EINVAL;
	return 0;
}

static unsigned long gpu_aes_timeout_jiffies(void)
{
	return msecs_to_jiffies(max(READ_ONCE(gpu_aes_timeout_ms), 1U));
}

static void gpu_aes_ring_arm_timeout(struct gpu_aes_ring *ring)
{
	if (!delayed_work_pending(&ring->timeout_work))
		schedule_delayed_work(&ring->timeout_work,
				      gpu_aes_timeout_jiffies());
}

/*
 * Free released tags (and their data space) from the oldest on, stopping
 * at the first one still in use.
 */
static void gpu_aes_tag_release(struct gpu_aes_ring *ring,
				struct gpu_aes_tag *t)
{
	u32 mask = ring->nr_entries - 1;

	t->state = GPU_AES_TAG_RELEASED;
	t->req = NULL;
	while (ring->tag_tail != ring->tag_head) {
		t = &ring->tags[ring->tag_tail & mask];
		if (t->state != GPU_AES_TAG_RELEASED)
			break;
		ring->data_tail = t->end;
		t->state = GPU_AES_TAG_FREE;
		ring->tag_tail++;
	}
}

/*
 * Reserve a tag, a key slot and data space, copy the source in and publish
 * the sqe.  Lock held.  Returns 0 or -ENOSPC (nothing reserved but maybe a
 * key slot, which the tfm keeps anyway); *wake says whether to wake the
 * helper.
 */
static int gpu_aes_ring_post(struct gpu_aes_ring *ring,
			     struct skcipher_request *req, bool *wake)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct gpu_aes_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct gpu_aes_req_ctx *rctx = skcipher_request_ctx(req);
	unsigned int len = req->cryptlen;
	u64 alen = ALIGN((u64)len, GPU_AES_DATA_ALIGN);
	u32 mask = ring->nr_entries - 1;
	struct gpu_aes_sqe sqe = {};
	struct gpu_aes_tag *t;
	u64 off, skip;
	u16 slot;
	u32 gen;

	lockdep_assert_held(&ring->lock);
	/* A request never wraps: skip the tail of the area instead. */
	div64_u64_rem(ring->data_head, ring->data_size, &off);
	skip = off + alen > ring->data_size ? ring->data_size - off : 0;
	if (ring->tag_head - ring->tag_tail >= ring->nr_entries)
		return -ENOSPC;
	if (ring->data_head - ring->data_tail + skip + alen > ring->data_size)
		return -ENOSPC;
	if (gpu_aes_key_prepare(ring, &ctx->key, &slot, &gen))
		return -ENOSPC;

	t = &ring->tags[ring->tag_head & mask];
	sqe.tag = ring->tag_head & mask;
	ring->tag_head++;
	ring->data_head += skip + alen;
	t->end = ring->data_head;
	t->data_off = skip ? 0 : off;
	t->len = len;
	t->req = req;
	t->seq++;
	t->deadline = jiffies + gpu_aes_timeout_jiffies();
	t->state = GPU_AES_TAG_IN_FLIGHT;
	ring->in_flight++;

	sg_pcopy_to_buffer(req->src, sg_nents(req->src),
			   ring->data + t->data_off, len, 0);

	sqe.seq = t->seq;
	sqe.alg = ctx->mode;
	sqe.dir = rctx->dir;
	sqe.key_slot = slot;
	sqe.key_gen = gen;
	sqe.data_off = t->data_off;
	sqe.len = len;
	if (ctx->mode == GPU_AES_ALG_CTR)
		memcpy(sqe.iv, req->iv, sizeof(sqe.iv));
	memcpy(&ring->sq[ring->sq_tail & mask], &sqe, sizeof(sqe));
	ring->sq_tail++;
	/* Entry, key and data before the tail; pairs with helper's acquire. */
	smp_store_release(&ring->hdr->sq_tail, ring->sq_tail);
	/*
	 * Order the tail store before the flag load; pairs with the helper's
	 * barrier between setting NEED_WAKEUP and re-reading sq_tail.
	 */
	smp_mb();
	if (READ_ONCE(ring->hdr->helper_flags) & GPU_AES_HELPER_NEED_WAKEUP)
		*wake = true;

	gpu_aes_stat_inc(GPU_AES_STAT_RING_REQUESTS);
	gpu_aes_stat_add(GPU_AES_STAT_RING_BYTES, len);
	gpu_aes_ring_arm_timeout(ring);
	return 0;
}

static void gpu_aes_ring_wake(struct gpu_aes_ring *ring)
{
	wake_up_interruptible(&ring->wq);
	if (ring->kick)
		ring->kick(ring);
}

int gpu_aes_ring_submit(struct gpu_aes_ring *ring,
			struct skcipher_request *req,
			enum gpu_aes_fallback_reason *why)
{
	struct gpu_aes_req_ctx *rctx = skcipher_request_ctx(req);
	bool wake = false;
	int ret;

	spin_lock_bh(&ring->lock);
	if (!ring->attached) {
		*why = GPU_AES_FB_NO_HELPER;
		ret = GPU_AES_RING_FALLBACK;
	} else if (req->cryptlen > ring->data_size / 4) {
		*why = GPU_AES_FB_LARGE;
		ret = GPU_AES_RING_FALLBACK;
	} else if (ring->stalled) {
		*why = GPU_AES_FB_STALLED;
		ret = GPU_AES_RING_FALLBACK;
	} else if (list_empty(&ring->backlog) &&
		   !gpu_aes_ring_post(ring, req, &wake)) {
		ret = -EINPROGRESS;
	} else if (req->base.flags & CRYPTO_TFM_REQ_MAY_BACKLOG) {
		/* Queued behind older backlog so nothing starves. */
		rctx->backlogged = true;
		rctx->deadline = jiffies + gpu_aes_timeout_jiffies();
		list_add_tail(&rctx->node, &ring->backlog);
		gpu_aes_stat_inc(GPU_AES_STAT_BACKLOGGED);
		gpu_aes_ring_arm_timeout(ring);
		ret = -EBUSY;
	} else {
		*why = GPU_AES_FB_FULL;
		ret = GPU_AES_RING_FALLBACK;
	}
	spin_unlock_bh(&ring->lock);
	if (wake)
		gpu_aes_ring_wake(ring);
	return ret;
}

/*
 * Replay requests taken off the ring or the backlog on the CPU and complete
 * them; a backlogged one first hears -EINPROGRESS, as the API promises.
 */
static void gpu_aes_ring_finish_cpu(struct list_head *list)
{
	struct gpu_aes_req_ctx *rctx, *tmp;
	struct skcipher_request *req;
	int err;

	list_for_each_entry_safe(rctx, tmp, list, node) {
		list_del(&rctx->node);
		req = rctx->req;
		if (rctx->backlogged) {
			rctx->backlogged = false;
			gpu_aes_req_finish(req, -EINPROGRESS);
		}
		err = gpu_aes_cpu_crypt(req, 0);
		gpu_aes_stat_inc(GPU_AES_STAT_RECOMPUTED);
		gpu_aes_req_finish(req, err);
	}
}

/* Move backlogged requests onto the ring while they fit.  Lock held. */
static void gpu_aes_ring_admit(struct gpu_aes_ring *ring,
			       struct list_head *admitted, bool *wake)
{
	struct gpu_aes_req_ctx *rctx;
	struct skcipher_request *req;

	while (!list_empty(&ring->backlog)) {
		rctx = list_first_entry(&ring->backlog, struct gpu_aes_req_ctx,
					node);
		req = rctx->req;
		if (gpu_aes_ring_post(ring, req, wake))
			break;
		list_move_tail(&rctx->node, admitted);
	}
}

static bool gpu_aes_status_valid(s32 status)
{
	return status == GPU_AES_STATUS_OK || status == GPU_AES_STATUS_EIO ||
	       status == GPU_AES_STATUS_EINVAL;
}

int gpu_aes_ring_reap(struct gpu_aes_ring *ring)
{
	struct gpu_aes_req_ctx *rctx, *tmp;
	struct gpu_aes_tfm_ctx *ctx;
	struct skcipher_request *req;
	LIST_HEAD(admitted);
	LIST_HEAD(done);
	struct gpu_aes_tag *t;
	bool wake = false;
	u32 tail, mask, tag, seq;
	int accepted = 0;
	s32 status;

	mutex_lock(&ring->reap_mutex);
	spin_lock_bh(&ring->lock);
	if (!ring->attached) {
		spin_unlock_bh(&ring->lock);
		mutex_unlock(&ring->reap_mutex);
		return -ENXIO;
	}
	mask = ring->nr_entries - 1;
	/* cqes before the tail; pairs with the helper's release. */
	tail = smp_load_acquire(&ring->hdr->cq_tail);
	if (tail - ring->cq_head > ring->nr_entries) {
		gpu_aes_stat_inc(GPU_AES_STAT_REJECTED_COMPLETIONS);
		spin_unlock_bh(&ring->lock);
		mutex_unlock(&ring->reap_mutex);
		return -EINVAL;
	}
	for (; ring->cq_head != tail; ring->cq_head++) {
		const struct gpu_aes_cqe *c = &ring->cq[ring->cq_head & mask];

		tag = READ_ONCE(c->tag);
		seq = READ_ONCE(c->seq);
		status = READ_ONCE(c->status);
		if (tag >= ring->nr_entries || !gpu_aes_status_valid(status))
			goto reject;
		t = &ring->tags[tag];
		if (t->seq != seq)
			goto reject;
		if (t->state == GPU_AES_TAG_TIMED_OUT) {
			ring->stalled = false;
			gpu_aes_stat_inc(GPU_AES_STAT_LATE_COMPLETIONS);
			gpu_aes_tag_release(ring, t);
			continue;
		}
		if (t->state != GPU_AES_TAG_IN_FLIGHT)
			goto reject;
		ring->stalled = false;
		t->state = GPU_AES_TAG_COMPLETING;
		ring->in_flight--;
		rctx = skcipher_request_ctx(t->req);
		rctx->tag = tag;
		rctx->status = status;
		list_add_tail(&rctx->node, &done);
		accepted++;
		continue;
reject:
		gpu_aes_stat_inc(GPU_AES_STAT_REJECTED_COMPLETIONS);
	}
	/* Our reads of the cqes before the helper may reuse them. */
	smp_store_release(&ring->hdr->cq_head, ring->cq_head);
	spin_unlock_bh(&ring->lock);

	/*
	 * COMPLETING tags are ours alone and detach needs reap_mutex, so the
	 * data area can be read without the lock.
	 */
	list_for_each_entry(rctx, &done, node) {
		req = rctx->req;
		t = &ring->tags[rctx->tag];
		if (rctx->status) {
			gpu_aes_stat_inc(GPU_AES_STAT_HELPER_ERRORS);
			gpu_aes_stat_inc(GPU_AES_STAT_RECOMPUTED);
			rctx->status = gpu_aes_cpu_crypt(req, 0);
			continue;
		}
		sg_pcopy_from_buffer(req->dst, sg_nents(req->dst),
				     ring->data + t->data_off, t->len, 0);
		ctx = crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
		if (ctx->mode == GPU_AES_ALG_CTR)
			gpu_aes_ctr_advance(req->iv, t->len);
	}

	spin_lock_bh(&ring->lock);
	list_for_each_entry(rctx, &done, node)
		gpu_aes_tag_release(ring, &ring->tags[rctx->tag]);
	gpu_aes_ring_admit(ring, &admitted, &wake);
	spin_unlock_bh(&ring->lock);

	list_for_each_entry_safe(rctx, tmp, &done, node) {
		list_del(&rctx->node);
		gpu_aes_req_finish(rctx->req, rctx->status);
	}
	/*
	 * Admitted requests are on the ring already, but nothing else can
	 * complete them before reap_mutex is dropped, so -EINPROGRESS is
	 * still their first callback.
	 */
	list_for_each_entry_safe(rctx, tmp, &admitted, node) {
		list_del(&rctx->node);
		rctx->backlogged = false;
		gpu_aes_req_finish(rctx->req, -EINPROGRESS);
	}
	mutex_unlock(&ring->reap_mutex);
	if (wake)
		gpu_aes_ring_wake(ring);
	return accepted;
}

static void gpu_aes_ring_timeout_fn(struct work_struct *work)
{
	struct gpu_aes_ring *ring = container_of(to_delayed_work(work),
						 struct gpu_aes_ring,
						 timeout_work);
	struct gpu_aes_req_ctx *rctx, *tmp;
	unsigned long now, next = 0;
	LIST_HEAD(expired);
	struct gpu_aes_tag *t;
	bool armed = false;
	u32 i;

	mutex_lock(&ring->reap_mutex);
	spin_lock_bh(&ring->lock);
	if (!ring->attached)
		goto out;
	now = jiffies;
	for (i = ring->tag_tail; i != ring->tag_head; i++) {
		t = &ring->tags[i & (ring->nr_entries - 1)];
		if (t->state != GPU_AES_TAG_IN_FLIGHT)
			continue;
		if (time_after_eq(now, t->deadline)) {
			rctx = skcipher_request_ctx(t->req);
			list_add_tail(&rctx->node, &expired);
			t->state = GPU_AES_TAG_TIMED_OUT;
			t->req = NULL;
			ring->in_flight--;
			gpu_aes_stat_inc(GPU_AES_STAT_TIMEOUTS);
			ring->stalled = true;
		} else if (!armed || time_before(t->deadline, next)) {
			next = t->deadline;
			armed = true;
		}
	}
	list_for_each_entry_safe(rctx, tmp, &ring->backlog, node) {
		if (ring->stalled) {
			/* Flush: see struct gpu_aes_ring's @stalled. */
			list_move_tail(&rctx->node, &expired);
		} else if (time_after_eq(now, rctx->deadline)) {
			list_move_tail(&rctx->node, &expired);
			gpu_aes_stat_inc(GPU_AES_STAT_TIMEOUTS);
		} else if (!armed || time_before(rctx->deadline, next)) {
			next = rctx->deadline;
			armed = true;
		}
	}
	if (armed)
		schedule_delayed_work(&ring->timeout_work, next - now);
out:
	spin_unlock_bh(&ring->lock);
	gpu_aes_ring_finish_cpu(&expired);
	mutex_unlock(&ring->reap_mutex);
}

int gpu_aes_ring_attach(struct gpu_aes_ring *ring, void *base,
			const struct gpu_aes_setup *s)
{
	struct gpu_aes_region_hdr *hdr = base;
	unsigned long *key_map;
	struct gpu_aes_layout l;
	struct gpu_aes_tag *tags;
	u32 *key_gen;
	int ret;

	ret = gpu_aes_setup_check(s);
	if (ret)
		return ret;
	tags = kvcalloc(s->nr_entries, sizeof(*tags), GFP_KERNEL);
	key_map = kvcalloc(BITS_TO_LONGS(s->nr_keys), sizeof(long), GFP_KERNEL);
	key_gen = kvcalloc(s->nr_keys, sizeof(*key_gen), GFP_KERNEL);
	if (!tags || !key_map || !key_gen) {
		ret = -ENOMEM;
		goto err;
	}

	mutex_lock(&ring->reap_mutex);
	if (ring->attached) {
		mutex_unlock(&ring->reap_mutex);
		ret = -EBUSY;
		goto err;
	}
	gpu_aes_layout(s->nr_entries, s->nr_keys, s->data_size, &l);
	/* Queues and key table start zeroed; the data area is the helper's. */
	memset(base, 0, l.data_off);
	hdr->magic = GPU_AES_MAGIC;
	hdr->abi_version = GPU_AES_ABI_VERSION;
	hdr->features = s->features;
	hdr->nr_entries = s->nr_entries;
	hdr->nr_keys = s->nr_keys;
	hdr->region_size = l.region_size;
	hdr->sq_off = l.sq_off;
	hdr->cq_off = l.cq_off;
	hdr->keys_off = l.keys_off;
	hdr->data_off = l.data_off;
	hdr->data_size = s->data_size;

	spin_lock_bh(&ring->lock);
	ring->hdr = hdr;
	ring->sq = base + l.sq_off;
	ring->cq = base + l.cq_off;
	ring->keys = base + l.keys_off;
	ring->data = base + l.data_off;
	ring->nr_entries = s->nr_entries;
	ring->nr_keys = s->nr_keys;
	ring->data_size = s->data_size;
	ring->sq_tail = 0;
	ring->cq_head = 0;
	ring->tags = tags;
	ring->tag_head = 0;
	ring->tag_tail = 0;
	ring->data_head = 0;
	ring->data_tail = 0;
	ring->in_flight = 0;
	ring->stalled = false;
	ring->key_map = key_map;
	ring->key_gen = key_gen;
	ring->attached = true;
	spin_unlock_bh(&ring->lock);
	mutex_unlock(&ring->reap_mutex);
	gpu_aes_stat_inc(GPU_AES_STAT_HELPER_ATTACHES);
	return 0;

err:
	kvfree(tags);
	kvfree(key_map);
	kvfree(key_gen);
	return ret;
}

void gpu_aes_ring_detach(struct gpu_aes_ring *ring)
{
	struct gpu_aes_req_ctx *rctx;
	unsigned long *key_map;
	struct gpu_aes_tag *tags;
	struct gpu_aes_tag *t;
	LIST_HEAD(redo);
	unsigned long s;
	u32 *key_gen;
	u32 i;

	mutex_lock(&ring->reap_mutex);
	spin_lock_bh(&ring->lock);
	if (!ring->attached) {
		spin_unlock_bh(&ring->lock);
		mutex_unlock(&ring->reap_mutex);
		return;
	}
	ring->attached = false;
	for (i = ring->tag_tail; i != ring->tag_head; i++) {
		t = &ring->tags[i & (ring->nr_entries - 1)];
		if (t->state != GPU_AES_TAG_IN_FLIGHT)
			continue;
		rctx = skcipher_request_ctx(t->req);
		list_add_tail(&rctx->node, &redo);
	}
	list_splice_tail_init(&ring->backlog, &redo);
	for_each_set_bit(s, ring->key_map, ring->nr_keys)
		memzero_explicit(&ring->keys[s], sizeof(ring->keys[0]));
	ring->attach_gen++;
	tags = ring->tags;
	key_map = ring->key_map;
	key_gen = ring->key_gen;
	ring->tags = NULL;
	ring->key_map = NULL;
	ring->key_gen = NULL;
	ring->hdr = NULL;
	ring->sq = NULL;
	ring->cq = NULL;
	ring->keys = NULL;
	ring->data = NULL;
	ring->in_flight = 0;
	spin_unlock_bh(&ring->lock);

	gpu_aes_ring_finish_cpu(&redo);
	kvfree(tags);
	kvfree(key_map);
	kvfree(key_gen);
	mutex_unlock(&ring->reap_mutex);
	/* Outside the mutex: the work takes it, and sees !attached. */
	cancel_delayed_work_sync(&ring->timeout_work);
}

bool gpu_aes_ring_pending(struct gpu_aes_ring *ring)
{
	bool pending;

	spin_lock_bh(&ring->lock);
	pending = ring->attached &&
		  READ_ONCE(ring->hdr->sq_head) != ring->sq_tail;
	spin_unlock_bh(&ring->lock);
	return pending;
}
