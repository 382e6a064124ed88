// SPDX-License-Identifier: GPL-2.0-only
/*
 * Liveness: no caller waits a deadline for a cause the ring can see.
 *  - A full key table sends a request whose tfm gets no slot to the CPU at
 *    once, MAY_BACKLOG or not, ring full or not; a slot left unused for
 *    GPU_AES_KEY_IDLE is taken over (least recently used first), never
 *    one a request on the ring still names (in flight or timed out), and
 *    the tfm that lost it binds another at its next use.
 *  - A ring whose oldest tag timed out cannot empty by itself: a request
 *    that finds it full goes to the CPU at once (fallback_full) instead of
 *    waiting in the backlog for a completion that may never come.
 *  - The backlog is served in order: a backlogged request that does not
 *    fit yet holds back a smaller one behind it and a new submission, so
 *    smaller requests passing it cannot keep it waiting until its
 *    deadline.
 *  - A backlogged request leaves the backlog at the first deadline of a
 *    request ahead of it that times out, not at its own.
 */
#include <kunit/test.h>

#include "fake_helper.h"
#include "ring.h"
#include "skcipher.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES
#define DELTA(x)	gt_stats_delta(&s, GPU_AES_STAT_##x)

static struct gpu_aes_tfm_key *gt_key(struct gt_tfm *t)
{
	struct gpu_aes_tfm_ctx *ctx = crypto_skcipher_ctx(t->tfm);

	return &ctx->key;
}

/* As if @t had last used its slot @ago jiffies ago. */
static void gt_age(struct gt_tfm *t, unsigned long ago)
{
	spin_lock_bh(&gpu_aes_ring.key_lock);
	gt_key(t)->last_use = jiffies - ago;
	/* The table changed under the scan's feet: let it look again. */
	gpu_aes_ring.key_scan_after = jiffies;
	spin_unlock_bh(&gpu_aes_ring.key_lock);
}

/* Keep the deadline scan out while a test posts (see timeout_test.c). */
static void gt_hold_deadlines(void)
{
	mutex_lock(&GT_Q0->scan_mutex);
}

static void gt_release_deadlines(void)
{
	mutex_unlock(&GT_Q0->scan_mutex);
}

static int gt_slot(struct gt_tfm *t)
{
	int slot;

	spin_lock_bh(&gpu_aes_ring.key_lock);
	slot = gt_key(t)->slot;
	spin_unlock_bh(&gpu_aes_ring.key_lock);
	return slot;
}

/* One request of @t through the ring, completed: @t holds a slot after. */
static void gt_use(struct kunit *test, struct fake_helper *h, struct gt_tfm *t)
{
	struct gt_req *r = gt_req_new(test, t, 1024, GT_BL);

	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, r);
}

