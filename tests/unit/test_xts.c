// SPDX-License-Identifier: GPL-2.0-only
/*
 * XTS through the kernel's request path (kring) and the cpu backend: IEEE
 * 1619 vectors, the ECB composition (xts_ecb.c) against OpenSSL's own XTS,
 * and every length 16..4096 against OpenSSL called directly.
 */
#include <string.h>

#include <openssl/evp.h>

#include "harness.h"
#include "util.h"
#include "xts_ecb.h"

/*
 * IEEE Std 1619-2007 Annex B.  Vector 1 has equal halves (all zero), so it
 * runs the composed path; vectors 15-18 steal ciphertext.  A NULL pt is
 * vector 10's: bytes 0..255 twice.
 */
static const struct {
	const char *name, *key, *iv, *pt, *ct;
} ieee1619[] = {
	{ "1",
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "00000000000000000000000000000000",
	  "0000000000000000000000000000000000000000000000000000000000000000",
	  "917cf69ebd68b2ec9b9fe9a3eadda692cd43d2f59598ed858c02c2652fbf922e" },
	{ "2",
	  "1111111111111111111111111111111122222222222222222222222222222222",
	  "33333333330000000000000000000000",
	  "4444444444444444444444444444444444444444444444444444444444444444",
	  "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0" },
	{ "3",
	  "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f022222222222222222222222222222222",
	  "33333333330000000000000000000000",
	  "4444444444444444444444444444444444444444444444444444444444444444",
	  "af85336b597afc1a900b2eb21ec949d292df4c047e0b21532186a5971a227a89" },
	{ "10",
	  "2718281828459045235360287471352662497757247093699959574966967627"
	  "3141592653589793238462643383279502884197169399375105820974944592",
	  "ff000000000000000000000000000000", NULL,
	  "1c3b3a102f770386e4836c99e370cf9bea00803f5e482357a4ae12d414a3e63b"
	  "5d31e276f8fe4a8d66b317f9ac683f44680a86ac35adfc3345befecb4bb188fd"
	  "5776926c49a3095eb108fd1098baec70aaa66999a72a82f27d848b21d4a741b0"
	  "c5cd4d5fff9dac89aeba122961d03a757123e9870f8acf1000020887891429ca"
	  "2a3e7a7d7df7b10355165c8b9a6d0a7de8b062c4500dc4cd120c0f7418dae3d0"
	  "b5781c34803fa75421c790dfe1de1834f280d7667b327f6c8cd7557e12ac3a0f"
	  "93ec05c52e0493ef31a12d3d9260f79a289d6a379bc70c50841473d1a8cc81ec"
	  "583e9645e07b8d9670655ba5bbcfecc6dc3966380ad8fecb17b6ba02469a020a"
	  "84e18e8f84252070c13e9f1f289be54fbc481457778f616015e1327a02b140f1"
	  "505eb309326d68378f8374595c849d84f4c333ec4423885143cb47bd71c5edae"
	  "9be69a2ffeceb1bec9de244fbe15992b11b77c040f12bd8f6a975a44a0f90c29"
	  "a9abc3d4d893927284c58754cce294529f8614dcd2aba991925fedc4ae74ffac"
	  "6e333b93eb4aff0479da9a410e4450e0dd7ae4c6e2910900575da401fc07059f"
	  "645e8b7e9bfdef33943054ff84011493c27b3429eaedb4ed5376441a77ed4385"
	  "1ad77f16f541dfd269d50d6a5f14fb0aab1cbb4c1550be97f7ab4066193c4caa"
	  "773dad38014bd2092fa755c824bb5e54c4f36ffda9fcea70b9c6e693e148c151" },
	{ "15",
	  "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
	  "9a785634120000000000000000000000",
	  "000102030405060708090a0b0c0d0e0f10",
	  "6c1625db4671522d3d7599601de7ca09ed" },
	{ "16",
	  "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
	  "9a785634120000000000000000000000",
	  "000102030405060708090a0b0c0d0e0f1011",
	  "d069444b7a7e0cab09e24447d24deb1fedbf" },
	{ "17",
	  "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
	  "9a785634120000000000000000000000",
	  "000102030405060708090a0b0c0d0e0f101112",
	  "e5df1351c0544ba1350b3363cd8ef4beedbf9d" },
	{ "18",
	  "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0",
	  "9a785634120000000000000000000000",
	  "000102030405060708090a0b0c0d0e0f10111213",
	  "9d84c813f719aa2c7be3f66171c7c5c2edbf9dac" },
};

