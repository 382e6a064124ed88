// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ring logic of the core, driven by hand: this test writes submission
 * entries and reads completions the way gpu_aes.ko does, so it can choose
 * index values (wrap-around), stop reaping (CQ full) and see exactly what
 * the core did per wake-up.  Core, backend (cpu) and transport are real.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "aes_key.h"
#include "backend_cpu.h"
#include "core.h"
#include "harness.h"
#include "region.h"
#include "transport.h"
#include "util.h"

struct manual {
	struct gpu_aes_region r;
	const struct gpu_aes_backend_ops *ops;
	struct gpu_aes_backend *be;
	struct gpu_aes_transport *t;
	struct gpu_aes_core *core;
	pthread_t thread;
	int running;
	uint32_t notifies;	/* atomic */
	uint32_t sq_tail;
	uint8_t key[16];
};

static int m_reap(void *arg)
{
	struct manual *m = arg;

	__atomic_fetch_add(&m->notifies, 1, __ATOMIC_RELAXED);
	return 0;
}

static void *m_run(void *arg)
{
	struct manual *m = arg;

	gpu_aes_core_run(m->core);
	return NULL;
}

static int m_setup(struct manual *m, uint32_t entries, uint32_t start)
{
	struct gpu_aes_core_config cfg = { .spin_us = 0 };
	struct gpu_aes_region_hdr *h;

	memset(m, 0, sizeof(*m));
	if (gpu_aes_region_alloc(entries, 4, 1 << 20, &m->r, NULL))
		return -1;
	gpu_aes_region_init_hdr(&m->r);
	h = m->r.hdr;
	h->sq_head = h->sq_tail = h->cq_head = h->cq_tail = start;
	m->sq_tail = start;
	t_rand_bytes(m->key, sizeof(m->key));
	if (gpu_aes_expand_key(m->key, 16, &m->r.keys[0]))
		return -1;
	m->r.keys[0].gen = 1;
	m->ops = &gpu_aes_backend_cpu;
	if (m->ops->open(NULL, &m->r, &m->be))
		return -1;
	if (gpu_aes_transport_inproc_open(m_reap, m, &m->t))
		return -1;
	return gpu_aes_core_create(&m->r, m->ops, m->be, m->t, &cfg, &m->core);
}

static int m_start(struct manual *m)
{
	if (pthread_create(&m->thread, NULL, m_run, m))
		return -1;
	m->running = 1;
	return 0;
}

static void m_teardown(struct manual *m)
{
	if (m->running) {
		gpu_aes_core_stop(m->core);
		pthread_join(m->thread, NULL);
	}
	gpu_aes_core_destroy(m->core);
	if (m->be)
		m->ops->close(m->be);
	if (m->t)
		m->t->ops->close(m->t);
	gpu_aes_region_free(&m->r);
}

/*
 * Publishes nr entries with one tail update as the kernel would (so the
 * core sees them in one wake-up), ringing only a sleeping core.
 */
static void m_post_sqes(struct manual *m, const struct gpu_aes_sqe *sqe,
			uint32_t nr)
{
	uint64_t one = 1;
	uint32_t i;

	for (i = 0; i < nr; i++)
		m->r.sq[m->sq_tail++ & (m->r.nr_entries - 1)] = sqe[i];
	__atomic_store_n(&m->r.hdr->sq_tail, m->sq_tail, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&m->r.hdr->helper_flags, __ATOMIC_RELAXED) &
	    GPU_AES_HELPER_NEED_WAKEUP) {
		ssize_t n = write(gpu_aes_transport_inproc_doorbell(m->t),
				  &one, sizeof(one));
		(void)n;
	}
}

/* Posts a CTR request over data [off, off+len) with the slot 0 key. */
static void m_post(struct manual *m, uint32_t tag, uint64_t off, uint32_t len)
{
	struct gpu_aes_sqe e;

	memset(&e, 0, sizeof(e));
	e.tag = tag;
	e.seq = tag * 3 + 1;
	e.alg = GPU_AES_ALG_CTR;
	e.dir = GPU_AES_DIR_ENCRYPT;
	e.key_slot = 0;
	e.key_gen = 1;
	e.data_off = off;
	e.len = len;
	memset(e.iv, (int)tag, sizeof(e.iv));
	m_post_sqes(m, &e, 1);
}

