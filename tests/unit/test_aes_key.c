// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu_aes_expand_schedules() (the cuda backend's round keys) vs FIPS-197
 * Appendix A, and both schedules driven through a byte-wise reference
 * cipher vs FIPS-197 Appendix C and OpenSSL.
 */
#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

#include "aes_key.h"
#include "harness.h"

static uint8_t inv_sbox[256];

static uint8_t xt(uint8_t b)
{
	return (uint8_t)((b << 1) ^ ((b & 0x80) ? 0x1b : 0));
}

static uint8_t mul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	for (; b; b >>= 1, a = xt(a))
		if (b & 1)
			r ^= a;
	return r;
}

static void add_key(uint8_t s[16], const uint8_t *k)
{
	int i;

	for (i = 0; i < 16; i++)
		s[i] ^= k[i];
}

static void sub_shift(uint8_t s[16], int inv)
{
	uint8_t t[16];
	int r, c;

	for (c = 0; c < 4; c++)
		for (r = 0; r < 4; r++) {
			int from = inv ? (c - r + 4) % 4 : (c + r) % 4;
			uint8_t b = s[r + 4 * from];

			t[r + 4 * c] = inv ? inv_sbox[b] : gpu_aes_sbox[b];
		}
	memcpy(s, t, 16);
}

static void mix(uint8_t s[16], int inv)
{
	static const uint8_t fwd[4] = { 2, 3, 1, 1 }, bwd[4] = { 14, 11, 13, 9 };
	const uint8_t *m = inv ? bwd : fwd;
	uint8_t t[4];
	int r, c, j;

	for (c = 0; c < 4; c++) {
		for (r = 0; r < 4; r++) {
			t[r] = 0;
			for (j = 0; j < 4; j++)
				t[r] ^= mul(s[4 * c + j], m[(j - r + 4) % 4]);
		}
		memcpy(s + 4 * c, t, 4);
	}
}

/* The expanded key: both schedules and the round count. */
struct sched {
	uint8_t enc[GPU_AES_SCHED_BYTES];
	uint8_t dec[GPU_AES_SCHED_BYTES];
	int rounds;
};

static void ref_encrypt(const struct sched *k, uint8_t s[16])
{
	int r;

	add_key(s, k->enc);
	for (r = 1; r < k->rounds; r++) {
		sub_shift(s, 0);
		mix(s, 0);
		add_key(s, k->enc + 16 * r);
	}
	sub_shift(s, 0);
	add_key(s, k->enc + 16 * k->rounds);
}

/* FIPS-197 5.3.5: the equivalent inverse cipher, dec in use order. */
static void ref_decrypt(const struct sched *k, uint8_t s[16])
{
	int r;

	add_key(s, k->dec);
	for (r = 1; r < k->rounds; r++) {
		sub_shift(s, 1);
		mix(s, 1);
		add_key(s, k->dec + 16 * r);
	}
	sub_shift(s, 1);
	add_key(s, k->dec + 16 * k->rounds);
}

static int expand(const uint8_t *key, size_t len, struct sched *k)
{
	k->rounds = gpu_aes_expand_schedules(key, len, k->enc, k->dec);
	return k->rounds;
}

static void init_inv_sbox(void)
{
	int i;

	for (i = 0; i < 256; i++)
		inv_sbox[gpu_aes_sbox[i]] = (uint8_t)i;
}

static const struct {
	const char *key;
	unsigned int first_word;	/* index of the first derived word */
	const char *first;		/* w[first_word] */
	const char *last_round;		/* w[4Nr .. 4Nr+3] */
} fips_a[] = {
	{ "2b7e151628aed2a6abf7158809cf4f3c", 4, "a0fafe17",
	  "d014f9a8c9ee2589e13f0cc8b6630ca6" },
	{ "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", 6, "fe0c91f7",
	  "e98ba06f448c773c8ecc720401002202" },
	{ "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
	  8, "9ba35411", "fe4890d1e6188d0b046df344706c631e" },
};

TEST(key_expansion_fips197_appendix_a)
{
	unsigned int i;
	size_t j;

	for (i = 0; i < sizeof(fips_a) / sizeof(fips_a[0]); i++) {
		struct sched e;
		uint8_t key[32], w[4], last[16];
		size_t len = t_unhex(fips_a[i].key, key, sizeof(key));

		/* Leftovers in the arrays must not survive. */
		memset(e.enc, 0xa5, sizeof(e.enc));
		memset(e.dec, 0x5a, sizeof(e.dec));
		CHECK_EQ(expand(key, len, &e), (int)(len / 4 + 6));
		/* The first Nk words are the key itself. */
		CHECK_MEM(e.enc, key, len);
		t_unhex(fips_a[i].first, w, 4);
		CHECK_MEM(e.enc + 4 * fips_a[i].first_word, w, 4);
		t_unhex(fips_a[i].last_round, last, 16);
		CHECK_MEM(e.enc + 16 * e.rounds, last, 16);
		/* Equivalent inverse schedule: first and last swapped. */
		CHECK_MEM(e.dec, last, 16);
		CHECK_MEM(e.dec + 16 * e.rounds, key, 16);
		/* Unused tails are zero, not left over. */
		for (j = 16 * (size_t)(e.rounds + 1); j < sizeof(e.enc); j++)
			CHECK_EQ(e.enc[j] | e.dec[j], 0);
	}
}

