// SPDX-License-Identifier: GPL-2.0-only
/*
 * kring-backlog - what one reap costs while requests wait in a queue's
 * backlog: the kernel's admission (kmod/ring.c through kring), no helper,
 * no GPU.  Issue 49 measured it this way: admission walked the whole
 * backlog on every reap, with BHs off.
 *
 *   kring-backlog [--reaps N] [--rounds N] [BACKLOG...]
 *
 * For each BACKLOG (default 1000 20000 50000) and round, on one queue of
 * 1 MiB: one small request posted first and never answered (the oldest
 * tag: nothing is freed, so the queue stays full and its space keeps
 * coming back as far as the ring knows), 4095 of 256 bytes filling the
 * rest, then BACKLOG more of 256 bytes, each backlogged (-EBUSY).  The
 * program plays the helper: it completes the 256-byte requests one at a
 * time, each with its own GPU_AES_IOC_COMPLETE (kring_reap()), timed.
 * Each reap claims, copies out and completes one request and then admits
 * from the backlog: nothing fits, since the freed tag is not the oldest.
 * Prints, per point, the median and mean cost of a reap over the rounds'
 * reaps; the first request that does not fit ends an O(admitted)
 * admission at once, so the cost does not grow with BACKLOG.
 */
#include "../../kring/kring.h"
#include "region.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUEUE_DATA	(1U << 20)
#define ENTRIES		8192U
#define FILL_LEN	256U
/* The oldest request: GPU_AES_DATA_ALIGN bytes, leaving 192 free. */
#define OLDEST_LEN	64U
#define NR_FILL		((QUEUE_DATA - OLDEST_LEN) / FILL_LEN)
#define MAX_ROUNDS	63U

struct req {
	struct kring_req *r;
	uint8_t buf[FILL_LEN];
	uint8_t iv[16];
};

static unsigned long completed;	/* final callbacks */

static void done(void *arg, int err)
{
	(void)arg;
	if (err != -EINPROGRESS)
		completed++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000U + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One point: the median and the mean of its @n reaps' costs. */
static void report(unsigned int backlog, double *ns, unsigned int n)
{
	double sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += ns[i];
	qsort(ns, n, sizeof(*ns), cmp_double);
	printf("%10u %8u %14.2f %14.2f\n", backlog, n, ns[n / 2] / 1e3,
	       sum / n / 1e3);
	fflush(stdout);
}

static int submit(struct req *q, struct kring_tfm *t, uint32_t len, int want)
{
	int ret;

	q->r = kring_req_new(t);
	if (!q->r)
		return -ENOMEM;
	kring_req_set(q->r, GPU_AES_DIR_ENCRYPT, q->buf, q->buf, len, 0, q->iv,
		      KRING_MAY_BACKLOG, done, q);
	ret = kring_submit(q->r);
	if (ret != want) {
		fprintf(stderr, "kring-backlog: submit: %d, not %d\n", ret, want);
		return -EIO;
	}
	return 0;
}

/*
 * One round: @backlog requests waiting, @reaps reaps timed into @ns.
 * 0 or -errno.
 */
static int round_run(struct kring_tfm *t, unsigned int backlog,
		     unsigned int reaps, double *ns)
{
	unsigned int n = 1 + NR_FILL + backlog, i;
	struct gpu_aes_region_queue *rq;
	struct gpu_aes_region r;
	struct gpu_aes_geometry g;
	struct gpu_aes_setup s;
	struct req *reqs;
	int err;

	err = gpu_aes_region_geometry(1, ENTRIES, 16, QUEUE_DATA, &g);
	if (err)
		return err;
	err = gpu_aes_region_alloc(&g, &r, NULL);
	if (err)
		return err;
	reqs = calloc(n, sizeof(*reqs));
	if (!reqs) {
		gpu_aes_region_free(&r);
		return -ENOMEM;
	}
	memset(&s, 0, sizeof(s));
	s.abi_version = GPU_AES_ABI_VERSION;
	s.features = GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS;
	s.algs = GPU_AES_ALGS_KNOWN;
	s.geo = g;
	s.region_addr = (uint64_t)(uintptr_t)r.base;
	s.region_size = r.size;
	err = kring_attach(r.base, &s);
	if (err)
		goto out;
	rq = &r.queues[0];

	err = submit(&reqs[0], t, OLDEST_LEN, -EINPROGRESS);
	for (i = 1; !err && i <= NR_FILL; i++)
		err = submit(&reqs[i], t, FILL_LEN, -EINPROGRESS);
	for (; !err && i < n; i++)
		err = submit(&reqs[i], t, FILL_LEN, -EBUSY);
	if (!err && reaps > NR_FILL)
		err = -EINVAL;
	/* The helper answers the fillers, one reap each: sq entries 1.. */
	for (i = 0; !err && i < reaps; i++) {
		const struct gpu_aes_sqe *e = &rq->sq[(1 + i) & (ENTRIES - 1)];
		struct gpu_aes_cqe *c = &rq->cq[i & (ENTRIES - 1)];
		unsigned long before = completed;
		uint64_t t0;
		int got;

		c->tag = e->tag;
		c->seq = e->seq;
		c->status = GPU_AES_STATUS_OK;
		__atomic_store_n(&rq->qhdr->cq_tail, i + 1, __ATOMIC_RELEASE);
		t0 = now_ns();
		got = kring_reap(0);
		ns[i] = (double)(now_ns() - t0);
		if (got != 1 || completed != before + 1) {
			fprintf(stderr, "kring-backlog: reap %u: %d\n", i, got);
			err = -EIO;
		}
	}
	/* The rest, replayed on the CPU as a dying helper's would be. */
	kring_detach();
	if (!err && completed != n) {
		fprintf(stderr, "kring-backlog: %lu of %u completed\n",
			completed, n);
		err = -EIO;
	}
out:
	for (i = 0; i < n; i++)
		kring_req_free(reqs[i].r);
	free(reqs);
	gpu_aes_region_free(&r);
	return err;
}

static unsigned int number(const char *s, unsigned int max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || !v || v > max) {
		fprintf(stderr, "kring-backlog: bad number '%s' (1..%u)\n", s,
			max);
		exit(2);
	}
	return (unsigned int)v;
}

