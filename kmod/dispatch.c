// SPDX-License-Identifier: GPL-2.0-only
/*
 * dispatch.c - the request path's choice between the ring and the CPU
 * (dispatch.h), and the cost estimates it is made on.
 *
 * Every estimate is an exponentially weighted mean (1/8 of each new
 * sample).  The CPU's and the ring's submission cost live in the
 * submitting CPU's per-CPU area and only it writes them; a queue's
 * completion cost is written by its reapers, the ring's lone-request
 * latency by whichever reaper completes such a request, both through the
 * ring's observer; the helper's figures are copied into the ring by
 * reapers, clamped.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/crypto.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tick.h>
#include <linux/timekeeping.h>

#include "dispatch.h"
#include "params.h"
#include "ring.h"
#include "stats.h"

/**
 * struct gpu_aes_dispatch_pcpu - one CPU's estimates and decision state,
 *	per algorithm and direction (gpu_aes_op_row()) and size class.
 * @cpu_ns: the CPU driver's cost, ns per KiB.
 * @submit_ns: the ring's cost on the submitting CPU (reservation, copy
 *	in, posting), ns per KiB.
 * @ring_chosen: the last cost decision was the ring (hysteresis).
 * @repeat: decisions left that repeat @last (dispatch.h: GPU_AES_REPEAT).
 * @last: the last decision weighed.
 * @last_lone: whether the request @last was for was alone.
 * @decisions: requests routed on this CPU: which to time.
 * @since_explore: decisions since this CPU last explored.
 * @depth16: sixteen times a mean of what was in flight on this CPU's
 *	queue at its decisions (1/16 of each new look).
 * @explore_at: jiffies of this CPU's last decision that went the other
 *	way to measure it.
 * @saturated: busy >= GPU_AES_SATURATED_PCT over the last window.
 * @sat_at: jiffies of the last busy sample.
 * @sat_idle_us: idle time at that sample.
 * @sat_wall_us: wall time at that sample.
 */
