// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared pieces of the gpu_aes suites (see test_util.h).
 */
#include <crypto/aead.h>
#include <crypto/algapi.h>
#include <kunit/resource.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "aes_ref.h"
#include "dispatch.h"
#include "params.h"
#include "ring.h"
#include "test_util.h"

static void gt_free_tfm(void *p)
{
	crypto_free_skcipher(p);
}

static void gt_free_req(void *p)
{
	skcipher_request_free(p);
}

struct gt_tfm *gt_tfm_new(struct kunit *test, bool ctr, unsigned int klen)
{
	struct gt_tfm *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	const char *drv = ctr ? "ctr-aes-gpu" : "ecb-aes-gpu";

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->ctr = ctr;
	t->tfm = crypto_alloc_skcipher(drv, 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->tfm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_free_tfm,
							t->tfm), 0);
	KUNIT_ASSERT_STREQ(test, crypto_skcipher_driver_name(t->tfm), drv);
	gt_tfm_rekey(test, t, klen);
	return t;
}

struct gt_tfm *gt_tfm_new_xts(struct kunit *test, unsigned int klen)
{
	struct gt_tfm *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->xts = true;
	t->tfm = crypto_alloc_skcipher("xts-aes-gpu", 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->tfm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_free_tfm,
							t->tfm), 0);
	gt_tfm_rekey(test, t, klen);
	return t;
}

void gt_tfm_rekey(struct kunit *test, struct gt_tfm *t, unsigned int klen)
{
	unsigned int half = t->xts ? klen / 2 : klen;

	get_random_bytes(t->key, klen);
	/* Random halves are never equal in practice; make sure of it. */
	if (t->xts)
		t->key[half] = ~t->key[0];
	t->klen = klen;
	KUNIT_ASSERT_EQ(test, aes_expandkey(&t->aes, t->key, half), 0);
	if (t->xts)
		KUNIT_ASSERT_EQ(test, aes_expandkey(&t->tweak, t->key + half,
						    half), 0);
	KUNIT_ASSERT_EQ(test, crypto_skcipher_setkey(t->tfm, t->key, klen), 0);
}

static void gt_req_cb(void *data, int err)
{
	struct gt_req *r = data;
	int n = atomic_inc_return(&r->nr_events) - 1;

	if (n < GT_MAX_EVENTS)
		r->events[n] = err;
	if (err != -EINPROGRESS)
		complete(&r->done);
}

struct gt_req *gt_req_new(struct kunit *test, struct gt_tfm *t,
			  unsigned int len, u32 flags)
{
	struct gt_req *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int cut;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->t = t;
	r->len = len;
	r->buf = kunit_kmalloc(test, len, GFP_KERNEL);
	r->expect = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->buf);
	KUNIT_ASSERT_NOT_NULL(test, r->expect);
	get_random_bytes(r->buf, len);
	memcpy(r->expect, r->buf, len);
	get_random_bytes(r->iv, sizeof(r->iv));
	memset(r->iv + 12, 0xff, 4);
	init_completion(&r->done);
	atomic_set(&r->nr_events, 0);

	r->req = skcipher_request_alloc(t->tfm, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->req);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_free_req,
							r->req), 0);
	/* In place, split somewhere inside the buffer when it can be. */
	cut = len > 1 ? 1 + get_random_u32_below(len - 1) : len;
	if (cut < len) {
		sg_init_table(r->sg, 2);
		sg_set_buf(&r->sg[0], r->buf, cut);
		sg_set_buf(&r->sg[1], r->buf + cut, len - cut);
	} else {
		sg_init_one(r->sg, r->buf, len);
	}
	skcipher_request_set_callback(r->req, flags, gt_req_cb, r);
	skcipher_request_set_crypt(r->req, r->sg, r->sg, len,
				   t->ctr || t->xts ? r->iv : NULL);

	memcpy(r->iv_expect, r->iv, sizeof(r->iv));
	if (t->ctr) {
		aes_ref_ctr(&t->aes, r->iv, r->expect, len);
		for (cut = 0; cut < len; cut += AES_BLOCK_SIZE)
			crypto_inc(r->iv_expect, AES_BLOCK_SIZE);
	}
	/* ECB's and XTS's depend on the direction: gt_req_start(). */
	return r;
}

int gt_req_start(struct gt_req *r, bool decrypt)
{
	if (r->t->xts)
		aes_ref_xts(&r->t->aes, &r->t->tweak, decrypt, r->iv, r->expect,
			    r->len);
	else if (!r->t->ctr)
		aes_ref_ecb(&r->t->aes, decrypt, r->expect, r->len);
	r->ret = decrypt ? crypto_skcipher_decrypt(r->req) :
			   crypto_skcipher_encrypt(r->req);
	return r->ret;
}

