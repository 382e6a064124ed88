// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench.c - gpu-aesctl bench: throughput and latency of the path a
 * consumer gets, through the kernel crypto API from userspace (AF_ALG),
 * one request at a time: each gpu_aes driver by driver name against the
 * best other driver of the same cra_name (from /proc/crypto), at a few
 * sizes.  So it includes the socket copies, the ring, the helper and its
 * backend (or the module's CPU fallback); it is not a measure of the GPU
 * kernels (gpu-aes-bench and docs/performance.md are).
 */
#include <errno.h>
#include <getopt.h>
#include <linux/if_alg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "aesctl.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

/* sendmsg() of more than this blocks on an AF_ALG socket (measured). */
#define MAX_SIZE	196608
#define AEAD_ASSOC	16
#define AEAD_TAG	16
#define MAX_SIZES	16

static const char *const bench_note =
	"This measures the path a consumer gets through the kernel crypto API\n"
	"(AF_ALG, one request at a time): the copies into and out of the\n"
	"socket, the module, its ring and the helper (or the module's CPU\n"
	"fallback) -- not the GPU kernels alone (see gpu-aes-bench for those).";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: gpu-aesctl bench [--time SECONDS] [--sizes LIST] [--algs LIST] [--json]\n"
"Encrypt through AF_ALG with each gpu_aes driver, by driver name\n"
"(ecb-aes-gpu, ...), and with the best other driver of the same name in\n"
"/proc/crypto (the CPU's), one request at a time; print MB/s and\n"
"microseconds per request side by side, and which path our requests took.\n"
"\n"
"  -t, --time SECONDS  per driver and size (default 0.5, 0.01 to 60)\n"
"  -s, --sizes LIST    request bytes, multiples of 16 up to %d\n"
"                      (default 4096,16384,65536)\n"
"  -a, --algs LIST     modes by short name or crypto API name (ecb,\n"
"                      ctr(aes), ...; default every one the module has)\n"
"  -j, --json          the results as JSON\n"
"\n%s\n", MAX_SIZE, bench_note);
}

struct result {
	const char *driver;	/* NULL: none to measure */
	int err;		/* -errno of the failure, else 0 */
	const char *what;	/* the call that failed */
	long long requests;
	double seconds;
	long long ring, cpu;	/* counter deltas: which path ours took */
	char cpu_reason[64];	/* the fallback reason that moved most */
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int tfm_open(const char *type, const char *driver, const void *key,
		    size_t klen, int aead, const char **what)
{
	struct sockaddr_alg sa;
	int fd, err;

	memset(&sa, 0, sizeof(sa));
	sa.salg_family = AF_ALG;
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", driver);
	*what = "socket(AF_ALG)";
	fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	*what = "bind";
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	*what = "setkey";
	if (setsockopt(fd, SOL_ALG, ALG_SET_KEY, key, (socklen_t)klen) < 0)
		goto fail;
	*what = "setauthsize";
	if (aead && setsockopt(fd, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL,
			       AEAD_TAG) < 0)
		goto fail;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

/*
 * One encryption of @size bytes of text on @op with an @ivlen-byte IV
 * (none for ECB); 0 or -errno.
 */
static int one(int op, int aead, unsigned int ivlen, const uint8_t *in,
	       uint8_t *out, size_t size)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t)) * 2 +
			 CMSG_SPACE(sizeof(struct af_alg_iv) + 16)];
		struct cmsghdr align;
	} cb;
	size_t inlen = size + (aead ? AEAD_ASSOC : 0);
	size_t outlen = inlen + (aead ? AEAD_TAG : 0);
	struct iovec iov = { (void *)in, inlen };
	struct msghdr msg;
	struct cmsghdr *c;
	uint32_t v;
	ssize_t n;
	size_t got = 0;

	memset(&cb, 0, sizeof(cb));
	memset(&msg, 0, sizeof(msg));
	msg.msg_control = cb.buf;
	msg.msg_controllen = CMSG_SPACE(sizeof(uint32_t)) +
			     (ivlen ? CMSG_SPACE(sizeof(struct af_alg_iv) +
						 ivlen) : 0) +
			     (aead ? CMSG_SPACE(sizeof(uint32_t)) : 0);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
	v = ALG_OP_ENCRYPT;
	memcpy(CMSG_DATA(c), &v, sizeof(v));
	if (ivlen) {
		struct af_alg_iv *iv;

		c = CMSG_NXTHDR(&msg, c);
		c->cmsg_level = SOL_ALG;
		c->cmsg_type = ALG_SET_IV;
		c->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + ivlen);
		iv = (struct af_alg_iv *)(void *)CMSG_DATA(c);
		iv->ivlen = ivlen;
		memset(iv->iv, 0x5c, ivlen);
	}
	if (aead) {
		c = CMSG_NXTHDR(&msg, c);
		c->cmsg_level = SOL_ALG;
		c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
		c->cmsg_len = CMSG_LEN(sizeof(uint32_t));
		v = AEAD_ASSOC;
		memcpy(CMSG_DATA(c), &v, sizeof(v));
	}
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	n = sendmsg(op, &msg, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n != inlen)
		return -EIO;
	/* Exactly the output: a longer read would wait for more input. */
	while (got < outlen) {
		n = read(op, out + got, outlen - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (size_t)n;
	}
	return 0;
}

