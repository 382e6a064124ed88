// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch (dispatch.h): where dispatch=auto sends a request, on cost
 * figures the tests inject (the live estimates are frozen: no timing in
 * tests), and what it can never do:
 *  - the cheaper path wins, with hysteresis: a path is left only for one
 *    cheaper by 1/8;
 *  - a request alone on its queue goes where it finishes sooner, the CPU
 *    or the ring, whatever its size;
 *  - a class not measured yet borrows its neighbours' figures;
 *  - exploring the other path costs a bounded share of the work, however
 *    lopsided the costs;
 *  - a saturated CPU sheds a request to the ring when the machine has
 *    idle CPUs, posting costs it less than running it and the ring has
 *    headroom;
 *  - and the mirror: a ring that costs less, but is backed up and drains
 *    the queue more slowly than the CPU computes, leaves the request to
 *    the CPU; one that drains it faster keeps it;
 *  - each direction of an algorithm has estimates of its own;
 *  - a helper's published figures, however absurd, only ever send work to
 *    the CPU;
 *  - dispatch=ring and dispatch=cpu force the path;
 *  - changing the policy with requests in flight completes each exactly
 *    once;
 *  - every decision is counted once, with its reason, and the counts add
 *    up with the ring and fallback counters.
 */
#include <kunit/test.h>

#include "cost.h"
#include "cost_hooks.h"
#include "dispatch.h"
#include "fake_helper.h"
#include "ring.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES
#define DELTA(x)	gt_stats_delta(&s, GPU_AES_STAT_##x)
/* Rows of the estimates (gpu_aes_op_row()): ctr and ecb, each direction. */
#define CTR	(2 * (GPU_AES_ALG_CTR - 1))
#define ECB_ENC	(2 * (GPU_AES_ALG_ECB - 1))
#define ECB_DEC	(ECB_ENC + 1)
#define C4K	2	/* gpu_aes_size_class(4096) */

static void gt_dispatch_thaw(void *data)
{
	WRITE_ONCE(gpu_aes_dispatch_test.frozen, false);
	WRITE_ONCE(gpu_aes_dispatch_test.saturated, -1);
	WRITE_ONCE(gpu_aes_dispatch_test.repeat, false);
	gpu_aes_dispatch_test_reset();
	WRITE_ONCE(gpu_aes_ring.helper_ns_per_kib, 0);
	WRITE_ONCE(gpu_aes_ring.helper_mib_per_s, 0);
}

/*
 * A manual one-queue helper, dispatch=auto, estimates frozen and empty,
 * the CPU not saturated.  With @holder, one request stays in flight so
 * the queue is not idle (no "lone" rule); it is returned for completion.
 */
static struct fake_helper *gt_dispatch_setup(struct kunit *test,
					     struct gt_tfm *t,
					     struct gt_req **holder)
{
	struct fake_helper *h;

	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 1);
	gt_set_timeout_ms(test, 600000);
	h = gt_helper(test, NR, false);
	gpu_aes_dispatch_test_reset();
	WRITE_ONCE(gpu_aes_dispatch_test.frozen, true);
	WRITE_ONCE(gpu_aes_dispatch_test.saturated, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_dispatch_thaw,
							NULL), 0);
	if (holder) {
		/* dispatch=ring still (gt_helper() set it). */
		*holder = gt_req_new(test, t, 4096, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(*holder, false),
				-EINPROGRESS);
	}
	gt_set_dispatch(test, GPU_AES_DISPATCH_AUTO);
	return h;
}

/* Costs of ctr requests of 4 KiB on this CPU and queue 0. */
static void gt_costs(u32 cpu, u32 submit, u32 complete)
{
	gpu_aes_dispatch_test_set(CTR, C4K, cpu, submit);
	gpu_aes_dispatch_test_set_complete(0, complete);
}

/* Starts a 4 KiB request; true if it went to the ring. */
static bool gt_goes_to_ring(struct kunit *test, struct gt_tfm *t,
			    struct gt_req **out)
{
	struct gt_req *r = gt_req_new(test, t, 4096, GT_BL);
	int ret = gt_req_start(r, false);

