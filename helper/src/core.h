/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * core.h - the consumer side of the rings: take every pending submission
 * as one batch, validate it, run it through a backend, post completions,
 * notify the producer once per batch, sleep with the NEED_WAKEUP handshake
 * when idle.  Knows nothing about where the producer is (transport.h).
 */
#ifndef GPU_AES_HELPER_CORE_H
#define GPU_AES_HELPER_CORE_H

#include "backend.h"
#include "transport.h"

/* gpu_aes_core_config.reapers: as many as useful (see core.c). */
#define GPU_AES_CORE_AUTO_REAPERS	(~0U)

struct gpu_aes_core_config {
	unsigned int spin_us;		/* busy-poll this long before sleeping */
	/*
	 * Threads that reap queues a batch spans besides its first, so results
	 * of many queues are copied out at once.  0: one call reaps every
	 * queue.  A zeroed config means 0; GPU_AES_CORE_AUTO_REAPERS picks.
	 */
	unsigned int reapers;
	/*
	 * The helper's CPU time so far, in ns, for the cost it publishes in
	 * the region header (helper_cpu_ns_per_kib, helper_mib_per_s) for the
	 * kernel's dispatch policy; NULL publishes nothing.
	 */
	uint64_t (*cpu_ns)(void *arg);
	void *cpu_arg;
	uint32_t max_batch;		/* segments per batch, 0 = all queues' entries
				   (at most 8192) */
	/*
	 * Batches in the backend at once; 0: as many as it works on at
	 * once (its max_batches()), 4 if it does not say.
	 */
	unsigned int max_inflight;
};

struct gpu_aes_core_stats {
	uint64_t batches;	/* handed to the backend */
	uint64_t requests;	/* completions written, invalid included */
	uint64_t bytes;		/* bytes of valid requests */
	uint64_t invalid;	/* completed with GPU_AES_STATUS_EINVAL */
	uint64_t sleeps;	/* times the core slept in transport wait */
	/*
	 * Per algorithm, indexed by alg - 1: valid
	 * requests handed to the backend, and batches holding at least one.
	 */
	uint64_t alg_requests[GPU_AES_ALG_MAX];
	uint64_t alg_batches[GPU_AES_ALG_MAX];
};

struct gpu_aes_core;

/*
 * The core borrows region, backend and transport; they must outlive it.
 * Returns 0 or -errno.
 */
int gpu_aes_core_create(const struct gpu_aes_region *r,
			const struct gpu_aes_backend_ops *ops,
			struct gpu_aes_backend *be,
			struct gpu_aes_transport *t,
			const struct gpu_aes_core_config *cfg,
			struct gpu_aes_core **out);

/*
 * Runs the consumer loop on the calling thread until gpu_aes_core_stop() or
 * a transport failure, then drains the backend and posts every remaining
 * completion.  Returns 0 after a requested stop, else the transport's
 * -errno.
 */
int gpu_aes_core_run(struct gpu_aes_core *c);

/* Asks run() to return.  Async-signal-safe; any thread. */
void gpu_aes_core_stop(struct gpu_aes_core *c);

void gpu_aes_core_get_stats(struct gpu_aes_core *c,
			    struct gpu_aes_core_stats *s);

void gpu_aes_core_destroy(struct gpu_aes_core *c);

/*
 * Copies *sqe, taken from queue @queue, into *seg and checks it against the
 * region: GPU_AES_STATUS_OK, or GPU_AES_STATUS_EINVAL when any field would
 * make the backend touch memory or a key it must not (or cannot) use, its
 * bytes outside the queue's own slice of the data area included.
 */
int32_t gpu_aes_core_check_sqe(const struct gpu_aes_region *r, uint32_t queue,
			       const struct gpu_aes_sqe *sqe,
			       struct gpu_aes_segment *seg);

#endif /* GPU_AES_HELPER_CORE_H */
