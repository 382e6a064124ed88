/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy.h - dispatch=auto's rules: where a request runs, the ring or the
 * CPU driver we displace, by what each costs in CPU time per byte, by how
 * soon a lone request would finish, and by load.  Pure functions of the
 * figures in struct gpu_aes_dispatch_in; cost.h measures those figures.
 *
 * dispatch=auto (the default):
 *  - a request alone on its queue (nothing in flight there now and next
 *    to nothing lately: a consumer waiting for each answer) goes where
 *    it finishes sooner: the CPU driver's time for its size
 *    against the ring's measured latency for a lone request of its class
 *    (the latency rule), unless this CPU is saturated;
 *  - else the cheaper path in CPU, with hysteresis (the cost rule);
 *  - else the ring when this CPU is saturated while the machine has idle
 *    CPUs to run the helper on, the ring has headroom, posting costs this
 *    CPU less than running the request and the ring costs at most a
 *    quarter more than the CPU in all: a consumer bound by one CPU then
 *    gains throughput from idle ones for little CPU (the load rule);
 *  - and the mirror image, where the ring is the bottleneck: the ring
 *    costs less, but its queue has no headroom and the ring drains that
 *    queue more slowly than this CPU computes the request's class: the
 *    CPU runs it, so the consumer gets the ring's throughput and the
 *    CPU's both, and never less than the CPU driver's alone (the load
 *    rule too: where the GPU is the slower path for a class, as for a
 *    chained mode's encryption against a CPU with AES instructions, work
 *    goes to the path that keeps up).  Where the ring drains a queue
 *    faster than its CPU would, a request waits for it instead: more CPU
 *    would buy less than it costs.
 * A decision now and then goes the other way, so neither estimate goes
 * stale: at most one in GPU_AES_EXPLORE_EVERY times the cost ratio of the
 * two paths, so exploring costs at most about 1/GPU_AES_EXPLORE_EVERY of
 * the work however lopsided the costs are.  dispatch=ring and
 * dispatch=cpu force the path (dispatch.h); ring_min_bytes, ring_max_bytes
 * and MAY_BACKLOG stay hard bounds there.
 */
#ifndef GPU_AES_POLICY_H
#define GPU_AES_POLICY_H

#include <linux/kernel.h>
#include <linux/types.h>

enum gpu_aes_dispatch_mode {
	GPU_AES_DISPATCH_AUTO,
	GPU_AES_DISPATCH_RING,
	GPU_AES_DISPATCH_CPU,
};

/**
 * enum gpu_aes_choice - a decision and its reason.
 * @GPU_AES_CHOOSE_RING_COST: the ring, it costs less.
 * @GPU_AES_CHOOSE_RING_LONE: the ring, a lone request finishes sooner there.
 * @GPU_AES_CHOOSE_RING_LOAD: the ring, the CPU is saturated and the ring
 *	has headroom.
 * @GPU_AES_CHOOSE_RING_FORCED: the ring, dispatch=ring.
 * @GPU_AES_CHOOSE_RING_EXPLORE: the ring, to measure it.
 * @GPU_AES_CHOOSE_CPU_COST: the CPU, it costs less (or nothing is known
 *	yet of what it costs).
 * @GPU_AES_CHOOSE_CPU_LONE: the CPU, a lone request finishes sooner there
 *	(or the ring's latency is not known yet).
 * @GPU_AES_CHOOSE_CPU_FORCED: the CPU, dispatch=cpu.
 * @GPU_AES_CHOOSE_CPU_EXPLORE: the CPU, to measure it.
 * @GPU_AES_CHOOSE_CPU_LOAD: the CPU, the ring is backed up and drains
 *	the queue more slowly than this CPU computes.
 */
enum gpu_aes_choice {
	GPU_AES_CHOOSE_RING_COST,
	GPU_AES_CHOOSE_RING_LONE,
	GPU_AES_CHOOSE_RING_LOAD,
	GPU_AES_CHOOSE_RING_FORCED,
	GPU_AES_CHOOSE_RING_EXPLORE,
	GPU_AES_CHOOSE_CPU_COST,
	GPU_AES_CHOOSE_CPU_LONE,
	GPU_AES_CHOOSE_CPU_FORCED,
	GPU_AES_CHOOSE_CPU_EXPLORE,
	GPU_AES_CHOOSE_CPU_LOAD,
};

static inline bool gpu_aes_choice_is_ring(enum gpu_aes_choice c)
{
	return c <= GPU_AES_CHOOSE_RING_EXPLORE;
}

