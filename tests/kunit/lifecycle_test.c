// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helper detach with requests in flight and backlogged, a status reader
 * holding nothing detach waits for, setkey (lengths, rekey, slot wiped on
 * tfm exit and on detach) and the request-length rules.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/string.h>

#include "fake_helper.h"
#include "park.h"
#include "ring.h"
#include "skcipher.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES

static bool gt_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static void gpu_aes_detach_in_flight(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *ctr = gt_tfm_new(test, true, 32);
	struct gt_tfm *ecb = gt_tfm_new(test, false, 16);
	const u32 bl = CRYPTO_TFM_REQ_MAY_BACKLOG;
	struct gpu_aes_sqe sqe[8];
	struct gt_req *r[NR], *b[2], *after;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR; i++) {
		r[i] = gt_req_new(test, i & 1 ? ecb : ctr, 512 * (i + 1), bl);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], i & 2), -EINPROGRESS);
	}
	for (i = 0; i < 2; i++) {
		b[i] = gt_req_new(test, ctr, 3333, bl);
		KUNIT_ASSERT_EQ(test, gt_req_start(b[i], false), -EBUSY);
	}
	/* The helper read half of them and wrecked the whole data area. */
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 8), 8);
	memset(h->data, 0xee, h->geo.queue_data_size);

	gpu_aes_ring_detach(&gpu_aes_ring);
	for (i = 0; i < NR; i++)
		gt_req_expect_done(test, r[i]);
	for (i = 0; i < 2; i++)
		gt_req_expect_done(test, b[i]);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED),
			NR + 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
	/* Keys wiped from the region the helper still maps. */
	KUNIT_EXPECT_TRUE(test, gt_all_zero(h->keys,
					    FAKE_HELPER_KEYS * sizeof(*h->keys)));

	/* Completions after detach find nothing to complete. */
	for (i = 0; i < 8; i++)
		fake_helper_post(h, sqe[i].tag, sqe[i].seq, 0);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), -ENXIO);
	for (i = 0; i < NR; i++)
		KUNIT_EXPECT_EQ(test, gt_req_events(r[i]), 1);

	after = gt_req_new(test, ctr, 4096, bl);
	KUNIT_EXPECT_EQ(test, gt_req_start(after, false), 0);
	gt_req_expect_done(test, after);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_NO_HELPER), 1);
}

static void gpu_aes_setkey_lengths(struct kunit *test)
{
	static const unsigned int bad[] = { 0, 1, 8, 15, 17, 20, 23, 25, 31,
					    33, 48, 64 };
	static const unsigned int good[] = { 16, 24, 32 };
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t[2];
	struct gt_req *r;
	u8 key[64] = {};
	unsigned int m, i;

	t[0] = gt_tfm_new(test, false, 16);
	t[1] = gt_tfm_new(test, true, 16);
	for (m = 0; m < 2; m++) {
		for (i = 0; i < ARRAY_SIZE(bad); i++)
			KUNIT_EXPECT_EQ_MSG(test,
					    crypto_skcipher_setkey(t[m]->tfm,
								   key, bad[i]),
					    -EINVAL, "key length %u", bad[i]);
		/* Every AES size on the ring, checked against the NIST-tested
		 * reference.
		 */
		for (i = 0; i < ARRAY_SIZE(good); i++) {
			gt_tfm_rekey(test, t[m], good[i]);
			r = gt_req_new(test, t[m], 1600, GT_BL);
			KUNIT_ASSERT_EQ(test, gt_req_start(r, i & 1),
					-EINPROGRESS);
			gt_helper_complete_all(test, h, 1);
			gt_req_expect_done(test, r);
		}
	}
}

/*
 * A rekey rewrites the same slot with the next generation; freeing the tfm
 * wipes the slot and frees it.
 */
