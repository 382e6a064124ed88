// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay.c - requests the ring gives back, completed on the CPU driver:
 * after a deadline, a helper's error, a detach, or from a backlog that
 * cannot wait.  Each is completed exactly once, now or from the CPU
 * driver's own callback (skcipher.c says why it may be asynchronous).
 */
#include <linux/bottom_half.h>
#include <linux/crypto.h>
#include <linux/list.h>

#include "replay.h"
#include "stats.h"

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
void gpu_aes_job_replay(struct gpu_aes_job *job)
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
void gpu_aes_ring_finish_cpu(struct list_head *list)
{
	struct gpu_aes_job *job, *tmp;

	list_for_each_entry_safe(job, tmp, list, node) {
		list_del(&job->node);
		gpu_aes_job_replay(job);
	}
}
