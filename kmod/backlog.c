// SPDX-License-Identifier: GPL-2.0-only
/*
 * backlog.c - a queue's backlog: requests told -EBUSY wait there, first in
 * first out, for the space their queue's own in-flight requests will free,
 * and are admitted by the reapers and the deadline scan that free it,
 * never by a submitter (queue.h: lock rules).
 */
#include <linux/bottom_half.h>
#include <linux/jiffies.h>
#include <linux/list.h>

#include "backlog.h"
#include "keys.h"
#include "queue.h"
#include "replay.h"

/*
 * A backlogged request whose deadline has passed leaves for @cpu.  Its
 * wait is the helper's doing (only in-flight requests keep a request in
 * the backlog, gpu_aes_queue_space_returns()), so the queue stalls, as
 * for a request that timed out on the ring: the next one does not wait
 * a deadline too.  Lock held.
 */
void gpu_aes_queue_expire_backlogged(struct gpu_aes_queue *q,
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
void gpu_aes_queue_admit(struct gpu_aes_queue *q,
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
void gpu_aes_queue_unlock_post_admitted(struct gpu_aes_queue *q,
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
int gpu_aes_queue_full(struct gpu_aes_queue *q, struct gpu_aes_job *job,
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
