// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fake helper's AES against NIST SP 800-38A and against the kernel's
 * generic ctr(aes), cbc(aes), xts(aes) and xctr(aes), so a testmgr pass
 * through the ring can only mean the driver is right, not that both sides
 * share a mistake.
 */
#include <crypto/skcipher.h>
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "aes_ref.h"

static const u8 sp800_38a_pt[64] = {
	0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96,
	0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
	0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c,
	0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
	0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4, 0x11,
	0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef,
	0xf6, 0x9f, 0x24, 0x45, 0xdf, 0x4f, 0x9b, 0x17,
	0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10,
};

static const u8 key128[16] = {
	0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
	0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
};

static const u8 key256[32] = {
	0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe,
	0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
	0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7,
	0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4,
};

static const u8 ctr_iv[16] = {
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
	0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
};

/* F.1.1 ECB-AES128.Encrypt */
static const u8 ecb128_ct[64] = {
	0x3a, 0xd7, 0x7b, 0xb4, 0x0d, 0x7a, 0x36, 0x60,
	0xa8, 0x9e, 0xca, 0xf3, 0x24, 0x66, 0xef, 0x97,
	0xf5, 0xd3, 0xd5, 0x85, 0x03, 0xb9, 0x69, 0x9d,
	0xe7, 0x85, 0x89, 0x5a, 0x96, 0xfd, 0xba, 0xaf,
	0x43, 0xb1, 0xcd, 0x7f, 0x59, 0x8e, 0xce, 0x23,
	0x88, 0x1b, 0x00, 0xe3, 0xed, 0x03, 0x06, 0x88,
	0x7b, 0x0c, 0x78, 0x5e, 0x27, 0xe8, 0xad, 0x3f,
	0x82, 0x23, 0x20, 0x71, 0x04, 0x72, 0x5d, 0xd4,
};

/* F.5.1 CTR-AES128.Encrypt */
static const u8 ctr128_ct[64] = {
	0x87, 0x4d, 0x61, 0x91, 0xb6, 0x20, 0xe3, 0x26,
	0x1b, 0xef, 0x68, 0x64, 0x99, 0x0d, 0xb6, 0xce,
	0x98, 0x06, 0xf6, 0x6b, 0x79, 0x70, 0xfd, 0xff,
	0x86, 0x17, 0x18, 0x7b, 0xb9, 0xff, 0xfd, 0xff,
	0x5a, 0xe4, 0xdf, 0x3e, 0xdb, 0xd5, 0xd3, 0x5e,
	0x5b, 0x4f, 0x09, 0x02, 0x0d, 0xb0, 0x3e, 0xab,
	0x1e, 0x03, 0x1d, 0xda, 0x2f, 0xbe, 0x03, 0xd1,
	0x79, 0x21, 0x70, 0xa0, 0xf3, 0x00, 0x9c, 0xee,
};

/* F.5.5 CTR-AES256.Encrypt */
static const u8 ctr256_ct[64] = {
	0x60, 0x1e, 0xc3, 0x13, 0x77, 0x57, 0x89, 0xa5,
	0xb7, 0xa7, 0xf5, 0x04, 0xbb, 0xf3, 0xd2, 0x28,
	0xf4, 0x43, 0xe3, 0xca, 0x4d, 0x62, 0xb5, 0x9a,
	0xca, 0x84, 0xe9, 0x90, 0xca, 0xca, 0xf5, 0xc5,
	0x2b, 0x09, 0x30, 0xda, 0xa2, 0x3d, 0xe9, 0x4c,
	0xe8, 0x70, 0x17, 0xba, 0x2d, 0x84, 0x98, 0x8d,
	0xdf, 0xc9, 0xc5, 0x8d, 0xb6, 0x7a, 0xad, 0xa6,
	0x13, 0xc2, 0xdd, 0x08, 0x45, 0x79, 0x41, 0xa6,
};

static void aes_ref_ecb_sp800_38a(struct kunit *test)
{
	struct crypto_aes_ctx ctx;
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, aes_expandkey(&ctx, key128, sizeof(key128)), 0);
	memcpy(buf, sp800_38a_pt, sizeof(buf));
	aes_ref_ecb(&ctx, false, buf, sizeof(buf));
	KUNIT_EXPECT_MEMEQ(test, buf, ecb128_ct, sizeof(buf));
	aes_ref_ecb(&ctx, true, buf, sizeof(buf));
	KUNIT_EXPECT_MEMEQ(test, buf, sp800_38a_pt, sizeof(buf));
}

