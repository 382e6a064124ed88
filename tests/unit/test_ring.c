// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queue logic of the core, driven by hand: this test writes submission
 * entries and reads completions the way gpu_aes.ko does (struct mfix), so
 * it can choose index values (wrap-around) per queue, stop reaping a queue
 * (CQ full) and see exactly what the core did per wake-up.  Core, backend
 * (cpu) and transport are real.
 */
#include <pthread.h>
#include <string.h>

#include "backend_cpu.h"
#include "core.h"
#include "harness.h"
#include "util.h"

#define QDATA	(1U << 20)

static uint8_t g_key[16];

/* A region of @queues queues with g_key in slot 0, core created. */
static int setup(struct mfix *m, uint32_t queues, uint32_t entries,
		 const uint32_t *start)
{
	uint32_t q;

	if (mfix_alloc(m, queues, entries, 4, QDATA))
		return -1;
	for (q = 0; start && q < queues; q++)
		mfix_set_index(m, q, start[q]);
	t_rand_bytes(g_key, sizeof(g_key));
	mfix_set_key(m, 0, 1, g_key, 16, 0);
	return mfix_open(m, NULL, 1, NULL);
}

/* The IV of request @tag on queue @q: distinct per queue. */
static void iv_of(uint32_t q, uint32_t tag, uint8_t iv[16])
{
	memset(iv, (int)tag, 16);
	iv[0] = (uint8_t)(0xa0 + q);
}

static uint32_t seq_of(uint32_t q, uint32_t tag)
{
	return q << 24 | (tag * 3 + 1);
}

static void mk_sqe(struct mfix *m, struct gpu_aes_sqe *e, uint32_t q,
		   uint32_t tag, uint64_t off, uint32_t len)
{
	memset(e, 0, sizeof(*e));
	e->tag = tag;
	e->seq = seq_of(q, tag);
	e->alg = GPU_AES_ALG_CTR;
	e->dir = GPU_AES_DIR_ENCRYPT;
	e->key_slot = 0;
	e->key_gen = 1;
	e->data_off = (uint64_t)q * m->r.queue_data_size + off;
	e->len = len;
	iv_of(q, tag, e->iv);
}

/* Posts a CTR request over [off, off+len) of queue @q's slice. */
static void post(struct mfix *m, uint32_t q, uint32_t tag, uint64_t off,
		 uint32_t len)
{
	struct gpu_aes_sqe e;

	mk_sqe(m, &e, q, tag, off, len);
	mfix_post(m, q, &e, 1);
}

/* Request @tag of queue @q over [off, off+len) of its slice vs OpenSSL. */
static int data_ok(struct mfix *m, uint32_t q, uint32_t tag, uint64_t off,
		   uint32_t len, const uint8_t *orig)
{
	uint8_t iv[16], ref[4096];

	iv_of(q, tag, iv);
	if (len > sizeof(ref) ||
	    ref_crypt(GPU_AES_ALG_CTR, 0, g_key, 16, iv, orig, ref, len))
		return 0;
	return !memcmp(ref, mfix_slice(m, q) + off, len);
}

/* Every byte of @e is 0xff: no completion was written there. */
static int poisoned(const struct gpu_aes_cqe *e)
{
	const uint8_t *p = (const uint8_t *)e;
	size_t i;

	for (i = 0; i < sizeof(*e); i++)
		if (p[i] != 0xff)
			return 0;
	return 1;
}

static void poison_cqs(struct mfix *m)
{
	uint32_t q;

	for (q = 0; q < m->r.nr_queues; q++)
		memset(m->r.queues[q].cq, 0xff,
		       m->r.queue_entries * sizeof(struct gpu_aes_cqe));
}

