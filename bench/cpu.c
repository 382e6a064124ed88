// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpu.c - OpenSSL EVP AES on one core and on all cores (one thread each,
 * own buffers), the comparison every helper-path figure is shown against.
 * Each request is what a CPU driver does per request: a new IV (and for
 * GCM the AAD, the text and the tag), with the key expanded once per
 * thread, as a tfm's is.  CBC too, both ways (encryption is serial on a
 * CPU as well, decryption is not), next to the GPU's raw CBC rows: the
 * helper path has no CBC yet (kring has no cbc(aes)).
 */
#include "../uapi/gpu_aes.h"
#include "bench.h"
#include "report.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

const struct bench_alg bench_algs[BENCH_NR_ALGS] = {
	{ "aes-128-ctr", GPU_AES_ALG_CTR, 16, 0 },
	{ "aes-256-xts", GPU_AES_ALG_XTS, 64, 0 },
	{ "aes-128-gcm", GPU_AES_ALG_GCM, 16, 13 },
};

const size_t bench_sizes[BENCH_NR_SIZES] = { 4096, 16384, 65536, 1 << 20 };

/* dm-crypt's aes-cbc-essiv and IPsec's aes128-sha256 proposals. */
static const struct bench_alg bench_cbc128 = {
	"aes-128-cbc", GPU_AES_ALG_CBC, 16, 0
};

const struct bench_work bench_works[BENCH_NR_WORKS] = {
	{ "cbc-enc", "aes-128-cbc-enc", &bench_cbc128, GPU_AES_DIR_ENCRYPT },
	{ "cbc-dec", "aes-128-cbc-dec", &bench_cbc128, GPU_AES_DIR_DECRYPT },
	{ "xts", "aes-256-xts", &bench_algs[1], GPU_AES_DIR_ENCRYPT },
	{ "xts-dec", "aes-256-xts-dec", &bench_algs[1], GPU_AES_DIR_DECRYPT },
	{ "gcm", "aes-128-gcm", &bench_algs[2], GPU_AES_DIR_ENCRYPT },
	{ "ctr", "aes-128-ctr", &bench_algs[0], GPU_AES_DIR_ENCRYPT },
};

int bench_works_parse(const char *list, const struct bench_work **out)
{
	char buf[256], *save = NULL, *w;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned int i;

		for (i = 0; i < BENCH_NR_WORKS && strcmp(bench_works[i].name, w);
		     i++)
			;
		if (i == BENCH_NR_WORKS || n == BENCH_NR_WORKS) {
			fprintf(stderr, "gpu-aes-bench: --dispatch-algs: '%s' is not one of cbc-enc, cbc-dec, xts, xts-dec, gcm, ctr (at most %d)\n",
				w, BENCH_NR_WORKS);
			return -1;
		}
		out[n++] = &bench_works[i];
	}
	return n ? n : -1;
}

/* OpenSSL only; dec: the direction measured. */
static const struct {
	struct bench_alg a;
	int dec;
} cpu_only[] = {
	{ { "aes-128-cbc-enc", GPU_AES_ALG_CBC, 16, 0 }, 0 },
	{ { "aes-128-cbc-dec", GPU_AES_ALG_CBC, 16, 0 }, 1 },
	{ { "aes-256-cbc-enc", GPU_AES_ALG_CBC, 32, 0 }, 0 },
	{ { "aes-256-cbc-dec", GPU_AES_ALG_CBC, 32, 0 }, 1 },
};

double bench_cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static const EVP_CIPHER *cipher_of(const struct bench_alg *a)
{
	switch (a->alg) {
	case GPU_AES_ALG_XTS:
		return a->key_len == 32 ? EVP_aes_128_xts() : EVP_aes_256_xts();
	case GPU_AES_ALG_GCM:
		return a->key_len == 16 ? EVP_aes_128_gcm() :
		       a->key_len == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
	case GPU_AES_ALG_CBC:
		return a->key_len == 16 ? EVP_aes_128_cbc() :
		       a->key_len == 24 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
	default:
		return a->key_len == 16 ? EVP_aes_128_ctr() :
		       a->key_len == 24 ? EVP_aes_192_ctr() : EVP_aes_256_ctr();
	}
}

struct cpu_job {
	const struct bench_alg *a;
	int dec;
	size_t size;
	double seconds;
	uint64_t reqs;
	int err;
};

