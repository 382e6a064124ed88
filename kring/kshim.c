// SPDX-License-Identifier: GPL-2.0-only
/*
 * kshim.c - the runtime behind kshim.h: CPU numbers for threads, per-CPU
 * copies, jiffies, the delayed-work thread, wait_var_event() and the
 * scatterlist walks.
 */
#include "kshim.h"

#ifdef __x86_64__
#include <emmintrin.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

__thread int kshim_cpu_id = -1;
uintptr_t kshim_percpu_offset[KSHIM_NR_CPUS];

/* The linker's bounds of the per-CPU section (DEFINE_PER_CPU). */
extern char __start_kshim_percpu[], __stop_kshim_percpu[];

static pthread_mutex_t cpu_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char cpu_used[KSHIM_NR_CPUS];
/*
 * Threads that chose their CPU number (kshim_set_cpu(): the submitters of
 * tests and benchmarks): their CPU clocks while they live, their total
 * once gone, so the rest of the process (the helper) can be told apart.
 */
static clockid_t cpu_clock[KSHIM_NR_CPUS / 2];
static uint64_t chosen_dead_ns;
/*
 * Consumer threads that submit nothing (kshim_add_consumer(): a
 * benchmark's main thread, preparing the submitters' buffers): theirs is
 * not the helper's CPU either.  They live as long as the ring.
 */
#define KSHIM_NR_CONSUMERS	8
static pthread_t consumer_thread[KSHIM_NR_CONSUMERS];
static clockid_t consumer_clock[KSHIM_NR_CONSUMERS];
static int nr_consumers;
static pthread_key_t cpu_key;
static pthread_once_t cpu_key_once = PTHREAD_ONCE_INIT;
static char *percpu_copies;

long kshim_page_size(void)
{
	static long page;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	return page;
}

void kshim_lock_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A thread's number is free again when it exits. */
static void cpu_release(void *v)
{
	int cpu = (int)(uintptr_t)v - 1;

	pthread_mutex_lock(&cpu_lock);
	if (cpu < KSHIM_NR_CPUS / 2)
		chosen_dead_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID);
	cpu_used[cpu] = 0;
	pthread_mutex_unlock(&cpu_lock);
}

uint64_t kshim_chosen_cpu_ns(void)
{
	uint64_t sum;
	int cpu;

	pthread_mutex_lock(&cpu_lock);
	sum = chosen_dead_ns;
	for (cpu = 0; cpu < KSHIM_NR_CPUS / 2; cpu++)
		if (cpu_used[cpu])
			sum += clock_ns(cpu_clock[cpu]);
	for (cpu = 0; cpu < nr_consumers; cpu++)
		sum += clock_ns(consumer_clock[cpu]);
	pthread_mutex_unlock(&cpu_lock);
	return sum;
}

int kshim_add_consumer(void)
{
	pthread_t self = pthread_self();
	clockid_t id;
	int i, err;

	err = pthread_getcpuclockid(self, &id);
	if (err)
		return -err;
	pthread_mutex_lock(&cpu_lock);
	for (i = 0; i < nr_consumers; i++)
		if (pthread_equal(consumer_thread[i], self))
			break;
	if (i == nr_consumers && nr_consumers < KSHIM_NR_CONSUMERS) {
		consumer_thread[i] = self;
		consumer_clock[i] = id;
		nr_consumers++;
	}
	err = i < nr_consumers ? 0 : -ENOSPC;
	pthread_mutex_unlock(&cpu_lock);
	return err;
}

static void cpu_key_make(void)
{
	pthread_key_create(&cpu_key, cpu_release);
}

static void cpu_take(int cpu)
{
	pthread_once(&cpu_key_once, cpu_key_make);
	kshim_cpu_id = cpu;
	pthread_setspecific(cpu_key, (void *)(uintptr_t)(cpu + 1));
}

/*
 * Threads that did not ask for a number get one from the upper half, so
 * the numbers tests and benchmarks choose (and the queues they map to)
 * are not taken by helper threads.
 */
int kshim_cpu_slow(void)
{
	int cpu;

	pthread_mutex_lock(&cpu_lock);
	for (cpu = KSHIM_NR_CPUS / 2; cpu < KSHIM_NR_CPUS; cpu++)
		if (!cpu_used[cpu])
			break;
	if (cpu == KSHIM_NR_CPUS) {
		pthread_mutex_unlock(&cpu_lock);
		fprintf(stderr, "kshim: more than %d threads use the ring\n",
			KSHIM_NR_CPUS / 2);
		abort();
	}
	cpu_used[cpu] = 1;
	pthread_mutex_unlock(&cpu_lock);
	cpu_take(cpu);
	return cpu;
}

