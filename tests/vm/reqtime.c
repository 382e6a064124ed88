// SPDX-License-Identifier: GPL-2.0-only
/*
 * reqtime - how long each of N requests takes, one after the other:
 * AF_ALG ctr(aes) requests on one tfm, each checked against
 * ctr(aes-generic), or O_DIRECT writes of a block device (a dm-crypt
 * mapping), each read back and compared.
 *
 *   reqtime [--cpu C] [--len LEN] [--seed S] [--dev DEV] [--seconds T] N
 *
 * Pinned to CPU C when given.  With --seconds, requests (writes) go on
 * past N until T seconds have passed (up to 100000 in all).  With --dev, N writes of LEN bytes (a
 * multiple of 4096) go to successive offsets of DEV, wrapping at its end,
 * and the last N * LEN bytes (at most the device) are read back and
 * checked; a write and a read are each timed.  Prints "ok"/"not ok" for
 * the bytes, then "stat n=N p50_ms=A p99_ms=B max_ms=M", and exits 1 on a
 * mismatch or an error.  AF_ALG's synchronous reads and dm-crypt set
 * CRYPTO_TFM_REQ_MAY_BACKLOG, so these requests may be backlogged: the
 * times show whether one waited.
 */
#define _GNU_SOURCE	/* sched_setaffinity, CPU_SET, O_DIRECT */
#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <time.h>

#include "alg.h"
#include "check.h"

#define MAX_LEN	(1U << 16)
#define MAX_N	100000U

static uint8_t in[MAX_LEN], out[MAX_LEN], want[MAX_LEN];
static double ms[2 * MAX_N];
/* O_DIRECT: block-aligned buffers. */
static uint8_t blk[2][MAX_LEN] __attribute__((aligned(4096)));

static unsigned int number(const char *s, unsigned int min, unsigned int max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < min || v > max) {
		fprintf(stderr, "reqtime: bad number '%s' (%u..%u)\n", s, min, max);
		exit(2);
	}
	return (unsigned int)v;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * @n writes of @len bytes, then the reads of what the last of them left;
 * the times of both into ms[].  Returns how many went wrong, or -1.
 */
static int block_run(const char *dev, unsigned int len, unsigned int n,
		     unsigned int seconds, uint64_t *seed, unsigned int *timed)
{
	double end = now_ms() + seconds * 1e3;
	unsigned long long size, slots, i, first;
	unsigned int bad = 0, t = 0;
	uint64_t s0 = *seed;
	int fd = open(dev, O_RDWR | O_DIRECT);
	double t0;

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size)) {
		fprintf(stderr, "reqtime: %s: %s\n", dev, strerror(errno));
		return -1;
	}
	slots = size / len;
	if (!slots || len % 4096) {
		fprintf(stderr, "reqtime: %s: %llu bytes, requests of %u\n", dev,
			size, len);
		return -1;
	}
	for (i = 0; i < n || (i < MAX_N && now_ms() < end); i++) {
		rnd_fill(seed, blk[0], len);
		t0 = now_ms();
		if (pwrite(fd, blk[0], len, (off_t)(i % slots) * len) != len) {
			printf("  write %llu: %s\n", i, strerror(errno));
			bad++;
		}
		ms[t++] = now_ms() - t0;
	}
	/* Replay the data stream; only the writes still on the device. */
	n = (unsigned int)i;
	first = n > slots ? n - slots : 0;
	for (i = 0; i < n; i++) {
		rnd_fill(&s0, blk[0], len);
		if (i < first)
			continue;
		t0 = now_ms();
		if (pread(fd, blk[1], len, (off_t)(i % slots) * len) != len) {
			printf("  read %llu: %s\n", i, strerror(errno));
			bad++;
		} else if (memcmp(blk[0], blk[1], len)) {
			printf("  block %llu reads back other bytes\n", i % slots);
			bad++;
		}
		ms[t++] = now_ms() - t0;
	}
	close(fd);
	*timed = t;
	return (int)bad;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned int len = 16384, n, i, bad = 0, timed, seconds = 0;
	const char *dev = NULL;
	uint8_t key[16], iv[16];
	uint64_t seed = 1;
	int cpu = -1, tfm, ref, err;
	cpu_set_t set;
	double t0, end;

	while (argc > 2 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--cpu"))
			cpu = (int)number(argv[2], 0, 1023);
		else if (!strcmp(argv[1], "--len"))
			len = number(argv[2], 1, MAX_LEN);
		else if (!strcmp(argv[1], "--seed"))
			seed = number(argv[2], 1, ~0U);
		else if (!strcmp(argv[1], "--dev"))
			dev = argv[2];
		else if (!strcmp(argv[1], "--seconds"))
			seconds = number(argv[2], 0, 3600);
		else
			break;
		argc -= 2;
		argv += 2;
	}
	if (argc != 2) {
		fprintf(stderr,
			"usage: reqtime [--cpu C] [--len LEN] [--seed S] [--dev DEV]\n"
			"               [--seconds T] N\n");
		return 2;
	}
	n = number(argv[1], 1, MAX_N);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("reqtime: pinning to the CPU");
			return 1;
		}
	}
	if (dev) {
		err = block_run(dev, len, n, seconds, &seed, &timed);
		if (err < 0)
			return 1;
		check(!err, "O_DIRECT writes of %u bytes to %s read back intact",
		      len, dev);
		bad = (unsigned int)err;
	} else {
		rnd_fill(&seed, key, sizeof(key));
		tfm = alg_tfm("ctr(aes)", key, sizeof(key));
		ref = alg_tfm("ctr(aes-generic)", key, sizeof(key));
		if (tfm < 0 || ref < 0) {
			fprintf(stderr, "reqtime: AF_ALG ctr(aes): %s\n",
				strerror(tfm < 0 ? -tfm : -ref));
			return 1;
		}
		end = now_ms() + seconds * 1e3;
		for (i = 0; i < n || (i < MAX_N && now_ms() < end); i++) {
			rnd_fill(&seed, iv, sizeof(iv));
			rnd_fill(&seed, in, len);
			t0 = now_ms();
			err = alg_op(tfm, 1, iv, in, out, len);
			ms[i] = now_ms() - t0;
			if (!err)
				err = alg_op(ref, 1, iv, in, want, len);
			if (err) {
				printf("  request %u: %s\n", i, strerror(-err));
				bad++;
			} else if (memcmp(out, want, len)) {
				printf("  request %u: output differs from ctr(aes-generic)\n",
				       i);
				bad++;
			}
		}
		timed = i;
		check(!bad, "%u ctr(aes) requests of %u bytes match ctr(aes-generic)",
		      i, len);
		close(tfm);
		close(ref);
	}
	qsort(ms, timed, sizeof(ms[0]), cmp);
	printf("stat n=%u p50_ms=%.1f p99_ms=%.1f max_ms=%.1f\n", timed,
	       ms[timed / 2], ms[timed - 1 - timed / 100], ms[timed - 1]);
	return bad ? 1 : 0;
}
