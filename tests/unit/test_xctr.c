// SPDX-License-Identifier: GPL-2.0-only
/*
 * XCTR (GPU_AES_ALG_XCTR, HCTR2's XOR counter mode, the kernel's
 * xctr(aes)) in the helper: the cpu backend's cipher on its own
 * (cpu_aes.c, built from OpenSSL's ECB, which has no XCTR) against the
 * kernel's known answers (crypto/testmgr.h, aes_xctr_tv_template), then
 * the same vectors and longer random requests through the kernel's
 * request path (kring) served by the real core and cpu backend, against
 * a reference computed here a block at a time (util.c).  XCTR keeps the
 * request's IV: the output IV is the input one.
 */
#include <string.h>

#include "cpu_aes.h"
#include "harness.h"
#include "secret.h"
#include "util.h"

/* aes_xctr_tv_template: key, IV, plaintext, ciphertext; partial blocks. */
static const struct {
	const char *key, *iv, *pt, *ct;
} tv[] = {
	/* 128-bit key, 1 byte */
	{ "9c8dc4bd7136dc827ca1caa3235adba4",
	  "8de7a56a958642debaea6e690333860f",
	  "bd",
	  "b9" },
	/* 128-bit key, 31 bytes */
	{ "4403bf4c30f0a7d6bd54bb668ea60e8a",
	  "e6f726df8c3caa88cec1bd433b0962ad",
	  "3ce346b98f9d3f8deff253ab24e22908"
	  "f87e1da66d867d60976393297194b4",
	  "d4a3c6b8c16f701a520ced4caf515623"
	  "4845071034c5ba71e5f81ed8cba6e7" },
	/* 192-bit key, 17 bytes */
	{ "c8a02767043feda5b40c51912d277733"
	  "a5fc2a9f78d81c68",
	  "83991ae284caa9168dc42d1b67c88621",
	  "d62285b85d7e262ebe049d0c0391454a"
	  "36",
	  "0f44a96272ec12263ac68326625eb713"
	  "05" },
	/* 256-bit key, 31 bytes */
	{ "775cc0739a6497912feee020c204592e"
	  "97d2a770b3b0216b8fbfb851a8ea0f62",
	  "318e1fcdfd23eb7f8a1f1b23532744e5",
	  "cdff8c9b945a513f409356936639631f"
	  "bfe6a4fabe799303f5667416fce4ce",
	  "8bd3c3ce66f8664cadd6f50fd8995a75"
	  "a13cab0b213657728829e9ea4a8de9" },
	/* 256-bit key, 48 bytes */
	{ "a12f4ddefea1ffa873dde3e295fcea9c"
	  "d080420cb8433e9939380a8ce8453a7b",
	  "32c46fb11443d187e26f5a5802367e2a",
	  "9e5c1ef1d67d0957184855da7d44f96d"
	  "accd59bb10a29467d16ffe6b4a11e804"
	  "09264f8d5da17b42f94b66763812fefe",
	  "42bca764159a04712c5f94ba893aadbc"
	  "87b3f4094f570618dc8420f76485ca3b"
	  "abe6335634605d4b2e1613d477de2d2b" },
	/* 256-bit key, 255 bytes */
	{ "32372b8f7bb123790552de05f1683f6c"
	  "a4aebc21c2c6f0bd0f20b7a4c5057b64",
	  "ff264e6748ddcffe420904985f1efa80",
	  "99dc3b1941f9ff6e76b503fa61edf844"
	  "70b9f083806e317777e4c7b47702ab91"
	  "82c6f87c4661036909a0f712b7816ca9"
	  "105cbb55b344edb5a2524871905dda40"
	  "0b7f4a116da73d8e1bcd9d4e758b7d87"
	  "e53934321ee68d51d41fe31d50a02237"
	  "7cb0d9fbb6b216f66d26a04e8c6ae6b6"
	  "be4c7ce38810189011501990e7193fd0"
	  "31150f0696fea77bc3328869a412e364"
	  "023017746c887c9bd66d75df11867079"
	  "487d343e3358078bd250ac35154505b4"
	  "4d31971987234b8753dca91978f1bf35"
	  "300414d4cfb28c877ddb69c9cdfe403e"
	  "8d665b61e5f02d87933a0c2b049805c2"
	  "564dc46ccd7a987ee22d7907919fdf2f"
	  "72c98fcb0b871bb70486cb47fa5d03",
	  "0b00f7f2c86aba9a0a97187a00a0dbf4"
	  "5e8e4ab7e051f175178bb4f15611059f"
	  "2f2eba6704e1b4a5fc7c8cadc6b9d164"
	  "cabd5dafdb65484f1bb3945c0bd0eecd"
	  "b57f438ad88b66ded29c1365a447a703"
	  "c5a1468f2f84bcef489d9db5bd43ffd2"
	  "d27a5a13bfb4f60517cd0112f0352796"
	  "f4c165f769ef641b6e4ae877ce8301b7"
	  "60e6452acd414ab58ecc4593f1d6645f"
	  "3260e4294a826c8616e4ccdb5fc811a6"
	  "fe88d6c3e55cbb67eca57bf5a84f7725"
	  "5d0c2a99f9b9d1ae3c832a939b66ec68"
	  "2c93028a8a1e2f500937195c2a3ac2cb"
	  "cb898281b7bbef738bc9ae4296ef70c0"
	  "89c73e6a26c3e43953a9cf637d05f3ff"
	  "5204f67f2396e9f7ffd650a30e2071" },
};

