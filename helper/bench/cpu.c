// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpu.c - OpenSSL EVP AES on one core and on all cores (one thread
 * each, own buffers), the comparison every GPU figure is shown against.
 */
#include "bench.h"
#include "report.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cpu_job {
	const EVP_CIPHER *cipher;
	int enc;
	size_t size;
	double seconds;
	uint64_t bytes;
	int err;
};

static void *cpu_worker(void *arg)
{
	struct cpu_job *j = arg;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	unsigned char key[32], iv[16];
	unsigned char *buf = malloc(j->size);
	double end;
	int n;

	if (!ctx || !buf) {
		j->err = 1;
		goto out;
	}
	for (size_t i = 0; i < j->size; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	memset(key, 0x42, sizeof(key));
	memset(iv, 0x17, sizeof(iv));
	if (!EVP_CipherInit_ex(ctx, j->cipher, NULL, key, iv, j->enc) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, 0)) {
		j->err = 1;
		goto out;
	}
	end = bench_now() + j->seconds;
	while (bench_now() < end) {
		for (int k = 0; k < 16; k++) {
			if (!EVP_CipherUpdate(ctx, buf, &n, buf, (int)j->size)) {
				j->err = 1;
				goto out;
			}
			j->bytes += j->size;
		}
	}
out:
	EVP_CIPHER_CTX_free(ctx);
	free(buf);
	return NULL;
}

static int run(const char *alg, const EVP_CIPHER *c, int enc, size_t size,
	       unsigned int nthreads, double seconds)
{
	struct cpu_job *jobs = calloc(nthreads, sizeof(*jobs));
	pthread_t *tid = calloc(nthreads, sizeof(*tid));
	struct bench_result r;
	double t0, t1;
	uint64_t bytes = 0;
	int err = 0;

	if (!jobs || !tid) {
		free(jobs);
		free(tid);
		return -1;
	}
	t0 = bench_now();
	for (unsigned int i = 0; i < nthreads; i++) {
		jobs[i] = (struct cpu_job){ c, enc, size, seconds, 0, 0 };
		if (pthread_create(&tid[i], NULL, cpu_worker, &jobs[i]))
			return -1;
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		pthread_join(tid[i], NULL);
		bytes += jobs[i].bytes;
		err |= jobs[i].err;
	}
	t1 = bench_now();
	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), nthreads == 1 ? "cpu-1" : "cpu-all");
	snprintf(r.alg, sizeof(r.alg), "%s", alg);
	r.size = size;
	r.gbps = bytes / (t1 - t0) / 1e9;
	r.cpu_s_per_gb = nthreads * (t1 - t0) / (bytes / 1e9);
	snprintf(r.note, sizeof(r.note), "openssl evp, %u thread%s", nthreads,
		 nthreads == 1 ? "" : "s");
	bench_add(&r);
	free(jobs);
	free(tid);
	return err ? -1 : 0;
}

int bench_cpu(const struct bench_opts *o)
{
	unsigned int all = o->threads ? o->threads :
			   (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	static const size_t sizes[] = { 512, 4096, 16384, 65536, 1 << 20 };
	int err = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		err |= run("aes-128-ctr", EVP_aes_128_ctr(), 1, sizes[i], 1,
			   o->seconds);
		err |= run("aes-128-ctr", EVP_aes_128_ctr(), 1, sizes[i], all,
			   o->seconds);
	}
	err |= run("aes-256-ctr", EVP_aes_256_ctr(), 1, 16384, 1, o->seconds);
	err |= run("aes-256-ctr", EVP_aes_256_ctr(), 1, 16384, all, o->seconds);
	err |= run("aes-128-ecb-dec", EVP_aes_128_ecb(), 0, 16384, 1,
		   o->seconds);
	err |= run("aes-128-ecb-dec", EVP_aes_128_ecb(), 0, 16384, all,
		   o->seconds);
	return err;
}