void kshim_set_cpu(int cpu)
{
	if (cpu < 0 || cpu >= KSHIM_NR_CPUS / 2 || kshim_cpu_id >= 0) {
		fprintf(stderr, "kshim: CPU %d refused (thread has %d)\n", cpu,
			kshim_cpu_id);
		abort();
	}
	pthread_mutex_lock(&cpu_lock);
	if (cpu_used[cpu]) {
		pthread_mutex_unlock(&cpu_lock);
		fprintf(stderr, "kshim: CPU %d is another thread's\n", cpu);
		abort();
	}
	cpu_used[cpu] = 1;
	if (pthread_getcpuclockid(pthread_self(), &cpu_clock[cpu]))
		cpu_clock[cpu] = CLOCK_THREAD_CPUTIME_ID;
	pthread_mutex_unlock(&cpu_lock);
	cpu_take(cpu);
}

static int percpu_setup(void)
{
	size_t size = (size_t)(__stop_kshim_percpu - __start_kshim_percpu);
	int cpu;

	if (percpu_copies)
		return 0;
	/* 64-byte copies: no two CPUs' counters share a cache line. */
	size = (size + 63) & ~(size_t)63;
	if (posix_memalign((void **)&percpu_copies, 64, size * KSHIM_NR_CPUS))
		return -ENOMEM;
	for (cpu = 0; cpu < KSHIM_NR_CPUS; cpu++) {
		memcpy(percpu_copies + cpu * size, __start_kshim_percpu,
		       (size_t)(__stop_kshim_percpu - __start_kshim_percpu));
		kshim_percpu_offset[cpu] = (uintptr_t)(percpu_copies +
						       cpu * size) -
					   (uintptr_t)__start_kshim_percpu;
	}
	return 0;
}

/*
 * The coarse clock is what the kernel's tick updates: reading it is a load
 * from the vDSO page, as cheap as the kernel's jiffies, where the precise
 * clock costs a TSC read and would bill the shim to the ring.
 */
unsigned long kshim_jiffies(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (unsigned long)ts.tv_sec * HZ +
	       (unsigned long)ts.tv_nsec / (1000000000UL / HZ);
}

u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

u64 ktime_get_boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

pid_t kshim_getpid(void)
{
	return getpid();
}

int kshim_nr_machine_cpus(void)
{
	static int n;

	if (!n)
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 && n <= KSHIM_NR_CPUS ? n : 1;
}

/* /proc/stat's idle + iowait of each CPU, in us, read at most every ms. */
static u64 machine_idle_us(int cpu)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static u64 idle[KSHIM_NR_CPUS], at;
	u64 now = ktime_get_ns(), v;
	long tick = sysconf(_SC_CLK_TCK);

	pthread_mutex_lock(&lock);
	if (now - at > 1000000ULL) {
		FILE *f = fopen("/proc/stat", "r");
		char line[512];

		while (f && fgets(line, sizeof(line), f)) {
			unsigned long long u, ni, sy, id, io;
			int c;

			if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu", &c, &u,
				   &ni, &sy, &id, &io) == 6 &&
			    c >= 0 && c < KSHIM_NR_CPUS)
				idle[c] = (id + io) * 1000000ULL /
					  (u64)(tick > 0 ? tick : 100);
		}
		if (f)
			fclose(f);
		at = now;
	}
	v = cpu >= 0 && cpu < KSHIM_NR_CPUS ? idle[cpu] : 0;
	pthread_mutex_unlock(&lock);
	return v;
}

u64 get_cpu_idle_time_us(int cpu, u64 *last_update_time)
{
	struct timespec run;
	u64 wall = ktime_get_ns() / 1000, busy;

	if (!last_update_time)
		return machine_idle_us(cpu);
	if (cpu != raw_smp_processor_id() ||
	    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &run))
		return (u64)-1;
	busy = (u64)run.tv_sec * 1000000ULL + (u64)run.tv_nsec / 1000;
	*last_update_time = wall;
	return wall > busy ? wall - busy : 0;
}

int sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PAGE_SIZE, fmt, ap);
	va_end(ap);
	return n;
}

int sysfs_emit_at(char *buf, int at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at < 0 || (unsigned long)at >= PAGE_SIZE)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, PAGE_SIZE - at, fmt, ap);
	va_end(ap);
	return min(n, (int)(PAGE_SIZE - at - 1));
}

/* ---- bitmaps ---- */

unsigned int bitmap_weight(const unsigned long *map, unsigned int nbits)
{
	unsigned int i, n = 0;

	for (i = 0; i < nbits; i++)
		n += test_bit(i, map);
	return n;
}

