// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queues (ABI v3): each CPU posts to its own queue, with its own tags,
 * indices and data slice.  UML has one CPU, so the suites choose the queue
 * (gt_use_queue()).  What must hold:
 *  - a request lands on its queue's SQ only, its bytes in its queue's
 *    slice, its seq naming its queue;
 *  - a completion posted on another queue's CQ is rejected there, even with
 *    that queue's tag number and a seq from this one; tags of one queue are
 *    never completed through another, and reaping one queue leaves the
 *    others' completions alone;
 *  - each queue wraps its tags and its slice on its own;
 *  - a full queue backlogs (-EBUSY, -EINPROGRESS, result) while another
 *    queue takes requests at once;
 *  - detach with every queue busy recomputes every request once;
 *  - GPU_AES_ALL_QUEUES reaps every queue;
 *  - a key slot that a request on another queue names is never taken over;
 *  - the status snapshot reports each queue's occupancy and stall as its
 *    own, and their totals.
 */
#include <kunit/test.h>

#include "fake_helper.h"
#include "ring.h"
#include "skcipher.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES
#define NQ	3U
#define DELTA(x)	gt_stats_delta(&s, GPU_AES_STAT_##x)

static struct fake_helper *gt_queues_setup(struct kunit *test)
{
	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 1);
	gt_set_timeout_ms(test, 600000);
	return gt_helper_queues(test, NQ, NR, false);
}

/* Compute and complete every sqe pending on the current queue. */
static void gt_complete_queue(struct kunit *test, struct fake_helper *h,
			      unsigned int expect)
{
	gt_helper_complete_all(test, h, expect);
}

static void gpu_aes_queues_separate(struct kunit *test)
{
	struct fake_helper *h = gt_queues_setup(test);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	u64 slice = FAKE_HELPER_DATA, base = slice;
	struct gpu_aes_sqe sqe[4];
	struct gt_req *r[4];
	unsigned int i, q;

	gt_use_queue(test, h, 1);
	for (i = 0; i < 4; i++) {
		r[i] = gt_req_new(test, t, 4096 + 16 * i, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	/* Nothing on queues 0 and 2. */
	for (q = 0; q < NQ; q += 2) {
		fake_helper_use(h, q);
		KUNIT_EXPECT_EQ(test, fake_helper_pending(h), 0);
		KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(&gpu_aes_ring.queues[q]), 0);
	}
	fake_helper_use(h, 1);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 4), 4);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, sqe[i].tag, i);
		KUNIT_EXPECT_EQ(test, sqe[i].seq & 0xff, 1);
		KUNIT_EXPECT_GE(test, sqe[i].data_off, base);
		KUNIT_EXPECT_LT(test, sqe[i].data_off, base + slice);
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	}
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 4);
	for (i = 0; i < 4; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * Queues 0 and 1 both have tag 0 in flight.  Queue 1's completion posted
 * on queue 0's CQ is rejected there (the seq names queue 1), queue 0's
 * request stays in flight; reaping queue 0 leaves queue 1's CQ alone.
 */
static void gpu_aes_queues_wrong_queue_rejected(struct kunit *test)
{
	struct fake_helper *h = gt_queues_setup(test);
	struct gt_tfm *t = gt_tfm_new(test, false, 24);
	struct gpu_aes_sqe s0, s1;
	struct gt_req *r0, *r1;
	struct gt_stats s;

	gt_use_queue(test, h, 0);
	r0 = gt_req_new(test, t, 2048, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r0, false), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &s0, 1), 1);
	gt_use_queue(test, h, 1);
	r1 = gt_req_new(test, t, 2048, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r1, true), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &s1, 1), 1);
	KUNIT_EXPECT_EQ(test, s0.tag, s1.tag);
	KUNIT_EXPECT_NE(test, s0.seq, s1.seq);
	gt_stats_snap(&s);

	/* Queue 1's answer on queue 0's CQ. */
	fake_helper_compute(h, &s1);
	fake_helper_use(h, 0);
	fake_helper_post(h, s1.tag, s1.seq, GPU_AES_STATUS_OK);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	KUNIT_EXPECT_EQ(test, DELTA(REJECTED_COMPLETIONS), 1);
	KUNIT_EXPECT_EQ(test, gt_req_events(r0), 0);
	KUNIT_EXPECT_EQ(test, gt_req_events(r1), 0);

	/* Posted on queue 1 but reaped as queue 0: nothing of queue 1's. */
	fake_helper_use(h, 1);
	fake_helper_post(h, s1.tag, s1.seq, GPU_AES_STATUS_OK);
	fake_helper_publish(h);
	fake_helper_use(h, 0);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	KUNIT_EXPECT_EQ(test, gt_req_events(r1), 0);
	fake_helper_use(h, 1);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, r1);

	fake_helper_use(h, 0);
	fake_helper_post(h, s0.tag, s0.seq, fake_helper_compute(h, &s0));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, r0);
	KUNIT_EXPECT_EQ(test, DELTA(REJECTED_COMPLETIONS), 1);
}

