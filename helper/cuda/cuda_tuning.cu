// SPDX-License-Identifier: GPL-2.0-only
/*
 * cuda_tuning.cu - each worker's launch shape (table variant, threads per
 * CTA, blocks per thread, CTAs per SM): GPU_AES_CUDA_SHAPE if set, else the
 * tuning cache file for this GPU, else the fastest shape of a timed run,
 * which is then written to the cache.
 */
#include "aes_kernel.h"
#include "cuda_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <sys/stat.h>
#include <vector>

#ifndef GPU_AES_VERSION
#define GPU_AES_VERSION "dev"
#endif

namespace gpu_aes_cuda {

namespace {

std::string cache_path(const cudaDeviceProp &p)
{
	const char *home = getenv("HOME");
	std::string dir = std::string(home && *home ? home : "/tmp") +
			  "/.cache/gpu-aes";
	int drv = 0;
	char name[512];

	cudaDriverGetVersion(&drv);
	snprintf(name, sizeof(name), "%s-drv%d-%s-%s", p.name, drv,
		 GPU_AES_VERSION, __DATE__ " " __TIME__);
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
			*c = '_';
	return dir + "/tune-" + name;
}

/* Time AES-128-CTR over 64 MiB in each shape; keep the fastest. */
bool tune(worker *w, gpu_aes_shape *best)
{
	const size_t n = 64U << 20;
	uint8_t *buf = nullptr;
	gpu_aes_kseg sg = {};
	gpu_aes_dev_key key;
	gpu_aes_kseg *d_seg = nullptr;
	gpu_aes_kchunk *d_ch = nullptr;
	gpu_aes_dev_key *d_key = nullptr;
	cudaEvent_t a = nullptr, b = nullptr;
	float best_ms = 1e30f;
	unsigned int nr;
	uint8_t raw[16];
	bool ok = false;

	for (int i = 0; i < 16; i++)
		raw[i] = (uint8_t)(i * 29 + 3);
	gpu_aes_dev_expand_key(raw, 16, &key, &nr);
	sg.len = (uint32_t)n;
	sg.rounds = 10;
	sg.op = GPU_AES_KOP_CTR;
	size_t nch = gpu_aes_count_chunks(&sg, 1, GPU_AES_CHUNK_BLOCKS);
	std::vector<gpu_aes_kchunk> ch(nch);
	gpu_aes_build_chunks(&sg, 1, GPU_AES_CHUNK_BLOCKS, ch.data());
	if (!CK(w, cudaMalloc(&buf, n)) || !CK(w, cudaMalloc(&d_seg, sizeof(sg))) ||
	    !CK(w, cudaMalloc(&d_ch, nch * sizeof(ch[0]))) ||
	    !CK(w, cudaMalloc(&d_key, sizeof(key))) ||
	    !CK(w, cudaMemset(buf, 0x5a, n)) ||
	    !CK(w, cudaMemcpy(d_seg, &sg, sizeof(sg), cudaMemcpyHostToDevice)) ||
	    !CK(w, cudaMemcpy(d_ch, ch.data(), nch * sizeof(ch[0]),
			      cudaMemcpyHostToDevice)) ||
	    !CK(w, cudaMemcpy(d_key, &key, sizeof(key), cudaMemcpyHostToDevice)) ||
	    !CK(w, cudaEventCreate(&a)) || !CK(w, cudaEventCreate(&b)))
		goto out;
	for (unsigned int v = 0; v < GPU_AES_NR_VARIANTS; v++)
	for (unsigned int bpt = 1; bpt <= 4; bpt *= 2)
	for (unsigned int t = 128; t <= 512; t *= 2)
	for (unsigned int c = 1; c <= 4; c *= 2) {
		gpu_aes_launch l;
		float ms;

		memset(&l, 0, sizeof(l));
		l.base = buf;
		l.segs = d_seg;
		l.chunks = d_ch;
		l.keys = d_key;
		l.nchunks = (uint32_t)nch;
		l.nenc = (uint32_t)nch;
		l.max_ctas = (uint32_t)w->sms * c;
		l.shape = { v, t, bpt, c };

		if (gpu_aes_kernel_launch(&l, 0) || !CK(w, cudaEventRecord(a)))
			goto out;
		for (int i = 0; i < 3; i++)
			if (gpu_aes_kernel_launch(&l, 0))
				goto out;
		if (!CK(w, cudaEventRecord(b)) || !CK(w, cudaEventSynchronize(b)) ||
		    !CK(w, cudaEventElapsedTime(&ms, a, b)))
			goto out;
		if (ms < best_ms) {
			best_ms = ms;
			*best = l.shape;
		}
	}
	ok = true;
	gpu_aes_log(LOG_INFO, "cuda: gpu %d tuned: variant %u threads %u bpt %u ctas/sm %u, %.0f GB/s",
		    w->dev, best->variant, best->threads, best->bpt,
		    best->ctas_per_sm, 3.0 * n / (best_ms / 1e3) / 1e9);
out:
	if (d_key)
		cudaMemset(d_key, 0, sizeof(key));
	memset(&key, 0, sizeof(key));
	cudaFree(buf);
	cudaFree(d_seg);
	cudaFree(d_ch);
	cudaFree(d_key);
	if (a)
		cudaEventDestroy(a);
	if (b)
		cudaEventDestroy(b);
	return ok;
}

} /* namespace */

void load_shape(worker *w, const cudaDeviceProp &p)
{
	std::string path = cache_path(p);
	char line[128];
	FILE *f;

	if (getenv("GPU_AES_CUDA_SHAPE") &&
	    gpu_aes_shape_parse(getenv("GPU_AES_CUDA_SHAPE"), &w->shape) == 0)
		return;
	f = fopen(path.c_str(), "r");
	if (f) {
		bool ok = fgets(line, sizeof(line), f) &&
			  gpu_aes_shape_parse(line, &w->shape) == 0;

		fclose(f);
		if (ok)
			return;
	}
	w->shape = { 0, 256, 2, 2 };
	if (!tune(w, &w->shape))
		return;
	std::string dir = path.substr(0, path.rfind('/'));
	std::string parent = dir.substr(0, dir.rfind('/'));
	mkdir(parent.c_str(), 0700);
	mkdir(dir.c_str(), 0700);
	f = fopen(path.c_str(), "w");
	if (f) {
		if (gpu_aes_shape_format(&w->shape, line, sizeof(line)) == 0)
			fputs(line, f);
		fclose(f);
	}
}
} /* namespace gpu_aes_cuda */
