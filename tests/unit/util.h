/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared helpers of the unit tests: OpenSSL reference, kring set-up. */
#ifndef GPU_AES_TEST_UTIL_H
#define GPU_AES_TEST_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../../kring/kring.h"
#include "../../kring/kring_host.h"
#include "../../helper/src/region.h"
#include "../../helper/src/transport.h"

/*
 * The reference: OpenSSL EVP called directly (never through the helper):
 * ECB, CTR or CBC, and XCTR a block at a time over OpenSSL's ECB (in and
 * out may be equal).  0 on success, -1 for another mode.
 */
int ref_crypt(unsigned int alg, unsigned int dir, const uint8_t *key,
	      size_t key_len, const uint8_t *iv, const uint8_t *in,
	      uint8_t *out, size_t len);

/*
 * XTS through EVP_aes_{128,256}_xts: key is both halves, key_len 32 or 64.
 * 0 on success, -1 where OpenSSL refuses (AES-192, or equal halves for
 * encryption).
 */
int ref_xts(unsigned int dir, const uint8_t *key, size_t key_len,
	    const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len);

/*
 * GCM through EVP with a 12-byte IV: encryption writes auth_len tag bytes
 * to tag; decryption checks them.  0 on success, 1 on a tag mismatch, -1
 * when OpenSSL fails otherwise.
 */
int ref_gcm(unsigned int dir, const uint8_t *key, size_t key_len,
	    const uint8_t *iv, const uint8_t *aad, size_t aad_len,
	    const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag,
	    size_t auth_len);

/*
 * The kernel's request path (kring) served in this process by the helper's
 * core and cpu backend.  Every request goes to the ring (ring_min_bytes 0)
 * and nothing times out on a slow CI machine (timeout 60 s), so a test's
 * requests are the backend's and its counters exact.
 */
struct kfix {
	struct kring_host *host;
};

/*
 * What kfix_start() sets up before the helper starts, for a test that
 * attaches a region of its own: kring initialised (once), every request
 * for the ring, deadlines of 60 s.  0, or -errno.
 */
int kfix_prepare(void);

/* 0, or -errno.  queue_data in bytes; threads: cpu backend workers. */
int kfix_start(struct kfix *f, uint32_t queues, uint32_t entries,
	       uint64_t queue_data, unsigned int threads,
	       unsigned int spin_us);
/*
 * The configuration kfix_start() uses (cpu backend, 64 key slots), for a
 * test that changes something before kfix_start_cfg().
 */
void kfix_config(struct kring_host_config *cfg, uint32_t queues,
		 uint32_t entries, uint64_t queue_data, unsigned int threads,
		 unsigned int spin_us);
int kfix_start_cfg(struct kfix *f, const struct kring_host_config *cfg);
void kfix_stop(struct kfix *f);
/* The host, now the caller's to stop or kill: the fixture forgets it. */
struct kring_host *kfix_release(struct kfix *f);

/* A counter of the kernel code (kring_stat()). */
int64_t kstat(const char *name);

/* A tfm with key (XTS: both keys); NULL on failure. */
struct kring_tfm *kr_tfm(unsigned int alg, const uint8_t *key, size_t len);

/*
 * One request with the buffers as kring_req_set() takes them, submitted
 * with KRING_MAY_BACKLOG and waited for: its final status (0, -EBADMSG,
 * ...; -ETIME if it never completes).  iv is the request's own (CTR: it
 * is advanced).
 */
int kr_req_run(struct kring_tfm *t, unsigned int dir, const uint8_t *src,
	       uint8_t *dst, uint32_t len, uint32_t aad_len, uint8_t *iv);

/*
 * One request through kring_submit(), waited for: its final status (0,
 * -EBADMSG, ...; -ETIME if it never completes).  iv is not changed.
 */
int kr_run(struct kring_tfm *t, unsigned int dir, const uint8_t *iv,
	   const uint8_t *in, uint8_t *out, uint32_t len);

/*
 * A GCM request: encryption writes the tag (the tfm's authsize) to tag,
 * decryption checks it.  iv: 12 bytes.
 */
int kr_run_gcm(struct kring_tfm *t, unsigned int dir, const uint8_t *iv,
	       const uint8_t *aad, uint32_t aad_len, const uint8_t *in,
	       uint8_t *out, uint32_t len, uint8_t *tag);

/*
 * Waits until cond(arg) returns non-zero: 0 then, -1 after ~20 s (a hang
 * guard so a broken core fails the test instead of hanging CI; never an
 * assertion about speed).
 */
int wait_until(int (*cond)(void *arg), void *arg);