#define NTV	(sizeof(tv) / sizeof(tv[0]))
#define TV_MAX	256

struct tvec {
	uint8_t key[32], iv[16], pt[TV_MAX], ct[TV_MAX];
	size_t klen, len;
};

static void tv_load(unsigned int i, struct tvec *v)
{
	v->klen = t_unhex(tv[i].key, v->key, sizeof(v->key));
	t_unhex(tv[i].iv, v->iv, sizeof(v->iv));
	v->len = t_unhex(tv[i].pt, v->pt, sizeof(v->pt));
	t_unhex(tv[i].ct, v->ct, sizeof(v->ct));
}

/* cpu_aes.c alone: both ways, out of place and in place, and prefixes. */
TEST(xctr_testmgr_vectors_cpu_crypt)
{
	struct gpu_aes_cpu_key *kc = gpu_aes_secret_alloc(sizeof(*kc));
	uint8_t out[TV_MAX], buf[TV_MAX];
	struct tvec v;
	unsigned int i;
	size_t cut;

	CHECK(kc);
	for (i = 0; i < NTV; i++) {
		struct gpu_aes_cpu_op op = {
			.alg = GPU_AES_ALG_XCTR, .dir = GPU_AES_DIR_ENCRYPT,
			.iv = v.iv, .in = v.pt, .out = out,
		};

		tv_load(i, &v);
		op.len = (uint32_t)v.len;
		gpu_aes_cpu_key_set(kc, v.key, (uint32_t)v.klen, 0);
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
		CHECK_MEM(out, v.ct, v.len);
		/* A context keeps no counter: each request starts at 1. */
		memset(out, 0, sizeof(out));
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
		CHECK_MEM(out, v.ct, v.len);
		memcpy(buf, v.ct, v.len);
		op.dir = GPU_AES_DIR_DECRYPT;
		op.in = op.out = buf;
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
		CHECK_MEM(buf, v.pt, v.len);
		/* Any length is a prefix of the same keystream. */
		op.dir = GPU_AES_DIR_ENCRYPT;
		op.in = v.pt;
		op.out = out;
		for (cut = 1; cut < v.len; cut += 5) {
			memset(out, 0, sizeof(out));
			op.len = (uint32_t)cut;
			CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
			CHECK_MEM(out, v.ct, cut);
			CHECK_EQ(out[cut], 0);
		}
	}
	/* A two-key (XTS) entry is not an XCTR key. */
	gpu_aes_cpu_key_set(kc, v.key, 16, 16);
	{
		struct gpu_aes_cpu_op op = {
			.alg = GPU_AES_ALG_XCTR, .dir = GPU_AES_DIR_ENCRYPT,
			.iv = v.iv, .in = v.pt, .out = out, .len = 16,
		};

		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_EIO);
	}
	gpu_aes_cpu_key_wipe(kc);
	CHECK_EQ(gpu_aes_cpu_key_held(kc), 0);
	gpu_aes_secret_free(kc, sizeof(*kc));
}

