// SPDX-License-Identifier: GPL-2.0-only
/*
 * corekey - keys the helper serves, and where they can be found later
 * (tests/vm/coredump.sh).
 *
 *   corekey serve DIR        open ctr(aes) and xts(aes) tfms with random
 *                            128 and 256-bit keys (4 tfms), encrypt and
 *                            decrypt 16 KiB on each (checked against the
 *                            aes-generic driver), write DIR/needles, print
 *                            "ready" and keep the tfms until killed
 *   corekey count NEEDLES FILE
 *                            occurrences of each needle in FILE (a core)
 *   corekey scan NEEDLES PID occurrences in PID's memory (/proc/PID/mem),
 *                            split by whether a core dump would hold the
 *                            mapping (no "dd" in its smaps VmFlags)
 *
 * A needle is what a process that holds an AES key K may have in memory:
 * K itself ("raw", XTS: both halves as the key table stores them), its
 * first 16 bytes ("rk0"), the first round key of the encryption schedule
 * that is not part of K ("enc": round 1 of AES-128, round 2 of AES-256),
 * and the first two of the decryption schedule (the equivalent inverse
 * cipher's, as AES-NI and the helper's aes_key.c lay it out: "dec0" is
 * the last encryption round key, "dec1" InvMixColumns of the one before).
 * XTS keys give these for each half (.k1 the data key, .k2 the tweak key).
 * NEEDLES holds one "LABEL HEX" line per needle; count and scan print
 * "hits LABEL N" and "hits LABEL DUMPABLE EXCLUDED" lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alg.h"

#define MAX_NEEDLES	64
#define REQ_LEN		16384
#define CHUNK		(1U << 20)

static const uint8_t sbox[256] = {
	0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
	0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
	0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
	0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
	0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
	0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
	0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
	0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
	0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
	0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
	0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
	0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
	0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
	0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
	0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
	0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

struct needle {
	char label[32];
	uint8_t b[64];
	size_t len;
	unsigned long hits[2];	/* count: [0]; scan: dumpable, excluded */
};

static struct needle needles[MAX_NEEDLES];
static unsigned int nr_needles;

static uint8_t xtime(uint8_t b)
{
	return (uint8_t)((b << 1) ^ ((b & 0x80) ? 0x1b : 0));
}

static uint8_t gmul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	for (; b; b >>= 1, a = xtime(a))
		if (b & 1)
			r ^= a;
	return r;
}

/* FIPS-197 5.2: 4 * (rounds + 1) words of w from a key of len bytes. */
static unsigned int expand(const uint8_t *key, size_t len, uint8_t w[240])
{
	size_t nk = len / 4, nr = nk + 6, i, c;
	uint8_t t[4], rcon = 1;

	memcpy(w, key, len);
	for (i = nk; i < 4 * (nr + 1); i++) {
		memcpy(t, w + 4 * (i - 1), 4);
		if (i % nk == 0) {
			uint8_t t0 = t[0];

			t[0] = sbox[t[1]] ^ rcon;
			t[1] = sbox[t[2]];
			t[2] = sbox[t[3]];
			t[3] = sbox[t0];
			rcon = xtime(rcon);
		} else if (nk > 6 && i % nk == 4) {
			for (c = 0; c < 4; c++)
				t[c] = sbox[t[c]];
		}
		for (c = 0; c < 4; c++)
			w[4 * i + c] = w[4 * (i - nk) + c] ^ t[c];
	}
	return (unsigned int)nr;
}

static void add(const char *tfm, const char *what, const uint8_t *b,
		size_t len)
{
	struct needle *n = &needles[nr_needles++];

	snprintf(n->label, sizeof(n->label), "%s/%s", tfm, what);
	memcpy(n->b, b, len);
	n->len = len;
}

/* The schedule needles of one AES key. */
static void add_aes(const char *tfm, const uint8_t *key, size_t len)
{
	uint8_t w[240], d1[16];
	unsigned int nr = expand(key, len, w), c, i;

	add(tfm, "rk0", key, 16);
	add(tfm, "enc", w + (len + 15) / 16 * 16, 16);
	add(tfm, "dec0", w + 16 * nr, 16);
	for (c = 0; c < 4; c++) {
		const uint8_t *col = w + 16 * (nr - 1) + 4 * c;

		for (i = 0; i < 4; i++)
			d1[4 * c + i] = gmul(col[i], 0x0e) ^
					gmul(col[(i + 1) & 3], 0x0b) ^
					gmul(col[(i + 2) & 3], 0x0d) ^
					gmul(col[(i + 3) & 3], 0x09);
	}
	add(tfm, "dec1", d1, 16);
}

