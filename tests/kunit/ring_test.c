// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ring accounting: a full ring, a full data area, tag and SQ wrap-around
 * with data-area wrap, slot reuse held back by the oldest request, the
 * wake-up handshake, a mixed load, and every request completed exactly
 * once.
 */
#include <kunit/test.h>
#include <linux/random.h>

#include "fake_helper.h"
#include "ring.h"
#include "stats.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES

static void gpu_aes_ring_full(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gpu_aes_sqe sqe[NR];
	struct gt_req *r[NR], *extra;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 900 + 64 * i, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	/* No tag left: it waits in the backlog, not on the CPU. */
	extra = gt_req_new(test, t, 2000, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(extra, false), -EBUSY);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), NR);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 1);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_REQUESTS), 0);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), NR);
	for (i = 0; i < NR; i++)
		KUNIT_EXPECT_EQ(test, gt_req_events(r[i]), 0);

	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, NR), NR);
	for (i = 0; i < NR; i++) {
		KUNIT_EXPECT_EQ(test, sqe[i].tag, i);
		KUNIT_EXPECT_EQ(test, sqe[i].seq, GT_SEQ(1, 0));
		KUNIT_EXPECT_EQ(test, sqe[i].len, 900 + 64 * i);
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	}
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), NR);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	/* The reap admitted the backlogged one into the freed space. */
	KUNIT_EXPECT_EQ(test, gt_req_events(extra), 1);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 1);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, extra);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 0);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, GT_Q0->tag_head);
	KUNIT_EXPECT_EQ(test, GT_Q0->data_tail, GT_Q0->data_head);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
	/* A reap with nothing new accepts nothing and completes nothing. */
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	for (i = 0; i < NR; i++)
		KUNIT_EXPECT_EQ(test, gt_req_events(r[i]), 1);
	KUNIT_EXPECT_EQ(test, gt_req_events(extra), 2);
}

/* Four quarter-size requests fill the data area while tags are free. */
static void gpu_aes_ring_data_full(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, false, 24);
	const unsigned int q = FAKE_HELPER_DATA / 4;
	struct gt_req *r[4], *small, *large;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < 4; i++) {
		r[i] = gt_req_new(test, t, q, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], i & 1), -EINPROGRESS);
	}
	/* Tags are free but the data area is not: it waits. */
	small = gt_req_new(test, t, 1024, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(small, false), -EBUSY);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 1);
	/* Over a quarter of the data area never goes to the ring. */
	large = gt_req_new(test, t, q + AES_BLOCK_SIZE, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(large, true), 0);
	gt_req_expect_done(test, large);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_LARGE), 1);

	gt_helper_complete_all(test, h, 4);
	for (i = 0; i < 4; i++)
		gt_req_expect_done(test, r[i]);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, small);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), 5);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_BYTES),
			4 * q + 1024);
}

/*
 * 5 rounds of 7: the SQ index and the tags wrap (35 > 16), the byte ring
 * wraps twice with a skip to offset 0, and each round is completed in
 * reverse order.  The data offsets must follow the documented allocator:
 * consecutive, 64-byte aligned, never straddling the end.
 */