static void gpu_aes_live_key_table_full(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t[FAKE_HELPER_KEYS], *late;
	struct gpu_aes_sqe sqe;
	struct gt_req *r[NR], *x;
	struct gt_stats s;
	unsigned int i;
	int slot;

	for (i = 0; i < FAKE_HELPER_KEYS; i++) {
		t[i] = gt_tfm_new(test, i & 1, 16 + 8 * (i % 3));
		gt_use(test, h, t[i]);
	}
	late = gt_tfm_new(test, true, 32);
	gt_stats_snap(&s);

	/* Every slot recently used: the CPU at once, never the backlog. */
	x = gt_req_new(test, late, 4096, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, false), 0);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_NO_KEY), 1);
	KUNIT_EXPECT_EQ(test, DELTA(BACKLOGGED), 0);
	KUNIT_EXPECT_EQ(test, gt_slot(late), -1);

	/* The same with the ring full: it would never get a slot by waiting. */
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t[i % FAKE_HELPER_KEYS], 2048, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	x = gt_req_new(test, late, 4096, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, true), 0);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_NO_KEY), 2);
	KUNIT_EXPECT_EQ(test, DELTA(BACKLOGGED), 0);
	gt_helper_complete_all(test, h, NR);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);

	/*
	 * t[5] went quiet: its slot goes to the tfm that has none, and the
	 * bytes prove the helper ran it with the new key.
	 */
	slot = gt_slot(t[5]);
	gt_age(t[5], 2 * GPU_AES_KEY_IDLE);
	x = gt_req_new(test, late, 4096, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(x, false), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, DELTA(KEY_RECLAIMS), 1);
	KUNIT_EXPECT_EQ(test, gt_slot(late), slot);
	KUNIT_EXPECT_EQ(test, gt_slot(t[5]), -1);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
	KUNIT_EXPECT_EQ(test, sqe.key_slot, slot);
	fake_helper_post(h, sqe.tag, sqe.seq, fake_helper_compute(h, &sqe));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, x);

	/* t[5] comes back: nothing idle now, so the CPU, at once. */
	x = gt_req_new(test, t[5], 4096, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, false), 0);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_NO_KEY), 3);
	KUNIT_EXPECT_EQ(test, DELTA(TIMEOUTS), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * Least recently used first, but never a slot that a request on the ring
 * names: not while it is in flight, not while it is timed out and the
 * helper may still read that key.
 */
static void gpu_aes_live_reclaim_spares_inflight(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t[FAKE_HELPER_KEYS], *a, *b;
	struct gpu_aes_sqe sqe[2];
	struct gt_req *busy, *stuck, *x, *y;
	struct gt_stats s;
	unsigned int i;

	for (i = 0; i < FAKE_HELPER_KEYS; i++) {
		t[i] = gt_tfm_new(test, true, 16);
		gt_use(test, h, t[i]);
	}
	a = gt_tfm_new(test, false, 24);
	b = gt_tfm_new(test, false, 32);
	/* busy will time out, but only once the scan may run. */
	gt_hold_deadlines();
	gt_set_timeout_ms(test, 1);
	busy = gt_req_new(test, t[0], 3000, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(busy, false), -EINPROGRESS);
	gt_set_timeout_ms(test, 600000);
	/* t[0] the oldest, t[1] next, the rest recent. */
	gt_age(t[0], 4 * GPU_AES_KEY_IDLE);
	gt_age(t[1], 3 * GPU_AES_KEY_IDLE);
	gt_stats_snap(&s);

	/* t[0] is the least recent but has a request in flight: t[1] goes. */
	x = gt_req_new(test, a, 4096, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(x, false), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, gt_slot(a), 1);
	KUNIT_EXPECT_EQ(test, gt_slot(t[0]), 0);
	KUNIT_EXPECT_EQ(test, DELTA(KEY_RECLAIMS), 1);

	/* busy times out: its slot stays spared while the helper owes it. */
	stuck = busy;
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	gt_release_deadlines();
	gt_req_expect_done(test, stuck);
	KUNIT_EXPECT_EQ(test, DELTA(TIMEOUTS), 1);
	/* Answering x clears the stall the timeout caused. */
	fake_helper_post(h, sqe[1].tag, sqe[1].seq,
			 fake_helper_compute(h, &sqe[1]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, x);
	gt_age(t[0], 4 * GPU_AES_KEY_IDLE);
	y = gt_req_new(test, b, 4096, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(y, false), 0);
	gt_req_expect_done(test, y);
	KUNIT_EXPECT_EQ(test, gt_slot(t[0]), 0);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_NO_KEY), 1);

	/* The late answer releases it: now it can go. */
	fake_helper_post(h, sqe[0].tag, sqe[0].seq,
			 fake_helper_compute(h, &sqe[0]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	KUNIT_EXPECT_EQ(test, DELTA(LATE_COMPLETIONS), 1);
	gt_age(t[0], 4 * GPU_AES_KEY_IDLE);
	y = gt_req_new(test, b, 4096, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(y, false), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, gt_slot(b), 0);
	KUNIT_EXPECT_EQ(test, gt_slot(t[0]), -1);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, y);
	KUNIT_EXPECT_EQ(test, DELTA(KEY_RECLAIMS), 2);
	/* The fake checked every sqe's key generation against the table. */
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
	KUNIT_EXPECT_EQ(test, DELTA(HELPER_ERRORS), 0);
}

/*
 * The helper withholds one completion for good: after its deadline,
 * nothing waits for another.  The ring fills behind the timed-out oldest
 * tag; then MAY_BACKLOG requests go to the CPU at once.
 */
static void gpu_aes_live_withheld_oldest(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gpu_aes_sqe sqe[NR];
	struct gt_req *lost, *r[NR], *x;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	/* Only the first one's deadline is short. */
	gt_hold_deadlines();
	gt_set_timeout_ms(test, 1);
	lost = gt_req_new(test, t, 4096, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(lost, false), -EINPROGRESS);
	gt_set_timeout_ms(test, 600000);
	for (i = 1; i < NR; i++) {
		r[i] = gt_req_new(test, t, 4096, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, NR), NR);
	gt_release_deadlines();
	gt_req_expect_done(test, lost);

	/* Stalled until the helper answers anything. */
	x = gt_req_new(test, t, 4096, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, false), 0);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_STALLED), 1);

	/* It answers another (never the lost one): live again. */
	fake_helper_post(h, sqe[1].tag, sqe[1].seq,
			 fake_helper_compute(h, &sqe[1]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, r[1]);

	/* Full behind the lost tag: the CPU at once, not the backlog. */
	for (i = 0; i < 3; i++) {
		x = gt_req_new(test, t, 4096, GT_BL);
		KUNIT_EXPECT_EQ(test, gt_req_start(x, i & 1), 0);
		gt_req_expect_done(test, x);
	}
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_FULL), 3);
	KUNIT_EXPECT_EQ(test, DELTA(BACKLOGGED), 0);

	/* Completing everything else frees nothing; still no waiting. */
	for (i = 2; i < NR; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), NR - 2);
	for (i = 2; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	x = gt_req_new(test, t, 4096, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(x, false), 0);
	gt_req_expect_done(test, x);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_FULL), 4);
	KUNIT_EXPECT_EQ(test, DELTA(TIMEOUTS), 1);
	KUNIT_EXPECT_EQ(test, DELTA(BACKLOGGED), 0);
}

