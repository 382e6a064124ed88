/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim.h - the kernel APIs that kmod/'s request path uses, as userspace
 * fakes, so kring/ can build kmod/ring.c, keys.c, job.c, alg.c and stats.c
 * unchanged (the way the kernel's tools/testing/vma builds mm/vma.c).
 *
 * Every fake lives here; kring.mk force-includes this header into those
 * files and points each <linux/...> and <crypto/...> they include at an
 * empty stub, so a kmod/ file that starts using an API this header lacks
 * fails to build here rather than quietly picking up a system header.
 *
 * What the fakes promise is what the ring relies on, no more:
 * - spinlocks and mutexes are pthread mutexes (spinlocks adaptive: a short
 *   spin, then sleep, since a thread holding one can be preempted where a
 *   CPU cannot); local_bh_disable() is a no-op (no softirqs here);
 * - a "CPU" is a thread: raw_smp_processor_id() is a number the thread
 *   gets on first use (or from kshim_set_cpu()), unique among live
 *   threads, so per-CPU data is written by one thread only, as in the
 *   kernel;
 * - jiffies count milliseconds of CLOCK_MONOTONIC_COARSE (HZ 1000, in
 *   steps of the host's tick);
 * - delayed work runs on one kshim thread, like system_wq's worker;
 * - a scatterlist is an array of (buffer, length) entries, the last one
 *   marked; sg_pcopy_to/from_buffer() walk it like lib/scatterlist.c;
 * - barriers are the C11 fences the kernel's map to on x86-64 and arm64.
 */
#ifndef GPU_AES_KSHIM_H
#define GPU_AES_KSHIM_H

#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <linux/types.h>	/* the uapi one: __u32, __be64, ... */

/* ---- types and helpers of linux/types.h, kernel.h, math64.h ---- */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef unsigned int gfp_t;

#define GFP_KERNEL	0U
#define __init
#define __exit
#define __user
#define __must_check	__attribute__((warn_unused_result))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * Configs: kring builds the production module's code, no test hooks; the
 * architecture's as the kernel's Kconfig would set it.  IS_ENABLED() is
 * include/linux/kconfig.h's: 1 for an option defined as 1, else 0.
 */
#ifdef __x86_64__
#define CONFIG_X86_64	1
#endif
#define __KSHIM_ARG_PLACEHOLDER_1	0,
#define __kshim_take_second_arg(ignored, val, ...)	val
#define ____kshim_is_defined(arg1_or_junk) \
	__kshim_take_second_arg(arg1_or_junk 1, 0)
#define ___kshim_is_defined(val) \
	____kshim_is_defined(__KSHIM_ARG_PLACEHOLDER_##val)
#define IS_ENABLED(option)	___kshim_is_defined(option)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ALIGN(x, a)	(((x) + ((__typeof__(x))(a) - 1)) & \
			 ~((__typeof__(x))(a) - 1))
#define min(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a < _b ? _a : _b; })
#define max(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a > _b ? _a : _b; })
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define max_t(t, a, b)	max((t)(a), (t)(b))

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#define DIV_ROUND_UP_ULL(n, d)	div64_u64((u64)(n) + (d) - 1, (d))

/* linux/string.h: copies what fits, always terminated. */
static inline long strscpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size);

	if (!size)
		return -7;	/* -E2BIG */
	if (n == size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
	return (long)n;
}

static inline int ilog2(u64 v)
{
	return 63 - __builtin_clzll(v);
}

#define SZ_1M		0x00100000
#define USEC_PER_SEC	1000000L
#define NSEC_PER_USEC	1000L

#define cmpxchg(p, old, new)	__sync_val_compare_and_swap((p), (old), (new))

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 be64_to_cpu(__be64 v)
{
	return be64toh((u64)v);
}

static inline __be64 cpu_to_be64(u64 v)
{
	return (__be64)htobe64(v);
}

static inline void memzero_explicit(void *p, size_t n)
{
	explicit_bzero(p, n);
}

/* ---- memory (linux/slab.h, linux/mm.h) ---- */

long kshim_page_size(void);
#define PAGE_SIZE	((unsigned long)kshim_page_size())

/*
 * Cache-line aligned, as the kernel's slabs place a ____cacheline_aligned
 * object: calloc() returns large blocks 16 bytes into a page, which would
 * put every line of an array of such objects across two of them.
 */
static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes = n * size;
	void *p;

	(void)gfp;
	if (size && n > SIZE_MAX / size)
		return NULL;
	if (posix_memalign(&p, 64, bytes > 0 ? bytes : 1))
		return NULL;
	return memset(p, 0, bytes);
}

