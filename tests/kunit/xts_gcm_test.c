// SPDX-License-Identifier: GPL-2.0-only
/*
 * xts-aes-gpu and gcm-aes-gpu through the ring: the request and key rules
 * of each, exact bytes against aes_ref.c / lib/crypto/aesgcm.c, the GCM
 * tag verdict (-EBADMSG, nothing released, counted once), EBADMSG on any
 * other tag rejected, the GCM data layout and its space accounting with
 * wrap-around, detach and backlog with AEAD requests, and the
 * per-algorithm counters.
 */
#include <crypto/aead.h>
#include <crypto/gcm.h>
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "aes_ref.h"
#include "fake_helper.h"
#include "ring.h"
#include "skcipher.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES

/* ---- XTS ---- */

/* Set @t's key to @klen bytes whose two halves are equal. */
static int gt_xts_set_equal_halves(struct kunit *test, struct gt_tfm *t,
				   unsigned int klen)
{
	unsigned int half = klen / 2;

	get_random_bytes(t->key, half);
	memcpy(t->key + half, t->key, half);
	t->klen = klen;
	KUNIT_EXPECT_EQ(test, aes_expandkey(&t->aes, t->key, half), 0);
	KUNIT_EXPECT_EQ(test, aes_expandkey(&t->tweak, t->key, half), 0);
	return crypto_skcipher_setkey(t->tfm, t->key, klen);
}

static void gpu_aes_xts_bad_lengths(struct kunit *test)
{
	static const unsigned int bad_keys[] = {
		0, 1, 16, 24, 31, 33, 40, 47, 56, 63, 65, 80, 96,
	};
	static const unsigned int bad_lens[] = { 0, 1, 15 };
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new_xts(test, 64);
	u8 key[128] = {};
	struct gt_stats s;
	struct gt_req *r;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < ARRAY_SIZE(bad_keys); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    crypto_skcipher_setkey(t->tfm, key,
							   bad_keys[i]),
				    -EINVAL, "key length %u", bad_keys[i]);
	gt_tfm_rekey(test, t, 48);
	for (i = 0; i < 2 * ARRAY_SIZE(bad_lens); i++) {
		r = gt_req_new(test, t, bad_lens[i / 2] ?: 1, GT_BL);
		/* A zero-length request over a one-byte list. */
		r->req->cryptlen = bad_lens[i / 2];
		KUNIT_EXPECT_EQ(test, gt_req_start(r, i & 1), -EINVAL);
		KUNIT_EXPECT_EQ(test, gt_req_events(r), 0);
	}
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), 0);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_REQUESTS), 0);
	KUNIT_EXPECT_EQ(test, fake_helper_pending(h), 0);
}

static void gpu_aes_xts_weak_keys(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *t = gt_tfm_new_xts(test, 32);
	struct gpu_aes_tfm_ctx *ctx = crypto_skcipher_ctx(t->tfm);
	const struct gpu_aes_key *k;
	struct gt_req *r;

	/* Accepted as a non-FIPS kernel's xts template accepts it. */
	KUNIT_ASSERT_EQ(test, gt_xts_set_equal_halves(test, t, 32), 0);
	r = gt_req_new(test, t, 1000, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, r);
	k = &h->keys[ctx->key.slot];
	KUNIT_EXPECT_EQ(test, k->key_len, 16);
	KUNIT_EXPECT_EQ(test, k->tweak_len, 16);
	KUNIT_EXPECT_MEMEQ(test, k->key, t->key, 32);
	KUNIT_EXPECT_MEMEQ(test, k->key + 16, k->key, 16);

	crypto_skcipher_set_flags(t->tfm, CRYPTO_TFM_REQ_FORBID_WEAK_KEYS);
	KUNIT_EXPECT_EQ(test, gt_xts_set_equal_halves(test, t, 32), -EINVAL);
	KUNIT_EXPECT_EQ(test, gt_xts_set_equal_halves(test, t, 48), -EINVAL);
	KUNIT_EXPECT_EQ(test, gt_xts_set_equal_halves(test, t, 64), -EINVAL);
	/* Unequal halves are still fine with the flag. */
	gt_tfm_rekey(test, t, 64);
}

