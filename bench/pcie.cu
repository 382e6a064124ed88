// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcie.cu - the link: pinned host <-> device copies of 64 MiB on each GPU
 * of --gpus, each direction alone and both at once (two streams).  With
 * several GPUs, all of them at once as well ("pcie-all"): each GPU has a
 * link of its own, so what they reach together is what the host's memory
 * and root ports can feed, the bound of every multi-GPU helper figure.
 * And copy-dma and copy-pipe: the bytes of the helper's copy-engine path
 * without the path, copy-pipe its bound on bulk.
 */
#include "../kring/kring.h"
#include "../helper/cuda/cuda_backend.h"
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
const unsigned int CD_DEPTH_MAX = 16;

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
 * One copy thread of copy-dma or copy-pipe: requests of len bytes from a
 * to c through `depth` pinned buffers b[] and the GPU's copy engines:
 * while one buffer's transfers are in flight the thread copies the
 * others out and in.
 */
struct cd_thread {
	int dev;
	unsigned int depth;
	bool streaming;			/* copy in around the cache */
	uint32_t len, per_buf;		/* requests per buffer */
	size_t size;			/* of a and c */
	double seconds;
	uint8_t *a, *c, *b[CD_DEPTH_MAX], *d[CD_DEPTH_MAX];
	cudaStream_t s[CD_DEPTH_MAX];
	cudaEvent_t ev[CD_DEPTH_MAX];
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
 * Buffer i's requests from a (in) or to c (out), from *off on, wrapping
 * before the end of the buffer: the next request's source or destination
 * is rarely in the caches, as a consumer's is not.  Streaming, the copy
 * in is the ring's own (kring_copy_to_slot(): the module's, stores around
 * the cache, ordered before the transfer reads them).
 */
void cd_copy(cd_thread *t, unsigned int i, bool in, size_t *off)
{
	for (uint32_t k = 0; k < t->per_buf; k++) {
		uint8_t *buf = t->b[i] + k * (size_t)t->len;

		if (in && t->streaming)
			kring_copy_to_slot(buf, t->a + *off, t->len);
		else if (in)
			memcpy(buf, t->a + *off, t->len);
		else
			memcpy(t->c + *off, buf, t->len);
		*off = *off + 2 * (size_t)t->len > t->size ? 0 : *off + t->len;
	}
	if (in && t->streaming)
		kring_copy_to_slot_fence();
}

void *cd_main(void *arg)
{
	cd_thread *t = (cd_thread *)arg;
	size_t bytes = (size_t)t->len * t->per_buf, off_in = 0, off_out = 0;
	double t0, c0;
	uint64_t n, first;

	CKT(t, cudaSetDevice(t->dev));
	t0 = bench_now();
	c0 = thread_cpu_seconds();
	for (n = 0;; n++) {
		unsigned int i = (unsigned int)(n % t->depth);

		if (n >= t->depth) {	/* buffer i still holds batch n - depth */
			CKT(t, cudaEventSynchronize(t->ev[i]));
			cd_copy(t, i, false, &off_out);
			t->reqs += t->per_buf;
		}
		if (bench_now() - t0 >= t->seconds)
			break;
		cd_copy(t, i, true, &off_in);
		CKT(t, cudaMemcpyAsync(t->d[i], t->b[i], bytes,
				       cudaMemcpyHostToDevice, t->s[i]));
		CKT(t, cudaMemcpyAsync(t->b[i], t->d[i], bytes,
				       cudaMemcpyDeviceToHost, t->s[i]));
		CKT(t, cudaEventRecord(t->ev[i], t->s[i]));
	}
	/* Batches n - depth + 1 .. n - 1 are still out. */
	first = n >= t->depth ? n - t->depth + 1 : 0;
	for (uint64_t k = first; k < n; k++) {
		unsigned int i = (unsigned int)(k % t->depth);

		CKT(t, cudaEventSynchronize(t->ev[i]));
		cd_copy(t, i, false, &off_out);
		t->reqs += t->per_buf;
	}
	t->elapsed = bench_now() - t0;
	t->cpu = thread_cpu_seconds() - c0;
	return NULL;
}

