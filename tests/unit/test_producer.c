// SPDX-License-Identifier: GPL-2.0-only
/*
 * The in-process producer: tag and data-ring allocation (-EAGAIN, wrap,
 * release order), wake-ups, zero-copy, key table writes and wipes, and
 * many submitting threads at once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "aes_key.h"
#include "harness.h"
#include "region.h"
#include "util.h"

#define KIB 1024U

TEST(producer_full_ring_eagain)
{
	struct gpu_aes_producer *p = mk_producer(16, 1 << 20, 1, 50);
	struct gpu_aes_producer_buf b[17];
	struct gpu_aes_producer_stats st;
	uint8_t x[16] = { 0 };
	unsigned int i;

	CHECK(p);
	for (i = 0; i < 16; i++)
		CHECK_EQ(gpu_aes_producer_reserve(p, 100, &b[i]), 0);
	/* Tags exhausted: every way in says -EAGAIN. */
	CHECK_EQ(gpu_aes_producer_reserve(p, 100, &b[16]), -EAGAIN);
	CHECK_EQ(gpu_aes_producer_submit(p, GPU_AES_ALG_CTR, 0, 0, x, x, x, 16,
					 NULL, NULL), -EAGAIN);
	/*
	 * A free tag is not enough: data runs are released oldest first and
	 * at most nr_entries runs are tracked, so a newer release waits for
	 * the oldest (as the kernel's allocator does).
	 */
	gpu_aes_producer_unreserve(p, &b[3]);
	CHECK_EQ(gpu_aes_producer_reserve(p, 100, &b[16]), -EAGAIN);
	gpu_aes_producer_unreserve(p, &b[0]);
	CHECK_EQ(gpu_aes_producer_reserve(p, 100, &b[16]), 0);
	CHECK_EQ(b[16].tag, b[0].tag);
	CHECK_EQ(gpu_aes_producer_reserve(p, 100, &b[0]), -EAGAIN);
	gpu_aes_producer_get_stats(p, &st);
	CHECK_EQ(st.eagain, 4);
	for (i = 1; i < 17; i++)
		if (i != 3)
			gpu_aes_producer_unreserve(p, &b[i]);
	/* Never fits: -EINVAL, not -EAGAIN. */
	CHECK_EQ(gpu_aes_producer_reserve(p, (1 << 20) + 1, &b[0]), -EINVAL);
	CHECK_EQ(gpu_aes_producer_reserve(p, 1 << 20, &b[0]), 0);
	CHECK_EQ(b[0].data_off, 0);
	CHECK_EQ(gpu_aes_producer_reserve(p, 1, &b[1]), -EAGAIN);
	gpu_aes_producer_unreserve(p, &b[0]);
	gpu_aes_producer_destroy(p);
}

