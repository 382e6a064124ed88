/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dispatch.h - where a request runs: the ring or the CPU driver we
 * displace, by what each costs in CPU time per byte, by how soon a lone
 * request would finish, and by load.
 *
 * Costs are learnt from live requests, per algorithm and size class, on
 * each CPU for itself (no line is shared between CPUs): a sample of the
 * requests that run on the CPU is timed (the fallback tfm *is* the CPU
 * driver), a sample of those posted to the ring is timed on the
 * submitting CPU, each queue's reapers time their completions, every
 * request posted alone on its queue is timed from submission to its
 * callback, and the helper adds what it reports of its own CPU per KiB
 * (untrusted: clamped, and only ever added, so a lying helper can only
 * send work to the CPU).  A class not measured yet borrows the nearest
 * measured class's figures.
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
 *    goes to the path that keeps up).  Where the ring drains a queue faster than its
 *    CPU would, a request waits for it instead: more CPU would buy less
 *    than it costs.
 * A decision now and then goes the other way, so neither estimate goes
 * stale: at most one in GPU_AES_EXPLORE_EVERY times the cost ratio of the
 * two paths, so exploring costs at most about 1/GPU_AES_EXPLORE_EVERY of
 * the work however lopsided the costs are.  dispatch=ring and
 * dispatch=cpu force the path; ring_min_bytes, ring_max_bytes and
 * MAY_BACKLOG stay hard bounds.
 */
#ifndef GPU_AES_DISPATCH_H
#define GPU_AES_DISPATCH_H

#include <linux/types.h>

#include "job.h"

struct attribute_group;
struct gpu_aes_ring;
struct gpu_aes_ring_observer;

/* Size classes: [256, 1K), [1K, 4K), ... [256K, 1M), 1M and up. */
#define GPU_AES_NR_CLASSES	7

/*
 * Estimates are kept per algorithm and direction: the two can cost
 * opposite things (a chained mode's encryption is one chain per request,
 * its decryption runs every block at once, on the CPU and the GPU alike).
 */
#define GPU_AES_NR_OPS		(2 * GPU_AES_NR_ALGS)

/* The row of @d in direction @dir (enum gpu_aes_dir) of the estimates. */
static inline unsigned int gpu_aes_op_row(const struct gpu_aes_alg_desc *d,
					  u8 dir)
{
	return 2 * gpu_aes_alg_row(d) + (dir == GPU_AES_DIR_DECRYPT);
}

enum gpu_aes_dispatch_mode {
	GPU_AES_DISPATCH_AUTO,
	GPU_AES_DISPATCH_RING,
	GPU_AES_DISPATCH_CPU,
};

/* The dispatch parameter (main.c), read on every request. */
extern int gpu_aes_dispatch;

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

/* A CPU busy this share of the time or more is saturated. */
#define GPU_AES_SATURATED_PCT	90
/*
 * The load rule pays at most 1/GPU_AES_LOAD_COST_DIV more than the CPU in
 * all.  Shedding a share f of the work to a ring that costs r times the
 * CPU costs f * (r - 1) more CPU per byte: at r up to 2, the 3-6 % of
 * requests a lone busy thread shed raised its CPU per GB by 5-8 % and
 * bought no throughput (bench --dispatch, 1 thread, cpu backend).  At
 * r <= 5/4 even a fifth of the work shed stays within 5 %.
 */
#define GPU_AES_LOAD_COST_DIV	4
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
/*
 * Weighing the figures is most of what auto adds to a request the CPU
 * driver runs (30-100 ns a request in kring on the GPU machine, 1-3 % of
 * a mixed one): a CPU repeats a decision of the cost or the latency rule for the
 * next GPU_AES_REPEAT requests of its algorithm and size class that are
 * alone, or not, as that one was, weighing again on the decisions that
 * weigh exploring (one in GPU_AES_EXPLORE_UNKNOWN).  Estimates move by an
 * eighth a sample, one request in GPU_AES_SAMPLE_EVERY: a decision that
 * lags them by fifteen requests of a class decides as they did.  Never
 * repeated: explorations, and decisions the load rule made or, on a
 * saturated CPU where its figures pay, could make next (the queue's fill
 * changes with each request).
 */