TEST(ring_batch_takes_all_pending_in_order)
{
	static uint8_t orig[10][4096];
	struct gpu_aes_core_stats st;
	struct mfix m;
	uint32_t i;

	CHECK_EQ(setup(&m, 1, 16, NULL), 0);
	for (i = 0; i < 10; i++) {
		t_rand_bytes(orig[i], sizeof(orig[i]));
		memcpy(mfix_slice(&m, 0) + 4096 * i, orig[i], 4096);
		post(&m, 0, 9 - i, 4096 * i, 100 + 397 * i);
	}
	CHECK_EQ(mfix_start(&m), 0);
	CHECK_EQ(mfix_wait_cq(&m, 0, 10), 0);
	/* The notification follows the publication of cq_tail... */
	CHECK_EQ(mfix_wait_notifies(&m, 1), 0);
	/* ...and the core sleeps once the batch is all done. */
	CHECK_EQ(mfix_wait_asleep(&m, 1), 0);
	gpu_aes_core_get_stats(m.core, &st);
	/* All ten in one batch, one notification for it, naming the queue. */
	CHECK_EQ(st.batches, 1);
	CHECK_EQ(st.requests, 10);
	CHECK_EQ(st.bytes, 10 * 100 + 397 * 45);
	CHECK_EQ(__atomic_load_n(&m.notifies, __ATOMIC_RELAXED), 1);
	CHECK_EQ(__atomic_load_n(&m.notify_qid, __ATOMIC_RELAXED), 0);
	CHECK_EQ(m.r.queues[0].qhdr->sq_head, 10);
	for (i = 0; i < 10; i++) {
		const struct gpu_aes_cqe *e = mfix_cqe(&m, 0, i);

		CHECK_EQ(e->tag, 9 - i);
		CHECK_EQ(e->seq, seq_of(0, 9 - i));
		CHECK_EQ(e->status, GPU_AES_STATUS_OK);
		CHECK(data_ok(&m, 0, 9 - i, 4096 * i, 100 + 397 * i, orig[i]));
	}
	mfix_teardown(&m);
}

/*
 * Entries pending on four queues at once go in one batch, and each
 * queue's completions land on that queue's CQ only, in its SQ order: no
 * cqe is written anywhere else (the CQs are poisoned beforehand).
 */
TEST(ring_completions_land_on_their_own_queue)
{
	static uint8_t orig[4][8][1024];
	struct gpu_aes_core_stats st;
	uint32_t q, i, total = 0;
	uint64_t bytes = 0;
	struct mfix m;

	CHECK_EQ(setup(&m, 4, 16, NULL), 0);
	poison_cqs(&m);
	/* Queue q gets 2q + 1 entries, tags counting down. */
	for (q = 0; q < 4; q++)
		for (i = 0; i < 2 * q + 1; i++) {
			t_rand_bytes(orig[q][i], sizeof(orig[q][i]));
			memcpy(mfix_slice(&m, q) + 1024 * i, orig[q][i], 1024);
			post(&m, q, 2 * q - i, 1024 * i, 1024 - 16 * q);
			bytes += 1024 - 16 * q;
			total++;
		}
	CHECK_EQ(mfix_start(&m), 0);
	for (q = 0; q < 4; q++)
		CHECK_EQ(mfix_wait_cq(&m, q, 2 * q + 1), 0);
	CHECK_EQ(mfix_wait_notifies(&m, 1), 0);
	CHECK_EQ(mfix_wait_asleep(&m, 1), 0);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.batches, 1);
	CHECK_EQ(st.requests, total);
	CHECK_EQ(st.bytes, bytes);
	/* One batch spanning queues: one notification, for all of them. */
	CHECK_EQ(__atomic_load_n(&m.notifies, __ATOMIC_RELAXED), 1);
	CHECK_EQ(__atomic_load_n(&m.notifies_all, __ATOMIC_RELAXED), 1);
	for (q = 0; q < 4; q++) {
		CHECK_EQ(m.r.queues[q].qhdr->sq_head, 2 * q + 1);
		CHECK_EQ(m.r.queues[q].qhdr->cq_tail, 2 * q + 1);
		for (i = 0; i < 2 * q + 1; i++) {
			const struct gpu_aes_cqe *e = mfix_cqe(&m, q, i);

			CHECK_EQ(e->tag, 2 * q - i);
			CHECK_EQ(e->seq, seq_of(q, 2 * q - i));
			CHECK_EQ(e->status, GPU_AES_STATUS_OK);
			CHECK_EQ(e->reserved, 0);
			CHECK(data_ok(&m, q, 2 * q - i, 1024 * i, 1024 - 16 * q,
				      orig[q][i]));
		}
		for (; i < 16; i++)
			CHECK(poisoned(mfix_cqe(&m, q, i)));
	}
	mfix_teardown(&m);
}