	*out = r;
	if (ret == -EINPROGRESS)
		return true;
	/* On the CPU: done before the call returned, and right. */
	gt_req_expect_done(test, r);
	return false;
}

static void gpu_aes_dispatch_choose_table(struct kunit *test)
{
	static const struct {
		struct gpu_aes_dispatch_in in;
		enum gpu_aes_choice want;
	} cases[] = {
		/* Forced: figures and load do not matter. */
		{ { .mode = GPU_AES_DISPATCH_RING, .lone = true, .bytes = 16,
		    .cpu_ns_per_kib = 1, .ring_ns_per_kib = 1000 },
		  GPU_AES_CHOOSE_RING_FORCED },
		{ { .mode = GPU_AES_DISPATCH_CPU, .bytes = 1 << 20,
		    .cpu_ns_per_kib = 1000, .ring_ns_per_kib = 1 },
		  GPU_AES_CHOOSE_CPU_FORCED },
		/*
		 * Alone: where it finishes sooner, by 1/8, whatever the cost
		 * and size.  4 KiB at 1000 ns/KiB is 4 us on the CPU.
		 */
		{ { .bytes = 4096, .lone = true, .cpu_ns_per_kib = 1000,
		    .ring_ns_per_kib = 1, .ring_lone_ns = 3000 },
		  GPU_AES_CHOOSE_RING_LONE },
		{ { .bytes = 4096, .lone = true, .cpu_ns_per_kib = 1000,
		    .ring_ns_per_kib = 1, .ring_lone_ns = 3600 },
		  GPU_AES_CHOOSE_CPU_LONE },
		{ { .bytes = 4096, .lone = true, .cpu_ns_per_kib = 100,
		    .ring_ns_per_kib = 1000, .ring_lone_ns = 30000 },
		  GPU_AES_CHOOSE_CPU_LONE },
		{ { .bytes = 1 << 20, .lone = true, .cpu_ns_per_kib = 300,
		    .ring_ns_per_kib = 600, .ring_lone_ns = 100000 },
		  GPU_AES_CHOOSE_RING_LONE },
		{ { .bytes = 1 << 20, .lone = true, .cpu_ns_per_kib = 50,
		    .ring_ns_per_kib = 10, .ring_lone_ns = 100000 },
		  GPU_AES_CHOOSE_CPU_LONE },
		/* Alone, a latency unknown: the CPU; explored the other way. */
		{ { .bytes = 4096, .lone = true, .cpu_ns_per_kib = 1000,
		    .ring_ns_per_kib = 1 },
		  GPU_AES_CHOOSE_CPU_LONE },
		{ { .bytes = 4096, .lone = true, .ring_ns_per_kib = 1,
		    .ring_lone_ns = 10 },
		  GPU_AES_CHOOSE_CPU_LONE },
		{ { .bytes = 4096, .lone = true, .cpu_ns_per_kib = 1000,
		    .explore = true },
		  GPU_AES_CHOOSE_RING_EXPLORE },
		{ { .bytes = 4096, .lone = true, .cpu_ns_per_kib = 1000,
		    .ring_lone_ns = 3000, .explore = true },
		  GPU_AES_CHOOSE_CPU_EXPLORE },
		/* Unknown costs: the CPU; an unknown ring is explored. */
		{ { .bytes = 4096, .ring_ns_per_kib = 1 },
		  GPU_AES_CHOOSE_CPU_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200 },
		  GPU_AES_CHOOSE_CPU_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200, .explore = true },
		  GPU_AES_CHOOSE_RING_EXPLORE },
		/* Cost, and the share that explores the other path. */
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 100 },
		  GPU_AES_CHOOSE_RING_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 100, .explore = true },
		  GPU_AES_CHOOSE_CPU_EXPLORE },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 300 },
		  GPU_AES_CHOOSE_CPU_COST },
		/* Hysteresis: 1/8 either way. */
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 190 },
		  GPU_AES_CHOOSE_CPU_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 170 },
		  GPU_AES_CHOOSE_RING_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 225, .ring_was_chosen = true },
		  GPU_AES_CHOOSE_RING_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 226, .ring_was_chosen = true },
		  GPU_AES_CHOOSE_CPU_COST },
		/*
		 * Load: a saturated CPU with idle ones elsewhere, headroom,
		 * posting cheaper for this CPU than running it, the ring at
		 * most a quarter costlier in all than the CPU.  Each case
		 * after the first two misses one condition alone.
		 */
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 250, .submit_ns_per_kib = 50,
		    .saturated = true, .spare = true, .headroom = true },
		  GPU_AES_CHOOSE_RING_LOAD },
		{ { .bytes = 4096, .lone = true, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 250, .submit_ns_per_kib = 50,
		    .saturated = true, .spare = true, .headroom = true },
		  GPU_AES_CHOOSE_RING_LOAD },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 251, .submit_ns_per_kib = 50,
		    .saturated = true, .spare = true, .headroom = true },
		  GPU_AES_CHOOSE_CPU_COST },
		/* Twice the CPU: shed once, now too dear. */
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 400, .submit_ns_per_kib = 50,
		    .saturated = true, .spare = true, .headroom = true },
		  GPU_AES_CHOOSE_CPU_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 240, .submit_ns_per_kib = 50,
		    .saturated = true, .headroom = true },
		  GPU_AES_CHOOSE_CPU_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 240, .submit_ns_per_kib = 50,
		    .saturated = true, .spare = true },
		  GPU_AES_CHOOSE_CPU_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 240, .submit_ns_per_kib = 200,
		    .saturated = true, .spare = true, .headroom = true },
		  GPU_AES_CHOOSE_CPU_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 240, .submit_ns_per_kib = 50,
		    .spare = true, .headroom = true },
		  GPU_AES_CHOOSE_CPU_COST },
		/*
		 * The ring the bottleneck: cheaper, backed up, and draining
		 * the queue slower than the CPU computes, by 1/8; exploring
		 * does not turn it.  Each case after the first two misses one
		 * condition alone.
		 */
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 100, .drain_ns_per_kib = 226,
		    .backed_up = true },
		  GPU_AES_CHOOSE_CPU_LOAD },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 100, .drain_ns_per_kib = 226,
		    .backed_up = true, .explore = true },
		  GPU_AES_CHOOSE_CPU_LOAD },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 100, .drain_ns_per_kib = 225,
		    .backed_up = true },
		  GPU_AES_CHOOSE_RING_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 100, .drain_ns_per_kib = 1000 },
		  GPU_AES_CHOOSE_RING_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 100, .backed_up = true },
		  GPU_AES_CHOOSE_RING_COST },
		{ { .bytes = 4096, .cpu_ns_per_kib = 200,
		    .ring_ns_per_kib = 300, .drain_ns_per_kib = 1000,
		    .backed_up = true },
		  GPU_AES_CHOOSE_CPU_COST },
		/* Alone, a queue is never backed up: the latency rule. */
		{ { .bytes = 4096, .lone = true, .cpu_ns_per_kib = 1000,
		    .ring_ns_per_kib = 1, .ring_lone_ns = 3000,
		    .drain_ns_per_kib = 5000 },
		  GPU_AES_CHOOSE_RING_LONE },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, gpu_aes_dispatch_choose(&cases[i].in),
				    cases[i].want, "case %u", i);
}