/* Which path: the ring and fallback counters around our runs. */
static void path_counts(const struct ctl *c, struct kvlist *l)
{
	memset(l, 0, sizeof(*l));
	state_read_counters(c, l, NULL, NULL);
}

/*
 * What AF_ALG needs of one of the module's algorithms, as /proc/crypto
 * describes our driver of it: the largest key it takes (an AEAD's is not
 * listed: AES-256's) and its IV.
 */
struct bench_alg {
	const char *name;	/* "ecb(aes)" */
	int aead;
	unsigned int keylen, ivlen;
};

static struct bench_alg bench_alg_of(const struct calg *ours)
{
	struct bench_alg a = { ours->name, !strcmp(ours->type, "aead"), 32,
			       (unsigned int)ours->ivsize };

	if (!a.aead && ours->max_keysize > 0 && ours->max_keysize <= 64)
		a.keylen = (unsigned int)ours->max_keysize;
	return a;
}

static void measure(const struct ctl *c, const char *driver,
		    const struct bench_alg *alg, size_t size, double secs,
		    uint8_t *in, uint8_t *out, struct result *r, int ours)
{
	int aead = alg->aead;
	uint8_t key[64];
	struct kvlist before, after;
	double t0, t;
	int tfm, op, i;
	size_t k;

	memset(r, 0, sizeof(*r));
	r->driver = driver;
	for (k = 0; k < sizeof(key); k++)
		key[k] = (uint8_t)(k * 37 + 11);
	tfm = tfm_open(aead ? "aead" : "skcipher", driver, key,
		       alg->keylen, aead, &r->what);
	if (tfm < 0) {
		r->err = tfm;
		return;
	}
	op = accept(tfm, NULL, NULL);
	if (op < 0) {
		r->err = -errno;
		r->what = "accept";
		close(tfm);
		return;
	}
	r->what = "sendmsg/read";
	for (i = 0; i < 2 && !r->err; i++)	/* warm up */
		r->err = one(op, aead, alg->ivlen, in, out, size);
	if (ours)
		path_counts(c, &before);
	t0 = mono();
	t = t0;
	while (!r->err && t - t0 < secs) {
		r->err = one(op, aead, alg->ivlen, in, out, size);
		if (!r->err)
			r->requests++;
		t = mono();
	}
	r->seconds = t - t0;
	if (ours) {
		long long best = 0;

		path_counts(c, &after);
		r->ring = kv_value(&after, "ring_requests", 0) -
			  kv_value(&before, "ring_requests", 0);
		r->cpu = kv_value(&after, "fallback_requests", 0) -
			 kv_value(&before, "fallback_requests", 0);
		for (k = 0; k < after.n; k++) {
			const char *n = after.v[k].name;
			long long d;

			if (strncmp(n, "fallback_", 9) != 0 ||
			    !strcmp(n, "fallback_requests") ||
			    !strcmp(n, "fallback_bytes"))
				continue;
			d = after.v[k].value - kv_value(&before, n, 0);
			/* Ties: the most specific (policy_lone over policy). */
			if (d > best || (d && d == best &&
					 strlen(n + 9) > strlen(r->cpu_reason))) {
				best = d;
				snprintf(r->cpu_reason, sizeof(r->cpu_reason),
					 "%s", n + 9);
			}
		}
		kvlist_free(&before);
		kvlist_free(&after);
	}
	close(op);
	close(tfm);
}

