// SPDX-License-Identifier: GPL-2.0-only
/*
 * queue.c - one queue of the ring: its tags and the byte ring of its data
 * slice, posting a request and judging a completion, and the deadlines
 * the scan keeps (queue.h says which lock each takes; ring_state.h has the
 * locking rules).
 *
 * Within a queue, tags are allocated round robin and freed in allocation
 * order, which is also the order of the queue's data slice: a tag's data
 * space and the tag itself are freed together once every older tag of the
 * queue is released.  So one stuck request holds back reuse behind it on
 * its queue, which is what the byte ring needs anyway (a batch's data
 * stays contiguous), and the deadline scan bounds how long.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "keys.h"
#include "params.h"
#include "queue.h"
#include "replay.h"

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

static void gpu_aes_ring_test_posted(struct gpu_aes_ring *ring,
				     struct gpu_aes_job *job)
{
	void (*fn)(struct gpu_aes_ring *ring, struct gpu_aes_job *job) =
		READ_ONCE(ring->posted);

	if (fn)
		fn(ring, job);
}

static void gpu_aes_ring_test_claiming(struct gpu_aes_ring *ring,
				       struct gpu_aes_tag *t)
{
	void (*fn)(struct gpu_aes_ring *ring, struct gpu_aes_tag *t) =
		READ_ONCE(ring->claiming);

	if (fn)
		fn(ring, t);
}

struct gpu_aes_queue *gpu_aes_ring_queue(struct gpu_aes_ring *ring)
{
	int forced = READ_ONCE(ring->test_queue);
	u32 n = READ_ONCE(ring->nr_queues);

	if (forced >= 0)
		return &ring->queues[forced % n];
	return &ring->queues[raw_smp_processor_id() % n];
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

static inline void gpu_aes_ring_test_posted(struct gpu_aes_ring *ring,
					    struct gpu_aes_job *job)
{
}

static inline void gpu_aes_ring_test_claiming(struct gpu_aes_ring *ring,
					      struct gpu_aes_tag *t)
{
}

/*
 * This CPU's queue.  A submitter preempted (process context) may move to
 * another CPU before it posts: it keeps the queue it reserved on.
 */
struct gpu_aes_queue *gpu_aes_ring_queue(struct gpu_aes_ring *ring)
{
	return &ring->queues[raw_smp_processor_id() %
			     READ_ONCE(ring->nr_queues)];
}
#endif

unsigned long gpu_aes_timeout_jiffies(void)
{
	return msecs_to_jiffies(max(READ_ONCE(gpu_aes_timeout_ms), 1U));
}

/*
 * Make sure the queue's deadline scan runs by @deadline.  Only when the
 * scan is idle or due later, so a busy queue does not touch the timer per
 * request.  mod_, not schedule_: a pending scan may be due later
 * (timeout_ms is writable at run time), and schedule_delayed_work() would
 * leave it so.  Lock held.
 */
void gpu_aes_queue_arm_timeout(struct gpu_aes_queue *q,
			       unsigned long deadline)
{
	unsigned long now = jiffies;

	lockdep_assert_held(&q->lock);
	if (q->scan_armed && !time_before(deadline, q->scan_at))
		return;
	/* Read without the lock by posters: gpu_aes_queue_post(). */
	WRITE_ONCE(q->scan_armed, true);
	WRITE_ONCE(q->scan_at, deadline);
	mod_delayed_work(system_wq, &q->timeout_work,
			 time_after(deadline, now) ? deadline - now : 0);
}

/*
 * Free released tags (and their data space) from the oldest on, stopping
 * at the first one still in use.  Lock held.  Reservers read the tails
 * without it: each is published with release, after everything we did
 * with the tag and its bytes (the copy out came before).
 */
void gpu_aes_tag_release(struct gpu_aes_queue *q,
			 struct gpu_aes_tag *t)
{
	u32 mask = q->ring->queue_entries - 1;

