// SPDX-License-Identifier: GPL-2.0-only
/*
 * helper_path.c - the path a consumer of gpu_aes gets, end to end: the
 * kernel's own request path (kmod/ring.c and friends, built in userspace
 * by kring/) copies each request into its CPU's queue and posts it, the
 * real helper core batches across queues, the backend (cuda unless
 * GPU_AES_BENCH_BACKEND says otherwise) runs it, and the kernel code
 * copies the result out and completes the request.
 *
 * Deep queue: every submitting thread is a CPU with a queue of its own
 * (the helper asks for one queue per thread) and keeps a window of
 * requests in flight.  Host CPU is getrusage() of the whole process, so
 * it counts every thread: submitters, the helper core, the backend's
 * completion threads and any spinning.  QD1: one request at a time,
 * waited for by sleeping, as a synchronous consumer does.
 *
 * The copy floor is what no path that copies each byte in and out on the
 * CPU can beat: two memcpy per byte on one thread, over buffers larger
 * than the caches.
 */
#include "bench.h"
#include "report.h"

#include "../kring/kring.h"
#include "../kring/kring_host.h"
#include "../helper/src/cpu_aes.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Source and destination bytes per submitting thread, split into its
 * window: each request reads and writes buffers of its own, far from the
 * caches by the time they come round again, as a consumer's pages are.
 */
#define DST_POOL_BYTES	(16U << 20)
#define WINDOW_MAX	256U

struct dq_req {
	struct kring_req *req;
	struct dq_thread *t;
	uint8_t *src;
	uint8_t *dst;
	uint32_t len;
	uint8_t iv[16];
	int busy;		/* atomic: submitted, not completed */
};

/*
 * What a deep-queue run submits: requests of len_lo bytes, or, when
 * len_hi is larger, of a power of two between them drawn at random per
 * request (a mixed workload).
 */
struct dq_spec {
	const char *path;
	uint32_t len_lo;
	uint32_t len_hi;
	uint32_t window;	/* per thread; 0: what DST_POOL_BYTES holds */
};

struct dq_thread {
	struct kring_tfm *tfm;
	const struct bench_alg *a;
	const struct dq_spec *spec;
	unsigned int dir;	/* enum gpu_aes_dir */
	unsigned int cpu;
	uint32_t window;
	uint64_t rng;
	struct dq_req *reqs;	/* window of them */
	uint64_t submitted;
	uint64_t errors;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;		/* atomic */
	/* Written by completing threads: lines of their own. */
	uint64_t completed __attribute__((aligned(64)));
	uint64_t bytes;
	uint64_t cb_errors;
	int cb_active;		/* callbacks still touching this thread */
	int waiting __attribute__((aligned(64)));
} __attribute__((aligned(64)));

/*
 * The submitter sleeps only once its window is full, and is woken only
 * when a quarter of it has drained: one wake per window/4 requests, not
 * one per request.
 */
static void dq_done(void *arg, int err)
{
	struct dq_req *r = arg;
	struct dq_thread *t = r->t;
	uint64_t c;

	if (err == -EINPROGRESS)
		return;
	__atomic_add_fetch(&t->cb_active, 1, __ATOMIC_SEQ_CST);
	if (err)
		__atomic_add_fetch(&t->cb_errors, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->bytes, r->len, __ATOMIC_RELAXED);
	__atomic_store_n(&r->busy, 0, __ATOMIC_RELEASE);
	c = __atomic_add_fetch(&t->completed, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->waiting, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&t->submitted, __ATOMIC_RELAXED) - c <=
	    t->window * 3 / 4) {
		pthread_mutex_lock(&t->lock);
		pthread_cond_signal(&t->cond);
		pthread_mutex_unlock(&t->lock);
	}
	__atomic_sub_fetch(&t->cb_active, 1, __ATOMIC_RELEASE);
}

static void dq_wait(struct dq_thread *t, uint64_t below)
{
	pthread_mutex_lock(&t->lock);
	__atomic_store_n(&t->waiting, 1, __ATOMIC_SEQ_CST);
	while (t->submitted - __atomic_load_n(&t->completed, __ATOMIC_SEQ_CST) >
	       below)
		pthread_cond_wait(&t->cond, &t->lock);
	__atomic_store_n(&t->waiting, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->lock);
}

static uint32_t dq_len(struct dq_thread *t)
{
	uint32_t lo = t->spec->len_lo, hi = t->spec->len_hi, steps = 0;

	if (hi <= lo)
		return lo;
	for (uint32_t l = lo; l < hi; l *= 2)
		steps++;
	/* xorshift64: the same mix on every run */
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return lo << (t->rng % (steps + 1));
}

static void *dq_main(void *arg)
{
	struct dq_thread *t = arg;
	uint32_t next = 0;

	kring_set_cpu((int)t->cpu);
	pthread_setname_np(pthread_self(), "bench-submit");
	for (uint64_t n = 0;; n++) {
		struct dq_req *r;
		int ret;

		if (!(n % 64) && __atomic_load_n(&t->stop, __ATOMIC_RELAXED))
			break;
		if (t->submitted - __atomic_load_n(&t->completed,
						   __ATOMIC_ACQUIRE) >=
		    t->window)
			dq_wait(t, t->window * 3 / 4);
		/* Completions come out of order: the next free request. */
		while (__atomic_load_n(&t->reqs[next].busy, __ATOMIC_ACQUIRE))
			next = next + 1 == t->window ? 0 : next + 1;
		r = &t->reqs[next];
		next = next + 1 == t->window ? 0 : next + 1;
		r->len = dq_len(t);
		memset(r->iv, 0x3c, sizeof(r->iv));
		kring_req_set(r->req, (enum gpu_aes_dir)t->dir, r->src, r->dst,
			      r->len, t->a->aad_len, r->iv, KRING_MAY_BACKLOG,
			      dq_done, r);
		r->busy = 1;
		__atomic_store_n(&t->submitted, t->submitted + 1,
				 __ATOMIC_SEQ_CST);
		ret = kring_submit(r->req);
		if (ret == -EINPROGRESS || ret == -EBUSY)
			continue;
		/* Done at once, on the CPU (a fallback). */
		dq_done(r, ret);
	}
	dq_wait(t, 0);
	return NULL;
}