static double mbps(const struct result *r, size_t size)
{
	return r->seconds > 0 ? (double)r->requests * (double)size /
					r->seconds / 1e6 : 0;
}

static double usreq(const struct result *r)
{
	return r->requests ? r->seconds / (double)r->requests * 1e6 : 0;
}

static const char *path_text(char *buf, size_t len, const struct result *r)
{
	long long all = r->ring + r->cpu;

	if (!all)
		snprintf(buf, len, "?");
	else if (!r->cpu)
		snprintf(buf, len, "ring");
	else if (!r->ring)
		snprintf(buf, len, "cpu:%s", r->cpu_reason);
	else
		snprintf(buf, len, "ring %lld%%", r->ring * 100 / all);
	return buf;
}

static const char *err_text(char *buf, size_t len, const struct result *r)
{
	if (!r->driver)
		snprintf(buf, len, "no driver");
	else if (r->err == -EAFNOSUPPORT)
		snprintf(buf, len, "no AF_ALG (modprobe af_alg)");
	else if (r->err == -ENOENT)
		snprintf(buf, len, "%s: not found", r->driver);
	else
		snprintf(buf, len, "%s: %s", r->what, strerror(-r->err));
	return buf;
}

static void text_cell(const struct result *r, size_t size, int ours)
{
	if (!r->driver || r->err) {
		char b[128];

		printf("  %-*s", ours ? 49 : 40, err_text(b, sizeof(b), r));
		return;
	}
	printf("  %-22s %9.1f %8.1f", r->driver, mbps(r, size), usreq(r));
	if (ours) {
		char p[96];

		printf(" %-8s", path_text(p, sizeof(p), r));
	}
}

static void json_cell(struct json_object *parent, const char *key,
		      const struct result *r, size_t size, int ours)
{
	struct json_object *o;
	char b[128], p[96];

	b[0] = p[0] = 0;
	if (!r->driver) {
		jo_null(parent, key);
		return;
	}
	o = jo_obj(parent, key);
	jo_str(o, "driver", r->driver);
	if (r->err) {
		jo_str(o, "error", err_text(b, sizeof(b), r));
	} else {
		jo_int(o, "requests", r->requests);
		jo_num(o, "seconds", r->seconds, 6);
		jo_num(o, "mb_per_s", mbps(r, size), 3);
		jo_num(o, "us_per_request", usreq(r), 3);
	}
	if (ours) {
		struct json_object *path = jo_obj(o, "path");

		jo_int(path, "ring", r->ring);
		jo_int(path, "cpu", r->cpu);
		jo_str(path, "summary", path_text(p, sizeof(p), r));
	}
}

static int parse_list(const char *opt, const char *s, size_t *sizes, int max)
{
	char *dup = strdup(s), *tok, *save = NULL;
	int n = 0;
	long v;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == max || parse_long(opt, tok, 16, MAX_SIZE, &v)) {
			if (n == max)
				ctl_err("%s: at most %d sizes", opt, max);
			free(dup);
			return -1;
		}
		if (v % 16) {
			ctl_err("%s: %ld is not a multiple of 16", opt, v);
			free(dup);
			return -1;
		}
		sizes[n++] = (size_t)v;
	}
	free(dup);
	if (!n)
		ctl_err("%s: no size given", opt);
	return n ? n : -1;
}