/* Every key size, whole blocks and ciphertext stealing, both directions. */
static void gpu_aes_xts_through_ring(struct kunit *test)
{
	static const unsigned int lens[] = {
		16, 17, 31, 32, 33, 47, 512, 4096, 4111, 65536 + 15,
	};
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_req *r[2 * ARRAY_SIZE(lens)];
	struct gpu_aes_tfm_ctx *ctx;
	const struct gpu_aes_key *k;
	unsigned int klen, i, n = 0;
	struct gt_stats s;
	struct gt_tfm *t;

	gt_stats_snap(&s);
	for (klen = 32; klen <= 64; klen += 16) {
		t = gt_tfm_new_xts(test, klen);
		for (i = 0; i < 2 * ARRAY_SIZE(lens); i++) {
			r[i] = gt_req_new(test, t, lens[i / 2], GT_BL);
			KUNIT_ASSERT_EQ(test, gt_req_start(r[i], i & 1),
					-EINPROGRESS);
			if (i % NR == NR - 1)
				gt_helper_complete_all(test, h, NR);
		}
		gt_helper_complete_all(test, h, i % NR);
		/* gt_req_expect_done() also checks the IV came back unchanged. */
		for (i = 0; i < 2 * ARRAY_SIZE(lens); i++)
			gt_req_expect_done(test, r[i]);
		n += i;
		ctx = crypto_skcipher_ctx(t->tfm);
		k = &h->keys[ctx->key.slot];
		KUNIT_EXPECT_EQ(test, k->key_len, klen / 2);
		KUNIT_EXPECT_EQ(test, k->tweak_len, klen / 2);
		KUNIT_EXPECT_MEMEQ(test, k->key, t->key, klen);
	}
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), n);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_XTS)), n);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_ECB)), 0);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_CTR)), 0);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_GCM)), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
}

/* ---- GCM ---- */

static void gpu_aes_gcm_rules(struct kunit *test)
{
	static const unsigned int bad_auth[] = {
		0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17, 32,
	};
	static const unsigned int bad_keys[] = { 0, 1, 15, 17, 20, 31, 33, 64 };
	struct gt_aead *a;
	struct gt_areq *r;
	struct gt_stats s;
	unsigned int i;
	u8 key[64] = {};

	gt_ring_setup(test, NR);
	a = gt_aead_new(test, 16, 16);
	for (i = 0; i < ARRAY_SIZE(bad_auth); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    crypto_aead_setauthsize(a->tfm,
							    bad_auth[i]),
				    -EINVAL, "authsize %u", bad_auth[i]);
	for (i = 0; i < ARRAY_SIZE(bad_keys); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    crypto_aead_setkey(a->tfm, key,
						       bad_keys[i]),
				    -EINVAL, "key length %u", bad_keys[i]);
	for (i = 4; i <= 16; i++)
		KUNIT_EXPECT_EQ(test, crypto_aead_setauthsize(a->tfm, i),
				i == 4 || i == 8 || i >= 12 ? 0 : -EINVAL);
	a->authsize = 16;
	gt_aead_rekey(test, a, 32);

	/* Decryption shorter than the tag: -EINVAL, nothing written. */
	gt_stats_snap(&s);
	r = gt_areq_new(test, a, 20, 0, true, GT_BL);
	aead_request_set_crypt(r->req, r->src, r->dst, 15, r->iv);
	KUNIT_EXPECT_EQ(test, gt_areq_start(r), -EINVAL);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(r->out, GT_POISON, r->total));
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), 0);
}