TEST(producer_data_ring_wraps_and_releases_in_order)
{
	struct gpu_aes_producer *p = mk_producer(16, 1 << 20, 1, 50);
	struct gpu_aes_producer_buf a, b, c, d, e, f;

	CHECK(p);
	CHECK_EQ(gpu_aes_producer_reserve(p, 600 * KIB, &a), 0);
	CHECK_EQ(gpu_aes_producer_reserve(p, 300 * KIB - 5, &b), 0);
	CHECK_EQ(a.data_off, 0);
	CHECK_EQ(b.data_off, 600 * KIB);
	/* 900 KiB used, 124 KiB at the end: too small, and no wrap room. */
	CHECK_EQ(gpu_aes_producer_reserve(p, 200 * KIB, &c), -EAGAIN);
	/* Releasing the newer run frees nothing while the older is held. */
	gpu_aes_producer_unreserve(p, &b);
	CHECK_EQ(gpu_aes_producer_reserve(p, 200 * KIB, &c), -EAGAIN);
	/* Now the oldest goes; the newest allocation starts at 900 KiB. */
	gpu_aes_producer_unreserve(p, &a);
	CHECK_EQ(gpu_aes_producer_reserve(p, 100 * KIB, &a), 0);
	CHECK_EQ(a.data_off, 900 * KIB);
	/* 200 KiB does not fit in the last 24 KiB: skips to offset 0. */
	CHECK_EQ(gpu_aes_producer_reserve(p, 200 * KIB, &c), 0);
	CHECK_EQ(c.data_off, 0);
	/* Odd lengths keep 64-byte aligned starts. */
	CHECK_EQ(gpu_aes_producer_reserve(p, 1, &d), 0);
	CHECK_EQ(d.data_off, 200 * KIB);
	CHECK_EQ(gpu_aes_producer_reserve(p, 65, &e), 0);
	CHECK_EQ(e.data_off, 200 * KIB + 64);
	/* used = 24 skipped + 100 + 200 + 64 + 128 bytes: 700 KiB + slack. */
	CHECK_EQ(gpu_aes_producer_reserve(p, 700 * KIB, &f), -EAGAIN);
	CHECK_EQ(gpu_aes_producer_reserve(p, 600 * KIB, &f), 0);
	CHECK_EQ(f.data_off, 200 * KIB + 192);
	gpu_aes_producer_unreserve(p, &a);
	gpu_aes_producer_unreserve(p, &c);
	gpu_aes_producer_unreserve(p, &d);
	gpu_aes_producer_unreserve(p, &e);
	gpu_aes_producer_unreserve(p, &f);
	/* Empty again: a full-size request fits, from offset 0. */
	CHECK_EQ(gpu_aes_producer_reserve(p, 1 << 20, &a), 0);
	CHECK_EQ(a.data_off, 0);
	gpu_aes_producer_unreserve(p, &a);
	gpu_aes_producer_destroy(p);
}

static int sleeping(void *arg)
{
	struct gpu_aes_producer *p = ((void **)arg)[0];
	uint64_t want = *(uint64_t *)((void **)arg)[1];
	const struct gpu_aes_region *r = gpu_aes_producer_region(p);

	return stat_sleeps(p) == want &&
	       (__atomic_load_n(&r->hdr->helper_flags, __ATOMIC_ACQUIRE) &
		GPU_AES_HELPER_NEED_WAKEUP);
}

TEST(producer_wakes_only_a_sleeping_core)
{
	struct gpu_aes_producer *p = mk_producer(64, 1 << 20, 1, 0);
	struct gpu_aes_producer_stats st;
	uint8_t key[16] = { 1 }, iv[16] = { 2 }, buf[512];
	uint64_t want;
	void *arg[2] = { NULL, &want };
	unsigned int i;

	CHECK(p);
	arg[0] = p;
	CHECK_EQ(gpu_aes_producer_setkey(p, 0, key, 16), 0);
	for (i = 0; i < 5; i++) {
		want = i + 1;
		CHECK_EQ(wait_until(sleeping, arg), 0);
		CHECK_EQ(gpu_aes_producer_run(p, GPU_AES_ALG_CTR, 0, 0, iv, buf,
					      buf, sizeof(buf)), 0);
		gpu_aes_producer_get_stats(p, &st);
		CHECK_EQ(st.wakeups, i + 1);
	}
	gpu_aes_producer_destroy(p);

	/* A core that keeps polling is never woken, nor does it sleep. */
	p = mk_producer(64, 1 << 20, 1, 600U * 1000 * 1000);
	CHECK(p);
	CHECK_EQ(gpu_aes_producer_setkey(p, 0, key, 16), 0);
	for (i = 0; i < 50; i++)
		CHECK_EQ(gpu_aes_producer_run(p, GPU_AES_ALG_CTR, 0, 0, iv, buf,
					      buf, sizeof(buf)), 0);
	gpu_aes_producer_get_stats(p, &st);
	CHECK_EQ(st.wakeups, 0);
	CHECK_EQ(st.sleeps, 0);
	CHECK_EQ(st.completed, 50);
	gpu_aes_producer_destroy(p);
}

