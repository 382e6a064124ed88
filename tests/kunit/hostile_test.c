// SPDX-License-Identifier: GPL-2.0-only
/*
 * The helper is untrusted.  Completions with unknown tags, tags of free
 * slots, stale or future seqs, duplicates and undefined
 * statuses are each rejected and counted and complete nothing; an
 * impossible cq_tail rejects the batch; error statuses make the kernel
 * recompute on the CPU; garbage in the kernel-written parts of the region
 * is never read back.  Under KASAN (vmalloc region, kvcalloc tag table) any
 * access outside our slots is a report, which scripts/kunit fails on.
 */
#include <crypto/aes.h>
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/scatterlist.h>

#include "fake_helper.h"
#include "ring.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES

struct gt_bad_cqe {
	u32 tag;
	u32 seq;
	s32 status;
};

/*
 * Tags 0 and 1 are in flight with seq GT_SEQ(1, 0); tag 5 is free with
 * seq GT_SEQ(0, 0) (queue 0's seqs: ring.h).
 */
static const struct gt_bad_cqe gt_bad_cqes[] = {
	{ NR, GT_SEQ(1, 0), 0 },		/* out of range */
	{ NR + 1, 0, 0 },
	{ U32_MAX, GT_SEQ(1, 0), 0 },
	{ 0x80000000, GT_SEQ(1, 0), 0 },
	{ 5, GT_SEQ(0, 0), 0 },			/* free slot, matching seq */
	{ 5, GT_SEQ(1, 0), 0 },			/* free slot */
	{ 0, GT_SEQ(0, 0), 0 },			/* stale seq */
	{ 0, GT_SEQ(2, 0), 0 },			/* future seq */
	{ 0, GT_SEQ(1, 1), 0 },			/* another queue's seq */
	{ 1, U32_MAX, 0 },
	{ 0, GT_SEQ(1, 0), 1 },			/* undefined statuses */
	{ 0, GT_SEQ(1, 0), -1 },
	{ 1, GT_SEQ(1, 0), -11 },		/* -EAGAIN is not in the ABI */
	{ 1, GT_SEQ(1, 0), S32_MIN },
	{ 1, GT_SEQ(1, 0), S32_MAX },
	{ 0, GT_SEQ(1, 0), GPU_AES_STATUS_EBADMSG },	/* CTR is no GCM decryption */
};

static void gpu_aes_hostile_rejected_one_by_one(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gpu_aes_sqe sqe[2];
	struct gt_req *r[2];
	struct gt_stats s;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		r[i] = gt_req_new(test, t, 2048, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false), -EINPROGRESS);
	}
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test, fake_helper_compute(h, &sqe[i]), 0);

	gt_stats_snap(&s);
	for (i = 0; i < ARRAY_SIZE(gt_bad_cqes); i++) {
		fake_helper_post(h, gt_bad_cqes[i].tag, gt_bad_cqes[i].seq,
				 gt_bad_cqes[i].status);
		fake_helper_publish(h);
		KUNIT_EXPECT_EQ_MSG(test, fake_helper_reap(h), 0, "cqe %u", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
				    i + 1, "cqe %u", i);
	}
	KUNIT_EXPECT_EQ(test, gt_req_events(r[0]), 0);
	KUNIT_EXPECT_EQ(test, gt_req_events(r[1]), 0);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_HELPER_ERRORS), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);

	/* The real ones, with a duplicate inside the same batch. */
	fake_helper_post(h, 0, GT_SEQ(1, 0), 0);
	fake_helper_post(h, 0, GT_SEQ(1, 0), 0);
	fake_helper_post(h, 1, GT_SEQ(1, 0), 0);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 2);
	gt_req_expect_done(test, r[0]);
	gt_req_expect_done(test, r[1]);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			ARRAY_SIZE(gt_bad_cqes) + 1);

	/* And again, after the tags were freed. */
	fake_helper_post(h, 0, GT_SEQ(1, 0), 0);
	fake_helper_post(h, 1, GT_SEQ(1, 0), 0);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			ARRAY_SIZE(gt_bad_cqes) + 3);
	KUNIT_EXPECT_EQ(test, gt_req_events(r[0]), 1);
	KUNIT_EXPECT_EQ(test, gt_req_events(r[1]), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_LATE_COMPLETIONS),
			0);
	KUNIT_EXPECT_EQ(test, h->qhdr->cq_head, h->q[0].cq_tail);
}

