// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcie.cu - the link: pinned host <-> device copies of 64 MiB on each GPU
 * of --gpus, each direction alone and both at once (two streams).  With
 * several GPUs, all of them at once as well ("pcie-all"): each GPU has a
 * link of its own, so what they reach together is what the host's memory
 * and root ports can feed, the bound of every multi-GPU helper figure.
 * And copy-dma: the bytes of the helper's copy-engine path without the
 * path, its bound on bulk.
 */
#include "../cuda/cuda_backend.h"
#include "bench.h"
#include "report.h"

#include <algorithm>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
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

/*
 * One copy-dma thread: requests of len bytes from a to c through two
 * pinned halves b[] and the GPU's copy engines, one half's transfers in
 * flight while the thread copies the other's out and in.
 */
struct cd_thread {
	int dev;
	uint32_t len, per_half;		/* requests per half */
	size_t size;			/* of a and c */
	double seconds;
	uint8_t *a, *c, *b[2], *d[2];
	cudaStream_t s[2];
	cudaEvent_t ev[2];
	uint64_t reqs;
	double elapsed, cpu;
	int err;
	pthread_t tid;
};

double thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define CKT(t, x) do { if ((x) != cudaSuccess) { (t)->err = -1; \
	fprintf(stderr, "bench copy-dma: %s\n", #x); return NULL; } } while (0)

/*
 * Half h's requests from a (in) or to c (out), from *off on, wrapping
 * before the end of the buffer: the next request's source or destination
 * is rarely in the caches, as a consumer's is not.
 */
void cd_copy(cd_thread *t, int h, bool in, size_t *off)
{
	for (uint32_t k = 0; k < t->per_half; k++) {
		uint8_t *half = t->b[h] + k * (size_t)t->len;

		if (in)
			memcpy(half, t->a + *off, t->len);
		else
			memcpy(t->c + *off, half, t->len);
		*off = *off + 2 * (size_t)t->len > t->size ? 0 : *off + t->len;
	}
}

void *cd_main(void *arg)
{
	cd_thread *t = (cd_thread *)arg;
	size_t half = (size_t)t->len * t->per_half, off_in = 0, off_out = 0;
	double t0, c0;
	uint64_t n;

	CKT(t, cudaSetDevice(t->dev));
	t0 = bench_now();
	c0 = thread_cpu_seconds();
	for (n = 0;; n++) {
		int h = (int)(n & 1);

		if (n >= 2) {	/* half h still holds batch n - 2 */
			CKT(t, cudaEventSynchronize(t->ev[h]));
			cd_copy(t, h, false, &off_out);
			t->reqs += t->per_half;
		}
		if (bench_now() - t0 >= t->seconds)
			break;
		cd_copy(t, h, true, &off_in);
		CKT(t, cudaMemcpyAsync(t->d[h], t->b[h], half,
				       cudaMemcpyHostToDevice, t->s[h]));
		CKT(t, cudaMemcpyAsync(t->b[h], t->d[h], half,
				       cudaMemcpyDeviceToHost, t->s[h]));
		CKT(t, cudaEventRecord(t->ev[h], t->s[h]));
	}
	if (n >= 1) {	/* batch n - 1 */
		CKT(t, cudaEventSynchronize(t->ev[(n - 1) & 1]));
		cd_copy(t, (int)((n - 1) & 1), false, &off_out);
		t->reqs += t->per_half;
	}
	t->elapsed = bench_now() - t0;
	t->cpu = thread_cpu_seconds() - c0;
	return NULL;
}

void cd_free(cd_thread &t)
{
	cudaSetDevice(t.dev);
	for (int h = 0; h < 2; h++) {
		if (t.s[h])
			cudaStreamDestroy(t.s[h]);
		if (t.ev[h])
			cudaEventDestroy(t.ev[h]);
		cudaFreeHost(t.b[h]);
		cudaFree(t.d[h]);
	}
	free(t.a);
	free(t.c);
}

} // namespace

/*
 * copy-dma: on each of @nthreads threads, requests of @len bytes copied
 * into pinned memory (a producer into the region), through the first
 * GPU's copy engines and back (a copy-engine batch), and copied out (the
 * reaping): every crossing of host memory the helper's copy-engine path
 * makes per byte, with no ring, batching thread or completion thread.
 * What it moves per second bounds that path's bulk figure on this host;
 * its host CPU is the copies' and the copy calls' (waits sleep).
 */
extern "C" int bench_copy_dma(const struct bench_opts *o, uint32_t len,
			      unsigned int nthreads)
{
	const size_t size = 64U << 20, half_min = 1U << 20;
	std::vector<cd_thread> t(nthreads);
	int ndev = 0, devs[64], err = 0;
	unsigned int started = 0;
	uint64_t reqs = 0;
	double busy = 0, cpu = 0;

	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1 ||
	    gpu_aes_parse_gpus(o->gpus, ndev, devs, 64) < 1) {
		fprintf(stderr, "bench copy-dma: no GPU to copy through\n");
		return -1;
	}
	for (cd_thread &c : t) {
		memset(&c, 0, sizeof(c));
		c.dev = devs[0];
		c.len = len;
		c.per_half = (uint32_t)std::max<size_t>(1, half_min / len);
		c.size = size;
		c.seconds = o->seconds;
		size_t half = (size_t)len * c.per_half;

		c.a = (uint8_t *)malloc(size);
		c.c = (uint8_t *)malloc(size);
		if (!c.a || !c.c)
			err = -1;
		else {
			memset(c.a, 0x5a, size);
			memset(c.c, 0, size);
		}
		for (int h = 0; h < 2 && !err; h++)
			if (cudaSetDevice(c.dev) != cudaSuccess ||
			    cudaHostAlloc(&c.b[h], half, cudaHostAllocPortable) !=
			    cudaSuccess ||
			    cudaMalloc(&c.d[h], half) != cudaSuccess ||
			    cudaStreamCreateWithFlags(&c.s[h],
						      cudaStreamNonBlocking) !=
			    cudaSuccess ||
			    cudaEventCreateWithFlags(&c.ev[h],
						     cudaEventDisableTiming |
						     cudaEventBlockingSync) !=
			    cudaSuccess)
				err = -1;
		if (err)
			break;
	}
	for (unsigned int i = 0; i < nthreads && !err; i++) {
		if (pthread_create(&t[i].tid, NULL, cd_main, &t[i]))
			break;
		started++;
	}
	for (unsigned int i = 0; i < started; i++) {
		pthread_join(t[i].tid, NULL);
		err |= t[i].err;
		reqs += t[i].reqs;
		busy += t[i].elapsed;
		cpu += t[i].cpu;
	}
	if (!err && reqs) {
		struct bench_result r;

		memset(&r, 0, sizeof(r));
		snprintf(r.path, sizeof(r.path), "copy-dma");
		snprintf(r.alg, sizeof(r.alg), "2x memcpy+dma");
		bench_set_rates(&r, len, (double)reqs, busy / started, cpu);
		snprintf(r.note, sizeof(r.note),
			 "%u threads, through gpu %d's copy engines, %u per transfer",
			 started, devs[0], t[0].per_half);
		bench_add(&r);
	} else if (!err) {
		err = -1;
	}
	for (cd_thread &c : t)
		cd_free(c);
	return err;
}

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