static int new_tfm(const struct bench_alg *a, struct kring_tfm **t)
{
	uint8_t key[64];

	for (unsigned int i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 29 + 3);	/* distinct XTS halves */
	return kring_tfm_new((enum gpu_aes_alg)a->alg, key, a->key_len, t);
}

static void dq_free(struct dq_thread *t)
{
	/* The last completion may still be on its way out of dq_done(). */
	while (__atomic_load_n(&t->cb_active, __ATOMIC_ACQUIRE))
		sched_yield();
	if (t->reqs)
		for (uint32_t j = 0; j < t->window; j++) {
			kring_req_free(t->reqs[j].req);
			free(t->reqs[j].src);
			free(t->reqs[j].dst);
		}
	free(t->reqs);
	kring_tfm_free(t->tfm);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
}

/* Everything allocated and touched before the clock starts. */
static int dq_prepare(struct dq_thread *t, const struct bench_alg *a,
		      unsigned int dir, const struct dq_spec *spec,
		      unsigned int cpu)
{
	uint32_t len = spec->len_hi > spec->len_lo ? spec->len_hi :
		       spec->len_lo;
	uint32_t window = DST_POOL_BYTES / len, tail = a->aad_len + 16;

	t->a = a;
	t->spec = spec;
	t->dir = dir;
	t->cpu = cpu;
	t->rng = 0x9e3779b97f4a7c15ULL * (cpu + 1);
	t->window = window > WINDOW_MAX ? WINDOW_MAX : window < 4 ? 4 : window;
	if (spec->window)
		t->window = spec->window;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	if (new_tfm(a, &t->tfm))
		return -1;
	t->reqs = calloc(t->window, sizeof(*t->reqs));
	if (!t->reqs)
		return -1;
	for (uint32_t j = 0; j < t->window; j++) {
		struct dq_req *r = &t->reqs[j];

		r->t = t;
		r->req = kring_req_new(t->tfm);
		r->src = malloc(len + tail);
		r->dst = malloc(len + tail);
		if (!r->req || !r->src || !r->dst)
			return -1;
		for (uint32_t k = 0; k < len + tail; k++)
			r->src[k] = (uint8_t)(k * 7 + j);
		memset(r->dst, 0, len + tail);
	}
	return 0;
}

/*
 * Where the host CPU goes, by thread: every thread of the path is named
 * for its role (pthread_setname_np), and the benchmark adds up their
 * time on the CPU (/proc/self/task/TID/schedstat, ns) per role.
 */
enum {
	ROLE_SUBMIT,	/* bench-submit: kring submit (reserve, copy in, post) */
	ROLE_CORE,	/* gpuaes-core: take entries, batch, launch */
	ROLE_GPU_DONE,	/* gpuaes-cudadone: GPU completion, first queue's reap */
	ROLE_REAP,	/* gpuaes-reap: other queues' reaps (copy out, callbacks) */
	ROLE_CPU_BE,	/* gpuaes-cpu: the cpu backend's workers */
	ROLE_KWORKER,	/* kshim-work: the kernel's delayed work (deadlines) */
	ROLE_OTHER,
	NR_ROLES
};

static const char *const role_comm[NR_ROLES] = {
	"bench-submit", "gpuaes-core", "gpuaes-cudadone", "gpuaes-reap",
	"gpuaes-cpu", "kshim-work", "",
};

static const char *const role_name[NR_ROLES] = {
	"submit", "core", "gpu-done", "reap", "cpu-backend", "kworker", "other",
};

static void role_cpu(double ns[NR_ROLES])
{
	char path[300], comm[32];
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");
	unsigned long long on;
	unsigned int r;
	FILE *f;

	memset(ns, 0, NR_ROLES * sizeof(ns[0]));
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat",
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &on) != 1)
			on = 0;
		fclose(f);
		for (r = 0; r < ROLE_OTHER && strcmp(comm, role_comm[r]); r++)
			;
		ns[r] += (double)on;
	}
	if (d)
		closedir(d);
}

struct dq_snap {
	uint64_t done, bytes, errors;
	double t, cpu;
	int64_t ring, fallback, wakeups;
	struct gpu_aes_core_stats core;
	double role_ns[NR_ROLES];
};

/* @roles: the per-thread CPU too (reading /proc costs the reader ~1 ms). */
static void dq_snap(struct kring_host *h, struct dq_thread *t,
		    unsigned int n, int roles, struct dq_snap *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned int i = 0; i < n; i++) {
		s->done += __atomic_load_n(&t[i].completed, __ATOMIC_RELAXED);
		s->bytes += __atomic_load_n(&t[i].bytes, __ATOMIC_RELAXED);
		s->errors += __atomic_load_n(&t[i].cb_errors,
					     __ATOMIC_RELAXED);
	}
	s->t = bench_now();
	s->cpu = bench_cpu_seconds();
	s->ring = kring_stat("ring_requests");
	s->fallback = kring_stat("fallback_requests");
	s->wakeups = kring_stat("helper_wakeups");
	kring_host_core_stats(h, &s->core);
	if (roles)
		role_cpu(s->role_ns);
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Submitting threads running spec until dq_stop(). */
struct dq_run {
	struct dq_thread *t;
	unsigned int nthreads, started;
};

static int dq_start(const struct bench_alg *a, unsigned int dir,
		    const struct dq_spec *spec, unsigned int nthreads,
		    struct dq_run *run)
{
	int err = 0;

	run->nthreads = nthreads;
	run->started = 0;
	run->t = aligned_alloc(64, nthreads * sizeof(*run->t));
	if (!run->t)
		return -1;
	memset(run->t, 0, nthreads * sizeof(*run->t));
	for (unsigned int i = 0; i < nthreads; i++)
		if (dq_prepare(&run->t[i], a, dir, spec, i))
			err = -1;
	for (unsigned int i = 0; !err && i < nthreads; i++) {
		if (pthread_create(&run->t[i].tid, NULL, dq_main, &run->t[i])) {
			err = -1;
			break;
		}
		run->started++;
	}
	return err;
}