/* One request as a CPU driver runs it; 0 or -1. */
static int one_request(EVP_CIPHER_CTX *ctx, const struct bench_alg *a,
		       const unsigned char *iv, unsigned char *buf,
		       size_t size, unsigned char *tag)
{
	int n;

	if (!EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, -1))
		return -1;
	if (a->alg != GPU_AES_ALG_GCM)
		return EVP_CipherUpdate(ctx, buf, &n, buf, (int)size) ? 0 : -1;
	if (!EVP_CipherUpdate(ctx, NULL, &n, buf, (int)a->aad_len) ||
	    !EVP_CipherUpdate(ctx, buf + a->aad_len, &n, buf + a->aad_len,
			      (int)size) ||
	    !EVP_CipherFinal_ex(ctx, tag, &n) ||
	    !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag))
		return -1;
	return 0;
}

static void *cpu_worker(void *arg)
{
	struct cpu_job *j = arg;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	unsigned char key[64], iv[16], tag[16];
	unsigned char *buf = malloc(j->size + j->a->aad_len);
	double end;

	if (!ctx || !buf) {
		j->err = 1;
		goto out;
	}
	for (size_t i = 0; i < j->size + j->a->aad_len; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (unsigned char)(i * 29 + 3);	/* distinct XTS halves */
	memset(iv, 0x17, sizeof(iv));
	if (!EVP_CipherInit_ex(ctx, cipher_of(j->a), NULL, NULL, NULL,
			       !j->dec) ||
	    (j->a->alg == GPU_AES_ALG_GCM &&
	     !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL)) ||
	    !EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, !j->dec) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, 0)) {
		j->err = 1;
		goto out;
	}
	end = bench_now() + j->seconds;
	while (bench_now() < end) {
		for (int k = 0; k < 16; k++) {
			if (one_request(ctx, j->a, iv, buf, j->size, tag)) {
				j->err = 1;
				goto out;
			}
			j->reqs++;
		}
	}
out:
	EVP_CIPHER_CTX_free(ctx);
	free(buf);
	return NULL;
}

static int run(const struct bench_alg *a, int dec, size_t size,
	       unsigned int nthreads, double seconds)
{
	struct cpu_job *jobs = calloc(nthreads, sizeof(*jobs));
	pthread_t *tid = calloc(nthreads, sizeof(*tid));
	struct bench_result r;
	double t0, t1, c0, c1;
	uint64_t reqs = 0;
	unsigned int started = 0;
	int err = 0;

	if (!jobs || !tid) {
		free(jobs);
		free(tid);
		return -1;
	}
	c0 = bench_cpu_seconds();
	t0 = bench_now();
	for (unsigned int i = 0; i < nthreads; i++) {
		jobs[i] = (struct cpu_job){ a, dec, size, seconds, 0, 0 };
		if (pthread_create(&tid[i], NULL, cpu_worker, &jobs[i])) {
			err = 1;
			break;
		}
		started++;
	}
	for (unsigned int i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		reqs += jobs[i].reqs;
		err |= jobs[i].err;
	}
	t1 = bench_now();
	c1 = bench_cpu_seconds();
	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), nthreads == 1 ? "cpu-1" : "cpu-all");
	snprintf(r.alg, sizeof(r.alg), "%s", a->name);
	bench_set_rates(&r, size, (double)reqs, t1 - t0, c1 - c0);
	snprintf(r.note, sizeof(r.note), "openssl evp, %u thread%s", started,
		 started == 1 ? "" : "s");
	bench_add(&r);
	free(jobs);
	free(tid);
	return err || !reqs ? -1 : 0;
}

int bench_cpu(const struct bench_opts *o)
{
	unsigned int all = o->threads ? o->threads :
			   (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	int err = 0;

	for (unsigned int a = 0; a < BENCH_NR_ALGS + ARRAY_LEN(cpu_only); a++)
		for (unsigned int i = 0; i < BENCH_NR_SIZES; i++) {
			const struct bench_alg *alg = a < BENCH_NR_ALGS ?
				&bench_algs[a] : &cpu_only[a - BENCH_NR_ALGS].a;
			int dec = a < BENCH_NR_ALGS ? 0 :
				  cpu_only[a - BENCH_NR_ALGS].dec;

			if (bench_sizes[i] < o->req_min ||
			    bench_sizes[i] > o->req_max)
				continue;
			err |= run(alg, dec, bench_sizes[i], 1, o->seconds);
			err |= run(alg, dec, bench_sizes[i], all, o->seconds);
		}
	return err;
}
