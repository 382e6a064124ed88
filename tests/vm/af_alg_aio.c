// SPDX-License-Identifier: GPL-2.0-only
/*
 * af_alg_aio - N AF_ALG requests in flight on one socket at once (the way
 * libkcapi's AIO mode sends them: one sendmsg carrying every request's
 * input, then io_submit of N reads), each checked byte for byte against a
 * reference algorithm reached by driver name on its own socket, fed the
 * same way but read synchronously, one request after the other.
 *
 *   af_alg_aio [options] TYPE NAME REF N LEN
 *   af_alg_aio --probe TYPE NAME   bind NAME (instantiating its template)
 *                                  and exit: 0, or 1 with the errno
 *
 *   TYPE  skcipher or aead
 *   NAME  the algorithm under test (cra_name or driver name)
 *   REF   the reference, e.g. ccm_base(ctr(aes-generic),cbcmac(aes-generic))
 *   N     requests in flight at once (1..64)
 *   LEN   text bytes per request
 *
 * options:
 *   --dec           decrypt (inputs are made by REF first, so tags verify)
 *   --sync          read the N requests one at a time instead of io_submit
 *                   (AF_ALG then sets CRYPTO_TFM_REQ_MAY_BACKLOG; AIO reads
 *                   set only CRYPTO_TFM_REQ_MAY_SLEEP)
 *   --stream        one sendmsg per request (MSG_MORE) instead of one for all
 *   --klen K        key bytes (default 16)
 *   --ivlen I       IV bytes (default 16; 0: none)
 *   --iv0 V         force the IV's first byte (ccm: L' = 15 - nonce bytes - 1)
 *   --aad A         associated data bytes per request (aead)
 *   --tag T         tag bytes (aead, default 16)
 *   --authenc E     an authenc() key: the rtattr naming an E-byte cipher
 *                   key, then K - 8 - E bytes of MAC key, then the E
 *                   (--klen K counts all three)
 *   --seed S        random seed
 *
 * Prints one "ok"/"not ok" line for the N requests (a detail line for each
 * one that failed) and a last line "stat n=N ebusy=E errors=X
 * mismatches=M" with what the reads returned; exits 1 unless every request
 * returned its whole output and matched.
 * Without a request-per-read limit in AF_ALG (kernels before 6.7 and their
 * stable branches without "crypto: af_alg - Disallow multiple in-flight AIO
 * requests"), concurrent reads may legitimately share the chained IV:
 * this program targets the kernels that have that rule.
 */
#define _GNU_SOURCE	/* syscall() */
#include <errno.h>
#include <linux/aio_abi.h>
#include <stdbool.h>
#include <sys/syscall.h>

#include "alg.h"
#include "check.h"

#define MAX_N		64
#define MAX_LEN		(1U << 16)
#define MAX_AAD		64U
#define MAX_UNIT	(MAX_AAD + MAX_LEN + 32)

struct opts {
	bool aead, dec, sync, stream;
	const char *name, *ref;
	unsigned int n, len, klen, ivlen, aad, tag, authenc;
	int iv0;
	uint64_t seed;
};

static uint8_t in[MAX_N * MAX_UNIT], out[MAX_N][MAX_UNIT], want[MAX_N][MAX_UNIT];
static uint8_t plain[MAX_N * MAX_UNIT];

static void usage(void)
{
	fprintf(stderr,
		"usage: af_alg_aio [--dec] [--sync] [--stream] [--klen K] [--ivlen I]\n"
		"                  [--iv0 V] [--aad A] [--tag T] [--seed S]\n"
		"                  skcipher|aead NAME REF N LEN\n");
	exit(2);
}

