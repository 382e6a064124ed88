// SPDX-License-Identifier: GPL-2.0-only
/*
 * afalg-speed - the running kernel's own AES drivers, timed through AF_ALG
 * on one thread: the CPU cost of each per request and per byte, so a
 * template the crypto API builds (xts(ecb(aes-aesni))) can be put beside
 * the driver it stands in for (xts-aes-vaes-avx512) on real hardware.
 *
 *   afalg-speed [options] NAME...
 *
 * NAME is a crypto API name or driver name; skcipher unless --aead.  Each
 * NAME is timed at every --sizes size: one request at a time (sendmsg of
 * the operation, IV and input, then read of the output), for --seconds.
 * Prints one line per NAME and size: requests/s, GB/s, and the thread's
 * CPU time (user + system) per request and per GB.  A syscall pair and
 * two copies are in every figure; time ecb(cipher_null) (crypto_null,
 * --klen 0 --ivlen 0) beside the others for that part alone.
 *
 * options:
 *   --aead          the names are AEADs (gcm: 12-byte IV, --aad bytes of
 *                   associated data, 16-byte tag)
 *   --klen K        key bytes (default 16; xts: 32 for AES-128; 0: no
 *                   key, for ecb(cipher_null))
 *   --ivlen I       IV bytes (default 16, 12 with --aead, 0 for none)
 *   --aad A         associated data bytes per AEAD request (default 16)
 *   --sizes A,B,..  text bytes per request (default 4096,65536; at most
 *                   65536, AF_ALG's 16 pages)
 *   --seconds S     time per point (default 1)
 *   --repeat N      rounds over all points, the median kept (default 3)
 * Exit status 1 if a NAME could not be bound or a request failed (the
 * line says which and errno).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <linux/if_alg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define MAX_SIZES	8
#define MAX_LEN		65536U
#define MAX_REPEAT	15
#define TAG_LEN		16U

struct opts {
	int aead;
	unsigned int klen, ivlen, aad, nsizes, repeat;
	unsigned int sizes[MAX_SIZES];
	double seconds;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double thread_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* An op socket of NAME, keyed: >= 0, or -errno. */
static int bind_op(const struct opts *o, const char *name)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	uint8_t key[64];
	int tfm, op, err;

	strcpy((char *)sa.salg_type, o->aead ? "aead" : "skcipher");
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	for (unsigned int i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 7 + 1);
	tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (tfm < 0)
		return -errno;
	if (bind(tfm, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (o->klen && setsockopt(tfm, SOL_ALG, ALG_SET_KEY, key,
				   o->klen) < 0) ||
	    (o->aead && setsockopt(tfm, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL,
				   TAG_LEN) < 0)) {
		err = -errno;
		close(tfm);
		return err;
	}
	op = accept(tfm, NULL, 0);
	err = op < 0 ? -errno : 0;
	close(tfm);
	return err ? err : op;
}

/* One encryption of @len bytes: 0 or -errno (-EIO: a short read). */
static int one(const struct opts *o, int op, uint8_t *in, uint8_t *out,
	       unsigned int len)
{
	char cbuf[CMSG_SPACE(4) + CMSG_SPACE(sizeof(struct af_alg_iv) + 16) +
		  CMSG_SPACE(4)] = { 0 };
	unsigned int total = (o->aead ? o->aad : 0) + len;
	unsigned int want = total + (o->aead ? TAG_LEN : 0);
	struct iovec iov = { .iov_base = in, .iov_len = total };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct af_alg_iv *iv;
	struct cmsghdr *c;
	ssize_t n;

	msg.msg_control = cbuf;
	msg.msg_controllen = CMSG_SPACE(4) +
			     (o->ivlen ? CMSG_SPACE(sizeof(*iv) + o->ivlen) : 0) +
			     (o->aead ? CMSG_SPACE(4) : 0);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(4);
	*(uint32_t *)(void *)CMSG_DATA(c) = ALG_OP_ENCRYPT;
	if (o->ivlen) {
		c = CMSG_NXTHDR(&msg, c);
		c->cmsg_level = SOL_ALG;
		c->cmsg_type = ALG_SET_IV;
		c->cmsg_len = CMSG_LEN(sizeof(*iv) + o->ivlen);
		iv = (struct af_alg_iv *)(void *)CMSG_DATA(c);
		iv->ivlen = o->ivlen;
		memset(iv->iv, 0x5c, o->ivlen);
	}
	if (o->aead) {
		c = CMSG_NXTHDR(&msg, c);
		c->cmsg_level = SOL_ALG;
		c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
		c->cmsg_len = CMSG_LEN(4);
		*(uint32_t *)(void *)CMSG_DATA(c) = o->aad;
	}
	if (sendmsg(op, &msg, 0) != (ssize_t)total)
		return errno ? -errno : -EIO;
	n = read(op, out, want);
	if (n < 0)
		return -errno;
	return n == (ssize_t)want ? 0 : -EIO;
}

