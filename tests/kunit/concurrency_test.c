// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring's bytes move without its lock: submitters copy in holding a
 * RESERVED tag, reapers copy out holding COMPLETING tags, and several
 * reapers (the helper's GPU stream threads) work at once.  These suites
 * park a submitter or a reaper in the middle of its copy (the ring's
 * mid_copy hook) and check that the deadline scan leaves it alone, that
 * detach waits for it, and that concurrent reapers complete every request
 * exactly once with the right bytes.
 *
 * The waits are bounds against a hang; what is asserted is what happened.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "fake_helper.h"
#include "park.h"
#include "ring.h"
#include "test_util.h"

/* Detach has begun: no new references, and it waits for the old ones. */
static bool gt_wait_detaching(void)
{
	unsigned long end = jiffies + GT_WAIT;

	/* Queues are marked detached first; then detach waits for users. */
	while (READ_ONCE(GT_Q0->attached)) {
		if (time_after(jiffies, end))
			return false;
		schedule_timeout_uninterruptible(1);
	}
	return true;
}

/*
 * A submitter still copying in holds a RESERVED tag: the deadline scan
 * expires an older in-flight request in the same pass but leaves the
 * reserved one alone, even with its reservation older than the deadline.
 */
static void gpu_aes_conc_scan_mid_copy(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, FAKE_HELPER_ENTRIES);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *a = gt_req_new(test, t, 4000, GT_BL);
	struct gt_req *b = gt_req_new(test, t, 3000, GT_BL);
	struct gpu_aes_sqe sqe[2];
	unsigned long until;
	struct gt_stats s;
	struct gt_call *c;
	unsigned int i;

	gt_stats_snap(&s);
	gt_set_timeout_ms(test, 1);
	gt_park_at(test, false);
	/* a must not stall the ring before b has reserved its tag. */
	mutex_lock(&GT_Q0->scan_mutex);
	atomic_set(&gt_park.hits, 1);	/* a copies in unparked */
	KUNIT_EXPECT_EQ(test, gt_req_start(a, false), -EINPROGRESS);
	atomic_set(&gt_park.hits, 0);
	c = gt_call_start(test, b, false);
	KUNIT_EXPECT_TRUE(test, gt_park_wait());
	until = jiffies + msecs_to_jiffies(1) + 1;
	while (time_before_eq(jiffies, until))
		schedule_timeout_uninterruptible(1);
	/* b's post must get a deadline nobody reaches in this test. */
	gt_set_timeout_ms(test, 600000);
	mutex_unlock(&GT_Q0->scan_mutex);
	mod_delayed_work(system_wq, &GT_Q0->timeout_work, 0);
	flush_delayed_work(&GT_Q0->timeout_work);

	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 1);
	KUNIT_EXPECT_EQ(test, GT_Q0->tags[0].state, GPU_AES_TAG_TIMED_OUT);
	KUNIT_EXPECT_EQ(test, GT_Q0->tags[1].state, GPU_AES_TAG_RESERVED);
	KUNIT_EXPECT_EQ(test, gt_req_events(b), 0);
	gt_req_expect_done(test, a);

	/* Reserved before the stall, so b still goes to the ring. */
	gt_park_release();
	KUNIT_ASSERT_TRUE(test, gt_call_wait(c));
	KUNIT_EXPECT_EQ(test, c->ret, -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	for (i = 0; i < 2; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, b);
	KUNIT_EXPECT_EQ(test, gt_req_events(a), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_LATE_COMPLETIONS),
			1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), 2);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, GT_Q0->tag_head);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * Detach while a submitter copies in: detach waits for it, the submitter
 * finds the ring gone and runs the request on the CPU itself, the
 * in-flight one is recomputed by detach.  Each completes once.
 */
static void gpu_aes_conc_detach_mid_copy_in(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, FAKE_HELPER_ENTRIES);
	struct gt_tfm *t = gt_tfm_new(test, false, 32);
	struct gt_req *a = gt_req_new(test, t, 8192, GT_BL);
	struct gt_req *b = gt_req_new(test, t, 65536, GT_BL);
	struct gt_call *c, *d;
	struct gt_stats s;

	gt_stats_snap(&s);
	gt_park_at(test, false);
	atomic_set(&gt_park.hits, 1);	/* a copies in unparked */
	KUNIT_EXPECT_EQ(test, gt_req_start(a, false), -EINPROGRESS);
	atomic_set(&gt_park.hits, 0);
	c = gt_call_start(test, b, false);
	KUNIT_ASSERT_TRUE(test, gt_park_wait());
	d = gt_call_start(test, NULL, true);
	KUNIT_EXPECT_TRUE(test, gt_wait_detaching());
	/* Held back by b's reference; 100 ms is plenty to finish if not. */
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&d->done,
							     HZ / 10));
	KUNIT_EXPECT_EQ(test, gt_req_events(a), 0);

	gt_park_release();
	KUNIT_ASSERT_TRUE(test, gt_call_wait(c));
	KUNIT_ASSERT_TRUE(test, gt_call_wait(d));
	KUNIT_EXPECT_EQ(test, c->ret, 0);
	gt_req_expect_done(test, b);
	gt_req_expect_done(test, a);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), 1);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_NO_HELPER), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&GT_Q0->users), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * Detach while a reaper copies out: detach waits, the reaper delivers the
 * helper's bytes and completes the request; detach has nothing to redo.
 */