static unsigned int number(const char *s, unsigned int max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end || v > max) {
		fprintf(stderr, "af_alg_aio: bad number '%s' (at most %u)\n", s,
			max);
		exit(2);
	}
	return (unsigned int)v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->klen = 16;
	o->ivlen = 16;
	o->tag = 16;
	o->iv0 = -1;
	o->seed = 0x243f6a8885a308d3ULL;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--dec"))
			o->dec = true;
		else if (!strcmp(a, "--sync"))
			o->sync = true;
		else if (!strcmp(a, "--stream"))
			o->stream = true;
		else if (i + 1 >= argc)
			usage();
		else if (!strcmp(a, "--klen"))
			o->klen = number(argv[++i], 96);
		else if (!strcmp(a, "--ivlen"))
			o->ivlen = number(argv[++i], 16);
		else if (!strcmp(a, "--iv0"))
			o->iv0 = (int)number(argv[++i], 255);
		else if (!strcmp(a, "--aad"))
			o->aad = number(argv[++i], MAX_AAD);
		else if (!strcmp(a, "--tag"))
			o->tag = number(argv[++i], 32);
		else if (!strcmp(a, "--authenc"))
			o->authenc = number(argv[++i], 32);
		else if (!strcmp(a, "--seed"))
			o->seed = number(argv[++i], 0xffffffffU) | 1;
		else
			usage();
	}
	if (argc - i != 5)
		usage();
	if (!strcmp(argv[i], "aead"))
		o->aead = true;
	else if (strcmp(argv[i], "skcipher"))
		usage();
	o->name = argv[i + 1];
	o->ref = argv[i + 2];
	o->n = number(argv[i + 3], MAX_N);
	o->len = number(argv[i + 4], MAX_LEN);
	if (!o->n)
		usage();
	if (!o->aead) {
		o->aad = 0;
		o->tag = 0;
	}
	if (o->authenc && o->klen < 8 + o->authenc)
		usage();
}

/*
 * crypto_authenc_extractkeys()'s format: struct rtattr { u16 len = 8,
 * u16 type = CRYPTO_AUTHENC_KEYA_PARAM (1) }, then the cipher key length
 * as a big-endian u32, host order for the rtattr header.
 */
static void authenc_key(uint8_t *key, unsigned int enckeylen)
{
	uint16_t len = 8, type = 1;

	memcpy(key, &len, 2);
	memcpy(key + 2, &type, 2);
	key[4] = (uint8_t)(enckeylen >> 24);
	key[5] = (uint8_t)(enckeylen >> 16);
	key[6] = (uint8_t)(enckeylen >> 8);
	key[7] = (uint8_t)enckeylen;
}

/* A bound, keyed tfm socket, or -errno. */
static int tfm_open(const struct opts *o, const char *name, const uint8_t *key)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int fd, err;

	strcpy((char *)sa.salg_type, o->aead ? "aead" : "skcipher");
	strncpy((char *)sa.salg_name, name, sizeof(sa.salg_name) - 1);
	fd = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_ALG, ALG_SET_KEY, key, o->klen) < 0 ||
	    (o->aead &&
	     setsockopt(fd, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, o->tag) < 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Bytes one request reads in and writes out (AEAD: AAD included). */
static size_t unit_in(const struct opts *o)
{
	return o->aad + o->len + (o->dec ? o->tag : 0);
}

static size_t unit_out(const struct opts *o)
{
	return o->aad + o->len + (o->dec ? 0 : o->tag);
}

/*
 * Send the inputs of all @n requests, with the operation, IV and AAD length
 * in the first message: all at once, or one message per request with
 * MSG_MORE on all but the last.  0 or -errno.
 */
static int send_all(const struct opts *o, int op, bool enc, const uint8_t *iv,
		    const uint8_t *data, unsigned int n)
{
	char cbuf[CMSG_SPACE(sizeof(uint32_t)) * 2 +
		  CMSG_SPACE(sizeof(struct af_alg_iv) + 16)];
	size_t unit = unit_in(o), total = unit * n, off = 0;
	struct msghdr msg;
	struct cmsghdr *c;
	struct iovec iov;

	while (off < total) {
		size_t part = o->stream ? unit : total;
		ssize_t r;

		memset(&msg, 0, sizeof(msg));
		memset(cbuf, 0, sizeof(cbuf));
		if (!off) {
			msg.msg_control = cbuf;
			msg.msg_controllen = sizeof(cbuf);
			c = CMSG_FIRSTHDR(&msg);
			c->cmsg_level = SOL_ALG;
			c->cmsg_type = ALG_SET_OP;
			c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
			*(uint32_t *)(void *)CMSG_DATA(c) =
				enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
			c = CMSG_NXTHDR(&msg, c);
			c->cmsg_level = SOL_ALG;
			c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
			c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
			*(uint32_t *)(void *)CMSG_DATA(c) = o->aad;
			if (o->ivlen) {
				struct af_alg_iv *a;

				c = CMSG_NXTHDR(&msg, c);
				c->cmsg_level = SOL_ALG;
				c->cmsg_type = ALG_SET_IV;
				c->cmsg_len = CMSG_LEN(sizeof(*a) + o->ivlen);
				a = (struct af_alg_iv *)(void *)CMSG_DATA(c);
				a->ivlen = o->ivlen;
				memcpy(a->iv, iv, o->ivlen);
				msg.msg_controllen =
					(size_t)((char *)c - cbuf) +
					CMSG_SPACE(sizeof(*a) + o->ivlen);
			} else {
				msg.msg_controllen =
					2 * CMSG_SPACE(sizeof(uint32_t));
			}
		}
		iov.iov_base = (void *)(data + off);
		iov.iov_len = part;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		r = sendmsg(op, &msg, off + part < total ? MSG_MORE : 0);
		if (r != (ssize_t)part)
			return r < 0 ? -errno : -EIO;
		off += part;
	}
	return 0;
}

/* Read @n outputs one after the other; returns how many came back whole. */
static unsigned int read_sync(const struct opts *o, int op,
			      uint8_t (*dst)[MAX_UNIT], unsigned int n,
			      long *res)
{
	unsigned int i, good = 0;

	for (i = 0; i < n; i++) {
		ssize_t r = read(op, dst[i], unit_out(o));

		res[i] = r < 0 ? -errno : r;
		good += res[i] == (long)unit_out(o);
	}
	return good;
}

static long sys_io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(__NR_io_setup, nr, ctx);
}

