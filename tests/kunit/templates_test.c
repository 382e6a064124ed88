// SPDX-License-Identifier: GPL-2.0-only
/*
 * Templates the kernel builds over our drivers whenever ecb-, ctr- or
 * gcm-aes-gpu is the best inner algorithm (found on Debian 6.1 and 6.12
 * with AES-NI by tests/vm/templates.sh; the same here on UML): ccm(aes)
 * and rfc4309(ccm(aes)) over ctr-aes-gpu, rfc3686(ctr(aes)) over
 * ctr-aes-gpu, lrw(aes) over ecb-aes-gpu, rfc4543(gcm(aes)) over
 * gcm-aes-gpu.  Each is instantiated with the automatic fake helper
 * attached and every length on the ring, so testmgr (EXTRA_TESTS: with
 * its fuzzer against the generic instance) runs its requests through the
 * ring; then, against the generic instance reached by driver name:
 *  - a ring full of MAY_BACKLOG requests: each top-level caller hears
 *    -EBUSY, then -EINPROGRESS, then its result, through the template;
 *  - requests without MAY_BACKLOG: answered before the call returns,
 *    nothing on the ring;
 *  - no helper: the CPU, before the call returns.
 * Every request's bytes match the generic instance; the ring counters move
 * by exactly one inner request per template request.
 */
#include <crypto/aead.h>
#include <crypto/skcipher.h>
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/scatterlist.h>

#include "fake_helper.h"
#include "ring.h"
#include "test_util.h"

#define NR	FAKE_HELPER_ENTRIES
#define GT_T_MAX_EVENTS	4
/* How far counter @x moved since the snapshot s. */
#define DELTA(x)	gt_stats_delta(&s, GPU_AES_STAT_##x)

/**
 * struct gt_tmpl - one template instance over one of our drivers.
 * @name: what a user asks for.
 * @ours: our driver the instance is built on (part of its driver name).
 * @ring_stat: the per-algorithm ring counter its inner requests move.
 * @ref: the generic instance, by driver name.
 * @aead: an AEAD (else an skcipher).
 * @klen: key bytes (with the template's nonce or tweak key).
 * @ivlen: IV bytes.
 * @iv0: first IV byte (ccm's L'), or -1 for a random one.
 * @assoclen: associated data bytes (AEAD).
 * @authsize: tag bytes (AEAD).
 * @len: text bytes per request.
 */
struct gt_tmpl {
	const char *name;
	const char *ours;
	enum gpu_aes_stat ring_stat;
	const char *ref;
	bool aead;
	unsigned int klen, ivlen;
	int iv0;
	unsigned int assoclen, authsize, len;
};

static const struct gt_tmpl gt_tmpls[] = {
	{ "ccm(aes)", "ctr-aes-gpu", GT_RING_STAT(GPU_AES_ALG_CTR),
	  "ccm_base(ctr(aes-generic),cbcmac(aes-generic))",
	  true, 16, 16, 3, 20, 8, 1000 },
	{ "rfc4309(ccm(aes))", "ctr-aes-gpu", GT_RING_STAT(GPU_AES_ALG_CTR),
	  "rfc4309(ccm_base(ctr(aes-generic),cbcmac(aes-generic)))",
	  true, 19, 8, -1, 16, 16, 777 },
	{ "rfc4543(gcm(aes))", "gcm-aes-gpu", GT_RING_STAT(GPU_AES_ALG_GCM),
	  "rfc4543(gcm_base(ctr(aes-generic),ghash-generic))",
	  true, 20, 8, -1, 20, 16, 600 },
	{ "rfc3686(ctr(aes))", "ctr-aes-gpu", GT_RING_STAT(GPU_AES_ALG_CTR),
	  "rfc3686(ctr(aes-generic))", false, 20, 8, -1, 0, 0, 1001 },
	{ "lrw(aes)", "ecb-aes-gpu", GT_RING_STAT(GPU_AES_ALG_ECB),
	  "lrw(ecb(aes-generic))", false, 32, 16, -1, 0, 0, 1024 },
};

/* A tfm of either type, as the template's users and the reference hold it. */
struct gt_ttfm {
	const struct gt_tmpl *c;
	struct crypto_aead *aead;
	struct crypto_skcipher *sk;
};

struct gt_treq {
	struct gt_ttfm *t;
	struct aead_request *areq;
	struct skcipher_request *sreq;
	struct scatterlist sg;
	u8 *buf;		/* in place: input, then output */
	u8 iv[16];
	unsigned int inlen, outlen;
	int ret;
	struct completion done;
	int events[GT_T_MAX_EVENTS];
	atomic_t nr_events;
};