int main(int argc, char **argv)
{
	static const unsigned int defaults[] = { 1000, 20000, 50000 };
	const uint8_t key[16] = { 0x2b, 0x7e, 0x15, 0x16 };
	unsigned int reaps = 1000, rounds = 3, nb = 0, i, j;
	unsigned int backlogs[16];
	struct kring_tfm *t;
	double *ns;
	int err;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--reaps") && i + 1 < (unsigned int)argc)
			reaps = number(argv[++i], NR_FILL);
		else if (!strcmp(argv[i], "--rounds") &&
			 i + 1 < (unsigned int)argc)
			rounds = number(argv[++i], MAX_ROUNDS);
		else if (argv[i][0] != '-' && nb < 16)
			backlogs[nb++] = number(argv[i], 1000000);
		else {
			fprintf(stderr,
				"usage: kring-backlog [--reaps N] [--rounds N] [BACKLOG...]\n");
			return 2;
		}
	}
	if (!nb) {
		memcpy(backlogs, defaults, sizeof(defaults));
		nb = 3;
	}
	err = kring_init();
	if (err) {
		fprintf(stderr, "kring-backlog: kring_init: %d\n", err);
		return 1;
	}
	kring_set_cpu(0);
	/* Every request for the ring; no deadline passes during a round. */
	kring_set_params(0, 1U << 20, 600000);
	kring_set_dispatch("ring");
	err = kring_tfm_new(GPU_AES_ALG_CTR, key, sizeof(key), &t);
	if (err) {
		fprintf(stderr, "kring-backlog: kring_tfm_new: %d\n", err);
		return 1;
	}
	ns = calloc((size_t)reaps * rounds, sizeof(*ns));
	if (!ns) {
		fprintf(stderr, "kring-backlog: out of memory\n");
		kring_tfm_free(t);
		return 1;
	}
	printf("%10s %8s %14s %14s\n", "backlog", "reaps", "median_us",
	       "mean_us");
	for (i = 0; !err && i < nb; i++) {
		for (j = 0; !err && j < rounds; j++) {
			completed = 0;
			err = round_run(t, backlogs[i], reaps,
					ns + (size_t)j * reaps);
		}
		if (err)
			fprintf(stderr, "kring-backlog: %u: %d\n", backlogs[i],
				err);
		else
			report(backlogs[i], ns, reaps * rounds);
	}
	kring_tfm_free(t);
	free(ns);
	kring_exit();
	return err ? 1 : 0;
}
