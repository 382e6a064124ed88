// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - gpu-aes-bench's results: a table row on stdout as each
 * measurement finishes (long runs show progress), and the rows kept for
 * the summary and the JSON that bench/plot.py reads.
 */
#include "report.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_RESULTS 1024

static struct bench_result results[MAX_RESULTS];
static size_t nresults;

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void bench_set_rates(struct bench_result *r, size_t len, double reqs,
		     double seconds, double cpu_s)
{
	r->size = len;
	r->rps = reqs / seconds;
	r->gbps = r->rps * len / 1e9;
	if (reqs > 0) {
		r->cpu_us_per_req = cpu_s / reqs * 1e6;
		r->cpu_s_per_gb = cpu_s / (reqs * (double)len / 1e9);
	}
}

static void print_row(const struct bench_result *r)
{
	printf("%-13s %-16s %8zu %8.2f %11.0f %8.2f %8.2f %10.3f %8.3f  %s\n",
	       r->path, r->alg, r->size, r->gbps, r->rps, r->p50_us,
	       r->p99_us, r->cpu_us_per_req, r->cpu_s_per_gb, r->note);
	fflush(stdout);
}

void bench_add(const struct bench_result *r)
{
	if (nresults < MAX_RESULTS)
		results[nresults++] = *r;
	print_row(r);
}

void bench_print_header(void)
{
	printf("%-13s %-16s %8s %8s %11s %8s %8s %10s %8s  %s\n", "path",
	       "alg", "bytes", "GB/s", "req/s", "p50_us", "p99_us",
	       "cpu_us/req", "cpu_s/GB", "note");
}

void bench_print_summary(void)
{
	printf("\n# summary\n");
	bench_print_header();
	for (size_t i = 0; i < nresults; i++)
		if (strcmp(results[i].path, "raw-sweep"))
			print_row(&results[i]);
}

int bench_write_json(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "{\n  \"results\": [\n");
	for (size_t i = 0; i < nresults; i++) {
		const struct bench_result *r = &results[i];

		fprintf(f, "    {\"path\": \"%s\", \"alg\": \"%s\", \"size\": %zu, "
			"\"gbps\": %.4f, \"rps\": %.1f, \"p50_us\": %.3f, "
			"\"p99_us\": %.3f, \"cpu_us_per_req\": %.4f, "
			"\"cpu_s_per_gb\": %.5f, \"note\": \"%s\"}%s\n",
			r->path, r->alg, r->size, r->gbps, r->rps, r->p50_us,
			r->p99_us, r->cpu_us_per_req, r->cpu_s_per_gb, r->note,
			i + 1 < nresults ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f);
}