TEST(producer_setkey_writes_and_clearkey_wipes)
{
	struct gpu_aes_producer *p = mk_producer(16, 1 << 20, 1, 50);
	const struct gpu_aes_region *r;
	static const uint8_t zero[sizeof(struct gpu_aes_key)];
	uint8_t key[32], buf[64];
	struct gpu_aes_region reg;

	CHECK(p);
	r = gpu_aes_producer_region(p);
	t_rand_bytes(key, sizeof(key));
	CHECK_EQ(gpu_aes_producer_setkey(p, 2, key, 24), 0);
	CHECK_EQ(r->keys[2].gen, 1);
	CHECK_EQ(r->keys[2].key_len, 24);
	CHECK_EQ(r->keys[2].rounds, 12);
	CHECK_MEM(r->keys[2].key, key, 24);
	CHECK_EQ(gpu_aes_producer_setkey(p, 2, key, 32), 0);
	CHECK_EQ(r->keys[2].gen, 2);
	CHECK_EQ(gpu_aes_producer_run(p, GPU_AES_ALG_ECB, 0, 2, NULL, buf, buf,
				      64), 0);
	/* The tfm is freed: the entry is wiped, requests on it fail. */
	CHECK_EQ(gpu_aes_producer_clearkey(p, 2), 0);
	CHECK_MEM(&r->keys[2], zero, sizeof(zero));
	CHECK_EQ(gpu_aes_producer_run(p, GPU_AES_ALG_ECB, 0, 2, NULL, buf, buf,
				      64), GPU_AES_STATUS_EINVAL);
	/* A later key in the slot gets a generation never used before. */
	CHECK_EQ(gpu_aes_producer_setkey(p, 2, key, 16), 0);
	CHECK_EQ(r->keys[2].gen, 3);
	CHECK_EQ(gpu_aes_producer_setkey(p, 8, key, 16), -EINVAL);
	CHECK_EQ(gpu_aes_producer_setkey(p, 1, key, 20), -EINVAL);
	gpu_aes_producer_destroy(p);

	/* Freeing a region wipes its key table first. */
	CHECK_EQ(gpu_aes_region_alloc(16, 4, 1 << 20, &reg, NULL), 0);
	memset(reg.keys, 0xa5, 4 * sizeof(*reg.keys));
	gpu_aes_region_wipe_keys(&reg);
	CHECK_MEM(&reg.keys[0], zero, sizeof(zero));
	CHECK_MEM(&reg.keys[3], zero, sizeof(zero));
	gpu_aes_region_free(&reg);
	CHECK(reg.base == NULL);
}

/*
 * An XTS entry as the kernel writes it: data key then tweak key in key[],
 * the data key's schedules, the tweak key's encryption schedule; a one-key
 * setkey over it leaves no trace of the tweak key.
 */
TEST(producer_setkey_xts_writes_both_keys)
{
	struct gpu_aes_producer *p = mk_producer(16, 1 << 20, 1, 50);
	static const uint8_t zero[256];
	const struct gpu_aes_region *r;
	struct gpu_aes_key data, tweak;
	const struct gpu_aes_key *e;
	uint8_t key[64];
	size_t len;

	CHECK(p);
	r = gpu_aes_producer_region(p);
	e = &r->keys[5];
	t_rand_bytes(key, sizeof(key));
	for (len = 32; len <= 64; len += 16) {
		size_t half = len / 2;

		CHECK_EQ(gpu_aes_producer_setkey_xts(p, 5, key, len), 0);
		memset(&data, 0, sizeof(data));
		memset(&tweak, 0, sizeof(tweak));
		CHECK_EQ(gpu_aes_expand_key(key, half, &data), 0);
		CHECK_EQ(gpu_aes_expand_key(key + half, half, &tweak), 0);
		CHECK_EQ(e->key_len, half);
		CHECK_EQ(e->tweak_len, half);
		CHECK_EQ(e->rounds, half / 4 + 6);
		CHECK_MEM(e->key, key, len);
		CHECK_MEM(e->key + len, zero, sizeof(e->key) - len);
		CHECK_MEM(e->enc_sched, data.enc_sched, sizeof(e->enc_sched));
		CHECK_MEM(e->dec_sched, data.dec_sched, sizeof(e->dec_sched));
		CHECK_MEM(e->tweak_sched, tweak.enc_sched,
			  sizeof(e->tweak_sched));
		CHECK_MEM(e->pad, zero, sizeof(e->pad));
	}
	CHECK_EQ(e->gen, 3);
	CHECK_EQ(gpu_aes_producer_setkey(p, 5, key, 32), 0);
	CHECK_EQ(e->tweak_len, 0);
	CHECK_MEM(e->key + 32, zero, 32);
	CHECK_MEM(e->tweak_sched, zero, sizeof(e->tweak_sched));
	CHECK_EQ(gpu_aes_producer_setkey_xts(p, 5, key, 16), -EINVAL);
	CHECK_EQ(gpu_aes_producer_setkey_xts(p, 5, key, 40), -EINVAL);
	CHECK_EQ(gpu_aes_producer_setkey_xts(p, 5, key, 33), -EINVAL);
	CHECK_EQ(gpu_aes_producer_setkey_xts(p, 8, key, 32), -EINVAL);
	CHECK_EQ(e->gen, 4);
	gpu_aes_producer_destroy(p);
}