/*
 * --algs: a comma-separated list of the module's algorithms, by short name
 * ("ecb") or crypto API name ("ecb(aes)"); sets want[] for each, in the
 * order of @av (the module's algorithms, state_algs()).
 */
static int parse_algs(const char *s, const struct alg_view *av, size_t n,
		      int *want)
{
	char *dup = strdup(s), *tok, *save = NULL, known[512] = "";
	size_t i, len;
	int any = 0;

	if (!dup)
		return -1;
	for (i = 0; i < n; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known),
			 "%s%.*s", i ? ", " : "",
			 (int)strcspn(av[i].ours->name, "("), av[i].ours->name);
	memset(want, 0, n * sizeof(*want));
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n; i++) {
			len = strcspn(av[i].ours->name, "(");
			if (!strcmp(tok, av[i].ours->name) ||
			    (strlen(tok) == len &&
			     !strncmp(tok, av[i].ours->name, len)))
				break;
		}
		if (i == n) {
			ctl_err("bench: --algs: unknown algorithm '%s' (the module has: %s)",
				tok, known[0] ? known : "none");
			free(dup);
			return -1;
		}
		want[i] = 1;
		any = 1;
	}
	free(dup);
	if (!any)
		ctl_err("bench: --algs: no algorithm given");
	return any ? 0 : -1;
}