/* A cq_tail more than a ring ahead: the batch is refused, nothing moves. */
static void gpu_aes_hostile_cq_tail(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	static const u32 bad_tails[] = { NR + 1, 2 * NR, U32_MAX / 2 };
	struct gt_req *r;
	struct gpu_aes_sqe sqe;
	struct gt_stats s;
	unsigned int i;

	r = gt_req_new(test, t, 1111, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
	fake_helper_post(h, sqe.tag, sqe.seq, fake_helper_compute(h, &sqe));

	gt_stats_snap(&s);
	for (i = 0; i < ARRAY_SIZE(bad_tails); i++) {
		fake_helper_publish_tail(h, bad_tails[i]);
		KUNIT_EXPECT_EQ(test, fake_helper_reap(h), -EINVAL);
		KUNIT_EXPECT_EQ(test, GT_Q0->cq_head, 0);
	}
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			ARRAY_SIZE(bad_tails));
	KUNIT_EXPECT_EQ(test, gt_req_events(r), 0);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_req_expect_done(test, r);
}

/* EIO and EINVAL (and garbage bytes with them): recomputed on the CPU. */
static void gpu_aes_hostile_error_status(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, false, 32);
	struct gpu_aes_sqe sqe[2];
	struct gt_req *r[2];
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < 2; i++) {
		r[i] = gt_req_new(test, t, 4096, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_req_start(r[i], i), -EINPROGRESS);
	}
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	memset(h->data + sqe[0].data_off, 0xee, sqe[0].len);
	fake_helper_post(h, sqe[0].tag, sqe[0].seq, GPU_AES_STATUS_EIO);
	fake_helper_post(h, sqe[1].tag, sqe[1].seq, GPU_AES_STATUS_EINVAL);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 2);
	gt_req_expect_done(test, r[0]);
	gt_req_expect_done(test, r[1]);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_HELPER_ERRORS), 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 2);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			0);
}

/*
 * The helper overwrites everything the kernel wrote (header constants and
 * indices, SQ entries): the kernel keeps private copies and never reads
 * them back, so the next requests still go right.
 */
static void gpu_aes_hostile_scribbled_region(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 24);
	struct gpu_aes_region_hdr *hdr = h->hdr;
	struct gt_req *r[3];
	unsigned int round, i;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < 3; i++) {
			r[i] = gt_req_new(test, t, 1000 + 500 * i, GT_BL);
			KUNIT_ASSERT_EQ(test, gt_req_start(r[i], false),
					-EINPROGRESS);
		}
		gt_helper_complete_all(test, h, 3);
		for (i = 0; i < 3; i++)
			gt_req_expect_done(test, r[i]);

		hdr->magic = U32_MAX;
		hdr->nr_queues = U32_MAX;
		hdr->queue_entries = U32_MAX;
		hdr->nr_keys = U32_MAX;
		hdr->page_size = U32_MAX;
		hdr->region_size = U64_MAX;
		hdr->queues_off = U64_MAX;
		hdr->queue_stride = U64_MAX;
		hdr->keys_off = U64_MAX;
		hdr->data_off = U64_MAX;
		hdr->queue_data_size = U64_MAX;
		h->qhdr->sq_tail = U32_MAX / 5;
		h->qhdr->cq_head = U32_MAX / 3;
		memset(h->sq, 0xff, NR * sizeof(*h->sq));
	}
	KUNIT_EXPECT_EQ(test, gpu_aes_ring.queue_entries, NR);
	KUNIT_EXPECT_EQ(test, gpu_aes_ring.queue_data_size, FAKE_HELPER_DATA);
}

/*
 * What the claiming hook makes a reaper see at its acquire of @t's state:
 * the stores of @t's post, which a weakly ordered CPU may show it no
 * earlier.
 */
static struct {
	struct gpu_aes_tag *t;
	u32 seq;
	u8 alg;
	u8 dir;
	int calls;
} gt_post_stores;

static void gt_post_stores_land(struct gpu_aes_ring *ring,
				struct gpu_aes_tag *t)
{
	if (t != gt_post_stores.t)
		return;
	gt_post_stores.calls++;
	t->seq = gt_post_stores.seq;
	t->alg = gt_post_stores.alg;
	t->dir = gt_post_stores.dir;
}

static void gt_claiming_remove(void *data)
{
	WRITE_ONCE(gpu_aes_ring.claiming, NULL);
}

/*
 * A reaper judges a completion by the tag's seq, alg and dir as its post
 * published them: read after the tag's state (acquire), never before,
 * where a weakly ordered CPU (arm64) could show it a previous use's
 * beside this use's IN_FLIGHT.  UML is not weakly ordered, so the test
 * shows the reaper such a view: the tag holds a previous use's fields
 * until the reaper acquires its state, when the claiming hook writes
 * this use's back.  A reaper that read them before its acquire would
 * accept EBADMSG for a CTR request (a previous GCM decryption's alg and
 * dir) and reject a valid completion (a previous seq).
 */
