// SPDX-License-Identifier: GPL-2.0-only
/*
 * secret.c - memory for key material, kept out of core dumps (secret.h).
 *
 * The OpenSSL arena: blocks of power-of-two sizes (16 B .. 64 KiB, each
 * after a 16-byte header that names its class) carved from slabs that are
 * gpu_aes_secret_alloc() mappings, with one free list per class.  A
 * context and its provider data are a few hundred bytes to a few KiB
 * (AES-XTS holds two schedules, GCM its GHASH table), made once per key
 * and context kind, so one lock is no cost; what matters is that free()
 * can tell an arena block from a libc one without a lock, which the slab
 * table gives (slabs are only ever added).  Slabs are never unmapped: the
 * arena lives as long as OpenSSL's own objects, which may be allocated in
 * it (a cipher fetched for the first time inside a secret section).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "secret.h"

#define HDR_SIZE	16U
#define MIN_SHIFT	4U		/* 16-byte blocks */
#define NR_CLASSES	13U		/* up to 16 << 12 = 64 KiB */
#define SLAB_FIRST	(1UL << 20)
#define SLAB_MAX_DOUBLINGS 10U		/* slabs of at most 1 GiB */
#define MAX_SLABS	32U
#define BLOCK_MAGIC	0x5ec7e7b1U

struct block_hdr {
	uint32_t magic;
	uint32_t cls;
	uint64_t reserved;	/* keeps the user part 16-byte aligned */
};

_Static_assert(sizeof(struct block_hdr) == HDR_SIZE, "header size");

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint8_t *base;
	size_t size;
} slabs[MAX_SLABS];
static unsigned int nr_slabs;		/* atomic: slabs[] below it are set */
static size_t slab_used;		/* bytes carved from the newest slab */
static void *free_list[NR_CLASSES];	/* user pointers, linked through */
static size_t arena_used;
static _Thread_local unsigned int secret_depth;

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

static size_t round_pages(size_t len)
{
	size_t p = page_size();

	return (len + p - 1) / p * p;
}

int gpu_aes_secret_exclude(void *addr, size_t len)
{
	return madvise(addr, round_pages(len), MADV_DONTDUMP) ? -errno : 0;
}

void *gpu_aes_secret_alloc(size_t len)
{
	size_t size = round_pages(len ? len : 1);
	void *p;
	int err;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	err = gpu_aes_secret_exclude(p, size);
	if (err) {
		munmap(p, size);
		errno = -err;
		return NULL;
	}
	return p;
}

void gpu_aes_secret_free(void *p, size_t len)
{
	size_t size = round_pages(len ? len : 1);

	if (!p)
		return;
	explicit_bzero(p, size);
	munmap(p, size);
}

void gpu_aes_secret_copy(void *dst, const void *src, size_t n)
{
	volatile uint8_t *d = dst;
	const volatile uint8_t *s = src;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = s[i];
}

bool gpu_aes_secret_equal(const void *a, const void *b, size_t n)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t diff = 0;
	size_t i;

	for (i = 0; i < n; i++)
		diff |= x[i] ^ y[i];
	return !diff;
}

bool gpu_aes_secret_owns(const void *p)
{
	unsigned int i, n = __atomic_load_n(&nr_slabs, __ATOMIC_ACQUIRE);
	uintptr_t a = (uintptr_t)p;

	for (i = 0; i < n; i++)
		if (a >= (uintptr_t)slabs[i].base &&
		    a < (uintptr_t)slabs[i].base + slabs[i].size)
			return true;
	return false;
}

size_t gpu_aes_secret_arena_used(void)
{
	size_t used;

	pthread_mutex_lock(&arena_lock);
	used = arena_used;
	pthread_mutex_unlock(&arena_lock);
	return used;
}

static size_t class_size(unsigned int cls)
{
	return (size_t)1 << (MIN_SHIFT + cls);
}