/* Every key size and tag length, text and AAD lengths down to zero. */
static void gpu_aes_gcm_through_ring(struct kunit *test)
{
	static const unsigned int auth[] = { 4, 8, 12, 13, 16 };
	static const struct { unsigned int aad, len; } shape[] = {
		{ 0, 1 }, { 20, 0 }, { 16, 16 }, { 13, 17 }, { 0, 4096 },
		{ 1000, 3000 }, { 8, 65536 + 3 },
	};
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_areq *r[2 * ARRAY_SIZE(shape)];
	unsigned int i, j, n = 0;
	struct gt_stats s;
	struct gt_aead *a;

	gt_stats_snap(&s);
	for (j = 0; j < ARRAY_SIZE(auth); j++) {
		a = gt_aead_new(test, 16 + 8 * (j % 3), auth[j]);
		for (i = 0; i < 2 * ARRAY_SIZE(shape); i++) {
			r[i] = gt_areq_new(test, a, shape[i / 2].aad,
					   shape[i / 2].len, i & 1, GT_BL);
			KUNIT_ASSERT_EQ(test, gt_areq_start(r[i]),
					-EINPROGRESS);
		}
		gt_helper_complete_all(test, h, i);
		for (i = 0; i < 2 * ARRAY_SIZE(shape); i++)
			gt_areq_expect(test, r[i], 0);
		n += i;
	}
	/* Nothing at all to weigh: the CPU, unless ring_min_bytes is 0. */
	r[0] = gt_areq_new(test, a, 0, 0, false, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_areq_start(r[0]), 0);
	gt_areq_expect(test, r[0], 0);
	gt_set_ring_min_bytes(test, 0);
	r[0] = gt_areq_new(test, a, 0, 0, true, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_areq_start(r[0]), -EINPROGRESS);
	gt_helper_complete_all(test, h, 1);
	gt_areq_expect(test, r[0], 0);
	n++;

	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RING_REQUESTS), n);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_GCM)), n);
	KUNIT_EXPECT_EQ(test,
			gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_XTS)), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_SMALL),
			1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES),
			0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
}

/* A forged tag, AAD or ciphertext: -EBADMSG, nothing released, counted. */
static void gpu_aes_gcm_forgery(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_aead *a = gt_aead_new(test, 32, 16);
	struct gt_areq *r;
	struct gt_stats s;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		r = gt_areq_new(test, a, 32, 1000, true, GT_BL);
		switch (i) {
		case 0:		/* the tag */
			r->in[32 + 1000 + 15] ^= 1;
			break;
		case 1:		/* the AAD */
			r->in[0] ^= 0x80;
			break;
		case 2:		/* the ciphertext */
			r->in[32 + 999] ^= 4;
			break;
		default:	/* all fine: the control */
			break;
		}
		gt_stats_snap(&s);
		KUNIT_ASSERT_EQ(test, gt_areq_start(r), -EINPROGRESS);
		gt_helper_complete_all(test, h, 1);
		gt_areq_expect(test, r, i < 3 ? -EBADMSG : 0);
		KUNIT_EXPECT_EQ(test,
				gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES),
				i < 3 ? 1 : 0);
		KUNIT_EXPECT_EQ(test,
				gt_stats_delta(&s, GPU_AES_STAT_HELPER_ERRORS),
				0);
		KUNIT_EXPECT_EQ(test,
				gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
		KUNIT_EXPECT_EQ(test,
				gt_stats_delta(&s,
					       GPU_AES_STAT_REJECTED_COMPLETIONS),
				0);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&h->auth_fails), 3);
}

/*
 * EBADMSG from the helper on anything but a GCM decryption is garbage:
 * rejected and counted, the request stays in flight until its deadline
 * and is then recomputed on the CPU, correctly.
 */
static void gpu_aes_ebadmsg_elsewhere_rejected(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_tfm *ecb = gt_tfm_new(test, false, 16);
	struct gt_tfm *ctr = gt_tfm_new(test, true, 24);
	struct gt_tfm *xts = gt_tfm_new_xts(test, 64);
	struct gt_aead *a = gt_aead_new(test, 32, 12);
	struct gpu_aes_sqe sqe[4];
	struct gt_req *r[3];
	struct gt_areq *g;
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	gt_set_timeout_ms(test, 10);
	r[0] = gt_req_new(test, ecb, 1024, GT_BL);
	r[1] = gt_req_new(test, ctr, 1000, GT_BL);
	r[2] = gt_req_new(test, xts, 1001, GT_BL);
	g = gt_areq_new(test, a, 24, 999, false, GT_BL);
	/* No expiry until every bogus verdict has been judged. */
	mutex_lock(&GT_Q0->scan_mutex);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, gt_req_start(r[i], i == 2), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, gt_areq_start(g), -EINPROGRESS);
	KUNIT_EXPECT_EQ(test, fake_helper_fetch(h, sqe, 4), 4);
	for (i = 0; i < 4; i++) {
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 GPU_AES_STATUS_EBADMSG);
		fake_helper_publish(h);
		KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 0);
		KUNIT_EXPECT_EQ(test,
				gt_stats_delta(&s,
					       GPU_AES_STAT_REJECTED_COMPLETIONS),
				i + 1);
	}
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, gt_req_events(r[i]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&g->nr_events), 0);
	KUNIT_EXPECT_EQ(test, gpu_aes_queue_in_flight(GT_Q0), 4);
	mutex_unlock(&GT_Q0->scan_mutex);

	for (i = 0; i < 3; i++)
		gt_req_expect_done(test, r[i]);
	gt_areq_expect(test, g, 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 4);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 4);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES),
			0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_ECB)),
			1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_CTR)),
			1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_XTS)),
			1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_GCM)),
			1);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * GCM takes ALIGN(ALIGN(len, 16) + 16 + aad_len, 64) bytes of the data
 * area, never wraps inside a request, and the quarter-area limit applies
 * to that span, not to text + AAD.
 */