static int write_needles(const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned int i;
	size_t j;

	if (!f)
		return -1;
	for (i = 0; i < nr_needles; i++) {
		fprintf(f, "%s ", needles[i].label);
		for (j = 0; j < needles[i].len; j++)
			fprintf(f, "%02x", needles[i].b[j]);
		fputc('\n', f);
	}
	return fclose(f);
}

static int read_needles(const char *path)
{
	char hex[2 * sizeof(needles[0].b) + 2];
	FILE *f = fopen(path, "r");
	struct needle *n;

	if (!f)
		return -1;
	while (nr_needles < MAX_NEEDLES) {
		size_t j;

		n = &needles[nr_needles];
		if (fscanf(f, "%31s %129s", n->label, hex) != 2)
			break;
		n->len = strlen(hex) / 2;
		if (n->len == 0 || n->len > sizeof(n->b))
			break;
		for (j = 0; j < n->len; j++)
			if (sscanf(hex + 2 * j, "%2hhx", &n->b[j]) != 1)
				break;
		nr_needles++;
	}
	fclose(f);
	return nr_needles ? 0 : -1;
}

/* Counts into hits[which] the needles that start in buf[0, len - keep). */
static void count_in(const uint8_t *buf, size_t len, size_t keep, int which)
{
	unsigned int i;

	for (i = 0; i < nr_needles; i++) {
		const uint8_t *p = buf, *end = buf + len;

		while ((p = memmem(p, (size_t)(end - p), needles[i].b,
				   needles[i].len))) {
			if ((size_t)(p - buf) < len - keep || len <= keep)
				needles[i].hits[which]++;
			p++;
		}
	}
}

/*
 * Reads [off, off + len) of fd in chunks that overlap by 63 bytes (the
 * longest needle less one), so a needle across a chunk boundary counts
 * once.  Unreadable parts (guard pages, device mappings) are skipped.
 */
static void count_fd(int fd, off_t off, size_t len, int which, uint8_t *buf)
{
	const size_t over = sizeof(needles[0].b) - 1;
	size_t done = 0;

	while (done < len) {
		size_t want = len - done > CHUNK ? CHUNK : len - done;
		ssize_t n = pread(fd, buf, want + (len - done > want ? over : 0),
				  off + (off_t)done);

		if (n <= 0) {
			done += 4096 - (size_t)(off + (off_t)done) % 4096;
			continue;
		}
		count_in(buf, (size_t)n, (size_t)n > want ? (size_t)n - want : 0,
			 which);
		done += (size_t)n < want ? (size_t)n : want;
	}
}

static int cmd_count(const char *file)
{
	static uint8_t buf[CHUNK + 64];
	int fd = open(file, O_RDONLY);
	off_t size;
	unsigned int i;

	if (fd < 0) {
		perror(file);
		return 1;
	}
	size = lseek(fd, 0, SEEK_END);
	count_fd(fd, 0, (size_t)size, 0, buf);
	close(fd);
	for (i = 0; i < nr_needles; i++)
		printf("hits %s %lu\n", needles[i].label, needles[i].hits[0]);
	return 0;
}