/* Stops, joins and frees: -1 if any request failed or a start did. */
static int dq_stop(struct dq_run *run)
{
	int err = run->started < run->nthreads ? -1 : 0;

	if (!run->t)
		return -1;
	for (unsigned int i = 0; i < run->started; i++)
		__atomic_store_n(&run->t[i].stop, 1, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < run->started; i++) {
		pthread_join(run->t[i].tid, NULL);
		err |= run->t[i].errors || run->t[i].cb_errors ? -1 : 0;
	}
	for (unsigned int i = 0; i < run->nthreads; i++)
		dq_free(&run->t[i]);
	free(run->t);
	run->t = NULL;
	return err;
}

/* The figures between two snapshots, as a row of the report: -1 if none. */
static int dq_result(const char *path, const char *alg,
		     const struct dq_spec *spec, unsigned int nthreads,
		     const struct dq_snap *s0, const struct dq_snap *s1,
		     int roles, struct bench_result *out)
{
	uint64_t done = s1->done - s0->done;
	double dt = s1->t - s0->t, cpu = s1->cpu - s0->cpu;
	struct bench_result r;

	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), "%s", path);
	snprintf(r.alg, sizeof(r.alg), "%s", alg);
	r.size = spec->len_hi > spec->len_lo ? 0 : spec->len_lo;
	r.rps = done / dt;
	r.gbps = (s1->bytes - s0->bytes) / dt / 1e9;
	if (done) {
		r.cpu_us_per_req = cpu / done * 1e6;
		r.cpu_s_per_gb = cpu / ((s1->bytes - s0->bytes) / 1e9);
	}
	snprintf(r.note, sizeof(r.note),
		 "%u thr/queues, %.1f%% ring, %.0f req/batch, %llu sleeps, %lld wakes",
		 nthreads, done ? 100.0 * (double)(s1->ring - s0->ring) / done : 0,
		 s1->core.batches > s0->core.batches ?
			 (double)(s1->core.requests - s0->core.requests) /
				 (s1->core.batches - s0->core.batches) : 0.0,
		 (unsigned long long)(s1->core.sleeps - s0->core.sleeps),
		 (long long)(s1->wakeups - s0->wakeups));
	if (spec->window) {
		size_t n = strlen(r.note);

		snprintf(r.note + n, sizeof(r.note) - n, ", window %u",
			 spec->window);
	}
	bench_add(&r);
	if (done && roles) {
		char sz[32] = "mixed";

		if (r.size)
			snprintf(sz, sizeof(sz), "%zu", r.size);
		printf("  %s %s %s: host CPU per request by thread (us):",
		       path, alg, sz);
		for (unsigned int i = 0; i < NR_ROLES; i++)
			if (s1->role_ns[i] > s0->role_ns[i])
				printf(" %s %.3f", role_name[i],
				       (s1->role_ns[i] - s0->role_ns[i]) /
					       done / 1e3);
		printf("\n");
	}
	if (out)
		*out = r;
	return done ? 0 : -1;
}

/*
 * nthreads submitters run spec; after a warm-up (queues, estimates,
 * caches), o->seconds are measured from this thread, which sleeps.
 */
static int deep_queue(struct kring_host *h, const struct bench_opts *o,
		      const struct bench_alg *a, const struct dq_spec *spec,
		      unsigned int nthreads, struct bench_result *out)
{
	struct dq_snap s0, s1;
	struct dq_run run;
	int err;

	err = dq_start(a, GPU_AES_DIR_ENCRYPT, spec, nthreads, &run);
	if (!err) {
		sleep_s(o->seconds / 4 < 0.2 ? 0.2 : o->seconds / 4);
		dq_snap(h, run.t, run.started, 1, &s0);
		sleep_s(o->seconds);
		dq_snap(h, run.t, run.started, 1, &s1);
	}
	err |= dq_stop(&run);
	if (err)
		return err;
	return dq_result(spec->path, a->name, spec, nthreads, &s0, &s1, 1, out);
}

struct cf_thread {
	uint8_t *a, *b, *c;
	size_t size;
	uint32_t len;
	double seconds;
	uint64_t reqs;
	double elapsed;
	pthread_t tid;
} __attribute__((aligned(64)));

static void *cf_main(void *arg)
{
	struct cf_thread *t = arg;
	double t0 = bench_now(), t1 = t0;
	size_t off = 0;

	while (t1 - t0 < t->seconds) {
		for (int i = 0; i < 16; i++) {
			memcpy(t->b + off, t->a + off, t->len);	/* in */
			memcpy(t->c + off, t->b + off, t->len);	/* out */
			off = off + 2 * (size_t)t->len > t->size ? 0 :
			      off + t->len;
			t->reqs++;
		}
		t1 = bench_now();
	}
	t->elapsed = t1 - t0;
	return NULL;
}

/*
 * Two memcpy per byte (in, out) on each of @nthreads threads, over buffers
 * far larger than the caches: on one thread, the least CPU any path that
 * copies in and out spends per byte; on all, the most bytes per second the
 * host's memory lets such a path move.
 */
static int copy_floor(const struct bench_opts *o, uint32_t len,
		      unsigned int nthreads, size_t size)
{
	struct cf_thread *t = aligned_alloc(64, nthreads * sizeof(*t));
	struct bench_result r;
	unsigned int i, started = 0;
	uint64_t reqs = 0;
	double busy = 0;
	int err = 0;

	if (!t)
		return -1;
	memset(t, 0, nthreads * sizeof(*t));
	for (i = 0; i < nthreads; i++) {
		t[i].size = size;
		t[i].len = len;
		t[i].seconds = o->seconds;
		t[i].a = malloc(size);
		t[i].b = malloc(size);
		t[i].c = malloc(size);
		if (!t[i].a || !t[i].b || !t[i].c) {
			err = -1;
			goto out;
		}
		memset(t[i].a, 0x5a, size);
		memset(t[i].b, 0, size);
		memset(t[i].c, 0, size);
	}
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&t[i].tid, NULL, cf_main, &t[i])) {
			err = -1;
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(t[i].tid, NULL);
		reqs += t[i].reqs;
		busy += t[i].elapsed;
	}
	if (err || !reqs)
		goto out;
	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), nthreads == 1 ? "copy-floor" :
		 "copy-all");
	snprintf(r.alg, sizeof(r.alg), "2x memcpy");
	bench_set_rates(&r, len, (double)reqs, busy / started, busy);
	snprintf(r.note, sizeof(r.note), "%u thread%s, %zu MiB buffers each",
		 started, started == 1 ? "" : "s", size >> 20);
	bench_add(&r);
