// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_backend - the GPU correctness suite through the path the kernel
 * runs: kmod/'s own request path (built in userspace by kring/) copies
 * each request into its CPU's queue and posts it, the real helper core
 * batches across queues, the cuda backend runs it, the kernel code copies
 * the result out and completes it; every byte is compared with OpenSSL.
 *
 * Phase 1, one submitter: random keys of each size (re-keyed between
 * rounds), random IVs including carries across 2^32/2^64/2^128, random
 * lengths 1 B..64 MiB, random mixes of algorithms, directions and keys per
 * batch, in place and out of place, outputs poisoned first.  XTS (every
 * key size, equal halves, ciphertext stealing) against OpenSSL's XTS for
 * 128/256-bit keys and XTS composed from OpenSSL's AES-ECB for the others;
 * GCM (every key size, 0..64 KiB of AAD, empty to MiB texts, every tag
 * size) against OpenSSL's GCM; decryptions with a flipped bit in the tag,
 * the ciphertext or the AAD must fail with exactly -EBADMSG and leave the
 * output buffer untouched.
 * Phase 2: 8 submitters on 8 CPUs, hence 8 queues, at once, so batches mix
 * queues.
 * Phase 3: the helper dies (kring_host_kill) with batches in flight on the
 * GPU: every request completes exactly once, with the right bytes, and the
 * counters say how: each one posted to the ring either came back from the
 * helper or was replayed on the CPU (recomputed), none twice.
 * Phases 1-3: no request ran on the CPU at submission (fallback_requests),
 * none timed out, no completion was rejected.
 * Phase 4, the ABI directly (CBC has no kernel request path in kring
 * yet): batches of segments as the core hands them over, the same batch
 * to the cuda backend on one region and to the cpu backend on another;
 * every status and every byte (text, GCM tag) must agree, and every CBC
 * request must equal OpenSSL's CBC, every XCTR one ref.c's XCTR.  Most
 * segments are CBC, both ways, every key size, 16 B..32 MiB, mixed with
 * ECB, CTR, XTS, GCM and XCTR, 1 to
 * 4096 per batch (zero-copy, copy-engine and piecewise batches), some CBC
 * decryptions continuing the request before them in memory (IV = its
 * last ciphertext block, which the GPU overwrites meanwhile).
 * Phase 5: a key slot rewritten before each of 8 batches in a row (new
 * key, new generation), while the batches before it run: each comes out
 * under its own key, against OpenSSL, none on the CPU or failed.
 * Prints "N passed, M failed"; without a GPU prints SKIP and exits 0.
 * Usage: check_backend [rounds] [gpus]; CHECK_BACKEND_PHASES (e.g. "1234")
 * runs only the phases it names.
 */
#include "../../helper/cuda/aes_gpu.h"
#include "../../helper/cuda/cuda_backend.h"
#include "../../helper/src/region.h"
#include "../../kring/kring.h"
#include "../../kring/kring_host.h"
#include "ref.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NKEYS 24	/* the modes of one AES key */
#define NXKEYS 12	/* XTS's two; the last 3 with equal halves */
#define MAXQ 256
#define NAUTH 7

static const unsigned int auth_lens[NAUTH] = { 4, 8, 12, 13, 14, 15, 16 };

static uint8_t keys[NKEYS + NXKEYS][64];	/* XTS: key, tweak key */
static unsigned int key_len[NKEYS + NXKEYS];	/* XTS: one key's */
/* A tfm per key and mode of the table; an AEAD's one per tag length. */
static struct kring_tfm *one_tfm[GPU_AES_ALG_MAX + 1][NKEYS];
static struct kring_tfm *aead_tfm[GPU_AES_ALG_MAX + 1][NKEYS][NAUTH];
static struct kring_tfm *two_tfm[GPU_AES_ALG_MAX + 1][NXKEYS];

/* A chained encryption is one GPU thread's: keep the test's time sane. */
static int is_serial(int alg)
{
	return gpu_aes_kop_has(gpu_aes_kop((uint32_t)alg, GPU_AES_DIR_ENCRYPT),
			       GPU_AES_KOPF_SERIAL);
}

/* A length of about @len that the mode takes. */
static uint32_t fit_len(int alg, uint32_t len)
{
	if (is_serial(alg) && len > (4U << 20))
		len = 1 + len % (4U << 20);
	if (!gpu_aes_alg_len_valid((uint8_t)alg, len))
		len = (len + 15) & ~15U;	/* whole blocks */
	if (!gpu_aes_alg_len_valid((uint8_t)alg, len))
		len += 16;			/* one at least */
	return len;
}

static int any_alg(struct rng *g)
{
	return 1 + (int)(rng_next(g) % GPU_AES_ALG_MAX);
}

struct req {
	int alg, dir, key, auth;
	uint32_t len, aad_len, auth_len;
	int flip;		/* GCM decryption: 1 tag, 2 text, 3 AAD */
	int inplace;
	uint8_t iv[16];
	/* As the crypto API lays them out: AAD, text, tag. */
	uint8_t *src, *dst;
	uint8_t *want, *want_tag;
	int want_err;
	struct kring_req *kr;
	int err;
	int done;		/* atomic: final callbacks */
};

static void cb(void *cookie, int err)
{
	struct req *r = cookie;

	if (err == -EINPROGRESS)
		return;
	r->err = err;
	__atomic_add_fetch(&r->done, 1, __ATOMIC_RELEASE);
}