TEST(key_expansion_fips197_appendix_c)
{
	static const char *ct[3] = {
		"69c4e0d86a7b0430d8cdb78070b4c55a",
		"dda97ca4864cdfe06eaf70a0ec0d7191",
		"8ea2b7ca516745bfeafc49904b496089",
	};
	uint8_t key[32], pt[16], expect[16], s[16];
	unsigned int i;

	init_inv_sbox();
	for (i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	t_unhex("00112233445566778899aabbccddeeff", pt, 16);
	for (i = 0; i < 3; i++) {
		struct sched e;

		CHECK_EQ(expand(key, 16 + 8 * i, &e), (int)(10 + 2 * i));
		t_unhex(ct[i], expect, 16);
		memcpy(s, pt, 16);
		ref_encrypt(&e, s);
		CHECK_MEM(s, expect, 16);
		ref_decrypt(&e, s);
		CHECK_MEM(s, pt, 16);
	}
}

TEST(key_expansion_random_keys_vs_openssl)
{
	unsigned int n;

	init_inv_sbox();
	for (n = 0; n < 300; n++) {
		size_t len = 16 + 8 * (n % 3);
		const EVP_CIPHER *c = len == 16 ? EVP_aes_128_ecb() :
				      len == 24 ? EVP_aes_192_ecb() :
						  EVP_aes_256_ecb();
		uint8_t key[32], pt[16], s[16], ossl[16], odec[16];
		struct sched e;
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		int outl = 0, outl2 = 0, ok;

		CHECK(ctx);
		t_rand_bytes(key, sizeof(key));
		t_rand_bytes(pt, sizeof(pt));
		CHECK_EQ(expand(key, len, &e), (int)(len / 4 + 6));
		ok = EVP_EncryptInit_ex(ctx, c, NULL, key, NULL) == 1 &&
		     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
		     EVP_EncryptUpdate(ctx, ossl, &outl, pt, 16) == 1 &&
		     EVP_DecryptInit_ex(ctx, c, NULL, key, NULL) == 1 &&
		     EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
		     EVP_DecryptUpdate(ctx, odec, &outl2, pt, 16) == 1;
		EVP_CIPHER_CTX_free(ctx);
		CHECK(ok && outl == 16 && outl2 == 16);
		/* Encryption schedule vs OpenSSL's encryption... */
		memcpy(s, pt, 16);
		ref_encrypt(&e, s);
		CHECK_MEM(s, ossl, 16);
		ref_decrypt(&e, s);
		CHECK_MEM(s, pt, 16);
		/* ...and the inverse one vs OpenSSL's decryption. */
		memcpy(s, pt, 16);
		ref_decrypt(&e, s);
		CHECK_MEM(s, odec, 16);
	}
}

/* Same key, same schedules: nothing depends on what the arrays held. */
TEST(key_expansion_is_deterministic)
{
	uint8_t key[32];
	struct sched a, b;
	unsigned int i;

	for (i = 0; i < 30; i++) {
		size_t len = 16 + 8 * (i % 3);

		t_rand_bytes(key, sizeof(key));
		memset(&a, 0xa5, sizeof(a));
		memset(&b, 0x00, sizeof(b));
		CHECK_EQ(expand(key, len, &a), (int)(len / 4 + 6));
		CHECK_EQ(expand(key, len, &b), a.rounds);
		CHECK_MEM(a.enc, b.enc, sizeof(a.enc));
		CHECK_MEM(a.dec, b.dec, sizeof(a.dec));
	}
}

TEST(key_expansion_rejects_bad_length)
{
	static const size_t bad[] = { 0, 1, 15, 17, 20, 31, 33, 48, 64 };
	uint8_t key[64] = { 0 }, enc[GPU_AES_SCHED_BYTES];
	uint8_t dec[GPU_AES_SCHED_BYTES], want[GPU_AES_SCHED_BYTES];
	unsigned int i;

	memset(want, 0x5a, sizeof(want));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(enc, 0x5a, sizeof(enc));
		memset(dec, 0x5a, sizeof(dec));
		CHECK_EQ(gpu_aes_expand_schedules(key, bad[i], enc, dec),
			 -EINVAL);
		/* Untouched on error. */
		CHECK_MEM(enc, want, sizeof(want));
		CHECK_MEM(dec, want, sizeof(want));
	}
}