/**
 * struct gpu_aes_dispatch_in - what one decision weighs.
 * @mode: enum gpu_aes_dispatch_mode.
 * @bytes: the request's bytes (GCM: text plus associated data).
 * @cpu_ns_per_kib: the CPU's cost, 0 if not known.
 * @ring_ns_per_kib: the ring's (submission, completion and the helper's
 *	share), 0 if not known.
 * @submit_ns_per_kib: the part of the ring's cost on the submitting CPU,
 *	0 if not known.
 * @ring_lone_ns: how long a request alone on its queue takes on the ring,
 *	from submission to its callback, 0 if not known.
 * @drain_ns_per_kib: how fast the ring drained the request's queue while
 *	it was backed up (wall time per KiB completed), 0 if not known.
 * @ring_was_chosen: the last cost decision for this class was the ring
 *	(hysteresis).
 * @lone: nothing else in flight or waiting on the request's queue.
 * @saturated: this CPU has been busy (>= GPU_AES_SATURATED_PCT) lately.
 * @spare: the machine as a whole has been idle >= GPU_AES_SPARE_PCT of
 *	the time lately: there is CPU for the helper to run on.
 * @headroom: the ring's queue has room for the request within the load
 *	rule's bound (GPU_AES_HEADROOM_MAX).
 * @backed_up: it has none: more is in flight there than the ring drains
 *	in GPU_AES_HEADROOM_US.
 * @explore: this decision is the share that goes the other way.
 */
struct gpu_aes_dispatch_in {
	int mode;
	u64 bytes;
	u32 cpu_ns_per_kib;
	u32 ring_ns_per_kib;
	u32 submit_ns_per_kib;
	u32 ring_lone_ns;
	u32 drain_ns_per_kib;
	bool ring_was_chosen;
	bool lone;
	bool saturated;
	bool spare;
	bool headroom;
	bool backed_up;
	bool explore;
};

/*
 * The load rule pays at most 1/GPU_AES_LOAD_COST_DIV more than the CPU in
 * all.  Shedding a share f of the work to a ring that costs r times the
 * CPU costs f * (r - 1) more CPU per byte: at r up to 2, the 3-6 % of
 * requests a lone busy thread shed raised its CPU per GB by 5-8 % and
 * bought no throughput (bench --dispatch, 1 thread, cpu backend).  At
 * r <= 5/4 even a fifth of the work shed stays within 5 %.
 */
#define GPU_AES_LOAD_COST_DIV	4
/*
 * A CPU explores (sends a request the other way, to measure that path)
 * after GPU_AES_EXPLORE_EVERY decisions times the ratio of the explored
 * path's CPU cost to the chosen one's, and, when that path costs more, no
 * sooner than GPU_AES_EXPLORE_JIFFIES after its last exploration: the
 * share of work spent exploring stays near 1/GPU_AES_EXPLORE_EVERY when
 * one path costs forty times the other, and a busy machine sends the
 * costlier path a trickle.  While a figure the decision needs is not
 * known at all, after GPU_AES_EXPLORE_UNKNOWN decisions and a tenth of
 * the time.
 */
#define GPU_AES_EXPLORE_EVERY	128U
#define GPU_AES_EXPLORE_UNKNOWN	16U
#define GPU_AES_EXPLORE_RATIO_MAX	1024U
#define GPU_AES_EXPLORE_JIFFIES	(HZ / 10)

/**
 * gpu_aes_explore_every() - decisions per exploration.
 * @ratio: how many times the explored path costs the chosen one; 0 when
 *	that is not known.
 *
 * Return: the number of decisions a CPU makes between two explorations
 * (GPU_AES_EXPLORE_JIFFIES apart at least).
 */
static inline u32 gpu_aes_explore_every(u32 ratio)
{
	if (!ratio)
		return GPU_AES_EXPLORE_UNKNOWN;
	return GPU_AES_EXPLORE_EVERY * min(ratio, GPU_AES_EXPLORE_RATIO_MAX);
}

/**
 * gpu_aes_dispatch_choose() - the policy itself, on given figures.
 * @in: the figures.
 *
 * Pure: the same figures give the same answer (KUnit feeds it).  A path
 * switches only when the other is cheaper by 1/8, so estimates that hover
 * around a tie do not make it flap; a lone request goes to the ring only
 * when its latency there is below the CPU's time by 1/8.  With
 * @in->explore, the cost and latency rules answer the other path.
 *
 * Return: the choice.
 */
enum gpu_aes_choice gpu_aes_dispatch_choose(const struct gpu_aes_dispatch_in *in);

/*
 * The ring drains the request's queue more slowly than this CPU computes
 * the request's class (the load rule's mirror); false when not known.
 */
bool gpu_aes_ring_is_bottleneck(const struct gpu_aes_dispatch_in *in);

/*
 * The load rule's figures, not the load: it would pay to shed the
 * request if this CPU were saturated.
 */
bool gpu_aes_load_rule_pays(const struct gpu_aes_dispatch_in *in);

#endif /* GPU_AES_POLICY_H */
