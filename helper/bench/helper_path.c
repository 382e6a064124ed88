// SPDX-License-Identifier: GPL-2.0-only
/*
 * helper_path.c - the helper path as the kernel drives it: the in-process
 * producer copies each request into the data area, posts it on the ring,
 * the core batches, the cuda backend runs it, the producer copies it out.
 * Deep queue with several producer threads (requests/s, GB/s, host CPU per
 * GB from getrusage), and QD1 round-trip latency, with the GPU taking every
 * batch and with SSLShader's policy (lone small batches on the CPU).
 *
 * "helper" copies in on the submitting thread and out on the reaping
 * threads (gpu_aes_producer_submit, as the kernel does: it copies out in
 * GPU_AES_IOC_COMPLETE, which several helper threads enter at once, one
 * per finished batch).  "helper-zc" reserves space, copies the input in
 * and posts, and leaves the output in the data area.  "helper-nocopy"
 * posts without writing the input at all: ring, core, backend and GPU
 * alone, to locate the bound.
 *
 * Each producer thread owns its state on its own cache lines and a pool of
 * destination buffers used round robin (distinct pages per request, as a
 * consumer's requests have; one shared scratch buffer would make the
 * reapers' copies fight over the same lines).  Submitters block only when
 * the ring or the data area is full; the producer wakes them once per
 * released chunk, not per request.
 *
 * GPU_AES_BENCH_BACKEND=cpu runs the same path on the cpu backend (for
 * profiling the host side on machines without a GPU).
 */
#include "bench.h"
#include "report.h"

#include "../include/gpu_aes_producer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Destination bytes per producer thread, split into its pool. */
#define DST_POOL_BYTES	(16U << 20)
#define DST_POOL_MAX	256U

struct dq_thread {
	struct gpu_aes_producer *p;
	uint32_t len;
	unsigned int alg;	/* CTR (slot 0), XTS (slot 2), GCM (slot 0) */
	double end;
	int zc;
	pthread_t tid;
	uint8_t *src, *dst;	/* dst: npool buffers of len */
	uint8_t *tags;		/* GCM: npool tags of 16 bytes */
	uint32_t npool;
	uint64_t errors;	/* this thread's */
	/* Written by the reaping threads: a line of its own. */
	uint64_t done __attribute__((aligned(64)));
	uint64_t cb_errors;
} __attribute__((aligned(64)));

static void dq_cb(void *cookie, int status)
{
	struct dq_thread *t = cookie;

	if (status)
		__atomic_add_fetch(&t->cb_errors, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->done, 1, __ATOMIC_RELAXED);
}

