// SPDX-License-Identifier: GPL-2.0-only
/*
 * unit_host - the cuda backend's parts that need no GPU: 128-bit counter
 * arithmetic, chunking, key expansion, the tables and the kernel's round
 * arithmetic (re-done here on the CPU word for word, against OpenSSL), the
 * tuning cache (its format, where it is and how it is written), --gpus
 * parsing and the code path each GPU generation gets.  Runs in CI.
 */
#include "../../helper/cuda/aes_gpu.h"
#include "../../helper/cuda/aes_tables.h"
#include "../../helper/cuda/cuda_backend.h"
#include "../../helper/cuda/gf128.h"
#include "../../helper/cuda/gpu_path.h"
#include "../../helper/cuda/tune_cache.h"
#include "ref.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures, checks;

#define EXPECT(c) do { checks++; if (!(c)) { failures++; \
	printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)

static struct gpu_aes_tables T;

static uint32_t rotl(uint32_t v, int bytes)
{
	return bytes ? (v << (8 * bytes)) | (v >> (32 - 8 * bytes)) : v;
}

static uint32_t byte(uint32_t x, int k)
{
	return (x >> (8 * k)) & 0xff;
}

/* The kernel's enc/dec rounds, same table words and byte picks. */
static void emu(const uint32_t *rk, unsigned int nr, int dec, uint32_t s[4])
{
	const uint32_t *t0 = dec ? T.td0 : T.te0;
	uint32_t n[4];

	for (int j = 0; j < 4; j++)
		s[j] ^= rk[j];
	for (unsigned int r = 1; r <= nr; r++) {
		for (int j = 0; j < 4; j++) {
			int c1 = dec ? (j + 3) & 3 : (j + 1) & 3;
			int c3 = dec ? (j + 1) & 3 : (j + 3) & 3;
			uint32_t a = s[j], b = s[c1], c = s[(j + 2) & 3],
				 d = s[c3];

			if (r < nr) {
				n[j] = t0[byte(a, 0)] ^
				       rotl(t0[byte(b, 1)], 1) ^
				       rotl(t0[byte(c, 2)], 2) ^
				       rotl(t0[byte(d, 3)], 3);
			} else {
				const uint32_t *l = dec ? T.td4 : T.te0;

				n[j] = byte(l[byte(a, 0)], 1) |
				       byte(l[byte(b, 1)], 1) << 8 |
				       byte(l[byte(c, 2)], 1) << 16 |
				       byte(l[byte(d, 3)], 1) << 24;
			}
			n[j] ^= rk[4 * r + j];
		}
		memcpy(s, n, sizeof(n));
	}
}

static void test_ctr(void)
{
	uint8_t iv[16], back[16];
	uint64_t hi, lo;

	memset(iv, 0xff, 16);
	gpu_aes_ctr_load(iv, &hi, &lo);
	EXPECT(hi == ~0ULL && lo == ~0ULL);
	gpu_aes_ctr_add(&hi, &lo, 1);	/* 2^128 wraps to 0 */
	EXPECT(hi == 0 && lo == 0);
	hi = 5;
	lo = ~0ULL - 1;
	gpu_aes_ctr_add(&hi, &lo, 3);	/* carry across 2^64 */
	EXPECT(hi == 6 && lo == 1);
	hi = 0;
	lo = 0xfffffffeULL;
	gpu_aes_ctr_add(&hi, &lo, 2);	/* across 2^32: plain 64-bit add */
	EXPECT(hi == 0 && lo == 0x100000000ULL);
	for (int i = 0; i < 16; i++)
		iv[i] = (uint8_t)(i * 17 + 1);
	gpu_aes_ctr_load(iv, &hi, &lo);
	EXPECT(hi == 0x0112233445566778ULL && lo == 0x899aabbccddeef00ULL);
	gpu_aes_ctr_store(hi, lo, back);
	EXPECT(!memcmp(iv, back, 16));
}

static void test_chunks(void)
{
	struct gpu_aes_kseg s[4];
	struct gpu_aes_kchunk c[64];
	size_t n, nenc, nser;
	uint32_t cover[4] = { 0 };

	memset(s, 0, sizeof(s));
	s[0].len = 1;					/* 1 chunk */
	s[0].op = GPU_AES_KOP_ECB_DEC;
	s[1].len = GPU_AES_CHUNK_BLOCKS * 16;		/* exactly 1 */
	s[1].op = GPU_AES_KOP_CTR_ENC;
	s[2].len = GPU_AES_CHUNK_BLOCKS * 16 * 3 + 5;	/* 4, partial */
	s[2].op = GPU_AES_KOP_ECB_DEC;
	s[3].len = 0;					/* none */
	s[3].op = GPU_AES_KOP_ECB_ENC;
	n = gpu_aes_count_chunks(s, 4, GPU_AES_CHUNK_BLOCKS);
	EXPECT(n == 6);
	nenc = gpu_aes_build_chunks(s, 4, GPU_AES_CHUNK_BLOCKS, c, &nser);
	EXPECT(nenc == 1 && nser == 0);
	EXPECT(c[0].seg == 1 && c[0].block0 == 0 &&
	       c[0].nblocks == GPU_AES_CHUNK_BLOCKS);
	for (size_t i = nenc; i < n; i++)
		EXPECT(s[c[i].seg].op == GPU_AES_KOP_ECB_DEC);
	for (size_t i = 0; i < n; i++) {
		EXPECT(c[i].block0 == cover[c[i].seg]);
		cover[c[i].seg] += c[i].nblocks;
	}
	EXPECT(cover[0] == 1 && cover[1] == GPU_AES_CHUNK_BLOCKS &&
	       cover[2] == GPU_AES_CHUNK_BLOCKS * 3 + 1 && cover[3] == 0);
	/* 256-block chunks: segment 2 has 12289 blocks -> 49 chunks. */
	EXPECT(gpu_aes_count_chunks(s, 4, 256) == 1 + 16 + 49);

	/* Chunk size: enough chunks for every CTA, within the bounds. */
	s[0].len = 16 * 1000;
	EXPECT(gpu_aes_chunk_blocks(s, 1, 132) == 256);
	s[0].len = 16 * 4096 * 132;
	EXPECT(gpu_aes_chunk_blocks(s, 1, 132) == 4096);
	s[0].len = 16 * 4096 * 1000;
	EXPECT(gpu_aes_chunk_blocks(s, 1, 132) == 4096);
	s[0].len = 16 * 1024 * 132;
	EXPECT(gpu_aes_chunk_blocks(s, 1, 132) == 1024);
	s[0].len = 16 * 1025 * 132;
	EXPECT(gpu_aes_chunk_blocks(s, 1, 132) == 1280);
	EXPECT(gpu_aes_chunk_blocks(s, 1, 0) == GPU_AES_CHUNK_BLOCKS);
	/* GCM without XTS: longer chunks; any XTS segment keeps the cap. */
	s[0].len = 16 * 4096 * 1000;
	s[0].op = GPU_AES_KOP_GCM_DEC;
	s[1].op = GPU_AES_KOP_CTR_ENC;
	/* 4096032 + 4096 blocks on 132 CTAs: one chunk each of 31062 -> 31232 */
	EXPECT(gpu_aes_chunk_blocks(s, 2, 132) == 31232);
	EXPECT(gpu_aes_chunk_blocks(s, 2, 0) == GPU_AES_CHUNK_BLOCKS_GCM);
	/* 67108896 blocks on 264 CTAs: 254201 each, in 4 of 63551 -> 63744 */
	s[0].len = 1U << 30;
	EXPECT(gpu_aes_chunk_blocks(s, 1, 264) == 63744);
	EXPECT(gpu_aes_count_chunks(s, 1, 63744) <= 264 * 4);
	s[0].len = 16 * 4096 * 1000;
	s[1].op = GPU_AES_KOP_XTS_ENC;
	EXPECT(gpu_aes_chunk_blocks(s, 2, 132) == GPU_AES_CHUNK_BLOCKS);
	s[0].op = GPU_AES_KOP_CTR_ENC;
	s[1].op = GPU_AES_KOP_CTR_ENC;
	EXPECT(gpu_aes_chunk_blocks(s, 2, 132) == GPU_AES_CHUNK_BLOCKS);
}

static void test_tables(void)
{
	gpu_aes_make_tables(&T);
	/* FIPS-197 S-box spot values. */
	EXPECT(T.sbox[0x00] == 0x63 && T.sbox[0x53] == 0xed &&
	       T.sbox[0xff] == 0x16);
	EXPECT(T.isbox[0x63] == 0x00 && T.isbox[0x16] == 0xff);
	EXPECT(T.te0[0] == 0xa56363c6U);	/* (c6, 63, 63, a5) */
	EXPECT(T.td0[0] == 0x50a7f451U);	/* (51, f4, a7, 50) */
}