out:
	for (i = 0; i < nthreads; i++) {
		free(t[i].a);
		free(t[i].b);
		free(t[i].c);
	}
	free(t);
	return err;
}

struct qd1_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	int err;
	double done_at;		/* bench_now() in the callback */
	double woken_us;	/* from the callback until the waiter ran */
};

#define QD1_WAIT_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, \
			0, 0, 0, 0 }

static void qd1_done(void *arg, int err)
{
	struct qd1_wait *w = arg;

	if (err == -EINPROGRESS)
		return;
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	w->err = err;
	w->done_at = bench_now();
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/*
 * One request, waited for by sleeping: 0 or its error.  direct: to the
 * CPU driver itself (kring_cpu_direct()), the consumer's part the same.
 */
static int qd1_run(struct kring_req *req, const struct bench_alg *a,
		   unsigned int dir, uint8_t *buf, uint32_t len,
		   struct qd1_wait *w, bool direct)
{
	uint8_t iv[16];
	int ret;

	memset(iv, 0x22, sizeof(iv));
	w->done = 0;
	w->woken_us = 0;
	kring_req_set(req, (enum gpu_aes_dir)dir, buf, buf, len, a->aad_len,
		      iv, KRING_MAY_BACKLOG, qd1_done, w);
	ret = direct ? kring_cpu_direct(req) : kring_submit(req);
	if (ret != -EINPROGRESS && ret != -EBUSY)
		return ret;
	pthread_mutex_lock(&w->lock);
	while (!w->done)
		pthread_cond_wait(&w->cond, &w->lock);
	w->woken_us = (bench_now() - w->done_at) * 1e6;
	pthread_mutex_unlock(&w->lock);
	return w->err;
}

static int qd1_one(struct kring_req *req, const struct bench_alg *a,
		   unsigned int dir, uint8_t *buf, uint32_t len,
		   struct qd1_wait *w)
{
	return qd1_run(req, a, dir, buf, len, w, false);
}

static int cmp_double(const void *x, const void *y)
{
	double p = *(const double *)x, q = *(const double *)y;

	return p < q ? -1 : p > q;
}

static int qd1(const struct bench_opts *o, const struct bench_alg *a,
	       uint32_t len)
{
	const size_t max = 200000;
	double *lat = malloc(max * sizeof(double));
	double *woken = malloc(max * sizeof(double));
	uint8_t *buf = malloc(len + a->aad_len + 16);
	struct qd1_wait w = QD1_WAIT_INIT;
	int64_t ring0 = kring_stat("ring_requests");
	struct kring_tfm *tfm = NULL;
	struct kring_req *req = NULL;
	struct bench_result r;
	double end, t0, c0;
	size_t n = 0;
	int err = 0;

	if (!lat || !woken || !buf || new_tfm(a, &tfm) ||
	    !(req = kring_req_new(tfm))) {
		err = -1;
		goto out;
	}
	memset(buf, 0x11, len + a->aad_len + 16);
	for (int i = 0; i < 100; i++)	/* warm-up: keys, tables, caches */
		err |= qd1_one(req, a, GPU_AES_DIR_ENCRYPT, buf, len, &w);
	c0 = bench_cpu_seconds();
	t0 = bench_now();
	end = t0 + o->seconds;
	while (n < max && bench_now() < end) {
		double s = bench_now();

		err |= qd1_one(req, a, GPU_AES_DIR_ENCRYPT, buf, len, &w);
		lat[n] = (bench_now() - s) * 1e6;
		woken[n++] = w.woken_us;
	}
	memset(&r, 0, sizeof(r));
	r.rps = n / (bench_now() - t0);
	r.cpu_us_per_req = (bench_cpu_seconds() - c0) / n * 1e6;
	r.cpu_s_per_gb = r.cpu_us_per_req * 1e-6 / (len / 1e9);
	qsort(lat, n, sizeof(double), cmp_double);
	qsort(woken, n, sizeof(double), cmp_double);
	snprintf(r.path, sizeof(r.path), "helper-qd1");
	snprintf(r.alg, sizeof(r.alg), "%s", a->name);
	r.size = len;
	r.gbps = r.rps * len / 1e9;
	r.p50_us = lat[n / 2];
	r.p99_us = lat[n * 99 / 100];
	/* The waiter's wake-up: part of the host's share of the p50. */
	snprintf(r.note, sizeof(r.note),
		 "n=%zu, %lld on the ring, waiter ran %.1f us after its callback (p50)",
		 n, (long long)(kring_stat("ring_requests") - ring0),
		 woken[n / 2]);
	bench_add(&r);
out:
	kring_req_free(req);
	kring_tfm_free(tfm);
	free(lat);
	free(woken);
	free(buf);
	return err ? -1 : 0;
}

/*
 * GPU_AES_BENCH_BACKEND=null: a backend that transforms nothing and
 * completes every batch at once, so a run measures the host path alone
 * (copies, ring, core, completion), the part no GPU can speed up.
 */
static int null_probe(void)
{
	return 0;
}

static int null_open(const struct gpu_aes_backend_config *cfg,
		     const struct gpu_aes_region *region,
		     struct gpu_aes_backend **out)
{
	(void)cfg;
	(void)region;
	*out = (struct gpu_aes_backend *)&null_probe;	/* never dereferenced */
	return 0;
}

static void null_submit(struct gpu_aes_backend *be, struct gpu_aes_batch *b)
{
	(void)be;
	for (uint32_t i = 0; i < b->nr; i++)
		b->segs[i].status = GPU_AES_STATUS_OK;
	b->done(b);
}

static void null_nop(struct gpu_aes_backend *be)
{
	(void)be;
}

static const struct gpu_aes_backend_ops null_ops = {
	.name = "null",
	.algs = GPU_AES_ALGS_KNOWN,
	.probe = null_probe,
	.open = null_open,
	.submit = null_submit,
	.drain = null_nop,
	.close = null_nop,
};

static int host_start(const struct bench_opts *o, unsigned int queues,
		      struct kring_host **h)
{
	const char *name = getenv("GPU_AES_BENCH_BACKEND");
	struct kring_host_config cfg;
	int err;

	memset(&cfg, 0, sizeof(cfg));
	cfg.ops = name && !strcmp(name, "null") ? &null_ops :
		  gpu_aes_backend_find(name ? name : "cuda");
	if (!cfg.ops) {
		fprintf(stderr, "bench: backend %s is not built in\n",
			name ? name : "cuda");
		return -1;
	}
	cfg.backend.threads = 2;	/* cpu backend only */
	cfg.backend.gpus = o->gpus;
	/* What gpu-aes-helper runs with. */
	cfg.core.spin_us = 50;
	cfg.core.reapers = GPU_AES_CORE_AUTO_REAPERS;
	cfg.nr_queues = queues;
	cfg.queue_entries = BENCH_QUEUE_ENTRIES;
	cfg.nr_keys = 1024;
	cfg.queue_data_size = (uint64_t)o->queue_data_mib << 20;
	/*
	 * This thread prepares every run's buffers (the application's work):
	 * in-process, its CPU would read as the helper's, which publishes
	 * it as the ring's cost, and auto would flee a ring it inflated.
	 */
	err = kring_consumer_thread();
	if (!err)
		err = kring_host_start(&cfg, h);
	if (err)
		fprintf(stderr, "bench: helper with the %s backend: %s\n",
			cfg.ops->name, strerror(-err));
	return err;
}

/* kring once per process, the module's defaults but a 1 MiB GCM with AAD. */
static int kring_ready(void)
{
	static int ready;

	if (ready)
		return 0;
	if (kring_init()) {
		fprintf(stderr, "bench: kring_init failed\n");
		return -1;
	}
	/* ring_max_bytes weighs text and AAD: room for 1 MiB of GCM text. */
	kring_set_params(256, 2U << 20, 1000);
	ready = 1;
	return 0;
}

static unsigned int all_threads(const struct bench_opts *o)
{
	unsigned int n = o->threads ? o->threads :
			 (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);

	return n > GPU_AES_MAX_QUEUES ? GPU_AES_MAX_QUEUES : n;
}

int bench_helper(const struct bench_opts *o)
{
	unsigned int nthreads = all_threads(o);
	struct dq_spec spec[BENCH_NR_SIZES];
	struct kring_host *h;
	int err = 0;

	for (unsigned int i = 0; i < BENCH_NR_SIZES; i++)
		if (bench_sizes[i] >= o->req_min && bench_sizes[i] <= o->req_max)
			err |= copy_floor(o, (uint32_t)bench_sizes[i], 1,
					  256U << 20);
	/*
	 * On every thread: 64 KiB, the bytes per second the host's memory
	 * allows; 4 KiB, what the copies alone cost a request when every
	 * thread copies at once (memory shared, as the ring path's is).
	 */
	if (4096 >= o->req_min && 4096 <= o->req_max)
		err |= copy_floor(o, 4096, nthreads, 64U << 20);
	if (65536 >= o->req_min && 65536 <= o->req_max)
		err |= copy_floor(o, 65536, nthreads, 64U << 20);
	/*
	 * The same bytes through pinned memory and a GPU's copy engines:
	 * every crossing of host memory the copy-engine batches make (at
	 * 4 KiB too: 16 threads' batches are megabytes).  copy-dma with
	 * two buffers a thread, as earlier runs measured it; copy-pipe with
	 * enough that a thread seldom waits, copying in as the module does:
	 * the bound of the rows below.
	 */
	for (unsigned int i = 0; i < BENCH_NR_SIZES; i++)
		if (bench_sizes[i] >= o->req_min &&
		    bench_sizes[i] <= o->req_max) {
			err |= bench_copy_dma(o, (uint32_t)bench_sizes[i],
					      nthreads, 2);
			err |= bench_copy_dma(o, (uint32_t)bench_sizes[i],
					      nthreads, BENCH_COPY_PIPE_DEPTH);
		}
	if (kring_ready())
		return -1;
	/* The ring path itself; bench_dispatch() compares the policies. */
	kring_set_dispatch("ring");
	if (host_start(o, nthreads, &h))
		return -1;
	for (unsigned int a = 0; a < BENCH_NR_ALGS; a++)
		for (unsigned int i = 0; i < BENCH_NR_SIZES; i++) {
			spec[i] = (struct dq_spec){ "helper",
				(uint32_t)bench_sizes[i], 0, o->window };
			if (bench_sizes[i] >= o->req_min &&
			    bench_sizes[i] <= o->req_max)
				err |= deep_queue(h, o, &bench_algs[a],
						  &spec[i], nthreads, NULL);
		}
	if (o->qd1)
		for (unsigned int a = 0; a < BENCH_NR_ALGS; a++)
			err |= qd1(o, &bench_algs[a], 4096);
	kring_host_stop(h);
	return err;
}

/* The policy's reasons, as auto's decisions are reported per point. */
static const char *const dispatch_reasons[] = {
	"policy_ring_cost", "policy_ring_lone", "policy_ring_load",
	"policy_ring_explore", "fallback_policy_cost", "fallback_policy_lone",
	"fallback_policy_explore", "fallback_policy_load",
};
#define NR_DISPATCH_REASONS \
	(sizeof(dispatch_reasons) / sizeof(dispatch_reasons[0]))

/* (max - min) / median of the runs' throughput, in percent. */
static double spread_pct(const struct bench_result *runs, unsigned int n,
			 double median)
{
	double lo = runs[0].gbps, hi = runs[0].gbps;

	for (unsigned int i = 1; i < n; i++) {
		lo = runs[i].gbps < lo ? runs[i].gbps : lo;
		hi = runs[i].gbps > hi ? runs[i].gbps : hi;
	}
	return median > 0 ? (hi - lo) / median * 100 : 0;
}

/* The run of median throughput (n odd), so its CPU figure goes with it. */
static const struct bench_result *median_by_gbps(struct bench_result *r,
						 unsigned int n)
{
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j > 0 && r[j].gbps < r[j - 1].gbps;
		     j--) {
			struct bench_result x = r[j];

			r[j] = r[j - 1];
			r[j - 1] = x;
		}
	return &r[n / 2];
}