static void gpu_aes_key_slot_lifecycle(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 32);
	struct gpu_aes_tfm_ctx *ctx = crypto_skcipher_ctx(t->tfm);
	struct gpu_aes_sqe sqe;
	struct gt_req *r;
	int slot;

	r = gt_req_new(test, t, 2048, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
	slot = ctx->key.slot;
	KUNIT_ASSERT_GE(test, slot, 0);
	KUNIT_ASSERT_LT(test, slot, (int)FAKE_HELPER_KEYS);
	KUNIT_EXPECT_EQ(test, sqe.key_slot, slot);
	KUNIT_EXPECT_EQ(test, h->keys[slot].key_len, 32);
	KUNIT_EXPECT_MEMEQ(test, h->keys[slot].key, t->key, 32);
	KUNIT_EXPECT_EQ(test, h->keys[slot].gen, sqe.key_gen);
	fake_helper_post(h, sqe.tag, sqe.seq, fake_helper_compute(h, &sqe));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, r);

	gt_tfm_rekey(test, t, 16);
	r = gt_req_new(test, t, 2048, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
	KUNIT_EXPECT_EQ(test, sqe.key_slot, slot);
	KUNIT_EXPECT_EQ(test, h->keys[slot].key_len, 16);
	KUNIT_EXPECT_MEMEQ(test, h->keys[slot].key, t->key, 16);
	KUNIT_EXPECT_EQ(test, sqe.key_gen, 2);
	fake_helper_post(h, sqe.tag, sqe.seq, fake_helper_compute(h, &sqe));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, r);

	gt_tfm_free(test, t);
	KUNIT_EXPECT_TRUE(test, gt_all_zero(&h->keys[slot], sizeof(h->keys[0])));
	KUNIT_EXPECT_FALSE(test, test_bit(slot, gpu_aes_ring.key_map));
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/* ECB needs whole blocks; empty requests complete at once, in both modes. */
static void gpu_aes_request_lengths(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *ecb = gt_tfm_new(test, false, 16);
	struct gt_tfm *ctr = gt_tfm_new(test, true, 16);
	struct gt_stats s;
	struct gt_req *r;

	gt_stats_snap(&s);
	r = gt_req_new(test, ecb, 100, GT_BL);
	KUNIT_EXPECT_EQ(test, crypto_skcipher_encrypt(r->req), -EINVAL);
	KUNIT_EXPECT_EQ(test, crypto_skcipher_decrypt(r->req), -EINVAL);
	skcipher_request_set_crypt(r->req, r->sg, r->sg, 0, NULL);
	KUNIT_EXPECT_EQ(test, crypto_skcipher_encrypt(r->req), 0);
	r = gt_req_new(test, ctr, 16, GT_BL);
	skcipher_request_set_crypt(r->req, r->sg, r->sg, 0, r->iv);
	KUNIT_EXPECT_EQ(test, crypto_skcipher_encrypt(r->req), 0);
	/* A CTR request of one byte still goes through the ring. */
	r = gt_req_new(test, ctr, 1, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, r);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), 1);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_REQUESTS), 0);
}

/* A status reader on a kthread of its own. */
struct gt_status_call {
	struct gpu_aes_ring_status st;
	struct gpu_aes_queue_status qs[1];
	struct completion done;
};

static int gt_status_fn(void *data)
{
	struct gt_status_call *c = data;

	gpu_aes_ring_status(&gpu_aes_ring, &c->st, c->qs, ARRAY_SIZE(c->qs));
	complete(&c->done);
	return 0;
}

/*
 * A status reader (the status files are any user's) holds nothing that
 * detach waits for: with the setup mutex taken, as by a detach under
 * way, a snapshot is still taken, of the ring as it is.  A reader that
 * held the mutex across its walk of the queues, and that a user kept off
 * the CPU there, kept a dying helper in release (D state), and the ring
 * from its next helper, for as long.
 */
static void gpu_aes_status_needs_no_setup_mutex(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gt_status_call *c;
	struct task_struct *k;
	struct gt_req *r[2];
	unsigned int i;
	bool done;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(&c->done);
	for (i = 0; i < 2; i++) {
		r[i] = gt_req_new(test, t, 1024, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	mutex_lock(&gpu_aes_ring.setup_mutex);
	k = kthread_run(gt_status_fn, c, "gt_status");
	if (IS_ERR(k)) {
		mutex_unlock(&gpu_aes_ring.setup_mutex);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(k));
		return;
	}
	done = wait_for_completion_timeout(&c->done, GT_WAIT);
	mutex_unlock(&gpu_aes_ring.setup_mutex);
	/* The reader must be done before its snapshot is freed. */
	if (!done)
		wait_for_completion(&c->done);
	KUNIT_EXPECT_TRUE_MSG(test, done, "the reader waited for the mutex");
	KUNIT_EXPECT_TRUE(test, c->st.attached);
	KUNIT_EXPECT_EQ(test, c->st.nr_queues, 1);
	KUNIT_EXPECT_EQ(test, c->st.queue_entries, NR);
	KUNIT_EXPECT_EQ(test, c->st.total.in_flight, 2);
	KUNIT_EXPECT_EQ(test, c->qs[0].in_flight, 2);
	gt_helper_complete_all(test, h, 2);
	for (i = 0; i < 2; i++)
		gt_req_expect_done(test, r[i]);
}

static struct kunit_case gpu_aes_lifecycle_cases[] = {
	KUNIT_CASE(gpu_aes_detach_in_flight),
	KUNIT_CASE(gpu_aes_status_needs_no_setup_mutex),
	KUNIT_CASE(gpu_aes_setkey_lengths),
	KUNIT_CASE(gpu_aes_key_slot_lifecycle),
	KUNIT_CASE(gpu_aes_request_lengths),
	{}
};

static struct kunit_suite gpu_aes_lifecycle_suite = {
	.name = "gpu_aes_lifecycle",
	.test_cases = gpu_aes_lifecycle_cases,
};

kunit_test_suite(gpu_aes_lifecycle_suite);