static void aes_ref_ctr_sp800_38a(struct kunit *test)
{
	struct crypto_aes_ctx ctx;
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, aes_expandkey(&ctx, key128, sizeof(key128)), 0);
	memcpy(buf, sp800_38a_pt, sizeof(buf));
	aes_ref_ctr(&ctx, ctr_iv, buf, sizeof(buf));
	KUNIT_EXPECT_MEMEQ(test, buf, ctr128_ct, sizeof(buf));

	KUNIT_ASSERT_EQ(test, aes_expandkey(&ctx, key256, sizeof(key256)), 0);
	memcpy(buf, sp800_38a_pt, sizeof(buf));
	aes_ref_ctr(&ctx, ctr_iv, buf, sizeof(buf));
	KUNIT_EXPECT_MEMEQ(test, buf, ctr256_ct, sizeof(buf));
}

/* Two 4 KiB buffers for a comparison, freed with the test. */
static void two_buffers(struct kunit *test, u8 **ref, u8 **out)
{
	*ref = kunit_kmalloc(test, 4096, GFP_KERNEL);
	*out = kunit_kmalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *ref);
	KUNIT_ASSERT_NOT_NULL(test, *out);
}

/*
 * The kernel's template in place over @buf: its key, one request, and @iv
 * left as the template leaves it.
 */
static int generic_crypt(struct crypto_sync_skcipher *tfm, const u8 *key,
			 unsigned int klen, bool dec, u8 *iv, u8 *buf,
			 unsigned int len)
{
	SYNC_SKCIPHER_REQUEST_ON_STACK(req, tfm);
	struct scatterlist sg;
	int err;

	err = crypto_sync_skcipher_setkey(tfm, key, klen);
	if (err)
		return err;
	sg_init_one(&sg, buf, len);
	skcipher_request_set_sync_tfm(req, tfm);
	skcipher_request_set_callback(req, 0, NULL, NULL);
	skcipher_request_set_crypt(req, &sg, &sg, len, iv);
	err = dec ? crypto_skcipher_decrypt(req) : crypto_skcipher_encrypt(req);
	skcipher_request_zero(req);
	return err;
}

/*
 * Random keys, lengths (partial last blocks) and counters that carry across
 * 32- and 64-bit boundaries, against ctr(aes-generic).
 */
static void aes_ref_ctr_vs_generic(struct kunit *test)
{
	static const unsigned int key_lens[] = { 16, 24, 32 };
	struct crypto_sync_skcipher *tfm;
	struct crypto_aes_ctx ctx;
	u8 key[32], iv[16], ivcopy[16];
	u8 *ref, *out;
	unsigned int i, len, klen;
	int err;

	tfm = crypto_alloc_sync_skcipher("ctr(aes-generic)", 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tfm);
	two_buffers(test, &ref, &out);

	for (i = 0; i < 64; i++) {
		klen = key_lens[i % 3];
		len = 1 + get_random_u32_below(4096);
		get_random_bytes(key, klen);
		get_random_bytes(ref, len);
		memcpy(out, ref, len);
		get_random_bytes(iv, sizeof(iv));
		/* all-ones low words: the next blocks must carry */
		memset(iv + 16 - 4 * (1 + i % 4), 0xff, 4 * (1 + i % 4));
		memcpy(ivcopy, iv, sizeof(iv));

		KUNIT_ASSERT_EQ(test, aes_expandkey(&ctx, key, klen), 0);
		aes_ref_ctr(&ctx, iv, out, len);

		err = generic_crypt(tfm, key, klen, false, ivcopy, ref, len);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(out, ref, len), 0,
				    "len %u klen %u", len, klen);
	}
	crypto_free_sync_skcipher(tfm);
}

/*
 * Random keys (all three sizes), whole-block lengths and both directions,
 * against the cbc template over aes-generic, which testmgr checks against
 * SP 800-38A.
 */
static void aes_ref_cbc_vs_generic(struct kunit *test)
{
	static const unsigned int key_lens[] = { 16, 24, 32 };
	struct crypto_sync_skcipher *tfm;
	struct crypto_aes_ctx ctx;
	u8 key[32], iv[16], ivcopy[16];
	unsigned int i, len, klen;
	u8 *ref, *out;
	bool dec;
	int err;

	tfm = crypto_alloc_sync_skcipher("cbc(aes-generic)", 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tfm);
	two_buffers(test, &ref, &out);

	for (i = 0; i < 64; i++) {
		klen = key_lens[i % 3];
		dec = i & 1;
		len = 16 * (1 + get_random_u32_below(256));
		get_random_bytes(key, klen);
		get_random_bytes(ref, len);
		memcpy(out, ref, len);
		get_random_bytes(iv, sizeof(iv));
		memcpy(ivcopy, iv, sizeof(iv));

		KUNIT_ASSERT_EQ(test, aes_expandkey(&ctx, key, klen), 0);
		aes_ref_cbc(&ctx, dec, iv, out, len);

		err = generic_crypt(tfm, key, klen, dec, ivcopy, ref, len);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(out, ref, len), 0,
				    "len %u klen %u dec %d", len, klen, dec);
	}
	crypto_free_sync_skcipher(tfm);
}

