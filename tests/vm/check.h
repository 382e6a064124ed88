/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check.h - TAP-like result lines for the guest test programs.  Flushed
 * at once, so a line is on the console even if the next step hangs.
 */
#ifndef VMT_CHECK_H
#define VMT_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int nfail;

static void check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	nfail += !ok;
}

#endif