	t->state = GPU_AES_TAG_RELEASED;
	t->job = NULL;
	/* Pairs with gpu_aes_key_users()' acquire (keys.c). */
	smp_store_release(&q->key_returned[t->key_slot],
			  q->key_returned[t->key_slot] + 1);
	/*
	 * Up to the first tag not RELEASED.  No need to read tag_head, a
	 * line the submitting side writes: the tag at the head is FREE (or
	 * being reserved), never RELEASED.
	 */
	for (;;) {
		t = &q->tags[q->tag_tail & mask];
		/* A reserver or poster may be moving this one on. */
		if (READ_ONCE(t->state) != GPU_AES_TAG_RELEASED)
			break;
		/* The bytes' last use before; pairs with the reserve's. */
		smp_store_release(&q->data_tail, t->end);
		t->state = GPU_AES_TAG_FREE;
		/* FREE before; pairs with the reserve's acquire. */
		smp_store_release(&q->tag_tail, q->tag_tail + 1);
	}
}

/*
 * A reference that keeps the queue's tag table and the region in place
 * while its holder works on them without a lock.  Taken while attached,
 * under either lock (detach clears attached under both): a reserver's
 * under sq_lock, a reaper's under the queue's lock; detach waits for
 * every queue's count to reach zero.
 */
void gpu_aes_queue_get(struct gpu_aes_queue *q)
{
	lockdep_assert(lockdep_is_held(&q->lock) ||
		       lockdep_is_held(&q->sq_lock));
	atomic_inc(&q->users);
}

void gpu_aes_queue_put(struct gpu_aes_queue *q)
{
	/* Fully ordered: our accesses to the region come before the wake. */
	if (atomic_dec_and_test(&q->users))
		wake_up_var(&q->users);
}

/* Give back a key slot count that gpu_aes_key_prepare() took.  sq_lock held. */
static void gpu_aes_queue_key_put(struct gpu_aes_queue *q, u16 slot)
{
	WRITE_ONCE(q->key_taken[slot], q->key_taken[slot] - 1);
}

/*
 * Reserve a key slot, a tag and data space for @job on @q and take a
 * reference for its copy-in.  sq_lock held, attached.  Returns 0, -ENOKEY
 * (no key slot to be had: nothing reserved), -EAGAIN (no tag) or -ENOSPC
 * (no data space); after the last two the tfm keeps the key slot it may
 * have taken.  The tails are the reapers' (gpu_aes_tag_release()): read
 * with acquire, they say what is free, and reuse comes after their last
 * access to it.
 */
int gpu_aes_queue_reserve(struct gpu_aes_queue *q,
			  struct gpu_aes_job *job)
{
	struct gpu_aes_ring *ring = q->ring;
	/* GCM's tag and associated data travel with the text. */
	u64 alen = ALIGN(gpu_aes_job_span(job), GPU_AES_DATA_ALIGN);
	u64 size = ring->queue_data_size;
	u32 mask = ring->queue_entries - 1;
	struct gpu_aes_tag *t;
	u64 off, skip;
	u16 slot;
	u32 gen;

	lockdep_assert_held(&q->sq_lock);
	if (gpu_aes_key_prepare(ring, q, job->key, &slot, &gen))
		return -ENOKEY;
	/* Pairs with gpu_aes_tag_release(): the tag is FREE. */
	if (q->tag_head - smp_load_acquire(&q->tag_tail) >=
	    ring->queue_entries)
		goto no_space;
	/* A request never wraps: skip the tail of the slice instead. */
	div64_u64_rem(q->data_head, size, &off);
	skip = off + alen > size ? size - off : 0;
	/* Pairs with gpu_aes_tag_release(): the bytes are done with. */
	if (q->data_head - smp_load_acquire(&q->data_tail) + skip + alen >
	    size) {
		gpu_aes_queue_key_put(q, slot);
		return -ENOSPC;
	}

	job->tag = q->tag_head & mask;
	job->queue = q->id;
	t = &q->tags[job->tag];
	/* Read by reapers and the scan without sq_lock (ring.h). */
	WRITE_ONCE(q->tag_head, q->tag_head + 1);
	WRITE_ONCE(q->data_head, q->data_head + skip + alen);
	t->end = q->data_head;
	t->data_off = q->data_base + (skip ? 0 : off);
	t->len = job->len;
	t->job = job;
	t->alg = job->desc->alg;
	t->dir = job->dir;
	/* The low byte stays the queue's number (ring.h). */
	WRITE_ONCE(t->seq, t->seq + (1U << 8));
	t->key_slot = slot;
	t->key_gen = gen;
	WRITE_ONCE(t->state, GPU_AES_TAG_RESERVED);
	gpu_aes_queue_get(q);
	return 0;

no_space:
	gpu_aes_queue_key_put(q, slot);
	return -EAGAIN;
}

