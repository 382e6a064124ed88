// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CPU path is the driver the consumer would have had.  gpu_aes's
 * fallback is the best ctr(aes)/gcm(aes) there is, asynchronous or not
 * (here the asynchronous driver of async_driver.c, above the generic
 * templates): dispatch/cpu_drivers names it, and what it answers reaches
 * the consumer as it would have without gpu_aes.  Called in the caller's
 * context it gets the caller's flags and its -EINPROGRESS, -EBUSY (then
 * -EINPROGRESS and the result) or -ENOSPC pass through unchanged.  Called
 * to replay a request the ring gave back, whose caller already heard
 * -EINPROGRESS (or -EBUSY, then -EINPROGRESS from us), it gets
 * MAY_BACKLOG and never MAY_SLEEP, and the caller hears exactly one more
 * callback, the result: after a deadline, a helper error, a detach, for
 * a backlogged request too, and for a GCM forgery.
 */
#include <crypto/aead.h>
#include <kunit/test.h>
#include <linux/string.h>

#include "async_driver.h"
#include "dispatch.h"
#include "fake_helper.h"
#include "ring.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES
#define LEN	4096

static void gt_async_mode(struct kunit *test, int mode)
{
	WRITE_ONCE(gt_async.mode, mode);
}

/*
 * Our drivers' own self-tests first: from now on their fallbacks are the
 * driver registered here, whose counts are this suite's.
 */
static int gt_cpu_suite_init(struct kunit_suite *suite)
{
	int ret = gt_algs_tested();

	return ret ? ret : gt_async_register();
}

static void gt_cpu_suite_exit(struct kunit_suite *suite)
{
	gt_async_unregister();
}

static int gt_cpu_init(struct kunit *test)
{
	gt_async_mode(test, GT_ASYNC_SYNC);
	atomic_set(&gt_async.calls, 0);
	atomic_set(&gt_async.deferred, 0);
	gt_async.last_flags = 0;
	return 0;
}

static void gt_cpu_exit(struct kunit *test)
{
	/* Deferred callbacks land before the requests are freed. */
	gt_async_drain();
}

/* dispatch/cpu_drivers' line for @name names @driver. */
static void gt_expect_cpu_driver(struct kunit *test, const char *name,
				 const char *driver)
{
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char want[64];

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_GT(test, gpu_aes_dispatch_cpu_drivers_show(buf), 0);
	snprintf(want, sizeof(want), "%s %s\n", name, driver);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, want), "cpu_drivers:\n%s",
				  buf);
}

/* No helper: every request is the CPU driver's, called in our context. */
static void gpu_aes_cpu_driver_named(struct kunit *test)
{
	const u32 flags = CRYPTO_TFM_REQ_MAY_BACKLOG |
			  CRYPTO_TFM_REQ_MAY_SLEEP;
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_aead *a = gt_aead_new(test, 16, 16);
	struct gt_areq *ar;
	struct gt_stats s;
	struct gt_req *r;

	gt_expect_cpu_driver(test, "ctr", GT_ASYNC_CTR_DRIVER);
	gt_expect_cpu_driver(test, "gcm", GT_ASYNC_GCM_DRIVER);
	gt_stats_snap(&s);
	r = gt_req_new(test, t, LEN, flags);
	KUNIT_EXPECT_EQ(test, gt_req_start(r, false), 0);
	gt_req_expect_done(test, r);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_async.calls), 1);
	KUNIT_EXPECT_EQ(test, gt_async.last_flags, flags);
	ar = gt_areq_new(test, a, 20, LEN, false, flags);
	KUNIT_EXPECT_EQ(test, gt_areq_start(ar), 0);
	gt_areq_expect(test, ar, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_async.calls), 2);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_NO_HELPER), 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
}