static long sys_io_submit(aio_context_t ctx, long nr, struct iocb **cbs)
{
	return syscall(__NR_io_submit, ctx, nr, cbs);
}

static long sys_io_getevents(aio_context_t ctx, long min, long nr,
			     struct io_event *ev)
{
	return syscall(__NR_io_getevents, ctx, min, nr, ev, NULL);
}

static long sys_io_destroy(aio_context_t ctx)
{
	return syscall(__NR_io_destroy, ctx);
}

/* io_submit @n reads at once and collect every result.  0 or -errno. */
static int read_aio(const struct opts *o, int op, unsigned int n, long *res)
{
	static struct iocb cb[MAX_N];
	struct iocb *cbp[MAX_N];
	struct io_event ev[MAX_N];
	aio_context_t ctx = 0;
	unsigned int i, got = 0;
	long r;

	if (sys_io_setup(n, &ctx) < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		memset(&cb[i], 0, sizeof(cb[i]));
		cb[i].aio_fildes = (uint32_t)op;
		cb[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cb[i].aio_buf = (uint64_t)(uintptr_t)out[i];
		cb[i].aio_nbytes = unit_out(o);
		cb[i].aio_data = i;
		cbp[i] = &cb[i];
		res[i] = -EINPROGRESS;
	}
	r = sys_io_submit(ctx, n, cbp);
	if (r < 0) {
		r = -errno;
		sys_io_destroy(ctx);
		return (int)r;
	}
	/* Reads io_submit did not take are not in flight: count them out. */
	for (i = (unsigned int)r; i < n; i++)
		res[i] = -EAGAIN;
	while (got < (unsigned int)r) {
		long k = sys_io_getevents(ctx, 1, r - got, ev);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			sys_io_destroy(ctx);
			return (int)r;
		}
		for (i = 0; i < (unsigned int)k; i++)
			res[ev[i].data] = (long)ev[i].res;
		got += (unsigned int)k;
	}
	sys_io_destroy(ctx);
	return 0;
}

