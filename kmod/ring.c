// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring.c - queues, tags, the data allocator, submission, completion,
 * deadlines and the backlog (see ring.h and docs/design.md).
 *
 * Within a queue, tags are allocated round robin and freed in allocation
 * order, which is also the order of the queue's data slice: a tag's data
 * space and the tag itself are freed together once every older tag of the
 * queue is released.  So one stuck request holds back reuse behind it on
 * its queue, which is what the byte ring needs anyway (a batch's data
 * stays contiguous), and the deadline scan bounds how long.
 */
#include <crypto/aes.h>
#include <linux/bitmap.h>
#include <linux/bottom_half.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "keys.h"
#include "params.h"
#include "ring.h"

struct gpu_aes_ring gpu_aes_ring;

static void gpu_aes_queue_timeout_fn(struct work_struct *work);

int gpu_aes_ring_init(struct gpu_aes_ring *ring,
		      const struct gpu_aes_ring_observer *observer)
{
	struct gpu_aes_queue *q;
	u32 i;

	memset(ring, 0, sizeof(*ring));
	ring->observer = observer;
	mutex_init(&ring->setup_mutex);
	init_waitqueue_head(&ring->wq);
	spin_lock_init(&ring->key_lock);
	/*
	 * Room for every queue the ABI allows, whatever the CPU count: the
	 * helper may group CPUs (fewer queues) or test many queues on a small
	 * machine.  Never freed while the module lives: submitters index it
	 * unlocked.
	 */
	ring->max_queues = GPU_AES_MAX_QUEUES;
	ring->nr_queues = 1;
	ring->queues = kcalloc(ring->max_queues, sizeof(*ring->queues),
			       GFP_KERNEL);
	if (!ring->queues)
		return -ENOMEM;
	for (i = 0; i < ring->max_queues; i++) {
		q = &ring->queues[i];
		spin_lock_init(&q->lock);
		spin_lock_init(&q->sq_lock);
		q->ring = ring;
		q->id = i;
		atomic_set(&q->users, 0);
		mutex_init(&q->scan_mutex);
		INIT_DELAYED_WORK(&q->timeout_work, gpu_aes_queue_timeout_fn);
		INIT_LIST_HEAD(&q->backlog);
		q->nr_backlog = 0;
	}
#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
	ring->test_queue = -1;
#endif
	return 0;
}

void gpu_aes_ring_exit(struct gpu_aes_ring *ring)
{
	kfree(ring->queues);
	ring->queues = NULL;
}

/*
 * What a checked SETUP's helper serves of ours: what it says, with
 * GPU_AES_FEAT_ALGS; else what every helper of this ABI version serves.
 */
static u32 gpu_aes_setup_algs(const struct gpu_aes_setup *s)
{
	return gpu_aes_alg_set() & (s->features & GPU_AES_FEAT_ALGS ?
				    s->algs : GPU_AES_ALGS_V3);
}