static void pick_iv(struct rng *g, uint8_t iv[16])
{
	uint64_t hi = rng_next(g), lo = rng_next(g);

	switch (rng_next(g) % 5) {
	case 0:
		lo = (lo & ~0xffffffffULL) | (0xffffffffULL - rng_next(g) % 64);
		break;
	case 1:
		lo = ~0ULL - rng_next(g) % 64;
		break;
	case 2:
		hi = ~0ULL;
		lo = ~0ULL - rng_next(g) % 64;
		break;
	default:
		break;
	}
	gpu_aes_ctr_store(hi, lo, iv);
}

static uint32_t pick_len(struct rng *g, int alg)
{
	uint32_t len;

	switch (rng_next(g) % 16) {
	case 0: /* large: up to 64 MiB */
		len = 1 + (uint32_t)(rng_next(g) % (64U << 20));
		break;
	case 1: case 2: case 3:
		len = 1 + (uint32_t)(rng_next(g) % (1U << 20));
		break;
	default:
		len = 1 + (uint32_t)(rng_next(g) % 8192);
		break;
	}
	return fit_len(alg, len);
}

/* One tfm of @alg on key k, made or re-keyed. */
static int tfm_key(struct kring_tfm **t, int alg, int k, unsigned int len,
		   unsigned int authsize)
{
	if (*t)
		return kring_tfm_setkey(*t, keys[k], len);
	return kring_tfm_new((enum gpu_aes_alg)alg, keys[k], len, t) ||
	       (authsize && kring_tfm_set_authsize(*t, authsize)) ? -1 : 0;
}

/* New key k for every tfm that uses it (nothing of them in flight). */
static int setkey(struct rng *g, int k)
{
	int err = 0;

	key_len[k] = 16 + 8 * (k % 3);
	if (k >= NKEYS) {
		rng_fill(g, keys[k], 64);
		if (k >= NKEYS + NXKEYS - 3)	/* equal halves */
			memcpy(keys[k] + key_len[k], keys[k], key_len[k]);
	} else {
		rng_fill(g, keys[k], 32);
	}
	for (int alg = 1; !err && alg <= GPU_AES_ALG_MAX; alg++) {
		if (gpu_aes_alg_keys((uint8_t)alg) == 2) {
			if (k >= NKEYS)
				err = tfm_key(&two_tfm[alg][k - NKEYS], alg, k,
					      2 * key_len[k], 0);
		} else if (k >= NKEYS) {
			continue;
		} else if (gpu_aes_alg_aead((uint8_t)alg)) {
			for (int a = 0; !err && a < NAUTH; a++)
				err = tfm_key(&aead_tfm[alg][k][a], alg, k,
					      key_len[k], auth_lens[a]);
		} else {
			err = tfm_key(&one_tfm[alg][k], alg, k, key_len[k], 0);
		}
	}
	return err ? -1 : 0;
}

static struct kring_tfm *tfm_of(const struct req *r)
{
	if (gpu_aes_alg_keys((uint8_t)r->alg) == 2)
		return two_tfm[r->alg][r->key - NKEYS];
	if (gpu_aes_alg_aead((uint8_t)r->alg))
		return aead_tfm[r->alg][r->key][r->auth];
	return one_tfm[r->alg][r->key];
}

static void req_free(struct req *r)
{
	kring_req_free(r->kr);
	if (r->dst != r->src)
		free(r->dst);
	free(r->src);
	free(r->want);
	free(r->want_tag);
	memset(r, 0, sizeof(*r));
}

/*
 * Draws a request of alg (r->len set), its buffers and what it must
 * produce; its output is poisoned.  0, or -1 when the references failed.
 */
