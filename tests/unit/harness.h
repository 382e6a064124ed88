/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness.h - a tiny test harness: TEST() registers a function, CHECK*()
 * record a failure and leave the test.  The runner prints one line per
 * test and a final "N passed, M failed" (CI reads it).
 */
#ifndef GPU_AES_TEST_HARNESS_H
#define GPU_AES_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

void t_register(const char *name, void (*fn)(void));
void t_fail(const char *file, int line, const char *what);
void t_failf(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define TEST(fn)							\
	static void fn(void);						\
	__attribute__((constructor)) static void reg_##fn(void)	\
	{								\
		t_register(#fn, fn);					\
	}								\
	static void fn(void)

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			t_fail(__FILE__, __LINE__, #cond);		\
			return;						\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long a_ = (long long)(a), b_ = (long long)(b);	\
		if (a_ != b_) {						\
			t_failf(__FILE__, __LINE__, "%s == %s: %lld != %lld", \
				#a, #b, a_, b_);			\
			return;						\
		}							\
	} while (0)

#define CHECK_MEM(a, b, n)						\
	do {								\
		if (t_memdiff((a), (b), (n)) >= 0) {			\
			t_failf(__FILE__, __LINE__,			\
				"%s != %s: first difference at byte %zd of %zu", \
				#a, #b, t_memdiff((a), (b), (n)), (size_t)(n)); \
			return;						\
		}							\
	} while (0)

/*
 * fn runs after every test, passed or failed: a CHECK returns from the
 * test at once, so whatever the test would have torn down at its end is
 * torn down here instead (fn says whether it had anything left to do).
 */
void t_after_each(int (*fn)(void));

/* -1 when equal, else the index of the first differing byte. */
ssize_t t_memdiff(const void *a, const void *b, size_t n);

/* Hex string to bytes; returns the byte count. */
size_t t_unhex(const char *hex, uint8_t *out, size_t max);

/* Deterministic pseudo-random bytes (xorshift), seeded per test. */
void t_rand_seed(uint64_t seed);
uint64_t t_rand(void);
void t_rand_bytes(void *buf, size_t n);

#endif /* GPU_AES_TEST_HARNESS_H */