/* 5 rounds of 7 on queue 2: its tags and slice wrap, queue 0 untouched. */
static void gpu_aes_queues_wrap_per_queue(struct kunit *test)
{
	struct fake_helper *h = gt_queues_setup(test);
	struct gt_tfm *t = gt_tfm_new(test, true, 32);
	const u64 size = FAKE_HELPER_DATA, base = 2 * size;
	struct gpu_aes_queue *q2 = &gpu_aes_ring.queues[2];
	struct gpu_aes_sqe sqe[7];
	struct gt_req *r[7];
	u64 pos = 0, off, alen;
	unsigned int round, i, n = 0, wraps = 0;

	gt_use_queue(test, h, 2);
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 7; i++) {
			r[i] = gt_req_new(test, t, 60000 + 1000 * i, GT_BL);
			KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false),
					-EINPROGRESS);
		}
		KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 7), 7);
		for (i = 0; i < 7; i++, n++) {
			alen = ALIGN((u64)r[i]->len, GPU_AES_DATA_ALIGN);
			off = pos % size;
			if (off + alen > size) {
				pos += size - off;
				off = 0;
				wraps++;
			}
			pos += alen;
			KUNIT_EXPECT_EQ(test, sqe[i].tag, n % NR);
			KUNIT_EXPECT_EQ(test, sqe[i].seq, GT_SEQ(n / NR + 1, 2));
			KUNIT_EXPECT_EQ(test, sqe[i].data_off, base + off);
		}
		for (i = 7; i-- > 0;)
			fake_helper_post(h, sqe[i].tag, sqe[i].seq,
					 fake_helper_compute(h, &sqe[i]));
		fake_helper_publish(h);
		KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 7);
		for (i = 0; i < 7; i++)
			gt_req_expect_done(test, r[i]);
	}
	KUNIT_EXPECT_GE(test, wraps, 2);
	KUNIT_EXPECT_EQ(test, q2->sq_tail, 35);
	KUNIT_EXPECT_EQ(test, q2->tag_tail, q2->tag_head);
	KUNIT_EXPECT_EQ(test, q2->data_tail, pos);
	KUNIT_EXPECT_EQ(test, GT_Q0->sq_tail, 0);
	KUNIT_EXPECT_EQ(test, GT_Q0->data_head, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/* Queue 1 full: it backlogs; queue 0 takes requests at once meanwhile. */
static void gpu_aes_queues_full_queue_backlog(struct kunit *test)
{
	struct fake_helper *h = gt_queues_setup(test);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_req *r[NR], *b, *other;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_use_queue(test, h, 1);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 1024, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	b = gt_req_new(test, t, 1024, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(b, false), -EBUSY);
	gt_use_queue(test, h, 0);
	other = gt_req_new(test, t, 1024, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(other, false), -EINPROGRESS);
	gt_complete_queue(test, h, 1);
	gt_req_expect_done(test, other);
	KUNIT_EXPECT_EQ(test, gt_req_events(b), 0);

	fake_helper_use(h, 1);
	gt_complete_queue(test, h, NR);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, gt_req_events(b), 1);
	gt_complete_queue(test, h, 1);
	gt_req_expect_done(test, b);
	KUNIT_EXPECT_EQ(test, DELTA(BACKLOGGED), 1);
	KUNIT_EXPECT_EQ(test, DELTA(RING_REQUESTS), NR + 2);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_REQUESTS), 0);
}