static void gpu_aes_dispatch_size_classes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class(1), 0);
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class(1023), 0);
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class(1024), 1);
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class(4095), 1);
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class(4096), C4K);
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class(65536), 4);
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class((1 << 20) - 1), 5);
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class(1 << 20), 6);
	KUNIT_EXPECT_EQ(test, gpu_aes_size_class(1ULL << 40), 6);
}

/* The cheaper path wins; hysteresis holds; every decision is counted. */
static void gpu_aes_dispatch_auto_follows_cost(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *holder, *r[6];
	struct fake_helper *h = gt_dispatch_setup(test, t, &holder);
	struct gt_stats s;
	unsigned int i, on_ring = 1;

	gt_stats_snap(&s);
	gt_costs(400, 100, 100);	/* ring 200 < CPU 400 */
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[0]));
	gt_costs(210, 100, 100);	/* ring 200, within 1/8: stays */
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[1]));
	gt_costs(100, 100, 100);	/* ring 200 > 112: the CPU */
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[2]));
	gt_costs(215, 100, 100);	/* ring 200 + 25 > 215: still the CPU */
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[3]));
	gt_costs(230, 100, 100);	/* 225 < 230: the ring again */
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[4]));
	/* The helper's share counts: 200 + 100 > 230 + 1/8. */
	WRITE_ONCE(gpu_aes_ring.helper_ns_per_kib, 100);
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[5]));
	on_ring += 3;

	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_COST), 3);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_COST), 3);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY), 3);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_REQUESTS), 3);
	KUNIT_EXPECT_EQ(test, DELTA(RING_REQUESTS), 3);
	gt_helper_complete_all(test, h, on_ring);
	gt_req_expect_done(test, holder);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		gt_req_expect_done(test, r[i]);
}

