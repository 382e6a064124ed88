// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deadlines.  A request the helper sits on is recomputed on the CPU and
 * completed once; its tag and data space stay reserved (a late helper may
 * still write there) until the helper completes it, and that late
 * completion is counted and otherwise ignored.  Until the helper answers
 * again the ring counts as stalled: new requests go to the CPU at once and
 * the backlog is flushed to it.
 *
 * Nothing here measures time: the suites wait for the completion (bounded
 * only against a hang) and assert what happened.
 */
#include <kunit/test.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "fake_helper.h"
#include "ring.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES

/*
 * With a 10 ms deadline the first request could expire (and stall the
 * ring) before the last is submitted on a loaded host.  The deadline scan
 * takes scan_mutex and submission does not, so holding it makes the
 * submissions of a test land before any expiry, whatever the scheduling.
 */
static void gt_hold_deadlines(void)
{
	mutex_lock(&GT_Q0->scan_mutex);
}

static void gt_release_deadlines(void)
{
	mutex_unlock(&GT_Q0->scan_mutex);
}

static void gpu_aes_timeout_recompute_then_late(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 32);
	const u32 bl = CRYPTO_TFM_REQ_MAY_BACKLOG;
	struct gpu_aes_sqe sqe[NR];
	struct gt_req *a[2], *r[NR], *x;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_set_timeout_ms(test, 10);
	for (i = 0; i < 2; i++)
		a[i] = gt_req_new(test, t, 5000, GT_BL);
	gt_hold_deadlines();
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, gt_req_start(a[i], false), -EINPROGRESS);
	gt_release_deadlines();
	for (i = 0; i < 2; i++)
		gt_req_expect_done(test, a[i]);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 2);
	KUNIT_EXPECT_EQ(test, GT_Q0->tags[0].state, GPU_AES_TAG_TIMED_OUT);
	KUNIT_EXPECT_EQ(test, GT_Q0->tags[1].state, GPU_AES_TAG_TIMED_OUT);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 0);

	/* A helper that let requests expire gets no more until it answers. */
	gt_set_timeout_ms(test, 600000);
	x = gt_req_new(test, t, 5000, bl);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, false), 0);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_STALLED),
			1);

	/* a[1] completes late: counted, ignored, and the ring is live again. */
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	KUNIT_EXPECT_EQ(test, sqe[0].tag, 0);
	KUNIT_EXPECT_EQ(test, sqe[1].tag, 1);
	fake_helper_post(h, sqe[1].tag, sqe[1].seq,
			 fake_helper_compute(h, &sqe[1]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_LATE_COMPLETIONS),
			1);
	/* Released but not freed: tag 0 is older and still reserved. */
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, 0);

	/*
	 * So 14 more fill the ring, and the 15th goes to the CPU at once:
	 * waiting would be for tag 0, which only the helper can free.
	 */
	for (i = 2; i < NR; i++) {
		r[i] = gt_req_new(test, t, 5000, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	x = gt_req_new(test, t, 5000, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, false), 0);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_FULL), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 0);

	/* The late helper scribbles on a[0]'s slot and completes it OK. */
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, NR), NR - 2);
	memset(h->data + GT_Q0->tags[0].data_off, 0x5a, 5000);
	fake_helper_post(h, 0, GT_SEQ(1, 0), GPU_AES_STATUS_OK);
	for (i = 0; i < NR - 2; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), NR - 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_LATE_COMPLETIONS),
			2);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			0);
	/* Each a[] completed once, with the CPU's bytes, untouched since. */
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, gt_req_events(a[i]), 1);
		GT_EXPECT_BYTES(test, a[i]->buf, a[i]->expect, a[i]->len);
	}
	for (i = 2; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, GT_Q0->tag_head);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * The ring expires; the stall that follows flushes the backlog to the CPU
 * too (not a timeout of its own), and it hears -EINPROGRESS first.
 */
static void gpu_aes_timeout_backlog(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, false, 16);
	const u32 bl = CRYPTO_TFM_REQ_MAY_BACKLOG;
	struct gpu_aes_sqe sqe[NR];
	struct gt_req *r[NR], *b;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_set_timeout_ms(test, 10);
	for (i = 0; i < NR; i++)
		r[i] = gt_req_new(test, t, 2048, bl);
	b = gt_req_new(test, t, 4096, bl);
	gt_hold_deadlines();
	for (i = 0; i < NR; i++)
		KUNIT_EXPECT_EQ(test, gt_req_start(r[i], i & 1), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, gt_req_start(b, true), -EBUSY);
	gt_release_deadlines();
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	gt_req_expect_done(test, b);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), NR);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED),
			NR + 1);

	/* All 16 late; the backlogged one never reached the ring. */
	KUNIT_EXPECT_EQ(test, fake_helper_pending(h), NR);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, NR), NR);
	for (i = 0; i < NR; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_LATE_COMPLETIONS),
			NR);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, GT_Q0->tag_head);
	for (i = 0; i < NR; i++)
		KUNIT_EXPECT_EQ(test, gt_req_events(r[i]), 1);
	KUNIT_EXPECT_EQ(test, gt_req_events(b), 2);
}

/*
 * gpu_aes_ring_status(), what /sys/class/misc/gpu_aes/status/ and queues/
 * show: geometry, occupancy while requests are in flight and backlogged,
 * the stall and its start, and the release of everything after the late
 * completions.  (All zero once detached: the VM tier's aesctl test.)
 */