#define kvcalloc	kcalloc
#define kzalloc(size, gfp)	kcalloc(1, (size), (gfp))
#define kfree		free
#define kvfree		free

/* ---- barriers and once-accesses (asm/barrier.h, linux/compiler.h) ---- */

/*
 * Relaxed atomics rather than volatile: the same code as the kernel's on
 * x86 and arm64, and what ThreadSanitizer knows as a marked access, so a
 * race it reports here is one KCSAN would report in the kernel too.
 */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) \
	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

#define ____cacheline_aligned_in_smp	__attribute__((aligned(64)))

typedef struct {
	int counter;
} atomic_t;

static inline void atomic_set(atomic_t *a, int v)
{
	__atomic_store_n(&a->counter, v, __ATOMIC_RELAXED);
}

static inline int atomic_read(const atomic_t *a)
{
	return __atomic_load_n(&a->counter, __ATOMIC_RELAXED);
}

static inline void atomic_inc(atomic_t *a)
{
	__atomic_add_fetch(&a->counter, 1, __ATOMIC_RELAXED);
}

/* Fully ordered, as in the kernel. */
static inline int atomic_xchg(atomic_t *a, int v)
{
	return __atomic_exchange_n(&a->counter, v, __ATOMIC_SEQ_CST);
}

/* Fully ordered, as in the kernel. */
static inline bool atomic_dec_and_test(atomic_t *a)
{
	return __atomic_sub_fetch(&a->counter, 1, __ATOMIC_SEQ_CST) == 0;
}

/* ---- CPUs and per-CPU data (linux/smp.h, linux/percpu.h) ---- */

/* Thread numbers, like CPU numbers, run below this. */
#define KSHIM_NR_CPUS	1024

extern __thread int kshim_cpu_id;
int kshim_cpu_slow(void);

static inline int raw_smp_processor_id(void)
{
	return kshim_cpu_id >= 0 ? kshim_cpu_id : kshim_cpu_slow();
}

#define smp_processor_id()	raw_smp_processor_id()
#define nr_cpu_ids		KSHIM_NR_CPUS
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < KSHIM_NR_CPUS; (cpu)++)
/*
 * The machine's real CPUs: only for get_cpu_idle_time_us(cpu, NULL),
 * which reads them from /proc/stat.
 */
int kshim_nr_machine_cpus(void);
#define for_each_online_cpu(cpu) \
	for ((cpu) = 0; (cpu) < kshim_nr_machine_cpus(); (cpu)++)

/*
 * Per-CPU variables as the kernel lays them out: the definitions go into
 * one section, kshim makes KSHIM_NR_CPUS copies of it, and a CPU's copy of
 * a variable sits at the variable's address plus that CPU's offset.
 */
extern uintptr_t kshim_percpu_offset[KSHIM_NR_CPUS];
#define DECLARE_PER_CPU(type, name)	extern __typeof__(type) name
#define DEFINE_PER_CPU(type, name) \
	__attribute__((section("kshim_percpu"), aligned(64))) \
	__typeof__(type) name
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((uintptr_t)(ptr) + kshim_percpu_offset[(cpu)]))
#define per_cpu(var, cpu)	(*per_cpu_ptr(&(var), (cpu)))
#define this_cpu_ptr(ptr)	per_cpu_ptr((ptr), raw_smp_processor_id())
#define raw_cpu_ptr(ptr)	this_cpu_ptr(ptr)
/* One writer per copy (one thread per CPU number): a plain add. */
#define this_cpu_add(pcp, val)	(*this_cpu_ptr(&(pcp)) += (val))
#define this_cpu_inc(pcp)	this_cpu_add((pcp), 1)

/* ---- locks (linux/spinlock.h, linux/mutex.h, linux/bottom_half.h) ---- */

/*
 * A spinlock is an adaptive mutex: it spins a little, then sleeps.  The
 * kernel's holder cannot be preempted, a thread can, and a waiter spinning
 * on a preempted holder would burn the CPU the holder needs (a pure
 * spinlock measured worse here on an oversubscribed machine).
 */
typedef struct {
	pthread_mutex_t m;
} spinlock_t;

struct mutex {
	pthread_mutex_t m;
};

void kshim_lock_init(pthread_mutex_t *m);