/*
 * A cost decision is repeated for the class's next requests without
 * weighing the figures (GPU_AES_REPEAT), and weighed again on the decision
 * that weighs exploring, one in GPU_AES_EXPLORE_UNKNOWN: a change in the
 * figures takes effect there, and every decision is counted once.
 */
static void gpu_aes_dispatch_repeats_then_weighs(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *holder, *r[GPU_AES_EXPLORE_UNKNOWN];
	struct fake_helper *h = gt_dispatch_setup(test, t, &holder);
	const unsigned int last = GPU_AES_EXPLORE_UNKNOWN - 1;
	struct gt_stats s;
	unsigned int i;

	KUNIT_ASSERT_GE(test, GPU_AES_REPEAT, last - 1);
	KUNIT_ASSERT_LE(test, last + 1, NR);	/* the holder and 15 fit */
	WRITE_ONCE(gpu_aes_dispatch_test.repeat, true);
	gt_stats_snap(&s);
	gt_costs(400, 100, 100);	/* ring 200 < CPU 400 */
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[0]));
	gt_costs(100, 100, 100);	/* now the CPU, by far */
	for (i = 1; i < last; i++)
		KUNIT_EXPECT_TRUE_MSG(test, gt_goes_to_ring(test, t, &r[i]),
				      "decision %u", i + 1);
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[last]));
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_COST), last);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_COST), 1);
	KUNIT_EXPECT_EQ(test, DELTA(RING_REQUESTS), last);
	gt_helper_complete_all(test, h, last + 1);
	gt_req_expect_done(test, holder);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		gt_req_expect_done(test, r[i]);
}

/*
 * Alone on its queue, a request goes where it finishes sooner: the CPU
 * when its time there is below the ring's latency, the ring when above,
 * whatever the per-KiB costs say.
 */
static void gpu_aes_dispatch_lone_goes_where_sooner(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct fake_helper *h = gt_dispatch_setup(test, t, NULL);
	struct gt_req *fast, *slow;
	struct gt_stats s;

	gt_stats_snap(&s);
	/* 4 KiB at 100 ns/KiB: 0.4 us on the CPU, 30 us on the ring. */
	gt_costs(100, 1, 1);
	gpu_aes_dispatch_test_set_lone(CTR, C4K, 30000);
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &fast));
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_LONE), 1);
	/* At 17 000 ns/KiB (AES in C): 68 us on the CPU, 30 on the ring. */
	gt_costs(17000, 1000, 1000);
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &slow));
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_LONE), 1);
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_COST), 0);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, slow);
}

/*
 * A lone request's time on the ring is measured from its submission to
 * its callback, into the estimate of its algorithm and class.
 */
