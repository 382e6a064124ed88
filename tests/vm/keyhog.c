// SPDX-License-Identifier: GPL-2.0-only
/*
 * keyhog - an unprivileged user trying to deny gpu_aes's key table to
 * everyone else: as uid/gid 65534 with its soft RLIMIT_NOFILE raised to the
 * hard limit, it opens up to TFMS AF_ALG tfms of ALG (as many as it can),
 * sends one LEN-byte request through each so each takes a key slot, then,
 * until SECONDS have passed, keeps sending requests through all of them in
 * turn (so no slot of theirs goes idle) and, between each two, one through
 * an extra tfm (the one left without a slot).
 *
 *   keyhog [--tfms N] [--alg NAME] [--len L] SECONDS READYFILE
 *
 * READYFILE is written ("tfms=N") once every tfm has had its first request;
 * the last line on stdout is "stat tfms=N requests=R errors=E".  Exit status
 * 0 unless it could not drop privileges or open a single tfm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <time.h>

#include "alg.h"

#define MAX_TFMS	8191

static int tfms[MAX_TFMS + 1];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static uint8_t in[65536], out[65536];
	const char *alg = "ecb(aes)";
	unsigned long want = MAX_TFMS, len = 4096, requests = 0, errors = 0;
	uint64_t seed = 0x1f2e3d4c5b6a7988ULL;
	struct rlimit rl;
	uint8_t key[16];
	double end;
	unsigned long n = 0, i;
	int argi = 1, fd;
	FILE *f;

	while (argi + 1 < argc && argv[argi][0] == '-') {
		if (!strcmp(argv[argi], "--tfms"))
			want = strtoul(argv[argi + 1], NULL, 0);
		else if (!strcmp(argv[argi], "--alg"))
			alg = argv[argi + 1];
		else if (!strcmp(argv[argi], "--len"))
			len = strtoul(argv[argi + 1], NULL, 0);
		else
			break;
		argi += 2;
	}
	if (argc - argi != 2 || want < 1 || want > MAX_TFMS || !len ||
	    len > sizeof(in)) {
		fprintf(stderr, "usage: keyhog [--tfms N] [--alg NAME] [--len L] SECONDS READYFILE\n");
		return 2;
	}
	end = now_s() + atof(argv[argi]);
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		perror("keyhog: dropping to uid 65534");
		return 1;
	}
	/* What any user may do: raise the soft limit to the hard one. */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	rnd_fill(&seed, in, sizeof(in));
	for (n = 0; n <= want; n++) {
		rnd_fill(&seed, key, sizeof(key));
		fd = alg_tfm(alg, key, sizeof(key));
		if (fd < 0)
			break;
		tfms[n] = fd;
		/* The extra one (index want) stays without a request for now. */
		if (n < want) {
			if (alg_op(fd, 1, NULL, in, out, len))
				errors++;
			requests++;
		}
	}
	if (n < 2) {
		fprintf(stderr, "keyhog: cannot open two %s tfms\n", alg);
		return 1;
	}
	/*
	 * n tfms: the cycle is the first n - 1, the extra one the last (out
	 * of descriptors before the extra one: the last one opened is it).
	 */
	n--;
	f = fopen(argv[argi + 1], "w");
	if (f) {
		fprintf(f, "tfms=%lu\n", n);
		fclose(f);
	}
	for (i = 0; now_s() < end; i = (i + 1) % n) {
		if (alg_op(tfms[i], 1, NULL, in, out, len))
			errors++;
		if (alg_op(tfms[n], 1, NULL, in, out, len))
			errors++;
		requests += 2;
	}
	printf("stat tfms=%lu requests=%lu errors=%lu\n", n, requests, errors);
	return 0;
}