static void *dq_main(void *arg)
{
	struct dq_thread *t = arg;
	uint32_t npool = t->npool, next = 0;
	uint8_t *src = t->src, *dst = t->dst;
	uint8_t iv[16];

	memset(iv, 0x3c, sizeof(iv));
	while (bench_now() < t->end) {
		struct gpu_aes_producer_buf b;

		if (t->zc == 2) {
			/* Ring, core, backend and GPU only: no host copies. */
			if (gpu_aes_producer_reserve_wait(t->p, t->len, &b) ||
			    gpu_aes_producer_post(t->p, &b, GPU_AES_ALG_CTR,
						  GPU_AES_DIR_ENCRYPT, 0, iv,
						  dq_cb, t)) {
				t->errors++;
				break;
			}
			continue;
		}
		if (t->zc) {
			if (gpu_aes_producer_reserve_wait(t->p, t->len, &b)) {
				t->errors++;
				break;
			}
			memcpy(b.data, src, t->len);
			if (gpu_aes_producer_post(t->p, &b, GPU_AES_ALG_CTR,
						  GPU_AES_DIR_ENCRYPT, 0, iv,
						  dq_cb, t)) {
				t->errors++;
				break;
			}
			continue;
		}
		/* The pool is scratch: a slow completion may be overtaken. */
		if (t->alg == GPU_AES_ALG_GCM) {
			/* a TLS 1.2 record: 13 bytes of AAD, a 16-byte tag */
			if (gpu_aes_producer_submit_gcm_wait(
				    t->p, GPU_AES_DIR_ENCRYPT, 0, iv, src, 13,
				    src, dst + (size_t)next * t->len, t->len,
				    t->tags + 16 * (size_t)next, 16, dq_cb, t)) {
				t->errors++;
				break;
			}
		} else if (gpu_aes_producer_submit_wait(t->p, t->alg,
						 GPU_AES_DIR_ENCRYPT,
						 t->alg == GPU_AES_ALG_XTS ? 2 : 0,
						 iv,
						 src,
						 dst + (size_t)next * t->len,
						 t->len, dq_cb, t)) {
			t->errors++;
			break;
		}
		next = next + 1 == npool ? 0 : next + 1;
	}
	gpu_aes_producer_wait_idle(t->p);
	return NULL;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static const char *alg_name(unsigned int alg)
{
	return alg == GPU_AES_ALG_XTS ? "aes-128-xts" :
	       alg == GPU_AES_ALG_GCM ? "aes-128-gcm" : "aes-128-ctr";
}

static int deep_queue(struct gpu_aes_producer *p, const struct bench_opts *o,
		      uint32_t len, unsigned int nthreads, int zc,
		      const char *label, unsigned int alg)
{
	struct dq_thread *t = aligned_alloc(64, nthreads * sizeof(*t));
	struct gpu_aes_producer_stats s0, s1;
	struct bench_result r;
	uint64_t done = 0, errors = 0;
	double t0, t1, c0, c1;

	if (!t)
		return -1;
	memset(t, 0, nthreads * sizeof(*t));
	/* Buffers allocated and touched before the clock starts. */
	for (unsigned int i = 0; i < nthreads; i++) {
		uint32_t npool = DST_POOL_BYTES / len;

		npool = npool > DST_POOL_MAX ? DST_POOL_MAX :
			npool < 2 ? 2 : npool;
		t[i].npool = npool;
		t[i].src = malloc(len);
		t[i].dst = malloc((size_t)npool * len);
		t[i].tags = malloc((size_t)npool * 16);
		if (!t[i].src || !t[i].dst || !t[i].tags) {
			nthreads = i + 1;
			goto out;
		}
		for (uint32_t j = 0; j < len; j++)
			t[i].src[j] = (uint8_t)(j * 7 + 1);
		memset(t[i].dst, 0, (size_t)npool * len);
	}
	gpu_aes_producer_get_stats(p, &s0);
	c0 = cpu_seconds();
	t0 = bench_now();
	for (unsigned int i = 0; i < nthreads; i++) {
		t[i].p = p;
		t[i].len = len;
		t[i].end = t0 + o->seconds;
		t[i].zc = zc;
		t[i].alg = alg;
		if (pthread_create(&t[i].tid, NULL, dq_main, &t[i]))
			return -1;
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		pthread_join(t[i].tid, NULL);
		done += t[i].done;
		errors += t[i].errors + t[i].cb_errors;
	}
	t1 = bench_now();
	c1 = cpu_seconds();
	gpu_aes_producer_get_stats(p, &s1);
	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), "%s", label);
	snprintf(r.alg, sizeof(r.alg), "%s", alg_name(alg));
	r.size = len;
	r.rps = done / (t1 - t0);
	r.gbps = r.rps * len / 1e9;
	r.cpu_s_per_gb = (c1 - c0) / (done * (double)len / 1e9);
	snprintf(r.note, sizeof(r.note), "%u thr, %.1f req/batch, %llu err",
		 nthreads,
		 s1.batches > s0.batches ?
			 (double)(s1.requests - s0.requests) /
				 (s1.batches - s0.batches) : 0.0,
		 (unsigned long long)errors);
	bench_add(&r);
out:
	for (unsigned int i = 0; i < nthreads; i++) {
		free(t[i].src);
		free(t[i].dst);
		free(t[i].tags);
	}
	free(t);
	return errors || !done ? -1 : 0;
}

/*
 * The host's own copy bandwidth, the bound of any path that copies each
 * byte in and out on the CPU: threads memcpy len-byte blocks between
 * buffers much larger than the caches, as the producer's copies do.
 */
