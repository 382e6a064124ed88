// SPDX-License-Identifier: GPL-2.0-only
/*
 * alg_input - bad and odd input from an AF_ALG consumer of ctr-aes-gpu and
 * ecb-aes-gpu; every byte that comes back is compared with aes-generic.
 *
 *   alg_input basic    key lengths, ECB lengths, zero-length requests,
 *                      IV-less CTR calls, scatterlists with zero-length
 *                      and split pieces (sendmsg, vmsplice + splice, readv)
 *   alg_input large N  one N-byte CTR request (socket buffers raised so
 *                      AF_ALG does not split it); prints how it was routed
 *
 * Prints "ok ..." / "not ok ..." per check and "stat ..." lines; exits 1 if
 * a check failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "alg.h"
#include "check.h"

/* Requests the driver saw, on either path. */
static long routed(void)
{
	return stat_read("ring_requests") + stat_read("fallback_requests");
}

static const uint8_t key[32] = {
	0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae,
	0xf0, 0x85, 0x7d, 0x77, 0x81, 0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61,
	0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4,
};

static void keylens(void)
{
	static const size_t bad[] = { 0, 1, 8, 15, 17, 20, 23, 25, 31, 33, 48, 64 };
	static const char *const drv[] = { "ctr-aes-gpu", "ecb-aes-gpu" };
	uint8_t k[64] = { 0 };
	size_t i, d;
	int fd;

	for (d = 0; d < 2; d++) {
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			fd = alg_tfm(drv[d], k, bad[i]);
			check(fd == -EINVAL, "%s: setkey of %zu bytes fails with EINVAL (%d)",
			      drv[d], bad[i], fd);
			if (fd >= 0)
				close(fd);
		}
		for (i = 16; i <= 32; i += 8) {
			fd = alg_tfm(drv[d], k, i);
			check(fd >= 0, "%s: setkey of %zu bytes works", drv[d], i);
			if (fd >= 0)
				close(fd);
		}
	}
}

static void ecb_lengths(void)
{
	static const size_t bad[] = { 1, 15, 17, 31, 255, 257, 4095, 4097, 65535 };
	static uint8_t in[65536], out[65536];
	size_t i;
	long before = routed();
	int tfm = alg_tfm("ecb-aes-gpu", key, 32), rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc = alg_op(tfm, 1, NULL, in, out, bad[i]);
		check(rc == -EINVAL, "ecb-aes-gpu: %zu bytes fails with EINVAL (%d)",
		      bad[i], rc);
	}
	check(routed() == before,
	      "none of them reached the ring or the fallback (%ld did)",
	      routed() - before);
	close(tfm);
}

/* sendmsg of nothing, then read: a zero-length request. */
static void zero_length(const char *drv)
{
	char cbuf[ALG_CBUF];
	struct msghdr msg = { 0 };
	uint8_t iv[16] = { 0 }, out[16];
	long before = routed();
	int tfm = alg_tfm(drv, key, 16), op;
	ssize_t n;

	op = accept(tfm, NULL, NULL);
	alg_cmsg(&msg, cbuf, 1, strncmp(drv, "ctr", 3) ? NULL : iv);
	n = sendmsg(op, &msg, 0);
	check(n == 0, "%s: sendmsg of 0 bytes returns 0 (%zd)", drv, n);
	if (n)
		n = -1;	/* no request was made: a read would wait for one */
	else
		n = read(op, out, sizeof(out));
	check(n == 0, "%s: the zero-length request completes, read returns 0 (%zd, errno %d)",
	      drv, n, n < 0 ? errno : 0);
	check(routed() == before, "%s: it took neither path (%ld requests)", drv,
	      routed() - before);
	close(op);
	close(tfm);
}

/*
 * No ALG_SET_IV: algif_skcipher starts from an all-zero IV and chains the
 * output IV from one request to the next, so two IV-less requests must
 * equal one request over both halves from IV 0.
 */
static void ivless(void)
{
	static uint8_t in[8192], out[8192], ref[8192];
	static const uint8_t zero[16];
	uint64_t s = 7;
	char cbuf[ALG_CBUF];
	int tfm, op, i;
	bool ok = true;

	rnd_fill(&s, in, sizeof(in));
	check(alg_once("ctr(aes-generic)", key, 32, 1, zero, in, ref, sizeof(in)) == 0,
	      "reference");
	tfm = alg_tfm("ctr-aes-gpu", key, 32);
	op = accept(tfm, NULL, NULL);
	for (i = 0; i < 2; i++) {
		struct msghdr msg = { 0 };
		struct iovec iov = { in + i * 4096, 4096 };

		alg_cmsg(&msg, cbuf, 1, NULL);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		ok &= sendmsg(op, &msg, 0) == 4096 &&
		      read(op, out + i * 4096, 4096) == 4096;
	}
	check(ok && !memcmp(out, ref, sizeof(out)),
	      "ctr-aes-gpu without ALG_SET_IV: IV 0, chained across 2 requests");
	close(op);
	close(tfm);
}

/*
 * Split pieces: sendmsg with zero-length iovecs and MSG_MORE fragments
 * (one of them empty), vmsplice + splice (one sg entry per piece), and
 * readv into an output list with an empty entry.
 */