/* Detach with requests in flight on every queue and one backlogged. */
static void gpu_aes_queues_detach_all_busy(struct kunit *test)
{
	struct fake_helper *h = gt_queues_setup(test);
	struct gt_tfm *t = gt_tfm_new(test, false, 32);
	struct gt_req *r[NQ][4], *b;
	struct gpu_aes_sqe sqe[4];
	struct gt_stats s;
	unsigned int q, i;

	gt_stats_snap(&s);
	for (q = 0; q < NQ; q++) {
		gt_use_queue(test, h, q);
		for (i = 0; i < 4; i++) {
			r[q][i] = gt_req_new(test, t, 512 * (q + i + 1), GT_BL);
			KUNIT_ASSERT_EQ(test, gt_req_start(r[q][i], i & 1),
					-EINPROGRESS);
		}
		/* The helper read them (and will wreck their data). */
		KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 4), 4);
	}
	/*
	 * Fill queue 2: each newcomer is answered at once, but tags free
	 * only behind the four still in flight.
	 */
	for (i = 4; i < NR; i++) {
		b = gt_req_new(test, t, 512, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(b, false), -EINPROGRESS);
		KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 1), 1);
		fake_helper_post(h, sqe[0].tag, sqe[0].seq,
				 fake_helper_compute(h, &sqe[0]));
		fake_helper_publish(h);
		KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
		gt_req_expect_done(test, b);
	}
	/* Queue 2 (current) is full now: one more waits. */
	b = gt_req_new(test, t, 512, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(b, false), -EBUSY);
	memset(h->data, 0xee, NQ * FAKE_HELPER_DATA);

	gpu_aes_ring_detach(&gpu_aes_ring);
	for (q = 0; q < NQ; q++)
		for (i = 0; i < 4; i++)
			gt_req_expect_done(test, r[q][i]);
	gt_req_expect_done(test, b);
	KUNIT_EXPECT_EQ(test, DELTA(RECOMPUTED), NQ * 4 + 1);
	KUNIT_EXPECT_EQ(test, DELTA(TIMEOUTS), 0);
	KUNIT_EXPECT_EQ(test, gpu_aes_ring.nr_queues, 1);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(h->keys, 0,
					    FAKE_HELPER_KEYS * sizeof(*h->keys)));
}

/* GPU_AES_ALL_QUEUES reaps what every queue has posted. */
static void gpu_aes_queues_reap_all(struct kunit *test)
{
	struct fake_helper *h = gt_queues_setup(test);
	struct gt_tfm *t = gt_tfm_new(test, true, 24);
	struct gt_req *r[NQ];
	struct gpu_aes_sqe sqe;
	unsigned int q;

	for (q = 0; q < NQ; q++) {
		gt_use_queue(test, h, q);
		r[q] = gt_req_new(test, t, 3000, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[q], false), -EINPROGRESS);
		KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
		fake_helper_post(h, sqe.tag, sqe.seq,
				 fake_helper_compute(h, &sqe));
		fake_helper_publish(h);
	}
	KUNIT_EXPECT_EQ(test, gpu_aes_ring_reap(&gpu_aes_ring,
						GPU_AES_ALL_QUEUES), NQ);
	for (q = 0; q < NQ; q++)
		gt_req_expect_done(test, r[q]);
	KUNIT_EXPECT_EQ(test, gpu_aes_ring_reap(&gpu_aes_ring, NQ), -EINVAL);
}

/*
 * A slot whose tfm is idle but has a request in flight on another queue
 * than the one looking for a slot is not taken over.
 */
