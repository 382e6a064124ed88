/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report.h - gpu-aes-bench's results: every measurement adds its rows here
 * and main prints the summary and writes the JSON.  It depends on no other
 * part of the benchmark, so the measurements and main can both use it.
 */
#ifndef GPU_AES_BENCH_REPORT_H
#define GPU_AES_BENCH_REPORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bench_result {
	char path[32];		/* raw-gpu, helper, helper-qd1, cpu-1, cpu-all */
	char alg[24];		/* e.g. aes-128-ctr-enc */
	size_t size;		/* bytes per request / launch */
	double gbps;		/* 1e9 bytes/s of payload */
	double rps;		/* requests/s, 0 if not applicable */
	double p50_us, p99_us;	/* latency, 0 if not measured */
	double cpu_us_per_req;	/* host CPU microseconds per request, all
				 * threads, 0 if n/a */
	double cpu_s_per_gb;	/* host CPU seconds per GB, 0 if n/a */
	char note[96];
};

/* Monotonic seconds, for timing measurements. */
double bench_now(void);

/*
 * r's size and rates from @reqs requests of @len bytes done in @seconds
 * (wall time) and @cpu_s seconds of host CPU over all threads (CPU
 * figures left 0 when no request was done).
 */
void bench_set_rates(struct bench_result *r, size_t len, double reqs,
		     double seconds, double cpu_s);

/* Keeps r for the summary and the JSON, and prints it as a table row. */
void bench_add(const struct bench_result *r);

/* The table's column heads. */
void bench_print_header(void);

/* Every row kept so far but the launch-shape sweep's, under a header. */
void bench_print_summary(void);

/* Every row kept so far as JSON ({"results": [...]}); 0 or -1. */
int bench_write_json(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_BENCH_REPORT_H */