struct cq_wait {
	struct manual *m;
	uint32_t tail;
};

static int cq_reached(void *arg)
{
	struct cq_wait *w = arg;

	return __atomic_load_n(&w->m->r.hdr->cq_tail, __ATOMIC_ACQUIRE) ==
	       w->tail;
}

static int m_wait_cq(struct manual *m, uint32_t tail)
{
	struct cq_wait w = { m, tail };

	return wait_until(cq_reached, &w);
}

struct sleep_wait {
	struct manual *m;
	uint64_t sleeps;
};

static int asleep(void *arg)
{
	struct sleep_wait *w = arg;
	struct gpu_aes_core_stats st;

	gpu_aes_core_get_stats(w->m->core, &st);
	return st.sleeps == w->sleeps &&
	       (__atomic_load_n(&w->m->r.hdr->helper_flags, __ATOMIC_ACQUIRE) &
		GPU_AES_HELPER_NEED_WAKEUP);
}

static int m_wait_asleep(struct manual *m, uint64_t sleeps)
{
	struct sleep_wait w = { m, sleeps };

	return wait_until(asleep, &w);
}

struct notify_wait {
	struct manual *m;
	uint32_t at_least;
};

static int notified(void *arg)
{
	struct notify_wait *w = arg;

	return __atomic_load_n(&w->m->notifies, __ATOMIC_RELAXED) >=
	       w->at_least;
}

/* Checks request `tag` over [off, off+len) against OpenSSL. */
static int m_data_ok(struct manual *m, uint32_t tag, uint64_t off,
		     uint32_t len, const uint8_t *orig)
{
	uint8_t iv[16], ref[4096];

	memset(iv, (int)tag, sizeof(iv));
	if (len > sizeof(ref) ||
	    ref_crypt(GPU_AES_ALG_CTR, 0, m->key, 16, iv, orig, ref, len))
		return 0;
	return !memcmp(ref, m->r.data + off, len);
}

TEST(ring_batch_takes_all_pending_in_order)
{
	static uint8_t orig[10][4096];
	struct gpu_aes_core_stats st;
	struct notify_wait nw;
	struct manual m;
	uint32_t i;

	CHECK_EQ(m_setup(&m, 16, 0), 0);
	for (i = 0; i < 10; i++) {
		t_rand_bytes(orig[i], sizeof(orig[i]));
		memcpy(m.r.data + 4096 * i, orig[i], 4096);
		m_post(&m, 9 - i, 4096 * i, 100 + 397 * i);
	}
	CHECK_EQ(m_start(&m), 0);
	CHECK_EQ(m_wait_cq(&m, 10), 0);
	/* The notification follows the publication of cq_tail. */
	nw.m = &m;
	nw.at_least = 1;
	CHECK_EQ(wait_until(notified, &nw), 0);
	gpu_aes_core_get_stats(m.core, &st);
	/* All ten in one batch, one notification for it. */
	CHECK_EQ(st.batches, 1);
	CHECK_EQ(st.requests, 10);
	CHECK_EQ(st.bytes, 10 * 100 + 397 * 45);
	CHECK_EQ(__atomic_load_n(&m.notifies, __ATOMIC_RELAXED), 1);
	CHECK_EQ(m.r.hdr->sq_head, 10);
	for (i = 0; i < 10; i++) {
		CHECK_EQ(m.r.cq[i].tag, 9 - i);
		CHECK_EQ(m.r.cq[i].seq, (9 - i) * 3 + 1);
		CHECK_EQ(m.r.cq[i].status, GPU_AES_STATUS_OK);
		CHECK(m_data_ok(&m, 9 - i, 4096 * i, 100 + 397 * i, orig[i]));
	}
	m_teardown(&m);
}

