/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every gpu_aes suite needs: a request with its own reference answer
 * and a record of its callbacks, counter snapshots, and the driver
 * parameters the suites change (restored at test exit).
 */
#ifndef GPU_AES_KUNIT_TEST_UTIL_H
#define GPU_AES_KUNIT_TEST_UTIL_H

#include <crypto/aead.h>
#include <crypto/aes.h>
#include <crypto/gcm.h>
#include <crypto/skcipher.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/scatterlist.h>

#include "fake_helper.h"
#include "ring.h"
#include "stats.h"

#define GT_MAX_EVENTS	4

/*
 * The flag a request needs to reach the ring: requests without it are
 * answered on the CPU before the call returns (gpu_aes_route()).
 */
#define GT_BL	CRYPTO_TFM_REQ_MAY_BACKLOG

/* The seq of a tag's @uses-th use on queue @q (ring.h: struct gpu_aes_tag). */
#define GT_SEQ(uses, q)	((uses) << 8 | (q))

/* The ring_<alg>_requests counter of an enum gpu_aes_alg. */
#define GT_RING_STAT(alg)	(GPU_AES_STAT_RING_ALG + (alg) - 1)

/* The queue a single-queue fake helper attaches (and UML's one CPU uses). */
#define GT_Q0	(&gpu_aes_ring.queues[0])

struct gt_tfm {
	struct crypto_skcipher *tfm;
	struct crypto_aes_ctx aes;
	struct crypto_aes_ctx tweak;	/* XTS */
	bool ctr;
	bool xts;
	u8 key[2 * AES_MAX_KEY_SIZE];
	unsigned int klen;		/* XTS: both keys */
};

/*
 * One request and everything needed to judge it: plaintext, the answer
 * computed independently (aes_ref.c), the expected output IV, and every
 * callback the driver made, in order.
 */
struct gt_req {
	struct gt_tfm *t;
	struct skcipher_request *req;
	struct scatterlist sg[2];
	u8 *buf;
	u8 *expect;
	u8 iv[AES_BLOCK_SIZE];
	u8 iv_expect[AES_BLOCK_SIZE];
	unsigned int len;
	int ret;			/* what encrypt()/decrypt() returned */
	struct completion done;
	int events[GT_MAX_EVENTS];	/* callback err values, in order */
	atomic_t nr_events;
};

struct gt_stats {
	s64 v[GPU_AES_NR_STATS];
};

/* Allocate "ecb-aes-gpu" or "ctr-aes-gpu" with a random key of @klen. */
struct gt_tfm *gt_tfm_new(struct kunit *test, bool ctr, unsigned int klen);
/* Allocate "xts-aes-gpu" with random unequal halves, @klen 32/48/64. */
struct gt_tfm *gt_tfm_new_xts(struct kunit *test, unsigned int klen);
/* Change the key (random, @klen bytes). */
void gt_tfm_rekey(struct kunit *test, struct gt_tfm *t, unsigned int klen);
/*
 * A request of @len random bytes, split over two scatterlist entries at a
 * random point, CTR IV random with its low word about to carry.  @flags
 * are the request flags (CRYPTO_TFM_REQ_MAY_BACKLOG ...).
 */
struct gt_req *gt_req_new(struct kunit *test, struct gt_tfm *t,
			  unsigned int len, u32 flags);
/* Encrypt (or decrypt; the reference follows the direction). */
int gt_req_start(struct gt_req *r, bool decrypt);
/* Wait for the final callback if the request went async; bounded. */
bool gt_req_wait(struct gt_req *r);
/*
 * The callbacks were the ones its return value promised (none; one 0;
 * -EINPROGRESS then 0) and output and IV match the reference.
 */
void gt_req_expect_done(struct kunit *test, struct gt_req *r);
/* Number of callbacks so far. */
int gt_req_events(struct gt_req *r);

/*
 * Buffers of any size: KUNIT_EXPECT_MEMEQ hex-dumps the whole buffer on
 * failure, which for the 256 KiB requests takes minutes on UML.  This names
 * the first differing byte instead.
 */