void cd_free(cd_thread &t)
{
	cudaSetDevice(t.dev);
	for (unsigned int i = 0; i < t.depth; i++) {
		if (t.s[i])
			cudaStreamDestroy(t.s[i]);
		if (t.ev[i])
			cudaEventDestroy(t.ev[i]);
		cudaFreeHost(t.b[i]);
		cudaFree(t.d[i]);
	}
	free(t.a);
	free(t.c);
}

int cd_alloc(cd_thread &c)
{
	size_t bytes = (size_t)c.len * c.per_buf;

	c.a = (uint8_t *)malloc(c.size);
	c.c = (uint8_t *)malloc(c.size);
	if (!c.a || !c.c)
		return -1;
	memset(c.a, 0x5a, c.size);
	memset(c.c, 0, c.size);
	for (unsigned int i = 0; i < c.depth; i++)
		if (cudaSetDevice(c.dev) != cudaSuccess ||
		    cudaHostAlloc(&c.b[i], bytes, cudaHostAllocPortable) !=
		    cudaSuccess ||
		    cudaMalloc(&c.d[i], bytes) != cudaSuccess ||
		    cudaStreamCreateWithFlags(&c.s[i], cudaStreamNonBlocking) !=
		    cudaSuccess ||
		    cudaEventCreateWithFlags(&c.ev[i], cudaEventDisableTiming |
					     cudaEventBlockingSync) !=
		    cudaSuccess)
			return -1;
	return 0;
}

} // namespace

/*
 * copy-dma and copy-pipe: on each of @nthreads threads, requests of @len
 * bytes copied into pinned memory (a producer into the region), through
 * the first GPU's copy engines and back (a copy-engine batch), and copied
 * out (the reaping): every crossing of host memory the helper's
 * copy-engine path makes per byte, with no ring, batching thread or
 * completion thread.  Its host CPU is the copies' and the copy calls'
 * (waits sleep).
 *
 * copy-dma keeps two buffers of 1 MiB per thread, plain memcpy both ways.
 * copy-pipe keeps @depth and copies in as the module does, around the
 * cache: a thread then waits for a transfer only when the link or the
 * copy engines are behind its copies, so what it moves per second is what
 * this host's memory and link allow a path that copies each byte in and
 * out on the CPU and across PCIe both ways: the bound of bulk.
 */
extern "C" int bench_copy_dma(const struct bench_opts *o, uint32_t len,
			      unsigned int nthreads, unsigned int depth)
{
	const size_t size = 64U << 20, buf_min = 1U << 20;
	std::vector<cd_thread> t(nthreads);
	int ndev = 0, devs[64], err = 0;
	unsigned int started = 0;
	uint64_t reqs = 0;
	double busy = 0, cpu = 0;
	bool pipe = depth > 2;

	if (depth < 2 || depth > CD_DEPTH_MAX) {
		fprintf(stderr, "bench copy-dma: depth %u not in 2..%u\n",
			depth, CD_DEPTH_MAX);
		return -1;
	}
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1 ||
	    gpu_aes_parse_gpus(o->gpus, ndev, devs, 64) < 1) {
		fprintf(stderr, "bench copy-dma: no GPU to copy through\n");
		return -1;
	}
	for (cd_thread &c : t) {
		memset(&c, 0, sizeof(c));
		c.dev = devs[0];
		c.depth = depth;
		c.streaming = pipe;
		c.len = len;
		c.per_buf = (uint32_t)std::max<size_t>(1, buf_min / len);
		c.size = size;
		c.seconds = o->seconds;
		err = cd_alloc(c);
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
		snprintf(r.path, sizeof(r.path), pipe ? "copy-pipe" :
			 "copy-dma");
		snprintf(r.alg, sizeof(r.alg), "2x memcpy+dma");
		bench_set_rates(&r, len, (double)reqs, busy / started, cpu);
		snprintf(r.note, sizeof(r.note),
			 "%u threads, gpu %d's copy engines, %u x %u per transfer%s",
			 started, devs[0], depth, t[0].per_buf,
			 pipe ? ", in around the cache" : "");
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
