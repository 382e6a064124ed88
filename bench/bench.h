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
	unsigned int repeat;		/* dispatch, decision: rounds */
	unsigned int window;		/* helper: requests in flight per
					 * thread, 0 = the default */
	unsigned int queue_data_mib;	/* helper: each queue's data area */
	const char *works;		/* dispatch, decision: workloads */
};

#define BENCH_REPEAT_MAX	63	/* --repeat */
/* Entries of each of the helper path's queues, so --window's most. */
#define BENCH_QUEUE_ENTRIES	1024U
/*
 * Each queue's data area by default, MiB: four of the largest request
 * (the ring takes up to a quarter of it), so the sweep's 1 MiB fits.
 */
#define BENCH_QUEUE_DATA_MIB	16U

/*
 * The algorithms the helper path and OpenSSL are compared on, with the key
 * each consumer uses: CTR, XTS as LUKS2's default (aes-xts-plain64, two
 * 256-bit keys) and GCM as TLS 1.2/1.3 records (13 bytes of AAD, 16-byte
 * tag).  enum gpu_aes_alg values; the table is in cpu.c.
 */
struct bench_alg {
	const char *name;	/* as OpenSSL names it, e.g. aes-256-xts */
	unsigned int alg;	/* enum gpu_aes_alg */
	unsigned int key_len;	/* bytes (XTS: both keys) */
	unsigned int aad_len;	/* GCM */
};

#define BENCH_NR_ALGS	3
extern const struct bench_alg bench_algs[BENCH_NR_ALGS];

/*
 * A workload of --dispatch and --decision: an algorithm and a direction
 * (CBC encryption and decryption cost opposite things), by the name
 * --dispatch-algs takes and the label the rows print.
 */
struct bench_work {
	const char *name;	/* cbc-enc, cbc-dec, xts, gcm, ... */
	const char *label;	/* aes-128-cbc-enc, aes-256-xts, ... */
	const struct bench_alg *a;
	unsigned int dir;	/* enum gpu_aes_dir */
};

#define BENCH_NR_WORKS	6
extern const struct bench_work bench_works[BENCH_NR_WORKS];
/* What --dispatch and --decision run unless --dispatch-algs says. */
#define BENCH_WORKS_DEFAULT	"cbc-enc,cbc-dec,xts,gcm"

/*
 * The workloads of a comma-separated list of names, into @out (at most
 * BENCH_NR_WORKS): how many, or -1 naming the first unknown one on stderr.
 */
int bench_works_parse(const char *list, const struct bench_work **out);

/* The request sizes of the host-path comparison (--helper and --cpu). */
#define BENCH_NR_SIZES	4
extern const size_t bench_sizes[BENCH_NR_SIZES];

/* CPU seconds of every thread of this process so far. */
double bench_cpu_seconds(void);

/* Each 0, or -1 when a measurement failed. */
int bench_raw(const struct bench_opts *o);	/* raw.cu */
int bench_pcie(const struct bench_opts *o);	/* pcie.cu */
/*
 * The copy-engine path's bytes on @nthreads threads, no path, through
 * @depth buffers per thread (pcie.cu): 2, copy-dma; more, copy-pipe.
 */
#define BENCH_COPY_PIPE_DEPTH	8U
int bench_copy_dma(const struct bench_opts *o, unsigned int len,
		   unsigned int nthreads, unsigned int depth);
int bench_cpu(const struct bench_opts *o);	/* cpu.c */
int bench_helper(const struct bench_opts *o);	/* helper_path.c */
int bench_dispatch(const struct bench_opts *o);	/* helper_path.c */
int bench_decision(const struct bench_opts *o);	/* helper_path.c */

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_BENCH_BENCH_H */
