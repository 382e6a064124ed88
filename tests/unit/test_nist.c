// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cpu backend through the kernel's request path (kring) vs NIST SP 800-38A
 * F.1 (ECB) and F.5 (CTR), and CTR counter carries vs a counter computed
 * here and encrypted with OpenSSL ECB.
 */
#include <string.h>

#include "harness.h"
#include "util.h"

static const char *pt_hex =
	"6bc1bee22e409f96e93d7e117393172a"
	"ae2d8a571e03ac9c9eb76fac45af8e51"
	"30c81c46a35ce411e5fbc1191a0a52ef"
	"f69f2445df4f9b17ad2b417be66c3710";

static const struct {
	const char *key, *ecb, *ctr;
} sp800_38a[] = {
	{ "2b7e151628aed2a6abf7158809cf4f3c",
	  "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
	  "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
	  "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
	  "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee" },
	{ "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
	  "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eef"
	  "ef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e",
	  "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"
	  "1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050" },
	{ "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
	  "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870"
	  "b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
	  "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
	  "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6" },
};

TEST(cpu_backend_sp800_38a_ecb_ctr)
{
	uint8_t pt[64], ct[64], out[64], key[32], iv[16];
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	unsigned int i, cut, n = 0;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 2, 64, 1 << 20, 1, 50), 0);
	t_unhex(pt_hex, pt, 64);
	t_unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", iv, 16);
	for (i = 0; i < 3; i++) {
		size_t klen = t_unhex(sp800_38a[i].key, key, 32);
		struct kring_tfm *ecb = kr_tfm(GPU_AES_ALG_ECB, key, klen);
		struct kring_tfm *ctr = kr_tfm(GPU_AES_ALG_CTR, key, klen);

		CHECK(ecb && ctr);
		t_unhex(sp800_38a[i].ecb, ct, 64);
		CHECK_EQ(kr_run(ecb, GPU_AES_DIR_ENCRYPT, NULL, pt, out, 64), 0);
		CHECK_MEM(out, ct, 64);
		CHECK_EQ(kr_run(ecb, GPU_AES_DIR_DECRYPT, NULL, ct, out, 64), 0);
		CHECK_MEM(out, pt, 64);

		t_unhex(sp800_38a[i].ctr, ct, 64);
		CHECK_EQ(kr_run(ctr, GPU_AES_DIR_ENCRYPT, iv, pt, out, 64), 0);
		CHECK_MEM(out, ct, 64);
		CHECK_EQ(kr_run(ctr, GPU_AES_DIR_DECRYPT, iv, ct, out, 64), 0);
		CHECK_MEM(out, pt, 64);
		/* Any CTR length is a prefix of the same keystream. */
		for (cut = 1; cut < 64; cut += 7) {
			memset(out, 0, sizeof(out));
			CHECK_EQ(kr_run(ctr, GPU_AES_DIR_ENCRYPT, iv, pt, out, cut), 0);
			CHECK_MEM(out, ct, cut);
			CHECK_EQ(out[cut], 0);
			n++;
		}
		n += 4;
		kring_tfm_free(ecb);
		kring_tfm_free(ctr);
	}
	kfix_stop(&f);
	/* All of them the backend's: none ran on the CPU fallback. */
	CHECK_EQ(kstat("ring_requests") - ring0, n);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}

/* Big-endian 128-bit increment, the kernel's crypto_inc(iv, 16). */
static void inc128(uint8_t c[16])
{
	int i;

	for (i = 15; i >= 0; i--)
		if (++c[i])
			break;
}

TEST(cpu_backend_ctr_counter_carries_128_bits)
{
	static const char *starts[] = {
		"000102030405060708090a0bfffffffd",	/* carry out of 2^32 */
		"0001020304050607fffffffffffffffe",	/* carry out of 2^64 */
		"fffffffffffffffffffffffffffffffe",	/* wraps at 2^128 */
		"00000000fffffffffffffffffffffffc",	/* carry into 2^96 */
	};
	enum { LEN = 6 * 16 + 7 };
	uint8_t key[32], iv[16], ctr[16], pt[LEN], out[LEN], ks[7 * 16];
	uint8_t blocks[7 * 16];
	unsigned int i, k, b;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 1, 64, 1 << 20, 1, 50), 0);
	for (k = 0; k < 3; k++) {
		size_t klen = 16 + 8 * k;
		struct kring_tfm *t;

		t_rand_bytes(key, sizeof(key));
		t = kr_tfm(GPU_AES_ALG_CTR, key, klen);
		CHECK(t);
		for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
			t_unhex(starts[i], iv, 16);
			memcpy(ctr, iv, 16);
			for (b = 0; b < 7; b++) {
				memcpy(blocks + 16 * b, ctr, 16);
				inc128(ctr);
			}
			/* Keystream = ECB of the counters computed here. */
			CHECK_EQ(ref_crypt(GPU_AES_ALG_ECB, GPU_AES_DIR_ENCRYPT,
					   key, klen, NULL, blocks, ks,
					   sizeof(blocks)), 0);
			t_rand_bytes(pt, sizeof(pt));
			CHECK_EQ(kr_run(t, GPU_AES_DIR_ENCRYPT, iv, pt, out, LEN), 0);
			for (b = 0; b < LEN; b++)
				CHECK_EQ(out[b], pt[b] ^ ks[b]);
		}
		kring_tfm_free(t);
	}
	kfix_stop(&f);
}