/*
 * Each queue's indices run freely from where it starts, independently of
 * the others: one queue wraps past 2^32 while its neighbours are far from
 * it, and a second round runs entirely past the wrap.
 */
TEST(ring_free_running_indices_wrap_per_queue)
{
	static const uint32_t start[4] = {
		0xfffffff6U, 0, 0x7ffffffcU, 0xfffffff1U
	};
	static uint8_t orig[4096];
	struct mfix m;
	uint32_t q, i;

	CHECK_EQ(setup(&m, 4, 16, start), 0);
	t_rand_bytes(orig, sizeof(orig));
	for (q = 0; q < 4; q++)
		for (i = 0; i < 14; i++) {
			memcpy(mfix_slice(&m, q) + 4096 * i, orig, 4096);
			post(&m, q, i, 4096 * i, 4096);
		}
	CHECK_EQ(mfix_start(&m), 0);
	for (q = 0; q < 4; q++) {
		uint32_t tail = start[q] + 14;

		CHECK_EQ(mfix_wait_cq(&m, q, tail), 0);
		CHECK_EQ(m.r.queues[q].qhdr->sq_head, tail);
		CHECK_EQ(m.r.queues[q].qhdr->cq_tail, tail);
		for (i = 0; i < 14; i++) {
			const struct gpu_aes_cqe *e = mfix_cqe(&m, q, start[q] + i);

			CHECK_EQ(e->tag, i);
			CHECK_EQ(e->seq, seq_of(q, i));
			CHECK_EQ(e->status, 0);
			CHECK(data_ok(&m, q, i, 4096 * i, 4096, orig));
		}
	}
	/* The kernel reaps; a second round of a full queue each. */
	for (q = 0; q < 4; q++) {
		mfix_reap(&m, q, start[q] + 14);
		for (i = 0; i < 16; i++) {
			memcpy(mfix_slice(&m, q) + 4096 * i, orig, 4096);
			post(&m, q, 100 + i, 4096 * i, 4096);
		}
	}
	for (q = 0; q < 4; q++) {
		uint32_t tail = start[q] + 14 + 16;

		CHECK_EQ(mfix_wait_cq(&m, q, tail), 0);
		CHECK_EQ(m.r.queues[q].qhdr->sq_head, tail);
		for (i = 0; i < 16; i++) {
			const struct gpu_aes_cqe *e =
				mfix_cqe(&m, q, start[q] + 14 + i);

			CHECK_EQ(e->tag, 100 + i);
			CHECK_EQ(e->seq, seq_of(q, 100 + i));
			CHECK(data_ok(&m, q, 100 + i, 4096 * i, 4096, orig));
		}
	}
	mfix_teardown(&m);
}

/*
 * Before it sleeps, the core sets NEED_WAKEUP on every queue: a kernel
 * that posts to any one of them sees the flag on its own queue and rings.
 * Each round posts to another queue; a flag missing there would leave the
 * entry unserved.
 */
