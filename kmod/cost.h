/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cost.h - the figures dispatch=auto weighs (policy.h), learnt from live
 * requests, and the decision made on them.
 *
 * Costs are learnt per algorithm, direction and size class, on each CPU
 * for itself (no line is shared between CPUs): a sample of the requests
 * that run on the CPU is timed (the fallback tfm *is* the CPU driver), a
 * sample of those posted to the ring is timed on the submitting CPU, each
 * queue's reapers time their completions, every request posted alone on
 * its queue is timed from submission to its callback, and the helper
 * adds what it reports of its own CPU per KiB (untrusted: clamped, and
 * only ever added, so a lying helper can only send work to the CPU).  A
 * class not measured yet borrows the nearest measured class's figures.
 *
 * The request path asks two things of it (dispatch.c): a decision
 * (gpu_aes_cost_decide()) and, for a sample of requests, their time on
 * the path they took (gpu_aes_cost_sample()).  The ring reports its
 * completions through gpu_aes_dispatch_observer.
 */
#ifndef GPU_AES_COST_H
#define GPU_AES_COST_H

#include <linux/types.h>

#include "estimates.h"
#include "job.h"
#include "policy.h"

struct gpu_aes_ring;
struct gpu_aes_ring_observer;

/* A CPU busy this share of the time or more is saturated. */
#define GPU_AES_SATURATED_PCT	90
/* A machine idle this share of the time or more has CPUs to spare. */
#define GPU_AES_SPARE_PCT	25
/*
 * Under load, at most this much in flight per queue, and no more than the
 * helper says it moves in GPU_AES_HEADROOM_US (but GPU_AES_HEADROOM_MIN).
 */
#define GPU_AES_HEADROOM_MAX	(1024U * 1024)
#define GPU_AES_HEADROOM_MIN	(256U * 1024)
#define GPU_AES_HEADROOM_US	2000
/*
 * Weighing the figures is most of what auto adds to a request the CPU
 * driver runs (30-100 ns a request in kring on the GPU machine, 1-3 % of
 * a mixed one): a CPU repeats a decision of the cost or the latency rule
 * for the next GPU_AES_REPEAT requests of its algorithm and size class
 * that are alone, or not, as that one was, weighing again on the
 * decisions that weigh exploring (one in GPU_AES_EXPLORE_UNKNOWN).  Estimates move by an
 * eighth a sample, one request in GPU_AES_SAMPLE_EVERY: a decision that
 * lags them by fifteen requests of a class decides as they did.  Never
 * repeated: explorations, and decisions the load rule made or, on a
 * saturated CPU where its figures pay, could make next (the queue's fill
 * changes with each request).
 */
#define GPU_AES_REPEAT	15
/* One request in this many is timed. */
#define GPU_AES_SAMPLE_EVERY	16

/* Where a request's figures are kept: its row and its size class. */
struct gpu_aes_cost_slot {
	unsigned int op;
	unsigned int class;
};

static inline struct gpu_aes_cost_slot
gpu_aes_cost_slot(const struct gpu_aes_job *job, u64 bytes)
{
	return (struct gpu_aes_cost_slot){
		.op = gpu_aes_op_row(job->desc, job->dir),
		.class = gpu_aes_size_class(bytes),
	};
}

/* The two paths a request can take, as the estimates know them. */
enum gpu_aes_path {
	GPU_AES_PATH_CPU,
	GPU_AES_PATH_RING,
};

/**
 * gpu_aes_cost_sample_due() - count a request on this CPU.
 *
 * Return: whether to time it (one in GPU_AES_SAMPLE_EVERY).
 */
bool gpu_aes_cost_sample_due(void);

/**
 * gpu_aes_cost_known() - whether this CPU has a figure for a path.
 * @slot: the request's slot.
 * @path: the path.
 *
 * Return: true once a request of the slot was timed on the path here;
 * until then every such request is.
 */
bool gpu_aes_cost_known(struct gpu_aes_cost_slot slot, enum gpu_aes_path path);

/**
 * gpu_aes_cost_sample() - a request's time on its path into the estimates.
 * @slot: the request's slot.
 * @path: the path it took (the ring: its submission, on this CPU).
 * @t0: ktime_get_ns() when the path started.
 * @bytes: the bytes it weighed.
 */
void gpu_aes_cost_sample(struct gpu_aes_cost_slot slot, enum gpu_aes_path path,
			 u64 t0, u64 bytes);

/**
 * gpu_aes_cost_decide() - dispatch=auto's decision for a request.
 * @ring: the ring it would go to.
 * @slot: its slot.
 * @bytes: the bytes it weighs.
 * @lone: set when it is alone on its queue (its latency is timed then).
 *
 * Return: the choice (policy.h), never a forced one.
 */
enum gpu_aes_choice gpu_aes_cost_decide(struct gpu_aes_ring *ring,
					struct gpu_aes_cost_slot slot,
					u64 bytes, bool *lone);

/* What the ring reports to the estimates (ring.h); set at module init. */
extern const struct gpu_aes_ring_observer gpu_aes_dispatch_observer;

/**
 * gpu_aes_dispatch_show() - the estimates, for sysfs.
 * @buf: a page.
 *
 * One line per algorithm, size class and direction: the class's lower
 * bound in bytes, the CPU's and the ring's cost in ns per KiB and the
 * ring's latency for a lone request in us (averaged over the CPUs and
 * queues that measured them; "-" when none did), what auto would choose
 * for a request neither alone nor under load, and for one alone on its
 * queue, and the direction (enc, dec) last, so that the first two columns
 * stay where readers of the older layout look.
 *
 * Return: bytes written.
 */
ssize_t gpu_aes_dispatch_show(char *buf);

#endif /* GPU_AES_COST_H */
