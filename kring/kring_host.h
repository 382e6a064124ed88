/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kring_host.h - gpu-aes-helper in the same process as kring: the real
 * helper core and backend serving the kernel's request path (kring.h)
 * through the in-process transport, attached the way the helper attaches
 * to /dev/gpu_aes and leaving the way it leaves (stop) or dies (kill).
 */
#ifndef GPU_AES_KRING_HOST_H
#define GPU_AES_KRING_HOST_H

#include "../helper/src/backend.h"
#include "../helper/src/core.h"

struct kring_host_config {
	const struct gpu_aes_backend_ops *ops;
	struct gpu_aes_backend_config backend;
	struct gpu_aes_core_config core;
	uint32_t nr_queues;
	uint32_t queue_entries;		/* per queue */
	uint32_t nr_keys;
	uint64_t queue_data_size;	/* per queue */
};

struct kring_host;

/*
 * Allocates the region, attaches it (SETUP), opens the backend and starts
 * the core on a thread of its own.  kring_init() first.  0 or -errno.
 */
int kring_host_start(const struct kring_host_config *cfg,
		     struct kring_host **out);

/*
 * The helper leaves on SIGTERM: the core stops taking work, the backend
 * finishes and completes what it has, then the region is detached (the
 * kernel replays what is left on the CPU) and freed.
 */
void kring_host_stop(struct kring_host *h);

/*
 * The helper dies (SIGKILL): the kernel detaches at once, with batches in
 * flight in the backend, and replays every request still on the ring on
 * the CPU; then the helper's threads go, their late completions falling
 * on a detached region the kernel no longer reads.
 */
void kring_host_kill(struct kring_host *h);

const struct gpu_aes_region *kring_host_region(const struct kring_host *h);
struct gpu_aes_backend *kring_host_backend(const struct kring_host *h);
void kring_host_core_stats(struct kring_host *h, struct gpu_aes_core_stats *s);

#endif /* GPU_AES_KRING_HOST_H */
