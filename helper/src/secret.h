/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * secret.h - memory for key material, kept out of core dumps.
 *
 * Everything the helper holds that a key can be read from lives in
 * mappings marked MADV_DONTDUMP: the shared region (its key table and the
 * data it serves), the backends' key copies (gpu_aes_secret_alloc()) and
 * the OpenSSL contexts made from them.  OpenSSL allocates a context, and
 * the provider's copy that holds the expanded key schedule, with its own
 * malloc (OPENSSL_zalloc, not the secure heap), so the helper installs
 * allocation functions (gpu_aes_secret_openssl_init()) that serve a
 * thread's OpenSSL allocations from a MADV_DONTDUMP arena while it is
 * between gpu_aes_secret_begin() and gpu_aes_secret_end(), and every other
 * allocation from libc.  Secret memory is wiped when freed.
 *
 * C, usable from the cuda backend's C++.
 */
#ifndef GPU_AES_HELPER_SECRET_H
#define GPU_AES_HELPER_SECRET_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Marks the pages of [addr, addr + len) (addr page-aligned) so that a
 * core dump leaves them out.  0 or -errno.
 */
int gpu_aes_secret_exclude(void *addr, size_t len);

/*
 * len bytes (rounded up to pages) of zeroed memory that core dumps leave
 * out, or NULL (errno set).  Free with gpu_aes_secret_free() and the same
 * len.
 */
void *gpu_aes_secret_alloc(size_t len);

/* Wipes and unmaps what gpu_aes_secret_alloc() returned; NULL is a no-op. */
void gpu_aes_secret_free(void *p, size_t len);

/*
 * Installs the allocation functions above into OpenSSL.  Must run before
 * OpenSSL allocates anything (first in main()): 0, or -EBUSY when it is
 * too late (the arena is then never used).
 */
int gpu_aes_secret_openssl_init(void);

/*
 * Between these, this thread's OpenSSL allocations come from the arena.
 * Around every call that gives OpenSSL a key (a context's init) and the
 * allocation of the context itself.  They nest.
 */
void gpu_aes_secret_begin(void);
void gpu_aes_secret_end(void);

/*
 * Copy and compare (in constant time) key bytes one at a time through
 * general registers.  libc's memcpy and memcmp move them through vector
 * registers, where the next lazy symbol binding (_dl_runtime_resolve saves
 * every vector register on the stack), signal or context switch can leave
 * a copy on a stack that a core dump holds.  OpenSSL's AES-NI code clears
 * the vector registers it used.
 */
void gpu_aes_secret_copy(void *dst, const void *src, size_t n);
bool gpu_aes_secret_equal(const void *a, const void *b, size_t n);

/* Whether p lies in the arena (for tests). */
bool gpu_aes_secret_owns(const void *p);

/* Bytes of arena blocks in use (for tests). */
size_t gpu_aes_secret_arena_used(void);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_HELPER_SECRET_H */
