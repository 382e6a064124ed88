/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * queue.h - one queue's workings (queue.c), for the files that run the
 * ring: ring.c and backlog.c.  Each says which of the queue's two locks
 * it needs (ring_state.h: @sq_lock is the submitting side's, @lock the
 * completing side's).
 */
#ifndef GPU_AES_QUEUE_H
#define GPU_AES_QUEUE_H

#include <linux/list.h>
#include <linux/types.h>

#include "ring_state.h"

/* timeout_ms as jiffies, at least one. */
unsigned long gpu_aes_timeout_jiffies(void);

/* The queue's deadline scan runs by @deadline.  @lock held. */
void gpu_aes_queue_arm_timeout(struct gpu_aes_queue *q, unsigned long deadline);

/* The same for a request just posted (sq_lock and @lock not held). */
void gpu_aes_queue_arm_posted(struct gpu_aes_queue *q, unsigned long deadline);

/* Release @t; free released tags and their data from the tail.  @lock held. */
void gpu_aes_tag_release(struct gpu_aes_queue *q, struct gpu_aes_tag *t);

/*
 * A reference that keeps the tag table and the region in place across a
 * copy without a lock: taken under either lock while attached.
 */
void gpu_aes_queue_get(struct gpu_aes_queue *q);
void gpu_aes_queue_put(struct gpu_aes_queue *q);

/*
 * A key slot, a tag and data space for @job, and a reference for its
 * copy-in.  sq_lock held, attached.  0, -ENOKEY, -EAGAIN (no tag) or
 * -ENOSPC (no data space).
 */
int gpu_aes_queue_reserve(struct gpu_aes_queue *q, struct gpu_aes_job *job);

/* -ENOKEY if @job's tfm can get no key slot, else -ENOSPC.  sq_lock held. */
int gpu_aes_queue_key_check(struct gpu_aes_queue *q, struct gpu_aes_job *job);

/* Will the space a reservation lacks come back by itself?  Both locks. */
bool gpu_aes_queue_space_returns(const struct gpu_aes_queue *q);

/* Copy a reserved request's input into its data space.  No lock. */
void gpu_aes_queue_copy_in(struct gpu_aes_queue *q, struct gpu_aes_job *job);

/*
 * Write its sqe and publish it, with the deadline the caller was promised;
 * *@wake is set when the helper must be woken.  sq_lock held.  True when
 * the deadline scan must be armed for it (gpu_aes_queue_arm_posted()).
 */
bool gpu_aes_queue_post(struct gpu_aes_queue *q, struct gpu_aes_job *job,
			unsigned long deadline, bool *wake);

/* Wake the helper once per sleep.  No lock. */
void gpu_aes_ring_wake(struct gpu_aes_ring *ring);

/* Requests here waited past their deadlines: stall the queue.  @lock held. */
void gpu_aes_queue_stall(struct gpu_aes_queue *q);

/*
 * Judge one cqe: a valid completion moves its request onto @done (1), a
 * late one releases its tag, garbage is counted (0).  @lock held.
 */
int gpu_aes_queue_claim_one(struct gpu_aes_queue *q,
			    const struct gpu_aes_cqe *c, struct list_head *done);

/*
 * Copy the claimed requests' results out; one the helper failed is left
 * for a replay (GPU_AES_JOB_REPLAY).  No lock.
 */
void gpu_aes_queue_copy_out(struct gpu_aes_queue *q, struct list_head *done);

#endif /* GPU_AES_QUEUE_H */