TEST(ring_free_running_indices_wrap)
{
	static uint8_t orig[4096];
	const uint32_t start = 0xfffffff6U;
	struct manual m;
	uint32_t i, tail;

	CHECK_EQ(m_setup(&m, 16, start), 0);
	t_rand_bytes(orig, sizeof(orig));
	for (i = 0; i < 14; i++) {
		memcpy(m.r.data + 4096 * i, orig, 4096);
		m_post(&m, i, 4096 * i, 4096);
	}
	CHECK_EQ(m_start(&m), 0);
	tail = start + 14;
	CHECK_EQ(m_wait_cq(&m, tail), 0);
	CHECK_EQ(m.r.hdr->sq_head, 4);
	CHECK_EQ(m.r.hdr->cq_tail, 4);
	for (i = 0; i < 14; i++) {
		const struct gpu_aes_cqe *e = &m.r.cq[(start + i) & 15];

		CHECK_EQ(e->tag, i);
		CHECK_EQ(e->status, 0);
		CHECK(m_data_ok(&m, i, 4096 * i, 4096, orig));
	}
	/* The kernel reaps; a second round runs entirely past the wrap. */
	__atomic_store_n(&m.r.hdr->cq_head, tail, __ATOMIC_RELEASE);
	for (i = 0; i < 16; i++) {
		memcpy(m.r.data + 4096 * i, orig, 4096);
		m_post(&m, 100 + i, 4096 * i, 4096);
	}
	CHECK_EQ(m_wait_cq(&m, tail + 16), 0);
	for (i = 0; i < 16; i++) {
		CHECK_EQ(m.r.cq[(tail + i) & 15].tag, 100 + i);
		CHECK(m_data_ok(&m, 100 + i, 4096 * i, 4096, orig));
	}
	m_teardown(&m);
}

TEST(ring_need_wakeup_handshake)
{
	static uint8_t orig[4096];
	struct gpu_aes_core_stats st;
	struct manual m;
	uint32_t i;

	CHECK_EQ(m_setup(&m, 16, 0), 0);
	CHECK_EQ(m_start(&m), 0);
	for (i = 0; i < 5; i++) {
		/* Idle core: flag set, asleep in poll(). */
		CHECK_EQ(m_wait_asleep(&m, i + 1), 0);
		t_rand_bytes(orig, sizeof(orig));
		memcpy(m.r.data, orig, sizeof(orig));
		/* m_post sees the flag and rings the doorbell. */
		m_post(&m, i, 0, 4096);
		CHECK_EQ(m_wait_cq(&m, i + 1), 0);
		CHECK(m_data_ok(&m, i, 0, 4096, orig));
		__atomic_store_n(&m.r.hdr->cq_head, i + 1, __ATOMIC_RELEASE);
	}
	/* One sleep per idle period: the doorbell woke it each time. */
	CHECK_EQ(m_wait_asleep(&m, 6), 0);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.requests, 5);
	CHECK_EQ(st.batches, 5);
	m_teardown(&m);
}

TEST(ring_never_more_completions_than_entries)
{
	struct notify_wait nw;
	struct manual m;
	uint32_t i;

	CHECK_EQ(m_setup(&m, 16, 0), 0);
	CHECK_EQ(m_start(&m), 0);
	for (i = 0; i < 16; i++)
		m_post(&m, i, 64 * i, 64);
	CHECK_EQ(m_wait_cq(&m, 16), 0);
	/* The CQ is full and nobody reaps: more submissions must wait. */
	for (i = 0; i < 5; i++)
		m_post(&m, 16 + i, 64 * i, 64);
	/* The core asks for a reap again and again while it waits... */
	nw.m = &m;
	nw.at_least = __atomic_load_n(&m.notifies, __ATOMIC_RELAXED) + 3;
	CHECK_EQ(wait_until(notified, &nw), 0);
	/* ...and has posted nothing over the producer's unreaped entries. */
	CHECK_EQ(__atomic_load_n(&m.r.hdr->cq_tail, __ATOMIC_ACQUIRE), 16);
	CHECK_EQ(m.r.cq[0].tag, 0);
	/* Reaping three entries lets exactly three more through at first. */
	__atomic_store_n(&m.r.hdr->cq_head, 3, __ATOMIC_RELEASE);
	CHECK_EQ(m_wait_cq(&m, 19), 0);
	nw.at_least = __atomic_load_n(&m.notifies, __ATOMIC_RELAXED) + 3;
	CHECK_EQ(wait_until(notified, &nw), 0);
	CHECK_EQ(__atomic_load_n(&m.r.hdr->cq_tail, __ATOMIC_ACQUIRE), 19);
	__atomic_store_n(&m.r.hdr->cq_head, 19, __ATOMIC_RELEASE);
	CHECK_EQ(m_wait_cq(&m, 21), 0);
	for (i = 16; i < 21; i++)
		CHECK_EQ(m.r.cq[i & 15].tag, i);
	m_teardown(&m);
}