static void gpu_aes_dispatch_lone_latency_measured(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct fake_helper *h = gt_dispatch_setup(test, t, NULL);
	struct gt_req *r;

	gt_costs(17000, 1000, 1000);
	gpu_aes_dispatch_test_set_lone(CTR, C4K, 30000);
	KUNIT_ASSERT_TRUE(test, gt_goes_to_ring(test, t, &r));
	/* Thawed for the one sample: the estimate moves off 30 000. */
	WRITE_ONCE(gpu_aes_dispatch_test.frozen, false);
	gt_helper_complete_all(test, h, 1);
	WRITE_ONCE(gpu_aes_dispatch_test.frozen, true);
	gt_req_expect_done(test, r);
	KUNIT_EXPECT_NE(test, gpu_aes_dispatch_test_lone(CTR, C4K), 30000);
	KUNIT_EXPECT_NE(test, gpu_aes_dispatch_test_lone(CTR, C4K), 0);
	/* No other class learnt anything. */
	KUNIT_EXPECT_EQ(test, gpu_aes_dispatch_test_lone(CTR, C4K + 1), 0);
	KUNIT_EXPECT_EQ(test, gpu_aes_dispatch_test_lone(CTR - 1, C4K), 0);
}

/*
 * A class with no figures of its own borrows the nearest measured one's,
 * in either direction, rather than defaulting to the CPU.
 */
static void gpu_aes_dispatch_borrows_neighbours(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *holder, *r[2];
	struct fake_helper *h = gt_dispatch_setup(test, t, &holder);
	struct gt_stats s;

	gt_stats_snap(&s);
	/* Only 4 KiB is measured: the ring 200 against the CPU 4000. */
	gt_costs(4000, 100, 100);
	r[0] = gt_req_new(test, t, 16384, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(r[0], false), -EINPROGRESS);
	/* 64 KiB's own figures win over the borrowed ones. */
	gpu_aes_dispatch_test_set(CTR, gpu_aes_size_class(65536), 100, 1000);
	r[1] = gt_req_new(test, t, 65536, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(r[1], false), 0);
	gt_req_expect_done(test, r[1]);
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_COST), 1);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_COST), 1);
	gt_helper_complete_all(test, h, 2);
	gt_req_expect_done(test, holder);
	gt_req_expect_done(test, r[0]);
}

/*
 * Exploring sends one decision in gpu_aes_explore_every(ratio) the other
 * way, where the other path costs ratio times the chosen one: the share
 * of the work it costs stays within 1/GPU_AES_EXPLORE_EVERY of the
 * chosen path's (one 1/128 of the work when the CPU costs 40 times the
 * ring, not 40 times that); an unknown path is measured within
 * GPU_AES_EXPLORE_UNKNOWN decisions.
 */
static void gpu_aes_dispatch_explore_share(struct kunit *test)
{
	static const u32 ratios[] = { 1, 2, 3, 8, 40, 1000, 1024 };
	unsigned int i;
	u32 every;

	KUNIT_EXPECT_EQ(test, gpu_aes_explore_every(0), GPU_AES_EXPLORE_UNKNOWN);
	for (i = 0; i < ARRAY_SIZE(ratios); i++) {
		every = gpu_aes_explore_every(ratios[i]);
		/* extra cost per decision = ratio / every <= 1 / 128 */
		KUNIT_EXPECT_LE_MSG(test, (u64)ratios[i] * GPU_AES_EXPLORE_EVERY,
				    (u64)every, "ratio %u", ratios[i]);
		KUNIT_EXPECT_EQ(test, every, GPU_AES_EXPLORE_EVERY * ratios[i]);
	}
	/* Beyond the cap, the share grows, but a probe still comes. */
	KUNIT_EXPECT_EQ(test, gpu_aes_explore_every(U32_MAX),
			GPU_AES_EXPLORE_EVERY * GPU_AES_EXPLORE_RATIO_MAX);
}