struct gpu_aes_dispatch_pcpu {
	u32 cpu_ns[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u32 submit_ns[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u8 ring_chosen[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u8 repeat[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u8 last[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	bool last_lone[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES];
	u32 decisions;
	u32 since_explore;
	u32 depth16;
	unsigned long explore_at;
	bool saturated;
	unsigned long sat_at;
	u64 sat_idle_us;
	u64 sat_wall_us;
};

static DEFINE_PER_CPU(struct gpu_aes_dispatch_pcpu, gpu_aes_dispatch_pcpu);

/*
 * What completing a request costs each queue's reapers (ns per KiB), how
 * fast the ring drains each queue while it is backed up (wall ns per KiB
 * completed, from one reap to the next, counted only from a reap that
 * left the queue backed up: in flight only grows between reaps, so the
 * ring had that queue's work waiting all along), and how long a request
 * posted alone takes on the ring, submission to callback (ns, per
 * algorithm, direction and class: a property of the helper and the GPU,
 * not of a queue).  Written by reapers only.
 */
struct gpu_aes_dispatch_queue {
	u32 complete_ns_per_kib;
	u32 drain_ns_per_kib;
	u64 backed_since;
} ____cacheline_aligned_in_smp;

static struct gpu_aes_dispatch_queue gpu_aes_dispatch_queues[GPU_AES_MAX_QUEUES];
static u32 gpu_aes_lone_ns[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES]
	____cacheline_aligned_in_smp;

/* The CPU driver each algorithm's tfms fall back to, for sysfs. */
static char gpu_aes_cpu_driver[GPU_AES_NR_ALGS][CRYPTO_MAX_ALG_NAME];
static DEFINE_SPINLOCK(gpu_aes_cpu_driver_lock);

/* Depths above this count as this much in the lone rule's mean. */
#define GPU_AES_DEPTH_MAX	64U

/* Costs above this are nonsense; a helper's above it are clamped. */
#define GPU_AES_COST_MAX	(100U * 1000 * 1000)

#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
struct gpu_aes_dispatch_test gpu_aes_dispatch_test = { .saturated = -1 };

static bool gpu_aes_dispatch_frozen(void)
{
	return READ_ONCE(gpu_aes_dispatch_test.frozen);
}

static int gpu_aes_dispatch_test_saturated(void)
{
	return READ_ONCE(gpu_aes_dispatch_test.saturated);
}

/* Tests inject figures and expect the next decision to weigh them. */
static bool gpu_aes_dispatch_repeats(void)
{
	return !READ_ONCE(gpu_aes_dispatch_test.frozen) ||
	       READ_ONCE(gpu_aes_dispatch_test.repeat);
}

void gpu_aes_dispatch_test_set(unsigned int op, unsigned int class,
			       u32 cpu_ns_per_kib, u32 submit_ns_per_kib)
{
	struct gpu_aes_dispatch_pcpu *pc = raw_cpu_ptr(&gpu_aes_dispatch_pcpu);

	pc->cpu_ns[op][class] = cpu_ns_per_kib;
	pc->submit_ns[op][class] = submit_ns_per_kib;
}

void gpu_aes_dispatch_test_set_complete(u32 q, u32 complete_ns_per_kib)
{
	WRITE_ONCE(gpu_aes_dispatch_queues[q].complete_ns_per_kib,
		   complete_ns_per_kib);
}

void gpu_aes_dispatch_test_set_drain(u32 q, u32 drain_ns_per_kib)
{
	WRITE_ONCE(gpu_aes_dispatch_queues[q].drain_ns_per_kib,
		   drain_ns_per_kib);
}

void gpu_aes_dispatch_test_set_lone(unsigned int op, unsigned int class,
				    u32 lone_ns)
{
	WRITE_ONCE(gpu_aes_lone_ns[op][class], lone_ns);
}

u32 gpu_aes_dispatch_test_complete(u32 q)
{
	return READ_ONCE(gpu_aes_dispatch_queues[q].complete_ns_per_kib);
}

u32 gpu_aes_dispatch_test_lone(unsigned int op, unsigned int class)
{
	return READ_ONCE(gpu_aes_lone_ns[op][class]);
}

u32 gpu_aes_dispatch_test_drain(u32 q)
{
	return READ_ONCE(gpu_aes_dispatch_queues[q].drain_ns_per_kib);
}

void gpu_aes_dispatch_test_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&gpu_aes_dispatch_pcpu, cpu), 0,
		       sizeof(struct gpu_aes_dispatch_pcpu));
	memset(gpu_aes_dispatch_queues, 0, sizeof(gpu_aes_dispatch_queues));
	memset(gpu_aes_lone_ns, 0, sizeof(gpu_aes_lone_ns));
}
#else
static inline bool gpu_aes_dispatch_frozen(void)
{
	return false;
}

static inline int gpu_aes_dispatch_test_saturated(void)
{
	return -1;
}

static inline bool gpu_aes_dispatch_repeats(void)
{
	return true;
}
#endif

unsigned int gpu_aes_size_class(u64 bytes)
{
	unsigned int c;

	if (bytes < 1024)
		return 0;
	c = (ilog2(bytes) - 8) / 2;
	return min(c, GPU_AES_NR_CLASSES - 1U);
}

/*
 * A new sample into a mean; a first sample is the mean.  A sample is
 * taken at most four times the mean: one preempted or lock-delayed
 * request should not swing the policy for the next hundred.
 */
static u32 gpu_aes_ewma(u32 mean, u64 sample)
{
	u64 s = min_t(u64, max_t(u64, sample, 1), GPU_AES_COST_MAX);

	if (!mean)
		return (u32)s;
	s = min_t(u64, s, 4ULL * mean);
	return (u32)(((u64)mean * 7 + s) / 8);
}

static u64 gpu_aes_ns_per_kib(u64 ns, u64 bytes)
{
	return div64_u64(ns * 1024, max_t(u64, bytes, 1));
}

/*
 * The latency rule: a lone request goes where it finishes sooner.  On the
 * CPU it takes what it costs (the fallback is synchronous); on the ring
 * the measured latency of a lone request of its class.  Either unknown:
 * the CPU, which measures itself, while exploration measures the ring.
 */
static enum gpu_aes_choice gpu_aes_choose_lone(const struct gpu_aes_dispatch_in *in)
{
	u64 cpu_ns = div_u64((u64)in->cpu_ns_per_kib * in->bytes, 1024);
	u64 ring_ns = in->ring_lone_ns;
	bool ring_sooner = in->cpu_ns_per_kib && ring_ns &&
			   ring_ns + ring_ns / 8 < cpu_ns;

	if (ring_sooner)
		return in->explore ? GPU_AES_CHOOSE_CPU_EXPLORE :
				     GPU_AES_CHOOSE_RING_LONE;
	return in->explore ? GPU_AES_CHOOSE_RING_EXPLORE :
			     GPU_AES_CHOOSE_CPU_LONE;
}

/*
 * The load rule's figures, not the load: posting costs this CPU less
 * than running the request, and the ring costs little more in all
 * (dispatch.h: GPU_AES_LOAD_COST_DIV), since what is shed costs the
 * machine that much more per byte.
 */
static bool gpu_aes_load_rule_pays(const struct gpu_aes_dispatch_in *in)
{
	return in->submit_ns_per_kib && in->ring_ns_per_kib &&
	       in->submit_ns_per_kib < in->cpu_ns_per_kib &&
	       in->ring_ns_per_kib <= in->cpu_ns_per_kib +
				      in->cpu_ns_per_kib / GPU_AES_LOAD_COST_DIV;
}

/*
 * The ring drains the request's queue more slowly than this CPU computes
 * the request's class, by 1/8 (a tie does not flap): with the queue
 * backed up, a request the CPU runs now is done sooner than one waiting
 * its turn, and the ring stays as busy as before.  Unknown: not.
 */
static bool gpu_aes_ring_is_bottleneck(const struct gpu_aes_dispatch_in *in)
{
	return in->drain_ns_per_kib &&
	       in->drain_ns_per_kib > in->cpu_ns_per_kib +
				      in->cpu_ns_per_kib / 8;
}

enum gpu_aes_choice gpu_aes_dispatch_choose(const struct gpu_aes_dispatch_in *in)
{
	bool ring_better;

	if (in->mode == GPU_AES_DISPATCH_RING)
		return GPU_AES_CHOOSE_RING_FORCED;
	if (in->mode == GPU_AES_DISPATCH_CPU)
		return GPU_AES_CHOOSE_CPU_FORCED;
	if (in->lone && !in->saturated)
		return gpu_aes_choose_lone(in);
	/* Nothing known of the CPU: it never costs more than we displace. */
	if (!in->cpu_ns_per_kib)
		return GPU_AES_CHOOSE_CPU_COST;
	if (!in->ring_ns_per_kib)
		ring_better = false;
	else if (in->ring_was_chosen)
		ring_better = in->ring_ns_per_kib <=
			      in->cpu_ns_per_kib + in->cpu_ns_per_kib / 8;
	else
		ring_better = in->ring_ns_per_kib + in->ring_ns_per_kib / 8 <
			      in->cpu_ns_per_kib;
	if (ring_better) {
		/*
		 * Cheaper, but the bottleneck: the CPU takes what the ring
		 * cannot absorb (dispatch.h, the load rule's mirror).
		 */
		if (in->backed_up && gpu_aes_ring_is_bottleneck(in))
			return GPU_AES_CHOOSE_CPU_LOAD;
		return in->explore ? GPU_AES_CHOOSE_CPU_EXPLORE :
				     GPU_AES_CHOOSE_RING_COST;
	}
	/*
	 * Costlier in all, but a saturated CPU sheds the request for less
	 * than running it costs, and the rest happens on CPUs that were idle
	 * and on the GPU.
	 */
	if (in->saturated && in->spare && in->headroom &&
	    gpu_aes_load_rule_pays(in))
		return GPU_AES_CHOOSE_RING_LOAD;
	return in->explore ? GPU_AES_CHOOSE_RING_EXPLORE :
			     GPU_AES_CHOOSE_CPU_COST;
}

/*
 * Busy share of this CPU over the last window of at least 10 ms; @now:
 * the decision's jiffies.
 */
static bool gpu_aes_cpu_saturated(struct gpu_aes_dispatch_pcpu *pc,
				  unsigned long now)
{
	int forced = gpu_aes_dispatch_test_saturated();
	u64 idle, wall, dw, di;

	if (forced >= 0)
		return forced;
	if (pc->sat_wall_us && time_before(now, pc->sat_at + max(HZ / 100, 1)))
		return pc->saturated;
	idle = get_cpu_idle_time_us(raw_smp_processor_id(), &wall);
	if (idle == (u64)-1) {
		/* No NOHZ idle accounting: never call it saturated. */
		pc->saturated = false;
	} else if (pc->sat_wall_us && wall > pc->sat_wall_us) {
		dw = wall - pc->sat_wall_us;
		di = min(idle - pc->sat_idle_us, dw);
		pc->saturated = (dw - di) * 100 >= dw * GPU_AES_SATURATED_PCT;
	}
	pc->sat_idle_us = idle;
	pc->sat_wall_us = wall;
	pc->sat_at = now;
	return pc->saturated;
}

/*
 * The whole machine's idle share over the last window, refreshed by one
 * CPU at a time every 10 ms: a word the others only read.
 */
static struct {
	unsigned long at;
	u64 idle_us;
	u64 wall_us;
	bool spare;
} gpu_aes_machine;

static bool gpu_aes_machine_spare(unsigned long now)
{
	unsigned long at = READ_ONCE(gpu_aes_machine.at);
	u64 idle = 0, wall, i, dw;
	unsigned int n = 0;
	int forced = gpu_aes_dispatch_test_saturated();
	int cpu;

	if (forced >= 0)
		return true;
	if ((at && time_before(now, at + max(HZ / 100, 1))) ||
	    cmpxchg(&gpu_aes_machine.at, at, now) != at)
		return READ_ONCE(gpu_aes_machine.spare);
	for_each_online_cpu(cpu) {
		i = get_cpu_idle_time_us(cpu, NULL);
		if (i == (u64)-1) {
			WRITE_ONCE(gpu_aes_machine.spare, false);
			return false;
		}
		idle += i;
		n++;
	}
	wall = div64_u64(ktime_get_ns(), NSEC_PER_USEC);
	if (gpu_aes_machine.wall_us && wall > gpu_aes_machine.wall_us && n) {
		dw = (wall - gpu_aes_machine.wall_us) * n;
		i = idle - min(idle, gpu_aes_machine.idle_us);
		WRITE_ONCE(gpu_aes_machine.spare,
			   i * 100 >= dw * GPU_AES_SPARE_PCT);
	}
	gpu_aes_machine.idle_us = idle;
	gpu_aes_machine.wall_us = wall;
	return READ_ONCE(gpu_aes_machine.spare);
}

/*
 * Room for @bytes more on the queue: the load rule keeps at most
 * GPU_AES_HEADROOM_MAX in flight per queue, less if the helper says it
 * moves less than that in GPU_AES_HEADROOM_US, but never less than
 * GPU_AES_HEADROOM_MIN (what it moves under little load understates what
 * it can move).  A helper's rate can only lower the bound.
 */
static bool gpu_aes_ring_headroom(struct gpu_aes_ring *ring,
				  struct gpu_aes_queue *q, u64 bytes)
{
	u64 limit = min_t(u64, GPU_AES_HEADROOM_MAX,
			  READ_ONCE(ring->queue_data_size) / 2);
	u32 rate = READ_ONCE(ring->helper_mib_per_s);
	u64 used = READ_ONCE(q->data_head) - READ_ONCE(q->data_tail);

	if (rate)
		limit = min(limit, max_t(u64, GPU_AES_HEADROOM_MIN,
					 div64_u64((u64)rate * SZ_1M *
						   GPU_AES_HEADROOM_US,
						   USEC_PER_SEC)));
	return used + bytes <= limit;
}

/* The ring's cost: posting, completing, and what the helper spends. */
static u32 gpu_aes_ring_cost(u32 submit, u32 complete,
			     struct gpu_aes_ring *ring)
{
	u64 sum = (u64)submit + complete + READ_ONCE(ring->helper_ns_per_kib);

	return min_t(u64, sum, GPU_AES_COST_MAX);
}

/*
 * A class's figure, or the nearest measured class's (the smaller of two
 * as near): per KiB, neighbouring classes cost alike, and a guess from
 * them beats sending every new class to one path by default.  0 when no
 * class is measured.
 */
static u32 gpu_aes_borrow(const u32 *row, unsigned int c)
{
	unsigned int d;
	u32 v;

	v = READ_ONCE(row[c]);
	for (d = 1; !v && d < GPU_AES_NR_CLASSES; d++) {
		if (c >= d)
			v = READ_ONCE(row[c - d]);
		if (!v && c + d < GPU_AES_NR_CLASSES)
			v = READ_ONCE(row[c + d]);
	}
	return v;
}

/* A timed sample into an estimate, unless KUnit froze them. */
static void gpu_aes_sample(u32 *mean, u64 t0, u64 bytes)
{
	u64 ns = ktime_get_ns() - t0;

	if (!gpu_aes_dispatch_frozen())
		*mean = gpu_aes_ewma(*mean, gpu_aes_ns_per_kib(ns, bytes));
}

/*
 * How many times the path an exploration would take costs the one
 * chosen, in CPU per KiB whichever rule chose (exploring a path that
 * costs less costs nothing: 1); 0 when a figure the choice needs is not
 * known, so it is measured soon.
 */
static u32 gpu_aes_explore_ratio(const struct gpu_aes_dispatch_in *in,
				 enum gpu_aes_choice choice)
{
	u64 explored, chosen;

	if (choice == GPU_AES_CHOOSE_RING_LOAD)
		return 1;	/* never flipped: costs within 5/4 anyway */
	if (choice == GPU_AES_CHOOSE_CPU_LOAD)
		return 1;	/* never flipped: the ring is full of work */
	if (!in->ring_ns_per_kib || !in->cpu_ns_per_kib ||
	    (in->lone && !in->ring_lone_ns))
		return 0;
	explored = gpu_aes_choice_is_ring(choice) ? in->cpu_ns_per_kib :
						    in->ring_ns_per_kib;
	chosen = gpu_aes_choice_is_ring(choice) ? in->ring_ns_per_kib :
						  in->cpu_ns_per_kib;
	return (u32)min_t(u64, max_t(u64, DIV_ROUND_UP_ULL(explored, chosen),
				     1), U32_MAX);
}

/*
 * Is it this CPU's turn to explore (dispatch.h: GPU_AES_EXPLORE_EVERY)?
 * Weighed once in GPU_AES_EXPLORE_UNKNOWN decisions, of which every count
 * of decisions between explorations is a multiple: the ratio's division
 * and the clock stay off the other decisions.  @now: the decision's
 * jiffies.
 */
static bool gpu_aes_explore_due(struct gpu_aes_dispatch_pcpu *pc,
				const struct gpu_aes_dispatch_in *in,
				enum gpu_aes_choice choice, unsigned long now)
{
	u32 ratio, every;
	unsigned long gap;

	if (gpu_aes_dispatch_frozen() ||
	    pc->since_explore % GPU_AES_EXPLORE_UNKNOWN)
		return false;
	ratio = gpu_aes_explore_ratio(in, choice);
	every = gpu_aes_explore_every(ratio);
	/*
	 * Exploring a path that costs no more takes nothing from the work,
	 * only a little latency from one request: no clock.  That is what
	 * gets a consumer that streams requests out of the CPU's lone rule
	 * (each request it ran synchronously left the queue empty) once the
	 * ring is the cheaper path.
	 */
	gap = ratio == 1 ? 0 : ratio ? GPU_AES_EXPLORE_JIFFIES :
				       GPU_AES_EXPLORE_JIFFIES / 10;
	if (pc->since_explore < every ||
	    time_before(now, pc->explore_at + gap))
		return false;
	pc->since_explore = 0;
	pc->explore_at = now;
	return true;
}

static enum gpu_aes_choice gpu_aes_decide(struct gpu_aes_ring *ring,
					  struct gpu_aes_job *job, u64 bytes,
					  struct gpu_aes_dispatch_pcpu *pc,
					  struct gpu_aes_dispatch_in *in)
{
	unsigned int a = gpu_aes_op_row(job->desc, job->dir);
	unsigned int c = gpu_aes_size_class(bytes);
	struct gpu_aes_queue *q = gpu_aes_ring_queue(ring);
	unsigned long now;
	u32 submit, complete, depth;
	enum gpu_aes_choice choice;
	bool repeatable;

	memset(in, 0, sizeof(*in));
	in->mode = READ_ONCE(gpu_aes_dispatch);
	in->bytes = bytes;
	if (in->mode != GPU_AES_DISPATCH_AUTO)
		return gpu_aes_dispatch_choose(in);

	/*
	 * Alone: nothing in flight or waiting now, and next to nothing
	 * lately - a consumer that waits for each answer, not a stream
	 * whose queue happens to have drained (or whose requests all ran
	 * here, synchronously: an exploration to the ring then shows it).
	 */
	depth = gpu_aes_queue_in_flight(q) + READ_ONCE(q->nr_backlog);
	pc->depth16 += min(depth, GPU_AES_DEPTH_MAX) - pc->depth16 / 16;
	in->lone = !depth && pc->depth16 < 16;
	/*
	 * The class's last decision again, unweighed (dispatch.h:
	 * GPU_AES_REPEAT), but on the decisions that weigh exploring.
	 */
	if (++pc->since_explore % GPU_AES_EXPLORE_UNKNOWN &&
	    pc->repeat[a][c] && pc->last_lone[a][c] == in->lone &&
	    gpu_aes_dispatch_repeats()) {
		pc->repeat[a][c]--;
		return pc->last[a][c];
	}

	/* One look at the clock per decision (kring's jiffies is a call). */
	now = jiffies;
	in->cpu_ns_per_kib = gpu_aes_borrow(pc->cpu_ns[a], c);
	submit = gpu_aes_borrow(pc->submit_ns[a], c);
	complete = READ_ONCE(gpu_aes_dispatch_queues[q->id].complete_ns_per_kib);
	in->submit_ns_per_kib = submit;
	if (submit && complete)
		in->ring_ns_per_kib = gpu_aes_ring_cost(submit, complete, ring);
	in->ring_lone_ns = gpu_aes_borrow(gpu_aes_lone_ns[a], c);
	in->drain_ns_per_kib =
		READ_ONCE(gpu_aes_dispatch_queues[q->id].drain_ns_per_kib);
	in->ring_was_chosen = pc->ring_chosen[a][c];
	in->saturated = gpu_aes_cpu_saturated(pc, now);
	choice = gpu_aes_dispatch_choose(in);
	/*
	 * The load rule can only turn a cost decision for the CPU on a
	 * saturated CPU around: its other inputs (the machine's idle share,
	 * the queue's fill) are read for those alone.
	 */
	if (choice == GPU_AES_CHOOSE_CPU_COST && in->saturated) {
		in->spare = gpu_aes_machine_spare(now);
		in->headroom = in->spare &&
			       gpu_aes_ring_headroom(ring, q, bytes);
		if (in->headroom)
			choice = gpu_aes_dispatch_choose(in);
	}
	/*
	 * Its mirror reads the queue's fill only for a cost decision for
	 * the ring where the ring drains this queue more slowly than this
	 * CPU computes.
	 */
	if (choice == GPU_AES_CHOOSE_RING_COST &&
	    gpu_aes_ring_is_bottleneck(in)) {
		in->backed_up = !gpu_aes_ring_headroom(ring, q, bytes);
		if (in->backed_up)
			choice = gpu_aes_dispatch_choose(in);
	}
	if (gpu_aes_explore_due(pc, in, choice, now)) {
		in->explore = true;
		choice = gpu_aes_dispatch_choose(in);
	}
	if (choice == GPU_AES_CHOOSE_RING_COST)
		pc->ring_chosen[a][c] = 1;
	else if (choice == GPU_AES_CHOOSE_CPU_COST)
		pc->ring_chosen[a][c] = 0;
	/*
	 * Not repeated: an exploration, and what the load rule or its
	 * mirror decided or could decide next, which weighs the queue's
	 * fill each request changes.
	 */
	repeatable = (choice == GPU_AES_CHOOSE_RING_COST &&
		      !gpu_aes_ring_is_bottleneck(in)) ||
		     choice == GPU_AES_CHOOSE_RING_LONE ||
		     choice == GPU_AES_CHOOSE_CPU_LONE ||
		     (choice == GPU_AES_CHOOSE_CPU_COST &&
		      !(in->saturated && gpu_aes_load_rule_pays(in)));
	pc->repeat[a][c] = repeatable ? GPU_AES_REPEAT : 0;
	pc->last[a][c] = choice;
	pc->last_lone[a][c] = in->lone;
	return choice;
}

/* Runs the request on the CPU driver, timing it when asked to. */
static int gpu_aes_dispatch_cpu(struct gpu_aes_job *job, u64 bytes,
				struct gpu_aes_dispatch_pcpu *pc, bool timed)
{
	unsigned int a = gpu_aes_op_row(job->desc, job->dir);
	unsigned int c = gpu_aes_size_class(bytes);
	u64 t0;
	int err;

	if (!timed && pc->cpu_ns[a][c])
		return gpu_aes_job_cpu(job);
	t0 = ktime_get_ns();
	err = gpu_aes_job_cpu(job);
	/* Deferred to cryptd: the time was its queueing, not the work. */
	if (err != -EINPROGRESS && err != -EBUSY)
		gpu_aes_sample(&pc->cpu_ns[a][c], t0, bytes);
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
	/* A hint: the estimates tolerate a preemption in between. */
	struct gpu_aes_dispatch_pcpu *pc = raw_cpu_ptr(&gpu_aes_dispatch_pcpu);
	unsigned int a = gpu_aes_op_row(job->desc, job->dir);
	unsigned int c = gpu_aes_size_class(bytes);
	u32 n = ++pc->decisions;
	bool timed = !(n % GPU_AES_SAMPLE_EVERY);
	enum gpu_aes_fallback_reason why;
	struct gpu_aes_dispatch_in in;
	enum gpu_aes_choice choice;
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
		choice = gpu_aes_decide(ring, job, bytes, pc, &in);
		if (!gpu_aes_choice_is_ring(choice)) {
			why = gpu_aes_cpu_choice_reason[choice];
			goto cpu;
		}
		gpu_aes_stat_inc(gpu_aes_ring_choice_stat[choice]);
		timed |= !pc->submit_ns[a][c];
		t0 = timed || in.lone ? ktime_get_ns() : 0;
		/* A lone one's latency is timed to its callback (ring.c). */
		if (in.lone)
			job->lone_t0 = t0;
		ret = gpu_aes_ring_submit(ring, job, &why);
		if (ret == GPU_AES_RING_FALLBACK)
			goto cpu;
		if (timed && ret == -EINPROGRESS)
			gpu_aes_sample(&pc->submit_ns[a][c], t0, bytes);
		return ret;
	}
cpu:
	gpu_aes_stat_fallback(why, bytes);
	return gpu_aes_dispatch_cpu(job, bytes, pc, timed);
}

static void gpu_aes_dispatch_attached(u32 nr_queues)
{
	u32 i;

	/* A new helper: completion costs and pace of its own. */
	for (i = 0; i < nr_queues && i < GPU_AES_MAX_QUEUES; i++) {
		WRITE_ONCE(gpu_aes_dispatch_queues[i].complete_ns_per_kib, 0);
		WRITE_ONCE(gpu_aes_dispatch_queues[i].drain_ns_per_kib, 0);
		WRITE_ONCE(gpu_aes_dispatch_queues[i].backed_since, 0);
	}
}

static void gpu_aes_dispatch_completed(struct gpu_aes_queue *q, u64 ns,
				       u64 bytes)
{
	struct gpu_aes_dispatch_queue *dq = &gpu_aes_dispatch_queues[q->id];
	u64 now, since;

	if (!bytes || gpu_aes_dispatch_frozen())
		return;
	/* Concurrent reapers may lose an update: they are means. */
	WRITE_ONCE(dq->complete_ns_per_kib,
		   gpu_aes_ewma(READ_ONCE(dq->complete_ns_per_kib),
				gpu_aes_ns_per_kib(ns, bytes)));
	/*
	 * The ring's pace on this queue, from a reap that left it backed up
	 * to this one: all that time it had this queue's work waiting.
	 */
	now = ktime_get_ns();
	since = READ_ONCE(dq->backed_since);
	if (since && now > since)
		WRITE_ONCE(dq->drain_ns_per_kib,
			   gpu_aes_ewma(READ_ONCE(dq->drain_ns_per_kib),
					gpu_aes_ns_per_kib(now - since, bytes)));
	WRITE_ONCE(dq->backed_since,
		   gpu_aes_ring_headroom(q->ring, q, 0) ? 0 : now);
}

static void gpu_aes_dispatch_lone_completed(const struct gpu_aes_job *job,
					    u64 ns)
{
	u64 bytes = (u64)job->len + job->aad_len;
	u32 *mean = &gpu_aes_lone_ns[gpu_aes_op_row(job->desc, job->dir)]
				    [gpu_aes_size_class(bytes)];

	if (gpu_aes_dispatch_frozen())
		return;
	WRITE_ONCE(*mean, gpu_aes_ewma(READ_ONCE(*mean), ns));
}

const struct gpu_aes_ring_observer gpu_aes_dispatch_observer = {
	.attached = gpu_aes_dispatch_attached,
	.completed = gpu_aes_dispatch_completed,
	.lone_completed = gpu_aes_dispatch_lone_completed,
};

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

/* Mean of the non-zero values; 0 when there is none. */
struct gpu_aes_mean {
	u64 sum;
	u32 n;
};

static void gpu_aes_mean_add(struct gpu_aes_mean *m, u32 v)
{
	if (v) {
		m->sum += v;
		m->n++;
	}
}

static u32 gpu_aes_mean_of(const struct gpu_aes_mean *m)
{
	return m->n ? (u32)div64_u64(m->sum, m->n) : 0;
}

/* What auto would choose on these figures, as a word. */
static const char *gpu_aes_choice_word(struct gpu_aes_dispatch_in *in,
				       bool lone)
{
	in->lone = lone;
	return gpu_aes_choice_is_ring(gpu_aes_dispatch_choose(in)) ? "ring" :
								      "cpu";
}

/* The longest line gpu_aes_dispatch_show() writes, and some. */
#define GPU_AES_SHOW_LINE_MAX	72

ssize_t gpu_aes_dispatch_show(char *buf)
{
	struct gpu_aes_ring *ring = &gpu_aes_ring;
	struct gpu_aes_mean comp = {};
	u32 nq = READ_ONCE(ring->nr_queues), helper, cpu_ns, ring_ns, lone;
	const struct gpu_aes_alg_desc *d;
	unsigned int op, c;
	ssize_t len;
	int cpu;
	u32 i;

	for (i = 0; i < nq; i++)
		gpu_aes_mean_add(&comp,
				 READ_ONCE(gpu_aes_dispatch_queues[i].complete_ns_per_kib));
	helper = READ_ONCE(ring->helper_ns_per_kib);
	len = sysfs_emit(buf, "alg bytes cpu_ns_per_kib ring_ns_per_kib %s\n",
			 "ring_lone_us auto auto_lone dir");
	for (op = 0; op < GPU_AES_NR_OPS; op++) {
		d = gpu_aes_alg_desc(op / 2 + 1);
		for (c = 0; d && c < GPU_AES_NR_CLASSES; c++) {
			struct gpu_aes_mean cm = {}, sm = {};
			struct gpu_aes_dispatch_in in = {
				.mode = GPU_AES_DISPATCH_AUTO,
			};

			/* A page holds every row of today's algorithms. */
			if (len > (ssize_t)(PAGE_SIZE - GPU_AES_SHOW_LINE_MAX))
				return len;
			for_each_possible_cpu(cpu) {
				struct gpu_aes_dispatch_pcpu *pc =
					per_cpu_ptr(&gpu_aes_dispatch_pcpu, cpu);

				gpu_aes_mean_add(&cm, READ_ONCE(pc->cpu_ns[op][c]));
				gpu_aes_mean_add(&sm,
						 READ_ONCE(pc->submit_ns[op][c]));
			}
			cpu_ns = gpu_aes_mean_of(&cm);
			ring_ns = gpu_aes_mean_of(&sm) && gpu_aes_mean_of(&comp) ?
				  gpu_aes_mean_of(&sm) + gpu_aes_mean_of(&comp) +
				  helper : 0;
			lone = READ_ONCE(gpu_aes_lone_ns[op][c]);
			in.bytes = 256ULL << (2 * c);
			in.cpu_ns_per_kib = cpu_ns;
			in.ring_ns_per_kib = ring_ns;
			in.ring_lone_ns = lone;
			len += sysfs_emit_at(buf, len, "%s %llu ", d->name,
					     in.bytes);
			len += cpu_ns ? sysfs_emit_at(buf, len, "%u ", cpu_ns) :
					sysfs_emit_at(buf, len, "- ");
			len += ring_ns ? sysfs_emit_at(buf, len, "%u ", ring_ns) :
					 sysfs_emit_at(buf, len, "- ");
			len += lone ? sysfs_emit_at(buf, len, "%u ",
						    DIV_ROUND_UP(lone, 1000)) :
				      sysfs_emit_at(buf, len, "- ");
			len += sysfs_emit_at(buf, len, "%s ",
					     gpu_aes_choice_word(&in, false));
			len += sysfs_emit_at(buf, len, "%s %s\n",
					     gpu_aes_choice_word(&in, true),
					     op % 2 ? "dec" : "enc");
		}
	}
	return len;
}