/*
 * Random keys (all three sizes), lengths with and without ciphertext
 * stealing and both directions, against the xts template over
 * ecb(aes-generic), which testmgr checks against IEEE 1619 vectors.
 */
static void aes_ref_xts_vs_generic(struct kunit *test)
{
	struct crypto_sync_skcipher *tfm;
	struct crypto_aes_ctx ctx, tweak;
	u8 key[64], iv[16], ivcopy[16];
	unsigned int i, len, klen;
	bool dec;
	u8 *ref, *out;
	int err;

	tfm = crypto_alloc_sync_skcipher("xts(ecb(aes-generic))", 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tfm);
	two_buffers(test, &ref, &out);

	for (i = 0; i < 96; i++) {
		klen = 32 + 16 * (i % 3);
		dec = i & 4;
		/* Every tail length 0..15 several times over. */
		len = 16 * (1 + get_random_u32_below(255)) + i % 16;
		get_random_bytes(key, klen);
		get_random_bytes(ref, len);
		memcpy(out, ref, len);
		get_random_bytes(iv, sizeof(iv));
		memcpy(ivcopy, iv, sizeof(iv));

		KUNIT_ASSERT_EQ(test, aes_expandkey(&ctx, key, klen / 2), 0);
		KUNIT_ASSERT_EQ(test, aes_expandkey(&tweak, key + klen / 2,
						    klen / 2), 0);
		aes_ref_xts(&ctx, &tweak, dec, iv, out, len);

		err = generic_crypt(tfm, key, klen, dec, ivcopy, ref, len);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(out, ref, len), 0,
				    "len %u klen %u dec %d", len, klen, dec);
		KUNIT_ASSERT_EQ(test, memcmp(ivcopy, iv, sizeof(iv)), 0);
	}
	crypto_free_sync_skcipher(tfm);
}

/*
 * Random keys, lengths (partial last blocks) and both directions against
 * xctr(aes-generic), which testmgr checks against HCTR2's vectors; the IV
 * comes back as it went in.  Only where the kernel has the template
 * (CONFIG_CRYPTO_XCTR, which CONFIG_CRYPTO_HCTR2 selects).
 */
static void aes_ref_xctr_vs_generic(struct kunit *test)
{
	static const unsigned int key_lens[] = { 16, 24, 32 };
	struct crypto_sync_skcipher *tfm;
	struct crypto_aes_ctx ctx;
	u8 key[32], iv[16], ivcopy[16];
	unsigned int i, len, klen;
	u8 *ref, *out;
	int err;

	if (!IS_ENABLED(CONFIG_CRYPTO_XCTR))
		kunit_skip(test, "no CONFIG_CRYPTO_XCTR");
	tfm = crypto_alloc_sync_skcipher("xctr(aes-generic)", 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tfm);
	two_buffers(test, &ref, &out);

	for (i = 0; i < 64; i++) {
		klen = key_lens[i % 3];
		len = 1 + get_random_u32_below(4096);
		get_random_bytes(key, klen);
		get_random_bytes(ref, len);
		memcpy(out, ref, len);
		get_random_bytes(iv, sizeof(iv));
		memcpy(ivcopy, iv, sizeof(iv));

		KUNIT_ASSERT_EQ(test, aes_expandkey(&ctx, key, klen), 0);
		aes_ref_xctr(&ctx, iv, out, len);

		err = generic_crypt(tfm, key, klen, i & 1, ivcopy, ref, len);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(out, ref, len), 0,
				    "len %u klen %u", len, klen);
		KUNIT_ASSERT_EQ(test, memcmp(ivcopy, iv, sizeof(iv)), 0);
	}
	crypto_free_sync_skcipher(tfm);
}

static struct kunit_case aes_ref_cases[] = {
	KUNIT_CASE(aes_ref_ecb_sp800_38a),
	KUNIT_CASE(aes_ref_ctr_sp800_38a),
	KUNIT_CASE(aes_ref_ctr_vs_generic),
	KUNIT_CASE(aes_ref_cbc_vs_generic),
	KUNIT_CASE(aes_ref_xts_vs_generic),
	KUNIT_CASE(aes_ref_xctr_vs_generic),
	{}
};

static struct kunit_suite aes_ref_suite = {
	.name = "gpu_aes_fake_helper_aes",
	.test_cases = aes_ref_cases,
};

kunit_test_suite(aes_ref_suite);

MODULE_LICENSE("GPL");