/* -EINPROGRESS, then one callback with the result, for both types. */
static void gpu_aes_cpu_driver_deferred(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 32);
	struct gt_aead *a = gt_aead_new(test, 32, 12);
	struct gt_areq *ar[2];
	struct gt_req *r[2];
	unsigned int i;

	gt_async_mode(test, GT_ASYNC_DEFER);
	for (i = 0; i < 2; i++) {
		r[i] = gt_req_new(test, t, LEN + 5 * i, i ? 0 : GT_BL);
		KUNIT_EXPECT_EQ(test, gt_req_start(r[i], i), -EINPROGRESS);
		ar[i] = gt_areq_new(test, a, 13, LEN + 3, i, GT_BL);
		KUNIT_EXPECT_EQ(test, gt_areq_start(ar[i]), -EINPROGRESS);
	}
	for (i = 0; i < 2; i++) {
		gt_req_expect_done(test, r[i]);
		gt_areq_expect(test, ar[i], 0);
	}
	/* A forgery: the driver's verdict, through its callback. */
	ar[0] = gt_areq_new(test, a, 13, LEN, true, GT_BL);
	ar[0]->in[13 + LEN] ^= 1;
	ar[0]->untouched_on_error = false;
	KUNIT_EXPECT_EQ(test, gt_areq_start(ar[0]), -EINPROGRESS);
	gt_areq_expect(test, ar[0], -EBADMSG);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_async.deferred), 5);
}

/* A full driver queue: what the caller's flags ask for, unchanged. */
static void gpu_aes_cpu_driver_busy(struct kunit *test)
{
	struct gt_tfm *t = gt_tfm_new(test, true, 24);
	struct gt_aead *a = gt_aead_new(test, 24, 16);
	struct gt_areq *ar;
	struct gt_stats s;
	struct gt_req *r;

	gt_async_mode(test, GT_ASYNC_BUSY);
	gt_stats_snap(&s);
	r = gt_req_new(test, t, LEN, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(r, false), -EBUSY);
	gt_req_expect_done(test, r);
	ar = gt_areq_new(test, a, 0, LEN, false, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_areq_start(ar), -EBUSY);
	gt_areq_expect(test, ar, 0);

	/* Without MAY_BACKLOG the driver refuses it, and so do we. */
	r = gt_req_new(test, t, LEN, 0);
	KUNIT_EXPECT_EQ(test, gt_req_start(r, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, gt_req_events(r), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_async.calls), 3);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_REQUESTS),
			3);
}

/*
 * A replay's sub-request: MAY_BACKLOG (an asynchronous driver queues it
 * rather than fail it), never MAY_SLEEP (reapers, the deadline scan and
 * detach may not), whatever the caller asked for.
 */
static void gt_expect_replay_flags(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, gt_async.last_flags, CRYPTO_TFM_REQ_MAY_BACKLOG);
}

/* Past its deadline on the ring: one callback, the CPU driver's result. */
static void gt_cpu_driver_timeout(struct kunit *test, int mode)
{
	const u32 flags = GT_BL | CRYPTO_TFM_REQ_MAY_SLEEP;
	struct gt_tfm *t;
	struct gt_stats s;
	struct gt_req *r;

	gt_ring_setup(test, NR);
	t = gt_tfm_new(test, true, 16);
	gt_async_mode(test, mode);
	gt_stats_snap(&s);
	gt_set_timeout_ms(test, 10);
	r = gt_req_new(test, t, LEN, flags);
	KUNIT_EXPECT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	gt_req_expect_done(test, r);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_async.deferred), 1);
	gt_expect_replay_flags(test);
}

static void gpu_aes_cpu_driver_timeout_deferred(struct kunit *test)
{
	gt_cpu_driver_timeout(test, GT_ASYNC_DEFER);
}

/* The driver's -EBUSY and -EINPROGRESS are not the caller's to hear. */
static void gpu_aes_cpu_driver_timeout_busy(struct kunit *test)
{
	gt_cpu_driver_timeout(test, GT_ASYNC_BUSY);
}