TEST(ring_wiped_key_leaves_no_host_copy)
{
	static uint8_t orig[4096];
	struct manual m;

	CHECK_EQ(m_setup(&m, 16, 0), 0);
	CHECK_EQ(gpu_aes_backend_cpu_cached(m.be), 0);
	CHECK_EQ(m_start(&m), 0);
	CHECK_EQ(m_wait_asleep(&m, 1), 0);
	t_rand_bytes(orig, sizeof(orig));
	memcpy(m.r.data, orig, sizeof(orig));
	m_post(&m, 0, 0, 4096);
	CHECK_EQ(m_wait_cq(&m, 1), 0);
	CHECK(m_data_ok(&m, 0, 0, 4096, orig));
	/* Asleep again, still holding the key: the slot is live. */
	CHECK_EQ(m_wait_asleep(&m, 2), 0);
	CHECK(gpu_aes_backend_cpu_cached(m.be) > 0);
	/* The kernel frees the tfm: wipes the entry (gen back to 0). */
	explicit_bzero(&m.r.keys[0], sizeof(m.r.keys[0]));
	/*
	 * Any request wakes the core (this one fails: its key is gone); on
	 * its way back to sleep the core has the backend drop stale keys.
	 */
	m_post(&m, 1, 0, 16);
	CHECK_EQ(m_wait_cq(&m, 2), 0);
	CHECK_EQ(m.r.cq[1].status, GPU_AES_STATUS_EINVAL);
	CHECK_EQ(m_wait_asleep(&m, 3), 0);
	CHECK_EQ(gpu_aes_backend_cpu_cached(m.be), 0);
	m_teardown(&m);
}

/* The same for the two-key XTS entries and GCM's contexts. */
TEST(ring_wiped_xts_gcm_keys_leave_no_host_copy)
{
	struct gpu_aes_sqe e[2];
	struct manual m;
	uint8_t key[64];
	size_t i, left = 0;

	CHECK_EQ(m_setup(&m, 16, 0), 0);
	t_rand_bytes(key, sizeof(key));
	CHECK_EQ(gpu_aes_expand_xts_key(key, 48, &m.r.keys[1]), 0);
	m.r.keys[1].gen = 1;
	CHECK_EQ(gpu_aes_expand_key(key, 32, &m.r.keys[2]), 0);
	m.r.keys[2].gen = 1;
	CHECK_EQ(m_start(&m), 0);
	CHECK_EQ(m_wait_asleep(&m, 1), 0);

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
	m_post_sqes(&m, e, 2);
	CHECK_EQ(m_wait_cq(&m, 2), 0);
	CHECK_EQ(m.r.cq[0].status, GPU_AES_STATUS_OK);
	CHECK_EQ(m.r.cq[1].status, GPU_AES_STATUS_OK);
	CHECK_EQ(m_wait_asleep(&m, 2), 0);
	CHECK(gpu_aes_backend_cpu_cached(m.be) > 0);

	explicit_bzero(&m.r.keys[1], sizeof(m.r.keys[1]));
	explicit_bzero(&m.r.keys[2], sizeof(m.r.keys[2]));
	m_post(&m, 2, 0, 16);
	CHECK_EQ(m_wait_cq(&m, 3), 0);
	CHECK_EQ(m.r.cq[2].status, GPU_AES_STATUS_OK);
	CHECK_EQ(m_wait_asleep(&m, 3), 0);
	/* Only slot 0's key (its non-zero bytes) and CTR context are left. */
	for (i = 0; i < sizeof(m.key); i++)
		left += m.key[i] != 0;
	CHECK_EQ(gpu_aes_backend_cpu_cached(m.be), left + 1);
	m_teardown(&m);
}