unsigned long find_next_bit(const unsigned long *map, unsigned long size,
			    unsigned long offset)
{
	for (; offset < size; offset++)
		if (test_bit(offset, map))
			return offset;
	return size;
}

unsigned long find_first_zero_bit(const unsigned long *map,
				  unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i++)
		if (!test_bit(i, map))
			return i;
	return size;
}

/* ---- wait_var_event ---- */

static pthread_mutex_t var_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t var_cond = PTHREAD_COND_INITIALIZER;
static int var_waiters;

/*
 * As the kernel's: no lock unless someone waits (waitqueue_active()).
 * Every request's last queue reference ends here, and one lock taken by
 * every submitter of the process was the bench's, not the kernel's, cost.
 * The caller's change is fully ordered before the load (atomic_dec_and_
 * test()), a waiter's registration before its check of the condition:
 * one of the two sees the other, and a wake that comes between a check
 * and the wait is the 1 ms tick's to cover, as before.
 */
void kshim_wake_up_var(void *var)
{
	(void)var;
	if (!__atomic_load_n(&var_waiters, __ATOMIC_SEQ_CST))
		return;
	pthread_mutex_lock(&var_lock);
	pthread_cond_broadcast(&var_cond);
	pthread_mutex_unlock(&var_lock);
}

void kshim_wait_var_begin(void *var)
{
	(void)var;
	__atomic_add_fetch(&var_waiters, 1, __ATOMIC_SEQ_CST);
	/* The condition is read after: set_current_state()'s barrier. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void kshim_wait_var_end(void *var)
{
	(void)var;
	__atomic_sub_fetch(&var_waiters, 1, __ATOMIC_SEQ_CST);
}

/*
 * One wait of wait_var_event()'s loop.  The condition is re-checked by the
 * caller; the 1 ms bound covers a wake that came between its check and
 * this wait, since the condition is not read under var_lock.
 */
void kshim_wait_var_tick(void *var)
{
	struct timespec ts;

	(void)var;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&var_lock);
	pthread_cond_timedwait(&var_cond, &var_lock, &ts);
	pthread_mutex_unlock(&var_lock);
}

/* ---- delayed work: one thread runs every due work, like system_wq ---- */

static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cond;	/* CLOCK_MONOTONIC */
static pthread_cond_t work_idle = PTHREAD_COND_INITIALIZER;
static struct delayed_work *works;	/* every initialised work */
static pthread_t work_thread;
static bool work_started, work_stop;

void kshim_init_delayed_work(struct delayed_work *dw, work_func_t fn)
{
	dw->work.func = fn;
	dw->pending = false;
	dw->running = false;
	dw->due = 0;
	pthread_mutex_lock(&work_lock);
	dw->next_registered = works;
	works = dw;
	pthread_mutex_unlock(&work_lock);
}

bool kshim_mod_delayed_work(struct delayed_work *dw, unsigned long delay)
{
	bool was;

	pthread_mutex_lock(&work_lock);
	was = dw->pending;
	dw->pending = true;
	dw->due = kshim_jiffies() + delay;
	pthread_cond_signal(&work_cond);
	pthread_mutex_unlock(&work_lock);
	return was;
}

bool kshim_cancel_delayed_work_sync(struct delayed_work *dw)
{
	bool was;

	pthread_mutex_lock(&work_lock);
	was = dw->pending;
	dw->pending = false;
	while (dw->running)
		pthread_cond_wait(&work_idle, &work_lock);
	pthread_mutex_unlock(&work_lock);
	return was;
}

static void *work_main(void *arg)
{
	(void)arg;
	/* The kernel's kworker: deadline scans and other delayed work. */
	pthread_setname_np(pthread_self(), "kshim-work");
	pthread_mutex_lock(&work_lock);
	while (!work_stop) {
		unsigned long now = kshim_jiffies(), next = 0;
		struct delayed_work *dw, *due = NULL;
		bool any = false;

		for (dw = works; dw; dw = dw->next_registered) {
			if (!dw->pending)
				continue;
			if (time_after_eq(now, dw->due)) {
				due = dw;
				break;
			}
			if (!any || time_before(dw->due, next))
				next = dw->due;
			any = true;
		}
		if (due) {
			due->pending = false;
			due->running = true;
			pthread_mutex_unlock(&work_lock);
			due->work.func(&due->work);
			pthread_mutex_lock(&work_lock);
			due->running = false;
			pthread_cond_broadcast(&work_idle);
			continue;
		}
		if (any) {
			struct timespec ts;
			unsigned long ms = next - now;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_sec += (time_t)(ms / 1000);
			ts.tv_nsec += (long)(ms % 1000) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&work_cond, &work_lock, &ts);
		} else {
			pthread_cond_wait(&work_cond, &work_lock);
		}
	}
	pthread_mutex_unlock(&work_lock);
	return NULL;
}

