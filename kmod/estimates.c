// SPDX-License-Identifier: GPL-2.0-only
/*
 * estimates.c - where the estimates live (estimates.h), and a request's
 * size class.
 */
#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/percpu.h>

#include "estimates.h"

DEFINE_PER_CPU(struct gpu_aes_dispatch_pcpu, gpu_aes_dispatch_pcpu);

struct gpu_aes_dispatch_queue gpu_aes_dispatch_queues[GPU_AES_MAX_QUEUES];
u32 gpu_aes_lone_ns[GPU_AES_NR_OPS][GPU_AES_NR_CLASSES]
	____cacheline_aligned_in_smp;

#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
struct gpu_aes_dispatch_test gpu_aes_dispatch_test = { .saturated = -1 };
#endif

unsigned int gpu_aes_size_class(u64 bytes)
{
	unsigned int c;

	if (bytes < 1024)
		return 0;
	c = (ilog2(bytes) - 8) / 2;
	return min(c, GPU_AES_NR_CLASSES - 1U);
}
