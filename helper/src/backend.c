// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "backend.h"

const struct gpu_aes_backend_ops *gpu_aes_backend_find(const char *name)
{
	if (strcmp(name, "cpu") == 0)
		return &gpu_aes_backend_cpu;
#ifdef HAVE_CUDA
	if (strcmp(name, "cuda") == 0)
		return &gpu_aes_backend_cuda;
#endif
	return NULL;
}

const struct gpu_aes_backend_ops *gpu_aes_backend_select(const char *name)
{
	if (strcmp(name, "auto") != 0)
		return gpu_aes_backend_find(name);
#ifdef HAVE_CUDA
	if (gpu_aes_backend_cuda.probe() == 0)
		return &gpu_aes_backend_cuda;
#endif
	return &gpu_aes_backend_cpu;
}