static void gpu_aes_conc_detach_mid_copy_out(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, FAKE_HELPER_ENTRIES);
	struct gt_tfm *t = gt_tfm_new(test, true, 24);
	struct gt_req *a = gt_req_new(test, t, 100000, GT_BL);
	struct gpu_aes_sqe sqe;
	struct gt_call *c, *d;
	struct gt_stats s;

	gt_stats_snap(&s);
	KUNIT_EXPECT_EQ(test, gt_req_start(a, false), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
	fake_helper_post(h, sqe.tag, sqe.seq, fake_helper_compute(h, &sqe));
	fake_helper_publish(h);

	gt_park_at(test, true);
	c = gt_call_start(test, NULL, false);
	KUNIT_ASSERT_TRUE(test, gt_park_wait());
	KUNIT_EXPECT_EQ(test, GT_Q0->tags[sqe.tag].state,
			GPU_AES_TAG_COMPLETING);
	d = gt_call_start(test, NULL, true);
	KUNIT_EXPECT_TRUE(test, gt_wait_detaching());
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&d->done,
							     HZ / 10));
	KUNIT_EXPECT_EQ(test, gt_req_events(a), 0);

	gt_park_release();
	KUNIT_ASSERT_TRUE(test, gt_call_wait(c));
	KUNIT_ASSERT_TRUE(test, gt_call_wait(d));
	KUNIT_EXPECT_EQ(test, c->ret, 1);
	gt_req_expect_done(test, a);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&GT_Q0->users), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

#define GT_CONC_NR	64U	/* ring entries: two reap batches */
#define GT_CONC_REQS	48U	/* requests per round ... */
#define GT_CONC_DUPS	(GT_CONC_NR - GT_CONC_REQS)	/* ... + repeated cqes */
#define GT_CONC_ROUNDS	6U
#define GT_REAPERS	2U

static atomic_t gt_copying, gt_copying_max;

/* Hold each reaper in its copy-out long enough for the other to claim. */
static void gt_overlap_hook(struct gpu_aes_ring *ring, bool out)
{
	int n, m;

	if (!out)
		return;
	n = atomic_inc_return(&gt_copying);
	m = atomic_read(&gt_copying_max);
	while (n > m && !atomic_try_cmpxchg(&gt_copying_max, &m, n))
		;
	schedule_timeout_uninterruptible(1);
	atomic_dec(&gt_copying);
}

struct gt_reaper {
	struct gt_reapers *all;
	atomic_t accepted;
	atomic_t errors;
	struct task_struct *task;
};

struct gt_reapers {
	wait_queue_head_t wq;
	atomic_t round;
	struct gt_reaper rp[GT_REAPERS];
};

static int gt_reaper_fn(void *data)
{
	struct gt_reaper *rp = data;
	struct gt_reapers *all = rp->all;
	int seen = 0, n;

	while (!kthread_should_stop()) {
		wait_event_interruptible(all->wq,
					 atomic_read(&all->round) != seen ||
					 kthread_should_stop());
		seen = atomic_read(&all->round);
		do {
			n = gpu_aes_ring_reap(&gpu_aes_ring, 0);
			if (n > 0)
				atomic_add(n, &rp->accepted);
			else if (n < 0)
				atomic_inc(&rp->errors);
		} while (n > 0);
	}
	return 0;
}

static void gt_reapers_stop(void *data)
{
	struct gt_reapers *all = data;
	unsigned int i;

	for (i = 0; i < GT_REAPERS; i++) {
		if (!all->rp[i].task)
			continue;
		kthread_stop(all->rp[i].task);
		put_task_struct(all->rp[i].task);
		all->rp[i].task = NULL;
	}
}