/* Median of @n values (n odd); sorts them. */
static double median_of(double *v, unsigned int n)
{
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[n / 2];
}

/*
 * auto over @base in each round, where both ran minutes apart at most:
 * the host's drift between rounds cancels.  A failed run reads as a miss.
 */
static void paired_ratios(const struct bench_result *autos,
			  const struct bench_result *base, unsigned int n,
			  double *gbps, double *cpu)
{
	for (unsigned int k = 0; k < n; k++) {
		gbps[k] = base[k].gbps > 0 ? autos[k].gbps / base[k].gbps : 0;
		cpu[k] = base[k].cpu_s_per_gb > 0 && autos[k].cpu_s_per_gb > 0 ?
			 autos[k].cpu_s_per_gb / base[k].cpu_s_per_gb : 1e9;
	}
}

/*
 * GPU_AES_BENCH_TRACE_DISPATCH: what auto's estimates (dispatch/estimates,
 * this algorithm's rows) and the helper's published cost read before and
 * after each of its runs, and what it decided in that run: how a run
 * that kept to the CPU began and ended.
 */
static void trace_estimates(struct kring_host *h, const struct bench_alg *a,
			    unsigned int n, unsigned int round,
			    const char *when)
{
	const struct gpu_aes_region *r = kring_host_region(h);
	char buf[8192], *line, *save = NULL;
	/* "aes-256-xts" is the estimates' "xts" */
	const char *dash = strrchr(a->name, '-');
	const char *mode = dash ? dash + 1 : a->name;
	size_t mode_len = strlen(mode);

	printf("# trace %s %u thr round %u %s: helper %u ns/KiB %u MiB/s;",
	       a->name, n, round, when,
	       __atomic_load_n(&r->hdr->helper_cpu_ns_per_kib, __ATOMIC_RELAXED),
	       __atomic_load_n(&r->hdr->helper_mib_per_s, __ATOMIC_RELAXED));
	for (unsigned int i = 0; i < NR_DISPATCH_REASONS; i++)
		printf(" %s %lld", dispatch_reasons[i],
		       (long long)kring_stat(dispatch_reasons[i]));
	printf("\n");
	if (kring_dispatch_show(buf, sizeof(buf)) <= 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, mode, mode_len) && line[mode_len] == ' ')
			printf("#   %s\n", line);
}

