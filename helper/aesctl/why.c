// SPDX-License-Identifier: GPL-2.0-only
/*
 * why.c - gpu-aesctl status's account of where requests run: for each
 * algorithm, what its CPU driver and the ring cost per byte as the module
 * measured them (/sys/class/misc/gpu_aes/dispatch/estimates and
 * cpu_drivers), and so where dispatch=auto sends them, in plain words.
 * The columns are found by name in the file's header, so a module that
 * adds some still reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesctl.h"

#define WHY_MAX_ALGS	16
/* Every size class, in each direction. */
#define WHY_MAX_ROWS	32

struct why_row {
	unsigned long long bytes;
	long cpu_ns;		/* per KiB; -1: not measured */
	long ring_ns;		/* per KiB; -1: not measured */
	long lone_us;		/* a lone request on the ring; -1: unknown */
	char choice[8];		/* "ring" or "cpu" */
	char lone_choice[8];
	char dir[8];		/* "enc", "dec"; "" from a module before them */
};

struct why_alg {
	char name[16];
	char cpu_driver[128];
	struct why_row rows[WHY_MAX_ROWS];
	size_t nrows;
};

/* A figure of the file: a number, or "-" for not measured (-1). */
static long figure(const char *s)
{
	char *end;
	long v;

	if (!s || !strcmp(s, "-"))
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < 0 ? -1 : v;
}

static struct why_alg *alg_of(struct why_alg *a, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(a[i].name, name))
			return &a[i];
	if (*n == WHY_MAX_ALGS)
		return NULL;
	memset(&a[*n], 0, sizeof(a[*n]));
	snprintf(a[*n].name, sizeof(a[*n].name), "%s", name);
	return &a[(*n)++];
}

/* Column @name's index in the header's words, or -1. */
static int column(char cols[][32], int ncols, const char *name)
{
	int i;

	for (i = 0; i < ncols; i++)
		if (!strcmp(cols[i], name))
			return i;
	return -1;
}

static int split(char *line, char words[][32], int max)
{
	int n = 0;
	char *save = NULL, *w;

	for (w = strtok_r(line, " \t\n", &save); w && n < max;
	     w = strtok_r(NULL, " \t\n", &save))
		snprintf(words[n++], 32, "%s", w);
	return n;
}

/* Reads the two files; the number of algorithms, 0 if none is readable. */
static size_t why_read(const struct ctl *c, struct why_alg *a)
{
	char path[2048], line[512], cols[12][32], w[12][32];
	int ncols, ci[8], nw, k;
	size_t n = 0;
	FILE *f;

	f = fopen(ctl_path(c, path, sizeof(path),
			   "/sys/class/misc/gpu_aes/dispatch/estimates"), "re");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0;
	}
	ncols = split(line, cols, 12);
	ci[0] = column(cols, ncols, "alg");
	ci[1] = column(cols, ncols, "bytes");
	ci[2] = column(cols, ncols, "cpu_ns_per_kib");
	ci[3] = column(cols, ncols, "ring_ns_per_kib");
	ci[4] = column(cols, ncols, "ring_lone_us");
	ci[5] = column(cols, ncols, "auto");
	ci[6] = column(cols, ncols, "auto_lone");
	ci[7] = column(cols, ncols, "dir");
	while (ci[0] >= 0 && ci[1] >= 0 && fgets(line, sizeof(line), f)) {
		struct why_alg *al;
		struct why_row *r;

		nw = split(line, w, 12);
		if (nw != ncols || !(al = alg_of(a, &n, w[ci[0]])) ||
		    al->nrows == WHY_MAX_ROWS)
			continue;
		r = &al->rows[al->nrows++];
		r->bytes = strtoull(w[ci[1]], NULL, 10);
		r->cpu_ns = ci[2] >= 0 ? figure(w[ci[2]]) : -1;
		r->ring_ns = ci[3] >= 0 ? figure(w[ci[3]]) : -1;
		r->lone_us = ci[4] >= 0 ? figure(w[ci[4]]) : -1;
		snprintf(r->choice, sizeof(r->choice), "%s",
			 ci[5] >= 0 ? w[ci[5]] : "");
		snprintf(r->lone_choice, sizeof(r->lone_choice), "%s",
			 ci[6] >= 0 ? w[ci[6]] : "");
		snprintf(r->dir, sizeof(r->dir), "%s", ci[7] >= 0 ? w[ci[7]] : "");
	}
	fclose(f);

	f = fopen(ctl_path(c, path, sizeof(path),
			   "/sys/class/misc/gpu_aes/dispatch/cpu_drivers"), "re");
	while (f && fgets(line, sizeof(line), f)) {
		struct why_alg *al;

		nw = split(line, w, 2);
		if (nw == 2 && (al = alg_of(a, &n, w[0])))
			snprintf(al->cpu_driver, sizeof(al->cpu_driver), "%s",
				 w[1]);
	}
	if (f)
		fclose(f);
	for (k = 0; k < (int)n; k++)
		if (!a[k].cpu_driver[0])
			snprintf(a[k].cpu_driver, sizeof(a[k].cpu_driver), "-");
	return n;
}

