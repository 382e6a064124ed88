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
#include <crypto/aes.h>
#include <crypto/gcm.h>
#include <linux/bottom_half.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "keys.h"
#include "params.h"
#include "ring.h"

struct gpu_aes_ring gpu_aes_ring;

static void gpu_aes_ring_timeout_fn(struct work_struct *work);

void gpu_aes_ring_init(struct gpu_aes_ring *ring)
{
	memset(ring, 0, sizeof(*ring));
	spin_lock_init(&ring->lock);
	mutex_init(&ring->setup_mutex);
	mutex_init(&ring->scan_mutex);
	atomic_set(&ring->users, 0);
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

#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
static void gpu_aes_ring_test_mid_copy(struct gpu_aes_ring *ring, bool out)
{
	void (*fn)(struct gpu_aes_ring *ring, bool out) = READ_ONCE(ring->mid_copy);

	if (fn)
		fn(ring, out);
}

static void gpu_aes_ring_test_kick(struct gpu_aes_ring *ring)
{
	void (*fn)(struct gpu_aes_ring *ring) = READ_ONCE(ring->kick);

	if (fn)
		fn(ring);
}
#else
/* The production module has no hooks a stray write could aim. */
static inline void gpu_aes_ring_test_mid_copy(struct gpu_aes_ring *ring,
					      bool out)
{
}

static inline void gpu_aes_ring_test_kick(struct gpu_aes_ring *ring)
{
}
#endif

static unsigned long gpu_aes_timeout_jiffies(void)
{
	return msecs_to_jiffies(max(READ_ONCE(gpu_aes_timeout_ms), 1U));
}

/*
 * Make sure the deadline scan runs by @deadline.  mod_, not schedule_: a
 * pending scan may be due later (timeout_ms is writable at run time), and
 * schedule_delayed_work() would leave it so.  Lock held.
 */
static void gpu_aes_ring_arm_timeout(struct gpu_aes_ring *ring,
				     unsigned long deadline)
{
	unsigned long now = jiffies;

	lockdep_assert_held(&ring->lock);
	if (ring->scan_armed && !time_before(deadline, ring->scan_at))
		return;
	ring->scan_armed = true;
	ring->scan_at = deadline;
	mod_delayed_work(system_wq, &ring->timeout_work,
			 time_after(deadline, now) ? deadline - now : 0);
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
	t->job = NULL;
	ring->key_inflight[t->key_slot]--;
	ring->may_admit = true;
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
 * A reference that keeps the tag table and the region in place while its
 * holder works on them without the lock.  Taken under the lock while
 * attached; detach waits for the count to reach zero.
 */
static void gpu_aes_ring_get(struct gpu_aes_ring *ring)
{
	lockdep_assert_held(&ring->lock);
	atomic_inc(&ring->users);
}

static void gpu_aes_ring_put(struct gpu_aes_ring *ring)
{
	/* Fully ordered: our accesses to the region come before the wake. */
	if (atomic_dec_and_test(&ring->users))
		wake_up_var(&ring->users);
}

/*
 * Reserve a key slot, a tag and data space for @job and take a reference
 * for its copy-in.  Lock held.  Returns 0, -ENOKEY (no key slot to be had:
 * nothing reserved), -EAGAIN (no tag) or -ENOSPC (no data space); after
 * the last two the tfm keeps the key slot it may have taken.
 */
static int gpu_aes_ring_reserve(struct gpu_aes_ring *ring,
				struct gpu_aes_job *job)
{
	/* GCM's tag and associated data travel with the text. */
	u64 alen = ALIGN(gpu_aes_job_span(job), GPU_AES_DATA_ALIGN);
	u32 mask = ring->nr_entries - 1;
	struct gpu_aes_tag *t;
	u64 off, skip;
	u16 slot;
	u32 gen;

	lockdep_assert_held(&ring->lock);
	if (gpu_aes_key_prepare(ring, job->key, &slot, &gen))
		return -ENOKEY;
	if (ring->tag_head - ring->tag_tail >= ring->nr_entries)
		return -EAGAIN;
	/* A request never wraps: skip the tail of the area instead. */
	div64_u64_rem(ring->data_head, ring->data_size, &off);
	skip = off + alen > ring->data_size ? ring->data_size - off : 0;
	if (ring->data_head - ring->data_tail + skip + alen > ring->data_size)
		return -ENOSPC;

	job->tag = ring->tag_head & mask;
	t = &ring->tags[job->tag];
	ring->tag_head++;
	ring->data_head += skip + alen;
	t->end = ring->data_head;
	t->data_off = skip ? 0 : off;
	t->len = job->len;
	t->job = job;
	t->alg = job->alg;
	t->dir = job->dir;
	t->seq++;
	t->key_slot = slot;
	t->key_gen = gen;
	ring->key_inflight[slot]++;
	/* Not used while RESERVED; set so no stale deadline is ever seen. */
	t->deadline = jiffies + gpu_aes_timeout_jiffies();
	t->state = GPU_AES_TAG_RESERVED;
	gpu_aes_ring_get(ring);
	return 0;
}

/*
 * Will the space a reservation lacks come back by itself?  Tags and data
 * are freed oldest first, so only when the oldest tag's request is still
 * the ring's (being posted, in flight or being completed): it will
 * complete or time out.  A timed-out oldest tag holds its space until the
 * helper answers it, which may be never.  Lock held.
 */
static bool gpu_aes_ring_space_returns(const struct gpu_aes_ring *ring)
{
	const struct gpu_aes_tag *t;

	if (ring->tag_tail == ring->tag_head)
		return false;
	t = &ring->tags[ring->tag_tail & (ring->nr_entries - 1)];
	return t->state != GPU_AES_TAG_TIMED_OUT;
}

/*
 * Copy a reserved request's source into its data space.  No lock: the
 * tag is RESERVED, so nobody else touches it, and our reference keeps the
 * region mapped.
 */
static void gpu_aes_ring_copy_in(struct gpu_aes_ring *ring,
				 struct gpu_aes_job *job)
{
	const struct gpu_aes_tag *t = &ring->tags[job->tag];

	gpu_aes_ring_test_mid_copy(ring, false);
	job->ops->copy_in(job, ring->data + t->data_off);
}

/*
 * Write and publish the sqe of a reserved, filled request; it is in
 * flight from now on.  Lock held, attached.  *wake says whether to wake
 * the helper.
 */
static void gpu_aes_ring_post(struct gpu_aes_ring *ring,
			      struct gpu_aes_job *job, bool *wake)
{
	struct gpu_aes_tag *t = &ring->tags[job->tag];
	u32 mask = ring->nr_entries - 1;
	struct gpu_aes_sqe sqe = {};

	lockdep_assert_held(&ring->lock);
	/* The deadline counts from here: copying in is not the helper's. */
	t->deadline = jiffies + gpu_aes_timeout_jiffies();
	t->state = GPU_AES_TAG_IN_FLIGHT;
	ring->in_flight++;

	sqe.tag = job->tag;
	sqe.seq = t->seq;
	sqe.alg = job->alg;
	sqe.dir = job->dir;
	sqe.key_slot = t->key_slot;
	sqe.key_gen = t->key_gen;
	sqe.data_off = t->data_off;
	sqe.len = t->len;
	sqe.aad_len = job->aad_len;
	sqe.auth_len = job->auth_len;
	/* Read at posting: a CTR IV is the caller's until completion. */
	if (job->alg == GPU_AES_ALG_CTR || job->alg == GPU_AES_ALG_XTS)
		memcpy(sqe.iv, job->iv, AES_BLOCK_SIZE);
	else if (job->alg == GPU_AES_ALG_GCM)
		memcpy(sqe.iv, job->iv, GCM_AES_IV_SIZE);
	memcpy(&ring->sq[ring->sq_tail & mask], &sqe, sizeof(sqe));
	ring->sq_tail++;
	/*
	 * Entry, key and data before the tail; pairs with helper's acquire.
	 * The data was copied by this CPU before it took the lock.
	 */
	smp_store_release(&ring->hdr->sq_tail, ring->sq_tail);
	/*
	 * Order the tail store before the flag load; pairs with the helper's
	 * barrier between setting NEED_WAKEUP and re-reading sq_tail.
	 */
	smp_mb();
	if (READ_ONCE(ring->hdr->helper_flags) & GPU_AES_HELPER_NEED_WAKEUP)
		*wake = true;

	gpu_aes_stat_inc(GPU_AES_STAT_RING_REQUESTS);
	gpu_aes_stat_inc(gpu_aes_stat_ring_alg(job->alg));
	gpu_aes_stat_add(GPU_AES_STAT_RING_BYTES, t->len);
	gpu_aes_ring_arm_timeout(ring, t->deadline);
}

static void gpu_aes_ring_wake(struct gpu_aes_ring *ring)
{
	wake_up_interruptible(&ring->wq);
	gpu_aes_ring_test_kick(ring);
}

int gpu_aes_route(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
		  u64 bytes)
{
	enum gpu_aes_fallback_reason why;
	int ret;

	if (bytes < READ_ONCE(gpu_aes_ring_min_bytes)) {
		why = GPU_AES_FB_SMALL;
	} else if (bytes > READ_ONCE(gpu_aes_ring_max_bytes)) {
		why = GPU_AES_FB_LARGE;
	} else if (!job->may_backlog) {
		/*
		 * A caller that cannot be told -EBUSY gets its answer before
		 * the call returns.  AF_ALG's AEAD AIO is one: it refuses a
		 * socket's next AIO read with -EBUSY while one is in flight
		 * (af_alg_alloc_areq()), so answering -EINPROGRESS would fail
		 * the reads queued behind it, where the CPU driver we displace
		 * answers each at once.
		 */
		why = GPU_AES_FB_NO_BACKLOG;
	} else {
		ret = gpu_aes_ring_submit(ring, job, &why);
		if (ret != GPU_AES_RING_FALLBACK)
			return ret;
	}
	gpu_aes_stat_fallback(why, bytes);
	return GPU_AES_RING_FALLBACK;
}

void gpu_aes_job_finish(struct gpu_aes_job *job, int err)
{
	local_bh_disable();
	job->ops->complete(job, err);
	local_bh_enable();
}

/*
 * A replay on the CPU decides a GCM decryption's tag itself; a mismatch is
 * as much an authentication failure as the helper's verdict.
 */
static int gpu_aes_ring_cpu_crypt(struct gpu_aes_job *job)
{
	int err = job->ops->cpu_crypt(job);

	if (err == -EBADMSG)
		gpu_aes_stat_inc(GPU_AES_STAT_AUTH_FAILURES);
	return err;
}

/*
 * Replay requests taken off the ring or the backlog on the CPU and complete
 * them; a backlogged one first hears -EINPROGRESS, as the API promises.
 */
static void gpu_aes_ring_finish_cpu(struct list_head *list)
{
	struct gpu_aes_job *job, *tmp;
	int err;

	list_for_each_entry_safe(job, tmp, list, node) {
		list_del(&job->node);
		if (job->backlogged) {
			job->backlogged = false;
			gpu_aes_job_finish(job, -EINPROGRESS);
		}
		err = gpu_aes_ring_cpu_crypt(job);
		gpu_aes_stat_inc(GPU_AES_STAT_RECOMPUTED);
		gpu_aes_job_finish(job, err);
	}
}

/*
 * Reserve space for backlogged requests, oldest first, and move them onto
 * @admitted.  One that does not fit does not hold back those behind it
 * (only a want of tags, which every request needs, ends the walk).  One
 * whose tfm can get no key slot, or whose space will not come back by
 * itself (gpu_aes_ring_space_returns()), moves onto @cpu instead: the
 * backlog holds only requests that the ring's own completions will let
 * in.  Lock held, attached.
 */
static void gpu_aes_ring_admit(struct gpu_aes_ring *ring,
			       struct list_head *admitted,
			       struct list_head *cpu)
{
	struct gpu_aes_job *job, *tmp;
	int err;

	lockdep_assert_held(&ring->lock);
	ring->may_admit = false;
	list_for_each_entry_safe(job, tmp, &ring->backlog, node) {
		err = gpu_aes_ring_reserve(ring, job);
		if (!err)
			list_move_tail(&job->node, admitted);
		else if (err == -ENOKEY || !gpu_aes_ring_space_returns(ring))
			list_move_tail(&job->node, cpu);
		else if (err == -EAGAIN)
			break;
	}
}

/*
 * Admitted requests hold RESERVED tags, which nothing else completes or
 * expires, so -EINPROGRESS is surely their first callback.  Then they are
 * copied in and posted like any submission; one whose ring was detached
 * meanwhile is recomputed on the CPU.
 */
static void gpu_aes_ring_post_admitted(struct gpu_aes_ring *ring,
				       struct list_head *admitted, bool *wake)
{
	struct gpu_aes_job *job, *tmp;
	unsigned int refs = 0;
	LIST_HEAD(lost);

	if (list_empty(admitted))
		return;
	list_for_each_entry(job, admitted, node) {
		job->backlogged = false;
		gpu_aes_job_finish(job, -EINPROGRESS);
		gpu_aes_ring_copy_in(ring, job);
	}
	spin_lock_bh(&ring->lock);
	list_for_each_entry_safe(job, tmp, admitted, node) {
		list_del(&job->node);
		if (ring->attached)
			gpu_aes_ring_post(ring, job, wake);
		else
			list_add_tail(&job->node, &lost);
		refs++;
	}
	spin_unlock_bh(&ring->lock);
	while (refs--)
		gpu_aes_ring_put(ring);
	gpu_aes_ring_finish_cpu(&lost);
}

int gpu_aes_ring_submit(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
			enum gpu_aes_fallback_reason *why)
{
	bool reserved = false, wake = false;
	LIST_HEAD(admitted);
	LIST_HEAD(cpu);
	int ret, err;

	spin_lock_bh(&ring->lock);
	if (!ring->attached) {
		*why = GPU_AES_FB_NO_HELPER;
		ret = GPU_AES_RING_FALLBACK;
	} else if (gpu_aes_job_span(job) > ring->data_size / 4) {
		*why = GPU_AES_FB_LARGE;
		ret = GPU_AES_RING_FALLBACK;
	} else if (ring->stalled) {
		*why = GPU_AES_FB_STALLED;
		ret = GPU_AES_RING_FALLBACK;
	} else {
		/* Freed space goes to those already waiting first. */
		if (ring->may_admit && !list_empty(&ring->backlog))
			gpu_aes_ring_admit(ring, &admitted, &cpu);
		err = gpu_aes_ring_reserve(ring, job);
		if (!err) {
			reserved = true;
			ret = -EINPROGRESS;
		} else if (err == -ENOKEY) {
			*why = GPU_AES_FB_NO_KEY;
			ret = GPU_AES_RING_FALLBACK;
		} else if (gpu_aes_ring_space_returns(ring)) {
			job->backlogged = true;
			job->deadline = jiffies + gpu_aes_timeout_jiffies();
			list_add_tail(&job->node, &ring->backlog);
			gpu_aes_stat_inc(GPU_AES_STAT_BACKLOGGED);
			gpu_aes_ring_arm_timeout(ring, job->deadline);
			ret = -EBUSY;
		} else {
			*why = GPU_AES_FB_FULL;
			ret = GPU_AES_RING_FALLBACK;
		}
	}
	spin_unlock_bh(&ring->lock);
	gpu_aes_ring_post_admitted(ring, &admitted, &wake);
	gpu_aes_ring_finish_cpu(&cpu);
	if (!reserved) {
		if (wake)
			gpu_aes_ring_wake(ring);
		return ret;
	}

	/* Up to ring_max_bytes: other CPUs submit and reap meanwhile. */
	gpu_aes_ring_copy_in(ring, job);
	spin_lock_bh(&ring->lock);
	if (ring->attached) {
		gpu_aes_ring_post(ring, job, &wake);
	} else {
		/* Detach is waiting for us; the tag dies with the table. */
		*why = GPU_AES_FB_NO_HELPER;
		ret = GPU_AES_RING_FALLBACK;
	}
	spin_unlock_bh(&ring->lock);
	gpu_aes_ring_put(ring);
	if (wake)
		gpu_aes_ring_wake(ring);
	return ret;
}

/*
 * EBADMSG is a verdict only a GCM decryption can have; from anything else
 * it is garbage, judged by the tag's own alg and dir, not the helper's.
 */
static bool gpu_aes_status_valid(const struct gpu_aes_tag *t, s32 status)
{
	if (status == GPU_AES_STATUS_EBADMSG)
		return t->alg == GPU_AES_ALG_GCM &&
		       t->dir == GPU_AES_DIR_DECRYPT;
	return status == GPU_AES_STATUS_OK || status == GPU_AES_STATUS_EIO ||
	       status == GPU_AES_STATUS_EINVAL;
}

/*
 * Validate one cqe; a valid one moves its tag IN_FLIGHT -> COMPLETING and
 * its request onto @done (returns 1), a late one releases its tag.  Lock
 * held.
 */
static int gpu_aes_ring_claim_one(struct gpu_aes_ring *ring,
				  const struct gpu_aes_cqe *c,
				  struct list_head *done)
{
	struct gpu_aes_job *job;
	struct gpu_aes_tag *t;
	u32 tag, seq;
	s32 status;

	tag = READ_ONCE(c->tag);
	seq = READ_ONCE(c->seq);
	status = READ_ONCE(c->status);
	if (tag >= ring->nr_entries)
		goto reject;
	t = &ring->tags[tag];
	if (t->seq != seq || !gpu_aes_status_valid(t, status))
		goto reject;
	if (t->state == GPU_AES_TAG_TIMED_OUT) {
		ring->stalled = false;
		gpu_aes_stat_inc(GPU_AES_STAT_LATE_COMPLETIONS);
		gpu_aes_tag_release(ring, t);
		return 0;
	}
	if (t->state != GPU_AES_TAG_IN_FLIGHT)
		goto reject;
	ring->stalled = false;
	t->state = GPU_AES_TAG_COMPLETING;
	ring->in_flight--;
	job = t->job;
	job->tag = tag;
	job->status = status;
	list_add_tail(&job->node, done);
	return 1;
reject:
	gpu_aes_stat_inc(GPU_AES_STAT_REJECTED_COMPLETIONS);
	return 0;
}

/*
 * Copy the claimed requests' results out.  No lock: COMPLETING tags are
 * ours alone and our reference keeps the region mapped.
 */
static void gpu_aes_ring_copy_out(struct gpu_aes_ring *ring,
				  struct list_head *done)
{
	const struct gpu_aes_tag *t;
	struct gpu_aes_job *job;

	gpu_aes_ring_test_mid_copy(ring, true);
	list_for_each_entry(job, done, node) {
		t = &ring->tags[job->tag];
		if (job->status == GPU_AES_STATUS_EBADMSG) {
			/* A forgery: no byte of its plaintext leaves. */
			gpu_aes_stat_inc(GPU_AES_STAT_AUTH_FAILURES);
			job->status = -EBADMSG;
			continue;
		}
		if (job->status) {
			gpu_aes_stat_inc(GPU_AES_STAT_HELPER_ERRORS);
			gpu_aes_stat_inc(GPU_AES_STAT_RECOMPUTED);
			job->status = gpu_aes_ring_cpu_crypt(job);
			continue;
		}
		job->ops->copy_out(job, ring->data + t->data_off);
	}
}

int gpu_aes_ring_reap(struct gpu_aes_ring *ring)
{
	struct gpu_aes_job *job, *tmp;
	u32 tail, end, mask, target = 0;
	bool first = true, wake = false;
	int accepted = 0, ret = 0;

	for (;;) {
		LIST_HEAD(admitted);
		LIST_HEAD(done);
		LIST_HEAD(cpu);

		spin_lock_bh(&ring->lock);
		if (!ring->attached) {
			ret = first ? -ENXIO : 0;
			break;
		}
		mask = ring->nr_entries - 1;
		/* cqes before the tail; pairs with the helper's release. */
		tail = smp_load_acquire(&ring->hdr->cq_tail);
		if (tail - ring->cq_head > ring->nr_entries) {
			gpu_aes_stat_inc(GPU_AES_STAT_REJECTED_COMPLETIONS);
			ret = -EINVAL;
			break;
		}
		/*
		 * Everything published before the call is claimed by us or by
		 * a concurrent reaper; newer cqes are theirs or the next
		 * call's, so a busy helper cannot keep one caller here.
		 */
		if (first)
			target = tail;
		first = false;
		if (tail == ring->cq_head || (s32)(target - ring->cq_head) <= 0)
			break;
		end = ring->cq_head + min(tail - ring->cq_head,
					  GPU_AES_REAP_BATCH);
		for (; ring->cq_head != end; ring->cq_head++)
			accepted += gpu_aes_ring_claim_one(ring,
				&ring->cq[ring->cq_head & mask], &done);
		/* Our reads of the cqes before the helper may reuse them. */
		smp_store_release(&ring->hdr->cq_head, ring->cq_head);
		if (list_empty(&done)) {
			/* Late completions may have freed space. */
			gpu_aes_ring_admit(ring, &admitted, &cpu);
			spin_unlock_bh(&ring->lock);
			gpu_aes_ring_post_admitted(ring, &admitted, &wake);
			gpu_aes_ring_finish_cpu(&cpu);
			continue;
		}
		gpu_aes_ring_get(ring);
		spin_unlock_bh(&ring->lock);

		gpu_aes_ring_copy_out(ring, &done);

		spin_lock_bh(&ring->lock);
		/* After a detach the table is going away with the tags. */
		if (ring->attached) {
			list_for_each_entry(job, &done, node)
				gpu_aes_tag_release(ring, &ring->tags[job->tag]);
			gpu_aes_ring_admit(ring, &admitted, &cpu);
		}
		spin_unlock_bh(&ring->lock);
		gpu_aes_ring_put(ring);

		list_for_each_entry_safe(job, tmp, &done, node) {
			list_del(&job->node);
			gpu_aes_job_finish(job, job->status);
		}
		gpu_aes_ring_post_admitted(ring, &admitted, &wake);
		gpu_aes_ring_finish_cpu(&cpu);
	}
	spin_unlock_bh(&ring->lock);
	if (wake)
		gpu_aes_ring_wake(ring);
	return ret ? ret : accepted;
}

static void gpu_aes_ring_timeout_fn(struct work_struct *work)
{
	struct gpu_aes_ring *ring = container_of(to_delayed_work(work),
						 struct gpu_aes_ring,
						 timeout_work);
	struct gpu_aes_job *job, *tmp;
	unsigned long now, next = 0;
	bool armed = false, wake = false;
	LIST_HEAD(admitted);
	LIST_HEAD(expired);
	struct gpu_aes_tag *t;
	u32 i, left;

	mutex_lock(&ring->scan_mutex);
	spin_lock_bh(&ring->lock);
	ring->scan_armed = false;
	if (!ring->attached)
		goto out;
	now = jiffies;
	/*
	 * Only IN_FLIGHT tags have deadlines (RESERVED ones are still being
	 * copied in by their submitters); stop after the last of them.
	 */
	left = ring->in_flight;
	for (i = ring->tag_tail; left && i != ring->tag_head; i++) {
		t = &ring->tags[i & (ring->nr_entries - 1)];
		if (t->state != GPU_AES_TAG_IN_FLIGHT)
			continue;
		left--;
		if (time_after_eq(now, t->deadline)) {
			list_add_tail(&t->job->node, &expired);
			t->state = GPU_AES_TAG_TIMED_OUT;
			t->job = NULL;
			ring->in_flight--;
			gpu_aes_stat_inc(GPU_AES_STAT_TIMEOUTS);
			ring->stalled = true;
		} else if (!armed || time_before(t->deadline, next)) {
			next = t->deadline;
			armed = true;
		}
	}
	list_for_each_entry_safe(job, tmp, &ring->backlog, node) {
		if (ring->stalled) {
			/* Flush: see struct gpu_aes_ring's @stalled. */
			list_move_tail(&job->node, &expired);
		} else if (time_after_eq(now, job->deadline)) {
			list_move_tail(&job->node, &expired);
			gpu_aes_stat_inc(GPU_AES_STAT_TIMEOUTS);
		}
	}
	/*
	 * A wait that will not end (a timed-out oldest tag) ends here; what
	 * fits now goes in.
	 */
	gpu_aes_ring_admit(ring, &admitted, &expired);
	list_for_each_entry(job, &ring->backlog, node)
		if (!armed || time_before(job->deadline, next)) {
			next = job->deadline;
			armed = true;
		}
	if (armed)
		gpu_aes_ring_arm_timeout(ring, next);
out:
	spin_unlock_bh(&ring->lock);
	mutex_unlock(&ring->scan_mutex);
	gpu_aes_ring_post_admitted(ring, &admitted, &wake);
	gpu_aes_ring_finish_cpu(&expired);
	if (wake)
		gpu_aes_ring_wake(ring);
}

int gpu_aes_ring_attach(struct gpu_aes_ring *ring, void *base,
			const struct gpu_aes_setup *s)
{
	struct gpu_aes_region_hdr *hdr = base;
	struct gpu_aes_tfm_key **key_owner;
	u32 *key_gen, *key_inflight;
	unsigned long *key_map;
	struct gpu_aes_layout l;
	struct gpu_aes_tag *tags;
	int ret;

	ret = gpu_aes_setup_check(s);
	if (ret)
		return ret;
	tags = kvcalloc(s->nr_entries, sizeof(*tags), GFP_KERNEL);
	key_map = kvcalloc(BITS_TO_LONGS(s->nr_keys), sizeof(long), GFP_KERNEL);
	key_gen = kvcalloc(s->nr_keys, sizeof(*key_gen), GFP_KERNEL);
	key_owner = kvcalloc(s->nr_keys, sizeof(*key_owner), GFP_KERNEL);
	key_inflight = kvcalloc(s->nr_keys, sizeof(*key_inflight), GFP_KERNEL);
	if (!tags || !key_map || !key_gen || !key_owner || !key_inflight) {
		ret = -ENOMEM;
		goto err;
	}

	mutex_lock(&ring->setup_mutex);
	if (ring->attached) {
		mutex_unlock(&ring->setup_mutex);
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
	ring->may_admit = false;
	/* A scan cancelled by the last detach is not queued any more. */
	ring->scan_armed = false;
	ring->key_map = key_map;
	ring->key_gen = key_gen;
	ring->key_owner = key_owner;
	ring->key_inflight = key_inflight;
	ring->key_scan_after = jiffies;
	ring->attached = true;
	spin_unlock_bh(&ring->lock);
	mutex_unlock(&ring->setup_mutex);
	gpu_aes_stat_inc(GPU_AES_STAT_HELPER_ATTACHES);
	return 0;

err:
	kvfree(tags);
	kvfree(key_map);
	kvfree(key_gen);
	kvfree(key_owner);
	kvfree(key_inflight);
	return ret;
}

void gpu_aes_ring_detach(struct gpu_aes_ring *ring)
{
	struct gpu_aes_tfm_key **key_owner;
	u32 *key_gen, *key_inflight;
	unsigned long *key_map;
	struct gpu_aes_tag *tags;
	struct gpu_aes_tag *t;
	LIST_HEAD(redo);
	unsigned long s;
	u32 i;

	mutex_lock(&ring->setup_mutex);
	spin_lock_bh(&ring->lock);
	if (!ring->attached) {
		spin_unlock_bh(&ring->lock);
		mutex_unlock(&ring->setup_mutex);
		return;
	}
	/* From here nobody takes a new reference. */
	ring->attached = false;
	spin_unlock_bh(&ring->lock);
	/*
	 * Submitters copying in and reapers copying out use the region and
	 * the tags without the lock; they see !attached when they come back
	 * and leave their tags alone.  A reference is held only across a
	 * copy (submitters may be in softirq and never sleep), so this wait
	 * is short.
	 */
	wait_var_event(&ring->users, !atomic_read(&ring->users));

	spin_lock_bh(&ring->lock);
	for (i = ring->tag_tail; i != ring->tag_head; i++) {
		t = &ring->tags[i & (ring->nr_entries - 1)];
		if (t->state != GPU_AES_TAG_IN_FLIGHT)
			continue;
		list_add_tail(&t->job->node, &redo);
	}
	list_splice_tail_init(&ring->backlog, &redo);
	for_each_set_bit(s, ring->key_map, ring->nr_keys)
		memzero_explicit(&ring->keys[s], sizeof(ring->keys[0]));
	ring->attach_gen++;
	tags = ring->tags;
	key_map = ring->key_map;
	key_gen = ring->key_gen;
	key_owner = ring->key_owner;
	key_inflight = ring->key_inflight;
	ring->tags = NULL;
	ring->key_map = NULL;
	ring->key_gen = NULL;
	ring->key_owner = NULL;
	ring->key_inflight = NULL;
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
	kvfree(key_owner);
	kvfree(key_inflight);
	mutex_unlock(&ring->setup_mutex);
	/* The work sees !attached and does nothing. */
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
