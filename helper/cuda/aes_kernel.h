/* SPDX-License-Identifier: GPL-2.0-only */
/* aes_kernel.h - launching the batch kernel (CUDA runtime users only). */
#ifndef GPU_AES_CUDA_AES_KERNEL_H
#define GPU_AES_CUDA_AES_KERNEL_H

#include <cuda_runtime.h>

#include "aes_gpu.h"
#include "gpu_path.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Small batches pass their tables inside the launch (kernel parameter
 * space): no copies to queue before the kernel, which cost a small batch
 * latency and the submitting (core) thread two API calls.
 */
#define GPU_AES_INLINE_MAX	40U	/* 3.5 KiB: within the 4 KiB parameter space */

struct gpu_aes_inline {
	struct gpu_aes_kseg segs[GPU_AES_INLINE_MAX];
	struct gpu_aes_kchunk chunks[GPU_AES_INLINE_MAX];
};

struct gpu_aes_launch {
	/* the GPU's, from gpu_aes_kernel_init(): the launch is refused without */
	const struct gpu_aes_kernel_caps *caps;
	uint8_t *base;				/* device view of the data */
	const struct gpu_aes_kseg *segs;	/* device memory */
	const struct gpu_aes_kchunk *chunks;	/* device memory, or NULL: */
	struct gpu_aes_inline inl;		/* tables are here */
	const struct gpu_aes_dev_key *keys;	/* device memory */
	/*
	 * GCM: 4 words per segment (index as in segs), zero before the
	 * launch; the kernel XORs the segment's GHASH into them.  NULL when
	 * no segment is GCM.
	 */
	uint32_t *ghash;
	/*
	 * GCM, optional: memory the host reads (device view of pinned host
	 * memory) for ghash_words words of sums.  The last CTA to finish
	 * moves the sums there and leaves ghash zero for the next launch on
	 * the same stream, so a GCM batch needs neither a memset before its
	 * launch nor a copy after it: each is an operation on a lone
	 * request's path.  NULL: the caller zeroes and copies ghash.
	 */
	uint32_t *ghash_out;
	uint32_t ghash_words;
	/*
	 * Optional: a word the host reads (device view of pinned host
	 * memory) where the last CTA stores done_value once everything the
	 * launch wrote is visible to the host.  A host that polls it needs
	 * no event recorded after the launch (an API call on the submitting
	 * thread) and sees the end sooner than by querying one.
	 */
	uint32_t *done;
	uint32_t done_value;
	/*
	 * With ghash_out or done: a word in device memory, zero before the
	 * launch, which the launch's CTAs count themselves on to find the
	 * last, and leave zero (a grid of one CTA does not touch it).
	 */
	uint32_t *ticket;
	uint32_t ext;		/* 1 when an op has GPU_AES_KOPF_EXT */
	uint32_t nchunks;
	/*
	 * chunks[0..nenc) use the encryption tables, the last nser of them
	 * serial (one thread each).
	 */
	uint32_t nenc;
	uint32_t nser;
	uint32_t max_ctas;	/* persistent grid: SMs * ctas_per_sm */
	struct gpu_aes_shape shape;
	/*
	 * 1 (a batch with GCM, small enough that a lone request's wait is
	 * what matters): each CTA has the TMA copy its first GCM chunk's
	 * input into shared memory while it fills its tables; a kernel of
	 * its own, so no other launch carries its registers.  Only where
	 * caps allow it (gpu_aes_launch_stages()), else the launch runs
	 * unstaged, with the same results.
	 */
	uint32_t stage;
};

/*
 * Once per device, after cudaSetDevice(): decides the device's code path
 * into @caps (NULL: not kept) by gpu_aes_path_choose(), portable when
 * @path_option (NULL: GPU_AES_CUDA_PATH, read by gpu_aes_cuda_path_forced())
 * says so; uploads the tables and sets each kernel's shared-memory limit.
 * Every kernel is loaded here, so a driver that JIT-compiles the PTX
 * does it now, not at a request's launch.  0, or -1 with caps->why
 * saying why the device cannot be used.
 */
int gpu_aes_kernel_init(const char *path_option,
			struct gpu_aes_kernel_caps *caps);
/*
 * Queues the launch; 0, or -1 if the launch was refused.  A shape whose
 * tables do not fit the device runs with variant 0's
 * (gpu_aes_launch_variant()).
 */
int gpu_aes_kernel_launch(const struct gpu_aes_launch *l, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_CUDA_AES_KERNEL_H */