static void gpu_aes_gcm_space(struct kunit *test)
{
	const unsigned int len = 180000, aad = 3000;
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_aead *a = gt_aead_new(test, 24, 16);
	u64 span = ALIGN(ALIGN(len, 16) + 16 + aad, GPU_AES_DATA_ALIGN);
	u64 size = h->geo.queue_data_size, head;
	struct gpu_aes_sqe sqe;
	struct gt_areq *r[5], *x;
	struct gt_stats s;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, span, 183040);
	gt_stats_snap(&s);
	/* Exactly a quarter of text + AAD, but a span beyond it. */
	x = gt_areq_new(test, a, 16, size / 4 - 16, false, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_areq_start(x), 0);
	gt_areq_expect(test, x, 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_FALLBACK_LARGE),
			1);

	for (i = 0; i < 5; i++) {
		r[i] = gt_areq_new(test, a, aad, len, i & 1, GT_BL);
		KUNIT_ASSERT_EQ(test, gt_areq_start(r[i]), -EINPROGRESS);
	}
	KUNIT_EXPECT_EQ(test, GT_Q0->data_head, 5 * span);
	/* The sixth does not fit before the end, nor after it yet: it waits. */
	x = gt_areq_new(test, a, aad, len, true, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_areq_start(x), -EBUSY);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 1);
	head = GT_Q0->data_head;
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
		KUNIT_EXPECT_EQ(test, sqe.data_off, i * span);
		KUNIT_EXPECT_EQ(test, sqe.len, len);
		KUNIT_EXPECT_EQ(test, sqe.aad_len, aad);
		KUNIT_EXPECT_EQ(test, sqe.auth_len, 16);
		fake_helper_post(h, sqe.tag, sqe.seq,
				 fake_helper_compute(h, &sqe));
	}
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 5);
	for (i = 0; i < 5; i++)
		gt_areq_expect(test, r[i], 0);

	/*
	 * Admitted by that reap, it wraps: the tail of the area is skipped,
	 * not split.
	 */
	KUNIT_EXPECT_EQ(test, GT_Q0->data_head,
			head + (size - head % size) + span);
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, &sqe, 1), 1);
	KUNIT_EXPECT_EQ(test, sqe.data_off, 0);
	/* Text, then the received tag, then the AAD, where the ABI says. */
	GT_EXPECT_BYTES(test, h->data, x->in + aad, len);
	GT_EXPECT_BYTES(test, h->data + gpu_aes_gcm_tag_off(0, len),
			x->in + aad + len, 16);
	GT_EXPECT_BYTES(test, h->data + gpu_aes_gcm_aad_off(0, len), x->in,
			aad);
	fake_helper_post(h, sqe.tag, sqe.seq, fake_helper_compute(h, &sqe));
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 1);
	gt_areq_expect(test, x, 0);
	KUNIT_EXPECT_EQ(test, GT_Q0->data_tail, GT_Q0->data_head);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/* Detach with AEAD requests in flight and backlogged, forgeries among them. */