struct hc_thread {
	uint8_t *src, *dst;
	size_t size;
	uint32_t len;
	double end;
	uint64_t bytes;
	pthread_t tid;
} __attribute__((aligned(64)));

static void *hc_main(void *arg)
{
	struct hc_thread *t = arg;
	size_t off = 0;

	while (bench_now() < t->end) {
		for (int i = 0; i < 64; i++) {
			memcpy(t->dst + off, t->src + off, t->len);
			off = off + 2 * t->len > t->size ? 0 : off + t->len;
			t->bytes += t->len;
		}
	}
	return NULL;
}

static int host_copy(const struct bench_opts *o, uint32_t len,
		     unsigned int nthreads)
{
	struct hc_thread *t = aligned_alloc(64, nthreads * sizeof(*t));
	struct bench_result r;
	uint64_t bytes = 0;
	unsigned int i, n = 0;
	double t0, t1;
	int err = 0;

	if (!t)
		return -1;
	memset(t, 0, nthreads * sizeof(*t));
	for (i = 0; i < nthreads; i++) {
		t[i].size = 64U << 20;
		t[i].len = len;
		t[i].src = malloc(t[i].size);
		t[i].dst = malloc(t[i].size);
		if (!t[i].src || !t[i].dst) {
			err = -1;
			n = i + 1;
			goto out;
		}
		memset(t[i].src, 0x5a, t[i].size);
		memset(t[i].dst, 0, t[i].size);
	}
	n = nthreads;
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		t[i].end = t0 + o->seconds;
		if (pthread_create(&t[i].tid, NULL, hc_main, &t[i])) {
			n = i;
			err = -1;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i].tid, NULL);
		bytes += t[i].bytes;
	}
	t1 = bench_now();
	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), "host-memcpy");
	snprintf(r.alg, sizeof(r.alg), "memcpy");
	r.size = len;
	r.gbps = bytes / (t1 - t0) / 1e9;
	r.rps = bytes / len / (t1 - t0);
	snprintf(r.note, sizeof(r.note), "%u thr, 64 MiB buffers each", n);
	bench_add(&r);
	n = nthreads;
out:
	for (i = 0; i < n; i++) {
		free(t[i].src);
		free(t[i].dst);
	}
	free(t);
	return err;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int qd1(struct gpu_aes_producer *p, const struct bench_opts *o,
	       uint32_t len, const char *label, const char *note)
{
	const size_t max = 200000;
	double *lat = malloc(max * sizeof(double));
	uint8_t *buf = malloc(len), iv[16];
	struct bench_result r;
	size_t n = 0;
	double end, t0 = bench_now();
	int err = 0;

	if (!lat || !buf) {
		free(lat);
		free(buf);
		return -1;
	}
	memset(buf, 0x11, len);
	memset(iv, 0x22, sizeof(iv));
	for (int i = 0; i < 100; i++)	/* warm-up: keys, tables, caches */
		err |= gpu_aes_producer_run(p, GPU_AES_ALG_CTR,
					    GPU_AES_DIR_ENCRYPT, 0, iv, buf,
					    buf, len);
	end = bench_now() + o->seconds;
	while (n < max && bench_now() < end) {
		double a = bench_now();

		err |= gpu_aes_producer_run(p, GPU_AES_ALG_CTR,
					    GPU_AES_DIR_ENCRYPT, 0, iv, buf,
					    buf, len);
		lat[n++] = (bench_now() - a) * 1e6;
	}
	qsort(lat, n, sizeof(double), cmp_double);
	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), "%s", label);
	snprintf(r.alg, sizeof(r.alg), "aes-128-ctr");
	r.size = len;
	r.rps = n / (bench_now() - t0);
	r.gbps = r.rps * len / 1e9;
	r.p50_us = lat[n / 2];
	r.p99_us = lat[n * 99 / 100];
	snprintf(r.note, sizeof(r.note), "%s, n=%zu", note, n);
	bench_add(&r);
	free(lat);
	free(buf);
	return err ? -1 : 0;
}