/* The mode a slice runs in and the row it is reported as. */
static const char *const dispatch_modes[] = { "cpu", "ring", "auto" };
static const char *const dispatch_paths[] = {
	"dispatch-cpu", "dispatch-ring", "dispatch-auto",
};

/*
 * After a switch, what the last mode left in flight completes before the
 * clock starts; a few ring round trips.
 */
#define DISPATCH_SETTLE_S	0.02

/*
 * o->repeat rounds of the three modes, each a slice of o->seconds, on one
 * set of submitting threads that never stops: only the dispatch mode
 * changes between slices.  The host drifts by tens of percent over
 * seconds (a single-threaded OpenSSL loop alone spreads 12-17 % between
 * runs of 1 s on the GPU machine); slices next to each other see the same
 * host, so auto over the cheaper path within a round is what the policy
 * did, not what the host did meanwhile.  A slice after the ring's starts
 * in caches the ring's traffic swept, with auto's estimates fresh from
 * it: the rounds cycle through the six orders, so that over six rounds
 * each mode follows each other mode three times.  A slice that completed
 * nothing, or a failed request anywhere, fails the point.
 */
static int dispatch_rounds(struct kring_host *h, const struct bench_opts *o,
			   const struct bench_work *w, unsigned int n, int trace,
			   struct bench_result runs[3][BENCH_REPEAT_MAX],
			   int64_t why[NR_DISPATCH_REASONS])
{
	static const struct dq_spec mixed = { "dispatch", 1024, 65536, 0 };
	static const unsigned char orders[6][3] = {
		{ 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 },
		{ 0, 2, 1 }, { 2, 1, 0 }, { 1, 0, 2 },
	};
	struct dq_snap s0, s1;
	struct dq_run run;
	int err;

	memset(runs, 0, 3 * sizeof(runs[0]));
	kring_set_dispatch(dispatch_modes[0]);
	err = dq_start(w->a, w->dir, &mixed, n, &run);
	if (!err)
		sleep_s(0.2);	/* queues, estimates, caches */
	for (unsigned int k = 0; !err && k < o->repeat; k++)
		for (unsigned int j = 0; j < 3; j++) {
			unsigned int m = orders[k % 6][j];

			kring_set_dispatch(dispatch_modes[m]);
			sleep_s(DISPATCH_SETTLE_S);
			if (m == 2 && trace)
				trace_estimates(h, w->a, n, k, "before");
			for (unsigned int i = 0; m == 2 &&
			     i < NR_DISPATCH_REASONS; i++)
				why[i] -= kring_stat(dispatch_reasons[i]);
			dq_snap(h, run.t, run.started, 0, &s0);
			sleep_s(o->seconds);
			dq_snap(h, run.t, run.started, 0, &s1);
			for (unsigned int i = 0; m == 2 &&
			     i < NR_DISPATCH_REASONS; i++)
				why[i] += kring_stat(dispatch_reasons[i]);
			if (m == 2 && trace)
				trace_estimates(h, w->a, n, k, "after");
			if (dq_result(dispatch_paths[m], w->label, &mixed, n, &s0,
				      &s1, 0, &runs[m][k]))
				err = -1;
		}
	err |= dq_stop(&run);
	return err;
}