TEST(xts_ieee1619_vectors)
{
	uint8_t key[64], iv[16], pt[512], ct[512], out[512];
	int64_t ring0 = kstat("ring_xts_requests"), fb0 = kstat("fallback_requests");
	unsigned int i;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 1, 64, 1 << 20, 1, 50), 0);
	for (i = 0; i < sizeof(ieee1619) / sizeof(ieee1619[0]); i++) {
		size_t klen = t_unhex(ieee1619[i].key, key, sizeof(key));
		size_t len = t_unhex(ieee1619[i].ct, ct, sizeof(ct));
		struct kring_tfm *t;

		t_unhex(ieee1619[i].iv, iv, sizeof(iv));
		if (ieee1619[i].pt)
			CHECK_EQ(t_unhex(ieee1619[i].pt, pt, sizeof(pt)), len);
		else
			for (size_t j = 0; j < len; j++)
				pt[j] = (uint8_t)j;
		t = kr_tfm(GPU_AES_ALG_XTS, key, klen);
		CHECK(t);
		memset(out, 0, sizeof(out));
		CHECK_EQ(kr_run(t, GPU_AES_DIR_ENCRYPT, iv, pt, out,
				(uint32_t)len), 0);
		if (t_memdiff(out, ct, len) >= 0)
			t_failf(__FILE__, __LINE__, "vector %s encryption",
				ieee1619[i].name);
		CHECK_MEM(out, ct, len);
		CHECK_EQ(kr_run(t, GPU_AES_DIR_DECRYPT, iv, ct, out,
				(uint32_t)len), 0);
		if (t_memdiff(out, pt, len) >= 0)
			t_failf(__FILE__, __LINE__, "vector %s decryption",
				ieee1619[i].name);
		CHECK_MEM(out, pt, len);
		kring_tfm_free(t);
	}
	kfix_stop(&f);
	CHECK_EQ(kstat("ring_xts_requests") - ring0,
		 2 * sizeof(ieee1619) / sizeof(ieee1619[0]));
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}

static EVP_CIPHER_CTX *ecb_ctx(const uint8_t *key, size_t len, int enc)
{
	const EVP_CIPHER *c = len == 16 ? EVP_aes_128_ecb() :
			      len == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	if (ctx && (EVP_CipherInit_ex(ctx, c, NULL, key, NULL, enc) != 1 ||
		    EVP_CIPHER_CTX_set_padding(ctx, 0) != 1)) {
		EVP_CIPHER_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

/* xts_ecb.c on its own, key = both halves of key_len bytes in all. */
static int composed(unsigned int dir, const uint8_t *key, size_t key_len,
		    const uint8_t *iv, const uint8_t *in, uint8_t *out,
		    size_t len)
{
	int enc = dir == GPU_AES_DIR_ENCRYPT, ret = -1;
	EVP_CIPHER_CTX *crypt = ecb_ctx(key, key_len / 2, enc);
	EVP_CIPHER_CTX *tweak = ecb_ctx(key + key_len / 2, key_len / 2, 1);

	if (crypt && tweak) {
		memcpy(out, in, len);
		ret = gpu_aes_xts_ecb(crypt, tweak, enc, iv, out, len);
	}
	EVP_CIPHER_CTX_free(crypt);
	EVP_CIPHER_CTX_free(tweak);
	return ret;
}

#define CMP_MAX	(64U << 10)

TEST(xts_composition_matches_evp_xts)
{
	static uint8_t in[CMP_MAX], a[CMP_MAX], b[CMP_MAX];
	uint8_t key[64], iv[16];
	unsigned int n, k, dir;

	t_rand_seed(0x1619);
	/* Every length over a few blocks, then random long ones. */
	for (n = 0; n < 1200; n++) {
		size_t len = n < 1100 ? 16 + n :
			     16 + (size_t)(t_rand() % (CMP_MAX - 15));

		for (k = 32; k <= 64; k += 32)
			for (dir = 0; dir < 2; dir++) {
				t_rand_bytes(key, k);
				t_rand_bytes(iv, 16);
				t_rand_bytes(in, len);
				CHECK_EQ(ref_xts(dir, key, k, iv, in, a, len),
					 0);
				CHECK_EQ(composed(dir, key, k, iv, in, b, len),
					 0);
				CHECK_MEM(b, a, len);
			}
	}
	/* Too short for XTS: refused before anything is touched. */
	memset(b, 0xa5, 16);
	memcpy(a, b, 16);
	CHECK_EQ(gpu_aes_xts_ecb(NULL, NULL, 1, iv, b, 15), -1);
	CHECK_MEM(b, a, 16);
}

#define RAND_MAX_LEN	4096U

/*
 * Every length 16..4096, 128 and 256-bit keys, both directions, through the
 * ring vs EVP's XTS; one request of each length and size per loop.
 */
static void xts_all_lengths(unsigned int threads)
{
	static uint8_t in[RAND_MAX_LEN], out[RAND_MAX_LEN], ref[RAND_MAX_LEN];
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	struct kring_tfm *t[2] = { NULL, NULL };
	uint8_t key[2][64], iv[16];
	unsigned int k, n = 0;
	uint32_t len;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 2, 256, 4 << 20, threads, 50), 0);
	for (k = 0; k < 2; k++) {
		t_rand_bytes(key[k], 64);
		t[k] = kr_tfm(GPU_AES_ALG_XTS, key[k], 32 + 32 * k);
		CHECK(t[k]);
	}
	for (len = 16; len <= RAND_MAX_LEN; len++)
		for (k = 0; k < 2; k++) {
			unsigned int dir = (len + k) & 1;

			t_rand_bytes(iv, 16);
			t_rand_bytes(in, len);
			CHECK_EQ(ref_xts(dir, key[k], 32 + 32 * k, iv, in, ref,
					 len), 0);
			CHECK_EQ(kr_run(t[k], dir, iv, in, out, len), 0);
			CHECK_MEM(out, ref, len);
			n++;
		}
	kring_tfm_free(t[0]);
	kring_tfm_free(t[1]);
	kfix_stop(&f);
	CHECK_EQ(kstat("ring_requests") - ring0, n);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}