struct point {
	double rps, cpu_us;
};

static int time_point(const struct opts *o, int op, uint8_t *in, uint8_t *out,
		      unsigned int len, struct point *p)
{
	double t0, t1, c0, end;
	uint64_t n = 0;
	int err = 0;

	for (int i = 0; i < 100 && !err; i++)	/* settle */
		err = one(o, op, in, out, len);
	c0 = thread_cpu_s();
	t0 = now_s();
	end = t0 + o->seconds;
	do {
		for (int i = 0; i < 64 && !err; i++)
			err = one(o, op, in, out, len);
		n += 64;
		t1 = now_s();
	} while (!err && t1 < end);
	p->rps = (double)n / (t1 - t0);
	p->cpu_us = (thread_cpu_s() - c0) / (double)n * 1e6;
	return err;
}

static int cmp_point(const void *a, const void *b)
{
	double x = ((const struct point *)a)->rps;
	double y = ((const struct point *)b)->rps;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: afalg-speed [--aead] [--klen K] [--ivlen I] [--aad A]\n"
		   "                   [--sizes A,B,...] [--seconds S] [--repeat N] NAME...\n"
		   "(the source's head says what each line means)\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "aead", no_argument, NULL, 'a' },
		{ "klen", required_argument, NULL, 'k' },
		{ "ivlen", required_argument, NULL, 'i' },
		{ "aad", required_argument, NULL, 'A' },
		{ "sizes", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ivlen = -1, c;
	char *s, *tok, *end;

	*o = (struct opts){ .klen = 16, .aad = 16, .seconds = 1, .repeat = 3,
			    .nsizes = 2, .sizes = { 4096, 65536 } };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'a': o->aead = 1; break;
		case 'k': o->klen = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'i': ivlen = (int)strtol(optarg, NULL, 0); break;
		case 'A': o->aad = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': o->seconds = strtod(optarg, NULL); break;
		case 'r': o->repeat = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 's':
			o->nsizes = 0;
			s = optarg;
			while ((tok = strsep(&s, ",")) && o->nsizes < MAX_SIZES) {
				unsigned long v = strtoul(tok, &end, 0);

				if (*end || !v || v > MAX_LEN) {
					fprintf(stderr, "afalg-speed: --sizes: '%s' is not 1..%u\n",
						tok, MAX_LEN);
					return -1;
				}
				o->sizes[o->nsizes++] = (unsigned int)v;
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	o->ivlen = ivlen >= 0 ? (unsigned int)ivlen : o->aead ? 12 : 16;
	if (o->klen > 64 || o->ivlen > 16 || o->aad > 256 ||
	    !o->nsizes || o->seconds <= 0 || !o->repeat ||
	    o->repeat > MAX_REPEAT || optind == argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct point pts[MAX_SIZES][MAX_REPEAT];
	uint8_t *in, *out;
	struct opts o;
	int rc = 0;

	if (parse(argc, argv, &o))
		return 2;
	in = calloc(1, MAX_LEN + 512);
	out = calloc(1, MAX_LEN + 512);
	if (!in || !out)
		return 2;
	memset(in, 0xa5, MAX_LEN + 512);
	printf("%-44s %7s %10s %8s %10s %8s\n", "name", "bytes", "req/s",
	       "GB/s", "cpu us/req", "cpu s/GB");
	for (int a = optind; a < argc; a++) {
		int op = bind_op(&o, argv[a]), err = 0;

		if (op < 0) {
			printf("%-44s cannot bind: %s\n", argv[a], strerror(-op));
			rc = 1;
			continue;
		}
		for (unsigned int r = 0; r < o.repeat && !err; r++)
			for (unsigned int k = 0; k < o.nsizes && !err; k++)
				err = time_point(&o, op, in, out, o.sizes[k],
						 &pts[k][r]);
		close(op);
		if (err) {
			printf("%-44s request failed: %s\n", argv[a], strerror(-err));
			rc = 1;
			continue;
		}
		for (unsigned int k = 0; k < o.nsizes; k++) {
			struct point *m = &pts[k][o.repeat / 2];
			double gbps;

			qsort(pts[k], o.repeat, sizeof(pts[k][0]), cmp_point);
			gbps = m->rps * o.sizes[k] / 1e9;
			printf("%-44s %7u %10.0f %8.2f %10.2f %8.3f\n", argv[a],
			       o.sizes[k], m->rps, gbps, m->cpu_us,
			       m->cpu_us * 1e3 / o.sizes[k]);
		}
		fflush(stdout);
	}
	free(in);
	free(out);
	return rc;
}