bool gt_req_wait(struct gt_req *r)
{
	if (r->ret != -EINPROGRESS && r->ret != -EBUSY)
		return true;
	/* A bound for a hung driver only; the suites never assert time. */
	return wait_for_completion_timeout(&r->done, 60 * HZ);
}

void gt_req_expect_done(struct kunit *test, struct gt_req *r)
{
	int n;

	KUNIT_ASSERT_TRUE_MSG(test, gt_req_wait(r), "request never completed");
	n = atomic_read(&r->nr_events);
	if (r->ret == -EINPROGRESS) {
		KUNIT_EXPECT_EQ(test, n, 1);
		KUNIT_EXPECT_EQ(test, r->events[0], 0);
	} else if (r->ret == -EBUSY) {
		KUNIT_EXPECT_EQ(test, n, 2);
		KUNIT_EXPECT_EQ(test, r->events[0], -EINPROGRESS);
		KUNIT_EXPECT_EQ(test, r->events[1], 0);
	} else {
		KUNIT_EXPECT_EQ(test, r->ret, 0);
		KUNIT_EXPECT_EQ(test, n, 0);
	}
	GT_EXPECT_BYTES(test, r->buf, r->expect, r->len);
	if (r->req->iv)
		KUNIT_EXPECT_MEMEQ(test, r->iv, r->iv_expect, AES_BLOCK_SIZE);
}

void gt_expect_bytes(struct kunit *test, const void *got, const void *want,
		     size_t len, const char *what)
{
	const u8 *x = got, *y = want;
	size_t i;

	for (i = 0; i < len && x[i] == y[i]; i++)
		;
	KUNIT_EXPECT_EQ_MSG(test, i, len,
			    "%s: first difference at byte %zu of %zu (0x%02x, want 0x%02x)",
			    what, i, len, i < len ? x[i] : 0, i < len ? y[i] : 0);
}

int gt_req_events(struct gt_req *r)
{
	return atomic_read(&r->nr_events);
}

void gt_stats_snap(struct gt_stats *s)
{
	int i;

	for (i = 0; i < GPU_AES_NR_STATS; i++)
		s->v[i] = gpu_aes_stat_read(i);
}

s64 gt_stats_delta(const struct gt_stats *s, enum gpu_aes_stat i)
{
	return gpu_aes_stat_read(i) - s->v[i];
}

struct gt_param {
	unsigned int *p;
	unsigned int old;
};

static void gt_param_restore(void *data)
{
	struct gt_param *g = data;

	WRITE_ONCE(*g->p, g->old);
}

static void gt_set_param(struct kunit *test, unsigned int *p, unsigned int v)
{
	struct gt_param *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, g);
	g->p = p;
	g->old = READ_ONCE(*p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_param_restore,
							g), 0);
	WRITE_ONCE(*p, v);
}

void gt_set_ring_min_bytes(struct kunit *test, unsigned int v)
{
	gt_set_param(test, &gpu_aes_ring_min_bytes, v);
}

void gt_set_timeout_ms(struct kunit *test, unsigned int v)
{
	gt_set_param(test, &gpu_aes_timeout_ms, v);
}

static void gt_dispatch_restore(void *data)
{
	WRITE_ONCE(gpu_aes_dispatch, (int)(long)data);
}

void gt_set_dispatch(struct kunit *test, int mode)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			gt_dispatch_restore,
			(void *)(long)READ_ONCE(gpu_aes_dispatch)), 0);
	WRITE_ONCE(gpu_aes_dispatch, mode);
}

static void gt_helper_detach(void *data)
{
	fake_helper_detach(data);
}

struct fake_helper *gt_helper(struct kunit *test, u32 nr_entries,
			      bool automatic)
{
	struct fake_helper *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_EQ(test, fake_helper_attach(h, &gpu_aes_ring, nr_entries,
						 FAKE_HELPER_KEYS,
						 FAKE_HELPER_DATA, automatic),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_helper_detach,
							h), 0);
	/* The ring is what these suites test, whatever auto would choose. */
	gt_set_dispatch(test, GPU_AES_DISPATCH_RING);
	return h;
}