/*
 * Past one batch of counter blocks (cpu_aes.c makes 4 KiB at a time) and
 * past 2^16 blocks, where the counter's third byte moves: against the
 * reference, with every key size.
 */
TEST(xctr_long_requests_cpu_crypt_vs_reference)
{
	static const uint32_t lens[] = { 4095, 4096, 4097, 12345,
					 (1U << 20) + 17 };
	static uint8_t in[(1U << 20) + 17], out[sizeof(in)], want[sizeof(in)];
	struct gpu_aes_cpu_key *kc = gpu_aes_secret_alloc(sizeof(*kc));
	uint8_t key[32], iv[16];
	unsigned int i, k;

	CHECK(kc);
	for (k = 0; k < 3; k++) {
		size_t klen = 16 + 8 * k;

		t_rand_bytes(key, sizeof(key));
		gpu_aes_cpu_key_set(kc, key, (uint32_t)klen, 0);
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			struct gpu_aes_cpu_op op = {
				.alg = GPU_AES_ALG_XCTR,
				.dir = (uint8_t)((i + k) % 2), .iv = iv,
				.in = in, .out = out, .len = lens[i],
			};

			t_rand_bytes(iv, sizeof(iv));
			t_rand_bytes(in, lens[i]);
			CHECK_EQ(ref_crypt(GPU_AES_ALG_XCTR, op.dir, key, klen,
					   iv, in, want, lens[i]), 0);
			CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
			CHECK_MEM(out, want, lens[i]);
		}
	}
	gpu_aes_cpu_key_wipe(kc);
	gpu_aes_secret_free(kc, sizeof(*kc));
}

/*
 * The kernel's request path: the vectors, then random lengths, each a
 * ring request the cpu backend serves (none on the CPU fallback), and the
 * request's IV as it was once it completes (crypto/xctr.c gives the IV
 * back unchanged).
 */
TEST(xctr_through_kring_vectors_and_random_lengths)
{
	uint8_t in[8192], out[8192], want[8192], iv[16], key[32];
	int64_t ring0, fb0, x0;
	unsigned int i, n = 0;
	struct tvec v;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 2, 64, 1 << 20, 1, 50), 0);
	ring0 = kstat("ring_requests");
	fb0 = kstat("fallback_requests");
	x0 = kstat("ring_xctr_requests");
	for (i = 0; i < NTV; i++) {
		struct kring_tfm *t;

		tv_load(i, &v);
		t = kr_tfm(GPU_AES_ALG_XCTR, v.key, v.klen);
		CHECK(t);
		memcpy(iv, v.iv, 16);
		CHECK_EQ(kr_req_run(t, GPU_AES_DIR_ENCRYPT, v.pt, out,
				    (uint32_t)v.len, 0, iv), 0);
		CHECK_MEM(out, v.ct, v.len);
		CHECK_MEM(iv, v.iv, 16);
		CHECK_EQ(kr_req_run(t, GPU_AES_DIR_DECRYPT, v.ct, out,
				    (uint32_t)v.len, 0, iv), 0);
		CHECK_MEM(out, v.pt, v.len);
		CHECK_MEM(iv, v.iv, 16);
		n += 2;
		kring_tfm_free(t);
	}
	for (i = 0; i < 24; i++) {
		size_t klen = 16 + 8 * (i % 3);
		uint32_t len = 1 + (uint32_t)(t_rand() % sizeof(in));
		unsigned int dir = i % 2;
		struct kring_tfm *t;

		t_rand_bytes(key, sizeof(key));
		t_rand_bytes(iv, sizeof(iv));
		t_rand_bytes(in, len);
		t = kr_tfm(GPU_AES_ALG_XCTR, key, klen);
		CHECK(t);
		CHECK_EQ(ref_crypt(GPU_AES_ALG_XCTR, dir, key, klen, iv, in,
				   want, len), 0);
		memcpy(v.iv, iv, 16);
		CHECK_EQ(kr_req_run(t, dir, in, out, len, 0, iv), 0);
		CHECK_MEM(out, want, len);
		CHECK_MEM(iv, v.iv, 16);
		n++;
		kring_tfm_free(t);
	}
	kfix_stop(&f);
	CHECK_EQ(kstat("ring_requests") - ring0, n);
	CHECK_EQ(kstat("ring_xctr_requests") - x0, n);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}
