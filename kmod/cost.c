// SPDX-License-Identifier: GPL-2.0-only
/*
 * cost.c - the estimates dispatch=auto weighs and the decision made on
 * them (cost.h); the rules themselves are policy.c's.
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
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/sysfs.h>
#include <linux/tick.h>
#include <linux/timekeeping.h>

#include "cost.h"
#include "estimates.h"
#include "ring.h"

/* Depths above this count as this much in the lone rule's mean. */
#define GPU_AES_DEPTH_MAX	64U

/* Costs above this are nonsense; a helper's above it are clamped. */
#define GPU_AES_COST_MAX	(100U * 1000 * 1000)

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
					  struct gpu_aes_cost_slot slot,
					  u64 bytes,
					  struct gpu_aes_dispatch_pcpu *pc,
					  struct gpu_aes_dispatch_in *in)
{
	unsigned int a = slot.op;
	unsigned int c = slot.class;
	struct gpu_aes_queue *q = gpu_aes_ring_queue(ring);
	unsigned long now;
	u32 submit, complete, depth;
	enum gpu_aes_choice choice;
	bool repeatable;

	in->mode = GPU_AES_DISPATCH_AUTO;
	in->bytes = bytes;

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

enum gpu_aes_choice gpu_aes_cost_decide(struct gpu_aes_ring *ring,
					struct gpu_aes_cost_slot slot,
					u64 bytes, bool *lone)
{
	/* A hint: the estimates tolerate a preemption in between. */
	struct gpu_aes_dispatch_pcpu *pc = raw_cpu_ptr(&gpu_aes_dispatch_pcpu);
	struct gpu_aes_dispatch_in in = {};
	enum gpu_aes_choice choice;

	choice = gpu_aes_decide(ring, slot, bytes, pc, &in);
	*lone = in.lone;
	return choice;
}

bool gpu_aes_cost_sample_due(void)
{
	struct gpu_aes_dispatch_pcpu *pc = raw_cpu_ptr(&gpu_aes_dispatch_pcpu);

	return !(++pc->decisions % GPU_AES_SAMPLE_EVERY);
}

static u32 *gpu_aes_cost_mean(struct gpu_aes_cost_slot slot,
			      enum gpu_aes_path path)
{
	struct gpu_aes_dispatch_pcpu *pc = raw_cpu_ptr(&gpu_aes_dispatch_pcpu);

	return path == GPU_AES_PATH_RING ? &pc->submit_ns[slot.op][slot.class] :
					   &pc->cpu_ns[slot.op][slot.class];
}

bool gpu_aes_cost_known(struct gpu_aes_cost_slot slot, enum gpu_aes_path path)
{
	return *gpu_aes_cost_mean(slot, path);
}

void gpu_aes_cost_sample(struct gpu_aes_cost_slot slot, enum gpu_aes_path path,
			 u64 t0, u64 bytes)
{
	gpu_aes_sample(gpu_aes_cost_mean(slot, path), t0, bytes);
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