static void gpu_aes_ring_wraparound(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 32);
	const u64 size = FAKE_HELPER_DATA;
	struct gpu_aes_sqe sqe[7];
	struct gt_req *r[7];
	u64 pos = 0, off, alen;
	unsigned int round, i, n = 0, wraps = 0;

	for (round = 0; round < 5; round++) {
		for (i = 0; i < 7; i++) {
			r[i] = gt_req_new(test, t,
					  60000 + get_random_u32_below(40000), GT_BL);
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
			KUNIT_EXPECT_EQ(test, sqe[i].seq, GT_SEQ(n / NR + 1, 0));
			KUNIT_EXPECT_EQ(test, sqe[i].data_off, off);
			KUNIT_EXPECT_EQ(test, sqe[i].len, r[i]->len);
			KUNIT_EXPECT_MEMEQ(test, sqe[i].iv, r[i]->iv, AES_BLOCK_SIZE);
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
	KUNIT_EXPECT_EQ(test, GT_Q0->sq_tail, 35);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, GT_Q0->tag_head);
	KUNIT_EXPECT_EQ(test, GT_Q0->data_tail, pos);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * Tags are freed oldest first: with tag 0 still on the helper, completing
 * the other 15 frees nothing, so the ring is still full; once tag 0
 * completes, it is reused with the next seq.
 */
static void gpu_aes_ring_oldest_holds_reuse(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gpu_aes_sqe sqe[NR];
	struct gt_req *r[NR], *extra, *again;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 4096, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, NR), NR);
	for (i = 1; i < NR; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), NR - 1);
	for (i = 1; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, gt_req_events(r[0]), 0);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, 0);

	/* Still full: the next one waits for tag 0. */
	extra = gt_req_new(test, t, 4096, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(extra, false), -EBUSY);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 1);

	fake_helper_post(h, sqe[0].tag, sqe[0].seq,
			 fake_helper_compute(h, &sqe[0]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, r[0]);
	/* All 16 freed, and the waiting one took tag 0 again. */
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, NR);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_head, NR + 1);

	again = gt_req_new(test, t, 4096, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(again, false), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	KUNIT_EXPECT_EQ(test, sqe[0].tag, 0);
	KUNIT_EXPECT_EQ(test, sqe[0].seq, GT_SEQ(2, 0));
	KUNIT_EXPECT_EQ(test, sqe[1].tag, 1);
	KUNIT_EXPECT_EQ(test, sqe[1].seq, GT_SEQ(2, 0));
	for (i = 0; i < 2; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 2);
	gt_req_expect_done(test, extra);
	gt_req_expect_done(test, again);
	for (i = 0; i < NR; i++)
		KUNIT_EXPECT_EQ(test, gt_req_events(r[i]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * io_uring's SQPOLL handshake: a helper that is busy (NEED_WAKEUP clear)
 * gets no wake-up per request; one about to sleep gets exactly one, however
 * many submissions see the flag, until its poll() looks for work again
 * (gpu_aes_ring_pending()): the next submission then wakes it.
 */
static void gpu_aes_ring_need_wakeup(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	s64 wakeups = gpu_aes_stat_read(GPU_AES_STAT_HELPER_WAKEUPS);
	struct gt_req *r[6];
	unsigned int i;

	WRITE_ONCE(h->qhdr->helper_flags, 0);
	for (i = 0; i < 2; i++) {
		r[i] = gt_req_new(test, t, 1024, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&h->kicks), 0);
	WRITE_ONCE(h->qhdr->helper_flags, GPU_AES_HELPER_NEED_WAKEUP);
	KUNIT_EXPECT_TRUE(test, gpu_aes_ring_pending(h->ring));
	for (i = 2; i < 4; i++) {
		r[i] = gt_req_new(test, t, 1024, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&h->kicks), 1);
	/* Its poll() looks (and finds work): the doorbell is armed again. */
	KUNIT_EXPECT_TRUE(test, gpu_aes_ring_pending(h->ring));
	for (i = 4; i < 6; i++) {
		r[i] = gt_req_new(test, t, 1024, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&h->kicks), 2);
	KUNIT_EXPECT_EQ(test, gpu_aes_stat_read(GPU_AES_STAT_HELPER_WAKEUPS) -
			      wakeups, 2);
	WRITE_ONCE(h->qhdr->helper_flags, 0);
	gt_helper_complete_all(test, h, 6);
	for (i = 0; i < 6; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->kicks), 2);
}

/*
 * Everything at once through the automatic helper: 256 requests over four
 * tfms (both modes, three key sizes), random lengths, directions and
 * MAY_BACKLOG, all outstanding together on a 16-entry ring, with the
 * helper's queued work drained every 40 submissions (more than the ring
 * holds, so some are backlogged) so admission, reaping and new posts
 * interleave.  Each must complete exactly once, correctly, and every one
 * must be accounted for: on the ring (perhaps after the backlog) or, for
 * want of MAY_BACKLOG, on the CPU.
 */
static void gpu_aes_ring_mixed_load(struct kunit *test)
{
	static const struct { bool ctr; unsigned int klen; } kinds[] = {
		{ false, 16 }, { true, 24 }, { true, 32 }, { false, 32 },
	};
	const unsigned int n = 256;
	struct gt_tfm *t[ARRAY_SIZE(kinds)];
	struct fake_helper *h;
	struct gt_req **r;
	struct gt_stats s;
	unsigned int i, k, len, flagged = 0;
	u32 flags;

	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 1);
	gt_set_timeout_ms(test, 600000);
	h = gt_helper(test, NR, true);
	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		t[k] = gt_tfm_new(test, kinds[k].ctr, kinds[k].klen);
	r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);

	gt_stats_snap(&s);
	for (i = 0; i < n; i++) {
		k = get_random_u32_below(ARRAY_SIZE(kinds));
		len = 1 + get_random_u32_below(20000);
		if (!kinds[k].ctr)
			len = ALIGN(len, AES_BLOCK_SIZE);
		/* Unflagged: AF_ALG AEAD AIO's kind, answered at once. */
		flags = get_random_u32_below(2) ? GT_BL :
			CRYPTO_TFM_REQ_MAY_SLEEP;
		flagged += flags == GT_BL;
		r[i] = gt_req_new(test, t[k], len, flags);
		gt_req_start(r[i], get_random_u32_below(2));
		if (flags == GT_BL)
			KUNIT_EXPECT_TRUE(test, r[i]->ret == -EINPROGRESS ||
					  r[i]->ret == -EBUSY);
		else
			KUNIT_EXPECT_EQ(test, r[i]->ret, 0);
		if (i % 40 == 39)
			flush_workqueue(h->wq);
	}
	for (i = 0; i < n; i++)
		gt_req_expect_done(test, r[i]);
	kunit_info(test, "ring %lld, backlogged %lld, cpu (no MAY_BACKLOG) %lld\n",
		   gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS),
		   gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED),
		   gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_NO_BACKLOG));
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS),
			flagged);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_NO_BACKLOG),
			n - flagged);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_REQUESTS),
			n - flagged);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqes),
			gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS));
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
	KUNIT_EXPECT_EQ(test, GT_Q0->tag_tail, GT_Q0->tag_head);
}

static struct kunit_case gpu_aes_ring_cases[] = {
	KUNIT_CASE(gpu_aes_ring_full),
	KUNIT_CASE(gpu_aes_ring_data_full),
	KUNIT_CASE(gpu_aes_ring_wraparound),
	KUNIT_CASE(gpu_aes_ring_oldest_holds_reuse),
	KUNIT_CASE(gpu_aes_ring_need_wakeup),
	KUNIT_CASE(gpu_aes_ring_mixed_load),
	{}
};

static struct kunit_suite gpu_aes_ring_suite = {
	.name = "gpu_aes_ring",
	.test_cases = gpu_aes_ring_cases,
};

kunit_test_suite(gpu_aes_ring_suite);