int gpu_aes_setup_check(const struct gpu_aes_ring *ring,
			const struct gpu_aes_setup *s)
{
	struct gpu_aes_geometry g = s->geo;
	struct gpu_aes_layout l;

	if (s->abi_version != GPU_AES_ABI_VERSION ||
	    s->features & ~(GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS) ||
	    s->reserved0 || s->reserved[0] || s->reserved[1])
		return -EINVAL;
	/* Asked for, the set must name something we post; else be empty. */
	if (s->features & GPU_AES_FEAT_ALGS ?
	    !(s->algs & gpu_aes_alg_set()) : s->algs)
		return -EINVAL;
	if (!gpu_aes_geometry_valid(&g) || g.page_size != PAGE_SIZE ||
	    g.nr_queues > ring->max_queues)
		return -EINVAL;
	gpu_aes_layout(&g, &l);
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

static unsigned long gpu_aes_timeout_jiffies(void)
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
static void gpu_aes_queue_arm_timeout(struct gpu_aes_queue *q,
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
static void gpu_aes_tag_release(struct gpu_aes_queue *q,
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
static void gpu_aes_queue_get(struct gpu_aes_queue *q)
{
	lockdep_assert(lockdep_is_held(&q->lock) ||
		       lockdep_is_held(&q->sq_lock));
	atomic_inc(&q->users);
}

static void gpu_aes_queue_put(struct gpu_aes_queue *q)
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
static int gpu_aes_queue_reserve(struct gpu_aes_queue *q,
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
static int gpu_aes_queue_key_check(struct gpu_aes_queue *q,
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
static bool gpu_aes_queue_space_returns(const struct gpu_aes_queue *q)
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
static void gpu_aes_queue_copy_in(struct gpu_aes_queue *q,
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
static bool gpu_aes_queue_post(struct gpu_aes_queue *q,
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
static void gpu_aes_queue_arm_posted(struct gpu_aes_queue *q,
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
static void gpu_aes_ring_wake(struct gpu_aes_ring *ring)
{
	if (atomic_read(&ring->doorbell_rung) ||
	    atomic_xchg(&ring->doorbell_rung, 1))
		return;
	gpu_aes_stat_inc(GPU_AES_STAT_HELPER_WAKEUPS);
	wake_up_interruptible(&ring->wq);
	gpu_aes_ring_test_kick(ring);
}

void gpu_aes_job_finish(struct gpu_aes_job *job, int err)
{
	local_bh_disable();
	job->ops->complete(job, err);
	local_bh_enable();
}

/* job->status of a request the helper failed: replayed on the CPU. */
#define GPU_AES_JOB_REPLAY	1

/*
 * A replay on the CPU decides a GCM decryption's tag itself; a mismatch is
 * as much an authentication failure as the helper's verdict.
 */
static void gpu_aes_job_replayed(struct gpu_aes_job *job, int err)
{
	if (err == -EBADMSG)
		gpu_aes_stat_inc(GPU_AES_STAT_AUTH_FAILURES);
	gpu_aes_job_finish(job, err);
}

/*
 * Recompute a request the ring gave back on the CPU driver and complete
 * it, now or from the driver's callback.  Its caller heard -EINPROGRESS
 * (or is told it first, if backlogged), so the driver may queue it
 * (MAY_BACKLOG: an asynchronous one never answers -ENOSPC then) but must
 * not sleep: this runs in reapers, the deadline scan and detach.  The job
 * is the driver's from the call on.
 */
static void gpu_aes_job_replay(struct gpu_aes_job *job)
{
	int err;

	if (job->backlogged) {
		job->backlogged = false;
		gpu_aes_job_finish(job, -EINPROGRESS);
	}
	gpu_aes_stat_inc(GPU_AES_STAT_RECOMPUTED);
	job->replay = true;
	err = job->ops->cpu_crypt(job, CRYPTO_TFM_REQ_MAY_BACKLOG);
	if (err != -EINPROGRESS && err != -EBUSY)
		gpu_aes_job_replayed(job, err);
}

void gpu_aes_job_cpu_done(struct gpu_aes_job *job, int err)
{
	if (!job->replay) {
		/* Its caller heard the driver's own answer: all of it follows. */
		job->ops->complete(job, err);
		return;
	}
	/* The driver's backlog notice: the caller has had ours. */
	if (err == -EINPROGRESS)
		return;
	gpu_aes_job_replayed(job, err);
}

/* Replay requests taken off the ring or the backlog on the CPU. */
static void gpu_aes_ring_finish_cpu(struct list_head *list)
{
	struct gpu_aes_job *job, *tmp;

	list_for_each_entry_safe(job, tmp, list, node) {
		list_del(&job->node);
		gpu_aes_job_replay(job);
	}
}

/*
 * Requests on this queue wait past their deadlines: new ones go to the
 * CPU at once until the helper completes something here.  Lock held.
 */
static void gpu_aes_queue_stall(struct gpu_aes_queue *q)
{
	lockdep_assert_held(&q->lock);
	if (!q->stalled)
		q->stalled_at = ktime_get_boottime_ns();
	WRITE_ONCE(q->stalled, true);
}

/*
 * A backlogged request whose deadline has passed leaves for @cpu.  Its
 * wait is the helper's doing (only in-flight requests keep a request in
 * the backlog, gpu_aes_queue_space_returns()), so the queue stalls, as
 * for a request that timed out on the ring: the next one does not wait
 * a deadline too.  Lock held.
 */
static void gpu_aes_queue_expire_backlogged(struct gpu_aes_queue *q,
					    struct gpu_aes_job *job,
					    struct list_head *cpu)
{
	lockdep_assert_held(&q->lock);
	list_move_tail(&job->node, cpu);
	q->nr_backlog--;
	gpu_aes_stat_inc(GPU_AES_STAT_TIMEOUTS);
	gpu_aes_queue_stall(q);
}

/*
 * Reserve space for the queue's backlogged requests, oldest first, and
 * move them onto @admitted, up to the first one that does not fit: it
 * waits for the space that the queue's completions free, and those behind
 * it wait their turn (FIFO: a large request is not kept waiting by
 * smaller ones passing it).  One whose tfm can get no key slot, or whose
 * space will not come back by itself (gpu_aes_queue_space_returns()),
 * moves onto @cpu instead: the backlog holds only requests that the
 * queue's own completions will let in.  One past its deadline goes there
 * too, however much room there is: an admitted request keeps the deadline
 * it got when it was backlogged, and it would be replayed as soon as it
 * was posted.  So a call looks at the requests it takes off the backlog
 * and at one more: its cost is that of what it admits, whatever waits
 * behind (those past their deadlines there are the scan's).  Lock held,
 * attached; takes sq_lock to reserve, only when there is a backlog, so a
 * reap of a queue without one stays off the submitters' lock.
 */
static void gpu_aes_queue_admit(struct gpu_aes_queue *q,
				struct list_head *admitted,
				struct list_head *cpu)
{
	struct gpu_aes_job *job, *tmp;
	int err;

	lockdep_assert_held(&q->lock);
	if (list_empty(&q->backlog))
		return;
	spin_lock(&q->sq_lock);
	list_for_each_entry_safe(job, tmp, &q->backlog, node) {
		if (time_after_eq(jiffies, job->deadline)) {
			gpu_aes_queue_expire_backlogged(q, job, cpu);
			continue;
		}
		err = gpu_aes_queue_reserve(q, job);
		if (!err) {
			WRITE_ONCE(q->tags[job->tag].state,
				   GPU_AES_TAG_ADMITTED);
			list_move_tail(&job->node, admitted);
		} else if (err == -ENOKEY || !gpu_aes_queue_space_returns(q)) {
			list_move_tail(&job->node, cpu);
		} else {
			break;
		}
		q->nr_backlog--;
	}
	spin_unlock(&q->sq_lock);
}

/*
 * Drop the queue's lock (taken with spin_lock_bh()) and post the requests
 * gpu_aes_queue_admit() just moved onto @admitted under it.  They hold
 * ADMITTED tags, which nothing else completes or expires, so -EINPROGRESS
 * is surely their first callback; then they are copied in and posted like
 * any submission, with the deadline they got when they were backlogged.
 * One whose queue was detached meanwhile is recomputed on the CPU.
 *
 * From the lock that admitted them to their posting, BHs stay disabled:
 * an admitted request is in no backlog and its tag has no deadline, so
 * the context doing this must not be preempted here (and its oldest tag
 * counts as space that comes back, gpu_aes_queue_space_returns()).  Only
 * reapers and the deadline scan admit, never a submitter, whose
 * scheduling any user controls; copying at most queue_entries requests
 * of at most ring_max_bytes is what a softirq crypto driver does.  On
 * PREEMPT_RT disabling BHs does not disable preemption: there a task of
 * higher priority can hold this context here, and docs/security.md
 * ("PREEMPT_RT") says what that costs.
 */
static void gpu_aes_queue_unlock_post_admitted(struct gpu_aes_queue *q,
					       struct list_head *admitted,
					       bool *wake)
	__releases(&q->lock)
{
	struct gpu_aes_job *job, *tmp;
	unsigned long arm_at = 0;
	unsigned int refs = 0;
	bool arm = false;
	LIST_HEAD(lost);

	if (list_empty(admitted)) {
		spin_unlock_bh(&q->lock);
		return;
	}
	local_bh_disable();
	spin_unlock_bh(&q->lock);
	list_for_each_entry(job, admitted, node) {
		job->backlogged = false;
		gpu_aes_job_finish(job, -EINPROGRESS);
		gpu_aes_queue_copy_in(q, job);
	}
	spin_lock(&q->sq_lock);
	list_for_each_entry_safe(job, tmp, admitted, node) {
		/*
		 * Never later than the caller was promised: a backlogged
		 * request's deadline runs from its -EBUSY, not from now.
		 */
		unsigned long deadline = job->deadline;

		list_del(&job->node);
		if (!q->attached) {
			list_add_tail(&job->node, &lost);
		} else if (gpu_aes_queue_post(q, job, deadline, wake) &&
			   (!arm || time_before(deadline, arm_at))) {
			arm_at = deadline;
			arm = true;
		}
		refs++;
	}
	spin_unlock(&q->sq_lock);
	local_bh_enable();
	if (arm)
		gpu_aes_queue_arm_posted(q, arm_at);
	while (refs--)
		gpu_aes_queue_put(q);
	gpu_aes_ring_finish_cpu(&lost);
}

/*
 * A reservation found the queue full, or a backlog ahead of it: decide,
 * with both locks held so no reaper frees space between the look and the
 * choice (and a reaper that freed some has admitted from the backlog
 * first), whether the request waits in the backlog (the space comes back
 * by itself, and the reaper that frees it admits the request) or runs on
 * the CPU now.  Returns -EINPROGRESS if there is room after all
 * (reserved), -EBUSY (backlogged) or GPU_AES_RING_FALLBACK with *@why.
 */
static int gpu_aes_queue_full(struct gpu_aes_queue *q, struct gpu_aes_job *job,
			      enum gpu_aes_fallback_reason *why)
{
	int ret, err;

	spin_lock_bh(&q->lock);
	spin_lock(&q->sq_lock);
	if (!q->attached) {
		*why = GPU_AES_FB_NO_HELPER;
		ret = GPU_AES_RING_FALLBACK;
		goto out;
	}
	/*
	 * Backlogged requests are admitted by the reapers that free space
	 * and by the deadline scan, never here: see
	 * gpu_aes_queue_unlock_post_admitted().  Behind a backlog a request
	 * waits its turn, whatever room there is: the space is what the
	 * oldest backlogged request waits for.  It must not wait for a key
	 * slot, though, so that much is looked at first.
	 */
	if (list_empty(&q->backlog))
		err = gpu_aes_queue_reserve(q, job);
	else
		err = gpu_aes_queue_key_check(q, job);
	if (!err) {
		ret = -EINPROGRESS;
	} else if (err == -ENOKEY) {
		*why = GPU_AES_FB_NO_KEY;
		ret = GPU_AES_RING_FALLBACK;
	} else if (gpu_aes_queue_space_returns(q)) {
		job->queue = q->id;
		job->backlogged = true;
		/* The caller hears -EBUSY now: its wait starts now. */
		job->deadline = jiffies + gpu_aes_timeout_jiffies();
		list_add_tail(&job->node, &q->backlog);
		q->nr_backlog++;
		gpu_aes_stat_inc(GPU_AES_STAT_BACKLOGGED);
		gpu_aes_queue_arm_timeout(q, job->deadline);
		ret = -EBUSY;
	} else {
		*why = GPU_AES_FB_FULL;
		ret = GPU_AES_RING_FALLBACK;
	}
out:
	spin_unlock(&q->sq_lock);
	spin_unlock_bh(&q->lock);
	return ret;
}

int gpu_aes_ring_submit(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
			enum gpu_aes_fallback_reason *why)
{
	struct gpu_aes_queue *q = gpu_aes_ring_queue(ring);
	bool wake = false, arm = false;
	unsigned long deadline = 0;
	int ret, err;

	/* The submitting side's lock only: reapers hold the other. */
	spin_lock_bh(&q->sq_lock);
	if (!q->attached) {
		*why = GPU_AES_FB_NO_HELPER;
		ret = GPU_AES_RING_FALLBACK;
	} else if (!(ring->algs & GPU_AES_ALG_BIT(job->desc->alg))) {
		*why = GPU_AES_FB_UNSUPPORTED;
		ret = GPU_AES_RING_FALLBACK;
	} else if (gpu_aes_job_span(job) > ring->queue_data_size / 4) {
		*why = GPU_AES_FB_LARGE;
		ret = GPU_AES_RING_FALLBACK;
	} else if (READ_ONCE(q->stalled)) {
		/* The completing side's flag: a request either way is fine. */
		*why = GPU_AES_FB_STALLED;
		ret = GPU_AES_RING_FALLBACK;
	} else if (READ_ONCE(q->nr_backlog)) {
		/*
		 * Space a reaper frees is the backlog's: it admits before it
		 * drops its lock, and we must not take the space between its
		 * release and its admission.  Backlogs grow only under both
		 * locks (gpu_aes_queue_full()), so an empty one read here
		 * stays empty while we reserve.
		 */
		ret = -ENOSPC;
	} else {
		err = gpu_aes_queue_reserve(q, job);
		if (!err) {
			ret = -EINPROGRESS;
		} else if (err == -ENOKEY) {
			*why = GPU_AES_FB_NO_KEY;
			ret = GPU_AES_RING_FALLBACK;
		} else {
			ret = -ENOSPC;
		}
	}
	spin_unlock_bh(&q->sq_lock);
	/*
	 * Full, or behind a backlog: decided under both locks, for a caller
	 * that may be told -EBUSY; one that may not runs on the CPU now.
	 */
	if (ret == -ENOSPC && !job->may_backlog) {
		*why = GPU_AES_FB_FULL;
		ret = GPU_AES_RING_FALLBACK;
	} else if (ret == -ENOSPC) {
		ret = gpu_aes_queue_full(q, job, why);
	}
	if (ret != -EINPROGRESS)
		return ret;

	/* Up to ring_max_bytes: other CPUs submit and reap meanwhile. */
	gpu_aes_queue_copy_in(q, job);
	/* Not the queue's lock: a reaper holding it does not hold us up. */
	spin_lock_bh(&q->sq_lock);
	if (q->attached) {
		/* -EINPROGRESS is the answer from here: so is the deadline. */
		deadline = jiffies + gpu_aes_timeout_jiffies();
		arm = gpu_aes_queue_post(q, job, deadline, &wake);
	} else {
		/* Detach is waiting for us; the tag dies with the table. */
		*why = GPU_AES_FB_NO_HELPER;
		ret = GPU_AES_RING_FALLBACK;
	}
	spin_unlock_bh(&q->sq_lock);
	/* The job may be completed by now: only its deadline is ours. */
	if (arm)
		gpu_aes_queue_arm_posted(q, deadline);
	gpu_aes_queue_put(q);
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
static int gpu_aes_queue_claim_one(struct gpu_aes_queue *q,
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
static void gpu_aes_queue_copy_out(struct gpu_aes_queue *q,
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

/*
 * The helper's cost figures, clamped, into the ring, where the request
 * path reads them without touching the region.  Untrusted: the policy only
 * ever adds the cost and lowers its headroom by the rate (dispatch.c).
 * Called by a reaper, whose reference keeps the region mapped.
 */
static void gpu_aes_ring_helper_figures(struct gpu_aes_ring *ring)
{
	const struct gpu_aes_region_hdr *hdr = ring->hdr;
	u32 ns = READ_ONCE(hdr->helper_cpu_ns_per_kib);
	u32 rate = READ_ONCE(hdr->helper_mib_per_s);

	ns = min(ns, GPU_AES_HELPER_NS_PER_KIB_MAX);
	if (READ_ONCE(ring->helper_ns_per_kib) != ns)
		WRITE_ONCE(ring->helper_ns_per_kib, ns);
	if (READ_ONCE(ring->helper_mib_per_s) != rate)
		WRITE_ONCE(ring->helper_mib_per_s, rate);
}

static int gpu_aes_queue_reap(struct gpu_aes_queue *q, bool *wake)
{
	const struct gpu_aes_ring_observer *obs = q->ring->observer;
	struct gpu_aes_job *job, *tmp;
	u32 tail, end, mask, target = 0;
	u64 t0, t1, bytes;
	int accepted = 0, ret = 0;
	bool first = true;

	for (;;) {
		LIST_HEAD(admitted);
		LIST_HEAD(done);
		LIST_HEAD(cpu);

		spin_lock_bh(&q->lock);
		if (!q->attached) {
			ret = first ? -ENXIO : 0;
			break;
		}
		mask = q->ring->queue_entries - 1;
		/* cqes before the tail; pairs with the helper's release. */
		tail = smp_load_acquire(&q->qhdr->cq_tail);
		if (tail - q->cq_head > q->ring->queue_entries) {
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
		if (tail == q->cq_head || (s32)(target - q->cq_head) <= 0)
			break;
		end = q->cq_head + min(tail - q->cq_head, GPU_AES_REAP_BATCH);
		for (; q->cq_head != end; q->cq_head++)
			accepted += gpu_aes_queue_claim_one(q,
				&q->cq[q->cq_head & mask], &done);
		/* Our reads of the cqes before the helper may reuse them. */
		smp_store_release(&q->qhdr->cq_head, q->cq_head);
		if (list_empty(&done)) {
			/* Late completions may have freed space. */
			gpu_aes_queue_admit(q, &admitted, &cpu);
			gpu_aes_queue_unlock_post_admitted(q, &admitted, wake);
			gpu_aes_ring_finish_cpu(&cpu);
			continue;
		}
		gpu_aes_queue_get(q);
		spin_unlock_bh(&q->lock);

		t0 = ktime_get_ns();
		gpu_aes_ring_helper_figures(q->ring);
		gpu_aes_queue_copy_out(q, &done);

		spin_lock_bh(&q->lock);
		/* After a detach the table is going away with the tags. */
		if (q->attached) {
			list_for_each_entry(job, &done, node)
				gpu_aes_tag_release(q, &q->tags[job->tag]);
			gpu_aes_queue_admit(q, &admitted, &cpu);
		}
		/* Others' copies in are not what completing costs. */
		t1 = ktime_get_ns();
		gpu_aes_queue_unlock_post_admitted(q, &admitted, wake);
		t0 += ktime_get_ns() - t1;
		gpu_aes_queue_put(q);

		bytes = 0;
		list_for_each_entry_safe(job, tmp, &done, node) {
			list_del(&job->node);
			bytes += (u64)job->len + job->aad_len;
			if (job->status == GPU_AES_JOB_REPLAY) {
				gpu_aes_job_replay(job);
				continue;
			}
			if (job->lone_t0 && obs)
				obs->lone_completed(job,
						    ktime_get_ns() - job->lone_t0);
			gpu_aes_job_finish(job, job->status);
		}
		/* What completing costs, for the dispatch policy. */
		if (obs)
			obs->completed(q, ktime_get_ns() - t0, bytes);
		gpu_aes_ring_finish_cpu(&cpu);
	}
	spin_unlock_bh(&q->lock);
	return ret ? ret : accepted;
}

int gpu_aes_ring_reap(struct gpu_aes_ring *ring, u32 qid)
{
	u32 n = READ_ONCE(ring->nr_queues), i;
	int ret = -ENXIO, r;
	bool wake = false;

	/* Detached: whatever the queue number, nothing to reap. */
	if (!READ_ONCE(ring->attached))
		return -ENXIO;
	if (qid != GPU_AES_ALL_QUEUES) {
		ret = qid < n ? gpu_aes_queue_reap(&ring->queues[qid], &wake) :
				-EINVAL;
	} else {
		/* The sum, unless a queue rejected its batch or none is attached. */
		for (i = 0; i < n; i++) {
			r = gpu_aes_queue_reap(&ring->queues[i], &wake);
			if (r >= 0 && ret != -EINVAL)
				ret = (ret < 0 ? 0 : ret) + r;
			else if (r == -EINVAL)
				ret = r;
		}
	}
	if (wake)
		gpu_aes_ring_wake(ring);
	return ret;
}

static void gpu_aes_queue_timeout_fn(struct work_struct *work)
{
	struct gpu_aes_queue *q = container_of(to_delayed_work(work),
					       struct gpu_aes_queue,
					       timeout_work);
	struct gpu_aes_job *job, *tmp;
	unsigned long now, next = 0;
	bool armed = false, wake = false;
	LIST_HEAD(admitted);
	LIST_HEAD(expired);
	struct gpu_aes_tag *t;
	u32 i, head;

	mutex_lock(&q->scan_mutex);
	spin_lock_bh(&q->lock);
	WRITE_ONCE(q->scan_armed, false);
	/*
	 * Before the states below: a poster that turns a tag IN_FLIGHT after
	 * we read it sees the scan unarmed and arms it (gpu_aes_queue_post()).
	 */
	smp_mb();
	if (!q->attached)
		goto out;
	now = jiffies;
	/*
	 * Only IN_FLIGHT tags have deadlines (RESERVED and ADMITTED ones are
	 * still being copied in).  Every tag is looked at: posters move tags
	 * to IN_FLIGHT without our lock, so no count read here bounds them;
	 * one whose reservation we do not see yet is posted after the barrier
	 * above (its head was written before its state), so its poster sees
	 * us unarmed and arms us.
	 */
	head = READ_ONCE(q->tag_head);
	for (i = q->tag_tail; i != head; i++) {
		t = &q->tags[i & (q->ring->queue_entries - 1)];
		/* Acquire: the deadline was written before (the poster's). */
		if (smp_load_acquire(&t->state) != GPU_AES_TAG_IN_FLIGHT)
			continue;
		if (time_after_eq(now, t->deadline)) {
			list_add_tail(&t->job->node, &expired);
			t->state = GPU_AES_TAG_TIMED_OUT;
			t->job = NULL;
			WRITE_ONCE(q->retired, q->retired + 1);
			gpu_aes_stat_inc(GPU_AES_STAT_TIMEOUTS);
			gpu_aes_queue_stall(q);
		} else if (!armed || time_before(t->deadline, next)) {
			next = t->deadline;
			armed = true;
		}
	}
	list_for_each_entry_safe(job, tmp, &q->backlog, node) {
		if (q->stalled) {
			/* Flush: see struct gpu_aes_queue's @stalled. */
			list_move_tail(&job->node, &expired);
			q->nr_backlog--;
		} else if (time_after_eq(now, job->deadline)) {
			gpu_aes_queue_expire_backlogged(q, job, &expired);
		}
	}
	/*
	 * A wait that will not end (a timed-out oldest tag) ends here; what
	 * fits now goes in.
	 */
	gpu_aes_queue_admit(q, &admitted, &expired);
	list_for_each_entry(job, &q->backlog, node)
		if (!armed || time_before(job->deadline, next)) {
			next = job->deadline;
			armed = true;
		}
	if (armed)
		gpu_aes_queue_arm_timeout(q, next);
out:
	gpu_aes_queue_unlock_post_admitted(q, &admitted, &wake);
	mutex_unlock(&q->scan_mutex);
	gpu_aes_ring_finish_cpu(&expired);
	if (wake)
		gpu_aes_ring_wake(q->ring);
}

/* Per-queue tables, allocated before anything is attached. */
struct gpu_aes_queue_tables {
	struct gpu_aes_tag *tags;
	u16 *key_taken;
	u16 *key_returned;
};

int gpu_aes_ring_attach(struct gpu_aes_ring *ring, void *base,
			const struct gpu_aes_setup *s)
{
	struct gpu_aes_region_hdr *hdr = base;
	struct gpu_aes_queue_tables *qt = NULL;
	struct gpu_aes_tfm_key **key_owner;
	struct gpu_aes_geometry g = s->geo;
	struct gpu_aes_layout l;
	struct gpu_aes_queue *q;
	unsigned long *key_map;
	u32 *key_gen, algs, i, j;
	int ret;

	ret = gpu_aes_setup_check(ring, s);
	if (ret)
		return ret;
	/*
	 * What we publish in the header and what we post, from the SETUP we
	 * checked: the header is the helper's memory, which another of its
	 * threads may rewrite at any time, so we never read it back.
	 */
	algs = gpu_aes_setup_algs(s);
	gpu_aes_layout(&g, &l);
	key_map = kvcalloc(BITS_TO_LONGS(g.nr_keys), sizeof(long), GFP_KERNEL);
	key_gen = kvcalloc(g.nr_keys, sizeof(*key_gen), GFP_KERNEL);
	key_owner = kvcalloc(g.nr_keys, sizeof(*key_owner), GFP_KERNEL);
	qt = kcalloc(g.nr_queues, sizeof(*qt), GFP_KERNEL);
	ret = -ENOMEM;
	if (!key_map || !key_gen || !key_owner || !qt)
		goto err;
	for (i = 0; i < g.nr_queues; i++) {
		qt[i].tags = kvcalloc(g.queue_entries, sizeof(*qt[i].tags),
				      GFP_KERNEL);
		/* Apart: each half is written by one side of the queue. */
		qt[i].key_taken = kvcalloc(g.nr_keys, sizeof(*qt[i].key_taken),
					   GFP_KERNEL);
		qt[i].key_returned = kvcalloc(g.nr_keys,
					      sizeof(*qt[i].key_returned),
					      GFP_KERNEL);
		if (!qt[i].tags || !qt[i].key_taken || !qt[i].key_returned)
			goto err;
		/* seq's low byte is the queue's number. */
		for (j = 0; j < g.queue_entries; j++)
			qt[i].tags[j].seq = i;
	}

	mutex_lock(&ring->setup_mutex);
	if (ring->attached) {
		mutex_unlock(&ring->setup_mutex);
		ret = -EBUSY;
		goto err;
	}
	/* Queues and key table start zeroed; the data area is the helper's. */
	memset(base, 0, l.data_off);
	gpu_aes_hdr_fill(hdr, &g, &l, s->features, algs);

	spin_lock_bh(&ring->key_lock);
	ring->hdr = hdr;
	ring->keys = base + l.keys_off;
	ring->data = base + l.data_off;
	ring->queue_entries = g.queue_entries;
	ring->nr_keys = g.nr_keys;
	ring->queue_data_size = g.queue_data_size;
	ring->data_size = l.data_size;
	ring->key_map = key_map;
	ring->key_gen = key_gen;
	ring->key_owner = key_owner;
	ring->key_scan_after = jiffies;
	/* A new helper: its own figures, when it publishes them. */
	ring->helper_ns_per_kib = 0;
	ring->helper_mib_per_s = 0;
	/* Nobody has woken it: its first sleep must be rung. */
	atomic_set(&ring->doorbell_rung, 0);
	ring->algs = algs;
	ring->helper_pid = task_tgid_nr(current);
	ring->attached_at = ktime_get_boottime_ns();
	/*
	 * Before any queue is attached: a submitter indexes by it unlocked.
	 * Under key_lock with the rest: gpu_aes_ring_status() reads it so.
	 */
	WRITE_ONCE(ring->nr_queues, g.nr_queues);
	ring->attached = true;
	spin_unlock_bh(&ring->key_lock);
	for (i = 0; i < g.nr_queues; i++) {
		void *qbase = base + l.queues_off + i * l.queue_stride;

		q = &ring->queues[i];
		spin_lock_bh(&q->lock);
		q->qhdr = qbase;
		q->sq = qbase + l.sq_off;
		q->cq = qbase + l.cq_off;
		q->data_base = i * g.queue_data_size;
		q->data = ring->data + q->data_base;
		q->tags = qt[i].tags;
		q->key_returned = qt[i].key_returned;
		q->cq_head = 0;
		q->tag_tail = 0;
		q->data_tail = 0;
		WRITE_ONCE(q->stalled, false);
		q->stalled_at = 0;
		/* A scan cancelled by the last detach is not queued any more. */
		WRITE_ONCE(q->scan_armed, false);
		spin_lock(&q->sq_lock);
		q->key_taken = qt[i].key_taken;
		q->tag_head = 0;
		q->data_head = 0;
		q->sq_tail = 0;
		WRITE_ONCE(q->posted, 0);
		WRITE_ONCE(q->retired, 0);
		q->attached = true;
		spin_unlock(&q->sq_lock);
		spin_unlock_bh(&q->lock);
	}
	mutex_unlock(&ring->setup_mutex);
	kfree(qt);
	if (ring->observer)
		ring->observer->attached(g.nr_queues);
	gpu_aes_stat_inc(GPU_AES_STAT_HELPER_ATTACHES);
	return 0;

err:
	for (i = 0; qt && i < g.nr_queues; i++) {
		kvfree(qt[i].tags);
		kvfree(qt[i].key_taken);
		kvfree(qt[i].key_returned);
	}
	kfree(qt);
	kvfree(key_map);
	kvfree(key_gen);
	kvfree(key_owner);
	return ret;
}

/* A detached queue's requests, to be recomputed. */
static void gpu_aes_queue_take(struct gpu_aes_queue *q, struct list_head *redo)
{
	struct gpu_aes_tag *t;
	u32 i;

	/*
	 * No reserver or poster is left: each held a reference, users is
	 * zero, and none starts on a detached queue.
	 */
	spin_lock_bh(&q->lock);
	spin_lock(&q->sq_lock);
	for (i = q->tag_tail; i != q->tag_head; i++) {
		t = &q->tags[i & (q->ring->queue_entries - 1)];
		if (t->state == GPU_AES_TAG_IN_FLIGHT)
			list_add_tail(&t->job->node, redo);
	}
	list_splice_tail_init(&q->backlog, redo);
	q->nr_backlog = 0;
	WRITE_ONCE(q->retired, q->posted);
	spin_unlock(&q->sq_lock);
	spin_unlock_bh(&q->lock);
}

/* Nobody uses a detached queue's tables any more (users is zero). */
static void gpu_aes_queue_free(struct gpu_aes_queue *q)
{
	u16 *key_taken, *key_returned;
	struct gpu_aes_tag *tags;

	spin_lock_bh(&q->lock);
	spin_lock(&q->sq_lock);
	tags = q->tags;
	key_taken = q->key_taken;
	key_returned = q->key_returned;
	q->tags = NULL;
	q->key_taken = NULL;
	q->key_returned = NULL;
	q->qhdr = NULL;
	q->sq = NULL;
	q->cq = NULL;
	q->data = NULL;
	spin_unlock(&q->sq_lock);
	spin_unlock_bh(&q->lock);
	kvfree(tags);
	kvfree(key_taken);
	kvfree(key_returned);
}

void gpu_aes_ring_detach(struct gpu_aes_ring *ring)
{
	struct gpu_aes_tfm_key **key_owner;
	unsigned long *key_map;
	u32 *key_gen, n, i;
	LIST_HEAD(redo);
	unsigned long s;

	mutex_lock(&ring->setup_mutex);
	if (!ring->attached) {
		mutex_unlock(&ring->setup_mutex);
		return;
	}
	n = ring->nr_queues;
	/* From here nobody takes a new reference on any queue. */
	for (i = 0; i < n; i++) {
		spin_lock_bh(&ring->queues[i].lock);
		/* Posters test it under sq_lock alone. */
		spin_lock(&ring->queues[i].sq_lock);
		ring->queues[i].attached = false;
		spin_unlock(&ring->queues[i].sq_lock);
		spin_unlock_bh(&ring->queues[i].lock);
	}
	/*
	 * Submitters copying in and reapers copying out use the region and
	 * the tags without the lock; they see !attached when they come back
	 * and leave their tags alone.  A reference is held only across a
	 * copy (submitters may be in softirq and never sleep), so this wait
	 * is short.
	 */
	for (i = 0; i < n; i++)
		wait_var_event(&ring->queues[i].users,
			       !atomic_read(&ring->queues[i].users));
	for (i = 0; i < n; i++)
		gpu_aes_queue_take(&ring->queues[i], &redo);

	spin_lock_bh(&ring->key_lock);
	ring->attached = false;
	for_each_set_bit(s, ring->key_map, ring->nr_keys)
		memzero_explicit(&ring->keys[s], sizeof(ring->keys[0]));
	ring->attach_gen++;
	key_map = ring->key_map;
	key_gen = ring->key_gen;
	key_owner = ring->key_owner;
	ring->key_map = NULL;
	ring->key_gen = NULL;
	ring->key_owner = NULL;
	ring->hdr = NULL;
	ring->keys = NULL;
	ring->data = NULL;
	spin_unlock_bh(&ring->key_lock);

	/* Their callbacks may submit again: those find no queue attached. */
	gpu_aes_ring_finish_cpu(&redo);
	for (i = 0; i < n; i++)
		gpu_aes_queue_free(&ring->queues[i]);
	kvfree(key_map);
	kvfree(key_gen);
	kvfree(key_owner);
	WRITE_ONCE(ring->nr_queues, 1);
	mutex_unlock(&ring->setup_mutex);
	/* The scans see !attached and do nothing. */
	for (i = 0; i < n; i++)
		cancel_delayed_work_sync(&ring->queues[i].timeout_work);
}

bool gpu_aes_ring_pending(struct gpu_aes_ring *ring)
{
	u32 n = READ_ONCE(ring->nr_queues), i;
	struct gpu_aes_queue *q;
	bool pending = false;

	/*
	 * Before the look: a post whose wake saw the doorbell rung came
	 * before this under its queue's sq_lock, and the look finds it.
	 */
	atomic_set(&ring->doorbell_rung, 0);
	for (i = 0; i < n && !pending; i++) {
		q = &ring->queues[i];
		spin_lock_bh(&q->sq_lock);
		pending = q->attached &&
			  READ_ONCE(q->qhdr->sq_head) != q->sq_tail;
		spin_unlock_bh(&q->sq_lock);
	}
	return pending;
}

/* One queue's figures; its lock held. */
static void gpu_aes_queue_status(struct gpu_aes_queue *q,
				 struct gpu_aes_queue_status *qs)
{
	memset(qs, 0, sizeof(*qs));
	if (!q->attached)
		return;
	qs->in_flight = gpu_aes_queue_in_flight(q);
	qs->backlog = q->nr_backlog;
	qs->data_used = READ_ONCE(q->data_head) - q->data_tail;
	qs->stalled = q->stalled;
	qs->stalled_at = q->stalled ? q->stalled_at : 0;
}

/*
 * The ring's own figures and the attachment they belong to, under
 * key_lock (attach and detach change them under it); false if detached.
 */
static bool gpu_aes_ring_status_begin(struct gpu_aes_ring *ring,
				      struct gpu_aes_ring_status *st, u64 *gen)
{
	bool attached;

	memset(st, 0, sizeof(*st));
	spin_lock_bh(&ring->key_lock);
	attached = ring->attached;
	if (attached) {
		*gen = ring->attach_gen;
		st->attached = true;
		st->helper_pid = ring->helper_pid;
		st->attached_at = ring->attached_at;
		st->nr_queues = ring->nr_queues;
		st->queue_entries = ring->queue_entries;
		st->queue_data_size = ring->queue_data_size;
		st->data_size = ring->data_size;
		st->keys = ring->nr_keys;
	}
	spin_unlock_bh(&ring->key_lock);
	return attached;
}

/*
 * The key slots in use, if the attachment is still the one the walk
 * began with (no detach since: attach_gen moves at each); else false.
 */
static bool gpu_aes_ring_status_end(struct gpu_aes_ring *ring,
				    struct gpu_aes_ring_status *st, u64 gen)
{
	bool same;

	spin_lock_bh(&ring->key_lock);
	same = ring->attached && ring->attach_gen == gen;
	if (same)
		st->keys_used = bitmap_weight(ring->key_map, ring->nr_keys);
	spin_unlock_bh(&ring->key_lock);
	return same;
}

/*
 * No mutex: the status files are world-readable, and a reader that any
 * user can keep off the CPU (on a fully preemptible kernel) must hold
 * nothing that detach waits for, or a dying helper would wait for it in
 * release, in D state, and the ring with it.  Only spinlocks, each held
 * for a few reads; a detach during the walk makes it start over.
 */
void gpu_aes_ring_status(struct gpu_aes_ring *ring,
			 struct gpu_aes_ring_status *st,
			 struct gpu_aes_queue_status *qs, u32 max_qs)
{
	struct gpu_aes_queue_status one, *t = &st->total;
	struct gpu_aes_queue *q;
	u64 gen = 0;
	u32 i;

	do {
		if (!gpu_aes_ring_status_begin(ring, st, &gen))
			return;
		for (i = 0; i < st->nr_queues; i++) {
			q = &ring->queues[i];
			spin_lock_bh(&q->lock);
			gpu_aes_queue_status(q, &one);
			spin_unlock_bh(&q->lock);
			if (qs && i < max_qs)
				qs[i] = one;
			t->in_flight += one.in_flight;
			t->backlog += one.backlog;
			t->data_used += one.data_used;
			if (!one.stalled)
				continue;
			st->stalled_queues++;
			if (!t->stalled || one.stalled_at < t->stalled_at)
				t->stalled_at = one.stalled_at;
			t->stalled = true;
		}
	} while (!gpu_aes_ring_status_end(ring, st, gen));
}
