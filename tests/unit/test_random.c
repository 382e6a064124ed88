// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random keys, IVs, lengths (1 B .. 1 MiB), algorithms and directions
 * through the producer and the cpu backend vs OpenSSL called directly.
 */
#include <string.h>

#include "harness.h"
#include "util.h"

#define MAX_LEN (1U << 20)

static uint32_t random_len(unsigned int alg)
{
	uint32_t len;

	switch (t_rand() % 4) {
	case 0:
		len = 1 + (uint32_t)(t_rand() % 64);
		break;
	case 1:
		len = 1 + (uint32_t)(t_rand() % 4096);
		break;
	case 2:
		len = 1 + (uint32_t)(t_rand() % (64 << 10));
		break;
	default:
		len = 1 + (uint32_t)(t_rand() % MAX_LEN);
	}
	if (alg == GPU_AES_ALG_ECB)
		len = (len + 15) & ~15U;
	return len > MAX_LEN ? MAX_LEN : len;
}

static void random_vs_openssl(unsigned int threads, unsigned int rounds)
{
	struct gpu_aes_producer *p = mk_producer(256, 8 << 20, threads, 50);
	static uint8_t in[MAX_LEN], out[MAX_LEN], ref[MAX_LEN];
	uint8_t keys[8][32];
	size_t klen[8];
	unsigned int n, s;

	CHECK(p);
	for (s = 0; s < 8; s++) {
		klen[s] = 16 + 8 * (s % 3);
		t_rand_bytes(keys[s], 32);
		CHECK_EQ(gpu_aes_producer_setkey(p, s, keys[s], klen[s]), 0);
	}
	/* Exact lengths at the edges first, then random ones. */
	for (n = 0; n < rounds; n++) {
		unsigned int alg = t_rand() & 1 ? GPU_AES_ALG_CTR :
						  GPU_AES_ALG_ECB;
		unsigned int dir = (unsigned int)(t_rand() & 1);
		uint32_t len = n == 0 ? 1 : n == 1 ? MAX_LEN : random_len(alg);
		uint8_t iv[16];

		if (alg == GPU_AES_ALG_ECB)
			len = (len + 15) & ~15U;
		s = (unsigned int)(t_rand() % 8);
		t_rand_bytes(iv, 16);
		t_rand_bytes(in, len);
		CHECK_EQ(ref_crypt(alg, dir, keys[s], klen[s], iv, in, ref,
				   len), 0);
		CHECK_EQ(gpu_aes_producer_run(p, alg, dir, s, iv, in, out,
					      len), 0);
		CHECK_MEM(out, ref, len);
	}
	gpu_aes_producer_destroy(p);
}

TEST(random_requests_vs_openssl_inline_backend)
{
	random_vs_openssl(1, 160);
}

TEST(random_requests_vs_openssl_threaded_backend)
{
	random_vs_openssl(3, 80);
}