/* The counter after @len bytes: ctr(aes)'s output IV (128-bit carry). */
void t_ctr_add(uint8_t iv[16], uint32_t len);

/*
 * One request's completion: pass on_done as its callback, then
 * wait_until(is_done, r).  A second final callback fails the test.
 */
struct result {
	int status;
	int done;
	int admitted;	/* -EINPROGRESS callbacks (backlogged, then let in) */
};

void on_done(void *cookie, int status);
int is_done(void *arg);

/*
 * The helper's core driven by hand: the test plays the kernel on a region
 * of its own (gpu_aes_region_alloc() + gpu_aes_region_init_hdr()), writing
 * submission entries, reading completions and moving the indices itself.
 * Core, backend and transport are real.  Order: mfix_alloc(), then any
 * mfix_set_index()/mfix_set_key(), mfix_open(), mfix_start(), ...,
 * mfix_teardown() (which also cleans up after a failed step).
 */
#define MFIX_MAX_QUEUES	8U

struct mfix {
	struct gpu_aes_region r;
	const struct gpu_aes_backend_ops *ops;
	struct gpu_aes_backend *be;
	struct gpu_aes_transport *t;
	struct gpu_aes_core *core;
	pthread_t thread;
	int running;
	/* Called for every notify (GPU_AES_IOC_COMPLETE), from any thread. */
	int (*on_reap)(void *arg, uint32_t qid);
	void *on_reap_arg;
	uint32_t notifies;		/* atomic: notify calls */
	uint32_t notifies_all;		/* atomic: of them, GPU_AES_ALL_QUEUES */
	uint32_t notify_qid;		/* atomic: the last one's queue */
	uint32_t sq_tail[MFIX_MAX_QUEUES];	/* the kernel's copies */
	uint32_t cq_head[MFIX_MAX_QUEUES];
};

/* Region of @queues (<= MFIX_MAX_QUEUES) queues, header filled.  0 or -1. */
int mfix_alloc(struct mfix *m, uint32_t queues, uint32_t entries,
	       uint32_t nr_keys, uint64_t queue_data);
/* All four indices of queue @q start at @idx (before mfix_open()). */
void mfix_set_index(struct mfix *m, uint32_t q, uint32_t idx);
/* Key table entry @slot as the kernel writes it: raw key(s), gen. */
void mfix_set_key(struct mfix *m, uint32_t slot, uint32_t gen,
		  const uint8_t *key, uint32_t key_len, uint32_t tweak_len);
/* Backend @ops (NULL: cpu) with @threads workers, transport, core. */
int mfix_open(struct mfix *m, const struct gpu_aes_backend_ops *ops,
	      unsigned int threads, const struct gpu_aes_core_config *cfg);
/* The core on a thread of its own.  0 or -1. */
int mfix_start(struct mfix *m);
/* Stops the core (it drains the backend first): its stats are final. */
void mfix_stop(struct mfix *m);
void mfix_teardown(struct mfix *m);
/* The slice of queue @q in the data area. */
uint8_t *mfix_slice(struct mfix *m, uint32_t q);
/*
 * Posts @nr entries on queue @q with one tail update, as the kernel does,
 * ringing the doorbell only when that queue's NEED_WAKEUP is set.
 */
void mfix_post(struct mfix *m, uint32_t q, const struct gpu_aes_sqe *sqe,
	       uint32_t nr);
/* Waits until queue @q's cq_tail is @tail: 0, or -1 (hang guard). */
int mfix_wait_cq(struct mfix *m, uint32_t q, uint32_t tail);
/*
 * Waits until the core has slept @sleeps times and has NEED_WAKEUP set on
 * every queue: it is asleep (or about to be).  0, or -1.
 */
int mfix_wait_asleep(struct mfix *m, uint64_t sleeps);
/* Waits until at least @n notifies have been made.  0, or -1. */
int mfix_wait_notifies(struct mfix *m, uint32_t n);
/* Queue @q's completion entry at free-running index @idx. */
const struct gpu_aes_cqe *mfix_cqe(const struct mfix *m, uint32_t q,
				   uint32_t idx);
/* The kernel reaps queue @q up to @idx: cq_head moves there. */
void mfix_reap(struct mfix *m, uint32_t q, uint32_t idx);
/*
 * Posts one entry on queue @q, waits for its completion there and reaps
 * it: the cqe's status, or MFIX_HUNG when none comes or it does not
 * echo the entry's tag and seq.
 */
#define MFIX_HUNG	(-1000)
int32_t mfix_run_one(struct mfix *m, uint32_t q, const struct gpu_aes_sqe *sqe);

#endif /* GPU_AES_TEST_UTIL_H */
