// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRYPTO_TFM_REQ_MAY_BACKLOG done the way dm-crypt needs: on a full ring
 * -EBUSY, later -EINPROGRESS, then the result, in that order and in
 * submission order; without the flag the CPU at once, never an error.
 */
#include <kunit/test.h>

#include "fake_helper.h"
#include "ring.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES

static void gpu_aes_backlog_order(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 24);
	const u32 bl = CRYPTO_TFM_REQ_MAY_BACKLOG;
	struct gt_req *r[NR], *b[2], *nb;
	struct gpu_aes_sqe sqe[2];
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 1024 + i, bl);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	for (i = 0; i < 2; i++) {
		b[i] = gt_req_new(test, t, 3000 + i, bl);
		KUNIT_ASSERT_EQ(test, gt_req_start(b[i], false), -EBUSY);
	}
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 2);
	/*
	 * No flag while others wait: the CPU, synchronously, not -EBUSY, and
	 * never ahead of the backlog.
	 */
	nb = gt_req_new(test, t, 1500, 0);
	KUNIT_EXPECT_EQ(test, gt_req_start(nb, false), 0);
	gt_req_expect_done(test, nb);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_FULL), 1);
	KUNIT_EXPECT_EQ(test, gt_req_events(b[0]), 0);
	KUNIT_EXPECT_EQ(test, gt_req_events(b[1]), 0);

	/* Space frees: both are admitted and told -EINPROGRESS, no more. */
	gt_helper_complete_all(test, h, NR);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, gt_req_events(b[i]), 1);
		KUNIT_EXPECT_EQ(test, b[i]->events[0], -EINPROGRESS);
		KUNIT_EXPECT_FALSE(test, completion_done(&b[i]->done));
	}
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS),
			NR + 2);

	/* In submission order, with their own plaintext in their slots. */
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, sqe[i].len, b[i]->len);
		GT_EXPECT_BYTES(test, h->data + sqe[i].data_off, b[i]->buf,
				b[i]->len);
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	}
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 2);
	for (i = 0; i < 2; i++)
		gt_req_expect_done(test, b[i]);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
}

/*
 * Without MAY_BACKLOG: a caller that may sleep (AF_ALG's AEAD AIO, which
 * fails the reads behind an answer still in flight) gets its answer
 * before the call returns, on an idle ring as on a full one.  One that
 * may not (IPsec ESP, in softirq) takes the ring where it has room now,
 * -EINPROGRESS and one callback, and the CPU at once where it has none:
 * never -EBUSY, never backlogged.
 */
static void gpu_aes_backlog_no_flag_answers_at_once(struct kunit *test)
{
	const u32 sleep = CRYPTO_TFM_REQ_MAY_SLEEP;
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *ctr = gt_tfm_new(test, true, 16);
	struct gt_tfm *ecb = gt_tfm_new(test, false, 32);
	struct gt_req *r[NR], *x;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	/* Idle ring, helper attached, every length on the ring otherwise. */
	for (i = 0; i < 4; i++) {
		x = gt_req_new(test, i & 1 ? ecb : ctr, 4096, sleep);
		KUNIT_EXPECT_EQ(test, gt_req_start(x, i & 2), 0);
		gt_req_expect_done(test, x);
		KUNIT_EXPECT_EQ(test, gt_req_events(x), 0);
	}
	KUNIT_EXPECT_EQ(test, fake_helper_pending(h), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), 0);

	/* Room: the ring takes those that may not sleep, GT_BL or not. */
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, i & 1 ? ecb : ctr, 2048,
				  i < 4 ? 0 : GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], i & 2), -EINPROGRESS);
	}
	/* Full ring: at once, never backlogged, either kind. */
	for (i = 0; i < 8; i++) {
		x = gt_req_new(test, i & 1 ? ecb : ctr, 16 * (1 + 97 * i),
			       i & 1 ? sleep : 0);
		KUNIT_EXPECT_EQ(test, gt_req_start(x, i & 2), 0);
		gt_req_expect_done(test, x);
		KUNIT_EXPECT_EQ(test, gt_req_events(x), 0);
	}
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_NO_BACKLOG), 8);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_FULL), 4);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_REQUESTS),
			12);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), NR);
	gt_helper_complete_all(test, h, NR);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
}

static struct kunit_case gpu_aes_backlog_cases[] = {
	KUNIT_CASE(gpu_aes_backlog_order),
	KUNIT_CASE(gpu_aes_backlog_no_flag_answers_at_once),
	{}
};

static struct kunit_suite gpu_aes_backlog_suite = {
	.name = "gpu_aes_backlog",
	.test_cases = gpu_aes_backlog_cases,
};

kunit_test_suite(gpu_aes_backlog_suite);