struct fake_helper *gt_helper_queues(struct kunit *test, u32 nr_queues,
				     u32 nr_entries, bool automatic)
{
	struct fake_helper *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_EQ(test, fake_helper_attach_queues(h, &gpu_aes_ring,
							nr_queues, nr_entries,
							FAKE_HELPER_KEYS,
							FAKE_HELPER_DATA,
							automatic), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_helper_detach,
							h), 0);
	gt_set_dispatch(test, GPU_AES_DISPATCH_RING);
	return h;
}

struct fake_helper *gt_ring_setup_algs(struct kunit *test, u32 algs)
{
	struct fake_helper *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 1);
	gt_set_timeout_ms(test, 600000);
	KUNIT_ASSERT_EQ(test, fake_helper_attach_algs(h, &gpu_aes_ring, 1,
						      FAKE_HELPER_ENTRIES,
						      FAKE_HELPER_KEYS,
						      FAKE_HELPER_DATA, false,
						      algs), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_helper_detach,
							h), 0);
	gt_set_dispatch(test, GPU_AES_DISPATCH_RING);
	return h;
}

static void gt_queue_restore(void *data)
{
	WRITE_ONCE(gpu_aes_ring.test_queue, -1);
}

void gt_use_queue(struct kunit *test, struct fake_helper *h, u32 q)
{
	if (READ_ONCE(gpu_aes_ring.test_queue) < 0)
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
				gt_queue_restore, NULL), 0);
	WRITE_ONCE(gpu_aes_ring.test_queue, q);
	fake_helper_use(h, q);
}

int gt_algs_tested(void)
{
	static const char * const drv[] = {
		"ecb-aes-gpu", "cbc-aes-gpu", "ctr-aes-gpu", "xts-aes-gpu",
	};
	struct crypto_skcipher *tfm;
	struct crypto_aead *aead;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(drv); i++) {
		/* Looking a driver up waits for its self-test larval. */
		tfm = crypto_alloc_skcipher(drv[i], 0, 0);
		if (IS_ERR(tfm))
			return PTR_ERR(tfm);
		crypto_free_skcipher(tfm);
	}
	aead = crypto_alloc_aead("gcm-aes-gpu", 0, 0);
	if (IS_ERR(aead))
		return PTR_ERR(aead);
	crypto_free_aead(aead);
	return 0;
}

void gt_wait_algs_tested(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, gt_algs_tested(), 0);
}

struct fake_helper *gt_ring_setup(struct kunit *test, u32 nr_entries)
{
	gt_wait_algs_tested(test);
	gt_set_ring_min_bytes(test, 1);
	gt_set_timeout_ms(test, 600000);
	return gt_helper(test, nr_entries, false);
}

void gt_tfm_free(struct kunit *test, struct gt_tfm *t)
{
	kunit_release_action(test, gt_free_tfm, t->tfm);
	t->tfm = NULL;
}

void gt_helper_complete_all(struct kunit *test, struct fake_helper *h,
			    unsigned int expect)
{
	struct gpu_aes_sqe sqe;
	unsigned int n = 0;

	while (fake_helper_fetch(h, &sqe, 1)) {
		fake_helper_post(h, sqe.tag, sqe.seq,
				 fake_helper_compute(h, &sqe));
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, expect);
	fake_helper_publish(h);
	KUNIT_EXPECT_EQ(test, fake_helper_reap(h), (int)expect);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqe_errors), 0);
}

/* ---- gcm-aes-gpu ---- */

static void gt_free_aead(void *p)
{
	crypto_free_aead(p);
}

static void gt_free_areq(void *p)
{
	aead_request_free(p);
}

void gt_aead_rekey(struct kunit *test, struct gt_aead *a,
			  unsigned int klen)
{
	get_random_bytes(a->key, klen);
	a->klen = klen;
	KUNIT_ASSERT_EQ(test, crypto_aead_setkey(a->tfm, a->key, klen), 0);
	KUNIT_ASSERT_EQ(test, aesgcm_expandkey(&a->ref, a->key, klen,
					       a->authsize), 0);
}

struct gt_aead *gt_aead_new(struct kunit *test, unsigned int klen,
				   unsigned int authsize)
{
	struct gt_aead *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->tfm = crypto_alloc_aead("gcm-aes-gpu", 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a->tfm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_free_aead,
							a->tfm), 0);
	KUNIT_ASSERT_EQ(test, crypto_aead_setauthsize(a->tfm, authsize), 0);
	a->authsize = authsize;
	gt_aead_rekey(test, a, klen);
	return a;
}