static int open_producer(const struct bench_opts *o, unsigned int spin_us,
			 struct gpu_aes_producer **p)
{
	struct gpu_aes_producer_config cfg;
	uint8_t key[32];
	int err;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_entries = 4096;
	cfg.nr_keys = 64;
	cfg.data_size = 512U << 20;
	cfg.backend = getenv("GPU_AES_BENCH_BACKEND") ?
		      getenv("GPU_AES_BENCH_BACKEND") : "cuda";
	cfg.backend_cfg.threads = o->threads ? o->threads : 2;
	cfg.backend_cfg.gpus = o->gpus;
	cfg.spin_us = spin_us;
	cfg.max_inflight = 8;
	err = gpu_aes_producer_create(&cfg, p);
	if (err) {
		fprintf(stderr, "bench: producer with %s backend: %s\n",
			cfg.backend, strerror(-err));
		return err;
	}
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(i * 13 + 5);
	err = gpu_aes_producer_setkey(*p, 0, key, 16);
	if (!err)
		err = gpu_aes_producer_setkey(*p, 1, key, 32);
	key[16] ^= 1;	/* distinct halves */
	if (!err)
		err = gpu_aes_producer_setkey_xts(*p, 2, key, 32);
	memset(key, 0, sizeof(key));
	return err;
}

int bench_helper(const struct bench_opts *o)
{
	static const uint32_t sizes[] = { 512, 4096, 16384, 65536, 262144,
					  1048576 };
	unsigned int nthreads = o->threads ? o->threads :
				(unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	struct gpu_aes_producer *p;
	int err = 0;

	/* Leave cores to the core and completion threads. */
	if (nthreads > 8)
		nthreads = 8;
	/* Copy bandwidth: 1 thread, the producer threads, every core. */
	if (o->req_max >= 65536) {
		unsigned int all = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);

		err |= host_copy(o, 65536, 1);
		err |= host_copy(o, 65536, nthreads);
		if (all != nthreads)
			err |= host_copy(o, 65536, all);
	}
	if (open_producer(o, 50, &p))
		return -1;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (sizes[i] >= o->req_min && sizes[i] <= o->req_max)
			err |= deep_queue(p, o, sizes[i], nthreads, 0, "helper",
					  GPU_AES_ALG_CTR);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (sizes[i] >= o->req_min && sizes[i] <= o->req_max)
			err |= deep_queue(p, o, sizes[i], nthreads, 1,
					  "helper-zc", GPU_AES_ALG_CTR);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (sizes[i] >= o->req_min && sizes[i] <= o->req_max)
			err |= deep_queue(p, o, sizes[i], nthreads, 2,
					  "helper-nocopy", GPU_AES_ALG_CTR);
	/* XTS (dm-crypt) and GCM (kTLS) next to CTR at their request sizes */
	for (unsigned int alg = GPU_AES_ALG_XTS; alg <= GPU_AES_ALG_GCM; alg++)
		for (uint32_t len = 4096; len <= 16384; len *= 4)
			if (len >= o->req_min && len <= o->req_max)
				err |= deep_queue(p, o, len, nthreads, 0,
						  "helper", alg);
	if (o->qd1) {
		err |= qd1(p, o, 512, "helper-qd1", "gpu");
		err |= qd1(p, o, 4096, "helper-qd1", "gpu");
		err |= qd1(p, o, 65536, "helper-qd1", "gpu");
	}
	gpu_aes_producer_destroy(p);
	if (!o->qd1)
		return err;

	/* SSLShader's policy: batches under 64 KiB run on the CPU. */
	setenv("GPU_AES_CUDA_CPU_BELOW", "65536", 1);
	if (open_producer(o, 50, &p)) {
		unsetenv("GPU_AES_CUDA_CPU_BELOW");
		return -1;
	}
	err |= qd1(p, o, 4096, "helper-qd1", "cpu<64K policy");
	err |= deep_queue(p, o, 4096, nthreads, 0, "helper-cpupol",
			  GPU_AES_ALG_CTR);
	gpu_aes_producer_destroy(p);
	unsetenv("GPU_AES_CUDA_CPU_BELOW");
	return err;
}