static void gpu_aes_queues_key_spared_across_queues(struct kunit *test)
{
	struct fake_helper *h = gt_queues_setup(test);
	struct gt_tfm *t[FAKE_HELPER_KEYS], *late;
	struct gpu_aes_tfm_ctx *ctx;
	struct gt_req *busy, *x;
	struct gt_stats s;
	unsigned int i;

	gt_use_queue(test, h, 0);
	for (i = 0; i < FAKE_HELPER_KEYS; i++) {
		t[i] = gt_tfm_new(test, true, 16);
		x = gt_req_new(test, t[i], 1024, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(x, false), -EINPROGRESS);
		gt_helper_complete_all(test, h, 1);
		gt_req_expect_done(test, x);
	}
	late = gt_tfm_new(test, false, 16);
	/* t[0]'s request waits on queue 2; every tfm looks idle. */
	gt_use_queue(test, h, 2);
	busy = gt_req_new(test, t[0], 1024, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(busy, false), -EINPROGRESS);
	spin_lock_bh(&gpu_aes_ring.key_lock);
	for (i = 0; i < FAKE_HELPER_KEYS; i++) {
		ctx = crypto_skcipher_ctx(t[i]->tfm);
		ctx->key.last_use = jiffies - (i ? 2 : 4) * GPU_AES_KEY_IDLE;
	}
	gpu_aes_ring.key_scan_after = jiffies;
	spin_unlock_bh(&gpu_aes_ring.key_lock);
	gt_stats_snap(&s);

	/* From queue 0: t[0] is the oldest but named on queue 2. */
	gt_use_queue(test, h, 0);
	x = gt_req_new(test, late, 2048, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(x, false), -EINPROGRESS);
	ctx = crypto_skcipher_ctx(t[0]->tfm);
	KUNIT_EXPECT_EQ(test, ctx->key.slot, 0);
	ctx = crypto_skcipher_ctx(late->tfm);
	KUNIT_EXPECT_NE(test, ctx->key.slot, 0);
	KUNIT_EXPECT_EQ(test, DELTA(KEY_RECLAIMS), 1);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, x);
	fake_helper_use(h, 2);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, busy);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * gpu_aes_ring_status() per queue (/sys/class/misc/gpu_aes/queues/): two
 * in flight on queue 1; queue 2 full with one backlogged, then stalled;
 * queue 0 idle.  Each queue's figures are its own, the totals their sums,
 * and a stall on queue 2 is queue 2's alone.
 */
