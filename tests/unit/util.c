// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "harness.h"
#include "util.h"

/*
 * XCTR as HCTR2 defines it, a block at a time: a 128-bit little-endian
 * counter i from 1, carried across all 16 bytes, XORed into the IV and
 * encrypted with OpenSSL's ECB; in place or not.
 */
static int ref_xctr(const uint8_t *key, size_t key_len, const uint8_t *iv,
		    const uint8_t *in, uint8_t *out, size_t len)
{
	const EVP_CIPHER *c = key_len == 16 ? EVP_aes_128_ecb() :
			      key_len == 24 ? EVP_aes_192_ecb() :
			      EVP_aes_256_ecb();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	uint8_t ctr[16] = { 1 }, blk[16], ks[16];
	int outl = 0, ok, k;
	size_t off, j, n;

	ok = ctx && EVP_EncryptInit_ex(ctx, c, NULL, key, NULL) == 1 &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
	for (off = 0; ok && off < len; off += n) {
		n = len - off;
		if (n > 16)
			n = 16;
		for (j = 0; j < 16; j++)
			blk[j] = iv[j] ^ ctr[j];
		ok = EVP_EncryptUpdate(ctx, ks, &outl, blk, 16) == 1 &&
		     outl == 16;
		for (j = 0; j < n; j++)
			out[off + j] = in[off + j] ^ ks[j];
		for (k = 0; k < 16 && !++ctr[k]; k++)
			;
	}
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

int ref_crypt(unsigned int alg, unsigned int dir, const uint8_t *key,
	      size_t key_len, const uint8_t *iv, const uint8_t *in,
	      uint8_t *out, size_t len)
{
	const EVP_CIPHER *c;
	EVP_CIPHER_CTX *ctx;
	int outl = 0, ok;

	if (alg == GPU_AES_ALG_XCTR)
		return ref_xctr(key, key_len, iv, in, out, len);
	if (alg == GPU_AES_ALG_ECB)
		c = key_len == 16 ? EVP_aes_128_ecb() :
		    key_len == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
	else if (alg == GPU_AES_ALG_CBC)
		c = key_len == 16 ? EVP_aes_128_cbc() :
		    key_len == 24 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
	else if (alg == GPU_AES_ALG_CTR)
		c = key_len == 16 ? EVP_aes_128_ctr() :
		    key_len == 24 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
	else
		return -1;	/* no reference here for that mode */
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, key,
			       alg == GPU_AES_ALG_ECB ? NULL : iv,
			       alg == GPU_AES_ALG_CTR ||
			       dir == GPU_AES_DIR_ENCRYPT) == 1 &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
	     (len == 0 ||
	      EVP_CipherUpdate(ctx, out, &outl, in, (int)len) == 1);
	EVP_CIPHER_CTX_free(ctx);
	return ok && (size_t)outl == len ? 0 : -1;
}

int ref_xts(unsigned int dir, const uint8_t *key, size_t key_len,
	    const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	const EVP_CIPHER *c = key_len == 32 ? EVP_aes_128_xts() :
			      key_len == 64 ? EVP_aes_256_xts() : NULL;
	EVP_CIPHER_CTX *ctx;
	int outl = 0, ok;

	if (!c)
		return -1;
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, key, iv,
			       dir == GPU_AES_DIR_ENCRYPT) == 1 &&
	     EVP_CipherUpdate(ctx, out, &outl, in, (int)len) == 1;
	EVP_CIPHER_CTX_free(ctx);
	return ok && (size_t)outl == len ? 0 : -1;
}

int ref_gcm(unsigned int dir, const uint8_t *key, size_t key_len,
	    const uint8_t *iv, const uint8_t *aad, size_t aad_len,
	    const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag,
	    size_t auth_len)
{
	const EVP_CIPHER *c = key_len == 16 ? EVP_aes_128_gcm() :
			      key_len == 24 ? EVP_aes_192_gcm() :
			      EVP_aes_256_gcm();
	int enc = dir == GPU_AES_DIR_ENCRYPT, outl = 0, ok, ret = -1;
	EVP_CIPHER_CTX *ctx;
	uint8_t fin[16];

	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -1;
	ok = EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) == 1 &&
	     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
	     EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc) == 1 &&
	     (!aad_len ||
	      EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)aad_len) == 1) &&
	     (!len || (EVP_CipherUpdate(ctx, out, &outl, in, (int)len) == 1 &&
		       (size_t)outl == len)) &&
	     (enc || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG,
					 (int)auth_len, tag) == 1);
	if (ok && enc)
		ret = EVP_CipherFinal_ex(ctx, fin, &outl) == 1 &&
		      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG,
					  (int)auth_len, tag) == 1 ? 0 : -1;
	else if (ok)
		ret = EVP_CipherFinal_ex(ctx, fin, &outl) == 1 ? 0 : 1;
	EVP_CIPHER_CTX_free(ctx);
	return ret;
}

