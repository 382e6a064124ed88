/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cuda_backend.h - the cuda backend's host helpers beyond backend.h.
 * Its knobs are environment variables, read in cuda_pipeline.cu
 * (GPU_AES_CUDA_ZC_MAX, GPU_AES_CUDA_CPU_BELOW, GPU_AES_CUDA_SYNC_SPIN_US,
 * GPU_AES_CUDA_BATCH_COPY), cuda_tuning.cu (GPU_AES_CUDA_SHAPE) and
 * gpu_path.c (GPU_AES_CUDA_PATH); their one description, with the tuning cache's,
 * is the man page: docs/gpu-aes-helper.8, ENVIRONMENT and FILES.
 */
#ifndef GPU_AES_CUDA_BACKEND_H
#define GPU_AES_CUDA_BACKEND_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Batch counters, logged when the backend closes. */
struct gpu_aes_cuda_stats {
	uint64_t zc_batches;	/* run zero-copy */
	uint64_t copy_batches;	/* run through the copy engines */
	uint64_t cpu_batches;	/* sent to the cpu backend */
	uint64_t eio_batches;	/* completed with GPU_AES_STATUS_EIO */
};

struct gpu_aes_backend;

/* The counters so far, of a backend the cuda ops opened; any thread. */
void gpu_aes_cuda_get_stats(struct gpu_aes_backend *be,
			    struct gpu_aes_cuda_stats *out);

/*
 * Whether the portable code path runs on every GPU (gpu_path.h), not
 * the TMA path where a GPU has it: @option, the helper's --gpu-path
 * ("auto" or "portable"), or when NULL the environment's
 * GPU_AES_CUDA_PATH (the same words; unset or empty: auto), which is how
 * the GPU checks and gpu-aes-bench are told.  1 forced, 0 not, -1 for a
 * value that is neither word.
 */
int gpu_aes_cuda_path_forced(const char *option);

/*
 * "0,2": those device ids, each once, each < ndev; NULL or "" or "all":
 * 0..ndev-1.  Fills out (room for max) and returns the count, or -1.
 */
int gpu_aes_parse_gpus(const char *spec, int ndev, int *out, int max);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_CUDA_BACKEND_H */
