// SPDX-License-Identifier: GPL-2.0-only
/*
 * No caller waits more than one deadline, whatever other users do: a
 * submitter kept off the CPU in the middle of its copy (on a fully
 * preemptible kernel any user can do that to its own thread) holds only
 * its own request.  Requests queued behind it go to the CPU at once
 * rather than wait for space it will not give back; admitted requests are
 * told -EINPROGRESS, copied and posted without a preemption point, with
 * the deadline they got when they were backlogged; and a backlogged
 * request whose deadline passes stalls its queue, so the next one does
 * not wait a deadline too.
 *
 * The waits are bounds against a hang; what is asserted is what happened.
 */
#include <kunit/test.h>
#include <linux/sched.h>

#include "fake_helper.h"
#include "park.h"
#include "ring.h"
#include "skcipher.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES
#define KIB	1024U

static struct gpu_aes_job *gt_job(struct gt_req *r)
{
	struct gpu_aes_req_ctx *rctx = skcipher_request_ctx(r->req);

	return &rctx->job;
}

/* Let jiffies move, so a deadline taken later would differ. */
static void gt_tick(void)
{
	unsigned long j = jiffies;

	while (!time_after(jiffies, j))
		schedule_timeout_uninterruptible(1);
}

/* Fetch, compute and post every pending sqe; the count. */
static unsigned int gt_answer_all(struct fake_helper *h)
{
	struct gpu_aes_sqe sqe;
	unsigned int n = 0;

	while (fake_helper_fetch(h, &sqe, 1)) {
		fake_helper_post(h, sqe.tag, sqe.seq,
				 fake_helper_compute(h, &sqe));
		n++;
	}
	fake_helper_publish(h);
	return n;
}

/*
 * F2a: P is parked in its copy-in with the oldest tag but one.  The
 * helper completes everything else, yet no space comes back past P.  A
 * request backlogged while the oldest was still in flight leaves the
 * backlog for the CPU as soon as P is the oldest; later ones that do not
 * fit go to the CPU at once; nothing times out or waits a deadline.
 */
static void gpu_aes_bw_parked_submitter(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 32);
	struct gt_req *a, *p, *r[4], *v, *x;
	struct gt_stats s;
	struct gt_call *c;
	unsigned int i;

	gt_stats_snap(&s);
	a = gt_req_new(test, t, 4 * KIB, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(a, false), -EINPROGRESS);
	gt_park_at(test, false);
	p = gt_req_new(test, t, 4 * KIB, GT_BL);
	c = gt_call_start(test, p, false);
	KUNIT_ASSERT_TRUE(test, gt_park_wait());
	KUNIT_EXPECT_EQ(test, GT_Q0->tags[1].state, GPU_AES_TAG_RESERVED);
	/* 4 + 4 + 4 x 248 KiB: 24 KiB of the 1 MiB slice left. */
	for (i = 0; i < 4; i++) {
		r[i] = gt_req_new(test, t, 248 * KIB, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	v = gt_req_new(test, t, 200 * KIB, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(v, false), -EBUSY);

	/* All but P answered: a frees 4 KiB, too little for v. */
	KUNIT_EXPECT_EQ(test, gt_answer_all(h), 5);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 5);
	gt_req_expect_done(test, a);
	for (i = 0; i < 4; i++)
		gt_req_expect_done(test, r[i]);
	gt_req_expect_done(test, v);
	KUNIT_EXPECT_TRUE(test, list_empty(&GT_Q0->backlog));

	/* Nothing that does not fit waits behind P. */
	for (i = 0; i < 4; i++) {
		x = gt_req_new(test, t, 64 * KIB, GT_BL);
		KUNIT_EXPECT_EQ(test, gt_req_start(x, i & 1), 0);
		gt_req_expect_done(test, x);
	}
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_FULL), 4);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
	KUNIT_EXPECT_FALSE(test, GT_Q0->stalled);
	KUNIT_EXPECT_EQ(test, gt_req_events(p), 0);

	/* P comes back, posts, is answered; the queue is empty again. */
	gt_park_release();
	KUNIT_ASSERT_TRUE(test, gt_call_wait(c));
	KUNIT_EXPECT_EQ(test, c->ret, -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, gt_answer_all(h), 1);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, p);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 0);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, GT_Q0->tag_head);
	KUNIT_EXPECT_EQ(test, GT_Q0->data_tail, GT_Q0->data_head);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * F2b and F1: a reaper admits two backlogged requests.  Both are copied
 * with BHs disabled (no preemption between their -EINPROGRESS and their
 * posting; the mid_copy hook would park a preemptible copy) and keep the
 * deadline they got with their -EBUSY.
 */
static void gpu_aes_bw_admitted(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, false, 16);
	struct gt_req *r[NR], *b[2];
	unsigned long deadline[2];
	struct gt_stats s;
	struct gt_call *c;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 2 * KIB, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	for (i = 0; i < 2; i++) {
		b[i] = gt_req_new(test, t, 3 * KIB, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(b[i], false), -EBUSY);
		deadline[i] = gt_job(b[i])->deadline;
	}
	gt_tick();

	gt_park_at(test, false);
	KUNIT_EXPECT_EQ(test, gt_answer_all(h), NR);
	c = gt_call_start(test, NULL, false);
	if (!wait_for_completion_timeout(&c->done, 10 * HZ)) {
		KUNIT_FAIL(test, "the reaper was parked in an admitted copy-in");
		gt_park_release();
		KUNIT_ASSERT_TRUE(test, gt_call_wait(c));
	}
	KUNIT_EXPECT_EQ(test, c->ret, NR);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_park.copies), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_park.atomic_copies), 2);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	for (i = 0; i < 2; i++) {
		struct gpu_aes_tag *tag = &GT_Q0->tags[gt_job(b[i])->tag];

		KUNIT_EXPECT_EQ(test, gt_req_events(b[i]), 1);
		KUNIT_EXPECT_EQ(test, tag->state, GPU_AES_TAG_IN_FLIGHT);
		KUNIT_EXPECT_EQ(test, tag->deadline, deadline[i]);
	}
	KUNIT_EXPECT_EQ(test, gt_answer_all(h), 2);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 2);
	for (i = 0; i < 2; i++)
		gt_req_expect_done(test, b[i]);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS),
			NR + 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
}

