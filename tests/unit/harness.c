// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "harness.h"
#include "log.h"
#include "secret.h"

#define MAX_TESTS 128

static struct {
	const char *name;
	void (*fn)(void);
} tests[MAX_TESTS];
static int nr_tests;
static int failed_now;
static int (*after_each[4])(void);
static int nr_after_each;

void t_register(const char *name, void (*fn)(void))
{
	if (nr_tests == MAX_TESTS) {
		fprintf(stderr, "too many tests\n");
		exit(2);
	}
	tests[nr_tests].name = name;
	tests[nr_tests++].fn = fn;
}

void t_after_each(int (*fn)(void))
{
	if (nr_after_each == (int)(sizeof(after_each) / sizeof(after_each[0]))) {
		fprintf(stderr, "too many t_after_each hooks\n");
		exit(2);
	}
	after_each[nr_after_each++] = fn;
}

/*
 * A test that returns with something still set up fails: it would have
 * leaked into the next test (a ring still attached makes every later
 * start fail with EBUSY) and hidden which test was at fault.
 */
static void tear_down(void)
{
	int i;

	for (i = 0; i < nr_after_each; i++)
		if (after_each[i]() && !failed_now)
			t_fail(__FILE__, __LINE__,
			       "the test left its fixture set up");
}

void t_fail(const char *file, int line, const char *what)
{
	failed_now = 1;
	printf("  %s:%d: check failed: %s\n", file, line, what);
}

void t_failf(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	failed_now = 1;
	printf("  %s:%d: check failed: ", file, line);
	va_start(ap, fmt);
	/* clang-analyzer 14 misreads va_start on x86-64's va_list. */
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

ssize_t t_memdiff(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	for (i = 0; i < n; i++)
		if (x[i] != y[i])
			return (ssize_t)i;
	return -1;
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t t_unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (n < max && nibble(hex[0]) >= 0 && nibble(hex[1]) >= 0) {
		out[n++] = (uint8_t)(nibble(hex[0]) << 4 | nibble(hex[1]));
		hex += 2;
	}
	return n;
}

static uint64_t rand_state = 1;

void t_rand_seed(uint64_t seed)
{
	rand_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t t_rand(void)
{
	uint64_t x = rand_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rand_state = x;
	return x;
}

void t_rand_bytes(void *buf, size_t n)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(t_rand() >> 24);
}

int main(int argc, char **argv)
{
	int i, passed = 0, failed = 0;

	/* As the helper does: OpenSSL's key contexts in secret memory. */
	if (gpu_aes_secret_openssl_init()) {
		fprintf(stderr, "OpenSSL allocated before main()\n");
		return 2;
	}
	/* Tests expect errors on purpose; keep their output readable. */
	gpu_aes_log_level = LOG_CRIT;
	for (i = 0; i < nr_tests; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		failed_now = 0;
		t_rand_seed((uint64_t)i * 7919 + 1);
		tests[i].fn();
		tear_down();
		printf("%s %s\n", failed_now ? "FAIL" : "ok  ", tests[i].name);
		fflush(stdout);
		if (failed_now)
			failed++;
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
