/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gpu_path.h - which code each GPU runs, and what its launches may ask
 * of it: decided once per GPU at start from facts CUDA gives
 * (aes_kernel.cu, gpu_aes_kernel_init()), by rules that need no GPU and
 * are unit-tested without one (gpu_path.c, tests/gpu/unit_host.c).
 */
#ifndef GPU_AES_CUDA_GPU_PATH_H
#define GPU_AES_CUDA_GPU_PATH_H

#include <stddef.h>

#include "aes_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The code paths a GPU runs, chosen for each at start from its compute
 * capability, its shared memory and the code this binary has for it
 * (gpu_aes_path_choose()):
 * TMA       compute capability 9.0 and later, running code compiled for
 *           compute_90 or later: small GCM batches' input is staged in
 *           shared memory by the TMA (cp.async.bulk, an mbarrier);
 * PORTABLE  every GPU from 7.5 on: the same kernels without the stage;
 *           what code compiled for an older virtual architecture (the
 *           compute_75 PTX and the SASS made from it) holds, and what
 *           GPU_AES_CUDA_PATH=portable or --gpu-path portable forces;
 * NONE      the GPU cannot run the kernels (caps.why says why).
 */
enum gpu_aes_path {
	GPU_AES_PATH_NONE = 0,
	GPU_AES_PATH_PORTABLE,
	GPU_AES_PATH_TMA,
};

/* The oldest compute capability CUDA 13 builds code for, times ten. */
#define GPU_AES_MIN_CC		75

/* One GPU as gpu_aes_path_choose() sees it (aes_kernel.cu asks CUDA). */
struct gpu_aes_dev_facts {
	int cc;			/* compute capability times ten: 75, 90 */
	unsigned int smem_optin;	/* shared memory a CTA may opt into */
	unsigned int static_smem;	/* the kernels' own, beside the tables */
	int image;		/* the binary holds code this GPU runs */
	int code_sm;		/* that code's SASS architecture: 90 */
	int code_ptx;		/* the virtual one it was compiled for: 75 */
	int force_portable;
	const char *built;	/* the code the binary carries, for the reason */
};

/* What a GPU runs: the choice, and what each launch on it needs. */
struct gpu_aes_kernel_caps {
	enum gpu_aes_path path;
	unsigned int smem_max;	/* dynamic shared memory a CTA may take */
	int cc;
	int code_sm, code_ptx;	/* as in the facts */
	int jit;		/* code_sm's SASS is not in the binary: the
				   driver compiled the PTX at start */
	/*
	 * NONE: why the GPU is not used; PORTABLE: why not the TMA path;
	 * TMA: "".  In words, for the log and the status file.
	 */
	char why[192];
};

/*
 * Decides @caps from @f: NONE below GPU_AES_MIN_CC, without an image or
 * with less shared memory than variant 0's tables; else TMA where the
 * GPU and the code it runs both are 9.0 or later, unless forced portable.
 * Returns caps->path.
 */
enum gpu_aes_path gpu_aes_path_choose(const struct gpu_aes_dev_facts *f,
				      struct gpu_aes_kernel_caps *caps);

/* "tma", "portable" or "none". */
const char *gpu_aes_path_name(enum gpu_aes_path path);

/*
 * The code a usable GPU runs, in words for the log: "sm_86" (SASS the
 * binary carries), "sm_90 from compute_75 PTX, JIT-compiled".
 */
void gpu_aes_code_name(const struct gpu_aes_kernel_caps *caps, char *buf,
		       size_t len);

/*
 * The variant a launch with chunks of these directions runs on a GPU of
 * @caps: the shape's, or variant 0 where the shape's tables do not fit
 * (an A100's 163 KiB holds variant 1's encryption tables, not its
 * decryption ones).
 */
unsigned int gpu_aes_launch_variant(const struct gpu_aes_kernel_caps *caps,
				    unsigned int variant, int enc, int dec);
/* Whether such a launch may stage GCM input: the TMA path, and room. */
int gpu_aes_launch_stages(const struct gpu_aes_kernel_caps *caps,
			  unsigned int variant, int enc, int dec);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_CUDA_GPU_PATH_H */