static void gt_areq_cb(void *data, int err)
{
	struct gt_areq *r = data;
	int n = atomic_inc_return(&r->nr_events) - 1;

	if (n < GT_MAX_EVENTS)
		r->events[n] = err;
	if (err != -EINPROGRESS)
		complete(&r->done);
}

static void gt_split(struct scatterlist *sg, u8 *buf, unsigned int len)
{
	unsigned int cut = len > 1 ? 1 + get_random_u32_below(len - 1) : len;

	if (cut < len) {
		sg_init_table(sg, 2);
		sg_set_buf(&sg[0], buf, cut);
		sg_set_buf(&sg[1], buf + cut, len - cut);
	} else {
		sg_init_one(sg, buf, len);
	}
}

struct gt_areq *gt_areq_new(struct kunit *test, struct gt_aead *a,
				   unsigned int aad_len, unsigned int len,
				   bool decrypt, u32 flags)
{
	struct gt_areq *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int as = a->authsize;
	u8 *text, *tag;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->a = a;
	r->aad_len = aad_len;
	r->len = len;
	r->decrypt = decrypt;
	r->total = aad_len + len + as;
	r->in = kunit_kmalloc(test, r->total, GFP_KERNEL);
	r->out = kunit_kmalloc(test, r->total, GFP_KERNEL);
	r->expect = kunit_kmalloc(test, r->total, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->in);
	KUNIT_ASSERT_NOT_NULL(test, r->out);
	KUNIT_ASSERT_NOT_NULL(test, r->expect);
	r->aad = r->in;
	text = r->in + aad_len;
	tag = text + len;
	get_random_bytes(r->in, aad_len + len);
	get_random_bytes(r->iv, sizeof(r->iv));
	memset(r->out, GT_POISON, r->total);
	memset(r->expect, GT_POISON, r->total);
	memset(tag, 0, as);
	/* The reference, before the plaintext is replaced when decrypting. */
	aesgcm_encrypt(&a->ref, r->expect + aad_len, text, len, r->aad,
		       aad_len, r->iv, r->expect + aad_len + len);
	if (decrypt) {
		unsigned int k;

		/* in: ciphertext | tag; expect: plaintext, tag area poison. */
		memcpy(tag, r->expect + aad_len + len, as);
		for (k = 0; k < len; k++)
			swap(text[k], r->expect[aad_len + k]);
		memset(r->expect + aad_len + len, GT_POISON, as);
	}
	r->untouched_on_error = true;
	init_completion(&r->done);
	atomic_set(&r->nr_events, 0);
	r->req = aead_request_alloc(a->tfm, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->req);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_free_areq,
							r->req), 0);
	gt_split(r->src, r->in, r->total);
	gt_split(r->dst, r->out, r->total);
	aead_request_set_callback(r->req, flags, gt_areq_cb, r);
	aead_request_set_crypt(r->req, r->src, r->dst,
			       decrypt ? len + as : len, r->iv);
	aead_request_set_ad(r->req, aad_len);
	return r;
}

int gt_areq_start(struct gt_areq *r)
{
	r->ret = r->decrypt ? crypto_aead_decrypt(r->req) :
			      crypto_aead_encrypt(r->req);
	return r->ret;
}

void gt_areq_expect(struct kunit *test, struct gt_areq *r, int err)
{
	unsigned int n, from = r->aad_len;

	if (r->ret == -EINPROGRESS || r->ret == -EBUSY)
		KUNIT_ASSERT_TRUE_MSG(test,
				      wait_for_completion_timeout(&r->done,
								  60 * HZ),
				      "request never completed");
	n = atomic_read(&r->nr_events);
	if (r->ret == -EINPROGRESS) {
		KUNIT_EXPECT_EQ(test, n, 1);
		KUNIT_EXPECT_EQ(test, r->events[0], err);
	} else if (r->ret == -EBUSY) {
		KUNIT_EXPECT_EQ(test, n, 2);
		KUNIT_EXPECT_EQ(test, r->events[0], -EINPROGRESS);
		KUNIT_EXPECT_EQ(test, r->events[1], err);
	} else {
		KUNIT_EXPECT_EQ(test, r->ret, err);
		KUNIT_EXPECT_EQ(test, n, 0);
	}
	if (err) {
		if (r->untouched_on_error)
			KUNIT_EXPECT_TRUE(test, !memchr_inv(r->out, GT_POISON,
							    r->total));
		return;
	}
	/* The AAD is not copied to dst, as aesni and the template do. */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(r->out, GT_POISON, from));
	GT_EXPECT_BYTES(test, r->out + from, r->expect + from,
			r->total - from);
}
