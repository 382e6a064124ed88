// SPDX-License-Identifier: GPL-2.0-only
/*
 * dispatch.c - the request path's choice between the ring and the CPU
 * driver (dispatch.h): the hard bounds, the static modes, and for
 * dispatch=auto the cost model's decision (cost.h); and what each
 * algorithm's CPU driver is.
 */
#include <linux/kernel.h>
#include <linux/crypto.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>

#include "cost.h"
#include "dispatch.h"
#include "params.h"
#include "ring.h"
#include "stats.h"

/* The CPU driver each algorithm's tfms fall back to, for sysfs. */
static char gpu_aes_cpu_driver[GPU_AES_NR_ALGS][CRYPTO_MAX_ALG_NAME];
static DEFINE_SPINLOCK(gpu_aes_cpu_driver_lock);

/*
 * dispatch=ring and dispatch=cpu answer without the estimates; auto asks
 * the cost model.
 */
static enum gpu_aes_choice gpu_aes_choose(struct gpu_aes_ring *ring,
					  struct gpu_aes_cost_slot slot,
					  u64 bytes, bool *lone)
{
	switch (READ_ONCE(gpu_aes_dispatch)) {
	case GPU_AES_DISPATCH_RING:
		return GPU_AES_CHOOSE_RING_FORCED;
	case GPU_AES_DISPATCH_CPU:
		return GPU_AES_CHOOSE_CPU_FORCED;
	default:
		return gpu_aes_cost_decide(ring, slot, bytes, lone);
	}
}

/* Runs the request on the CPU driver, timing it when asked to. */
static int gpu_aes_dispatch_cpu(struct gpu_aes_job *job, u64 bytes,
				struct gpu_aes_cost_slot slot, bool timed)
{
	u64 t0;
	int err;

	if (!timed && gpu_aes_cost_known(slot, GPU_AES_PATH_CPU))
		return gpu_aes_job_cpu(job);
	t0 = ktime_get_ns();
	err = gpu_aes_job_cpu(job);
	/* Deferred to cryptd: the time was its queueing, not the work. */
	if (err != -EINPROGRESS && err != -EBUSY)
		gpu_aes_cost_sample(slot, GPU_AES_PATH_CPU, t0, bytes);
	return err;
}

static const enum gpu_aes_stat gpu_aes_ring_choice_stat[] = {
	[GPU_AES_CHOOSE_RING_COST] = GPU_AES_STAT_POLICY_RING_COST,
	[GPU_AES_CHOOSE_RING_LONE] = GPU_AES_STAT_POLICY_RING_LONE,
	[GPU_AES_CHOOSE_RING_LOAD] = GPU_AES_STAT_POLICY_RING_LOAD,
	[GPU_AES_CHOOSE_RING_FORCED] = GPU_AES_STAT_POLICY_RING_FORCED,
	[GPU_AES_CHOOSE_RING_EXPLORE] = GPU_AES_STAT_POLICY_RING_EXPLORE,
};

static const enum gpu_aes_fallback_reason gpu_aes_cpu_choice_reason[] = {
	[GPU_AES_CHOOSE_CPU_COST] = GPU_AES_FB_POLICY_COST,
	[GPU_AES_CHOOSE_CPU_LONE] = GPU_AES_FB_POLICY_LONE,
	[GPU_AES_CHOOSE_CPU_FORCED] = GPU_AES_FB_POLICY_FORCED,
	[GPU_AES_CHOOSE_CPU_EXPLORE] = GPU_AES_FB_POLICY_EXPLORE,
	[GPU_AES_CHOOSE_CPU_LOAD] = GPU_AES_FB_POLICY_LOAD,
};

