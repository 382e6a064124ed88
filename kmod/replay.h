/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.h - completing requests, and replaying on the CPU driver those
 * the ring gives back (replay.c).
 */
#ifndef GPU_AES_REPLAY_H
#define GPU_AES_REPLAY_H

#include <linux/list.h>

#include "job.h"

/* job->status of a request the helper failed: replayed on the CPU. */
#define GPU_AES_JOB_REPLAY	1

/**
 * gpu_aes_job_finish() - call a job's completion callback, BHs disabled.
 * @job: the job.
 * @err: result, or -EINPROGRESS for a backlogged request now admitted.
 */
void gpu_aes_job_finish(struct gpu_aes_job *job, int err);

/*
 * Recompute a request the ring gave back on the CPU driver and complete
 * it, now or from the driver's callback (a backlogged one hears
 * -EINPROGRESS first).  No lock held; never sleeps.
 */
void gpu_aes_job_replay(struct gpu_aes_job *job);

/* gpu_aes_job_replay() each request of @list, taking it off. */
void gpu_aes_ring_finish_cpu(struct list_head *list);

#endif /* GPU_AES_REPLAY_H */