static int cmd_scan(const char *pid)
{
	static uint8_t buf[CHUNK + 64];
	char path[64], line[512];
	unsigned long lo = 0, hi = 0;
	int fd, have = 0;
	unsigned int i;
	char perms[8];
	FILE *smaps;

	snprintf(path, sizeof(path), "/proc/%s/mem", pid);
	fd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%s/smaps", pid);
	smaps = fopen(path, "r");
	if (fd < 0 || !smaps) {
		perror(path);
		return 1;
	}
	/* A mapping's line, then its fields; VmFlags is the last of them. */
	while (fgets(line, sizeof(line), smaps)) {
		unsigned long a, b;

		/* Field names can start like hex ("FilePmdMapped"). */
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3) {
			lo = a;
			hi = b;
			have = perms[0] == 'r';
			continue;
		}
		if (strncmp(line, "VmFlags:", 8) || !have)
			continue;
		/* The vsyscall page cannot be read through /proc/PID/mem. */
		if (lo >= 0xffffffffff600000UL)
			continue;
		count_fd(fd, (off_t)lo, hi - lo, strstr(line, " dd") ? 1 : 0,
			 buf);
	}
	fclose(smaps);
	close(fd);
	for (i = 0; i < nr_needles; i++)
		printf("hits %s %lu %lu\n", needles[i].label,
		       needles[i].hits[0], needles[i].hits[1]);
	return 0;
}

static int cmd_serve(const char *dir)
{
	static const struct {
		const char *label, *alg, *ref;
		size_t len;
		int xts;
	} tfms[] = {
		{ "ctr128", "ctr(aes)", "ctr(aes-generic)", 16, 0 },
		{ "ctr256", "ctr(aes)", "ctr(aes-generic)", 32, 0 },
		{ "xts128", "xts(aes)", "xts(ecb(aes-generic))", 32, 1 },
		{ "xts256", "xts(aes)", "xts(ecb(aes-generic))", 64, 1 },
	};
	static uint8_t in[REQ_LEN], out[REQ_LEN], ref[REQ_LEN], back[REQ_LEN];
	uint8_t key[64], iv[16];
	char path[256], name[40];
	uint64_t seed;
	unsigned int t;
	int fd, bad = 0;

	fd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || read(fd, &seed, sizeof(seed)) != sizeof(seed))
		return 1;
	for (t = 0; t < sizeof(tfms) / sizeof(tfms[0]); t++) {
		size_t half = tfms[t].xts ? tfms[t].len / 2 : tfms[t].len;
		int tfm, e1, e2, e3;

		if (read(fd, key, tfms[t].len) != (ssize_t)tfms[t].len)
			return 1;
		rnd_fill(&seed, in, sizeof(in));
		rnd_fill(&seed, iv, sizeof(iv));
		add(tfms[t].label, "raw", key, tfms[t].len);
		if (tfms[t].xts) {
			snprintf(name, sizeof(name), "%s.k1", tfms[t].label);
			add_aes(name, key, half);
			snprintf(name, sizeof(name), "%s.k2", tfms[t].label);
			add_aes(name, key + half, half);
		} else {
			add_aes(tfms[t].label, key, half);
		}
		/* Left open: the helper keeps the key while the tfm lives. */
		tfm = alg_tfm(tfms[t].alg, key, tfms[t].len);
		if (tfm < 0) {
			printf("not ok %s: tfm: %s\n", tfms[t].label,
			       strerror(-tfm));
			bad = 1;
			continue;
		}
		e1 = alg_op(tfm, 1, iv, in, out, sizeof(in));
		e2 = alg_op(tfm, 0, iv, out, back, sizeof(out));
		e3 = alg_once(tfms[t].ref, key, tfms[t].len, 1, iv, in, ref,
			      sizeof(in));
		if (e1 || e2 || e3 || memcmp(out, ref, sizeof(out)) ||
		    memcmp(back, in, sizeof(in))) {
			printf("not ok %s: %d %d %d, bytes %s\n",
			       tfms[t].label, e1, e2, e3,
			       memcmp(out, ref, sizeof(out)) ? "differ" :
			       "match");
			bad = 1;
		}
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/needles", dir);
	if (write_needles(path)) {
		perror(path);
		return 1;
	}
	printf("%s\n", bad ? "failed" : "ready");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "serve"))
		return cmd_serve(argv[2]);
	if (argc == 4 && (!strcmp(argv[1], "count") ||
			  !strcmp(argv[1], "scan"))) {
		if (read_needles(argv[2])) {
			fprintf(stderr, "corekey: no needles in %s\n", argv[2]);
			return 1;
		}
		return !strcmp(argv[1], "count") ? cmd_count(argv[3]) :
		       cmd_scan(argv[3]);
	}
	fprintf(stderr, "usage: corekey serve DIR | count NEEDLES FILE | scan NEEDLES PID\n");
	return 2;
}