/* A saturated CPU sheds to the ring only when that costs it less. */
static void gpu_aes_dispatch_saturation_sheds_to_ring(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *holder, *r[4];
	struct fake_helper *h = gt_dispatch_setup(test, t, &holder);
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_costs(200, 50, 190);		/* ring 240: costlier in all */
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[0]));
	WRITE_ONCE(gpu_aes_dispatch_test.saturated, 1);
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[1]));
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_LOAD), 1);
	/* Posting would cost this CPU more than running it. */
	gt_costs(200, 210, 30);
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[2]));
	/*
	 * No headroom: a helper says it moves 1 MiB/s, so the bound is the
	 * floor, 256 KiB, and a request of 256 KiB does not fit beside the
	 * two of 4 KiB in flight.
	 */
	gt_costs(200, 50, 190);
	gpu_aes_dispatch_test_set(CTR, gpu_aes_size_class(256 << 10), 200, 50);
	WRITE_ONCE(gpu_aes_ring.helper_mib_per_s, 1);
	r[3] = gt_req_new(test, t, 256 << 10, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(r[3], false), 0);
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_LOAD), 1);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_COST), 3);
	gt_helper_complete_all(test, h, 2);
	gt_req_expect_done(test, holder);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		gt_req_expect_done(test, r[i]);
}

/*
 * The ring, though cheaper, the bottleneck: a request that finds its
 * queue backed up (more in flight than the ring drains in
 * GPU_AES_HEADROOM_US) runs on the CPU where the ring drains the queue
 * more slowly than the CPU computes; where it drains faster, or its pace
 * is not known, the request waits for the ring.  A queue with headroom
 * takes the request whatever the pace.
 */
static void gpu_aes_dispatch_bottleneck_spills_to_cpu(struct kunit *test)
{
	const unsigned int c256 = gpu_aes_size_class(256 << 10);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *holder, *r[5];
	struct fake_helper *h = gt_dispatch_setup(test, t, &holder);
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_costs(1000, 50, 50);		/* ring 100, ten times cheaper */
	gpu_aes_dispatch_test_set(CTR, c256, 1000, 50);
	/* The bound is the floor, 256 KiB: the helper says 1 MiB/s. */
	WRITE_ONCE(gpu_aes_ring.helper_mib_per_s, 1);
	gpu_aes_dispatch_test_set_drain(0, 2000);
	/* Headroom: 4 KiB beside the holder's 4 KiB. */
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[0]));
	/* 256 KiB beside 8 KiB in flight: backed up, and slow. */
	r[1] = gt_req_new(test, t, 256 << 10, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(r[1], false), 0);
	gt_req_expect_done(test, r[1]);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_LOAD), 1);
	/* Within 1/8 of the CPU: the ring keeps it. */
	gpu_aes_dispatch_test_set_drain(0, 1125);
	r[2] = gt_req_new(test, t, 256 << 10, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(r[2], false), -EINPROGRESS);
	/* Pace not known (a new helper): the ring. */
	gpu_aes_dispatch_test_set_drain(0, 0);
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[3]));
	/* The CPU the cheaper path: its own rule, not this one. */
	gpu_aes_dispatch_test_set_drain(0, 2000);
	gt_costs(50, 50, 50);
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[4]));
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_LOAD), 1);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_COST), 1);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY), 2);
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_COST), 3);
	gt_helper_complete_all(test, h, 4);
	gt_req_expect_done(test, holder);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		if (i != 1)
			gt_req_expect_done(test, r[i]);
}

/* The helper completes the oldest request it has not fetched yet. */
static int gt_complete_one(struct fake_helper *h)
{
	struct gpu_aes_sqe sqe;

	if (fake_helper_fetch(h, &sqe, 1) != 1)
		return -1;
	fake_helper_post(h, sqe.tag, sqe.seq, fake_helper_compute(h, &sqe));
	fake_helper_publish(h);
	return fake_helper_reap(h);
}

/*
 * The pace is measured: a reap that leaves the queue backed up starts the
 * clock, the next reap's bytes give the drain figure; a reap that leaves
 * it with headroom stops it.
 */