static void test_expand(void)
{
	static const uint8_t k128[16] = {
		0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
		0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
	struct gpu_aes_dev_key dk;
	unsigned int nr;

	EXPECT(gpu_aes_dev_expand_key(k128, 16, &dk, &nr) == 0 && nr == 10);
	/* FIPS-197 A.1: w[43] = b6630ca6 (bytes b6 63 0c a6). */
	EXPECT(dk.erk[43] == 0xa60c63b6U);
	EXPECT(dk.drk[0] == dk.erk[40] && dk.drk[43] == dk.erk[3]);
	EXPECT(gpu_aes_dev_expand_key(k128, 20, &dk, &nr) == -1);
}

/* The kernel's arithmetic vs OpenSSL on random keys and blocks. */
static void test_rounds(void)
{
	struct rng g;

	rng_seed(&g, 42);
	for (int it = 0; it < 300; it++) {
		unsigned int klen = 16 + 8 * (it % 3), nr;
		uint8_t key[32], pt[16], ct[16], got[16], iv[16] = { 0 };
		struct gpu_aes_dev_key dk;
		uint32_t s[4];
		int dec = it & 1;

		rng_fill(&g, key, sizeof(key));
		rng_fill(&g, pt, sizeof(pt));
		EXPECT(gpu_aes_dev_expand_key(key, klen, &dk, &nr) == 0);
		EXPECT(ref_crypt(GPU_AES_ALG_ECB, dec, key, klen, iv, pt, ct, 16) == 0);
		memcpy(s, pt, 16);
		emu(dec ? dk.drk : dk.erk, nr, dec, s);
		memcpy(got, s, 16);
		EXPECT(!memcmp(got, ct, 16));
	}
}

static void test_shape(void)
{
	struct gpu_aes_shape s, t = { 1, 512, 4, 1 };
	char buf[64];

	EXPECT(gpu_aes_shape_parse("0 256 2 3\n", &s) == 0 &&
	       s.variant == 0 && s.threads == 256 && s.bpt == 2 &&
	       s.ctas_per_sm == 3);
	EXPECT(gpu_aes_shape_parse("2 256 2 3", &s) == -1);
	EXPECT(gpu_aes_shape_parse("0 300 2 3", &s) == -1);
	EXPECT(gpu_aes_shape_parse("0 256 3 3", &s) == -1);
	EXPECT(gpu_aes_shape_parse("0 256 2 0", &s) == -1);
	EXPECT(gpu_aes_shape_parse("0 256 2", &s) == -1);
	EXPECT(gpu_aes_shape_parse("0 256 2 3 x", &s) == -1);
	EXPECT(gpu_aes_shape_format(&t, buf, sizeof(buf)) == 0 &&
	       !strcmp(buf, "1 512 4 1\n"));
	EXPECT(gpu_aes_shape_format(&t, buf, 4) == -1);
}

/* Entries of directory @path but . and .., or -1. */
static int dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int file_is(const char *path, const char *text)
{
	char buf[128] = "";
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fgets(buf, sizeof(buf), f) && !strcmp(buf, text);
	fclose(f);
	return ok;
}

static void cache_env(const char *cache, const char *state, const char *home)
{
	const char *v[3] = { cache, state, home };
	const char *k[3] = { "CACHE_DIRECTORY", "STATE_DIRECTORY", "HOME" };

	for (int i = 0; i < 3; i++) {
		if (v[i])
			setenv(k[i], v[i], 1);
		else
			unsetenv(k[i]);
	}
}

/*
 * The tuning cache (issue 20, F4): never in a directory another user can
 * write (it was /tmp/.cache/gpu-aes without HOME), never through a
 * symlink planted at the file, written 0600.  Runs in a directory of its
 * own, which is also the working directory, so a relative path would
 * land there and be seen.
 */
static void test_tune_cache(void)
{
	struct gpu_aes_shape s = { 1, 512, 4, 1 }, got;
	char base[] = "/tmp/gpu-aes-unit-XXXXXX", old_cwd[4096];
	char a[64], b[64], c[64], path[4096], p2[256];
	const char *why = NULL, *name = "tune-unit-test";
	const char *tmp_file = "/tmp/.cache/gpu-aes/tune-unit-test";
	int tmp_had_dir = access("/tmp/.cache/gpu-aes", F_OK) == 0;
	char *saved[3] = { NULL, NULL, NULL };
	const char *keys[3] = { "CACHE_DIRECTORY", "STATE_DIRECTORY", "HOME" };
	struct stat st;
	mode_t um = umask(0);	/* the mode must not come from the umask */

	for (int i = 0; i < 3; i++)
		if (getenv(keys[i]))
			saved[i] = strdup(getenv(keys[i]));
	EXPECT(getcwd(old_cwd, sizeof(old_cwd)) != NULL);
	EXPECT(mkdtemp(base) != NULL);
	EXPECT(chmod(base, 0700) == 0 && chdir(base) == 0);
	snprintf(a, sizeof(a), "%s/a", base);
	snprintf(b, sizeof(b), "%s/b", base);
	snprintf(c, sizeof(c), "%s/c", base);
	EXPECT(mkdir(a, 0700) == 0 && mkdir(b, 0755) == 0 &&
	       mkdir(c, 0700) == 0);

	/* No HOME, no CACHE/STATE_DIRECTORY: no cache, nothing written. */
	cache_env(NULL, NULL, NULL);
	EXPECT(gpu_aes_tune_cache_dir(path, sizeof(path), true, &why) ==
	       -ENOENT && path[0] == 0 && why);
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       -ENOENT && path[0] == 0);
	EXPECT(gpu_aes_tune_cache_load(name, &got) == -ENOENT);
	EXPECT(access(tmp_file, F_OK) != 0);
	EXPECT(tmp_had_dir || access("/tmp/.cache/gpu-aes", F_OK) != 0);
	/* A relative HOME is no HOME: nothing under the working directory. */
	cache_env(NULL, NULL, "home");
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       -ENOENT && path[0] == 0);
	EXPECT(dir_entries(base) == 3);
	/* HOME=/tmp (world-writable): refused, and .cache not made there. */
	cache_env(NULL, NULL, "/tmp");
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       -EPERM && !strcmp(path, "/tmp") && why);
	EXPECT(access(tmp_file, F_OK) != 0);
	EXPECT(tmp_had_dir || access("/tmp/.cache/gpu-aes", F_OK) != 0);

	/* CACHE_DIRECTORY first (its first entry), then STATE_, then HOME. */
	snprintf(p2, sizeof(p2), "%s:%s", a, b);
	cache_env(p2, b, c);
	EXPECT(gpu_aes_tune_cache_dir(path, sizeof(path), false, &why) == 0 &&
	       !strcmp(path, a));
	cache_env(NULL, b, c);
	EXPECT(gpu_aes_tune_cache_dir(path, sizeof(path), false, &why) == 0 &&
	       !strcmp(path, b));
	cache_env(NULL, NULL, c);
	EXPECT(gpu_aes_tune_cache_dir(path, sizeof(path), false, &why) ==
	       -ENOENT);	/* $HOME/.cache not there yet */
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       0);
	snprintf(p2, sizeof(p2), "%s/.cache/gpu-aes/%s", c, name);
	EXPECT(!strcmp(path, p2) && file_is(p2, "1 512 4 1\n"));
	snprintf(p2, sizeof(p2), "%s/.cache/gpu-aes", c);
	EXPECT(stat(p2, &st) == 0 && (st.st_mode & 07777) == 0700);

	/* Created 0600 in the chosen directory, and read back. */
	cache_env(a, NULL, NULL);
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       0);
	snprintf(p2, sizeof(p2), "%s/%s", a, name);
	EXPECT(!strcmp(path, p2) && lstat(p2, &st) == 0 &&
	       S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
	EXPECT(gpu_aes_tune_cache_load(name, &got) == 0 &&
	       !memcmp(&got, &s, sizeof(s)));
	EXPECT(dir_entries(a) == 1);	/* no temporary left behind */

	/* A symlink planted at the file: not read, not written through. */
	snprintf(p2, sizeof(p2), "%s/victim", b);
	EXPECT(symlink(p2, path) == 0 || (unlink(path) == 0 &&
					  symlink(p2, path) == 0));
	{
		int fd = open(p2, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		EXPECT(fd >= 0 && write(fd, "0 128 1 8\n", 10) == 10);
		if (fd >= 0)
			close(fd);
	}
	got = s;
	EXPECT(gpu_aes_tune_cache_load(name, &got) == -ELOOP &&
	       !memcmp(&got, &s, sizeof(s)));
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       0);
	EXPECT(file_is(p2, "0 128 1 8\n"));
	EXPECT(lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & 07777) == 0600 && file_is(path, "1 512 4 1\n"));

	/* Directories others could change, or a symlink to one: refused. */
	EXPECT(chmod(b, 0777) == 0);
	cache_env(b, NULL, NULL);
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       -EPERM && why);
	EXPECT(gpu_aes_tune_cache_load(name, &got) == -EPERM);
	snprintf(p2, sizeof(p2), "%s/link", base);
	EXPECT(symlink(a, p2) == 0);
	cache_env(p2, NULL, NULL);
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       -ELOOP && why);
	cache_env("relative", NULL, NULL);
	EXPECT(gpu_aes_tune_cache_store(name, &s, path, sizeof(path), &why) ==
	       -EINVAL && why);
	EXPECT(dir_entries(base) == 4 && dir_entries(b) == 1);

	for (int i = 0; i < 3; i++) {
		if (saved[i])
			setenv(keys[i], saved[i], 1);
		else
			unsetenv(keys[i]);
		free(saved[i]);
	}
	umask(um);
	EXPECT(chdir(old_cwd) == 0);
	EXPECT(nftw(base, rm_one, 8, FTW_DEPTH | FTW_PHYS) == 0);
}

