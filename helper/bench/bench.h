/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench.h - gpu-aes-bench's measurements, as main runs them: each takes
 * the options and reports its rows through report.h.
 */
#ifndef GPU_AES_BENCH_BENCH_H
#define GPU_AES_BENCH_BENCH_H

#include <stddef.h>

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

/* Each 0, or -1 when a measurement failed. */
int bench_raw(const struct bench_opts *o);	/* raw.cu */
int bench_pcie(const struct bench_opts *o);	/* raw.cu */
int bench_cpu(const struct bench_opts *o);	/* cpu.c */
int bench_helper(const struct bench_opts *o);	/* helper_path.c */

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_BENCH_BENCH_H */