struct zc_ctx {
	const uint8_t *expect;
	const uint8_t *data;
	uint32_t len;
	int status;
	int match;
	int calls;
};

static void zc_done(void *cookie, int status)
{
	struct zc_ctx *z = cookie;

	/* The result is readable in place until this callback returns. */
	z->status = status;
	z->match = !memcmp(z->data, z->expect, z->len);
	__atomic_fetch_add(&z->calls, 1, __ATOMIC_RELEASE);
}

static int zc_called(void *arg)
{
	return __atomic_load_n(&((struct zc_ctx *)arg)->calls,
			       __ATOMIC_ACQUIRE) == 1;
}

TEST(producer_zero_copy)
{
	struct gpu_aes_producer *p = mk_producer(64, 4 << 20, 1, 50);
	static uint8_t in[100000], ref[100000];
	struct gpu_aes_producer_buf b;
	uint8_t key[32], iv[16];
	struct zc_ctx z = { 0 };

	CHECK(p);
	t_rand_bytes(key, 32);
	t_rand_bytes(iv, 16);
	t_rand_bytes(in, sizeof(in));
	CHECK_EQ(gpu_aes_producer_setkey(p, 5, key, 32), 0);
	CHECK_EQ(ref_crypt(GPU_AES_ALG_CTR, 1, key, 32, iv, in, ref,
			   sizeof(in)), 0);
	CHECK_EQ(gpu_aes_producer_reserve_wait(p, sizeof(in), &b), 0);
	CHECK(b.data == gpu_aes_producer_region(p)->data + b.data_off);
	memcpy(b.data, in, sizeof(in));
	z.expect = ref;
	z.data = b.data;
	z.len = sizeof(in);
	CHECK_EQ(gpu_aes_producer_post(p, &b, GPU_AES_ALG_CTR, 1, 5, iv,
				       zc_done, &z), 0);
	CHECK_EQ(wait_until(zc_called, &z), 0);
	CHECK_EQ(z.status, 0);
	CHECK(z.match);
	/* A posted buffer cannot be posted twice. */
	CHECK_EQ(gpu_aes_producer_post(p, &b, GPU_AES_ALG_CTR, 1, 5, iv,
				       zc_done, &z), -EINVAL);
	gpu_aes_producer_destroy(p);
}

/* Many threads submitting at once, callbacks checking each result. */
#define MT_THREADS 4
#define MT_REQS 300
#define MT_MAX (64 * KIB)

struct mt_req {
	uint8_t *in, *out, *ref;
	uint32_t len;
	uint8_t iv[16];
	unsigned int alg, dir, slot;
};

struct mt {
	struct gpu_aes_producer *p;
	uint8_t keys[8][32];
	size_t klen[8];
	unsigned int ok, bad;		/* atomics */
};

static struct mt *g_mt;

