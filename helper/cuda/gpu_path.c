// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu_path.c - the rules of gpu_path.h: which code path a GPU runs and
 * what a launch on it may use.  Plain C, no CUDA: aes_kernel.cu gathers
 * the facts, these decide.
 */
#include "gpu_path.h"
#include "cuda_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gpu_aes_cuda_path_forced(const char *option)
{
	const char *v = option ? option : getenv("GPU_AES_CUDA_PATH");

	if (!v || !*v || !strcmp(v, "auto"))
		return 0;
	return strcmp(v, "portable") ? -1 : 1;
}

const char *gpu_aes_path_name(enum gpu_aes_path path)
{
	return path == GPU_AES_PATH_TMA ? "tma" :
	       path == GPU_AES_PATH_PORTABLE ? "portable" : "none";
}

void gpu_aes_code_name(const struct gpu_aes_kernel_caps *caps, char *buf,
		       size_t len)
{
	if (caps->jit)
		snprintf(buf, len, "sm_%d from compute_%d PTX, JIT-compiled",
			 caps->code_sm, caps->code_ptx);
	else
		snprintf(buf, len, "sm_%d", caps->code_sm);
}

/* Whether the space-separated list @list holds @word. */
static int carries(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
	return 0;
}

static enum gpu_aes_path none(struct gpu_aes_kernel_caps *c)
{
	c->path = GPU_AES_PATH_NONE;
	c->smem_max = 0;
	return c->path;
}

enum gpu_aes_path gpu_aes_path_choose(const struct gpu_aes_dev_facts *f,
				      struct gpu_aes_kernel_caps *c)
{
	const unsigned int need = gpu_aes_table_bytes(0, 1, 1);
	const char *built = f->built && *f->built ? f->built : "nothing";
	char sm[16];

	memset(c, 0, sizeof(*c));
	c->cc = f->cc;
	if (f->cc < GPU_AES_MIN_CC) {
		snprintf(c->why, sizeof(c->why),
			 "compute capability %d.%d is older than %d.%d, the oldest CUDA 13 builds code for",
			 f->cc / 10, f->cc % 10, GPU_AES_MIN_CC / 10,
			 GPU_AES_MIN_CC % 10);
		return none(c);
	}
	if (!f->image) {
		snprintf(c->why, sizeof(c->why),
			 "no code for compute capability %d.%d in this build (it carries %s)",
			 f->cc / 10, f->cc % 10, built);
		return none(c);
	}
	c->code_sm = f->code_sm;
	c->code_ptx = f->code_ptx;
	/* SASS the binary does not carry was compiled by the driver's JIT. */
	snprintf(sm, sizeof(sm), "sm_%d", f->code_sm);
	c->jit = !carries(built, sm);
	if (f->smem_optin < f->static_smem + need) {
		snprintf(c->why, sizeof(c->why),
			 "%u KiB of shared memory a block, the tables need %u KiB",
			 f->smem_optin / 1024, (f->static_smem + need + 1023) / 1024);
		return none(c);
	}
	c->smem_max = f->smem_optin - f->static_smem;
	if (f->force_portable) {
		snprintf(c->why, sizeof(c->why),
			 "forced (--gpu-path portable or GPU_AES_CUDA_PATH=portable)");
		c->path = GPU_AES_PATH_PORTABLE;
	} else if (f->cc < 90) {
		snprintf(c->why, sizeof(c->why),
			 "compute capability %d.%d has no TMA", f->cc / 10,
			 f->cc % 10);
		c->path = GPU_AES_PATH_PORTABLE;
	} else if (f->code_ptx < 90) {
		snprintf(c->why, sizeof(c->why),
			 "its code was compiled for compute_%d", f->code_ptx);
		c->path = GPU_AES_PATH_PORTABLE;
	} else {
		c->path = GPU_AES_PATH_TMA;
	}
	return c->path;
}

unsigned int gpu_aes_launch_variant(const struct gpu_aes_kernel_caps *caps,
				    unsigned int variant, int enc, int dec)
{
	return gpu_aes_table_bytes(variant, enc, dec) <= caps->smem_max ?
	       variant : 0;
}

int gpu_aes_launch_stages(const struct gpu_aes_kernel_caps *caps,
			  unsigned int variant, int enc, int dec)
{
	return caps->path == GPU_AES_PATH_TMA &&
	       gpu_aes_table_bytes(variant, enc, dec) + GPU_AES_STAGE_SMEM <=
	       caps->smem_max;
}
