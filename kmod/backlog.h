/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backlog.h - a queue's backlog and its admission (backlog.c), for ring.c.
 */
#ifndef GPU_AES_BACKLOG_H
#define GPU_AES_BACKLOG_H

#include <linux/list.h>
#include <linux/types.h>

#include "ring_state.h"

/*
 * A request that found the queue full or a backlog ahead: posted (its
 * reservation made, -EINPROGRESS), backlogged (-EBUSY) or given back to
 * the CPU (GPU_AES_RING_FALLBACK, *@why set).  Takes both locks.
 */
int gpu_aes_queue_full(struct gpu_aes_queue *q, struct gpu_aes_job *job,
		       enum gpu_aes_fallback_reason *why);

/*
 * Move what of the backlog fits onto @admitted, what cannot wait onto
 * @cpu (first in first out, up to the first that does not fit).  @lock
 * held, attached.
 */
void gpu_aes_queue_admit(struct gpu_aes_queue *q, struct list_head *admitted,
			 struct list_head *cpu);

/* Drop @lock and post what gpu_aes_queue_admit() admitted. */
void gpu_aes_queue_unlock_post_admitted(struct gpu_aes_queue *q,
					struct list_head *admitted, bool *wake)
	__releases(&q->lock);

/* A backlogged request past its deadline leaves for @cpu.  @lock held. */
void gpu_aes_queue_expire_backlogged(struct gpu_aes_queue *q,
				     struct gpu_aes_job *job,
				     struct list_head *cpu);

#endif /* GPU_AES_BACKLOG_H */