static int make_req(struct rng *g, struct req *r, int alg, int inplace)
{
	uint32_t len, aad, all;
	uint8_t *text, *tag;

	r->alg = alg;
	r->dir = (int)(rng_next(g) % 2);
	r->flip = 0;
	r->want_err = 0;
	r->aad_len = r->auth_len = 0;
	r->auth = 0;
	if (gpu_aes_alg_keys((uint8_t)alg) == 2) {
		r->key = NKEYS + (int)(rng_next(g) % NXKEYS);
		/* IEEE 1619's data unit limit, 2^20 blocks, OpenSSL enforces */
		if (r->len > (16U << 20))
			r->len %= 16U << 20;
		if (r->len < 16)
			r->len += 16;
	} else {
		r->key = (int)(rng_next(g) % NKEYS);
	}
	pick_iv(g, r->iv);
	if (gpu_aes_alg_aead((uint8_t)alg)) {
		uint32_t pick = (uint32_t)(rng_next(g) % 8);

		if (rng_next(g) % 8 == 0)
			r->len = 0;
		memset(r->iv + 12, 0, 4);
		r->aad_len = pick == 0 ? 0 : pick < 5 ?
			     (uint32_t)(rng_next(g) % 80) : pick < 7 ?
			     64 + (uint32_t)(rng_next(g) % 200) :
			     (uint32_t)(rng_next(g) % 70000);
		r->auth = (int)(rng_next(g) % NAUTH);
		r->auth_len = auth_lens[r->auth];
		if (r->dir && rng_next(g) % 3 == 0)
			r->flip = 1 + (int)(rng_next(g) % 3);
		if (r->flip == 2 && !r->len)
			r->flip = 1;
		if (r->flip == 3 && !r->aad_len)
			r->flip = 1;
		/* a flipped request is checked out of place: dst untouched */
		if (r->flip)
			inplace = 0;
	}
	len = r->len;
	aad = r->aad_len;
	all = aad + len + 16;
	r->inplace = inplace;
	r->src = malloc(all);
	r->dst = inplace ? r->src : malloc(all);
	r->want = malloc(len ? len : 1);
	r->want_tag = malloc(16);
	r->kr = NULL;
	if (!r->src || !r->dst || !r->want || !r->want_tag)
		return -1;
	rng_fill(g, r->src, all);
	text = r->src + aad;
	tag = text + len;
	if (alg == GPU_AES_ALG_XTS) {
		const uint8_t *k = keys[r->key], *tk = k + key_len[r->key];
		int odd = key_len[r->key] == 24 ||
			  !memcmp(k, tk, key_len[r->key]);

		if (odd)
			return ref_xts(r->dir, k, tk, key_len[r->key], r->iv,
				       text, r->want, len);
		return ref_xts_evp(r->dir, k, tk, key_len[r->key], r->iv,
				   text, r->want, len);
	}
	if (alg == GPU_AES_ALG_GCM) {
		const uint8_t *k = keys[r->key];

		if (!r->dir)
			return ref_gcm(0, k, key_len[r->key], r->iv, r->src,
				       aad, text, r->want, len, r->want_tag,
				       r->auth_len);
		/* decryption of a real ciphertext, maybe with one bit flipped */
		memcpy(r->want, text, len);
		if (ref_gcm(0, k, key_len[r->key], r->iv, r->src, aad,
			    r->want, text, len, tag, r->auth_len))
			return -1;
		if (r->flip == 1)
			tag[rng_next(g) % r->auth_len] ^=
				(uint8_t)(1U << (rng_next(g) % 8));
		else if (r->flip == 2)
			text[rng_next(g) % len] ^=
				(uint8_t)(1U << (rng_next(g) % 8));
		else if (r->flip == 3)
			r->src[rng_next(g) % aad] ^=
				(uint8_t)(1U << (rng_next(g) % 8));
		if (r->flip)
			r->want_err = -EBADMSG;
		return 0;
	}
	return ref_crypt(alg, r->dir, keys[r->key], key_len[r->key], r->iv,
			 text, r->want, len);
}

/* Poisons the output and submits: 0, or the error kring_submit() gave. */
static int req_submit(struct req *r)
{
	int ret;

	if (!r->inplace)
		memset(r->dst, 0xa5, r->aad_len + r->len + 16);
	r->kr = kring_req_new(tfm_of(r));
	if (!r->kr)
		return -ENOMEM;
	r->err = 1;
	r->done = 0;
	kring_req_set(r->kr, (enum gpu_aes_dir)r->dir, r->src, r->dst, r->len,
		      r->aad_len, r->iv, KRING_MAY_BACKLOG, cb, r);
	ret = kring_submit(r->kr);
	if (ret == -EINPROGRESS || ret == -EBUSY)
		return 0;
	return ret ? ret : -EAGAIN;	/* done on the CPU: not what we test */
}

/*
 * Only the ring releases nothing of a forged message: a replay on the CPU
 * decrypts into dst before it checks the tag, as the kernel's own gcm(aes)
 * drivers do.  Phase 3 replays, so it checks the verdict alone.
 */
static int check_untouched = 1;

static int req_ok(const struct req *r)
{
	const uint8_t *text = r->dst + r->aad_len;

	if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) != 1 ||
	    r->err != r->want_err)
		return 0;
	if (r->want_err && !check_untouched)
		return 1;
	if (r->want_err) {
		/* nothing released: the poisoned output stays as it was */
		for (uint32_t i = 0; i < r->len; i++)
			if (text[i] != 0xa5)
				return 0;
		return 1;
	}
	if (memcmp(text, r->want, r->len))
		return 0;
	return r->alg != GPU_AES_ALG_GCM || r->dir ||
	       !memcmp(text + r->len, r->want_tag, r->auth_len);
}

static void report_fail(const char *what, const struct req *r)
{
	printf("FAIL: %s alg %d dir %d keylen %u len %u aad %u auth %u flip %d err %d (want %d) done %d\n",
	       what, r->alg, r->dir, key_len[r->key], r->len, r->aad_len,
	       r->auth_len, r->flip, r->err, r->want_err, r->done);
}