static void test_gpus(void)
{
	int d[8];

	EXPECT(gpu_aes_parse_gpus(NULL, 3, d, 8) == 3 && d[2] == 2);
	EXPECT(gpu_aes_parse_gpus("all", 2, d, 8) == 2);
	EXPECT(gpu_aes_parse_gpus("1,0", 2, d, 8) == 2 && d[0] == 1 &&
	       d[1] == 0);
	EXPECT(gpu_aes_parse_gpus("2", 2, d, 8) == -1);
	EXPECT(gpu_aes_parse_gpus("0,0", 2, d, 8) == -1);
	EXPECT(gpu_aes_parse_gpus("0,", 2, d, 8) == -1);
	EXPECT(gpu_aes_parse_gpus("x", 2, d, 8) == -1);
	EXPECT(gpu_aes_parse_gpus("-1", 2, d, 8) == -1);
}

/* SP 800-38D's bit-serial multiply, on GCM byte strings. */
static void gcm_mul_ref(const uint8_t x[16], const uint8_t y[16],
			uint8_t z[16])
{
	uint8_t v[16], r[16] = { 0 };

	memcpy(v, y, 16);
	for (int i = 0; i < 128; i++) {
		int lsb = v[15] & 1;

		if (x[i / 8] >> (7 - i % 8) & 1)
			for (int k = 0; k < 16; k++)
				r[k] ^= v[k];
		for (int k = 15; k > 0; k--)
			v[k] = (uint8_t)(v[k] >> 1 | v[k - 1] << 7);
		v[0] >>= 1;
		if (lsb)
			v[0] ^= 0xe1;
	}
	memcpy(z, r, 16);
}

static void words(const uint8_t *b, uint32_t w[4])
{
	for (int i = 0; i < 4; i++)
		w[i] = b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
		       (uint32_t)b[4 * i + 2] << 16 |
		       (uint32_t)b[4 * i + 3] << 24;
}