static void gpu_aes_hostile_claim_reads_after_state(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gpu_aes_sqe sqe;
	struct gpu_aes_tag *tag;
	struct gt_req *r;
	struct gt_stats s;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							gt_claiming_remove,
							NULL), 0);
	r = gt_req_new(test, t, 2048, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
	KUNIT_ASSERT_EQ(test, fake_helper_compute(h, &sqe), 0);
	tag = &GT_Q0->tags[sqe.tag];
	KUNIT_ASSERT_EQ(test, tag->alg, GPU_AES_ALG_CTR);
	gt_post_stores.t = tag;
	gt_post_stores.seq = tag->seq;
	gt_post_stores.alg = tag->alg;
	gt_post_stores.dir = tag->dir;
	gt_post_stores.calls = 0;
	WRITE_ONCE(gpu_aes_ring.claiming, gt_post_stores_land);
	gt_stats_snap(&s);

	/* A previous GCM decryption's alg and dir: EBADMSG is garbage. */
	tag->alg = GPU_AES_ALG_GCM;
	tag->dir = GPU_AES_DIR_DECRYPT;
	fake_helper_post(h, sqe.tag, sqe.seq, GPU_AES_STATUS_EBADMSG);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
	KUNIT_EXPECT_EQ(test, gt_post_stores.calls, 1);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES),
			0);
	KUNIT_EXPECT_EQ(test, gt_req_events(r), 0);

	/* A previous use's seq: this use's completion is still accepted. */
	tag->seq = sqe.seq - GT_SEQ(1, 0);
	fake_helper_post(h, sqe.tag, sqe.seq, 0);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	KUNIT_EXPECT_EQ(test, gt_post_stores.calls, 2);
	gt_req_expect_done(test, r);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_REJECTED_COMPLETIONS),
			1);
}

/*
 * A CBC encryption's output IV is the last block the caller got in dst,
 * read from the slot once: a helper's store into the slot's last block
 * once copy-out has begun must not make them differ.  Here the caller's
 * destination ends on the slot's last block itself (its last 8 bytes are
 * the slot's bytes 48 to 55 of 64), so copy-out's own last store plays
 * that helper store, landing after the block was read for dst.  Read
 * again for the IV, the block would no longer be the one dst got.
 */
static void gpu_aes_hostile_cbc_iv_read_once(struct kunit *test)
{
	enum { LEN = 64, TAIL = 8 };
	struct gpu_aes_job job = {};
	struct scatterlist sg[2];
	u8 *slot, *dst, *want;
	u8 iv[AES_BLOCK_SIZE];
	unsigned int i;

	slot = kunit_kmalloc(test, LEN, GFP_KERNEL);
	dst = kunit_kzalloc(test, LEN, GFP_KERNEL);
	want = kunit_kmalloc(test, LEN, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, slot && dst && want);
	/* No two bytes alike: a block read twice shows. */
	for (i = 0; i < LEN; i++)
		slot[i] = i * 7 + 1;
	memcpy(want, slot, LEN);
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], dst, LEN - TAIL);
	sg_set_buf(&sg[1], slot + LEN - AES_BLOCK_SIZE, TAIL);
	job.desc = gpu_aes_alg_desc(GPU_AES_ALG_CBC);
	KUNIT_ASSERT_NOT_NULL(test, job.desc);
	job.dir = GPU_AES_DIR_ENCRYPT;
	job.dst = sg;
	job.iv = iv;
	job.len = LEN;

	gpu_aes_sk_copy_out(&job, slot);
	GT_EXPECT_BYTES(test, dst, want, LEN - TAIL);
	GT_EXPECT_BYTES(test, slot + LEN - AES_BLOCK_SIZE, want + LEN - TAIL,
			TAIL);
	/* The last block the caller got, as the slot held it. */
	GT_EXPECT_BYTES(test, iv, want + LEN - AES_BLOCK_SIZE, AES_BLOCK_SIZE);
}

static struct kunit_case gpu_aes_hostile_cases[] = {
	KUNIT_CASE(gpu_aes_hostile_rejected_one_by_one),
	KUNIT_CASE(gpu_aes_hostile_cq_tail),
	KUNIT_CASE(gpu_aes_hostile_error_status),
	KUNIT_CASE(gpu_aes_hostile_scribbled_region),
	KUNIT_CASE(gpu_aes_hostile_claim_reads_after_state),
	KUNIT_CASE(gpu_aes_hostile_cbc_iv_read_once),
	{}
};

static struct kunit_suite gpu_aes_hostile_suite = {
	.name = "gpu_aes_hostile",
	.test_cases = gpu_aes_hostile_cases,
};

kunit_test_suite(gpu_aes_hostile_suite);