#define spin_lock_init(l)	kshim_lock_init(&(l)->m)
#define spin_lock(l)		pthread_mutex_lock(&(l)->m)
#define spin_unlock(l)		pthread_mutex_unlock(&(l)->m)
#define spin_lock_bh(l)		spin_lock(l)
#define spin_unlock_bh(l)	spin_unlock(l)
#define mutex_init(l)		kshim_lock_init(&(l)->m)
#define mutex_lock(l)		pthread_mutex_lock(&(l)->m)
#define mutex_unlock(l)		pthread_mutex_unlock(&(l)->m)
#define lockdep_assert_held(l)	((void)(l))
#define lockdep_is_held(l)	((void)(l), 1)
#define lockdep_assert(c)	((void)(c))
#define local_bh_disable()	do { } while (0)
#define local_bh_enable()	do { } while (0)
/* No interrupts in userspace: flags carry nothing. */
#define DEFINE_SPINLOCK(x)	spinlock_t x = { PTHREAD_MUTEX_INITIALIZER }
#define spin_lock_irqsave(l, f)	do { (f) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f) \
	do { (void)(f); spin_unlock(l); } while (0)
/* sparse's lock annotations. */
#define __releases(x)
#define __acquires(x)

/* ---- time (linux/jiffies.h) ---- */

#define HZ	1000
unsigned long kshim_jiffies(void);
#define jiffies		kshim_jiffies()
#define msecs_to_jiffies(ms)	((unsigned long)(ms))
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after((b), (a))
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)
#define time_before_eq(a, b)	time_after_eq((b), (a))

/* ns of CLOCK_MONOTONIC and CLOCK_BOOTTIME (linux/timekeeping.h). */
u64 ktime_get_ns(void);
u64 ktime_get_boottime_ns(void);

/* ---- the current task (linux/sched.h): this process ---- */

struct task_struct;
#define current	((struct task_struct *)NULL)
pid_t kshim_getpid(void);
#define task_tgid_nr(task)	((void)(task), kshim_getpid())

/*
 * linux/tick.h: a CPU's idle time.  With @last_update_time, @cpu is a
 * thread's number and its idle time the wall time it did not run (-1 for
 * another thread's); without, @cpu is one of the machine's real CPUs
 * (for_each_online_cpu()) and its idle time /proc/stat's.
 */
u64 get_cpu_idle_time_us(int cpu, u64 *last_update_time);

/* ---- lists (linux/list.h) ---- */

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void kshim_list_add(struct list_head *n, struct list_head *prev,
				  struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	kshim_list_add(n, head, head->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	kshim_list_add(n, head->prev, head);
}

static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = NULL;
	e->prev = NULL;
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	list_add_tail(e, head);
}

static inline int list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (list_empty(list))
		return;
	list->next->prev = head->prev;
	head->prev->next = list->next;
	list->prev->next = head;
	head->prev = list->prev;
	INIT_LIST_HEAD(list);
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) \
	list_entry((ptr)->next, type, member)
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

/* ---- bitmaps (linux/bitmap.h, linux/bitops.h) ---- */

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BITS_TO_LONGS(n)	DIV_ROUND_UP((n), BITS_PER_LONG)

static inline void __set_bit(unsigned long nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned long nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}

