// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring.c - the region and its queues as a whole: attach and detach,
 * submission, reaping a queue's completions, the deadline scan and the
 * status snapshot (ring.h).  A queue's own workings are in queue.c, its
 * backlog in backlog.c, replays on the CPU in replay.c.
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

#include "backlog.h"
#include "keys.h"
#include "params.h"
#include "queue.h"
#include "replay.h"
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