/* Waits (sleeping) until every request of q[0..n) has completed. */
static int wait_all(struct req *q, int n)
{
	struct timespec ts = { 0, 200000 };

	for (long spins = 0; spins < 600L * 5000; spins++) {
		int i;

		for (i = 0; i < n; i++)
			if (!__atomic_load_n(&q[i].done, __ATOMIC_ACQUIRE))
				break;
		if (i == n)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;	/* ten minutes: a hang, not a slow GPU */
}

static int host_start(const char *gpus, uint32_t queues, uint64_t queue_data,
		      struct kring_host **h)
{
	struct kring_host_config cfg;
	int err;

	memset(&cfg, 0, sizeof(cfg));
	cfg.ops = &gpu_aes_backend_cuda;
	cfg.backend.gpus = gpus;
	cfg.core.spin_us = 20;
	cfg.core.reapers = GPU_AES_CORE_AUTO_REAPERS;
	cfg.nr_queues = queues;
	cfg.queue_entries = 1024;
	cfg.nr_keys = 512;
	cfg.queue_data_size = queue_data;
	err = kring_host_start(&cfg, h);
	if (err)
		printf("FAIL: helper with the cuda backend: %s\n",
		       strerror(-err));
	return err;
}

struct counters {
	int64_t ring, fallback, timeouts, rejected, recomputed, late;
};

static void counters_read(struct counters *c)
{
	c->ring = kring_stat("ring_requests");
	c->fallback = kring_stat("fallback_requests");
	c->timeouts = kring_stat("timeouts");
	c->rejected = kring_stat("rejected_completions");
	c->recomputed = kring_stat("recomputed");
	c->late = kring_stat("late_completions");
}

/* Nothing ran on the CPU at submission, timed out or was rejected. */
static int counters_clean(const char *phase, const struct counters *a,
			  const struct counters *b, int64_t posted)
{
	if (b->ring - a->ring == posted && b->fallback == a->fallback &&
	    b->timeouts == a->timeouts && b->rejected == a->rejected)
		return 0;
	printf("FAIL: %s counters: ring %lld (want %lld), fallback %lld, timeouts %lld, rejected %lld\n",
	       phase, (long long)(b->ring - a->ring), (long long)posted,
	       (long long)(b->fallback - a->fallback),
	       (long long)(b->timeouts - a->timeouts),
	       (long long)(b->rejected - a->rejected));
	return -1;
}

struct conc {
	uint64_t seed;
	int cpu;
	int iters;
	unsigned long long passed, failed, posted;
	pthread_t tid;
};

/* One submitter of phase 2: one request at a time, every byte checked. */
static void *conc_main(void *arg)
{
	struct conc *c = arg;
	struct rng g;

	kring_set_cpu(c->cpu);
	rng_seed(&g, c->seed);
	for (int i = 0; i < c->iters; i++) {
		int alg = any_alg(&g);
		struct req r;

		memset(&r, 0, sizeof(r));
		r.len = fit_len(alg, 1 + (uint32_t)(rng_next(&g) %
			(rng_next(&g) % 8 ? 65536 : (4U << 20))));
		if (make_req(&g, &r, alg, (int)(rng_next(&g) % 2)) ||
		    req_submit(&r) || wait_all(&r, 1)) {
			c->failed++;
			report_fail("concurrent submit", &r);
			req_free(&r);
			break;
		}
		c->posted++;
		if (req_ok(&r)) {
			c->passed++;
		} else {
			c->failed++;
			report_fail("concurrent", &r);
		}
		req_free(&r);
	}
	return NULL;
}

static struct req q[MAXQ];

static int phase1(struct rng *g, int rounds, const char *gpus,
		  unsigned long long *passed, unsigned long long *failed,
		  unsigned long long *bytes)
{
	struct counters c0, c1;
	struct kring_host *h;
	int64_t posted = 0;

	/* One queue of 512 MiB: requests up to 64 MiB + AAD fit a quarter. */
	kring_set_params(0, 128U << 20, 600000);
	if (host_start(gpus, 1, 512ULL << 20, &h))
		return -1;
	counters_read(&c0);
	for (int it = 0; it < rounds; it++) {
		int n = 1 + (int)(rng_next(g) % (rng_next(g) % 4 ? 16 : MAXQ));
		uint64_t total = 0;

		/* Re-key now and then: new gen, new device copy. */
		if (it % 7 == 3 && setkey(g, (int)(rng_next(g) % NKEYS)))
			return -1;
		for (int i = 0; i < n; i++) {
			struct req *r = &q[i];
			int alg = any_alg(g);

			r->len = pick_len(g, alg);
			if (total + r->len > (96U << 20))
				r->len = 16;
			if (make_req(g, r, alg, (int)(rng_next(g) % 2))) {
				printf("FAIL: reference for alg %d len %u\n",
				       alg, r->len);
				return -1;
			}
			total += r->len + r->aad_len;
		}
		for (int i = 0; i < n; i++) {
			int err = req_submit(&q[i]);

			if (err) {
				report_fail("submit", &q[i]);
				return -1;
			}
			posted++;
		}
		if (wait_all(q, n)) {
			printf("FAIL: round %d: requests never completed\n",
			       it);
			return -1;
		}
		for (int i = 0; i < n; i++) {
			if (req_ok(&q[i])) {
				(*passed)++;
				*bytes += q[i].len;
			} else {
				(*failed)++;
				report_fail("round", &q[i]);
			}
			req_free(&q[i]);
		}
	}
	counters_read(&c1);
	kring_host_stop(h);
	return counters_clean("phase 1", &c0, &c1, posted);
}

static int phase2(int rounds, const char *gpus, unsigned long long *passed,
		  unsigned long long *failed)
{
	struct counters c0, c1;
	struct conc conc[8];
	struct kring_host *h;
	int64_t posted = 0;

	/* Eight queues of 32 MiB: requests up to 4 MiB fit a quarter. */
	kring_set_params(0, 8U << 20, 600000);
	if (host_start(gpus, 8, 32ULL << 20, &h))
		return -1;
	counters_read(&c0);
	/* Keys fixed: a re-key would fail requests in flight, by design. */
	for (int t = 0; t < 8; t++) {
		conc[t] = (struct conc){ 1000 + (uint64_t)t, t,
					 rounds < 20 ? 20 : rounds * 2,
					 0, 0, 0, 0 };
		if (pthread_create(&conc[t].tid, NULL, conc_main, &conc[t]))
			return -1;
	}
	for (int t = 0; t < 8; t++) {
		pthread_join(conc[t].tid, NULL);
		*passed += conc[t].passed;
		*failed += conc[t].failed;
		posted += (int64_t)conc[t].posted;
	}
	counters_read(&c1);
	kring_host_stop(h);
	return counters_clean("phase 2", &c0, &c1, posted);
}

/*
 * The helper dies with the GPU busy: a burst of requests, and the kill as
 * soon as the backend has the first batch of them.
 */
static int phase3(struct rng *g, const char *gpus, unsigned long long *passed,
		  unsigned long long *failed)
{
	enum { N = MAXQ };
	struct counters c0, c1;
	struct kring_host *h;
	int64_t helper_done, replayed, posted;
	int i;

	kring_set_params(0, 8U << 20, 600000);
	if (host_start(gpus, 1, 256ULL << 20, &h))
		return -1;
	for (i = 0; i < N; i++) {
		int alg = any_alg(g);

		q[i].len = fit_len(alg, 1 + (uint32_t)(rng_next(g) % (4U << 20)));
		if (make_req(g, &q[i], alg, (int)(rng_next(g) % 2)))
			return -1;
	}
	counters_read(&c0);
	for (i = 0; i < N; i++)
		if (req_submit(&q[i])) {
			report_fail("phase 3 submit", &q[i]);
			return -1;
		}
	/* The backend holds a batch: kill now. */
	for (;;) {
		struct gpu_aes_core_stats st;

		kring_host_core_stats(h, &st);
		if (st.batches)
			break;
		sched_yield();
	}
	kring_host_kill(h);
	check_untouched = 0;
	if (wait_all(q, N)) {
		printf("FAIL: phase 3: requests never completed after the kill\n");
		return -1;
	}
	counters_read(&c1);
	for (i = 0; i < N; i++) {
		if (req_ok(&q[i])) {
			(*passed)++;
		} else {
			(*failed)++;
			report_fail("after the kill", &q[i]);
		}
		req_free(&q[i]);
	}
	/*
	 * Each request came back from the helper or was replayed once, from
	 * the ring or from the backlog: the backlog may still hold some when
	 * the kill lands (a slow GPU, a sanitizer), and those were never
	 * posted.  Late completions cannot exist (the region is gone when
	 * the helper is).
	 */
	replayed = c1.recomputed - c0.recomputed;
	posted = c1.ring - c0.ring;
	helper_done = N - replayed;
	printf("check_backend: kill: %d requests, %lld completed by the GPU, %lld replayed on the CPU (%lld of them from the backlog)\n",
	       N, (long long)helper_done, (long long)replayed,
	       (long long)(N - posted));
	if (!replayed || c1.late != c0.late) {
		printf("FAIL: phase 3: the kill did not land mid-batch (replayed %lld, late %lld)\n",
		       (long long)replayed, (long long)(c1.late - c0.late));
		(*failed)++;
	}
	if (posted > N || posted < helper_done) {
		printf("FAIL: phase 3: %lld requests posted, %lld completed by the helper, of %d\n",
		       (long long)posted, (long long)helper_done, N);
		(*failed)++;
	}
	return counters_clean("phase 3", &c0, &c1, posted);
}

/* ---- phase 4: the backends served batches directly ---- */

#define P4_DATA		(256ULL << 20)
#define P4_ENTRIES	4096U
#define P4_KEYS		9	/* 0..5 one key (16/24/32 twice), 6..8 XTS */

struct p4 {
	struct gpu_aes_region r[2];	/* 0: cuda, 1: cpu */
	struct gpu_aes_backend *be[2];
	const struct gpu_aes_backend_ops *ops[2];
	struct gpu_aes_segment *segs[2];
	uint8_t *in, *want;		/* the input; OpenSSL's CBC output */
	uint8_t keys[P4_KEYS][64];
};

static int p4_done_flag[2];

static void p4_done(struct gpu_aes_batch *b)
{
	__atomic_store_n((int *)b->owner, 1, __ATOMIC_RELEASE);
}

static uint32_t p4_key_len(int slot)
{
	return slot < 6 ? 16 + 8 * (uint32_t)(slot % 3) :
			  16 + 8 * (uint32_t)(slot - 6);
}

static uint32_t p4_len(struct rng *g, int alg, int big)
{
	uint32_t len;

	switch (rng_next(g) % (big ? 4 : 16)) {
	case 0:
		/* a lone CBC encryption is one GPU thread: keep it short */
		len = 1 + (uint32_t)(rng_next(g) %
				     (alg == GPU_AES_ALG_CBC ? (4U << 20) :
							       (32U << 20)));
		break;
	case 1: case 2:
		len = 1 + (uint32_t)(rng_next(g) % (256U << 10));
		break;
	default:
		len = 1 + (uint32_t)(rng_next(g) % 8192);
	}
	if (alg == GPU_AES_ALG_ECB || alg == GPU_AES_ALG_CBC)
		len = (len + 15) & ~15U;
	if (alg == GPU_AES_ALG_XTS && len < 16)
		len += 16;
	return len;
}

/* One batch: n segments drawn, run on both backends, compared. */
static int p4_round(struct p4 *p, struct rng *g, unsigned int n, int big,
		    unsigned long long *passed, unsigned long long *failed,
		    unsigned long long *bytes)
{
	struct gpu_aes_segment *sg = p->segs[0];
	struct gpu_aes_batch b[2];
	uint64_t off = 0, total = 0;
	unsigned int i, nr = 0;

	for (i = 0; i < n; i++) {
		struct gpu_aes_segment *s = &sg[nr];
		unsigned int pick = (unsigned int)(rng_next(g) % 17);
		const struct gpu_aes_segment *pv = nr ? &sg[nr - 1] : NULL;
		int chain = pv && pv->alg == GPU_AES_ALG_CBC &&
			    pv->dir == GPU_AES_DIR_DECRYPT &&
			    rng_next(g) % 3 == 0;
		uint64_t span;

		memset(s, 0, sizeof(*s));
		s->alg = pick < 9 ? GPU_AES_ALG_CBC : pick < 11 ? GPU_AES_ALG_ECB :
			 pick < 13 ? GPU_AES_ALG_CTR : pick < 15 ? GPU_AES_ALG_XTS :
			 pick < 16 ? GPU_AES_ALG_GCM : GPU_AES_ALG_XCTR;
		s->dir = (uint8_t)(rng_next(g) % 2);
		s->key_slot = (uint16_t)(s->alg == GPU_AES_ALG_XTS ?
					 6 + rng_next(g) % 3 :
					 rng_next(g) % 6);
		s->len = p4_len(g, s->alg, big);
		if (s->alg == GPU_AES_ALG_GCM) {
			s->aad_len = (uint32_t)(rng_next(g) % 3 ? rng_next(g) % 64 :
						rng_next(g) % 5000);
			s->auth_len = (uint8_t)(12 + rng_next(g) % 5);
			if (rng_next(g) % 8 == 0)
				s->len = 0;
		}
		rng_fill(g, s->iv, 16);
		if (s->alg == GPU_AES_ALG_GCM)
			memset(s->iv + 12, 0, 4);
		if (s->alg == GPU_AES_ALG_ECB)
			memset(s->iv, 0, 16);
		if (chain) {
			/* the stream goes on right after the previous part */
			s->alg = GPU_AES_ALG_CBC;
			s->dir = GPU_AES_DIR_DECRYPT;
			s->key_slot = pv->key_slot;
			s->aad_len = 0;
			s->auth_len = 0;
			s->len = (s->len + 15) & ~15U;
			if (!s->len)
				s->len = 16;
		}
		span = gpu_aes_sqe_span(s->alg, s->len, s->aad_len);
		if (off + span > P4_DATA)
			break;
		s->tag = nr;
		s->seq = nr * 3 + 1;
		s->key_gen = 1;
		s->data_off = off;
		s->status = GPU_AES_STATUS_EIO;
		rng_fill(g, p->in + off, span);
		if (chain)
			memcpy(s->iv, p->in + pv->data_off + pv->len - 16, 16);
		if ((s->alg == GPU_AES_ALG_CBC || s->alg == GPU_AES_ALG_XCTR) &&
		    ref_crypt(s->alg, s->dir, p->keys[s->key_slot],
			      p4_key_len(s->key_slot), s->iv, p->in + off,
			      p->want + off, s->len))
			return -1;
		/* CBC requests of 64-byte multiples lie back to back */
		off = (off + span + 63) & ~63ULL;
		total += s->len;
		nr++;
	}
	if (!nr)
		return 0;
	memcpy(p->segs[1], sg, nr * sizeof(*sg));
	for (int k = 0; k < 2; k++) {
		memcpy(p->r[k].data, p->in, off);
		b[k] = (struct gpu_aes_batch){ p->segs[k], nr, total, p4_done,
					       &p4_done_flag[k] };
		p4_done_flag[k] = 0;
		p->ops[k]->submit(p->be[k], &b[k]);
	}
	for (long spins = 0; !__atomic_load_n(&p4_done_flag[0], __ATOMIC_ACQUIRE) ||
			     !__atomic_load_n(&p4_done_flag[1], __ATOMIC_ACQUIRE);
	     spins++) {
		struct timespec ts = { 0, 100000 };

		if (spins > 600L * 10000) {
			printf("FAIL: phase 4: a batch never completed\n");
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < nr; i++) {
		const struct gpu_aes_segment *a = &p->segs[0][i], *c = &p->segs[1][i];
		uint64_t span = gpu_aes_sqe_span(a->alg, a->len, a->aad_len);
		int ok = a->status == c->status &&
			 (a->status == GPU_AES_STATUS_OK ||
			  (a->alg == GPU_AES_ALG_GCM && a->dir &&
			   a->status == GPU_AES_STATUS_EBADMSG));

		if (ok && a->status == GPU_AES_STATUS_OK)
			ok = !memcmp(p->r[0].data + a->data_off,
				     p->r[1].data + a->data_off, span);
		if (ok && (a->alg == GPU_AES_ALG_CBC ||
			   a->alg == GPU_AES_ALG_XCTR))
			ok = !memcmp(p->r[0].data + a->data_off,
				     p->want + a->data_off, a->len);
		if (ok) {
			(*passed)++;
			*bytes += a->len;
		} else {
			(*failed)++;
			printf("FAIL: phase 4: seg %u of %u alg %u dir %u keylen %u len %u aad %u status %d (cpu %d)\n",
			       i, nr, a->alg, a->dir, p4_key_len(a->key_slot),
			       a->len, a->aad_len, a->status, c->status);
		}
	}
	return 0;
}

static void p4_free(struct p4 *p)
{
	for (int k = 0; k < 2; k++) {
		if (p->be[k])
			p->ops[k]->close(p->be[k]);
		gpu_aes_region_free(&p->r[k]);
		free(p->segs[k]);
	}
	free(p->in);
	free(p->want);
}

static int phase4(struct rng *g, int rounds, const char *gpus,
		  unsigned long long *passed, unsigned long long *failed,
		  unsigned long long *bytes)
{
	struct gpu_aes_backend_config cfg[2];
	struct gpu_aes_geometry geo;
	struct p4 p;
	int err = -1;

	memset(&p, 0, sizeof(p));
	memset(cfg, 0, sizeof(cfg));
	cfg[0].gpus = gpus;
	cfg[1].threads = 4;
	p.ops[0] = &gpu_aes_backend_cuda;
	p.ops[1] = &gpu_aes_backend_cpu;
	p.in = malloc(P4_DATA);
	p.want = malloc(P4_DATA);
	if (!p.in || !p.want ||
	    gpu_aes_region_geometry(1, P4_ENTRIES, P4_KEYS, P4_DATA, &geo))
		goto out;
	for (int s = 0; s < P4_KEYS; s++)
		rng_fill(g, p.keys[s], 64);
	for (int k = 0; k < 2; k++) {
		p.segs[k] = calloc(P4_ENTRIES, sizeof(*p.segs[k]));
		if (!p.segs[k] || gpu_aes_region_alloc(&geo, &p.r[k], NULL))
			goto out;
		gpu_aes_region_init_hdr(&p.r[k]);
		for (int s = 0; s < P4_KEYS; s++) {
			struct gpu_aes_key *e = &p.r[k].keys[s];
			uint32_t kl = p4_key_len(s);

			memcpy(e->key, p.keys[s], s < 6 ? kl : 2 * kl);
			e->key_len = kl;
			e->tweak_len = s < 6 ? 0 : kl;
			e->gen = 1;
		}
		if (p.ops[k]->open(&cfg[k], &p.r[k], &p.be[k])) {
			p.be[k] = NULL;
			printf("FAIL: phase 4: %s backend\n", p.ops[k]->name);
			goto out;
		}
	}
	for (int it = 0; it < rounds; it++) {
		/* batch sizes: a few (inline tables), hundreds, thousands */
		unsigned int n = it % 3 == 0 ? 1 + (unsigned int)(rng_next(g) % 40) :
				 it % 3 == 1 ? 1 + (unsigned int)(rng_next(g) % 400) :
				 1 + (unsigned int)(rng_next(g) % P4_ENTRIES);

		if (p4_round(&p, g, n, it % 5 == 4, passed, failed, bytes))
			goto out;
	}
	err = 0;
out:
	p4_free(&p);
	return err;
}

/* ---- phase 5: a key replaced under batches in flight ---- */

#define P5_BATCHES	8	/* NR_SLOTS: all in flight at once */
#define P5_SEGS		64
#define P5_STEP		65536	/* a text to 60 KiB, its tag, no AAD */
#define P5_DATA		((uint64_t)P5_BATCHES * P5_SEGS * P5_STEP)

static int p5_flag[P5_BATCHES];

/*
 * Every batch uses key slot 0 at a generation of its own, rewritten in the
 * region just before it is submitted, while the batches before it are
 * still on the GPU: each must come out under its own key (key_ensure()
 * lets them finish before it replaces the device copy), none on the CPU.
 */
static int phase5(struct rng *g, int rounds, const char *gpus,
		  unsigned long long *passed, unsigned long long *failed,
		  unsigned long long *bytes)
{
	static struct gpu_aes_segment segs[P5_BATCHES][P5_SEGS];
	struct gpu_aes_backend_config cfg = { .gpus = gpus };
	uint8_t p5_keys[P5_BATCHES][32], want[P5_STEP], tag[16];
	struct gpu_aes_batch b[P5_BATCHES];
	struct gpu_aes_cuda_stats st;
	struct gpu_aes_backend *be = NULL;
	struct gpu_aes_geometry geo;
	struct gpu_aes_region r;
	uint32_t gen = 0;
	uint8_t *in = malloc(P5_DATA);
	int err = -1;

	memset(&r, 0, sizeof(r));
	if (!in || gpu_aes_region_geometry(1, P5_BATCHES * P5_SEGS, 1,
					   P5_DATA, &geo) ||
	    gpu_aes_region_alloc(&geo, &r, NULL))
		goto out;
	gpu_aes_region_init_hdr(&r);
	if (gpu_aes_backend_cuda.open(&cfg, &r, &be)) {
		be = NULL;
		printf("FAIL: phase 5: cuda backend\n");
		goto out;
	}
	for (int it = 0; it < rounds; it++) {
		uint32_t len = it % 2 ? 61440 : 4096;

		/* All set up first: the submissions follow each other closely. */
		for (int j = 0; j < P5_BATCHES; j++) {
			rng_fill(g, p5_keys[j], sizeof(p5_keys[j]));
			for (int i = 0; i < P5_SEGS; i++) {
				struct gpu_aes_segment *s = &segs[j][i];
				uint64_t off = ((uint64_t)j * P5_SEGS + i) *
					       P5_STEP;

				memset(s, 0, sizeof(*s));
				s->tag = (uint32_t)i;
				s->alg = i % 2 ? GPU_AES_ALG_GCM :
						 GPU_AES_ALG_CTR;
				s->dir = GPU_AES_DIR_ENCRYPT;
				s->key_gen = gen + 1 + (uint32_t)j;
				s->data_off = off;
				s->len = len;
				s->auth_len = i % 2 ? 16 : 0;
				s->status = GPU_AES_STATUS_EIO;
				rng_fill(g, s->iv, 16);
				if (s->alg == GPU_AES_ALG_GCM)
					memset(s->iv + 12, 0, 4);
				rng_fill(g, in + off, len);
				memcpy(r.data + off, in + off, len);
			}
			/*
			 * 4 KiB: zero-copy; 60 KiB: the copy engines, whose
			 * upload of 3.75 MiB before the kernel outlasts the
			 * next batch's key upload, were it not waited for
			 */
			b[j] = (struct gpu_aes_batch){ segs[j], P5_SEGS,
						       (uint64_t)P5_SEGS * len,
						       p4_done, &p5_flag[j] };
			p5_flag[j] = 0;
		}
		for (int j = 0; j < P5_BATCHES; j++) {
			struct gpu_aes_key *e = &r.keys[0];
			uint32_t kl = 16 + 8 * (uint32_t)((it + j) % 3);

			memcpy(e->key, p5_keys[j], kl);
			e->key_len = kl;
			e->tweak_len = 0;
			__atomic_store_n(&e->gen, ++gen, __ATOMIC_RELEASE);
			gpu_aes_backend_cuda.submit(be, &b[j]);
		}
		gpu_aes_backend_cuda.drain(be);
		for (int j = 0; j < P5_BATCHES; j++) {
			uint32_t kl = 16 + 8 * (uint32_t)((it + j) % 3);

			for (int i = 0; i < P5_SEGS; i++) {
				const struct gpu_aes_segment *s = &segs[j][i];
				const uint8_t *got = r.data + s->data_off;
				int ok = p5_flag[j] &&
					 s->status == GPU_AES_STATUS_OK;

				if (ok && s->alg == GPU_AES_ALG_CTR)
					ok = !ref_crypt(GPU_AES_ALG_CTR, 0,
							p5_keys[j], kl, s->iv,
							in + s->data_off,
							want, s->len) &&
					     !memcmp(got, want, s->len);
				else if (ok)
					ok = !ref_gcm(0, p5_keys[j], kl, s->iv,
						      NULL, 0,
						      in + s->data_off, want,
						      s->len, tag, 16) &&
					     !memcmp(got, want, s->len) &&
					     !memcmp(r.data +
						     gpu_aes_gcm_tag_off(s->data_off,
									 s->len),
						     tag, 16);
				if (ok) {
					(*passed)++;
					*bytes += s->len;
				} else {
					(*failed)++;
					printf("FAIL: phase 5: round %d batch %d seg %d alg %u keylen %u status %d\n",
					       it, j, i, s->alg, kl, s->status);
				}
			}
		}
	}
	gpu_aes_cuda_get_stats(be, &st);
	if (st.cpu_batches || st.eio_batches) {
		printf("FAIL: phase 5: %llu batches on the cpu, %llu failed: want 0, 0\n",
		       (unsigned long long)st.cpu_batches,
		       (unsigned long long)st.eio_batches);
		(*failed)++;
	}
	err = 0;
out:
	if (be)
		gpu_aes_backend_cuda.close(be);
	gpu_aes_region_free(&r);
	free(in);
	return err;
}

/* Whether phase n is among those CHECK_BACKEND_PHASES names. */
static int phase_on(const char *phases, int n)
{
	int on = !phases || strchr(phases, '0' + n) != NULL;

	if (!on)
		printf("check_backend: phase %d skipped (CHECK_BACKEND_PHASES=%s)\n",
		       n, phases);
	return on;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	const char *gpus = argc > 2 ? argv[2] : NULL;
	const char *phases = getenv("CHECK_BACKEND_PHASES");
	unsigned long long passed = 0, failed = 0, bytes = 0;
	struct rng g;
	int err;

	if (phases && (!*phases || strspn(phases, "12345") != strlen(phases))) {
		printf("FAIL: CHECK_BACKEND_PHASES=%s: want digits of 1-5, e.g. 1234\n",
		       phases);
		return 2;
	}
	if (gpu_aes_backend_cuda.probe() != 0) {
		printf("SKIP: check-gpu: no CUDA GPU on this machine\n");
		return 0;
	}
	if (kring_init()) {
		printf("FAIL: kring_init\n");
		return 1;
	}
	/* The GPU is what is checked: every request to the ring. */
	kring_set_dispatch("ring");
	rng_seed(&g, 20261121);
	for (int k = 0; k < NKEYS + NXKEYS; k++)
		if (setkey(&g, k)) {
			printf("FAIL: setkey %d\n", k);
			return 1;
		}
	err = 0;
	if (phase_on(phases, 1))
		err = phase1(&g, rounds, gpus, &passed, &failed, &bytes);
	if (!err && phase_on(phases, 2))
		err = phase2(rounds, gpus, &passed, &failed);
	if (!err && phase_on(phases, 3))
		err = phase3(&g, gpus, &passed, &failed);
	if (!err && phase_on(phases, 4))
		err = phase4(&g, rounds / 4 + 6, gpus, &passed, &failed, &bytes);
	if (!err && phase_on(phases, 5))
		err = phase5(&g, rounds / 10 + 4, gpus, &passed, &failed, &bytes);
	printf("check_backend: %llu passed, %llu failed (%llu MiB compared)%s\n",
	       passed, failed, bytes >> 20, err ? ", stopped early" : "");
	return failed || err ? 1 : 0;
}