static void gt_t_free_aead(void *p)
{
	crypto_free_aead(p);
}

static void gt_t_free_sk(void *p)
{
	crypto_free_skcipher(p);
}

static void gt_t_free_areq(void *p)
{
	aead_request_free(p);
}

static void gt_t_free_sreq(void *p)
{
	skcipher_request_free(p);
}

/* Free @p with @fn at test exit (or now, if that cannot be arranged). */
static void gt_t_defer(struct kunit *test, void (*fn)(void *), void *p)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fn, p), 0);
}

static const char *gt_ttfm_driver(struct gt_ttfm *t)
{
	return t->aead ? crypto_aead_driver_name(t->aead) :
			 crypto_skcipher_driver_name(t->sk);
}

/* @name's tfm keyed with @key (and the case's authsize). */
static struct gt_ttfm *gt_ttfm_new(struct kunit *test, const struct gt_tmpl *c,
				   const char *name, const u8 *key)
{
	struct gt_ttfm *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->c = c;
	if (c->aead) {
		t->aead = crypto_alloc_aead(name, 0, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, t->aead, "%s", name);
		gt_t_defer(test, gt_t_free_aead, t->aead);
		KUNIT_ASSERT_EQ(test, crypto_aead_setkey(t->aead, key, c->klen),
				0);
		KUNIT_ASSERT_EQ(test, crypto_aead_setauthsize(t->aead,
							      c->authsize), 0);
	} else {
		t->sk = crypto_alloc_skcipher(name, 0, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, t->sk, "%s", name);
		gt_t_defer(test, gt_t_free_sk, t->sk);
		KUNIT_ASSERT_EQ(test, crypto_skcipher_setkey(t->sk, key,
							     c->klen), 0);
	}
	return t;
}

static void gt_treq_cb(void *data, int err)
{
	struct gt_treq *r = data;
	int n = atomic_inc_return(&r->nr_events) - 1;

	if (n < GT_T_MAX_EVENTS)
		r->events[n] = err;
	if (err != -EINPROGRESS)
		complete(&r->done);
}

/*
 * A request on @t over a copy of @in (AAD and text, plus the tag when
 * decrypting), with @flags and the case's IV @iv.
 */