static const char *size_name(char *buf, size_t len, unsigned long long b)
{
	if (b >= 1 << 20)
		snprintf(buf, len, "%llu MiB", b >> 20);
	else if (b >= 1024)
		snprintf(buf, len, "%llu KiB", b >> 10);
	else
		snprintf(buf, len, "%llu B", b);
	return buf;
}

/* ns per KiB as s per GB (10^9 bytes): what the benchmarks print. */
static double s_per_gb(long ns_per_kib)
{
	return (double)ns_per_kib * (1e9 / 1024) / 1e9;
}

static void why_row_print(const struct why_alg *a, const struct why_row *r)
{
	char sz[32];

	printf("    %s %s: the CPU driver %s costs %.2f s/GB, the ring %.2f: %s",
	       size_name(sz, sizeof(sz), r->bytes),
	       !strcmp(r->dir, "enc") ? "encryptions" :
	       !strcmp(r->dir, "dec") ? "decryptions" : "requests",
	       a->cpu_driver,
	       s_per_gb(r->cpu_ns), s_per_gb(r->ring_ns),
	       !strcmp(r->choice, "ring") ? "they go to the ring" :
					    "they stay on the CPU");
	if (r->lone_us >= 0)
		printf("; one alone %s (%.1f us on the CPU, %ld on the ring)",
		       !strcmp(r->lone_choice, "ring") ? "goes to the ring" :
							  "stays on the CPU",
		       (double)r->cpu_ns * (double)r->bytes / 1024 / 1000,
		       r->lone_us);
	printf("\n");
}

/*
 * Per algorithm, the 4 KiB and 64 KiB classes where both paths are
 * measured (else any class that is): what dm-crypt's sectors and kTLS's
 * records and bulk AF_ALG look like.
 */
static void why_alg_print(const struct why_alg *a)
{
	size_t i, shown = 0;

	for (i = 0; i < a->nrows; i++) {
		const struct why_row *r = &a->rows[i];

		if (r->cpu_ns < 0 || r->ring_ns < 0 ||
		    (r->bytes != 4096 && r->bytes != 65536))
			continue;
		if (!shown++)
			printf("  %s:\n", a->name);
		why_row_print(a, r);
	}
	for (i = 0; i < a->nrows && !shown; i++) {
		const struct why_row *r = &a->rows[i];

		if (r->cpu_ns < 0 || r->ring_ns < 0)
			continue;
		printf("  %s:\n", a->name);
		why_row_print(a, r);
		shown++;
	}
	if (!shown && strcmp(a->cpu_driver, "-") != 0)
		printf("  %s: CPU driver %s; nothing measured on both paths yet\n",
		       a->name, a->cpu_driver);
}

void why_print(const struct ctl *c, const struct state *s)
{
	struct why_alg a[WHY_MAX_ALGS];
	const struct kv *mode = kv_find(&s->params, "dispatch");
	long long ring = 0, cpu = 0;
	size_t n, i;

	if (!mode || strcmp(mode->text, "auto") != 0)
		return;
	for (i = 0; i < s->stats.n; i++) {
		const struct kv *v = &s->stats.v[i];

		if (!strncmp(v->name, "policy_ring_", 12))
			ring += v->value;
		else if (!strncmp(v->name, "fallback_policy_", 16))
			cpu += v->value;
	}
	printf("  auto sent %lld of its %lld decisions to the ring (%.1f%%), %lld to the CPU\n",
	       ring, ring + cpu, (ring + cpu) ?
	       100.0 * (double)ring / (double)(ring + cpu) : 0.0,
	       cpu);
	n = why_read(c, a);
	for (i = 0; i < n; i++)
		why_alg_print(&a[i]);
}
