/* SPDX-License-Identifier: GPL-2.0-only */
/* bench.h - gpu-aes-bench's parts and the results they report. */
#ifndef GPU_AES_CUDA_BENCH_H
#define GPU_AES_CUDA_BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bench_opts {
	size_t raw_min, raw_max;	/* raw kernel sizes, bytes */
	size_t req_min, req_max;	/* helper path request sizes */
	double seconds;			/* per measured point */
	unsigned int threads;		/* producer / CPU threads, 0 = all */
	const char *gpus;
	int sweep;			/* raw: sweep launch shapes too */
	unsigned int shape[4];		/* raw: variant, threads, bpt, CTAs/SM;
					 * shape[1] == 0: the default shape */
	int qd1;			/* helper: QD1 latency runs too */
};

struct bench_result {
	char path[32];		/* raw-gpu, helper, helper-qd1, cpu-1, cpu-all */
	char alg[24];		/* e.g. aes-128-ctr-enc */
	size_t size;		/* bytes per request / launch */
	double gbps;		/* 1e9 bytes/s of payload */
	double rps;		/* requests/s, 0 if not applicable */
	double p50_us, p99_us;	/* latency, 0 if not measured */
	double cpu_s_per_gb;	/* host CPU seconds per GB, 0 if n/a */
	char note[64];
};

void bench_add(const struct bench_result *r);
double bench_now(void);

int bench_raw(const struct bench_opts *o);
int bench_pcie(const struct bench_opts *o);
int bench_cpu(const struct bench_opts *o);
int bench_helper(const struct bench_opts *o);

#ifdef __cplusplus
}
#endif

#endif