static struct gt_treq *gt_treq_new(struct kunit *test, struct gt_ttfm *t,
				   bool decrypt, const u8 *in, const u8 *iv,
				   u32 flags)
{
	const struct gt_tmpl *c = t->c;
	struct gt_treq *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int text = c->len + (decrypt ? c->authsize : 0);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->t = t;
	r->inlen = c->assoclen + text;
	r->outlen = c->assoclen + c->len + (c->aead && !decrypt ? c->authsize : 0);
	r->buf = kunit_kzalloc(test, max(r->inlen, r->outlen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->buf);
	memcpy(r->buf, in, r->inlen);
	memcpy(r->iv, iv, c->ivlen);
	sg_init_one(&r->sg, r->buf, max(r->inlen, r->outlen));
	init_completion(&r->done);
	atomic_set(&r->nr_events, 0);
	if (c->aead) {
		r->areq = aead_request_alloc(t->aead, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->areq);
		gt_t_defer(test, gt_t_free_areq, r->areq);
		aead_request_set_callback(r->areq, flags, gt_treq_cb, r);
		aead_request_set_crypt(r->areq, &r->sg, &r->sg, text, r->iv);
		aead_request_set_ad(r->areq, c->assoclen);
		r->ret = decrypt ? crypto_aead_decrypt(r->areq) :
				   crypto_aead_encrypt(r->areq);
	} else {
		r->sreq = skcipher_request_alloc(t->sk, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->sreq);
		gt_t_defer(test, gt_t_free_sreq, r->sreq);
		skcipher_request_set_callback(r->sreq, flags, gt_treq_cb, r);
		skcipher_request_set_crypt(r->sreq, &r->sg, &r->sg, c->len,
					   r->iv);
		r->ret = decrypt ? crypto_skcipher_decrypt(r->sreq) :
				   crypto_skcipher_encrypt(r->sreq);
	}
	return r;
}

/*
 * The callbacks its return value promised (none; the result; -EINPROGRESS
 * then the result), a final result of 0, and @want's bytes.
 */
static void gt_treq_expect(struct kunit *test, struct gt_treq *r,
			   const u8 *want)
{
	int n;

	if (r->ret == -EINPROGRESS || r->ret == -EBUSY)
		KUNIT_ASSERT_TRUE_MSG(test,
				      wait_for_completion_timeout(&r->done,
								  60 * HZ),
				      "%s: request never completed",
				      r->t->c->name);
	n = atomic_read(&r->nr_events);
	if (r->ret == -EINPROGRESS) {
		KUNIT_EXPECT_EQ(test, n, 1);
		KUNIT_EXPECT_EQ(test, r->events[0], 0);
	} else if (r->ret == -EBUSY) {
		KUNIT_EXPECT_EQ(test, n, 2);
		KUNIT_EXPECT_EQ(test, r->events[0], -EINPROGRESS);
		KUNIT_EXPECT_EQ(test, r->events[1], 0);
	} else {
		KUNIT_EXPECT_EQ_MSG(test, r->ret, 0, "%s", r->t->c->name);
		KUNIT_EXPECT_EQ(test, n, 0);
	}
	/* AAD is not compared: not every template copies it to dst. */
	GT_EXPECT_BYTES(test, r->buf + r->t->c->assoclen,
			want + r->t->c->assoclen,
			r->outlen - r->t->c->assoclen);
}

/* Everything one case needs: both tfms, an input and the right answers. */
struct gt_tcase {
	const struct gt_tmpl *c;
	struct gt_ttfm *t, *ref;
	u8 iv[16];
	u8 *plain;	/* AAD and text */
	u8 *sealed;	/* the reference's output: AAD, text, tag */
};

static struct gt_tcase *gt_tcase_new(struct kunit *test,
				     const struct gt_tmpl *c)
{
	struct gt_tcase *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned int all = c->assoclen + c->len + c->authsize;
	struct gt_treq *r;
	u8 key[64];

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->c = c;
	get_random_bytes(key, c->klen);
	get_random_bytes(k->iv, sizeof(k->iv));
	if (c->iv0 >= 0)
		k->iv[0] = c->iv0;
	k->t = gt_ttfm_new(test, c, c->name, key);
	k->ref = gt_ttfm_new(test, c, c->ref, key);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(gt_ttfm_driver(k->t), c->ours),
				  "%s is %s, not built on %s", c->name,
				  gt_ttfm_driver(k->t), c->ours);
	k->plain = kunit_kzalloc(test, all, GFP_KERNEL);
	k->sealed = kunit_kzalloc(test, all, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k->plain);
	KUNIT_ASSERT_NOT_NULL(test, k->sealed);
	get_random_bytes(k->plain, c->assoclen + c->len);
	/* The reference is synchronous: nothing of ours under it. */
	r = gt_treq_new(test, k->ref, false, k->plain, k->iv, 0);
	KUNIT_ASSERT_EQ(test, r->ret, 0);
	memcpy(k->sealed, r->buf, r->outlen);
	return k;
}