static void gpu_aes_gcm_detach(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_aead *a = gt_aead_new(test, 16, 8);
	const u32 bl = CRYPTO_TFM_REQ_MAY_BACKLOG;
	struct gt_areq *r[NR + 2];
	struct gpu_aes_sqe sqe[8];
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR + 2; i++) {
		r[i] = gt_areq_new(test, a, 7 * i, 300 + 50 * i, i & 1, bl);
		if (i % 4 == 3) {	/* decryptions with a forged tag */
			r[i]->in[7 * i + 300 + 50 * i] ^= 0x10;
			/* Replayed on the CPU: see untouched_on_error. */
			r[i]->untouched_on_error = false;
		}
		KUNIT_ASSERT_EQ(test, gt_areq_start(r[i]),
				i < NR ? -EINPROGRESS : -EBUSY);
	}
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 8), 8);
	memset(h->data, 0xee, h->geo.queue_data_size);

	gpu_aes_ring_detach(&gpu_aes_ring);
	for (i = 0; i < NR + 2; i++)
		gt_areq_expect(test, r[i], i % 4 == 3 ? -EBADMSG : 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED),
			NR + 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_AUTH_FAILURES),
			(NR + 2) / 4);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_GCM)),
			NR);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
}

/* MAY_BACKLOG with AEAD: -EBUSY, -EINPROGRESS, then the ring's result. */
static void gpu_aes_gcm_backlog(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, NR);
	struct gt_aead *a = gt_aead_new(test, 32, 16);
	const u32 bl = CRYPTO_TFM_REQ_MAY_BACKLOG;
	struct gt_areq *r[NR], *b[2];
	struct gpu_aes_sqe sqe[2];
	struct gt_stats s;
	unsigned int i;

	gt_stats_snap(&s);
	for (i = 0; i < NR; i++) {
		r[i] = gt_areq_new(test, a, 16, 1024 + i, i & 1, bl);
		KUNIT_ASSERT_EQ(test, gt_areq_start(r[i]), -EINPROGRESS);
	}
	for (i = 0; i < 2; i++) {
		b[i] = gt_areq_new(test, a, 33, 2000 + i, !i, bl);
		KUNIT_ASSERT_EQ(test, gt_areq_start(b[i]), -EBUSY);
	}
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_BACKLOGGED), 2);
	gt_helper_complete_all(test, h, NR);
	for (i = 0; i < NR; i++)
		gt_areq_expect(test, r[i], 0);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&b[i]->nr_events), 1);
		KUNIT_EXPECT_EQ(test, b[i]->events[0], -EINPROGRESS);
	}
	KUNIT_ASSERT_EQ(test, fake_helper_fetch(h, sqe, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, sqe[i].len, b[i]->len);
		KUNIT_EXPECT_EQ(test, sqe[i].aad_len, 33);
		fake_helper_post(h, sqe[i].tag, sqe[i].seq,
				 fake_helper_compute(h, &sqe[i]));
	}
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), 2);
	for (i = 0; i < 2; i++)
		gt_areq_expect(test, b[i], 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GT_RING_STAT(GPU_AES_ALG_GCM)),
			NR + 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_RECOMPUTED), 0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, GPU_AES_STAT_TIMEOUTS), 0);
}

static struct kunit_case gpu_aes_xts_gcm_cases[] = {
	KUNIT_CASE(gpu_aes_xts_bad_lengths),
	KUNIT_CASE(gpu_aes_xts_weak_keys),
	KUNIT_CASE(gpu_aes_xts_through_ring),
	KUNIT_CASE(gpu_aes_gcm_rules),
	KUNIT_CASE(gpu_aes_gcm_through_ring),
	KUNIT_CASE(gpu_aes_gcm_forgery),
	KUNIT_CASE(gpu_aes_ebadmsg_elsewhere_rejected),
	KUNIT_CASE(gpu_aes_gcm_space),
	KUNIT_CASE(gpu_aes_gcm_detach),
	KUNIT_CASE(gpu_aes_gcm_backlog),
	{}
};

static struct kunit_suite gpu_aes_xts_gcm_suite = {
	.name = "gpu_aes_xts_gcm",
	.test_cases = gpu_aes_xts_gcm_cases,
};

kunit_test_suite(gpu_aes_xts_gcm_suite);