static inline int test_bit(unsigned long nr, const unsigned long *map)
{
	return (map[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

unsigned long find_next_bit(const unsigned long *map, unsigned long size,
			    unsigned long offset);
unsigned long find_first_zero_bit(const unsigned long *map,
				  unsigned long size);
unsigned int bitmap_weight(const unsigned long *map, unsigned int nbits);
#define for_each_set_bit(bit, map, size)				\
	for ((bit) = find_next_bit((map), (size), 0); (bit) < (size);	\
	     (bit) = find_next_bit((map), (size), (bit) + 1))

/* ---- waiting (linux/wait.h, linux/wait_bit.h) ---- */

/*
 * The helper's poll() waits on ring->wq; in kring the in-process helper
 * sets @wake to ring its doorbell instead.
 */
typedef struct wait_queue_head {
	void (*wake)(void *arg);
	void *arg;
} wait_queue_head_t;

static inline void init_waitqueue_head(wait_queue_head_t *wq)
{
	(void)wq;	/* ring_init() zeroes the ring; kring sets the hook. */
}

static inline void wake_up_interruptible(wait_queue_head_t *wq)
{
	void (*fn)(void *arg) = READ_ONCE(wq->wake);

	if (fn)
		fn(wq->arg);
}

void kshim_wake_up_var(void *var);
void kshim_wait_var_begin(void *var);
void kshim_wait_var_tick(void *var);
void kshim_wait_var_end(void *var);
#define wake_up_var(var)	kshim_wake_up_var(var)
/* Registered before the first check, as prepare_to_wait() would be. */
#define wait_var_event(var, condition)				\
	do {							\
		kshim_wait_var_begin(var);			\
		while (!(condition))				\
			kshim_wait_var_tick(var);		\
		kshim_wait_var_end(var);			\
	} while (0)

/* ---- delayed work (linux/workqueue.h) ---- */

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	work_func_t func;
};

struct delayed_work {
	struct work_struct work;
	struct delayed_work *next_registered;	/* kshim's list of works */
	unsigned long due;	/* jiffies */
	bool pending;
	bool running;
};

struct workqueue_struct;
#define system_wq	((struct workqueue_struct *)NULL)

void kshim_init_delayed_work(struct delayed_work *dw, work_func_t fn);
bool kshim_mod_delayed_work(struct delayed_work *dw, unsigned long delay);
bool kshim_cancel_delayed_work_sync(struct delayed_work *dw);
#define INIT_DELAYED_WORK(dw, fn)	kshim_init_delayed_work((dw), (fn))
#define mod_delayed_work(wq, dw, delay) \
	((void)(wq), kshim_mod_delayed_work((dw), (delay)))
#define cancel_delayed_work_sync(dw)	kshim_cancel_delayed_work_sync(dw)
#define to_delayed_work(w)	container_of((w), struct delayed_work, work)

/* ---- scatterlists (linux/scatterlist.h) ---- */

struct scatterlist {
	void *buf;
	unsigned int length;
	bool last;
};

int sg_nents(struct scatterlist *sg);

/* sg_miter: one entry at a time (the kernel's maps a page at a time). */
#define SG_MITER_ATOMIC		(1 << 0)
#define SG_MITER_TO_SG		(1 << 1)
#define SG_MITER_FROM_SG	(1 << 2)

struct sg_mapping_iter {
	void *addr;
	size_t length;
	struct scatterlist *sg;	/* kshim's own from here */
	unsigned int left;
	size_t offset;
	bool mapped;
};

void sg_miter_start(struct sg_mapping_iter *miter, struct scatterlist *sgl,
		    unsigned int nents, unsigned int flags);
bool sg_miter_skip(struct sg_mapping_iter *miter, off_t offset);
bool sg_miter_next(struct sg_mapping_iter *miter);
void sg_miter_stop(struct sg_mapping_iter *miter);

/* x86-64: stores that bypass the cache, as arch/x86/lib's; else memcpy. */
void memcpy_flushcache(void *dst, const void *src, size_t cnt);
/* The kernel's x86 wmb() is an sfence: it orders non-temporal stores. */
#ifdef __x86_64__
#define wmb()	__builtin_ia32_sfence()
#else
#define wmb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
size_t sg_pcopy_to_buffer(struct scatterlist *sgl, unsigned int nents,
			  void *buf, size_t buflen, off_t skip);
size_t sg_pcopy_from_buffer(struct scatterlist *sgl, unsigned int nents,
			    const void *buf, size_t buflen, off_t skip);

/* ---- crypto constants (crypto/aes.h, crypto/gcm.h, linux/crypto.h) ---- */

#define AES_BLOCK_SIZE			16
#define AES_MIN_KEY_SIZE		16
#define AES_MAX_KEY_SIZE		32
#define GCM_AES_IV_SIZE			12
#define CRYPTO_MAX_ALG_NAME		128
/* linux/module.h: nothing to load here. */
#define MODULE_ALIAS_CRYPTO(name)
#define CRYPTO_TFM_REQ_MAY_SLEEP	0x00000200
#define CRYPTO_TFM_REQ_MAY_BACKLOG	0x00000400

/* ---- sysfs (linux/sysfs.h): the files are kmod's; the text is shared ---- */

struct attribute_group;

__attribute__((format(printf, 2, 3)))
int sysfs_emit(char *buf, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
int sysfs_emit_at(char *buf, int at, const char *fmt, ...);

/* ---- kshim's own: start and stop its worker thread ---- */

/* Sets up per-CPU copies and starts the delayed-work thread.  0 or -errno. */
int kshim_start(void);
/* Stops the thread; every work must be idle (cancelled or never queued). */
void kshim_stop(void);
/* Gives the calling thread CPU number @cpu (< KSHIM_NR_CPUS / 2). */
void kshim_set_cpu(int cpu);
/*
 * CPU time of every thread that called kshim_set_cpu(), live or gone, and
 * of those that called kshim_add_consumer().
 */
uint64_t kshim_chosen_cpu_ns(void);
/* The calling thread is a consumer that submits nothing.  0 or -errno. */
int kshim_add_consumer(void);

#endif /* GPU_AES_KSHIM_H */