/* The instances exist over our drivers and passed testmgr on the ring. */
static void gpu_aes_templates_selftest_on_ring(struct kunit *test)
{
	struct fake_helper *h;
	struct gt_ttfm *t;
	struct gt_stats s;
	unsigned int i;
	u8 key[64] = {};

	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 0);
	gt_set_timeout_ms(test, 600000);
	h = gt_helper(test, NR, true);
	for (i = 0; i < ARRAY_SIZE(gt_tmpls); i++) {
		gt_stats_snap(&s);
		/* The first lookup instantiates it and runs testmgr. */
		t = gt_ttfm_new(test, &gt_tmpls[i], gt_tmpls[i].name, key);
		kunit_info(test, "%s is %s: testmgr sent %lld requests to the ring\n",
			   gt_tmpls[i].name, gt_ttfm_driver(t),
			   DELTA(RING_REQUESTS));
		KUNIT_EXPECT_NOT_NULL(test, strstr(gt_ttfm_driver(t),
						   gt_tmpls[i].ours));
		KUNIT_EXPECT_TRUE(test, (t->aead ?
				  crypto_aead_alg(t->aead)->base.cra_flags :
				  crypto_skcipher_alg(t->sk)->base.cra_flags) &
				  CRYPTO_ALG_TESTED);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/*
 * NR + 4 MAY_BACKLOG requests per case on an NR-entry ring: NR posted,
 * 4 backlogged, and each caller hears what the API promises through the
 * template's own callback; encryptions and decryptions, both exact.
 */
static void gpu_aes_templates_backlog(struct kunit *test)
{
	struct gt_treq *r[NR + 4];
	struct fake_helper *h;
	struct gt_tcase *k;
	struct gt_stats s;
	unsigned int i, j, dec;

	h = gt_ring_setup(test, NR);
	for (i = 0; i < ARRAY_SIZE(gt_tmpls); i++) {
		k = gt_tcase_new(test, &gt_tmpls[i]);
		for (dec = 0; dec < 2; dec++) {
			gt_stats_snap(&s);
			for (j = 0; j < NR + 4; j++) {
				r[j] = gt_treq_new(test, k->t, dec,
						   dec ? k->sealed : k->plain,
						   k->iv, GT_BL);
				KUNIT_EXPECT_EQ_MSG(test, r[j]->ret,
						    j < NR ? -EINPROGRESS : -EBUSY,
						    "%s request %u", k->c->name,
						    j);
			}
			KUNIT_EXPECT_EQ(test, DELTA(BACKLOGGED), 4);
			gt_helper_complete_all(test, h, NR);
			/* The reap admitted the four; -EINPROGRESS came. */
			for (j = NR; j < NR + 4; j++)
				KUNIT_EXPECT_EQ(test,
						atomic_read(&r[j]->nr_events), 1);
			gt_helper_complete_all(test, h, 4);
			for (j = 0; j < NR + 4; j++)
				gt_treq_expect(test, r[j],
					       dec ? k->plain : k->sealed);
			KUNIT_EXPECT_EQ(test, DELTA(RING_REQUESTS), NR + 4);
			KUNIT_EXPECT_EQ(test, gt_stats_delta(&s, k->c->ring_stat),
					NR + 4);
			KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_REQUESTS), 0);
		}
	}
}

/*
 * Without MAY_BACKLOG, with MAY_SLEEP (AF_ALG's AEAD AIO through a
 * template): the answer before the call returns, ring or not.
 */
static void gpu_aes_templates_no_backlog(struct kunit *test)
{
	struct fake_helper *h;
	struct gt_treq *r;
	struct gt_tcase *k;
	struct gt_stats s;
	unsigned int i, j;

	h = gt_ring_setup(test, NR);
	for (i = 0; i < ARRAY_SIZE(gt_tmpls); i++) {
		k = gt_tcase_new(test, &gt_tmpls[i]);
		gt_stats_snap(&s);
		for (j = 0; j < 4; j++) {
			r = gt_treq_new(test, k->t, j & 1,
					j & 1 ? k->sealed : k->plain, k->iv,
					CRYPTO_TFM_REQ_MAY_SLEEP);
			KUNIT_EXPECT_EQ(test, r->ret, 0);
			gt_treq_expect(test, r, j & 1 ? k->plain : k->sealed);
		}
		KUNIT_EXPECT_EQ(test, fake_helper_pending(h), 0);
		KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_NO_BACKLOG), 4);
		KUNIT_EXPECT_EQ(test, DELTA(RING_REQUESTS), 0);
	}
}

/* No helper attached: MAY_BACKLOG or not, the CPU at once. */
static void gpu_aes_templates_no_helper(struct kunit *test)
{
	struct gt_treq *r;
	struct gt_tcase *k;
	struct gt_stats s;
	unsigned int i, j;

	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 1);
	for (i = 0; i < ARRAY_SIZE(gt_tmpls); i++) {
		k = gt_tcase_new(test, &gt_tmpls[i]);
		gt_stats_snap(&s);
		for (j = 0; j < 2; j++) {
			r = gt_treq_new(test, k->t, j, j ? k->sealed : k->plain,
					k->iv, GT_BL);
			KUNIT_EXPECT_EQ(test, r->ret, 0);
			gt_treq_expect(test, r, j ? k->plain : k->sealed);
		}
		KUNIT_EXPECT_EQ(test, DELTA(FALLBACK_NO_HELPER), 2);
	}
}

static struct kunit_case gpu_aes_templates_cases[] = {
	KUNIT_CASE_SLOW(gpu_aes_templates_selftest_on_ring),
	KUNIT_CASE(gpu_aes_templates_backlog),
	KUNIT_CASE(gpu_aes_templates_no_backlog),
	KUNIT_CASE(gpu_aes_templates_no_helper),
	{}
};

static struct kunit_suite gpu_aes_templates_suite = {
	.name = "gpu_aes_templates",
	.test_cases = gpu_aes_templates_cases,
};

kunit_test_suite(gpu_aes_templates_suite);
