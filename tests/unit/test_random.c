// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random keys, IVs, lengths (1 B .. 1 MiB), algorithms and directions
 * through the kernel's request path (kring) and the cpu backend vs OpenSSL
 * called directly.
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
	static uint8_t in[MAX_LEN], out[MAX_LEN], ref[MAX_LEN];
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	int64_t ecb0 = kstat("ring_ecb_requests"), ctr0 = kstat("ring_ctr_requests");
	struct kring_tfm *ecb[8] = { NULL }, *ctr[8] = { NULL };
	unsigned int n, s, nr_ecb = 0;
	uint8_t keys[8][32];
	size_t klen[8];
	struct kfix f;

	/* A 1 MiB request needs a quarter of its queue's slice at most. */
	CHECK_EQ(kfix_start(&f, 2, 256, 4 << 20, threads, 50), 0);
	for (s = 0; s < 8; s++) {
		klen[s] = 16 + 8 * (s % 3);
		t_rand_bytes(keys[s], 32);
		ecb[s] = kr_tfm(GPU_AES_ALG_ECB, keys[s], klen[s]);
		ctr[s] = kr_tfm(GPU_AES_ALG_CTR, keys[s], klen[s]);
		CHECK(ecb[s] && ctr[s]);
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
		CHECK_EQ(kr_run(alg == GPU_AES_ALG_ECB ? ecb[s] : ctr[s], dir,
				iv, in, out, len), 0);
		CHECK_MEM(out, ref, len);
		nr_ecb += alg == GPU_AES_ALG_ECB;
	}
	for (s = 0; s < 8; s++) {
		kring_tfm_free(ecb[s]);
		kring_tfm_free(ctr[s]);
	}
	kfix_stop(&f);
	/* Every request the backend's, none on the CPU fallback. */
	CHECK_EQ(kstat("ring_requests") - ring0, rounds);
	CHECK_EQ(kstat("ring_ecb_requests") - ecb0, nr_ecb);
	CHECK_EQ(kstat("ring_ctr_requests") - ctr0, rounds - nr_ecb);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}

TEST(random_requests_vs_openssl_inline_backend)
{
	random_vs_openssl(1, 160);
}

TEST(random_requests_vs_openssl_threaded_backend)
{
	random_vs_openssl(3, 80);
}
