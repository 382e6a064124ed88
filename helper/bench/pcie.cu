// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcie.cu - the link: pinned host <-> device copies of 64 MiB on each GPU
 * of --gpus, each direction alone and both at once (two streams).  With
 * several GPUs, all of them at once as well ("pcie-all"): each GPU has a
 * link of its own, so what they reach together is what the host's memory
 * and root ports can feed, the bound of every multi-GPU helper figure.
 */
#include "../cuda/cuda_backend.h"
#include "bench.h"
#include "report.h"

#include <algorithm>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#define CKR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "bench_pcie: %s: %s\n", #x, cudaGetErrorString(e_)); \
	return -1; } } while (0)

namespace {

const size_t COPY_BYTES = 64U << 20;
const int REPEATS = 8;
const char *const MODES[3] = { "h2d", "d2h", "h2d+d2h" };

struct link {
	int dev;
	uint8_t *h, *d;		/* 2 * COPY_BYTES each: one half per direction */
	cudaStream_t s[2];
};

int link_open(link &l, int dev)
{
	l.dev = dev;
	CKR(cudaSetDevice(dev));
	CKR(cudaHostAlloc(&l.h, 2 * COPY_BYTES, cudaHostAllocPortable));
	CKR(cudaMalloc(&l.d, 2 * COPY_BYTES));
	memset(l.h, 0x5c, 2 * COPY_BYTES);
	CKR(cudaStreamCreateWithFlags(&l.s[0], cudaStreamNonBlocking));
	CKR(cudaStreamCreateWithFlags(&l.s[1], cudaStreamNonBlocking));
	return 0;
}

void link_close(link &l)
{
	cudaSetDevice(l.dev);
	if (l.s[0])
		cudaStreamDestroy(l.s[0]);
	if (l.s[1])
		cudaStreamDestroy(l.s[1]);
	cudaFree(l.d);
	cudaFreeHost(l.h);
}

int link_issue(link &l, int mode)
{
	CKR(cudaSetDevice(l.dev));
	if (mode != 1)
		CKR(cudaMemcpyAsync(l.d, l.h, COPY_BYTES, cudaMemcpyHostToDevice,
				    l.s[0]));
	if (mode != 0)
		CKR(cudaMemcpyAsync(l.h + COPY_BYTES, l.d + COPY_BYTES,
				    COPY_BYTES, cudaMemcpyDeviceToHost, l.s[1]));
	return 0;
}

int link_wait(link &l)
{
	CKR(cudaSetDevice(l.dev));
	CKR(cudaStreamSynchronize(l.s[0]));
	CKR(cudaStreamSynchronize(l.s[1]));
	return 0;
}

/*
 * Median GB/s of links [first, first + n) copying at once, timed on the
 * host clock from the first issue to the last completion: the way the
 * helper's batches overlap, and comparable between one GPU and several.
 */
int measure(std::vector<link> &links, size_t first, size_t n, int mode,
	    double *gbps)
{
	std::vector<double> t;

	for (int rep = 0; rep < REPEATS; rep++) {
		double t0 = bench_now();

		for (size_t i = first; i < first + n; i++)
			if (link_issue(links[i], mode))
				return -1;
		for (size_t i = first; i < first + n; i++)
			if (link_wait(links[i]))
				return -1;
		t.push_back(bench_now() - t0);
	}
	std::sort(t.begin(), t.end());
	*gbps = (mode == 2 ? 2.0 : 1.0) * (double)n * COPY_BYTES /
		t[t.size() / 2] / 1e9;
	return 0;
}

void add_row(const char *path, int mode, double gbps, const char *gpus)
{
	struct bench_result r;

	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), "%s", path);
	snprintf(r.alg, sizeof(r.alg), "%s", MODES[mode]);
	r.size = COPY_BYTES;
	r.gbps = gbps;
	snprintf(r.note, sizeof(r.note), "gpu %s, cudaMemcpyAsync, pinned",
		 gpus);
	bench_add(&r);
}

} // namespace

extern "C" int bench_pcie(const struct bench_opts *o)
{
	int ndev = 0, devs[64], nsel;
	std::vector<link> links;
	char all[64] = "", one[16];
	double gbps;
	int err = 0;

	CKR(cudaGetDeviceCount(&ndev));
	nsel = gpu_aes_parse_gpus(o->gpus, ndev, devs, 64);
	if (nsel < 1) {
		fprintf(stderr, "bench_pcie: --gpus %s: not among the %d GPUs\n",
			o->gpus, ndev);
		return -1;
	}
	links.resize(nsel);
	for (int i = 0; i < nsel; i++) {
		memset(&links[i], 0, sizeof(links[i]));
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%d",
			 i ? "," : "", devs[i]);
	}
	for (int i = 0; i < nsel && !err; i++)
		err = link_open(links[i], devs[i]);
	for (int mode = 0; mode < 3 && !err; mode++) {
		for (int i = 0; i < nsel && !err; i++) {
			err = measure(links, i, 1, mode, &gbps);
			snprintf(one, sizeof(one), "%d", devs[i]);
			if (!err)
				add_row("pcie", mode, gbps, one);
		}
		if (nsel > 1 && !err) {
			err = measure(links, 0, nsel, mode, &gbps);
			if (!err)
				add_row("pcie-all", mode, gbps, all);
		}
	}
	for (link &l : links)
		link_close(l);
	return err;
}