static void gpu_aes_queues_status(struct kunit *test)
{
	struct fake_helper *h = gt_queues_setup(test);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	const u64 span = ALIGN(2048, GPU_AES_DATA_ALIGN);
	struct gpu_aes_queue_status qs[NQ + 1];
	struct gpu_aes_ring_status st;
	struct gpu_aes_sqe sqe[NR];
	struct gt_req *a[2], *r[NR + 1];
	unsigned int i;

	gt_use_queue(test, h, 1);
	for (i = 0; i < 2; i++) {
		a[i] = gt_req_new(test, t, 2048, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(a[i], false), -EINPROGRESS);
	}
	gt_set_timeout_ms(test, 10);
	gt_use_queue(test, h, 2);
	for (i = 0; i < NR + 1; i++)
		r[i] = gt_req_new(test, t, 2048, GT_BL);
	/* Nothing on queue 2 expires before the snapshot. */
	mutex_lock(&gpu_aes_ring.queues[2].scan_mutex);
	for (i = 0; i < NR + 1; i++)
		KUNIT_EXPECT_EQ(test, gt_req_start(r[i], false),
				i < NR ? -EINPROGRESS : -EBUSY);
	memset(qs, 0xff, sizeof(qs));
	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, ARRAY_SIZE(qs));
	mutex_unlock(&gpu_aes_ring.queues[2].scan_mutex);

	KUNIT_EXPECT_TRUE(test, st.attached);
	KUNIT_EXPECT_EQ(test, st.nr_queues, NQ);
	KUNIT_EXPECT_EQ(test, st.queue_entries, NR);
	KUNIT_EXPECT_EQ(test, st.queue_data_size, FAKE_HELPER_DATA);
	KUNIT_EXPECT_EQ(test, st.data_size, NQ * FAKE_HELPER_DATA);
	KUNIT_EXPECT_EQ(test, st.keys_used, 1);
	KUNIT_EXPECT_EQ(test, qs[0].in_flight, 0);
	KUNIT_EXPECT_EQ(test, qs[0].data_used, 0);
	KUNIT_EXPECT_EQ(test, qs[1].in_flight, 2);
	KUNIT_EXPECT_EQ(test, qs[1].backlog, 0);
	KUNIT_EXPECT_EQ(test, qs[1].data_used, 2 * span);
	KUNIT_EXPECT_EQ(test, qs[2].in_flight, NR);
	KUNIT_EXPECT_EQ(test, qs[2].backlog, 1);
	KUNIT_EXPECT_EQ(test, qs[2].data_used, NR * span);
	/* Only nr_queues entries are written. */
	KUNIT_EXPECT_EQ(test, qs[NQ].in_flight, U32_MAX);
	KUNIT_EXPECT_EQ(test, st.total.in_flight, NR + 2);
	KUNIT_EXPECT_EQ(test, st.total.backlog, 1);
	KUNIT_EXPECT_EQ(test, st.total.data_used, (NR + 2) * span);
	KUNIT_EXPECT_EQ(test, st.stalled_queues, 0);

	/* Queue 2 expires and stalls; queue 1 is untouched. */
	for (i = 0; i < NR + 1; i++)
		gt_req_expect_done(test, r[i]);
	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, ARRAY_SIZE(qs));
	KUNIT_EXPECT_EQ(test, st.stalled_queues, 1);
	KUNIT_EXPECT_TRUE(test, st.total.stalled);
	KUNIT_EXPECT_FALSE(test, qs[0].stalled);
	KUNIT_EXPECT_FALSE(test, qs[1].stalled);
	KUNIT_EXPECT_TRUE(test, qs[2].stalled);
	KUNIT_EXPECT_EQ(test, qs[1].stalled_at, 0);
	KUNIT_EXPECT_GT(test, qs[2].stalled_at, 0);
	KUNIT_EXPECT_EQ(test, st.total.stalled_at, qs[2].stalled_at);
	KUNIT_EXPECT_EQ(test, qs[1].in_flight, 2);
	KUNIT_EXPECT_EQ(test, qs[2].in_flight, 0);
	KUNIT_EXPECT_EQ(test, qs[2].backlog, 0);
	KUNIT_EXPECT_EQ(test, st.total.in_flight, 2);

	/* The helper answers both queues: everything is released. */
	fake_helper_use(h, 2);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, NR), NR);
	for (i = 0; i < NR; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	fake_helper_use(h, 1);
	gt_complete_queue(test, h, 2);
	for (i = 0; i < 2; i++)
		gt_req_expect_done(test, a[i]);
	gpu_aes_ring_status(&gpu_aes_ring, &st, qs, ARRAY_SIZE(qs));
	KUNIT_EXPECT_EQ(test, st.stalled_queues, 0);
	KUNIT_EXPECT_EQ(test, st.total.in_flight, 0);
	KUNIT_EXPECT_EQ(test, st.total.data_used, 0);
	for (i = 0; i < NQ; i++)
		KUNIT_EXPECT_FALSE(test, qs[i].stalled);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

static struct kunit_case gpu_aes_queues_cases[] = {
	KUNIT_CASE(gpu_aes_queues_separate),
	KUNIT_CASE(gpu_aes_queues_wrong_queue_rejected),
	KUNIT_CASE(gpu_aes_queues_wrap_per_queue),
	KUNIT_CASE(gpu_aes_queues_full_queue_backlog),
	KUNIT_CASE(gpu_aes_queues_detach_all_busy),
	KUNIT_CASE(gpu_aes_queues_reap_all),
	KUNIT_CASE(gpu_aes_queues_key_spared_across_queues),
	KUNIT_CASE(gpu_aes_queues_status),
	{}
};

static struct kunit_suite gpu_aes_queues_suite = {
	.name = "gpu_aes_queues",
	.test_cases = gpu_aes_queues_cases,
};

kunit_test_suite(gpu_aes_queues_suite);