static void gpu_aes_dispatch_drain_measured(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct fake_helper *h;
	struct gt_req *r[3];
	unsigned int i;

	h = gt_ring_setup(test, NR);
	gpu_aes_dispatch_test_reset();
	/* Reaps copy it into the ring: the bound is the floor, 256 KiB. */
	WRITE_ONCE(h->hdr->helper_mib_per_s, 1);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_dispatch_thaw,
							NULL), 0);
	for (i = 0; i < 3; i++) {
		r[i] = gt_req_new(test, t, 200 << 10, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	/* 600 KiB in flight: the first reap leaves 400, backed up. */
	KUNIT_ASSERT_EQ(test, gt_complete_one(h), 1);
	KUNIT_EXPECT_EQ(test, gpu_aes_dispatch_test_drain(0), 0);
	/* The second measures; it leaves 200 KiB: the clock stops. */
	KUNIT_ASSERT_EQ(test, gt_complete_one(h), 1);
	KUNIT_EXPECT_NE(test, gpu_aes_dispatch_test_drain(0), 0);
	gpu_aes_dispatch_test_set_drain(0, 7);
	KUNIT_ASSERT_EQ(test, gt_complete_one(h), 1);
	KUNIT_EXPECT_EQ(test, gpu_aes_dispatch_test_drain(0), 7);
	for (i = 0; i < 3; i++)
		gt_req_expect_done(test, r[i]);
}

/*
 * Each direction has its own estimates: ECB encryption here costs the
 * CPU less than the ring, decryption more, and each request goes where
 * its own direction's figures say.
 */
static void gpu_aes_dispatch_directions_apart(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, false, 16);
	struct gt_req *holder, *r[4];
	struct fake_helper *h = gt_dispatch_setup(test, t, &holder);
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gpu_aes_dispatch_test_set_complete(0, 50);
	gpu_aes_dispatch_test_set(ECB_ENC, C4K, 100, 100);	/* ring 150 */
	gpu_aes_dispatch_test_set(ECB_DEC, C4K, 400, 100);
	for (i = 0; i < 4; i++) {
		r[i] = gt_req_new(test, t, 4096, GT_BL);
		KUNIT_EXPECT_EQ(test, gt_req_start(r[i], i & 1),
				i & 1 ? -EINPROGRESS : 0);
	}
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_COST), 2);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_COST), 2);
	gt_helper_complete_all(test, h, 3);
	gt_req_expect_done(test, holder);
	for (i = 0; i < 4; i++)
		gt_req_expect_done(test, r[i]);
}

/* Posts a request under dispatch=ring, so the queue is not idle. */
static struct gt_req *gt_hold(struct kunit *test, struct gt_tfm *t)
{
	struct gt_req *r = gt_req_new(test, t, 4096, GT_BL);

	WRITE_ONCE(gpu_aes_dispatch, GPU_AES_DISPATCH_RING);
	KUNIT_EXPECT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	WRITE_ONCE(gpu_aes_dispatch, GPU_AES_DISPATCH_AUTO);
	return r;
}

/*
 * The helper's figures reach the policy through a reap, clamped: an
 * absurd cost sends everything to the CPU, even a saturated CPU's load
 * (an absurd rate cannot buy headroom back), and a zero cost is no
 * discount on what the kernel measured.
 */
static void gpu_aes_dispatch_lying_helper_only_helps_cpu(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *holder, *hold[2], *r[4];
	struct fake_helper *h = gt_dispatch_setup(test, t, &holder);
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_costs(400, 100, 100);
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[0]));
	/* The lie, picked up by the next reap. */
	WRITE_ONCE(h->hdr->helper_cpu_ns_per_kib, U32_MAX);
	WRITE_ONCE(h->hdr->helper_mib_per_s, U32_MAX);
	gt_helper_complete_all(test, h, 2);
	gt_req_expect_done(test, holder);
	KUNIT_EXPECT_EQ(test, READ_ONCE(gpu_aes_ring.helper_ns_per_kib),
			GPU_AES_HELPER_NS_PER_KIB_MAX);
	hold[0] = gt_hold(test, t);
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[1]));
	/* Saturated: without the lie it would shed; with it, the CPU. */
	WRITE_ONCE(gpu_aes_dispatch_test.saturated, 1);
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[2]));
	WRITE_ONCE(gpu_aes_dispatch_test.saturated, 0);
	/* A helper that claims to cost nothing: the kernel's own figures. */
	WRITE_ONCE(h->hdr->helper_cpu_ns_per_kib, 0);
	gt_helper_complete_all(test, h, 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(gpu_aes_ring.helper_ns_per_kib), 0);
	hold[1] = gt_hold(test, t);
	gt_costs(210, 100, 150);	/* ring 250 > 210: the CPU */
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[3]));
	gt_helper_complete_all(test, h, 1);
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_COST), 1);
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_LOAD), 0);
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_FORCED), 2);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_COST), 3);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY), 3);
	for (i = 0; i < ARRAY_SIZE(hold); i++)
		gt_req_expect_done(test, hold[i]);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		gt_req_expect_done(test, r[i]);
}