static void gpu_aes_timeout_status(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 32);
	const u64 span = ALIGN(2048, GPU_AES_DATA_ALIGN);
	struct gpu_aes_queue_status qs[2];
	struct gpu_aes_ring_status st;
	struct gpu_aes_sqe sqe[NR];
	struct gt_req *r[NR + 2];
	unsigned int i;
	u64 t0;

	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, ARRAY_SIZE(qs));
	KUNIT_EXPECT_TRUE(test, st.attached);
	KUNIT_EXPECT_EQ(test, st.helper_pid, task_tgid_nr(current));
	KUNIT_EXPECT_EQ(test, st.nr_queues, 1);
	KUNIT_EXPECT_EQ(test, st.queue_entries, NR);
	KUNIT_EXPECT_EQ(test, st.queue_data_size, FAKE_HELPER_DATA);
	KUNIT_EXPECT_EQ(test, st.data_size, FAKE_HELPER_DATA);
	KUNIT_EXPECT_EQ(test, st.keys, FAKE_HELPER_KEYS);
	KUNIT_EXPECT_EQ(test, st.keys_used, 0);
	KUNIT_EXPECT_EQ(test, st.total.data_used, 0);
	KUNIT_EXPECT_EQ(test, st.total.in_flight, 0);
	KUNIT_EXPECT_EQ(test, st.total.backlog, 0);
	KUNIT_EXPECT_FALSE(test, st.total.stalled);
	KUNIT_EXPECT_EQ(test, st.total.stalled_at, 0);
	KUNIT_EXPECT_EQ(test, st.stalled_queues, 0);
	KUNIT_EXPECT_GT(test, st.attached_at, 0);
	KUNIT_EXPECT_LE(test, st.attached_at, ktime_get_boottime_ns());
	t0 = st.attached_at;

	gt_set_timeout_ms(test, 10);
	for (i = 0; i < NR + 2; i++)
		r[i] = gt_req_new(test, t, 2048, GT_BL);
	gt_hold_deadlines();
	for (i = 0; i < NR + 2; i++)
		KUNIT_EXPECT_EQ(test, gt_req_start(r[i], false),
				i < NR ? -EINPROGRESS : -EBUSY);
	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, ARRAY_SIZE(qs));
	gt_release_deadlines();
	KUNIT_EXPECT_EQ(test, st.total.in_flight, NR);
	KUNIT_EXPECT_EQ(test, st.total.backlog, 2);
	KUNIT_EXPECT_EQ(test, st.keys_used, 1);
	KUNIT_EXPECT_EQ(test, st.total.data_used, NR * span);
	KUNIT_EXPECT_FALSE(test, st.total.stalled);
	/* One queue: it is the total. */
	KUNIT_EXPECT_EQ(test, qs[0].in_flight, NR);
	KUNIT_EXPECT_EQ(test, qs[0].backlog, 2);
	KUNIT_EXPECT_EQ(test, qs[0].data_used, NR * span);

	/* All expire; the stall flushes the backlog to the CPU. */
	for (i = 0; i < NR + 2; i++)
		gt_req_expect_done(test, r[i]);
	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, ARRAY_SIZE(qs));
	KUNIT_EXPECT_TRUE(test, st.total.stalled);
	KUNIT_EXPECT_EQ(test, st.stalled_queues, 1);
	KUNIT_EXPECT_TRUE(test, qs[0].stalled);
	KUNIT_EXPECT_EQ(test, qs[0].stalled_at, st.total.stalled_at);
	KUNIT_EXPECT_GE(test, st.total.stalled_at, t0);
	KUNIT_EXPECT_LE(test, st.total.stalled_at, ktime_get_boottime_ns());
	KUNIT_EXPECT_EQ(test, st.total.in_flight, 0);
	KUNIT_EXPECT_EQ(test, st.total.backlog, 0);
	/* Timed-out requests keep their space until the helper answers. */
	KUNIT_EXPECT_EQ(test, st.total.data_used, NR * span);

	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, NR), NR);
	for (i = 0; i < NR; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, ARRAY_SIZE(qs));
	KUNIT_EXPECT_FALSE(test, st.total.stalled);
	KUNIT_EXPECT_EQ(test, st.stalled_queues, 0);
	KUNIT_EXPECT_EQ(test, st.total.stalled_at, 0);
	KUNIT_EXPECT_EQ(test, qs[0].stalled_at, 0);
	KUNIT_EXPECT_EQ(test, st.total.data_used, 0);
	KUNIT_EXPECT_EQ(test, st.attached_at, t0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);

	/* Detached: every figure is 0. */
	gpu_aes_ring_detach(&gpu_aes_ring);
	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, ARRAY_SIZE(qs));
	KUNIT_EXPECT_FALSE(test, st.attached);
	KUNIT_EXPECT_EQ(test, st.nr_queues, 0);
	KUNIT_EXPECT_EQ(test, st.helper_pid, 0);
	KUNIT_EXPECT_EQ(test, st.keys, 0);
	KUNIT_EXPECT_EQ(test, st.data_size, 0);
}

static struct kunit_case gpu_aes_timeout_cases[] = {
	KUNIT_CASE(gpu_aes_timeout_recompute_then_late),
	KUNIT_CASE(gpu_aes_timeout_backlog),
	KUNIT_CASE(gpu_aes_timeout_status),
	{}
};

static struct kunit_suite gpu_aes_timeout_suite = {
	.name = "gpu_aes_timeout",
	.test_cases = gpu_aes_timeout_cases,
};

kunit_test_suite(gpu_aes_timeout_suite);