/*
 * The 95 % confidence interval of the median of @n sorted values (n odd),
 * from their order statistics, so nothing is assumed about how rounds
 * spread: the median's rank give or take 0.98 sqrt(n).
 */
static void median_ci(const double *sorted, unsigned int n, double *lo,
		      double *hi)
{
	unsigned int mid = n / 2, half = 0;

	while (half * half * 10000 < 9604 * n)
		half++;
	*lo = sorted[half < mid ? mid - half : 0];
	*hi = sorted[mid + half < n ? mid + half : n - 1];
}

/*
 * dispatch=cpu, ring and auto on a mixed workload (1..64 KiB, a power of
 * two drawn per request), with 1 to all threads submitting.  Two verdicts
 * per point: auto within 5 % of the better throughput and of the lower
 * CPU per byte of the other two ("best"); and within 5 % of the cheaper
 * path's throughput and CPU per byte ("cheaper"), the bound where the
 * cheaper path is the slower one: on a VAES host at a few threads the
 * ring is faster but costs twice the CPU, and auto is right to keep the
 * CPU's lower cost, which "best" cannot credit.  The cheaper path's bound
 * is also judged paired: the median over rounds of auto's figure over the
 * cheaper path's in the same round.
 */
int bench_dispatch(const struct bench_opts *o)
{
	const int trace = getenv("GPU_AES_BENCH_TRACE_DISPATCH") != NULL;
	const struct bench_work *works[BENCH_NR_WORKS];
	int nworks = bench_works_parse(o->works ? o->works :
				       BENCH_WORKS_DEFAULT, works);
	unsigned int all = all_threads(o), fails = 0, cheaper_fails = 0;
	unsigned int paired_fails = 0, resolved = 0, points = 0;
	struct bench_result r[3];
	struct kring_host *h;
	int err = 0;

	if (nworks < 0 || kring_ready() || host_start(o, all, &h))
		return -1;
	for (int wi = 0; wi < nworks; wi++) {
		const struct bench_work *w = works[wi];

		for (unsigned int n = 1; n <= all; n = n * 2 > all && n < all ?
						       all : n * 2) {
			double best_gbps = 0, best_cpu = 0, spread[3];
			struct bench_result runs[3][BENCH_REPEAT_MAX];
			int64_t why[NR_DISPATCH_REASONS] = { 0 };
			double pair_gbps[2][BENCH_REPEAT_MAX];
			double pair_cpu[2][BENCH_REPEAT_MAX], pg, pc;
			double pg_lo, pg_hi, pc_lo, pc_hi;
			unsigned int cheaper;
			int ok, ok_cheaper, ok_paired;

			points++;
			if (dispatch_rounds(h, o, w, n, trace, runs, why))
				err = -1;
			/* Before the medians sort the runs out of rounds. */
			for (unsigned int m = 0; m < 2; m++)
				paired_ratios(runs[2], runs[m], o->repeat,
					      pair_gbps[m], pair_cpu[m]);
			for (unsigned int m = 0; m < 3; m++) {
				r[m] = *median_by_gbps(runs[m], o->repeat);
				spread[m] = spread_pct(runs[m], o->repeat,
						       r[m].gbps);
			}
			for (unsigned int m = 0; m < 2; m++) {
				if (r[m].gbps > best_gbps)
					best_gbps = r[m].gbps;
				if (r[m].cpu_s_per_gb &&
				    (!best_cpu || r[m].cpu_s_per_gb < best_cpu))
					best_cpu = r[m].cpu_s_per_gb;
			}
			ok = r[2].gbps >= 0.95 * best_gbps &&
			     r[2].cpu_s_per_gb <= 1.05 * best_cpu;
			fails += !ok;
			cheaper = r[1].cpu_s_per_gb &&
				  r[1].cpu_s_per_gb < r[0].cpu_s_per_gb;
			ok_cheaper = r[2].gbps >= 0.95 * r[cheaper].gbps &&
				     r[2].cpu_s_per_gb <=
				     1.05 * r[cheaper].cpu_s_per_gb;
			cheaper_fails += !ok_cheaper;
			pg = median_of(pair_gbps[cheaper], o->repeat);
			pc = median_of(pair_cpu[cheaper], o->repeat);
			median_ci(pair_gbps[cheaper], o->repeat, &pg_lo, &pg_hi);
			median_ci(pair_cpu[cheaper], o->repeat, &pc_lo, &pc_hi);
			ok_paired = pg >= 0.95 && pc <= 1.05;
			paired_fails += !ok_paired;
			/* Resolved: the interval lies on one side of each bound. */
			resolved += (pg_lo >= 0.95 || pg_hi < 0.95) &&
				    (pc_hi <= 1.05 || pc_lo > 1.05);
			printf("dispatch %s %u thr (median of %u): cpu %.2f GB/s %.3f s/GB, ring %.2f GB/s %.3f s/GB, auto %.2f GB/s %.3f s/GB (%s): best %s, cheaper (%s) %s, paired %.3f x GB/s (95%% CI %.3f-%.3f) %.3f x s/GB (%.3f-%.3f) %s\n",
			       w->label, n, o->repeat, r[0].gbps,
			       r[0].cpu_s_per_gb, r[1].gbps, r[1].cpu_s_per_gb,
			       r[2].gbps, r[2].cpu_s_per_gb, r[2].note,
			       ok ? "ok" : "MISS", dispatch_modes[cheaper],
			       ok_cheaper ? "ok" : "MISS", pg, pg_lo, pg_hi,
			       pc, pc_lo, pc_hi, ok_paired ? "ok" : "MISS");
			printf("  spread of the %u runs: cpu %.1f%%, ring %.1f%%, auto %.1f%%; auto's decisions:",
			       o->repeat, spread[0], spread[1], spread[2]);
			for (unsigned int i = 0; i < NR_DISPATCH_REASONS; i++)
				printf(" %s %lld", dispatch_reasons[i],
				       (long long)why[i]);
			printf("\n");
		}
	}
	{
		char buf[8192];

		if (kring_dispatch_show(buf, sizeof(buf)) > 0)
			printf("# dispatch estimates (auto)\n%s", buf);
	}
	kring_set_dispatch("ring");
	kring_host_stop(h);
	printf("dispatch: %u point%s missed the best bound, %u the cheaper path's, %u the cheaper path's paired by round; %u of %u paired verdicts resolved (each 95 %% interval on one side of its bound)\n",
	       fails, fails == 1 ? "" : "s", cheaper_fails, paired_fails,
	       resolved, points);
	return err;
}