/*
 * A backlogged request whose space is held by requests that then time
 * out leaves the backlog at their deadline (recomputed at once), not at
 * its own; nothing is left waiting on a ring with nothing in flight.
 */
static void gpu_aes_live_backlog_leaves_at_first_deadline(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 24);
	struct gt_req *r[NR], *b;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_set_timeout_ms(test, 300);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, t, 2048, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	/* Its own deadline is far away. */
	gt_set_timeout_ms(test, 600000);
	b = gt_req_new(test, t, 2048, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(b, false), -EBUSY);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	gt_req_expect_done(test, b);
	KUNIT_EXPECT_EQ(test, DELTA(TIMEOUTS), NR);
	KUNIT_EXPECT_EQ(test, DELTA(RECOMPUTED), NR + 1);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&GT_Q0->backlog));
	KUNIT_EXPECT_EQ(test, fake_helper_pending(h), NR);
}

/*
 * The backlog is served in order (FIFO): one backlogged request that does
 * not fit yet holds back a smaller one behind it, and a new submission
 * that would fit waits behind both; once space frees, all three go in, in
 * the order they came.  Admission used to let smaller ones past (walking
 * the whole backlog on every reap), which could keep a large request
 * waiting until its deadline.
 */
static void gpu_aes_live_backlog_in_order(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, false, 16);
	const unsigned int q = FAKE_HELPER_DATA / 4;
	static const unsigned int lens[] = { 2, 4, 4, 4, 2 };
	const unsigned int order[] = { q, 4096, 2048 };
	struct gpu_aes_sqe sqe[3];
	struct gt_req *r[5], *big, *small, *fresh;
	struct gt_stats s;
	unsigned int i, n;

	gt_stats_snap(&s);
	/* Eighths: 2 + 4 + 4 + 4 + 2 = the whole data area. */
	for (i = 0; i < 5; i++) {
		r[i] = gt_req_new(test, t, lens[i] * q / 4, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	/* The data area is full: both wait, the big one first. */
	big = gt_req_new(test, t, q, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(big, false), -EBUSY);
	small = gt_req_new(test, t, 4096, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(small, false), -EBUSY);

	/* r[0] done frees an eighth: room for the small one, not the big. */
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 1), 1);
	fake_helper_post(h, sqe[0].tag, sqe[0].seq,
			 fake_helper_compute(h, &sqe[0]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, r[0]);
	KUNIT_EXPECT_EQ(test, gt_req_events(big), 0);
	KUNIT_EXPECT_EQ(test, gt_req_events(small), 0);

	/* A new one that would fit waits its turn too. */
	fresh = gt_req_new(test, t, 2048, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(fresh, false), -EBUSY);
	KUNIT_EXPECT_EQ(test, fake_helper_pending(h), 4);

	/* The rest done: all three go in, in the order they came. */
	gt_helper_complete_all(test, h, 4);
	for (i = 1; i < 5; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, gt_req_events(big), 1);
	KUNIT_EXPECT_EQ(test, gt_req_events(small), 1);
	KUNIT_EXPECT_EQ(test, gt_req_events(fresh), 1);
	/* Whatever came, answered: nothing is left in flight on a failure. */
	n = fake_helper_fetch(h, sqe, 3);
	KUNIT_EXPECT_EQ(test, n, 3);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, sqe[i].len, order[i]);
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	}
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), (int)n);
	gt_req_expect_done(test, big);
	gt_req_expect_done(test, small);
	gt_req_expect_done(test, fresh);
	KUNIT_EXPECT_EQ(test, DELTA(BACKLOGGED), 3);
	KUNIT_EXPECT_EQ(test, DELTA(RING_REQUESTS), 8);
	KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_REQUESTS), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

static struct kunit_case gpu_aes_liveness_cases[] = {
	KUNIT_CASE(gpu_aes_live_key_table_full),
	KUNIT_CASE(gpu_aes_live_reclaim_spares_inflight),
	KUNIT_CASE(gpu_aes_live_withheld_oldest),
	KUNIT_CASE(gpu_aes_live_backlog_leaves_at_first_deadline),
	KUNIT_CASE(gpu_aes_live_backlog_in_order),
	{}
};

static struct kunit_suite gpu_aes_liveness_suite = {
	.name = "gpu_aes_liveness",
	.test_cases = gpu_aes_liveness_cases,
};

kunit_test_suite(gpu_aes_liveness_suite);