void kfix_config(struct kring_host_config *cfg, uint32_t queues,
		 uint32_t entries, uint64_t queue_data, unsigned int threads,
		 unsigned int spin_us)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ops = &gpu_aes_backend_cpu;
	cfg->backend.threads = threads;
	cfg->core.spin_us = spin_us;
	cfg->nr_queues = queues;
	cfg->queue_entries = entries;
	cfg->nr_keys = 64;
	cfg->queue_data_size = queue_data;
}

/* The host a test started and has not stopped, for kfix_after_test(). */
static struct kring_host *kfix_live;

static int kfix_after_test(void)
{
	if (!kfix_live)
		return 0;
	kring_host_stop(kfix_live);
	kfix_live = NULL;
	return 1;
}

__attribute__((constructor)) static void kfix_register(void)
{
	t_after_each(kfix_after_test);
}

/* The module's init, once: it names the per-algorithm counters too. */
static int kring_ready(void)
{
	static int ready;
	int err;

	if (ready)
		return 0;
	err = kring_init();
	if (!err)
		ready = 1;
	return err;
}

int kfix_prepare(void)
{
	int err = kring_ready();

	if (err)
		return err;
	kring_set_params(0, 1U << 20, 60000);
	/* The ring, whatever the policy would choose: it is what is tested. */
	kring_set_dispatch("ring");
	return 0;
}

int kfix_start_cfg(struct kfix *f, const struct kring_host_config *cfg)
{
	int err;

	f->host = NULL;
	err = kfix_prepare();
	if (err)
		return err;
	err = kring_host_start(cfg, &f->host);
	if (!err)
		kfix_live = f->host;
	return err;
}

int kfix_start(struct kfix *f, uint32_t queues, uint32_t entries,
	       uint64_t queue_data, unsigned int threads,
	       unsigned int spin_us)
{
	struct kring_host_config cfg;

	kfix_config(&cfg, queues, entries, queue_data, threads, spin_us);
	return kfix_start_cfg(f, &cfg);
}

void kfix_stop(struct kfix *f)
{
	if (f->host)
		kring_host_stop(f->host);
	if (f->host == kfix_live)
		kfix_live = NULL;
	f->host = NULL;
}

struct kring_host *kfix_release(struct kfix *f)
{
	struct kring_host *h = f->host;

	if (h == kfix_live)
		kfix_live = NULL;
	f->host = NULL;
	return h;
}

int64_t kstat(const char *name)
{
	/* A test may read a counter before its first kfix_start(). */
	if (kring_ready())
		return -1;
	return kring_stat(name);
}

struct kring_tfm *kr_tfm(unsigned int alg, const uint8_t *key, size_t len)
{
	struct kring_tfm *t;

	if (kring_tfm_new((enum gpu_aes_alg)alg, key, (unsigned int)len, &t))
		return NULL;
	return t;
}

int kr_req_run(struct kring_tfm *t, unsigned int dir, const uint8_t *src,
	       uint8_t *dst, uint32_t len, uint32_t aad_len, uint8_t *iv)
{
	struct kring_req *req = kring_req_new(t);
	struct result r = { 0 };
	int ret;

	if (!req)
		return -ENOMEM;
	kring_req_set(req, (enum gpu_aes_dir)dir, src, dst, len, aad_len, iv,
		      KRING_MAY_BACKLOG, on_done, &r);
	ret = kring_submit(req);
	if (ret == -EINPROGRESS || ret == -EBUSY)
		ret = wait_until(is_done, &r) ? -ETIME : r.status;
	kring_req_free(req);
	return ret;
}

int kr_run(struct kring_tfm *t, unsigned int dir, const uint8_t *iv,
	   const uint8_t *in, uint8_t *out, uint32_t len)
{
	uint8_t ivc[16] = { 0 };

	if (iv)
		memcpy(ivc, iv, 16);
	return kr_req_run(t, dir, in, out, len, 0, ivc);
}

int kr_run_gcm(struct kring_tfm *t, unsigned int dir, const uint8_t *iv,
	       const uint8_t *aad, uint32_t aad_len, const uint8_t *in,
	       uint8_t *out, uint32_t len, uint8_t *tag)
{
	size_t all = (size_t)aad_len + len + 16;
	uint8_t *src = malloc(all), *dst = malloc(all), ivc[16] = { 0 };
	unsigned int auth = kring_tfm_authsize(t);
	int ret = -ENOMEM;

	if (!src || !dst)
		goto out;
	memcpy(ivc, iv, 12);
	if (aad_len)
		memcpy(src, aad, aad_len);
	if (len)
		memcpy(src + aad_len, in, len);
	if (dir == GPU_AES_DIR_DECRYPT)
		memcpy(src + aad_len + len, tag, auth);
	ret = kr_req_run(t, dir, src, dst, len, aad_len, ivc);
	if (!ret && len)
		memcpy(out, dst + aad_len, len);
	if (!ret && dir == GPU_AES_DIR_ENCRYPT)
		memcpy(tag, dst + aad_len + len, auth);
out:
	free(src);
	free(dst);
	return ret;
}