/*
 * For a request that will not be reserved now: -ENOKEY if its tfm can get
 * no key slot (as gpu_aes_queue_reserve() would say), else -ENOSPC,
 * holding nothing.  sq_lock held, attached.
 */
int gpu_aes_queue_key_check(struct gpu_aes_queue *q,
			    struct gpu_aes_job *job)
{
	u16 slot;
	u32 gen;

	lockdep_assert_held(&q->sq_lock);
	if (gpu_aes_key_prepare(q->ring, q, job->key, &slot, &gen))
		return -ENOKEY;
	gpu_aes_queue_key_put(q, slot);
	return -ENOSPC;
}

/*
 * Will the space a reservation lacks come back by itself, within the
 * deadlines of the requests that hold it?  Tags and data are freed oldest
 * first, so only when the oldest tag's request is on the ring (in flight
 * or being completed: it will complete or time out) or is being posted by
 * the admission that reserved it (gpu_aes_queue_unlock_post_admitted()).
 * A timed-out oldest tag holds its space until the helper answers it,
 * which may be never.  A RESERVED oldest tag has no deadline: its
 * submitter copies in preemptibly and may be kept off the CPU for as long
 * as anyone can starve a thread (any user can, on a fully preemptible
 * kernel: a SCHED_IDLE submitter among its own busy loops), and every
 * request posted behind it was reserved after it, so the queue filled
 * while it sat there.  Both locks held, so no reaper frees space and no
 * reservation takes it meanwhile.
 */
bool gpu_aes_queue_space_returns(const struct gpu_aes_queue *q)
{
	const struct gpu_aes_tag *t;
	u8 state;

	if (q->tag_tail == q->tag_head)
		return false;
	t = &q->tags[q->tag_tail & (q->ring->queue_entries - 1)];
	/*
	 * A poster may be moving it to IN_FLIGHT (under sq_lock): read once.
	 * Seen RESERVED a moment early, the request runs on the CPU now
	 * rather than waiting: the safe side.
	 */
	state = READ_ONCE(t->state);
	return state == GPU_AES_TAG_IN_FLIGHT ||
	       state == GPU_AES_TAG_COMPLETING ||
	       state == GPU_AES_TAG_ADMITTED;
}

/*
 * Copy a reserved request's source into its data space.  No lock: the
 * tag is RESERVED or ADMITTED, so nobody else touches it, and our
 * reference keeps the region mapped.
 */
void gpu_aes_queue_copy_in(struct gpu_aes_queue *q,
			   struct gpu_aes_job *job)
{
	const struct gpu_aes_tag *t = &q->tags[job->tag];

	gpu_aes_ring_test_mid_copy(q->ring, false);
	job->ops->copy_in(job, q->ring->data + t->data_off);
	gpu_aes_slot_copied();
}

/*
 * Write and publish the sqe of a reserved, filled request; it is in
 * flight from now on, due by @deadline.  sq_lock held, attached.  *wake
 * says whether to wake the helper; returns whether the deadline scan must
 * be armed for the request (gpu_aes_queue_arm_posted(), once sq_lock is
 * dropped).  The deadline is the caller's, not read from the job: once
 * posted, the job may be completed and reused at once.
 *
 * The tag turns IN_FLIGHT without the queue's lock, which reapers and the
 * scan hold: before the sqe that names it is published (a completion can
 * only follow that, so a reaper sees IN_FLIGHT), after its deadline, and
 * with nothing of the tag or the job touched after (a hostile helper may
 * complete it at once, and the scan may time it out).
 */