static struct gt_reapers *gt_reapers_start(struct kunit *test)
{
	struct gt_reapers *all = kunit_kzalloc(test, sizeof(*all), GFP_KERNEL);
	struct task_struct *k;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, all);
	init_waitqueue_head(&all->wq);
	atomic_set(&all->round, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_reapers_stop,
							all), 0);
	for (i = 0; i < GT_REAPERS; i++) {
		all->rp[i].all = all;
		k = kthread_run(gt_reaper_fn, &all->rp[i], "gt_reaper%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(k));
		get_task_struct(k);
		all->rp[i].task = k;
	}
	return all;
}

/*
 * Two reapers take turns on bursts of completions, in shuffled order with
 * a repeat of some: every request completes exactly once with the
 * helper's bytes, every repeat is rejected, the reapers' counts add up,
 * and they really did copy out at the same time.
 */
static void gpu_aes_conc_reapers(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, GT_CONC_NR);
	struct gt_tfm *ctr = gt_tfm_new(test, true, 32);
	struct gt_tfm *ecb = gt_tfm_new(test, false, 16);
	struct gt_req *(*r)[GT_CONC_REQS];
	struct gpu_aes_sqe *sqe;
	unsigned int i, j, k, total;
	struct gt_reapers *all;
	struct gt_stats s;

	r = kunit_kcalloc(test, GT_CONC_ROUNDS, sizeof(*r), GFP_KERNEL);
	sqe = kunit_kcalloc(test, GT_CONC_REQS, sizeof(*sqe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, sqe);
	gt_stats_snap(&s);
	atomic_set(&gt_copying, 0);
	atomic_set(&gt_copying_max, 0);
	gt_hook_set(test, gt_overlap_hook);
	all = gt_reapers_start(test);

	for (i = 0; i < GT_CONC_ROUNDS; i++) {
		for (j = 0; j < GT_CONC_REQS; j++) {
			r[i][j] = gt_req_new(test, j & 1 ? ecb : ctr,
					     512 + 64 * ((i * 7 + j) % 40), GT_BL);
			KUNIT_ASSERT_EQ(test, gt_req_start(r[i][j], j & 2),
					-EINPROGRESS);
		}
		KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, GT_CONC_REQS),
				GT_CONC_REQS);
		/* A stride coprime to 48 shuffles; repeats go in between. */
		for (j = 0; j < GT_CONC_REQS; j++) {
			k = (j * 7 + i) % GT_CONC_REQS;
			fake_helper_post(h, sqe[k].tag, sqe[k].seq,
					 fake_helper_compute(h, &sqe[k]));
			if (j % 3 == 2)
				fake_helper_post(h, sqe[k].tag, sqe[k].seq,
						 GPU_AES_STATUS_OK);
		}
		fake_helper_publish(h);
		atomic_inc(&all->round);
		wake_up_all(&all->wq);
		for (j = 0; j < GT_CONC_REQS; j++)
			gt_req_expect_done(test, r[i][j]);
		/* The next round reuses the CQ: all of it must be claimed. */
		KUNIT_ASSERT_EQ(test, READ_ONCE(h->qhdr->cq_head), h->q[0].cq_tail);
	}

	gt_reapers_stop(all);
	total = 0;
	for (i = 0; i < GT_REAPERS; i++) {
		total += atomic_read(&all->rp[i].accepted);
		KUNIT_EXPECT_EQ(test, atomic_read(&all->rp[i].errors), 0);
	}
	KUNIT_EXPECT_EQ(test, total, GT_CONC_ROUNDS * GT_CONC_REQS);
	for (i = 0; i < GT_CONC_ROUNDS; i++)
		for (j = 0; j < GT_CONC_REQS; j++)
			KUNIT_EXPECT_EQ(test, gt_req_events(r[i][j]), 1);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			GT_CONC_ROUNDS * GT_CONC_DUPS);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
	KUNIT_EXPECT_GE(test, atomic_read(&gt_copying_max), 2);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 0);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, GT_Q0->tag_head);
	KUNIT_EXPECT_EQ(test, GT_Q0->data_tail, GT_Q0->data_head);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

static struct kunit_case gpu_aes_conc_cases[] = {
	KUNIT_CASE(gpu_aes_conc_scan_mid_copy),
	KUNIT_CASE(gpu_aes_conc_detach_mid_copy_in),
	KUNIT_CASE(gpu_aes_conc_detach_mid_copy_out),
	KUNIT_CASE(gpu_aes_conc_reapers),
	{}
};

static struct kunit_suite gpu_aes_conc_suite = {
	.name = "gpu_aes_concurrency",
	.test_cases = gpu_aes_conc_cases,
};

kunit_test_suite(gpu_aes_conc_suite);