#define GPU_AES_REPEAT	15
/* One request in this many is timed. */
#define GPU_AES_SAMPLE_EVERY	16

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

/**
 * gpu_aes_size_class() - the size class of a request.
 * @bytes: its bytes.
 *
 * Return: 0 .. GPU_AES_NR_CLASSES - 1.
 */
unsigned int gpu_aes_size_class(u64 bytes);

/**
 * gpu_aes_route() - run a request where the policy says.
 * @ring: the ring.
 * @job: the request's job (gpu_aes_job_init()).
 * @bytes: the bytes the policy weighs (GCM: text plus associated data).
 *
 * Requests under ring_min_bytes or over ring_max_bytes, without
 * CRYPTO_TFM_REQ_MAY_BACKLOG, with no helper attached, or that the policy
 * sends to the CPU run there now; the rest go to gpu_aes_ring_submit(),
 * and run on the CPU now if it gives them back.  Counts the decision and
 * any fallback with its reason; times a sample of both paths.
 *
 * Return: -EINPROGRESS or -EBUSY (the callback will report), or the
 * result of running the request on the CPU.
 */
int gpu_aes_route(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
		  u64 bytes);

/* What the ring reports to the policy (ring.h); set at module init. */
extern const struct gpu_aes_ring_observer gpu_aes_dispatch_observer;

/**
 * gpu_aes_dispatch_note_cpu_driver() - the CPU driver a tfm falls back to.
 * @desc: its algorithm.
 * @driver: the fallback's driver name, as the crypto API gave it.
 *
 * The last one seen per algorithm is what dispatch/cpu_drivers shows.
 */
void gpu_aes_dispatch_note_cpu_driver(const struct gpu_aes_alg_desc *desc,
				      const char *driver);

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

/**
 * gpu_aes_dispatch_cpu_drivers_show() - the CPU drivers, for sysfs.
 * @buf: a page.
 *
 * One line per algorithm: its short name and the driver its tfms fall
 * back to ("-" before any tfm of it was made).
 *
 * Return: bytes written.
 */
ssize_t gpu_aes_dispatch_cpu_drivers_show(char *buf);

/* /sys/class/misc/gpu_aes/dispatch/ (dispatch_sysfs.c). */
extern const struct attribute_group gpu_aes_dispatch_group;

#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
/**
 * struct gpu_aes_dispatch_test - KUnit's hold on the live estimates.
 * @frozen: no sample updates an estimate (tests inject theirs) and no
 *	decision explores.
 * @saturated: -1: measure; 0 or 1: what every CPU is taken to be.
 * @repeat: with @frozen, decisions repeat as they do live
 *	(GPU_AES_REPEAT); without it each one weighs the figures.
 */
struct gpu_aes_dispatch_test {
	bool frozen;
	int saturated;
	bool repeat;
};

extern struct gpu_aes_dispatch_test gpu_aes_dispatch_test;

/*
 * Sets this CPU's estimates for @op (gpu_aes_op_row()) and @class;
 * 0 = unknown.
 */
void gpu_aes_dispatch_test_set(unsigned int op, unsigned int class,
			       u32 cpu_ns_per_kib, u32 submit_ns_per_kib);
/* Sets queue @q's completion cost; 0 = unknown. */
void gpu_aes_dispatch_test_set_complete(u32 q, u32 complete_ns_per_kib);
/* Sets how fast the ring drains queue @q when backed up; 0 = unknown. */
void gpu_aes_dispatch_test_set_drain(u32 q, u32 drain_ns_per_kib);
/* Sets the ring's lone latency for @op and @class; 0 = unknown. */
void gpu_aes_dispatch_test_set_lone(unsigned int op, unsigned int class,
				    u32 lone_ns);
/* Queue @q's completion cost and the lone latency, as measured. */
u32 gpu_aes_dispatch_test_complete(u32 q);
u32 gpu_aes_dispatch_test_lone(unsigned int op, unsigned int class);
u32 gpu_aes_dispatch_test_drain(u32 q);
/* Forgets every CPU's estimates and hysteresis. */
void gpu_aes_dispatch_test_reset(void);
#endif

#endif /* GPU_AES_DISPATCH_H */