TEST(xts_every_length_vs_openssl_inline_backend)
{
	t_rand_seed(0x7854);
	xts_all_lengths(1);
}

TEST(xts_every_length_vs_openssl_threaded_backend)
{
	t_rand_seed(0x7855);
	xts_all_lengths(3);
}

/*
 * The keys EVP's XTS does not take run composed: AES-192 and equal halves
 * vs xts_ecb.c called directly (held to EVP above); for equal halves,
 * decryption also vs EVP, which OpenSSL 3's default provider still allows.
 */
TEST(xts_192_and_equal_halves_vs_composition)
{
	static uint8_t in[RAND_MAX_LEN], out[RAND_MAX_LEN], ref[RAND_MAX_LEN];
	int64_t fb0 = kstat("fallback_requests");
	uint8_t key[64], iv[16];
	unsigned int n, evp_checked = 0;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 1, 64, 1 << 20, 1, 50), 0);
	t_rand_seed(0x192);
	for (n = 0; n < 600; n++) {
		size_t half = 16 + 8 * (n % 3);
		int equal = n % 6 >= 3;
		unsigned int dir = (n / 6) & 1;
		uint32_t len = 16 + (uint32_t)(t_rand() % (RAND_MAX_LEN - 15));
		struct kring_tfm *t;

		if (n % 6 == 1) /* AES-192, distinct halves */
			len = 16 + (uint32_t)(n % 256);
		t_rand_bytes(key, 2 * half);
		if (equal)
			memcpy(key + half, key, half);
		t_rand_bytes(iv, 16);
		t_rand_bytes(in, len);
		/* A new tfm each time: its key table slot is rewritten. */
		t = kr_tfm(GPU_AES_ALG_XTS, key, 2 * half);
		CHECK(t);
		CHECK_EQ(composed(dir, key, 2 * half, iv, in, ref, len), 0);
		CHECK_EQ(kr_run(t, dir, iv, in, out, len), 0);
		kring_tfm_free(t);
		CHECK_MEM(out, ref, len);
		if (equal && half != 24 && dir == GPU_AES_DIR_DECRYPT) {
			CHECK_EQ(ref_xts(dir, key, 2 * half, iv, in, ref, len),
				 0);
			CHECK_MEM(out, ref, len);
			evp_checked++;
		}
	}
	kfix_stop(&f);
	CHECK(evp_checked > 50);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}

/*
 * Beyond OpenSSL's 2^20-block data unit the backend composes: the first
 * 2^20 blocks of a longer unit are those EVP gives for exactly 2^20
 * (stealing touches only the last two), and the whole unit round-trips.
 * The ring takes requests up to a quarter of a queue's slice and
 * ring_max_bytes: both are raised so this one is the backend's.
 */
#define EVP_MAX		(16U << 20)
#define LONG_LEN	(EVP_MAX + 16 + 5)

TEST(xts_longer_than_evp_limit)
{
	static uint8_t in[LONG_LEN], out[LONG_LEN], ref[LONG_LEN];
	const size_t evp_max = EVP_MAX, len = LONG_LEN;
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	uint8_t key[64], iv[16];
	struct kring_tfm *t;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 1, 16, 68 << 20, 1, 50), 0);
	kring_set_params(0, 32U << 20, 60000);
	t_rand_seed(0x20);
	t_rand_bytes(key, 64);
	t_rand_bytes(iv, 16);
	t_rand_bytes(in, len);
	t = kr_tfm(GPU_AES_ALG_XTS, key, 64);
	CHECK(t);
	CHECK_EQ(ref_xts(GPU_AES_DIR_ENCRYPT, key, 64, iv, in, ref, evp_max),
		 0);
	CHECK(ref_xts(GPU_AES_DIR_ENCRYPT, key, 64, iv, in, out, len) == -1);
	CHECK_EQ(kr_run(t, GPU_AES_DIR_ENCRYPT, iv, in, out, (uint32_t)len), 0);
	CHECK_MEM(out, ref, evp_max);
	CHECK_EQ(composed(GPU_AES_DIR_ENCRYPT, key, 64, iv, in, ref, len), 0);
	CHECK_MEM(out, ref, len);
	CHECK_EQ(kr_run(t, GPU_AES_DIR_DECRYPT, iv, out, ref, (uint32_t)len), 0);
	CHECK_MEM(ref, in, len);
	kring_tfm_free(t);
	kfix_stop(&f);
	CHECK_EQ(kstat("ring_requests") - ring0, 2);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}