/*
 * F1: a backlogged request whose deadline passed before space came back
 * is not posted with a fresh one: admission sends it to the CPU.
 */
static void gpu_aes_bw_admission_past_deadline(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 24);
	struct gt_req *r[NR], *b;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 1 * KIB, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	/* The scan must not get to it first: admission is what is tested. */
	mutex_lock(&GT_Q0->scan_mutex);
	gt_set_timeout_ms(test, 1);
	b = gt_req_new(test, t, 1 * KIB, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(b, false), -EBUSY);
	while (time_before_eq(jiffies, gt_job(b)->deadline))
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_EQ(test, gt_answer_all(h), NR);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), NR);
	gt_set_timeout_ms(test, 600000);
	mutex_unlock(&GT_Q0->scan_mutex);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	gt_req_expect_done(test, b);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), NR);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 1);
	KUNIT_EXPECT_EQ(test, fake_helper_pending(h), 0);
}

/*
 * A backlogged request that reaches its deadline stalls the queue like
 * one that times out on the ring: the next request runs on the CPU at
 * once instead of waiting a deadline in the backlog too, until the
 * helper completes something there.
 */
static void gpu_aes_bw_backlog_expiry_stalls(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *r[NR], *b, *x;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 2 * KIB, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	gt_set_timeout_ms(test, 1);
	b = gt_req_new(test, t, 2 * KIB, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(b, false), -EBUSY);
	gt_req_expect_done(test, b);
	gt_set_timeout_ms(test, 600000);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 1);
	KUNIT_EXPECT_TRUE(test, GT_Q0->stalled);

	x = gt_req_new(test, t, 2 * KIB, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, false), 0);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_STALLED),
			1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 1);

	/* The helper answers: live again. */
	KUNIT_EXPECT_EQ(test, gt_answer_all(h), NR);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), NR);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_FALSE(test, GT_Q0->stalled);
	x = gt_req_new(test, t, 2 * KIB, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, false), -EINPROGRESS);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 1);
}

/*
 * F1b: once posted, an admitted request may be completed by a helper and
 * a reaper on other CPUs and reused by its consumer (dm-crypt reuses a
 * request for its next sector) before the admission posts the next one.
 * The scan is armed by the deadline the request had before its posting,
 * never by what the reused request holds: the posted hook writes a
 * deadline an hour off into the job, as such a reuse might.
 */
static struct gpu_aes_job *gt_reused_job;

static void gt_reuse_posted(struct gpu_aes_ring *ring,
			    struct gpu_aes_job *job)
{
	if (job == gt_reused_job)
		job->deadline = jiffies + 3600 * HZ;
}

static void gt_posted_remove(void *data)
{
	WRITE_ONCE(gpu_aes_ring.posted, NULL);
	gt_reused_job = NULL;
}

static void gpu_aes_bw_admitted_reused_at_once(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, false, 16);
	struct gt_req *r[NR], *b;
	unsigned long deadline, scan_at;
	bool armed;
	unsigned int i;

	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 2 * KIB, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	b = gt_req_new(test, t, 3 * KIB, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(b, false), -EBUSY);
	deadline = gt_job(b)->deadline;
	/* As if the scan had just run and found nothing due yet. */
	spin_lock_bh(&GT_Q0->lock);
	WRITE_ONCE(GT_Q0->scan_armed, false);
	spin_unlock_bh(&GT_Q0->lock);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_posted_remove,
							NULL), 0);
	gt_reused_job = gt_job(b);
	WRITE_ONCE(gpu_aes_ring.posted, gt_reuse_posted);
	/* The reap frees space, admits b and posts it. */
	gt_helper_complete_all(test, h, NR);
	WRITE_ONCE(gpu_aes_ring.posted, NULL);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, gt_req_events(b), 1);
	KUNIT_EXPECT_EQ(test, b->events[0], -EINPROGRESS);
	spin_lock_bh(&GT_Q0->lock);
	armed = GT_Q0->scan_armed;
	scan_at = GT_Q0->scan_at;
	spin_unlock_bh(&GT_Q0->lock);
	KUNIT_EXPECT_TRUE(test, armed);
	KUNIT_EXPECT_EQ(test, scan_at, deadline);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, b);
}

static struct kunit_case gpu_aes_bw_cases[] = {
	KUNIT_CASE(gpu_aes_bw_parked_submitter),
	KUNIT_CASE(gpu_aes_bw_admitted),
	KUNIT_CASE(gpu_aes_bw_admitted_reused_at_once),
	KUNIT_CASE(gpu_aes_bw_admission_past_deadline),
	KUNIT_CASE(gpu_aes_bw_backlog_expiry_stalls),
	{}
};

static struct kunit_suite gpu_aes_bw_suite = {
	.name = "gpu_aes_bounded_wait",
	.test_cases = gpu_aes_bw_cases,
};

kunit_test_suite(gpu_aes_bw_suite);