/*
 * What gpu_aes's own layer adds to a request the CPU driver runs: this
 * thread runs requests of --req-sizes' lower bound of each workload one
 * at a time, the driver called directly (kring_cpu_direct(): OpenSSL,
 * what the displaced driver is here, with the IV it hands back), through
 * the module's request path with dispatch=cpu (its request setup,
 * routing, the call of its fallback) and with
 * dispatch=auto (the decision too, and now and then an exploration of
 * the ring, which is waited for), taking turns for --seconds each (the
 * order rotating by round), --repeat rounds.  The paired differences
 * per request, cpu less direct (the layer) and auto less cpu (the
 * decision), with the 95 % intervals of their medians.
 *
 * The arms call the driver from different stack depths, so where the
 * data sits against the driver's stack (loads that alias stores 4 KiB
 * apart) could favour one: the data moves by 512 bytes a round, over
 * DECISION_PLACES places (a fixed one moved a GCM layer by 15 ns here).
 */
#define DECISION_PLACES	8

int bench_decision(const struct bench_opts *o)
{
	static const char *const modes[] = { "direct", "cpu", "auto" };
	const struct bench_work *works[BENCH_NR_WORKS];
	int nworks = bench_works_parse(o->works ? o->works : "xts", works);
	uint32_t len = (uint32_t)o->req_min;
	struct qd1_wait w = QD1_WAIT_INIT;
	double ns[3][BENCH_REPEAT_MAX], layer[BENCH_REPEAT_MAX];
	double decision[BENCH_REPEAT_MAX], llo, lhi, dlo, dhi, med[3];
	struct kring_tfm *tfm = NULL;
	struct kring_req *req = NULL;
	struct kring_host *h;
	struct bench_result r;
	uint8_t *buf = NULL;
	int err = 0;

	if (len < 16 || len > (1U << 20)) {
		fprintf(stderr, "bench: --decision takes requests of 16 B to 1 MiB\n");
		return -1;
	}
	if (nworks < 0 || kring_ready() || host_start(o, 1, &h))
		return -1;
	buf = malloc(DECISION_PLACES * 512 + len + 64 + 16);
	for (int wi = 0; !err && wi < nworks; wi++) {
		const struct bench_work *wk = works[wi];
		const struct bench_alg *a = wk->a;
		uint64_t reqs[3] = { 0, 0, 0 };
		int64_t ring[3] = { 0, 0, 0 };

		if (!buf || new_tfm(a, &tfm) || !(req = kring_req_new(tfm))) {
			err = -1;
			break;
		}
		memset(buf, 0x11, DECISION_PLACES * 512 + len + 64 + 16);
		for (unsigned int k = 0; !err && k < o->repeat; k++)
			for (unsigned int j = 0; !err && j < 3; j++) {
				uint8_t *b = buf + k % DECISION_PLACES * 512;
				unsigned int m = (j + k) % 3;
				int64_t ring0 = kring_stat("ring_requests");
				double t0, t1, end;
				uint64_t n = 0;

				if (m)
					kring_set_dispatch(modes[m]);
				for (int i = 0; i < 1000; i++)	/* settle */
					err |= qd1_run(req, a, wk->dir, b, len,
						       &w, !m);
				t0 = bench_now();
				end = t0 + o->seconds;
				do {
					for (int i = 0; i < 256; i++)
						err |= qd1_run(req, a, wk->dir,
							       b, len, &w, !m);
					n += 256;
					t1 = bench_now();
				} while (t1 < end);
				ns[m][k] = (t1 - t0) / (double)n * 1e9;
				reqs[m] += n;
				ring[m] += kring_stat("ring_requests") - ring0;
			}
		kring_req_free(req);
		req = NULL;
		kring_tfm_free(tfm);
		tfm = NULL;
		if (err)
			break;
		for (unsigned int k = 0; k < o->repeat; k++) {
			layer[k] = ns[1][k] - ns[0][k];
			decision[k] = ns[2][k] - ns[1][k];
		}
		qsort(layer, o->repeat, sizeof(double), cmp_double);
		qsort(decision, o->repeat, sizeof(double), cmp_double);
		median_ci(layer, o->repeat, &llo, &lhi);
		median_ci(decision, o->repeat, &dlo, &dhi);
		for (unsigned int m = 0; m < 3; m++) {
			qsort(ns[m], o->repeat, sizeof(double), cmp_double);
			med[m] = ns[m][o->repeat / 2];
			memset(&r, 0, sizeof(r));
			snprintf(r.path, sizeof(r.path), "decision-%s", modes[m]);
			snprintf(r.alg, sizeof(r.alg), "%s", wk->label);
			r.size = len;
			r.rps = 1e9 / med[m];
			r.gbps = r.rps * len / 1e9;
			r.p50_us = med[m] / 1e3;
			snprintf(r.note, sizeof(r.note),
				 "1 thread, one request at a time, median of %u; %lld of %llu on the ring",
				 o->repeat, (long long)ring[m],
				 (unsigned long long)reqs[m]);
			bench_add(&r);
		}
		printf("decision %s %u B: direct %.1f ns, dispatch=cpu %.1f ns, auto %.1f ns per request; the layer adds %.1f ns = %.1f%% (95%% CI %.1f-%.1f ns), auto's decision %.1f ns (95%% CI %.1f-%.1f) (median of %u paired rounds)\n",
		       wk->label, len, med[0], med[1], med[2],
		       layer[o->repeat / 2], 100 * layer[o->repeat / 2] / med[0],
		       llo, lhi, decision[o->repeat / 2], dlo, dhi, o->repeat);
	}
	kring_set_dispatch("ring");
	kring_req_free(req);
	kring_tfm_free(tfm);
	kring_host_stop(h);
	free(buf);
	return err ? -1 : 0;
}
