/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gpu-aes-helper played in-kernel for the KUnit suites.
 *
 * It owns a vmalloc()ed region laid out by gpu_aes_layout(), attaches it to
 * a ring with gpu_aes_ring_attach() and then does what the real helper does
 * over the same ABI, queue by queue: read sqes between sq_head and sq_tail,
 * transform the data in place with the kernel's AES library (aes_ref.c;
 * GCM with lib/crypto/aesgcm.c), answer a GCM decryption whose tag does not
 * match with GPU_AES_STATUS_EBADMSG, write cqes, publish cq_tail and reap
 * (the GPU_AES_IOC_COMPLETE call naming the queue).
 *
 * Two ways to drive it:
 *  - automatic: the ring's kick hook queues a work item whenever the driver
 *    would wake the real helper (only while NEED_WAKEUP is set, so the
 *    io_uring-style handshake is exercised too); the work drains the SQ.
 *  - manual: the test fetches, computes, posts arbitrary (even hostile)
 *    cqes and reaps itself, one step at a time.
 *
 * The fake checks every sqe the kernel writes (tag, seq naming the queue,
 * bounds of the whole span inside the queue's data slice, per-algorithm
 * lengths and IV, key slot and generation, key lengths, zeros where the ABI
 * wants them) and counts violations in sqe_errors, which every suite
 * asserts is zero.
 */
#ifndef GPU_AES_KUNIT_FAKE_HELPER_H
#define GPU_AES_KUNIT_FAKE_HELPER_H

#include <crypto/gcm.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "gpu_aes.h"

struct gpu_aes_ring;

/* What the fake keeps of one queue. */
struct fake_queue {
	struct gpu_aes_queue_hdr *qhdr;
	struct gpu_aes_sqe *sq;
	struct gpu_aes_cqe *cq;
	u32 sq_head;		/* helper's private copies of its indices */
	u32 cq_tail;
};

#define FAKE_HELPER_MAX_QUEUES	8U

struct fake_helper {
	struct gpu_aes_ring *ring;
	void *region;
	struct gpu_aes_setup setup;
	struct gpu_aes_geometry geo;
	struct gpu_aes_layout layout;
	struct gpu_aes_region_hdr *hdr;
	struct gpu_aes_key *keys;
	u8 *data;
	struct fake_queue q[FAKE_HELPER_MAX_QUEUES];
	/* The queue fetch/post/publish/reap/pending work on (0 unless set). */
	u32 cur;
	/* Shorthands for queue @cur, kept in step by fake_helper_use(). */
	struct gpu_aes_queue_hdr *qhdr;
	struct gpu_aes_sqe *sq;
	struct gpu_aes_cqe *cq;
	bool automatic;
	struct workqueue_struct *wq;
	struct work_struct work;
	/* what the fake saw; read by the tests */
	atomic_t sqes;		/* sqes consumed */
	atomic_t sqe_errors;	/* sqes the kernel should never have written */
	atomic_t reaps;		/* gpu_aes_ring_reap() calls */
	atomic_t kicks;		/* wake-ups the kernel sent */
	atomic_t auth_fails;	/* GCM decryptions answered EBADMSG */
	/* GCM state of the sqe being computed (too big for the stack). */
	struct aesgcm_ctx gcm;
};

/* Sizes the suites use unless they need a particular shape. */
#define FAKE_HELPER_ENTRIES	16U
#define FAKE_HELPER_KEYS	16U
#define FAKE_HELPER_DATA	GPU_AES_MIN_QUEUE_DATA

/* One queue of @nr_entries, @data_size bytes of data. */
int fake_helper_attach(struct fake_helper *h, struct gpu_aes_ring *ring,
		       u32 nr_entries, u32 nr_keys, u64 data_size,
		       bool automatic);
/* @nr_queues queues of @nr_entries each, @queue_data bytes of data each. */
int fake_helper_attach_queues(struct fake_helper *h, struct gpu_aes_ring *ring,
			      u32 nr_queues, u32 nr_entries, u32 nr_keys,
			      u64 queue_data, bool automatic);
/*
 * ... serving @algs (GPU_AES_FEAT_ALGS); FAKE_HELPER_ALGS_V3: a helper
 * that predates the feature.  The others serve GPU_AES_ALGS_KNOWN.
 */
#define FAKE_HELPER_ALGS_V3	0U
int fake_helper_attach_algs(struct fake_helper *h, struct gpu_aes_ring *ring,
			    u32 nr_queues, u32 nr_entries, u32 nr_keys,
			    u64 queue_data, bool automatic, u32 algs);
void fake_helper_detach(struct fake_helper *h);

/* Make queue @q the one the calls below work on. */
void fake_helper_use(struct fake_helper *h, u32 q);

/* Copy up to @max sqes from sq_head on into @out, advance sq_head. */
unsigned int fake_helper_fetch(struct fake_helper *h, struct gpu_aes_sqe *out,
			       unsigned int max);
/*
 * Check @sqe (against the queue it was fetched from) and transform its
 * data in place; 0, GPU_AES_STATUS_EBADMSG (GCM tag mismatch, text
 * untouched) or GPU_AES_STATUS_EINVAL.  Not reentrant (one computing
 * thread per fake).
 */
int fake_helper_compute(struct fake_helper *h, const struct gpu_aes_sqe *sqe);
/* Write one cqe at cq_tail (not published). */
void fake_helper_post(struct fake_helper *h, u32 tag, u32 seq, s32 status);
/* Publish cq_tail as it stands, or as @tail (hostile tails). */
void fake_helper_publish(struct fake_helper *h);
void fake_helper_publish_tail(struct fake_helper *h, u32 tail);
/* gpu_aes_ring_reap() of the current queue, counted. */
int fake_helper_reap(struct fake_helper *h);
/* Fetch, compute, post, publish and reap everything pending on every queue. */
unsigned int fake_helper_run(struct fake_helper *h);
/* Number of sqes the kernel has published and the fake not consumed. */
unsigned int fake_helper_pending(struct fake_helper *h);
/* Automatic mode on or off (off: the kick hook does nothing). */
void fake_helper_set_automatic(struct fake_helper *h, bool on);

#endif /* GPU_AES_KUNIT_FAKE_HELPER_H */