static void pieces(const char *drv, bool ctr, bool use_splice)
{
	static uint8_t in[12288], out[12288], ref[12288];
	const size_t len = ctr ? 8094 : 8096;
	uint8_t iv[16];
	uint64_t s = 11;
	char cbuf[ALG_CBUF];
	struct msghdr msg = { 0 };
	struct iovec tx[5] = {
		{ in + 3, 1000 }, { in + 1003, 0 }, { in + 1003, 2093 },
		{ in + 3096, 1 }, { in + 3097, len - 3094 },
	};
	struct iovec rx[3] = {
		{ out, 100 }, { out + 100, 0 }, { out + 100, len - 100 },
	};
	long before = routed();
	int tfm, op, p[2];
	ssize_t n, got = 0;
	bool ok = true;

	rnd_fill(&s, in, sizeof(in));
	rnd_fill(&s, iv, sizeof(iv));
	check(alg_once(ctr ? "ctr(aes-generic)" : "ecb(aes-generic)", key, 24, 1,
		       ctr ? iv : NULL, in + 3, ref, len) == 0, "reference");
	tfm = alg_tfm(drv, key, 24);
	op = accept(tfm, NULL, NULL);
	alg_cmsg(&msg, cbuf, 1, ctr ? iv : NULL);
	if (!use_splice) {
		/* Header and 3 iovecs (one empty), more to come. */
		msg.msg_iov = tx;
		msg.msg_iovlen = 3;
		ok &= sendmsg(op, &msg, MSG_MORE) == 3093;
		ok &= send(op, in, 0, MSG_MORE) == 0;
		ok &= send(op, in + 3096, 1, MSG_MORE) == 1;
		ok &= send(op, in + 3097, len - 3094, 0) == (ssize_t)(len - 3094);
	} else {
		ok &= sendmsg(op, &msg, MSG_MORE) == 0;
		ok &= pipe(p) == 0;
		ok &= vmsplice(p[1], tx, 5, 0) == (ssize_t)len;
		while (ok && got < (ssize_t)len) {
			n = splice(p[0], NULL, op, NULL, len - got,
				   SPLICE_F_MORE);
			ok &= n > 0;
			got += n > 0 ? n : 0;
		}
		close(p[0]);
		close(p[1]);
		/* An empty send ends the request. */
		ok &= send(op, in, 0, 0) == 0;
	}
	n = ok ? readv(op, rx, 3) : -1;
	check(ok && n == (ssize_t)len && !memcmp(out, ref, len),
	      "%s: %zu bytes in pieces (%s, empty entries) read back right (%zd)",
	      drv, len, use_splice ? "vmsplice+splice" : "sendmsg+MSG_MORE", n);
	printf("stat %s %s requests=%ld\n", drv, use_splice ? "splice" : "sendmsg",
	       routed() - before);
	close(op);
	close(tfm);
}

static void basic(void)
{
	keylens();
	ecb_lengths();
	zero_length("ctr-aes-gpu");
	zero_length("ecb-aes-gpu");
	ivless();
	pieces("ctr-aes-gpu", true, false);
	pieces("ctr-aes-gpu", true, true);
	pieces("ecb-aes-gpu", false, false);
	pieces("ecb-aes-gpu", false, true);
}

static void large(size_t len)
{
	uint8_t *in = malloc(len), *out = malloc(len), *ref = malloc(len);
	uint8_t iv[16];
	uint64_t s = 13;
	int tfm, op, sz = 16 << 20;
	long rr = stat_read("ring_requests"), fr = stat_read("fallback_requests");
	long fl = stat_read("fallback_large"), fb = stat_read("fallback_bytes");
	char cbuf[ALG_CBUF];
	struct msghdr msg = { 0 };
	struct iovec iov;
	ssize_t n;

	rnd_fill(&s, in, len);
	rnd_fill(&s, iv, sizeof(iv));
	check(alg_once("ctr(aes-generic)", key, 32, 1, iv, in, ref, len) == 0,
	      "reference");
	tfm = alg_tfm("ctr-aes-gpu", key, 32);
	op = accept(tfm, NULL, NULL);
	/* Root may exceed wmem_max/rmem_max: the whole request in one go. */
	setsockopt(op, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz));
	setsockopt(op, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	alg_cmsg(&msg, cbuf, 1, iv);
	iov.iov_base = in;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	n = sendmsg(op, &msg, 0);
	check(n == (ssize_t)len, "sendmsg of %zu bytes (%zd)", len, n);
	n = read(op, out, len);
	check(n == (ssize_t)len && !memcmp(out, ref, len),
	      "one %zu-byte request reads back right (%zd)", len, n);
	printf("stat large len=%zu ring_requests=%ld fallback_requests=%ld fallback_large=%ld fallback_bytes=%ld\n",
	       len, stat_read("ring_requests") - rr,
	       stat_read("fallback_requests") - fr,
	       stat_read("fallback_large") - fl, stat_read("fallback_bytes") - fb);
	close(op);
	close(tfm);
	free(in);
	free(out);
	free(ref);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A request that never completes must fail the test, not hang it. */
	alarm(120);
	if (argc == 2 && !strcmp(argv[1], "basic"))
		basic();
	else if (argc == 3 && !strcmp(argv[1], "large"))
		large(strtoul(argv[2], NULL, 0));
	else {
		fprintf(stderr, "usage: %s basic | large BYTES\n", argv[0]);
		return 2;
	}
	printf("alg_input: %d failed\n", nfail);
	return nfail != 0;
}