int wait_until(int (*cond)(void *arg), void *arg)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 100000 };
	long i;

	/* A hang guard, never an assertion about speed. */
	for (i = 0; i < 200000; i++) {
		if (cond(arg))
			return 0;
		if (i < 1000)
			sched_yield();
		else
			nanosleep(&ts, NULL);
	}
	return -1;
}

void on_done(void *cookie, int status)
{
	struct result *r = cookie;

	if (status == -EINPROGRESS) {
		r->admitted++;
		return;
	}
	if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
		r->status = -EALREADY;	/* completed twice */
	else
		r->status = status;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

int is_done(void *arg)
{
	return __atomic_load_n(&((struct result *)arg)->done, __ATOMIC_ACQUIRE);
}

/* ---- the core driven by hand (struct mfix) ---- */

static int mfix_notify(void *arg, uint32_t qid)
{
	struct mfix *m = arg;

	__atomic_store_n(&m->notify_qid, qid, __ATOMIC_RELAXED);
	if (qid == GPU_AES_ALL_QUEUES)
		__atomic_fetch_add(&m->notifies_all, 1, __ATOMIC_RELAXED);
	/* After the fields above: a waiter on the count sees them. */
	__atomic_fetch_add(&m->notifies, 1, __ATOMIC_RELEASE);
	return m->on_reap ? m->on_reap(m->on_reap_arg, qid) : 0;
}

static void *mfix_main(void *arg)
{
	struct mfix *m = arg;

	gpu_aes_core_run(m->core);
	return NULL;
}

int mfix_alloc(struct mfix *m, uint32_t queues, uint32_t entries,
	       uint32_t nr_keys, uint64_t queue_data)
{
	struct gpu_aes_geometry g;

	memset(m, 0, sizeof(*m));
	if (queues > MFIX_MAX_QUEUES ||
	    gpu_aes_region_geometry(queues, entries, nr_keys, queue_data, &g) ||
	    gpu_aes_region_alloc(&g, &m->r, NULL))
		return -1;
	gpu_aes_region_init_hdr(&m->r);
	return 0;
}

void mfix_set_index(struct mfix *m, uint32_t q, uint32_t idx)
{
	struct gpu_aes_queue_hdr *h = m->r.queues[q].qhdr;

	h->sq_head = idx;
	h->sq_tail = idx;
	h->cq_head = idx;
	h->cq_tail = idx;
	m->sq_tail[q] = idx;
	m->cq_head[q] = idx;
}

void mfix_set_key(struct mfix *m, uint32_t slot, uint32_t gen,
		  const uint8_t *key, uint32_t key_len, uint32_t tweak_len)
{
	struct gpu_aes_key *k = &m->r.keys[slot];

	memset(k, 0, sizeof(*k));
	memcpy(k->key, key, key_len + tweak_len);
	k->key_len = key_len;
	k->tweak_len = tweak_len;
	k->gen = gen;
}

int mfix_open(struct mfix *m, const struct gpu_aes_backend_ops *ops,
	      unsigned int threads, const struct gpu_aes_core_config *cfg)
{
	struct gpu_aes_backend_config bcfg = { .threads = threads };
	struct gpu_aes_core_config dflt = { .spin_us = 0 };

	m->ops = ops ? ops : &gpu_aes_backend_cpu;
	if (m->ops->open(&bcfg, &m->r, &m->be)) {
		m->be = NULL;
		return -1;
	}
	if (gpu_aes_transport_inproc_open(mfix_notify, m, &m->t)) {
		m->t = NULL;
		return -1;
	}
	if (gpu_aes_core_create(&m->r, m->ops, m->be, m->t, cfg ? cfg : &dflt,
				&m->core)) {
		m->core = NULL;
		return -1;
	}
	return 0;
}

int mfix_start(struct mfix *m)
{
	if (!m->core || pthread_create(&m->thread, NULL, mfix_main, m))
		return -1;
	m->running = 1;
	return 0;
}

void mfix_stop(struct mfix *m)
{
	if (m->running) {
		gpu_aes_core_stop(m->core);
		pthread_join(m->thread, NULL);
		m->running = 0;
	}
}

void mfix_teardown(struct mfix *m)
{
	mfix_stop(m);
	gpu_aes_core_destroy(m->core);
	m->core = NULL;
	if (m->be)
		m->ops->close(m->be);
	m->be = NULL;
	if (m->t)
		m->t->ops->close(m->t);
	m->t = NULL;
	gpu_aes_region_free(&m->r);
}

uint8_t *mfix_slice(struct mfix *m, uint32_t q)
{
	return m->r.data + (size_t)q * m->r.queue_data_size;
}

void mfix_post(struct mfix *m, uint32_t q, const struct gpu_aes_sqe *sqe,
	       uint32_t nr)
{
	const struct gpu_aes_region_queue *rq = &m->r.queues[q];
	uint64_t one = 1;
	uint32_t i;

	for (i = 0; i < nr; i++)
		rq->sq[m->sq_tail[q]++ & (m->r.queue_entries - 1)] = sqe[i];
	__atomic_store_n(&rq->qhdr->sq_tail, m->sq_tail[q], __ATOMIC_RELEASE);
	/* Tail before flag; pairs with the core's fence after setting it. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rq->qhdr->helper_flags, __ATOMIC_RELAXED) &
	    GPU_AES_HELPER_NEED_WAKEUP) {
		ssize_t n = write(gpu_aes_transport_inproc_doorbell(m->t),
				  &one, sizeof(one));
		(void)n;
	}
}

struct mfix_cq_wait {
	struct mfix *m;
	uint32_t q;
	uint32_t tail;
};

static int mfix_cq_reached(void *arg)
{
	struct mfix_cq_wait *w = arg;

	return __atomic_load_n(&w->m->r.queues[w->q].qhdr->cq_tail,
			       __ATOMIC_ACQUIRE) == w->tail;
}

int mfix_wait_cq(struct mfix *m, uint32_t q, uint32_t tail)
{
	struct mfix_cq_wait w = { m, q, tail };

	return wait_until(mfix_cq_reached, &w);
}

struct mfix_sleep_wait {
	struct mfix *m;
	uint64_t sleeps;
};

static int mfix_asleep(void *arg)
{
	struct mfix_sleep_wait *w = arg;
	struct gpu_aes_core_stats st;
	uint32_t q;

	gpu_aes_core_get_stats(w->m->core, &st);
	if (st.sleeps != w->sleeps)
		return 0;
	for (q = 0; q < w->m->r.nr_queues; q++)
		if (!(__atomic_load_n(&w->m->r.queues[q].qhdr->helper_flags,
				      __ATOMIC_ACQUIRE) &
		      GPU_AES_HELPER_NEED_WAKEUP))
			return 0;
	return 1;
}

int mfix_wait_asleep(struct mfix *m, uint64_t sleeps)
{
	struct mfix_sleep_wait w = { m, sleeps };

	return wait_until(mfix_asleep, &w);
}

struct mfix_notify_wait {
	struct mfix *m;
	uint32_t n;
};

static int mfix_notified(void *arg)
{
	struct mfix_notify_wait *w = arg;

	return __atomic_load_n(&w->m->notifies, __ATOMIC_ACQUIRE) >= w->n;
}

int mfix_wait_notifies(struct mfix *m, uint32_t n)
{
	struct mfix_notify_wait w = { m, n };

	return wait_until(mfix_notified, &w);
}

const struct gpu_aes_cqe *mfix_cqe(const struct mfix *m, uint32_t q,
				   uint32_t idx)
{
	return &m->r.queues[q].cq[idx & (m->r.queue_entries - 1)];
}

void mfix_reap(struct mfix *m, uint32_t q, uint32_t idx)
{
	m->cq_head[q] = idx;
	__atomic_store_n(&m->r.queues[q].qhdr->cq_head, idx, __ATOMIC_RELEASE);
}

int32_t mfix_run_one(struct mfix *m, uint32_t q, const struct gpu_aes_sqe *sqe)
{
	uint32_t idx = m->cq_head[q];
	const struct gpu_aes_cqe *e;
	int32_t status;

	mfix_post(m, q, sqe, 1);
	if (mfix_wait_cq(m, q, idx + 1))
		return MFIX_HUNG;
	e = mfix_cqe(m, q, idx);
	if (e->tag != sqe->tag || e->seq != sqe->seq)
		return MFIX_HUNG;
	status = e->status;
	mfix_reap(m, q, idx + 1);
	return status;
}

void t_ctr_add(uint8_t iv[16], uint32_t len)
{
	uint32_t blocks = (len + 15) / 16;
	int i;

	for (i = 15; i >= 0 && blocks; i--) {
		uint32_t v = iv[i] + (blocks & 0xff);

		iv[i] = (uint8_t)v;
		blocks = (blocks >> 8) + (v >> 8);
	}
}