/* Bind @name as @type: the crypto API instantiates it if it can. */
static int probe(const char *type, const char *name)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int fd = socket(AF_ALG, SOCK_SEQPACKET, 0);

	strncpy((char *)sa.salg_type, type, sizeof(sa.salg_type) - 1);
	strncpy((char *)sa.salg_name, name, sizeof(sa.salg_name) - 1);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		printf("%s %s: %s\n", type, name, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t key[96], iv[16];
	long res[MAX_N], ref_res[MAX_N];
	unsigned int i, ebusy = 0, errors = 0, mismatches = 0;
	struct opts o;
	int t, r, op, rop, err;

	if (argc == 4 && !strcmp(argv[1], "--probe"))
		return probe(argv[2], argv[3]);
	parse(argc, argv, &o);
	rnd_fill(&o.seed, key, sizeof(key));
	if (o.authenc)
		authenc_key(key, o.authenc);
	rnd_fill(&o.seed, iv, sizeof(iv));
	if (o.iv0 >= 0)
		iv[0] = (uint8_t)o.iv0;
	t = tfm_open(&o, o.name, key);
	r = tfm_open(&o, o.ref, key);
	if (t < 0 || r < 0) {
		printf("cannot open %s (%d) or %s (%d)\n", o.name, t, o.ref, r);
		return 1;
	}

	/*
	 * Inputs: AAD || text per request.  Decryption inputs are encrypted
	 * by the reference first, so every tag is genuine.
	 */
	for (i = 0; i < o.n; i++)
		rnd_fill(&o.seed, plain + (size_t)i * (o.aad + o.len),
			 o.aad + o.len);
	if (o.dec) {
		struct opts e = o;

		e.dec = false;
		e.stream = true;
		rop = accept(r, NULL, NULL);
		err = rop < 0 ? -errno : send_all(&e, rop, true, iv, plain, o.n);
		if (!err && read_sync(&e, rop, want, o.n, ref_res) != o.n)
			err = -EIO;
		if (rop >= 0)
			close(rop);
		if (err) {
			printf("reference encryption failed: %d\n", err);
			return 1;
		}
		for (i = 0; i < o.n; i++)
			memcpy(in + i * unit_in(&o), want[i], unit_in(&o));
	} else {
		memcpy(in, plain, (size_t)o.n * unit_in(&o));
	}

	/* The reference, one synchronous read per request. */
	rop = accept(r, NULL, NULL);
	err = rop < 0 ? -errno : send_all(&o, rop, !o.dec, iv, in, o.n);
	if (!err && read_sync(&o, rop, want, o.n, ref_res) != o.n)
		err = -EIO;
	if (rop >= 0)
		close(rop);
	if (err) {
		printf("reference %s failed: %d\n", o.ref, err);
		return 1;
	}

	/* The algorithm under test: N reads in flight at once. */
	op = accept(t, NULL, NULL);
	err = op < 0 ? -errno : send_all(&o, op, !o.dec, iv, in, o.n);
	if (!err) {
		if (o.sync)
			read_sync(&o, op, out, o.n, res);
		else
			err = read_aio(&o, op, o.n, res);
	}
	if (op >= 0)
		close(op);
	if (err) {
		printf("%s: sending or submitting failed: %d\n", o.name, err);
		return 1;
	}

	for (i = 0; i < o.n; i++) {
		bool whole = res[i] == (long)unit_out(&o);

		ebusy += res[i] == -EBUSY;
		errors += !whole;
		if (whole && memcmp(out[i], want[i], unit_out(&o))) {
			mismatches++;
			printf("  request %u: output differs from %s\n", i + 1,
			       o.ref);
		} else if (!whole) {
			printf("  request %u: read returned %ld, want %zu\n",
			       i + 1, res[i], unit_out(&o));
		}
	}
	check(!errors && !mismatches, "%s %s, %u x %u B %s: each = %s",
	      o.name, o.dec ? "decrypt" : "encrypt", o.n, o.len,
	      o.sync ? "read one by one (MAY_BACKLOG)" :
	      "io_submit at once (AIO: no MAY_BACKLOG)", o.ref);
	printf("stat n=%u ebusy=%u errors=%u mismatches=%u\n", o.n, ebusy,
	       errors, mismatches);
	close(t);
	close(r);
	return nfail ? 1 : 0;
}