bool gpu_aes_queue_post(struct gpu_aes_queue *q,
			struct gpu_aes_job *job, unsigned long deadline,
			bool *wake)
{
	struct gpu_aes_tag *t = &q->tags[job->tag];
	u32 mask = q->ring->queue_entries - 1;
	struct gpu_aes_sqe sqe = {};

	lockdep_assert_held(&q->sq_lock);
	sqe.tag = job->tag;
	sqe.seq = t->seq;
	sqe.alg = t->alg;
	sqe.dir = job->dir;
	sqe.key_slot = t->key_slot;
	sqe.key_gen = t->key_gen;
	sqe.data_off = t->data_off;
	sqe.len = t->len;
	sqe.aad_len = job->aad_len;
	sqe.auth_len = job->auth_len;
	/* Read at posting: a CTR IV is the caller's until completion. */
	memcpy(sqe.iv, job->iv, job->desc->iv_bytes);
	memcpy(&q->sq[q->sq_tail & mask], &sqe, sizeof(sqe));
	gpu_aes_stat_inc(GPU_AES_STAT_RING_REQUESTS);
	gpu_aes_stat_inc(gpu_aes_alg_ring_stat(job->desc));
	gpu_aes_stat_add(GPU_AES_STAT_RING_BYTES, t->len);

	WRITE_ONCE(t->deadline, deadline);
	/* Counted before it can be retired: gpu_aes_queue_in_flight(). */
	WRITE_ONCE(q->posted, q->posted + 1);
	/* Deadline and count first; pairs with the reaper's and scan's. */
	smp_store_release(&t->state, GPU_AES_TAG_IN_FLIGHT);
	q->sq_tail++;
	/*
	 * Entry, key and data before the tail; pairs with helper's acquire.
	 * The data was copied by this CPU before it took the lock.
	 */
	smp_store_release(&q->qhdr->sq_tail, q->sq_tail);
	gpu_aes_ring_test_posted(q->ring, job);
	/*
	 * Order the tail and the state before the loads below: pairs with
	 * the helper's barrier between setting NEED_WAKEUP and re-reading
	 * sq_tail, and with the scan's between clearing scan_armed and
	 * reading the tags' states (gpu_aes_queue_timeout_fn()): either it
	 * sees this tag IN_FLIGHT or we see it unarmed.
	 */
	smp_mb();
	if (READ_ONCE(q->qhdr->helper_flags) & GPU_AES_HELPER_NEED_WAKEUP)
		*wake = true;
	return !READ_ONCE(q->scan_armed) ||
	       time_before(deadline, READ_ONCE(q->scan_at));
}

/*
 * Make sure the deadline scan runs by @deadline, for requests whose post
 * found it unarmed or armed later.  No lock held.
 */
void gpu_aes_queue_arm_posted(struct gpu_aes_queue *q,
			      unsigned long deadline)
{
	spin_lock_bh(&q->lock);
	if (q->attached)
		gpu_aes_queue_arm_timeout(q, deadline);
	spin_unlock_bh(&q->lock);
}

/*
 * Once per sleep of the helper.  While it wakes up, every post on every
 * CPU sees NEED_WAKEUP still set; each waking it again would take the
 * wait queue's lock for nothing.  The flag is re-armed by the poll()
 * handler before it looks for work, so a post it does not find rings.
 */
void gpu_aes_ring_wake(struct gpu_aes_ring *ring)
{
	if (atomic_read(&ring->doorbell_rung) ||
	    atomic_xchg(&ring->doorbell_rung, 1))
		return;
	gpu_aes_stat_inc(GPU_AES_STAT_HELPER_WAKEUPS);
	wake_up_interruptible(&ring->wq);
	gpu_aes_ring_test_kick(ring);
}

/*
 * Requests on this queue wait past their deadlines: new ones go to the
 * CPU at once until the helper completes something here.  Lock held.
 */
void gpu_aes_queue_stall(struct gpu_aes_queue *q)
{
	lockdep_assert_held(&q->lock);
	if (!q->stalled)
		q->stalled_at = ktime_get_boottime_ns();
	WRITE_ONCE(q->stalled, true);
}

/*
 * EBADMSG is a verdict only an AEAD's decryption can have; from anything
 * else it is garbage, judged by the tag's own alg and dir, not the
 * helper's.
 */
