// SPDX-License-Identifier: GPL-2.0-only
/*
 * unit_host - the cuda backend's parts that need no GPU: 128-bit counter
 * arithmetic, chunking, key expansion, the tables and the kernel's round
 * arithmetic (re-done here on the CPU word for word, against OpenSSL), the
 * tuning-cache format and --gpus parsing.  Runs in CI.
 */
#include "../../helper/cuda/aes_gpu.h"
#include "../../helper/cuda/aes_tables.h"
#include "../../helper/cuda/cuda_backend.h"
#include "ref.h"

#include <stdio.h>
#include <string.h>

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
	size_t n, nenc;
	uint32_t cover[4] = { 0 };

	memset(s, 0, sizeof(s));
	s[0].len = 1;					/* 1 chunk */
	s[0].op = GPU_AES_KOP_ECB_DEC;
	s[1].len = GPU_AES_CHUNK_BLOCKS * 16;		/* exactly 1 */
	s[1].op = GPU_AES_KOP_CTR;
	s[2].len = GPU_AES_CHUNK_BLOCKS * 16 * 3 + 5;	/* 4, partial */
	s[2].op = GPU_AES_KOP_ECB_DEC;
	s[3].len = 0;					/* none */
	s[3].op = GPU_AES_KOP_ECB_ENC;
	n = gpu_aes_count_chunks(s, 4, GPU_AES_CHUNK_BLOCKS);
	EXPECT(n == 6);
	nenc = gpu_aes_build_chunks(s, 4, GPU_AES_CHUNK_BLOCKS, c);
	EXPECT(nenc == 1);
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
		EXPECT(ref_crypt(1, dec, key, klen, iv, pt, ct, 16) == 0);
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

int main(void)
{
	test_ctr();
	test_chunks();
	test_tables();
	test_expand();
	test_rounds();
	test_shape();
	test_gpus();
	printf("cuda unit tests: %d passed, %d failed\n", checks - failures,
	       failures);
	return failures ? 1 : 0;
}