#define GT_EXPECT_BYTES(test, got, want, len)				\
	gt_expect_bytes(test, got, want, len, #got " != " #want)

void gt_expect_bytes(struct kunit *test, const void *got, const void *want,
		     size_t len, const char *what);

/* Counters. */
void gt_stats_snap(struct gt_stats *s);
s64 gt_stats_delta(const struct gt_stats *s, enum gpu_aes_stat i);

/*
 * Parameters: set for the test, put back by a KUnit action at test exit
 * (also on assertion failure).
 */
void gt_set_ring_min_bytes(struct kunit *test, unsigned int v);
void gt_set_timeout_ms(struct kunit *test, unsigned int v);
/* The dispatch parameter (enum gpu_aes_dispatch_mode). */
void gt_set_dispatch(struct kunit *test, int mode);

/*
 * Attach a fake helper to the driver's ring, detached by a KUnit action
 * (registered before any tfm, so tfms are freed first), with dispatch=ring
 * for the test: the suites test the ring.
 */
struct fake_helper *gt_helper(struct kunit *test, u32 nr_entries,
			      bool automatic);

/* @nr_queues queues of @nr_entries, otherwise as gt_helper(). */
struct fake_helper *gt_helper_queues(struct kunit *test, u32 nr_queues,
				     u32 nr_entries, bool automatic);

/*
 * gt_ring_setup() with a helper that serves @algs (FAKE_HELPER_ALGS_V3:
 * one that does not say).
 */
struct fake_helper *gt_ring_setup_algs(struct kunit *test, u32 algs);

/*
 * Make every submission use queue @q of the ring (UML has one CPU, so
 * tests choose the queue), until the test ends or it is called again.
 */
void gt_use_queue(struct kunit *test, struct fake_helper *h, u32 q);

/*
 * Wait until the driver's algorithms have finished their self-tests: 0,
 * or the lookup's error (-ELIBBAD: one failed).
 */
int gt_algs_tested(void);
/* The same, asserted. */
void gt_wait_algs_tested(struct kunit *test);

/*
 * The usual start of a ring test: algorithms tested, every length on the
 * ring, deadlines far away, a manual fake helper with @nr_entries entries.
 */
struct fake_helper *gt_ring_setup(struct kunit *test, u32 nr_entries);

/* Free a tfm from gt_tfm_new() now rather than at test exit. */
void gt_tfm_free(struct kunit *test, struct gt_tfm *t);

/* Fetch every pending sqe, check the count, compute and post each. */
void gt_helper_complete_all(struct kunit *test, struct fake_helper *h,
			    unsigned int expect);

/* ---- gcm-aes-gpu ---- */

/* Bytes a GCM request's @out starts as, and stays where nothing is copied. */
#define GT_POISON	0x5a

struct gt_aead {
	struct crypto_aead *tfm;
	struct aesgcm_ctx ref;
	u8 key[AES_MAX_KEY_SIZE];
	unsigned int klen;
	unsigned int authsize;
};

/*
 * One GCM request, out of place: @in is AAD | text | tag (the tag is the
 * input when decrypting), @out starts as poison and must end as @expect
 * from the AAD's end on (the AAD itself is not copied).
 */
struct gt_areq {
	struct gt_aead *a;
	struct aead_request *req;
	struct scatterlist src[2], dst[2];
	u8 *in;
	u8 *out;
	u8 *expect;
	u8 *aad;
	u8 iv[GCM_AES_IV_SIZE];
	unsigned int aad_len, len, total;
	bool decrypt;
	/*
	 * A failed request left @out alone.  True of the ring, which releases
	 * nothing of a forgery; the CPU fallback (the gcm template, like every
	 * kernel gcm) writes the plaintext before it finds the tag wrong.
	 */
	bool untouched_on_error;
	int ret;
	struct completion done;
	int events[GT_MAX_EVENTS];
	atomic_t nr_events;
};

/* Change the key (random, @klen bytes). */
void gt_aead_rekey(struct kunit *test, struct gt_aead *a, unsigned int klen);
/* Allocate "gcm-aes-gpu" with a random key of @klen and @authsize. */
struct gt_aead *gt_aead_new(struct kunit *test, unsigned int klen,
			    unsigned int authsize);
/*
 * A request of @aad_len and @len random bytes (decrypting: the right tag),
 * both scatterlists split at random points, with request flags @flags.
 */
struct gt_areq *gt_areq_new(struct kunit *test, struct gt_aead *a,
			    unsigned int aad_len, unsigned int len,
			    bool decrypt, u32 flags);
/* Encrypt or decrypt, as it was made. */
int gt_areq_start(struct gt_areq *r);
/*
 * The callbacks its return value promised, ending in @err; on success the
 * text (and, encrypting, the tag) match, on failure @out is all poison
 * where the request says so (untouched_on_error).
 */
void gt_areq_expect(struct kunit *test, struct gt_areq *r, int err);

#endif /* GPU_AES_KUNIT_TEST_UTIL_H */