int kshim_start(void)
{
	pthread_condattr_t a;
	int err;

	err = percpu_setup();
	if (err)
		return err;
	if (work_started)
		return 0;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&work_cond, &a);
	pthread_condattr_destroy(&a);
	work_stop = false;
	err = pthread_create(&work_thread, NULL, work_main, NULL);
	if (err)
		return -err;
	work_started = true;
	return 0;
}

void kshim_stop(void)
{
	if (!work_started)
		return;
	pthread_mutex_lock(&work_lock);
	work_stop = true;
	pthread_cond_signal(&work_cond);
	pthread_mutex_unlock(&work_lock);
	pthread_join(work_thread, NULL);
	pthread_cond_destroy(&work_cond);
	work_started = false;
	works = NULL;
}

/* ---- scatterlists ---- */

int sg_nents(struct scatterlist *sg)
{
	int n = 1;

	while (!sg->last) {
		sg++;
		n++;
	}
	return n;
}

void sg_miter_start(struct sg_mapping_iter *miter, struct scatterlist *sgl,
		    unsigned int nents, unsigned int flags)
{
	(void)flags;
	memset(miter, 0, sizeof(*miter));
	miter->sg = sgl;
	miter->left = nents;
}

/* Past whole entries the offset covers; false when it runs off the end. */
static bool sg_miter_settle(struct sg_mapping_iter *miter)
{
	while (miter->left && miter->offset >= miter->sg->length) {
		miter->offset -= miter->sg->length;
		miter->left--;
		miter->sg = miter->left ? miter->sg + 1 : NULL;
	}
	return miter->left;
}

bool sg_miter_skip(struct sg_mapping_iter *miter, off_t offset)
{
	sg_miter_stop(miter);
	miter->offset += (size_t)offset;
	return sg_miter_settle(miter) || !miter->offset;
}

bool sg_miter_next(struct sg_mapping_iter *miter)
{
	if (miter->mapped) {
		miter->offset += miter->length;
		miter->mapped = false;
	}
	if (!sg_miter_settle(miter)) {
		miter->addr = NULL;
		miter->length = 0;
		return false;
	}
	miter->addr = (char *)miter->sg->buf + miter->offset;
	miter->length = miter->sg->length - miter->offset;
	miter->mapped = true;
	return true;
}

void sg_miter_stop(struct sg_mapping_iter *miter)
{
	if (miter->mapped) {
		miter->offset += miter->length;
		miter->mapped = false;
	}
	miter->addr = NULL;
	miter->length = 0;
}

void memcpy_flushcache(void *dst, const void *src, size_t cnt)
{
#ifdef __x86_64__
	char *d = dst;
	const char *s = src;
	size_t head = (16 - ((uintptr_t)d & 15)) & 15;

	if (cnt < head + 64) {
		memcpy(d, s, cnt);
		return;
	}
	memcpy(d, s, head);
	d += head;
	s += head;
	cnt -= head;
	for (; cnt >= 64; cnt -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	memcpy(d, s, cnt);
#else
	memcpy(dst, src, cnt);
#endif
}

/* lib/scatterlist.c's sg_copy_buffer(): the walk is sg_miter's. */
static size_t sg_copy(struct scatterlist *sgl, unsigned int nents, void *buf,
		      size_t buflen, off_t skip, bool to_buffer)
{
	struct sg_mapping_iter miter;
	size_t done = 0, n;

	sg_miter_start(&miter, sgl, nents, to_buffer ? SG_MITER_FROM_SG :
					    SG_MITER_TO_SG);
	if (!sg_miter_skip(&miter, skip))
		return 0;
	while (done < buflen && sg_miter_next(&miter)) {
		n = min(miter.length, buflen - done);
		if (to_buffer)
			memcpy((char *)buf + done, miter.addr, n);
		else
			memcpy(miter.addr, (char *)buf + done, n);
		done += n;
	}
	sg_miter_stop(&miter);
	return done;
}

size_t sg_pcopy_to_buffer(struct scatterlist *sgl, unsigned int nents,
			  void *buf, size_t buflen, off_t skip)
{
	return sg_copy(sgl, nents, buf, buflen, skip, true);
}

size_t sg_pcopy_from_buffer(struct scatterlist *sgl, unsigned int nents,
			    const void *buf, size_t buflen, off_t skip)
{
	return sg_copy(sgl, nents, (void *)buf, buflen, skip, false);
}