static void unwords(const uint32_t w[4], uint8_t *b)
{
	for (int i = 0; i < 16; i++)
		b[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
}

static void test_gf128(void)
{
	struct rng g;
	int ok_mul = 1, ok_x = 1, ok_pre = 1;

	rng_seed(&g, 128);
	for (int it = 0; it < 2000; it++) {
		uint8_t a[16], b[16], want[16], got[16];
		uint32_t wa[4], wb[4], ra[4], rb[4], rc[4], wc[4];

		rng_fill(&g, a, 16);
		rng_fill(&g, b, 16);
		if (it < 16)	/* the top and bottom coefficients alone */
			memset(a, it & 1 ? 0xff : 0, 16);
		gcm_mul_ref(a, b, want);
		words(a, wa);
		words(b, wb);
		gf128_from_gcm(wa, ra);
		gf128_from_gcm(wb, rb);
		gf128_mul(ra, rb, rc);
		gf128_to_gcm(rc, wc);
		unwords(wc, got);
		if (memcmp(got, want, 16))
			ok_mul = 0;
		/* the kernel's Horner product by a prepared constant */
		struct gf128_pre pre = { { { 0 } } };
		uint32_t rp[4];

		gf128_precompute(rb, &pre);
		memcpy(rp, ra, sizeof(rp));
		gf128_mul_pre(rp, &pre, rp);
		if (memcmp(rp, rc, sizeof(rp)))
			ok_pre = 0;
		/* x^k by shifts == multiplication by the element x^k */
		unsigned int k = 1 + (unsigned int)(rng_next(&g) % 32);
		uint32_t xk[4] = { 0 }, t[4];

		xk[k / 32] = 1U << (k % 32);
		memcpy(t, wa, sizeof(t));
		gf128_mulx_k(t, k);
		gf128_mul(wa, xk, wc);
		if (memcmp(t, wc, sizeof(t)))
			ok_x = 0;
	}
	EXPECT(ok_mul);
	EXPECT(ok_pre);
	EXPECT(ok_x);
}

/*
 * The kernel's XTS tweak schedule, replayed: chunk tweaks from
 * gpu_aes_chunk_aux, a warp's first tweak by the x^(32n) table, a lane's by
 * x^lane, then x^32 per step; every block's tweak must be E_K2(iv) x^j.
 */
static void test_xts_tweaks(void)
{
	static uint32_t xpow[129][4];
	struct rng g;
	int ok = 1;

	gpu_aes_xts_xpow(xpow);
	rng_seed(&g, 1619);
	for (int it = 0; it < 40 && ok; it++) {
		struct gpu_aes_kseg sg;
		uint32_t len = 16 + (uint32_t)(rng_next(&g) % (200U << 10));
		uint32_t chunk = 256U << (rng_next(&g) % 5), nt = 128U << (it % 3);
		uint8_t t0[16];

		memset(&sg, 0, sizeof(sg));
		sg.len = len;
		sg.op = GPU_AES_KOP_XTS_ENC;
		rng_fill(&g, t0, 16);
		words(t0, sg.aux);
		if (chunk > GPU_AES_CHUNK_BLOCKS)
			chunk = GPU_AES_CHUNK_BLOCKS;
		size_t nch = gpu_aes_count_chunks(&sg, 1, chunk);
		struct gpu_aes_kchunk *ch = calloc(nch, sizeof(*ch));
		uint32_t nb = gpu_aes_seg_blocks(&sg);
		uint32_t (*want)[4] = calloc(nb, sizeof(*want));

		if (!ch || !want)
			abort();
		size_t nser;

		gpu_aes_build_chunks(&sg, 1, chunk, ch, &nser);
		gpu_aes_chunk_aux(&sg, NULL, NULL, ch, nch);
		memcpy(want[0], sg.aux, 16);
		for (uint32_t j = 1; j < nb; j++) {
			memcpy(want[j], want[j - 1], 16);
			gf128_mulx_k(want[j], 1);
		}
		for (size_t c = 0; c < nch && ok; c++) {
			uint32_t nw = nt / 32;
			uint32_t pw = ((ch[c].nblocks + nw - 1) / nw + 31) & ~31U;

			for (uint32_t w = 0; w < nw; w++)
			for (uint32_t l = 0; l < 32; l++) {
				uint32_t st = w * pw, t[4];

				if (st >= ch[c].nblocks)
					continue;
				memcpy(t, ch[c].aux, 16);
				if (st)
					gf128_mul(t, xpow[st / 32], t);
				if (l)
					gf128_mulx_k(t, l);
				for (uint32_t i = st + l; i < st + pw &&
				     i < ch[c].nblocks; i += 32) {
					if (memcmp(t, want[ch[c].block0 + i], 16))
						ok = 0;
					gf128_mulx_k(t, 32);
				}
			}
		}
		free(ch);
		free(want);
	}
	EXPECT(ok);
}

/*
 * Every mode of the table gets its own op per direction, whose direction
 * is that one, and the aux its AUX column says; requests that break the
 * mode's rules get none.  Then the known modes' exact choices.
 */
static void test_kseg_mode(void)
{
	uint8_t iv[16], seen[GPU_AES_NR_KOPS] = { 0 };
	static const uint8_t zero[16];
	struct gpu_aes_kseg k;
	int ecb;

	for (int i = 0; i < 16; i++)
		iv[i] = (uint8_t)(0xa0 + i);
	for (uint8_t alg = 1; alg <= GPU_AES_ALG_MAX; alg++) {
		uint32_t tweak = gpu_aes_alg_keys(alg) == 2 ? 16 : 0;

		for (uint8_t dir = 0; dir <= GPU_AES_DIR_DECRYPT; dir++) {
			memset(&k, 0, sizeof(k));
			k.len = 32;
			ecb = 0;
			EXPECT(gpu_aes_kseg_mode(&k, alg, dir, iv, tweak, 16, 7,
						 &ecb) == 1);
			EXPECT(k.op == gpu_aes_kop(alg, dir) &&
			       k.op < GPU_AES_NR_KOPS && !seen[k.op]);
			seen[k.op % GPU_AES_NR_KOPS] = 1;
			EXPECT(gpu_aes_kop_dir(k.op) == dir);
			EXPECT(k.aad_len == (gpu_aes_alg_aead(alg) ? 7U : 0U));
			switch (gpu_aes_alg_aux(alg)) {
			case GPU_AES_AUX_NONE:
				EXPECT(!memcmp(k.aux, zero, 16) && !ecb);
				break;
			case GPU_AES_AUX_TWEAK:
				EXPECT(!memcmp(k.aux, iv, 16) && ecb);
				break;
			case GPU_AES_AUX_J0:
				EXPECT(!memcmp(k.aux, iv, 12) && ecb &&
				       !memcmp((uint8_t *)k.aux + 12,
					       "\0\0\0\1", 4));
				break;
			case GPU_AES_AUX_IV:
				EXPECT(!memcmp(k.aux, iv, 16) && !ecb);
				break;
			default:
				EXPECT(0);
			}
			/* the key's shape, the direction, the length */
			memset(&k, 0, sizeof(k));
			k.len = 32;
			EXPECT(!gpu_aes_kseg_mode(&k, alg, dir, iv, 16 - tweak,
						  16, 0, &ecb));
			EXPECT(!gpu_aes_kseg_mode(&k, alg, 2, iv, tweak, 16, 0,
						  &ecb));
			k.len = 15;
			EXPECT(gpu_aes_kseg_mode(&k, alg, dir, iv, tweak, 16, 0,
						 &ecb) ==
			       gpu_aes_alg_len_valid(alg, 15));
			k.len = 32;
			EXPECT(gpu_aes_kseg_mode(&k, alg, dir, iv, tweak, 3, 0,
						 &ecb) == !gpu_aes_alg_aead(alg));
		}
	}
	memset(&k, 0, sizeof(k));
	EXPECT(!gpu_aes_kseg_mode(&k, 0, 0, iv, 0, 16, 0, &ecb));
	EXPECT(!gpu_aes_kseg_mode(&k, GPU_AES_ALG_MAX + 1, 0, iv, 0, 16, 0,
				  &ecb));
	EXPECT(k.op == 0 && k.len == 0);
	/* the modes as they are */
	EXPECT(gpu_aes_alg_aux(GPU_AES_ALG_ECB) == GPU_AES_AUX_NONE);
	EXPECT(gpu_aes_alg_aux(GPU_AES_ALG_CTR) == GPU_AES_AUX_NONE);
	EXPECT(gpu_aes_alg_aux(GPU_AES_ALG_XTS) == GPU_AES_AUX_TWEAK);
	EXPECT(gpu_aes_alg_aux(GPU_AES_ALG_GCM) == GPU_AES_AUX_J0);
	EXPECT(gpu_aes_alg_aux(GPU_AES_ALG_CBC) == GPU_AES_AUX_IV);
	EXPECT(gpu_aes_alg_aux(GPU_AES_ALG_XCTR) == GPU_AES_AUX_IV);
	EXPECT(gpu_aes_kop(GPU_AES_ALG_CBC, GPU_AES_DIR_ENCRYPT) ==
	       GPU_AES_KOP_CBC_ENC);
	EXPECT(gpu_aes_kop(GPU_AES_ALG_CTR, GPU_AES_DIR_DECRYPT) ==
	       GPU_AES_KOP_CTR_DEC);
	EXPECT(gpu_aes_kop(GPU_AES_ALG_XCTR, GPU_AES_DIR_DECRYPT) ==
	       GPU_AES_KOP_XCTR_DEC);
}

/*
 * The op table's rules that the kernel's structure relies on: a serial
 * op runs on encrypting CTAs (no inverse tables) in the EXT build only;
 * a CBC op takes its chain from chunk aux; op numbers past the last are
 * nothing.
 */
static void test_kop_flags(void)
{
	static const struct {
		uint32_t op, flags;
	} want[] = {
		{ GPU_AES_KOP_CTR_ENC, 0 },
		{ GPU_AES_KOP_ECB_ENC, 0 },
		{ GPU_AES_KOP_ECB_DEC, GPU_AES_KOPF_DEC_TABLES },
		{ GPU_AES_KOP_XTS_ENC, GPU_AES_KOPF_EXT | GPU_AES_KOPF_TWEAK },
		{ GPU_AES_KOP_XTS_DEC, GPU_AES_KOPF_EXT | GPU_AES_KOPF_TWEAK |
				       GPU_AES_KOPF_DEC_TABLES },
		{ GPU_AES_KOP_GCM_ENC, GPU_AES_KOPF_EXT | GPU_AES_KOPF_GHASH |
				       GPU_AES_KOPF_LONG_CHUNKS },
		{ GPU_AES_KOP_GCM_DEC, GPU_AES_KOPF_EXT | GPU_AES_KOPF_GHASH |
				       GPU_AES_KOPF_LONG_CHUNKS },
		{ GPU_AES_KOP_CBC_ENC, GPU_AES_KOPF_EXT | GPU_AES_KOPF_SERIAL |
				       GPU_AES_KOPF_CHAIN },
		{ GPU_AES_KOP_CBC_DEC, GPU_AES_KOPF_EXT | GPU_AES_KOPF_CHAIN |
				       GPU_AES_KOPF_DEC_TABLES },
		/* CTR's code, but in the EXT build (aes_kernel.cu) */
		{ GPU_AES_KOP_XCTR_ENC, GPU_AES_KOPF_EXT },
		{ GPU_AES_KOP_XCTR_DEC, GPU_AES_KOPF_EXT },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		EXPECT(gpu_aes_kop_flags(want[i].op) == want[i].flags);
	for (uint32_t op = 0; op < 256; op++) {
		uint32_t f = gpu_aes_kop_flags(op);

		if (f & GPU_AES_KOPF_SERIAL)
			EXPECT(!(f & GPU_AES_KOPF_DEC_TABLES) &&
			       (f & GPU_AES_KOPF_EXT) &&
			       !(f & GPU_AES_KOPF_GHASH));
		if (op >= GPU_AES_NR_KOPS)
			EXPECT(f == 0);
	}
}

/*
 * Serial segments: one whole chunk each, after the parallel chunks of the
 * encryption tables, longest first; they do not count in the chunk size.
 * And the kernel's hand-out of serial chunks (thread t of encrypting CTA
 * b takes t * ctas + b, then every ctas * threads) runs each exactly once.
 */
static void test_chunks_serial(void)
{
	static const struct {
		uint8_t op;
		uint32_t blocks;
	} in[] = {
		{ GPU_AES_KOP_CBC_ENC, 10 },
		{ GPU_AES_KOP_CTR_ENC, 5000 },
		{ GPU_AES_KOP_CBC_DEC, 9000 },
		{ GPU_AES_KOP_CBC_ENC, 300 },
		{ GPU_AES_KOP_ECB_ENC, 0 },
		{ GPU_AES_KOP_CBC_ENC, 10 },
		{ GPU_AES_KOP_XTS_DEC, 20 },
	};
	static const uint32_t order[] = { 1, 1, 3, 0, 5, 2, 2, 2, 6 };
	enum { NS = sizeof(in) / sizeof(in[0]) };
	struct gpu_aes_kseg s[NS];
	struct gpu_aes_kchunk c[16];
	size_t n, nenc, nser;

	memset(s, 0, sizeof(s));
	for (int i = 0; i < NS; i++) {
		s[i].op = in[i].op;
		s[i].len = 16 * in[i].blocks;
	}
	n = gpu_aes_count_chunks(s, NS, GPU_AES_CHUNK_BLOCKS);
	EXPECT(n == 9);
	nenc = gpu_aes_build_chunks(s, NS, GPU_AES_CHUNK_BLOCKS, c, &nser);
	EXPECT(nenc == 5 && nser == 3);
	for (size_t i = 0; i < n && i < 9; i++)
		EXPECT(c[i].seg == order[i]);
	for (size_t i = nenc - nser; i < nenc; i++)
		EXPECT(c[i].block0 == 0 && c[i].nblocks == in[c[i].seg].blocks);
	EXPECT(c[5].block0 == 0 && c[6].block0 == GPU_AES_CHUNK_BLOCKS &&
	       c[7].nblocks == 9000 - 2 * GPU_AES_CHUNK_BLOCKS);

	/* A 1 GiB chain next to 1000 CTR blocks: the chunks are CTR's. */
	s[0].op = GPU_AES_KOP_CBC_ENC;
	s[0].len = 1U << 30;
	s[1].op = GPU_AES_KOP_CTR_ENC;
	s[1].len = 16 * 1000;
	EXPECT(gpu_aes_chunk_blocks(s, 2, 132) == 256);
	EXPECT(gpu_aes_count_chunks(s, 2, 256) == 1 + 4);

	static const uint32_t ctas_of[] = { 1, 7, 132, 264 };

	for (int ci = 0; ci < 4; ci++)
	for (uint32_t nt = 128; nt <= 512; nt *= 4)
	for (int k = 0; k < 8; k++) {
		static uint8_t seen[3 * 264 * 512];
		const uint32_t ctas = ctas_of[ci], all = ctas * nt;
		const uint32_t nsrs[8] = { 0, 1, ctas - 1, ctas + 1, all - 1,
					   all, all + 1, 2 * all + 5 };
		const uint32_t nsr = nsrs[k];
		int ok = 1;

		memset(seen, 0, nsr);
		for (uint32_t b = 0; b < ctas; b++)
			for (uint32_t t = 0; t < nt; t++)
				for (uint32_t j = t * ctas + b; j < nsr;
				     j += ctas * nt)
					seen[j]++;
		for (uint32_t j = 0; j < nsr; j++)
			ok &= seen[j] == 1;
		EXPECT(ok);
	}
}

/*
 * run_cbc_dec() replayed on the CPU with the kernel's round arithmetic:
 * chunk aux from the input, every warp's block before its range read
 * before any block of the chunk is written (the CTA barrier), lanes in
 * steps of 32 that read all their blocks before writing, the block
 * before a lane's from the lane before (lane 31's of the last step for
 * lane 0).  Chunks run first to last, so a chunk's predecessor has
 * already become plaintext in the buffer when it starts: only the host's
 * copy in chunk aux is right.  run_cbc_enc(): one chain, G blocks loaded
 * ahead.  Both in place, against OpenSSL.
 */
static void cbc_dec_emulate(const struct gpu_aes_dev_key *dk, unsigned int nr,
			    const uint8_t iv[16], uint8_t *buf, uint32_t len,
			    uint32_t chunk, uint32_t nt)
{
	struct gpu_aes_kseg sg;
	uint32_t nw = nt / 32;
	size_t nser;

	memset(&sg, 0, sizeof(sg));
	sg.op = GPU_AES_KOP_CBC_DEC;
	sg.len = len;
	memcpy(sg.aux, iv, 16);
	size_t nch = gpu_aes_count_chunks(&sg, 1, chunk);
	struct gpu_aes_kchunk *ch = calloc(nch, sizeof(*ch));
	uint32_t (*prev)[4] = calloc(nw, sizeof(*prev));

	if (!ch || !prev)
		abort();
	gpu_aes_build_chunks(&sg, 1, chunk, ch, &nser);
	gpu_aes_chunk_aux(&sg, dk, buf, ch, nch);
	for (size_t ci = 0; ci < nch; ci++) {
		uint8_t *p = buf + 16 * (size_t)ch[ci].block0;
		uint32_t nb = ch[ci].nblocks;
		uint32_t pw = ((nb + nw - 1) / nw + 31) & ~31U;

		for (uint32_t w = 0; w < nw; w++) {
			uint32_t st = w * pw < nb ? w * pw : nb;

			memcpy(prev[w], ch[ci].aux, 16);
			if (st && st < nb)
				words(p + 16 * (size_t)(st - 1), prev[w]);
		}
		for (uint32_t w = 0; w < nw; w++) {
			uint32_t st = w * pw < nb ? w * pw : nb;
			uint32_t end = st + pw < nb ? st + pw : nb;

			for (uint32_t i0 = st; i0 < end; i0 += 32) {
				uint32_t x[32][4], y[4], s4[4];

				for (uint32_t l = 0; l < 32; l++) {
					memset(x[l], 0, 16);
					if (i0 + l < end)
						words(p + 16 * (size_t)(i0 + l), x[l]);
				}
				for (uint32_t l = 0; l < 32 && i0 + l < end; l++) {
					memcpy(y, l ? x[l - 1] : prev[w], 16);
					memcpy(s4, x[l], 16);
					emu(dk->drk, nr, 1, s4);
					for (int k = 0; k < 4; k++)
						s4[k] ^= y[k];
					unwords(s4, p + 16 * (size_t)(i0 + l));
				}
				memcpy(prev[w], x[31], 16);
			}
		}
	}
	free(ch);
	free(prev);
}

static void cbc_enc_emulate(const struct gpu_aes_dev_key *dk, unsigned int nr,
			    const uint8_t iv[16], uint8_t *buf, uint32_t len)
{
	enum { G = 4 };
	struct gpu_aes_kseg sg;
	struct gpu_aes_kchunk ch;
	uint32_t x[4], cur[G][4], nxt[G][4];
	size_t nser;

	memset(&sg, 0, sizeof(sg));
	sg.op = GPU_AES_KOP_CBC_ENC;
	sg.len = len;
	memcpy(sg.aux, iv, 16);
	EXPECT(gpu_aes_count_chunks(&sg, 1, 256) == 1);
	EXPECT(gpu_aes_build_chunks(&sg, 1, 256, &ch, &nser) == 1 && nser == 1);
	gpu_aes_chunk_aux(&sg, dk, buf, &ch, 1);
	memcpy(x, ch.aux, 16);
	for (uint32_t g = 0; g < G; g++) {
		memset(cur[g], 0, 16);
		if (g < ch.nblocks)
			words(buf + 16 * g, cur[g]);
	}
	for (uint32_t b0 = 0; b0 < ch.nblocks; b0 += G) {
		for (uint32_t g = 0; g < G; g++) {
			memset(nxt[g], 0, 16);
			if (b0 + G + g < ch.nblocks)
				words(buf + 16 * (size_t)(b0 + G + g), nxt[g]);
		}
		for (uint32_t g = 0; g < G && b0 + g < ch.nblocks; g++) {
			for (int k = 0; k < 4; k++)
				x[k] ^= cur[g][k];
			emu(dk->erk, nr, 0, x);
			unwords(x, buf + 16 * (size_t)(b0 + g));
		}
		memcpy(cur, nxt, sizeof(cur));
	}
}

static void test_cbc(void)
{
	static const uint32_t chunks[] = { 256, 512, 768, 1024, 4096 };
	static uint8_t pt[300U << 10], ct[sizeof(pt)], buf[sizeof(pt)];
	struct rng g;
	int ok_dec = 1, ok_enc = 1;

	rng_seed(&g, 387);
	for (int it = 0; it < 60; it++) {
		unsigned int kl = 16 + 8 * (it % 3), nr;
		uint32_t len = 16 * (1 + (uint32_t)(rng_next(&g) %
			(it % 4 ? 300 : sizeof(pt) / 16)));
		uint32_t chunk = chunks[rng_next(&g) % 5], nt = 128U << (it % 3);
		uint8_t key[32], iv[16];
		struct gpu_aes_dev_key dk;

		rng_fill(&g, key, 32);
		rng_fill(&g, iv, 16);
		rng_fill(&g, pt, len);
		EXPECT(gpu_aes_dev_expand_key(key, kl, &dk, &nr) == 0);
		EXPECT(ref_crypt(GPU_AES_ALG_CBC, GPU_AES_DIR_ENCRYPT, key, kl,
				 iv, pt, ct, len) == 0);
		memcpy(buf, ct, len);
		cbc_dec_emulate(&dk, nr, iv, buf, len, chunk, nt);
		if (memcmp(buf, pt, len)) {
			printf("cbc dec emulation: kl %u len %u chunk %u nt %u\n",
			       kl, len, chunk, nt);
			ok_dec = 0;
		}
		memcpy(buf, pt, len);
		cbc_enc_emulate(&dk, nr, iv, buf, len);
		if (memcmp(buf, ct, len)) {
			printf("cbc enc emulation: kl %u len %u\n", kl, len);
			ok_enc = 0;
		}
		/* OpenSSL in place gives the same (the cpu backend relies on it) */
		memcpy(buf, ct, len);
		EXPECT(ref_crypt(GPU_AES_ALG_CBC, GPU_AES_DIR_DECRYPT, key, kl,
				 iv, buf, buf, len) == 0 &&
		       !memcmp(buf, pt, len));
	}
	EXPECT(ok_dec);
	EXPECT(ok_enc);
}

/*
 * XCTR: run_chunk()'s counter replayed on the CPU (xctr_words(): the
 * segment's aux, the IV in the kernel's words as gpu_aes_kseg_mode()
 * leaves it for AUX IV, XOR block0 + i + 1 in the low two words), over
 * the chunks the host cuts, a partial last block byte by byte; in place.
 */
static void xctr_emulate(const struct gpu_aes_dev_key *dk, unsigned int nr,
			 const uint8_t iv[16], uint8_t *buf, uint32_t len,
			 uint32_t chunk)
{
	struct gpu_aes_kseg sg;
	size_t nser;
	int ecb = 0;

	memset(&sg, 0, sizeof(sg));
	sg.len = len;
	EXPECT(gpu_aes_kseg_mode(&sg, GPU_AES_ALG_XCTR, GPU_AES_DIR_DECRYPT,
				 iv, 0, 0, 0, &ecb) == 1 && !ecb);
	size_t nch = gpu_aes_count_chunks(&sg, 1, chunk);
	struct gpu_aes_kchunk *ch = calloc(nch, sizeof(*ch));

	if (!ch)
		abort();
	EXPECT(gpu_aes_build_chunks(&sg, 1, chunk, ch, &nser) == nch &&
	       !nser);
	gpu_aes_chunk_aux(&sg, dk, buf, ch, nch);
	for (size_t ci = 0; ci < nch; ci++) {
		static const uint32_t zero[4];

		/* no chunk aux: block0 is all a chunk needs */
		EXPECT(!memcmp(ch[ci].aux, zero, 16));
		for (uint32_t i = 0; i < ch[ci].nblocks; i++) {
			uint64_t bi = ch[ci].block0 + i, n = bi + 1;
			uint32_t w[4] = { sg.aux[0] ^ (uint32_t)n,
					  sg.aux[1] ^ (uint32_t)(n >> 32),
					  sg.aux[2], sg.aux[3] };
			uint8_t ks[16], *q = buf + 16 * bi;
			uint32_t left = len - 16 * (uint32_t)bi;

			emu(dk->erk, nr, 0, w);
			unwords(w, ks);
			for (uint32_t k = 0; k < 16 && k < left; k++)
				q[k] ^= ks[k];
		}
	}
	free(ch);
}

/*
 * The GPU tests' XCTR reference (ref.c, over OpenSSL's ECB) against the
 * kernel's known answers (crypto/testmgr.h, aes_xctr_tv_template: a
 * partial block, a 256-bit key), then the kernel's counter over every
 * chunk size against that reference.
 */
static void test_xctr(void)
{
	static const struct {
		unsigned int klen, len;
		uint8_t key[32], iv[16], pt[31], ct[31];
	} tv[] = {
		{ 16, 31,
		  { 0x44, 0x03, 0xbf, 0x4c, 0x30, 0xf0, 0xa7, 0xd6,
		    0xbd, 0x54, 0xbb, 0x66, 0x8e, 0xa6, 0x0e, 0x8a },
		  { 0xe6, 0xf7, 0x26, 0xdf, 0x8c, 0x3c, 0xaa, 0x88,
		    0xce, 0xc1, 0xbd, 0x43, 0x3b, 0x09, 0x62, 0xad },
		  { 0x3c, 0xe3, 0x46, 0xb9, 0x8f, 0x9d, 0x3f, 0x8d,
		    0xef, 0xf2, 0x53, 0xab, 0x24, 0xe2, 0x29, 0x08,
		    0xf8, 0x7e, 0x1d, 0xa6, 0x6d, 0x86, 0x7d, 0x60,
		    0x97, 0x63, 0x93, 0x29, 0x71, 0x94, 0xb4 },
		  { 0xd4, 0xa3, 0xc6, 0xb8, 0xc1, 0x6f, 0x70, 0x1a,
		    0x52, 0x0c, 0xed, 0x4c, 0xaf, 0x51, 0x56, 0x23,
		    0x48, 0x45, 0x07, 0x10, 0x34, 0xc5, 0xba, 0x71,
		    0xe5, 0xf8, 0x1e, 0xd8, 0xcb, 0xa6, 0xe7 } },
		{ 32, 31,
		  { 0x77, 0x5c, 0xc0, 0x73, 0x9a, 0x64, 0x97, 0x91,
		    0x2f, 0xee, 0xe0, 0x20, 0xc2, 0x04, 0x59, 0x2e,
		    0x97, 0xd2, 0xa7, 0x70, 0xb3, 0xb0, 0x21, 0x6b,
		    0x8f, 0xbf, 0xb8, 0x51, 0xa8, 0xea, 0x0f, 0x62 },
		  { 0x31, 0x8e, 0x1f, 0xcd, 0xfd, 0x23, 0xeb, 0x7f,
		    0x8a, 0x1f, 0x1b, 0x23, 0x53, 0x27, 0x44, 0xe5 },
		  { 0xcd, 0xff, 0x8c, 0x9b, 0x94, 0x5a, 0x51, 0x3f,
		    0x40, 0x93, 0x56, 0x93, 0x66, 0x39, 0x63, 0x1f,
		    0xbf, 0xe6, 0xa4, 0xfa, 0xbe, 0x79, 0x93, 0x03,
		    0xf5, 0x66, 0x74, 0x16, 0xfc, 0xe4, 0xce },
		  { 0x8b, 0xd3, 0xc3, 0xce, 0x66, 0xf8, 0x66, 0x4c,
		    0xad, 0xd6, 0xf5, 0x0f, 0xd8, 0x99, 0x5a, 0x75,
		    0xa1, 0x3c, 0xab, 0x0b, 0x21, 0x36, 0x57, 0x72,
		    0x88, 0x29, 0xe9, 0xea, 0x4a, 0x8d, 0xe9 } },
	};
	static const uint32_t chunks[] = { 256, 512, 768, 1024, 4096 };
	static uint8_t pt[(1U << 20) + 64], ct[sizeof(pt)], buf[sizeof(pt)];
	struct rng g;
	int ok = 1;

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		struct gpu_aes_dev_key dk;
		unsigned int nr;

		EXPECT(ref_crypt(GPU_AES_ALG_XCTR, GPU_AES_DIR_ENCRYPT,
				 tv[i].key, tv[i].klen, tv[i].iv, tv[i].pt,
				 buf, tv[i].len) == 0 &&
		       !memcmp(buf, tv[i].ct, tv[i].len));
		EXPECT(gpu_aes_dev_expand_key(tv[i].key, tv[i].klen, &dk,
					      &nr) == 0);
		memcpy(buf, tv[i].ct, tv[i].len);
		xctr_emulate(&dk, nr, tv[i].iv, buf, tv[i].len, 256);
		EXPECT(!memcmp(buf, tv[i].pt, tv[i].len));
	}
	rng_seed(&g, 601);
	for (int it = 0; it < 24; it++) {
		unsigned int kl = 16 + 8 * (it % 3), nr;
		/* past 2^16 blocks in some: the counter's third byte moves */
		uint32_t len = 1 + (uint32_t)(rng_next(&g) %
			(it % 4 ? 5000 : sizeof(pt)));
		uint32_t chunk = chunks[rng_next(&g) % 5];
		uint8_t key[32], iv[16];
		struct gpu_aes_dev_key dk;

		if (it == 3)
			len = sizeof(pt) - 17;
		rng_fill(&g, key, 32);
		rng_fill(&g, iv, 16);
		rng_fill(&g, pt, len);
		EXPECT(gpu_aes_dev_expand_key(key, kl, &dk, &nr) == 0);
		EXPECT(ref_crypt(GPU_AES_ALG_XCTR, GPU_AES_DIR_ENCRYPT, key, kl,
				 iv, pt, ct, len) == 0);
		memcpy(buf, pt, len);
		xctr_emulate(&dk, nr, iv, buf, len, chunk);
		if (memcmp(buf, ct, len)) {
			printf("xctr emulation: kl %u len %u chunk %u\n", kl,
			       len, chunk);
			ok = 0;
		}
		/* the reference in place, the other way: the plaintext */
		EXPECT(ref_crypt(GPU_AES_ALG_XCTR, GPU_AES_DIR_DECRYPT, key, kl,
				 iv, buf, buf, len) == 0 &&
		       !memcmp(buf, pt, len));
	}
	EXPECT(ok);
}

/* XTS composed from ECB (the reference for 192-bit keys) vs OpenSSL's. */
static void test_ref_xts(void)
{
	struct rng g;
	int ok = 1;

	rng_seed(&g, 29);
	for (int it = 0; it < 200; it++) {
		unsigned int kl = it % 2 ? 32 : 16;
		uint32_t len = 16 + (uint32_t)(rng_next(&g) % 600);
		uint8_t k[32], tk[32], iv[16], in[616], a[616], b[616];
		int dir = (int)(rng_next(&g) % 2);

		rng_fill(&g, k, 32);
		rng_fill(&g, tk, 32);
		rng_fill(&g, iv, 16);
		rng_fill(&g, in, len);
		if (ref_xts(dir, k, tk, kl, iv, in, a, len) ||
		    ref_xts_evp(dir, k, tk, kl, iv, in, b, len) ||
		    memcmp(a, b, len))
			ok = 0;
	}
	EXPECT(ok);
}

/*
 * The kernel's GHASH decomposition, replayed on the CPU: hash stream with
 * zero blocks in front, chunks from build_chunks, per lane Horner by
 * H^threads (no product before a warp's first group), then the lane's,
 * the warp's and the chunk's factors: all in the lane's where hp1[] holds
 * them, else the warp's and the chunk's as one power of H^32 where hp32[]
 * holds it, else as two; XOR of everything; the tag must equal OpenSSL's.
 * Counts which of the three ways each warp took.
 */
static unsigned long gcm_joint, gcm_folded, gcm_unfolded;

static int gcm_emulate(const uint8_t *key, unsigned int kl, const uint8_t iv[12],
		       const uint8_t *aad, uint32_t aad_len, const uint8_t *ct,
		       uint32_t len, uint32_t chunk, uint32_t nt, uint8_t tag[16])
{
	struct gpu_aes_dev_key dk;
	struct gpu_aes_kseg sg;
	uint8_t h[16], zero[16] = { 0 }, j0[16];
	uint32_t a = (aad_len + 15) / 16, c = (len + 15) / 16, n = a + c + 1;
	uint32_t acc[4] = { 0 }, nw = nt / 32, N, pad;

	memset(&dk, 0, sizeof(dk));
	memset(&sg, 0, sizeof(sg));
	if (ref_block(key, kl, zero, h))
		return -1;
	gpu_aes_gcm_powers(h, &dk);
	sg.len = len;
	sg.aad_len = aad_len;
	sg.op = GPU_AES_KOP_GCM_ENC;
	N = gpu_aes_seg_blocks(&sg);
	pad = N - n;
	size_t nch = gpu_aes_count_chunks(&sg, 1, chunk);
	struct gpu_aes_kchunk *ch = calloc(nch, sizeof(*ch));

	if (!ch)
		return -1;
	size_t nser;

	gpu_aes_build_chunks(&sg, 1, chunk, ch, &nser);
	gpu_aes_chunk_aux(&sg, &dk, NULL, ch, nch);
	for (size_t ci = 0; ci < nch; ci++) {
		uint32_t G = ch[ci].nblocks / 32;

		for (uint32_t w = 0; w < nw && w < G; w++) {
			uint32_t wacc[4] = { 0 }, glast = w + nw * ((G - 1 - w) / nw);
			uint32_t e = gpu_aes_gcm_warp_power(N, ch[ci].block0,
							    glast);
			int joint = e < GPU_AES_HP1_GROUPS;

			for (uint32_t l = 0; l < 32; l++) {
				uint32_t y[4] = { 0 };

				for (uint32_t gi = w; gi < G; gi += nw) {
					uint32_t v = ch[ci].block0 + 32 * gi + l;
					uint8_t blk[16] = { 0 };
					uint32_t x[4], xr[4];

					if (v >= pad && v - pad < a) {
						uint32_t q = v - pad, m = aad_len - 16 * q;

						memcpy(blk, aad + 16 * q, m < 16 ? m : 16);
					} else if (v >= pad && v - pad < a + c) {
						uint32_t q = v - pad - a, m = len - 16 * q;

						memcpy(blk, ct + 16 * q, m < 16 ? m : 16);
					} else if (v >= pad) {
						uint64_t ab = (uint64_t)aad_len * 8, cb = (uint64_t)len * 8;

						for (int i = 0; i < 8; i++) {
							blk[i] = (uint8_t)(ab >> (56 - 8 * i));
							blk[8 + i] = (uint8_t)(cb >> (56 - 8 * i));
						}
					}
					words(blk, x);
					gf128_from_gcm(x, xr);
					if (gi != w)
						gf128_mul_pre(y, &dk.hpre[nw],
							      y);
					for (int k = 0; k < 4; k++)
						y[k] ^= xr[k];
				}
				gf128_mul(y, dk.hp1[32 * (joint ? e + 1 : 1) - l],
					  y);
				for (int k = 0; k < 4; k++)
					wacc[k] ^= y[k];
			}
			if (joint) {
				gcm_joint++;
			} else if (e <= GPU_AES_HP32_MAX) {
				gf128_mul(wacc, dk.hp32[e], wacc);
				gcm_folded++;
			} else {
				gf128_mul(wacc, dk.hp32[G - 1 - glast], wacc);
				gf128_mul(wacc, ch[ci].aux, wacc);
				gcm_unfolded++;
			}
			for (int k = 0; k < 4; k++)
				acc[k] ^= wacc[k];
		}
	}
	free(ch);
	memcpy(j0, iv, 12);
	j0[12] = j0[13] = j0[14] = 0;
	j0[15] = 1;
	if (ref_block(key, kl, j0, j0))
		return -1;
	uint32_t e[4];

	words(j0, e);
	gpu_aes_gcm_tag(acc, e, tag);
	return 0;
}

static void test_gcm_hash(void)
{
	struct rng g;
	int ok = 1;
	static uint8_t aad[3000], pt[70000], ct[70016];

	rng_seed(&g, 38);
	for (int it = 0; it < 30 && ok; it++) {
		unsigned int kl = 16 + 8 * (it % 3);
		uint32_t aad_len = it % 4 == 0 ? 0 : (uint32_t)(rng_next(&g) % sizeof(aad));
		uint32_t len = it % 5 == 0 ? 0 : (uint32_t)(rng_next(&g) % sizeof(pt));
		uint32_t chunk = 256U << (rng_next(&g) % 3), nt = 128U << (it % 3);

		if (it % 7 == 3)	/* the long GCM chunks */
			chunk = GPU_AES_CHUNK_BLOCKS_GCM;
		uint8_t key[32], iv[12], want[16], got[16];

		rng_fill(&g, key, 32);
		rng_fill(&g, iv, 12);
		rng_fill(&g, aad, aad_len);
		rng_fill(&g, pt, len);
		if (ref_gcm(0, key, kl, iv, aad, aad_len, pt, ct, len, want, 16) ||
		    gcm_emulate(key, kl, iv, aad, aad_len, ct, len, chunk, nt, got) ||
		    memcmp(got, want, 16)) {
			printf("gcm emulation: kl %u aad %u len %u chunk %u nt %u\n",
			       kl, aad_len, len, chunk, nt);
			ok = 0;
		}
	}
	EXPECT(ok);
	/* All three ways of placing a warp's sum ran (short and long streams). */
	EXPECT(gcm_joint > 0 && gcm_folded > 0 && gcm_unfolded > 0);

	/* Several chunks at the GCM cap: a text of 2.5 chunks plus AAD. */
	{
		const uint32_t len = GPU_AES_CHUNK_BLOCKS_GCM * 40 + 7;
		uint8_t *big = malloc(2 * (size_t)len + 16);
		uint8_t key[32], iv[12], want[16], got[16];

		EXPECT(big != NULL);
		if (!big)
			return;
		rng_fill(&g, key, 32);
		rng_fill(&g, iv, 12);
		rng_fill(&g, aad, 1000);
		rng_fill(&g, big, len);
		EXPECT(ref_gcm(0, key, 16, iv, aad, 1000, big, big + len, len,
			       want, 16) == 0);
		EXPECT(gcm_emulate(key, 16, iv, aad, 1000, big + len, len,
				   GPU_AES_CHUNK_BLOCKS_GCM, 512, got) == 0);
		EXPECT(memcmp(got, want, 16) == 0);
		free(big);
	}
}

/*
 * The copies of a batch: runs merge across an allocation's padding (up to
 * the next GPU_AES_DATA_ALIGN boundary) and never across a wider gap,
 * whatever order the queues handed them in.
 */
static void test_merge_runs(void)
{
	/* queue 1's area first (the core's scan rotates), then queue 0's */
	struct gpu_aes_run q[] = {
		{ 1048576, 1052676 }, { 1052736, 1056836 },	/* padded */
		{ 8192, 12288 }, { 4096, 8192 },		/* wrapped */
		{ 12288, 16384 }, { 16448, 20544 },		/* 64 apart */
	};
	struct gpu_aes_run want[] = {
		{ 4096, 16384 }, { 16448, 20544 }, { 1048576, 1056836 },
	};
	/* an earlier run that ends where the next starts, given later */
	struct gpu_aes_run back[] = { { 4096, 8192 }, { 0, 4096 } };
	struct gpu_aes_run inside[] = { { 0, 8192 }, { 64, 128 }, { 100, 9000 } };
	size_t n;

	n = gpu_aes_merge_runs(q, sizeof(q) / sizeof(q[0]));
	EXPECT(n == 3);
	EXPECT(n == 3 && !memcmp(q, want, sizeof(want)));
	n = gpu_aes_merge_runs(back, 2);
	EXPECT(n == 1 && back[0].off == 0 && back[0].end == 8192);
	n = gpu_aes_merge_runs(inside, 3);
	EXPECT(n == 1 && inside[0].off == 0 && inside[0].end == 9000);
	EXPECT(gpu_aes_merge_runs(inside, 0) == 0);
}

/* The facts of a GPU as CUDA gives them, for gpu_aes_path_choose(). */
static struct gpu_aes_dev_facts gpu(int cc, unsigned int optin_kib,
				    int ptx, const char *built)
{
	struct gpu_aes_dev_facts f = {
		.cc = cc, .smem_optin = optin_kib * 1024, .image = 1,
		.code_sm = cc, .code_ptx = ptx, .built = built,
	};

	return f;
}

#define FAT "sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_120 compute_90"

/*
 * The code path and table sizes each generation gets, with the real
 * shared-memory limits a CTA may opt into (CUDA's occupancy tables):
 * T4 64 KiB, A100 and Orin 163, A10/L4/L40S/RTX 99, H100/B200 227.
 */
static void test_gpu_path(void)
{
	struct gpu_aes_kernel_caps c;
	struct gpu_aes_dev_facts f;
	char code[64];

	/* Turing: portable, variant 0's 64 KiB fill its 64 exactly */
	f = gpu(75, 64, 75, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_PORTABLE);
	EXPECT(c.smem_max == 65536 && !c.jit && strstr(c.why, "no TMA"));
	EXPECT(gpu_aes_launch_variant(&c, 0, 1, 1) == 0);
	EXPECT(gpu_aes_launch_variant(&c, 1, 1, 0) == 0);
	EXPECT(!gpu_aes_launch_stages(&c, 0, 1, 0));
	gpu_aes_code_name(&c, code, sizeof(code));
	EXPECT(!strcmp(code, "sm_75"));
	/* ... and a byte of static shared memory would not fit it */
	f.static_smem = 16;
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_NONE);
	EXPECT(strstr(c.why, "64 KiB of shared memory") && c.smem_max == 0);

	/* Ampere A100: variant 1's encryption tables fit, not its decryption */
	f = gpu(80, 163, 75, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_PORTABLE);
	EXPECT(gpu_aes_launch_variant(&c, 1, 1, 0) == 1);
	EXPECT(gpu_aes_launch_variant(&c, 1, 0, 1) == 0);
	EXPECT(gpu_aes_launch_variant(&c, 1, 1, 1) == 0);
	EXPECT(!gpu_aes_launch_stages(&c, 0, 1, 0));
	/* Ampere/Ada consumer parts: variant 0 only */
	f = gpu(86, 99, 75, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_PORTABLE);
	EXPECT(gpu_aes_launch_variant(&c, 1, 1, 0) == 0);
	f = gpu(89, 99, 75, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_PORTABLE);

	/* Hopper: TMA, both variants, staged with either */
	f = gpu(90, 227, 90, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_TMA);
	EXPECT(!c.why[0] && !c.jit && c.code_sm == 90 && c.code_ptx == 90);
	EXPECT(gpu_aes_launch_variant(&c, 1, 1, 1) == 1);
	EXPECT(gpu_aes_launch_stages(&c, 1, 1, 1));
	EXPECT(gpu_aes_launch_stages(&c, 0, 1, 0));
	EXPECT(!strcmp(gpu_aes_path_name(c.path), "tma"));
	/* ... forced portable: no stage */
	f.force_portable = 1;
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_PORTABLE);
	EXPECT(strstr(c.why, "forced") && !gpu_aes_launch_stages(&c, 0, 1, 0));
	EXPECT(gpu_aes_launch_variant(&c, 1, 1, 1) == 1);
	/* ... running the compute_75 PTX alone, JIT-compiled: portable */
	f = gpu(90, 227, 75, "compute_75");
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_PORTABLE);
	EXPECT(c.jit && strstr(c.why, "compute_75"));
	gpu_aes_code_name(&c, code, sizeof(code));
	EXPECT(!strcmp(code, "sm_90 from compute_75 PTX, JIT-compiled"));

	/* Blackwell: datacenter 227 KiB, RTX 50 99 KiB; both TMA */
	f = gpu(100, 227, 90, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_TMA && !c.jit);
	f = gpu(120, 99, 90, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_TMA);
	EXPECT(gpu_aes_launch_variant(&c, 1, 1, 0) == 0);
	EXPECT(gpu_aes_launch_stages(&c, 0, 1, 1));
	/* a GPU without SASS here runs the compute_90 PTX, JIT-compiled */
	f = gpu(110, 227, 90, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_TMA && c.jit);
	/* whole words only: sm_10 is not sm_100 */
	f = gpu(10, 227, 90, "sm_100");
	f.cc = 100;
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_TMA && c.jit);

	/* too old, whatever the image */
	f = gpu(70, 96, 70, FAT);
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_NONE);
	EXPECT(strstr(c.why, "7.0 is older than 7.5"));
	f = gpu(61, 48, 0, FAT);
	f.image = 0;
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_NONE);
	EXPECT(strstr(c.why, "6.1 is older"));
	/* no image: a build for Hopper alone on an L4 */
	f = gpu(89, 99, 0, "sm_90 compute_90");
	f.image = 0;
	EXPECT(gpu_aes_path_choose(&f, &c) == GPU_AES_PATH_NONE);
	EXPECT(strstr(c.why, "no code for compute capability 8.9") &&
	       strstr(c.why, "(it carries sm_90 compute_90)"));
	EXPECT(!strcmp(gpu_aes_path_name(c.path), "none"));

	/* --gpu-path, else GPU_AES_CUDA_PATH */
	unsetenv("GPU_AES_CUDA_PATH");
	EXPECT(gpu_aes_cuda_path_forced(NULL) == 0);
	EXPECT(gpu_aes_cuda_path_forced("portable") == 1);
	EXPECT(gpu_aes_cuda_path_forced("auto") == 0);
	EXPECT(gpu_aes_cuda_path_forced("tma") == -1);
	setenv("GPU_AES_CUDA_PATH", "portable", 1);
	EXPECT(gpu_aes_cuda_path_forced(NULL) == 1);
	EXPECT(gpu_aes_cuda_path_forced("auto") == 0);	/* the option wins */
	setenv("GPU_AES_CUDA_PATH", "", 1);
	EXPECT(gpu_aes_cuda_path_forced(NULL) == 0);
	setenv("GPU_AES_CUDA_PATH", "Portable", 1);
	EXPECT(gpu_aes_cuda_path_forced(NULL) == -1);
	unsetenv("GPU_AES_CUDA_PATH");
}

