// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int gpu_aes_log_level = LOG_INFO;

void gpu_aes_log(int prio, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (prio > gpu_aes_log_level)
		return;
	/*
	 * Format the whole line first and write it with one call, so lines
	 * from the core thread and a backend thread never interleave.
	 */
	n = snprintf(line, sizeof(line), "<%d>", prio);
	va_start(ap, fmt);
	/*
	 * clang-analyzer 14 misreads va_start on x86-64's array-typed
	 * va_list and reports it uninitialized here.
	 */
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
}