TEST(ring_need_wakeup_on_every_queue)
{
	static uint8_t orig[4096];
	struct gpu_aes_core_stats st;
	struct mfix m;
	uint32_t i;

	CHECK_EQ(setup(&m, 4, 16, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	for (i = 0; i < 8; i++) {
		uint32_t q = (i * 3 + 1) % 4;

		/* Idle core: the flag on every queue, asleep in poll(). */
		CHECK_EQ(mfix_wait_asleep(&m, i + 1), 0);
		t_rand_bytes(orig, sizeof(orig));
		memcpy(mfix_slice(&m, q), orig, sizeof(orig));
		/* mfix_post sees the flag on queue q and rings the doorbell. */
		post(&m, q, i, 0, 4096);
		CHECK_EQ(mfix_wait_cq(&m, q, m.cq_head[q] + 1), 0);
		CHECK_EQ(mfix_cqe(&m, q, m.cq_head[q])->tag, i);
		CHECK(data_ok(&m, q, i, 0, 4096, orig));
		mfix_reap(&m, q, m.cq_head[q] + 1);
	}
	/* One sleep per idle period: the doorbell woke it each time. */
	CHECK_EQ(mfix_wait_asleep(&m, 9), 0);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.requests, 8);
	CHECK_EQ(st.batches, 8);
	mfix_teardown(&m);
}

/*
 * A CQ nobody reaps holds back its own queue only: the core posts nothing
 * over unreaped entries, keeps asking for a reap, and meanwhile completes
 * another queue's requests.
 */
TEST(ring_full_cq_blocks_only_its_queue)
{
	struct mfix m;
	uint32_t i, n;

	CHECK_EQ(setup(&m, 2, 16, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	for (i = 0; i < 16; i++)
		post(&m, 0, i, 64 * i, 64);
	CHECK_EQ(mfix_wait_cq(&m, 0, 16), 0);
	/* Queue 0's CQ is full and nobody reaps: more must wait. */
	for (i = 0; i < 5; i++)
		post(&m, 0, 16 + i, 64 * i, 64);
	/* The core asks for a reap again and again while it waits... */
	n = __atomic_load_n(&m.notifies, __ATOMIC_ACQUIRE);
	CHECK_EQ(mfix_wait_notifies(&m, n + 3), 0);
	/* ...and has posted nothing over the kernel's unreaped entries. */
	CHECK_EQ(__atomic_load_n(&m.r.queues[0].qhdr->cq_tail,
				 __ATOMIC_ACQUIRE), 16);
	CHECK_EQ(mfix_cqe(&m, 0, 0)->tag, 0);

	/* Queue 1 is served all the while, several times over. */
	for (n = 0; n < 3; n++) {
		for (i = 0; i < 16; i++)
			post(&m, 1, 200 + i, 64 * i, 64);
		CHECK_EQ(mfix_wait_cq(&m, 1, 16 * (n + 1)), 0);
		for (i = 0; i < 16; i++) {
			const struct gpu_aes_cqe *e = mfix_cqe(&m, 1, 16 * n + i);

			CHECK_EQ(e->tag, 200 + i);
			CHECK_EQ(e->seq, seq_of(1, 200 + i));
			CHECK_EQ(e->status, 0);
		}
		mfix_reap(&m, 1, 16 * (n + 1));
	}
	CHECK_EQ(__atomic_load_n(&m.r.queues[0].qhdr->cq_tail,
				 __ATOMIC_ACQUIRE), 16);

	/* Reaping three of queue 0 lets exactly three more through at first. */
	mfix_reap(&m, 0, 3);
	CHECK_EQ(mfix_wait_cq(&m, 0, 19), 0);
	n = __atomic_load_n(&m.notifies, __ATOMIC_ACQUIRE);
	CHECK_EQ(mfix_wait_notifies(&m, n + 3), 0);
	CHECK_EQ(__atomic_load_n(&m.r.queues[0].qhdr->cq_tail,
				 __ATOMIC_ACQUIRE), 19);
	mfix_reap(&m, 0, 19);
	CHECK_EQ(mfix_wait_cq(&m, 0, 21), 0);
	for (i = 16; i < 21; i++) {
		CHECK_EQ(mfix_cqe(&m, 0, i)->tag, i);
		CHECK_EQ(mfix_cqe(&m, 0, i)->seq, seq_of(0, i));
	}
	mfix_teardown(&m);
}

TEST(ring_wiped_key_leaves_no_host_copy)
{
	static uint8_t orig[4096];
	struct mfix m;

	CHECK_EQ(setup(&m, 2, 16, NULL), 0);
	CHECK_EQ(gpu_aes_backend_cpu_cached(m.be), 0);
	CHECK_EQ(mfix_start(&m), 0);
	CHECK_EQ(mfix_wait_asleep(&m, 1), 0);
	t_rand_bytes(orig, sizeof(orig));
	memcpy(mfix_slice(&m, 1), orig, sizeof(orig));
	post(&m, 1, 0, 0, 4096);
	CHECK_EQ(mfix_wait_cq(&m, 1, 1), 0);
	CHECK(data_ok(&m, 1, 0, 0, 4096, orig));
	/* Asleep again, still holding the key: the slot is live. */
	CHECK_EQ(mfix_wait_asleep(&m, 2), 0);
	CHECK(gpu_aes_backend_cpu_cached(m.be) > 0);
	/* The kernel frees the tfm: wipes the entry (gen back to 0). */
	explicit_bzero(&m.r.keys[0], sizeof(m.r.keys[0]));
	/*
	 * Any request wakes the core (this one fails: its key is gone); on
	 * its way back to sleep the core has the backend drop stale keys.
	 */
	post(&m, 0, 1, 0, 16);
	CHECK_EQ(mfix_wait_cq(&m, 0, 1), 0);
	CHECK_EQ(mfix_cqe(&m, 0, 0)->status, GPU_AES_STATUS_EINVAL);
	CHECK_EQ(mfix_wait_asleep(&m, 3), 0);
	CHECK_EQ(gpu_aes_backend_cpu_cached(m.be), 0);
	mfix_teardown(&m);
}

/* The same for the two-key XTS entries and GCM's contexts. */
TEST(ring_wiped_xts_gcm_keys_leave_no_host_copy)
{
	struct gpu_aes_sqe e[2];
	struct mfix m;
	uint8_t key[64];
	size_t i, left = 0;

	CHECK_EQ(setup(&m, 2, 16, NULL), 0);
	t_rand_bytes(key, sizeof(key));
	mfix_set_key(&m, 1, 1, key, 24, 24);
	mfix_set_key(&m, 2, 1, key, 32, 0);
	CHECK_EQ(mfix_start(&m), 0);
	CHECK_EQ(mfix_wait_asleep(&m, 1), 0);

	memset(e, 0, sizeof(e));
	e[0].tag = 0;
	e[0].alg = GPU_AES_ALG_XTS;
	e[0].dir = GPU_AES_DIR_DECRYPT;
	e[0].key_slot = 1;
	e[0].key_gen = 1;
	e[0].len = 4096 + 7;
	e[1].tag = 1;
	e[1].alg = GPU_AES_ALG_GCM;
	e[1].dir = GPU_AES_DIR_ENCRYPT;
	e[1].key_slot = 2;
	e[1].key_gen = 1;
	e[1].data_off = 8192;
	e[1].len = 100;
	e[1].aad_len = 20;
	e[1].auth_len = 16;
	mfix_post(&m, 0, e, 2);
	CHECK_EQ(mfix_wait_cq(&m, 0, 2), 0);
	CHECK_EQ(mfix_cqe(&m, 0, 0)->status, GPU_AES_STATUS_OK);
	CHECK_EQ(mfix_cqe(&m, 0, 1)->status, GPU_AES_STATUS_OK);
	CHECK_EQ(mfix_wait_asleep(&m, 2), 0);
	CHECK(gpu_aes_backend_cpu_cached(m.be) > 0);

	explicit_bzero(&m.r.keys[1], sizeof(m.r.keys[1]));
	explicit_bzero(&m.r.keys[2], sizeof(m.r.keys[2]));
	post(&m, 1, 2, 0, 16);
	CHECK_EQ(mfix_wait_cq(&m, 1, 1), 0);
	CHECK_EQ(mfix_cqe(&m, 1, 0)->status, GPU_AES_STATUS_OK);
	CHECK_EQ(mfix_wait_asleep(&m, 3), 0);
	/* Only slot 0's key (its non-zero bytes) and CTR context are left. */
	for (i = 0; i < sizeof(g_key); i++)
		left += g_key[i] != 0;
	CHECK_EQ(gpu_aes_backend_cpu_cached(m.be), left + 1);
	mfix_teardown(&m);
}

/*
 * A backend that holds every batch until the test lets it go (the cpu
 * backend finishes each before the core takes the next), and says how
 * many it works on at once.
 */
#define HOLD_BATCHES	6U

static struct hold_be {
	pthread_mutex_t lock;
	struct gpu_aes_batch *held[HOLD_BATCHES + 4];
	unsigned int nr, most;	/* held now, held at once at most */
	unsigned int taken;	/* batches submitted */
} g_hold;

static int hold_open(const struct gpu_aes_backend_config *cfg,
		     const struct gpu_aes_region *r,
		     struct gpu_aes_backend **out)
{
	(void)cfg;
	(void)r;
	*out = (struct gpu_aes_backend *)&g_hold;
	return 0;
}

static void hold_submit(struct gpu_aes_backend *be, struct gpu_aes_batch *b)
{
	(void)be;
	pthread_mutex_lock(&g_hold.lock);
	if (g_hold.nr < HOLD_BATCHES + 4)
		g_hold.held[g_hold.nr++] = b;
	if (g_hold.nr > g_hold.most)
		g_hold.most = g_hold.nr;
	g_hold.taken++;
	pthread_mutex_unlock(&g_hold.lock);
}

/* Completes the oldest held batch, its requests untouched; 0 or -1. */
static int hold_release_one(void)
{
	struct gpu_aes_batch *b;

	pthread_mutex_lock(&g_hold.lock);
	if (!g_hold.nr) {
		pthread_mutex_unlock(&g_hold.lock);
		return -1;
	}
	b = g_hold.held[0];
	g_hold.nr--;
	for (unsigned int i = 0; i < g_hold.nr; i++)
		g_hold.held[i] = g_hold.held[i + 1];
	pthread_mutex_unlock(&g_hold.lock);
	for (uint32_t i = 0; i < b->nr; i++)
		b->segs[i].status = GPU_AES_STATUS_OK;
	b->done(b);
	return 0;
}

/* Lets every held batch go: a failed test still tears down. */
static void hold_drain(struct gpu_aes_backend *be)
{
	(void)be;
	while (!hold_release_one())
		;
}

static void hold_close(struct gpu_aes_backend *be)
{
	hold_drain(be);
}

static unsigned int hold_max_batches(struct gpu_aes_backend *be)
{
	(void)be;
	return HOLD_BATCHES;
}

static const struct gpu_aes_backend_ops hold_ops = {
	.name = "hold",
	.algs = GPU_AES_ALGS_KNOWN,
	.open = hold_open,
	.submit = hold_submit,
	.drain = hold_drain,
	.close = hold_close,
	.max_batches = hold_max_batches,
};

static int hold_taken(void *arg)
{
	unsigned int n;

	pthread_mutex_lock(&g_hold.lock);
	n = g_hold.taken;
	pthread_mutex_unlock(&g_hold.lock);
	return n >= *(const unsigned int *)arg;
}

/*
 * The core keeps as many batches in the backend as it says it works on
 * at once, not a fixed four: with all of them held, a further request
 * waits in its queue until one is done, then goes as a batch of its own.
 */
TEST(ring_core_fills_the_backends_places)
{
	struct gpu_aes_core_stats st;
	unsigned int want;
	struct mfix m;
	uint32_t i;

	memset(&g_hold, 0, sizeof(g_hold));
	pthread_mutex_init(&g_hold.lock, NULL);
	CHECK_EQ(mfix_alloc(&m, 1, 16, 4, QDATA), 0);
	t_rand_bytes(g_key, sizeof(g_key));
	mfix_set_key(&m, 0, 1, g_key, 16, 0);
	CHECK_EQ(mfix_open(&m, &hold_ops, 0, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	/* One request at a time: each is a batch, and none comes back. */
	for (i = 0; i < HOLD_BATCHES; i++) {
		post(&m, 0, i, 64 * i, 64);
		want = i + 1;
		CHECK_EQ(wait_until(hold_taken, &want), 0);
	}
	post(&m, 0, HOLD_BATCHES, 64 * HOLD_BATCHES, 64);
	CHECK_EQ(hold_release_one(), 0);
	want = HOLD_BATCHES + 1;
	CHECK_EQ(wait_until(hold_taken, &want), 0);
	pthread_mutex_lock(&g_hold.lock);
	i = g_hold.most;
	pthread_mutex_unlock(&g_hold.lock);
	CHECK_EQ(i, HOLD_BATCHES);
	while (!hold_release_one())
		;
	CHECK_EQ(mfix_wait_cq(&m, 0, HOLD_BATCHES + 1), 0);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.batches, HOLD_BATCHES + 1);
	CHECK_EQ(st.requests, HOLD_BATCHES + 1);
	for (i = 0; i <= HOLD_BATCHES; i++) {
		CHECK_EQ(mfix_cqe(&m, 0, i)->tag, i);
		CHECK_EQ(mfix_cqe(&m, 0, i)->status, GPU_AES_STATUS_OK);
	}
	mfix_teardown(&m);
	pthread_mutex_destroy(&g_hold.lock);
}