/* A block of at least n bytes, or NULL.  Called with arena_lock held. */
static void *arena_alloc_locked(size_t n)
{
	unsigned int cls = 0, cur = nr_slabs;
	struct block_hdr *h;
	size_t bsize;

	while (cls < NR_CLASSES && class_size(cls) < n)
		cls++;
	if (cls == NR_CLASSES)
		return NULL;
	if (free_list[cls]) {
		void *p = free_list[cls];

		memcpy(&free_list[cls], p, sizeof(void *));
		memset(p, 0, sizeof(void *));
		arena_used += class_size(cls);
		return p;
	}
	bsize = HDR_SIZE + class_size(cls);
	if (!cur || slab_used + bsize > slabs[cur - 1].size) {
		size_t size = SLAB_FIRST << (cur < SLAB_MAX_DOUBLINGS ? cur :
					     SLAB_MAX_DOUBLINGS);
		uint8_t *base;

		if (cur == MAX_SLABS)
			return NULL;
		base = gpu_aes_secret_alloc(size);
		if (!base)
			return NULL;
		slabs[cur].base = base;
		slabs[cur].size = size;
		__atomic_store_n(&nr_slabs, cur + 1, __ATOMIC_RELEASE);
		slab_used = 0;
		cur++;
	}
	h = (struct block_hdr *)(void *)(slabs[cur - 1].base + slab_used);
	slab_used += bsize;
	h->magic = BLOCK_MAGIC;
	h->cls = cls;
	arena_used += class_size(cls);
	return h + 1;
}

static struct block_hdr *hdr_of(void *p)
{
	struct block_hdr *h = (struct block_hdr *)p - 1;

	/* Only OpenSSL hands us pointers: a bad one is a bug, not input. */
	if (h->magic != BLOCK_MAGIC || h->cls >= NR_CLASSES)
		abort();
	return h;
}

static void arena_free(void *p)
{
	struct block_hdr *h = hdr_of(p);

	pthread_mutex_lock(&arena_lock);
	explicit_bzero(p, class_size(h->cls));
	memcpy(p, &free_list[h->cls], sizeof(void *));
	free_list[h->cls] = p;
	arena_used -= class_size(h->cls);
	pthread_mutex_unlock(&arena_lock);
}

static void *arena_alloc(size_t n)
{
	void *p;

	pthread_mutex_lock(&arena_lock);
	p = arena_alloc_locked(n);
	pthread_mutex_unlock(&arena_lock);
	if (!p)
		errno = ENOMEM;
	return p;
}

/* OpenSSL's malloc() returns NULL for 0 bytes, and so do these. */
static void *secret_malloc(size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	if (!n)
		return NULL;
	return secret_depth ? arena_alloc(n) : malloc(n);
}

/* An arena block stays in the arena: it held a secret. */
static void *secret_realloc(void *p, size_t n, const char *file, int line)
{
	size_t have;
	void *q;

	(void)file;
	(void)line;
	if (!p)
		return secret_malloc(n, file, line);
	if (!gpu_aes_secret_owns(p)) {
		if (!n) {
			free(p);
			return NULL;
		}
		return realloc(p, n);
	}
	if (!n) {
		arena_free(p);
		return NULL;
	}
	have = class_size(hdr_of(p)->cls);
	if (n <= have)
		return p;
	q = arena_alloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, have);
	arena_free(p);
	return q;
}

static void secret_free_fn(void *p, const char *file, int line)
{
	(void)file;
	(void)line;
	if (gpu_aes_secret_owns(p))
		arena_free(p);
	else
		free(p);
}

int gpu_aes_secret_openssl_init(void)
{
	return CRYPTO_set_mem_functions(secret_malloc, secret_realloc,
					secret_free_fn) ? 0 : -EBUSY;
}

void gpu_aes_secret_begin(void)
{
	secret_depth++;
}

void gpu_aes_secret_end(void)
{
	secret_depth--;
}