/* The helper fails a request: replayed once its tag is released. */
static void gpu_aes_cpu_driver_helper_error(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 32);
	struct gpu_aes_sqe sqe[2];
	struct gt_req *r[2];
	struct gt_stats s;
	unsigned int i;

	gt_async_mode(test, GT_ASYNC_BUSY);
	gt_stats_snap(&s);
	for (i = 0; i < 2; i++) {
		r[i] = gt_req_new(test, t, LEN - 7 * i, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	fake_helper_post(h, sqe[0].tag, sqe[0].seq, GPU_AES_STATUS_EIO);
	fake_helper_post(h, sqe[1].tag, sqe[1].seq,
			 fake_helper_compute(h, &sqe[1]));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 2);
	for (i = 0; i < 2; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_HELPER_ERRORS), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_async.deferred), 1);
	gt_expect_replay_flags(test);
}

/*
 * Detach with a full ring and a backlog: those on the ring hear their
 * result once; the backlogged ones -EINPROGRESS (ours) and their result,
 * none of the driver's own notices.
 */
static void gpu_aes_cpu_driver_detach_backlog(struct kunit *test)
{
	struct gt_tfm *t;
	struct gt_req *r[NR + 2];
	struct gt_stats s;
	unsigned int i;

	gt_ring_setup(test, NR);
	t = gt_tfm_new(test, true, 16);
	gt_stats_snap(&s);
	for (i = 0; i < NR + 2; i++) {
		r[i] = gt_req_new(test, t, 1000 + i, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false),
				i < NR ? -EINPROGRESS : -EBUSY);
	}
	gt_async_mode(test, GT_ASYNC_BUSY);
	gpu_aes_ring_detach(&gpu_aes_ring);
	for (i = 0; i < NR + 2; i++)
		gt_req_expect_done(test, r[i]);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED),
			NR + 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_async.deferred), NR + 2);
	gt_expect_replay_flags(test);
}

/* A GCM forgery the helper could not judge: the CPU driver's verdict. */
static void gpu_aes_cpu_driver_gcm_forgery(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_aead *a = gt_aead_new(test, 16, 16);
	struct gpu_aes_sqe sqe;
	struct gt_areq *ar;
	struct gt_stats s;

	gt_async_mode(test, GT_ASYNC_DEFER);
	gt_stats_snap(&s);
	ar = gt_areq_new(test, a, 20, LEN, true, GT_BL);
	ar->in[20 + LEN] ^= 0x80;
	ar->untouched_on_error = false;
	KUNIT_ASSERT_EQ(test, gt_areq_start(ar), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
	fake_helper_post(h, sqe.tag, sqe.seq, GPU_AES_STATUS_EIO);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_areq_expect(test, ar, -EBADMSG);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_HELPER_ERRORS), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&gt_async.deferred), 1);
	gt_expect_replay_flags(test);
}

static struct kunit_case gpu_aes_cpu_driver_cases[] = {
	KUNIT_CASE(gpu_aes_cpu_driver_named),
	KUNIT_CASE(gpu_aes_cpu_driver_deferred),
	KUNIT_CASE(gpu_aes_cpu_driver_busy),
	KUNIT_CASE(gpu_aes_cpu_driver_timeout_deferred),
	KUNIT_CASE(gpu_aes_cpu_driver_timeout_busy),
	KUNIT_CASE(gpu_aes_cpu_driver_helper_error),
	KUNIT_CASE(gpu_aes_cpu_driver_detach_backlog),
	KUNIT_CASE(gpu_aes_cpu_driver_gcm_forgery),
	{}
};

static struct kunit_suite gpu_aes_cpu_driver_suite = {
	.name = "gpu_aes_cpu_driver",
	.suite_init = gt_cpu_suite_init,
	.suite_exit = gt_cpu_suite_exit,
	.init = gt_cpu_init,
	.exit = gt_cpu_exit,
	.test_cases = gpu_aes_cpu_driver_cases,
};

kunit_test_suite(gpu_aes_cpu_driver_suite);