/*
 * Zero-copy up to GPU_AES_CUDA_ZC_MAX bytes, and a batch that is half
 * serial chains or more at any size, unless the limit is 0.
 */
static void test_batch_zero_copy(void)
{
	struct gpu_aes_kseg s[3];

	memset(s, 0, sizeof(s));
	s[0].op = GPU_AES_KOP_XTS_ENC;
	s[0].len = 3U << 20;
	s[1].op = GPU_AES_KOP_CBC_ENC;
	s[1].len = 3U << 20;
	s[2].op = GPU_AES_KOP_CBC_DEC;
	s[2].len = 1U << 20;
	EXPECT(gpu_aes_batch_zero_copy(s, 1, 256U << 10, 256U << 10));
	EXPECT(!gpu_aes_batch_zero_copy(s, 1, (256U << 10) + 1, 256U << 10));
	/* 3 MiB of chains in 6: half */
	EXPECT(gpu_aes_batch_zero_copy(s, 2, 6U << 20, 256U << 10));
	/* 3 in 7: CBC decryption is parallel, not a chain */
	EXPECT(!gpu_aes_batch_zero_copy(s, 3, 7U << 20, 256U << 10));
	EXPECT(gpu_aes_batch_zero_copy(s + 1, 1, 3U << 20, 256U << 10));
	/* 0: never zero-copy, chains or not */
	EXPECT(!gpu_aes_batch_zero_copy(s + 1, 1, 3U << 20, 0));
	EXPECT(!gpu_aes_batch_zero_copy(s + 1, 1, 16, 0));
}

int main(void)
{
	test_gf128();
	test_xts_tweaks();
	test_ref_xts();
	test_gcm_hash();
	test_ctr();
	test_chunks();
	test_kop_flags();
	test_kseg_mode();
	test_chunks_serial();
	test_batch_zero_copy();
	test_merge_runs();
	test_tables();
	test_expand();
	test_rounds();
	test_cbc();
	test_xctr();
	test_shape();
	test_tune_cache();
	test_gpus();
	test_gpu_path();
	printf("cuda unit tests: %d passed, %d failed\n", checks - failures,
	       failures);
	return failures ? 1 : 0;
}