int cmd_bench(struct ctl *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		CTL_LONGOPTS,
		{ "time", required_argument, NULL, 't' },
		{ "sizes", required_argument, NULL, 's' },
		{ "algs", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	size_t sizes[MAX_SIZES] = { 4096, 16384, 65536 }, maxsize = 0, nav, a;
	int want[16], nsizes = 3, o, i, rc, failed = 0;
	const char *algs_arg = NULL;
	struct alg_view av[16];
	double secs = 0.5;
	const struct kv *mode;
	uint8_t *in, *out;
	struct state s;
	struct json_object *doc = NULL, *results = NULL;

	while ((o = ctl_getopt(c, argc, argv, ":jht:s:a:", longopts,
				usage)) >= 0) {
		if (o == 't' && parse_double("bench: --time", optarg, 0.01, 60,
					     &secs))
			return CTL_USAGE;
		if (o == 's') {
			nsizes = parse_list("bench: --sizes", optarg, sizes,
					    MAX_SIZES);
			if (nsizes < 0)
				return CTL_USAGE;
		}
		if (o == 'a')
			algs_arg = optarg;
	}
	if (o != CTL_OPTS_END)
		return ctl_opts_exit(o);
	rc = state_read(c, &s, ST_CRYPTO | ST_HELPER);
	if (rc)
		return rc;
	/* The module's algorithms, from /proc/crypto, in its own order. */
	nav = state_algs(&s, av, 16);
	for (a = 0; a < nav; a++)
		want[a] = 1;
	if (algs_arg && parse_algs(algs_arg, av, nav, want)) {
		state_free(&s);
		return CTL_USAGE;
	}
	mode = kv_find(&s.params, "dispatch");
	for (i = 0; i < nsizes; i++)
		if (sizes[i] > maxsize)
			maxsize = sizes[i];
	in = calloc(1, maxsize + AEAD_ASSOC);
	out = calloc(1, maxsize + AEAD_ASSOC + AEAD_TAG);
	if (!in || !out) {
		free(in);
		free(out);
		state_free(&s);
		ctl_err("bench: out of memory");
		return CTL_FAIL;
	}
	for (i = 0; i < (int)(maxsize + AEAD_ASSOC); i++)
		in[i] = (uint8_t)(i * 7);

	if (c->json) {
		doc = json_object_new_object();
		jo_str(doc, "measures", bench_note);
		jo_num(doc, "seconds_per_cell", secs, 3);
		jo_bool(doc, "helper_attached",
			(int)kv_value(&s.status, "attached", 0));
		jo_str(doc, "backend", s.hf.doc ? jstr(s.hf.doc, "backend", "?") :
			    "unknown");
		if (mode)
			jo_str(doc, "dispatch", mode->text);
		else
			jo_null(doc, "dispatch");
		results = jo_arr(doc, "results");
	} else {
		printf("gpu-aesctl bench: %.2f s per driver and size\n%s\n",
		       secs, bench_note);
		if (!kv_value(&s.status, "attached", 0))
			printf("Helper not attached: the gpu_aes drivers run on the module's CPU fallback here.\n");
		else if (s.hf.doc && !strcmp(jstr(s.hf.doc, "backend", ""), "cpu"))
			printf("No GPU: the helper runs its cpu backend, so the ring's AES is OpenSSL's.\n");
		if (mode && strcmp(mode->text, "ring") != 0)
			printf("dispatch=%s: the module chooses the path of each of our requests%s.\n",
			       mode->text, strcmp(mode->text, "cpu") == 0 ?
			       " (the CPU, always)" : " by cost and load");
		printf("\n%-9s %9s  %-22s %9s %8s %-8s  %-22s %9s %8s %7s\n",
		       "algorithm", "size", "gpu_aes driver", "MB/s", "us/req",
		       "path", "best other driver", "MB/s", "us/req", "ratio");
	}
	for (a = 0; a < nav; a++) {
		const struct calg *ours = av[a].ours, *other;
		struct bench_alg alg = bench_alg_of(ours);

		if (!want[a])
			continue;
		other = state_best_other(&s, alg.name);
		for (i = 0; i < nsizes; i++) {
			struct result ro, rx;
			char sz[32];

			memset(&ro, 0, sizeof(ro));
			memset(&rx, 0, sizeof(rx));
			measure(c, ours->driver, &alg, sizes[i], secs,
				in, out, &ro, 1);
			if (other)
				measure(c, other->driver, &alg, sizes[i], secs,
					in, out, &rx, 0);
			failed |= ro.err || (other && rx.err);
			if (c->json) {
				struct json_object *r = jo_obj(results, NULL);

				jo_str(r, "algorithm", alg.name);
				jo_int(r, "size", (long long)sizes[i]);
				json_cell(r, "gpu_aes", &ro, sizes[i], 1);
				json_cell(r, "other", &rx, sizes[i], 0);
				if (!ro.err && !rx.err && other &&
				    mbps(&rx, sizes[i]) > 0)
					jo_num(r, "ratio", mbps(&ro, sizes[i]) /
					       mbps(&rx, sizes[i]), 3);
				else
					jo_null(r, "ratio");
				continue;
			}
			printf("%-9s %9s", i ? "" : alg.name,
			       fmt_bytes(sz, sizeof(sz), (double)sizes[i]));
			text_cell(&ro, sizes[i], 1);
			text_cell(&rx, sizes[i], 0);
			if (!ro.err && !rx.err && other &&
			    mbps(&rx, sizes[i]) > 0)
				printf(" %6.2fx", mbps(&ro, sizes[i]) /
				       mbps(&rx, sizes[i]));
			printf("\n");
			fflush(stdout);
		}
	}
	if (c->json) {
		/* A failed write shows in ferror(stdout), below. */
		jo_print(stdout, doc, 1);
	} else {
		printf("\nratio: gpu_aes MB/s over the other driver's; path: where our requests went (ring, or cpu:<fallback reason>).\n");
	}
	free(in);
	free(out);
	state_free(&s);
	if (fflush(stdout) || ferror(stdout))
		return CTL_FAIL;
	return failed ? CTL_FAIL : CTL_OK;
}