static void mt_done(void *cookie, int status)
{
	struct mt_req *q = cookie;

	if (!status && !memcmp(q->out, q->ref, q->len))
		__atomic_fetch_add(&g_mt->ok, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&g_mt->bad, 1, __ATOMIC_RELAXED);
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *mt_thread(void *arg)
{
	struct mt_req *reqs = arg;
	uint64_t s = (uint64_t)(uintptr_t)arg | 1;
	unsigned int i, j;

	for (i = 0; i < MT_REQS; i++) {
		struct mt_req *q = &reqs[i];

		q->alg = xs(&s) & 1 ? GPU_AES_ALG_CTR : GPU_AES_ALG_ECB;
		q->dir = (unsigned int)(xs(&s) & 1);
		q->slot = (unsigned int)(xs(&s) % 8);
		q->len = 1 + (uint32_t)(xs(&s) % (xs(&s) & 1 ? MT_MAX : 2048));
		if (q->alg == GPU_AES_ALG_ECB)
			q->len = (q->len + 15) & ~15U;
		q->in = malloc(q->len);
		q->out = malloc(q->len);
		q->ref = malloc(q->len);
		if (!q->in || !q->out || !q->ref)
			return (void *)1;
		for (j = 0; j < q->len; j++)
			q->in[j] = (uint8_t)xs(&s);
		for (j = 0; j < 16; j++)
			q->iv[j] = (uint8_t)xs(&s);
		if (ref_crypt(q->alg, q->dir, g_mt->keys[q->slot],
			      g_mt->klen[q->slot], q->iv, q->in, q->ref, q->len))
			return (void *)1;
		if (gpu_aes_producer_submit_wait(g_mt->p, q->alg, q->dir,
						 q->slot, q->iv, q->in, q->out,
						 q->len, mt_done, q))
			return (void *)1;
	}
	return NULL;
}

static void mt_run(unsigned int backend_threads)
{
	static struct mt_req reqs[MT_THREADS][MT_REQS];
	struct gpu_aes_producer_stats st;
	pthread_t th[MT_THREADS];
	struct mt m;
	unsigned int i, j;
	void *ret;
	int failed = 0;

	memset(&m, 0, sizeof(m));
	memset(reqs, 0, sizeof(reqs));
	/* Small ring and data area: submitters wait for room constantly. */
	m.p = mk_producer(32, 1 << 20, backend_threads, 20);
	CHECK(m.p);
	g_mt = &m;
	for (i = 0; i < 8; i++) {
		m.klen[i] = 16 + 8 * (i % 3);
		t_rand_bytes(m.keys[i], 32);
		CHECK_EQ(gpu_aes_producer_setkey(m.p, i, m.keys[i], m.klen[i]),
			 0);
	}
	for (i = 0; i < MT_THREADS; i++)
		CHECK_EQ(pthread_create(&th[i], NULL, mt_thread, reqs[i]), 0);
	for (i = 0; i < MT_THREADS; i++) {
		pthread_join(th[i], &ret);
		failed |= ret != NULL;
	}
	gpu_aes_producer_wait_idle(m.p);
	gpu_aes_producer_get_stats(m.p, &st);
	gpu_aes_producer_destroy(m.p);
	for (i = 0; i < MT_THREADS; i++)
		for (j = 0; j < MT_REQS; j++) {
			free(reqs[i][j].in);
			free(reqs[i][j].out);
			free(reqs[i][j].ref);
		}
	CHECK_EQ(failed, 0);
	CHECK_EQ(m.bad, 0);
	CHECK_EQ(m.ok, MT_THREADS * MT_REQS);
	CHECK_EQ(st.submitted, MT_THREADS * MT_REQS);
	CHECK_EQ(st.completed, MT_THREADS * MT_REQS);
	CHECK_EQ(st.requests, MT_THREADS * MT_REQS);
	CHECK_EQ(st.rejected, 0);
	CHECK_EQ(st.invalid, 0);
	CHECK(st.batches <= st.requests);
}

TEST(producer_many_threads_inline_backend)
{
	mt_run(1);
}

TEST(producer_many_threads_threaded_backend)
{
	mt_run(3);
}