int gpu_aes_route(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
		  u64 bytes)
{
	struct gpu_aes_cost_slot slot = gpu_aes_cost_slot(job, bytes);
	bool timed = gpu_aes_cost_sample_due();
	enum gpu_aes_fallback_reason why;
	enum gpu_aes_choice choice;
	bool lone = false;
	u64 t0;
	int ret;

	if (bytes < READ_ONCE(gpu_aes_ring_min_bytes)) {
		why = GPU_AES_FB_SMALL;
	} else if (bytes > READ_ONCE(gpu_aes_ring_max_bytes)) {
		why = GPU_AES_FB_LARGE;
	} else if (!job->may_backlog &&
		   (job->req_flags & CRYPTO_TFM_REQ_MAY_SLEEP)) {
		/*
		 * A caller that may sleep but cannot be told -EBUSY gets its
		 * answer before the call returns.  AF_ALG's AEAD AIO is the
		 * one: it refuses a socket's next AIO read with -EBUSY while
		 * one is in flight (af_alg_alloc_areq()), so answering
		 * -EINPROGRESS would fail the reads queued behind it, where
		 * the CPU driver we displace answers each at once in a
		 * context that may sleep.  A caller that may not sleep
		 * (IPsec ESP, from softirq) takes -EINPROGRESS from the CPU
		 * driver already, and takes the ring where it has room now
		 * (gpu_aes_ring_submit()).
		 */
		why = GPU_AES_FB_NO_BACKLOG;
	} else if (!READ_ONCE(ring->attached)) {
		why = GPU_AES_FB_NO_HELPER;
	} else if (!gpu_aes_ring_serves(ring, job->desc->alg)) {
		/* Not a choice: no estimate or decision counts it. */
		why = GPU_AES_FB_UNSUPPORTED;
	} else {
		choice = gpu_aes_choose(ring, slot, bytes, &lone);
		if (!gpu_aes_choice_is_ring(choice)) {
			why = gpu_aes_cpu_choice_reason[choice];
			goto cpu;
		}
		gpu_aes_stat_inc(gpu_aes_ring_choice_stat[choice]);
		timed |= !gpu_aes_cost_known(slot, GPU_AES_PATH_RING);
		t0 = timed || lone ? ktime_get_ns() : 0;
		/* A lone one's latency is timed to its callback (ring.c). */
		if (lone)
			job->lone_t0 = t0;
		ret = gpu_aes_ring_submit(ring, job, &why);
		if (ret == GPU_AES_RING_FALLBACK)
			goto cpu;
		if (timed && ret == -EINPROGRESS)
			gpu_aes_cost_sample(slot, GPU_AES_PATH_RING, t0, bytes);
		return ret;
	}
cpu:
	gpu_aes_stat_fallback(why, bytes);
	return gpu_aes_dispatch_cpu(job, bytes, slot, timed);
}

void gpu_aes_dispatch_note_cpu_driver(const struct gpu_aes_alg_desc *desc,
				      const char *driver)
{
	char *have = gpu_aes_cpu_driver[gpu_aes_alg_row(desc)];
	unsigned long flags;

	spin_lock_irqsave(&gpu_aes_cpu_driver_lock, flags);
	if (strcmp(have, driver))
		strscpy(have, driver, CRYPTO_MAX_ALG_NAME);
	spin_unlock_irqrestore(&gpu_aes_cpu_driver_lock, flags);
}

ssize_t gpu_aes_dispatch_cpu_drivers_show(char *buf)
{
	unsigned long flags;
	ssize_t len = 0;
	unsigned int a;

	spin_lock_irqsave(&gpu_aes_cpu_driver_lock, flags);
	for (a = 0; a < GPU_AES_NR_ALGS; a++) {
		const struct gpu_aes_alg_desc *d = gpu_aes_alg_desc(a + 1);

		if (d)
			len += sysfs_emit_at(buf, len, "%s %s\n", d->name,
					     gpu_aes_cpu_driver[a][0] ?
					     gpu_aes_cpu_driver[a] : "-");
	}
	spin_unlock_irqrestore(&gpu_aes_cpu_driver_lock, flags);
	return len;
}