/* dispatch=ring and dispatch=cpu override figures, load and the lone rule. */
static void gpu_aes_dispatch_forced_modes(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct fake_helper *h = gt_dispatch_setup(test, t, NULL);
	struct gt_req *r[2];
	struct gt_stats s;

	gt_stats_snap(&s);
	gt_costs(100, 1000, 1000);	/* the CPU is far cheaper */
	gt_set_dispatch(test, GPU_AES_DISPATCH_RING);
	KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[0]));
	gt_costs(100000, 1, 1);		/* the ring is far cheaper */
	gt_set_dispatch(test, GPU_AES_DISPATCH_CPU);
	KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[1]));
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_FORCED), 1);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_FORCED), 1);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY), 1);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, r[0]);
}

/*
 * Requests posted under one policy complete after it changed, each once;
 * the decisions add up with the ring and fallback counters.
 */
static void gpu_aes_dispatch_change_mid_flight(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct fake_helper *h = gt_dispatch_setup(test, t, NULL);
	struct gt_req *r[12];
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_set_dispatch(test, GPU_AES_DISPATCH_RING);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_TRUE(test, gt_goes_to_ring(test, t, &r[i]));
	gt_set_dispatch(test, GPU_AES_DISPATCH_CPU);
	for (; i < 9; i++)
		KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[i]));
	gt_set_dispatch(test, GPU_AES_DISPATCH_AUTO);
	gt_costs(100, 1000, 1000);
	for (; i < 12; i++)
		KUNIT_EXPECT_FALSE(test, gt_goes_to_ring(test, t, &r[i]));
	/* The ring's six complete now, under auto. */
	gt_helper_complete_all(test, h, 6);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, DELTA(RING_REQUESTS), 6);
	KUNIT_EXPECT_EQ(test, DELTA(POLICY_RING_FORCED), 6);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_FORCED), 3);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY_COST), 3);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_POLICY), 6);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_REQUESTS), 6);
	KUNIT_EXPECT_EQ(test, DELTA(RECOMPUTED), 0);
}

static struct kunit_case gpu_aes_dispatch_cases[] = {
	KUNIT_CASE(gpu_aes_dispatch_choose_table),
	KUNIT_CASE(gpu_aes_dispatch_size_classes),
	KUNIT_CASE(gpu_aes_dispatch_auto_follows_cost),
	KUNIT_CASE(gpu_aes_dispatch_repeats_then_weighs),
	KUNIT_CASE(gpu_aes_dispatch_lone_goes_where_sooner),
	KUNIT_CASE(gpu_aes_dispatch_lone_latency_measured),
	KUNIT_CASE(gpu_aes_dispatch_borrows_neighbours),
	KUNIT_CASE(gpu_aes_dispatch_explore_share),
	KUNIT_CASE(gpu_aes_dispatch_saturation_sheds_to_ring),
	KUNIT_CASE(gpu_aes_dispatch_bottleneck_spills_to_cpu),
	KUNIT_CASE(gpu_aes_dispatch_drain_measured),
	KUNIT_CASE(gpu_aes_dispatch_directions_apart),
	KUNIT_CASE(gpu_aes_dispatch_lying_helper_only_helps_cpu),
	KUNIT_CASE(gpu_aes_dispatch_forced_modes),
	KUNIT_CASE(gpu_aes_dispatch_change_mid_flight),
	{}
};

static struct kunit_suite gpu_aes_dispatch_suite = {
	.name = "gpu_aes_dispatch",
	.test_cases = gpu_aes_dispatch_cases,
};

kunit_test_suite(gpu_aes_dispatch_suite);