static bool gpu_aes_status_valid(const struct gpu_aes_tag *t, s32 status)
{
	if (status == GPU_AES_STATUS_EBADMSG)
		return gpu_aes_alg_aead(t->alg) &&
		       t->dir == GPU_AES_DIR_DECRYPT;
	return status == GPU_AES_STATUS_OK || status == GPU_AES_STATUS_EIO ||
	       status == GPU_AES_STATUS_EINVAL;
}

/*
 * Validate one cqe of @q; a valid one moves its tag IN_FLIGHT ->
 * COMPLETING and its request onto @done (returns 1), a late one releases
 * its tag.  A cqe naming another queue's tag fails the seq check: seqs
 * carry their queue's number.  Lock held.
 *
 * The tag's state is read first, with acquire, and only then what posting
 * published with it: seq, alg and dir.  A poster turns a tag IN_FLIGHT
 * under sq_lock, not ours, with a release that its reservation's stores
 * of those fields precede (gpu_aes_queue_post()); our acquire pairs with
 * it.  Read before the state, on a weakly ordered CPU (arm64; x86 and its
 * emulators are TSO and cannot show it) they could be a previous use's
 * beside this use's IN_FLIGHT: a hostile helper completing a tag as it is
 * posted could have a stale GCM decryption's alg and dir accept its
 * EBADMSG for a CTR request, or a stale seq reject a valid completion.
 * Read after, they are this use's, and stay so while we hold the lock:
 * a tag leaves IN_FLIGHT (and TIMED_OUT) only under it, and only a FREE
 * tag is reserved again.
 */
int gpu_aes_queue_claim_one(struct gpu_aes_queue *q,
			    const struct gpu_aes_cqe *c,
			    struct list_head *done)
{
	struct gpu_aes_job *job;
	struct gpu_aes_tag *t;
	u32 tag, seq;
	s32 status;
	u8 state;

	tag = READ_ONCE(c->tag);
	seq = READ_ONCE(c->seq);
	status = READ_ONCE(c->status);
	if (tag >= q->ring->queue_entries)
		goto reject;
	t = &q->tags[tag];
	/* Pairs with the poster's release (see above). */
	state = smp_load_acquire(&t->state);
	gpu_aes_ring_test_claiming(q->ring, t);
	if (state != GPU_AES_TAG_IN_FLIGHT && state != GPU_AES_TAG_TIMED_OUT)
		goto reject;
	if (t->seq != seq || !gpu_aes_status_valid(t, status))
		goto reject;
	if (state == GPU_AES_TAG_TIMED_OUT) {
		WRITE_ONCE(q->stalled, false);
		gpu_aes_stat_inc(GPU_AES_STAT_LATE_COMPLETIONS);
		gpu_aes_tag_release(q, t);
		return 0;
	}
	/* Written only to change: submitters read its line every request. */
	if (q->stalled)
		WRITE_ONCE(q->stalled, false);
	t->state = GPU_AES_TAG_COMPLETING;
	WRITE_ONCE(q->retired, q->retired + 1);
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
 * ours alone and our reference keeps the region mapped.  One the helper
 * failed is left for a replay once its tag is released: the CPU driver
 * may complete it before it returns.
 */
void gpu_aes_queue_copy_out(struct gpu_aes_queue *q,
			    struct list_head *done)
{
	const struct gpu_aes_tag *t;
	struct gpu_aes_job *job;

	gpu_aes_ring_test_mid_copy(q->ring, true);
	list_for_each_entry(job, done, node) {
		t = &q->tags[job->tag];
		if (job->status == GPU_AES_STATUS_EBADMSG) {
			/* A forgery: no byte of its plaintext leaves. */
			gpu_aes_stat_inc(GPU_AES_STAT_AUTH_FAILURES);
			job->status = -EBADMSG;
			continue;
		}
		if (job->status) {
			gpu_aes_stat_inc(GPU_AES_STAT_HELPER_ERRORS);
			job->status = GPU_AES_JOB_REPLAY;
			continue;
		}
		job->ops->copy_out(job, q->ring->data + t->data_off);
	}
}
