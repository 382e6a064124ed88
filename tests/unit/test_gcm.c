// SPDX-License-Identifier: GPL-2.0-only
/*
 * GCM through the in-process producer and the cpu backend: McGrew-Viega
 * test cases (the 96-bit IV ones), random requests vs OpenSSL EVP called
 * directly, EBADMSG with nothing released, the zero-copy layout.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "util.h"

static const char *mv_p =
	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
static const char *mv_a = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char *mv_k =
	"feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
static const char *mv_iv = "cafebabefacedbaddecaf888";

/*
 * McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", test
 * cases 1-4, 7-10, 13-16.  Zero keys and IVs for the first two of each
 * size; then mv_k's first klen bytes, mv_iv, mv_p (64 bytes, or 60 with
 * mv_a as AAD).
 */
static const struct {
	int tc;
	size_t klen, plen, alen;
	const char *ct, *tag;
} mv[] = {
	{ 1, 16, 0, 0, "", "58e2fccefa7e3061367f1d57a4e7455a" },
	{ 2, 16, 16, 0, "0388dace60b6a392f328c2b971b2fe78",
	  "ab6e47d42cec13bdf53a67b21257bddf" },
	{ 3, 16, 64, 0,
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
	  "4d5c2af327cd64a62cf35abd2ba6fab4" },
	{ 4, 16, 60, 20,
	  "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	  "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
	  "5bc94fbc3221a5db94fae95ae7121a47" },
	{ 7, 24, 0, 0, "", "cd33b28ac773f74ba00ed1f312572435" },
	{ 8, 24, 16, 0, "98e7247c07f0fe411c267e4384b0f600",
	  "2ff58d80033927ab8ef4d4587514f0fb" },
	{ 9, 24, 64, 0,
	  "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
	  "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710acade256",
	  "9924a7c8587336bfb118024db8674a14" },
	{ 10, 24, 60, 20,
	  "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c"
	  "7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710",
	  "2519498e80f1478f37ba55bd6d27618c" },
	{ 13, 32, 0, 0, "", "530f8afbc74536b9a963b4f1c4cb738b" },
	{ 14, 32, 16, 0, "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ 15, 32, 64, 0,
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
	  "b094dac5d93471bdec1a502270e3cc6c" },
	{ 16, 32, 60, 20,
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

/* Slot 1, the vectors' key. */
static int run_gcm(struct gpu_aes_producer *p, unsigned int dir,
		   const uint8_t *iv, const uint8_t *aad, uint32_t alen,
		   const uint8_t *in, uint8_t *out, uint32_t len, uint8_t *tag,
		   uint32_t auth_len)
{
	return gpu_aes_producer_run_gcm(p, dir, 1, iv, aad, alen, in, out,
					len, tag, auth_len);
}

TEST(gcm_mcgrew_viega_vectors)
{
	struct gpu_aes_producer *p = mk_producer(64, 1 << 20, 1, 50);
	uint8_t key[32], iv[12], pt[64], aad[20], ct[64], tag[16];
	uint8_t out[64], otag[16];
	unsigned int i, auth_len;

	CHECK(p);
	for (i = 0; i < sizeof(mv) / sizeof(mv[0]); i++) {
		/* Test cases 1, 2, 7, 8, 13, 14: all zero. */
		int plain = mv[i].plen <= 16;
		uint32_t plen = (uint32_t)mv[i].plen;
		uint32_t alen = (uint32_t)mv[i].alen;

		memset(key, 0, sizeof(key));
		memset(iv, 0, sizeof(iv));
		memset(pt, 0, sizeof(pt));
		if (!plain) {
			t_unhex(mv_k, key, mv[i].klen);
			t_unhex(mv_iv, iv, sizeof(iv));
			t_unhex(mv_p, pt, sizeof(pt));
		}
		t_unhex(mv_a, aad, sizeof(aad));
		CHECK_EQ(t_unhex(mv[i].ct, ct, sizeof(ct)), plen);
		CHECK_EQ(t_unhex(mv[i].tag, tag, sizeof(tag)), 16);
		CHECK_EQ(gpu_aes_producer_setkey(p, 1, key, mv[i].klen), 0);

		memset(out, 0, sizeof(out));
		CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_ENCRYPT, 1, iv,
						  aad, alen, pt, out, plen,
						  otag, 16), 0);
		if (t_memdiff(out, ct, plen) >= 0 ||
		    t_memdiff(otag, tag, 16) >= 0)
			t_failf(__FILE__, __LINE__, "test case %d", mv[i].tc);
		CHECK_MEM(out, ct, plen);
		CHECK_MEM(otag, tag, 16);
		CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_DECRYPT, 1, iv,
						  aad, alen, ct, out, plen,
						  tag, 16), 0);
		CHECK_MEM(out, pt, plen);
		/* A shorter tag is the full one's prefix, both ways. */
		for (auth_len = 4; auth_len < 16; auth_len++) {
			if (auth_len != 4 && auth_len != 8 && auth_len < 12)
				continue;
			memset(otag, 0, sizeof(otag));
			CHECK_EQ(run_gcm(p, GPU_AES_DIR_ENCRYPT, iv, aad, alen,
					 pt, out, plen, otag, auth_len), 0);
			CHECK_MEM(otag, tag, auth_len);
			CHECK_EQ(otag[auth_len], 0);
			CHECK_EQ(run_gcm(p, GPU_AES_DIR_DECRYPT, iv, aad, alen,
					 ct, out, plen, tag, auth_len), 0);
			CHECK_MEM(out, pt, plen);
		}
	}
	gpu_aes_producer_destroy(p);
}

static const uint32_t auth_lens[] = { 4, 8, 12, 13, 14, 15, 16 };

#define TEXT_MAX	4096U
#define AAD_MAX		64U

static void gcm_random(unsigned int threads, unsigned int rounds)
{
	struct gpu_aes_producer *p = mk_producer(256, 4 << 20, threads, 50);
	static uint8_t in[TEXT_MAX], out[TEXT_MAX], ref[TEXT_MAX];
	uint8_t keys[3][32], aad[AAD_MAX], iv[12], tag[16], rtag[16];
	unsigned int n, k;

	CHECK(p);
	for (k = 0; k < 3; k++) {
		t_rand_bytes(keys[k], 32);
		CHECK_EQ(gpu_aes_producer_setkey(p, k, keys[k], 16 + 8 * k), 0);
	}
	for (n = 0; n < rounds; n++) {
		uint32_t len = n < 2 * TEXT_MAX / 64 ? n * 32 :
			       (uint32_t)(t_rand() % (TEXT_MAX + 1));
		uint32_t alen = (uint32_t)(t_rand() % (AAD_MAX + 1));
		uint32_t auth_len = auth_lens[n % 7];

		k = (n / 7) % 3;
		if (len > TEXT_MAX)
			len = TEXT_MAX;
		t_rand_bytes(in, len);
		t_rand_bytes(aad, alen);
		t_rand_bytes(iv, 12);
		CHECK_EQ(ref_gcm(GPU_AES_DIR_ENCRYPT, keys[k], 16 + 8 * k, iv,
				 aad, alen, in, ref, len, rtag, auth_len), 0);
		CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_ENCRYPT, k, iv,
						  aad, alen, in, out, len, tag,
						  auth_len), 0);
		CHECK_MEM(out, ref, len);
		CHECK_MEM(tag, rtag, auth_len);
		/* And back, the tag checked by the helper. */
		CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_DECRYPT, k, iv,
						  aad, alen, ref, out, len, tag,
						  auth_len), 0);
		CHECK_MEM(out, in, len);
	}
	gpu_aes_producer_destroy(p);
}

TEST(gcm_random_vs_openssl_inline_backend)
{
	gcm_random(1, 1200);
}

TEST(gcm_random_vs_openssl_threaded_backend)
{
	gcm_random(3, 400);
}

/*
 * One flipped bit in the tag, the AAD or the ciphertext: EBADMSG exactly,
 * dst untouched, counted as a completion (not as a rejected or invalid
 * one).  The intact request still decrypts afterwards.
 */
TEST(gcm_flipped_bit_is_ebadmsg_and_releases_nothing)
{
	struct gpu_aes_producer *p = mk_producer(64, 1 << 20, 1, 50);
	uint8_t key[32], iv[12], pt[100], ct[100], aad[24], tag[16];
	uint8_t bad_ct[100], bad_aad[24], bad_tag[16], out[100], fill[100];
	struct gpu_aes_producer_stats st;
	unsigned int where, bit, nr = 0;
	int st_bad;

	CHECK(p);
	t_rand_bytes(key, sizeof(key));
	t_rand_bytes(iv, sizeof(iv));
	t_rand_bytes(pt, sizeof(pt));
	t_rand_bytes(aad, sizeof(aad));
	memset(fill, 0xe7, sizeof(fill));
	CHECK_EQ(gpu_aes_producer_setkey(p, 0, key, 32), 0);
	CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_ENCRYPT, 0, iv, aad,
					  sizeof(aad), pt, ct, sizeof(pt), tag,
					  16), 0);
	nr++;
	for (where = 0; where < 3; where++)
		for (bit = 0; bit < 8 * 16; bit += 13) {
			memcpy(bad_ct, ct, sizeof(ct));
			memcpy(bad_aad, aad, sizeof(aad));
			memcpy(bad_tag, tag, sizeof(tag));
			if (where == 0)
				bad_tag[bit / 8] ^= (uint8_t)(1 << bit % 8);
			else if (where == 1)
				bad_aad[bit / 8 % sizeof(aad)] ^=
					(uint8_t)(1 << bit % 8);
			else
				bad_ct[bit / 8 % sizeof(ct)] ^=
					(uint8_t)(1 << bit % 8);
			memcpy(out, fill, sizeof(out));
			st_bad = gpu_aes_producer_run_gcm(p,
							  GPU_AES_DIR_DECRYPT,
							  0, iv, bad_aad,
							  sizeof(aad), bad_ct,
							  out, sizeof(out),
							  bad_tag, 16);
			CHECK_EQ(st_bad, GPU_AES_STATUS_EBADMSG);
			CHECK_MEM(out, fill, sizeof(out));
			nr++;
		}
	/* A truncated tag is checked on its auth_len bytes only. */
	memcpy(bad_tag, tag, sizeof(tag));
	bad_tag[8] ^= 1;
	CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_DECRYPT, 0, iv, aad,
					  sizeof(aad), ct, out, sizeof(out),
					  bad_tag, 8), 0);
	CHECK_MEM(out, pt, sizeof(pt));
	CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_DECRYPT, 0, iv, aad,
					  sizeof(aad), ct, out, sizeof(out),
					  bad_tag, 12), GPU_AES_STATUS_EBADMSG);
	nr += 2;
	/* Empty text: the tag alone authenticates the AAD. */
	CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_ENCRYPT, 0, iv, aad,
					  sizeof(aad), NULL, NULL, 0, tag, 16),
		 0);
	CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_DECRYPT, 0, iv, aad,
					  sizeof(aad), NULL, NULL, 0, tag, 16),
		 0);
	aad[0] ^= 0x80;
	CHECK_EQ(gpu_aes_producer_run_gcm(p, GPU_AES_DIR_DECRYPT, 0, iv, aad,
					  sizeof(aad), NULL, NULL, 0, tag, 16),
		 GPU_AES_STATUS_EBADMSG);
	nr += 3;

	gpu_aes_producer_wait_idle(p);
	gpu_aes_producer_get_stats(p, &st);
	CHECK_EQ(st.submitted, nr);
	CHECK_EQ(st.completed, nr);
	CHECK_EQ(st.requests, nr);
	CHECK_EQ(st.invalid, 0);
	CHECK_EQ(st.rejected, 0);
	gpu_aes_producer_destroy(p);
}

TEST(gcm_submit_rejects_bad_arguments)
{
	struct gpu_aes_producer *p = mk_producer(16, 1 << 20, 1, 50);
	uint8_t key[16] = { 1 }, iv[12] = { 2 }, buf[32] = { 3 }, tag[16];
	struct gpu_aes_producer_stats st;
	static const uint32_t bad[] = { 0, 1, 3, 5, 7, 9, 10, 11, 17, 255 };
	unsigned int i;

	CHECK(p);
	CHECK_EQ(gpu_aes_producer_setkey(p, 0, key, 16), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_EQ(gpu_aes_producer_submit_gcm(p, GPU_AES_DIR_ENCRYPT, 0,
						     iv, NULL, 0, buf, buf, 32,
						     tag, bad[i], NULL, NULL),
			 -EINVAL);
	CHECK_EQ(gpu_aes_producer_submit_gcm(p, GPU_AES_DIR_ENCRYPT, 0, NULL,
					     NULL, 0, buf, buf, 32, tag, 16,
					     NULL, NULL), -EINVAL);
	CHECK_EQ(gpu_aes_producer_submit_gcm(p, GPU_AES_DIR_DECRYPT, 0, iv,
					     NULL, 0, buf, buf, 32, NULL, 16,
					     NULL, NULL), -EINVAL);
	/* A span past 4 GiB can never be reserved. */
	CHECK_EQ(gpu_aes_producer_submit_gcm(p, GPU_AES_DIR_ENCRYPT, 0, iv,
					     buf, 0xffffffffU, buf, buf, 32,
					     tag, 16, NULL, NULL), -EINVAL);
	gpu_aes_producer_get_stats(p, &st);
	CHECK_EQ(st.submitted, 0);
	gpu_aes_producer_destroy(p);
}

/* The zero-copy result is valid in the buffer only until cb returns. */
struct zc {
	struct result r;
	const uint8_t *data;
	uint8_t text[37];
	uint8_t tag[16];
};

static void zc_done(void *cookie, int status)
{
	struct zc *z = cookie;

	memcpy(z->text, z->data, sizeof(z->text));
	memcpy(z->tag, z->data + gpu_aes_gcm_tag_off(0, sizeof(z->text)),
	       sizeof(z->tag));
	on_done(&z->r, status);
}

/*
 * Zero-copy: text, tag slot and AAD where struct gpu_aes_sqe puts them;
 * the tag comes back in the slot.  A span beyond the reservation is
 * refused before anything is posted.
 */
TEST(gcm_zero_copy_layout)
{
	struct gpu_aes_producer *p = mk_producer(16, 1 << 20, 1, 50);
	uint8_t key[24], iv[12], pt[37], aad[11], ref[37], rtag[16];
	struct gpu_aes_producer_stats st;
	struct gpu_aes_producer_buf b;
	struct zc z;
	uint64_t span = gpu_aes_sqe_span(GPU_AES_ALG_GCM, sizeof(pt),
					 sizeof(aad));
	uint8_t *d;

	CHECK(p);
	CHECK_EQ(span, 48 + 16 + sizeof(aad));
	memset(&z, 0, sizeof(z));
	t_rand_bytes(key, sizeof(key));
	t_rand_bytes(iv, sizeof(iv));
	t_rand_bytes(pt, sizeof(pt));
	t_rand_bytes(aad, sizeof(aad));
	CHECK_EQ(gpu_aes_producer_setkey(p, 4, key, sizeof(key)), 0);
	CHECK_EQ(ref_gcm(GPU_AES_DIR_ENCRYPT, key, sizeof(key), iv, aad,
			 sizeof(aad), pt, ref, sizeof(pt), rtag, 14), 0);

	CHECK_EQ(gpu_aes_producer_reserve(p, (uint32_t)span - 1, &b), 0);
	CHECK_EQ(gpu_aes_producer_post_gcm(p, &b, GPU_AES_DIR_ENCRYPT, 4, iv,
					   sizeof(pt), sizeof(aad), 14, zc_done,
					   &z), -EINVAL);
	gpu_aes_producer_unreserve(p, &b);

	CHECK_EQ(gpu_aes_producer_reserve(p, (uint32_t)span, &b), 0);
	d = b.data;
	z.data = d;
	memcpy(d, pt, sizeof(pt));
	memset(d + gpu_aes_gcm_tag_off(0, sizeof(pt)), 0, 16);
	memcpy(d + gpu_aes_gcm_aad_off(0, sizeof(pt)), aad, sizeof(aad));
	CHECK_EQ(gpu_aes_producer_post_gcm(p, &b, GPU_AES_DIR_ENCRYPT, 4, iv,
					   sizeof(pt), sizeof(aad), 14, zc_done,
					   &z), 0);
	CHECK_EQ(wait_until(is_done, &z.r), 0);
	CHECK_EQ(z.r.status, 0);
	CHECK_MEM(z.text, ref, sizeof(pt));
	CHECK_MEM(z.tag, rtag, 14);
	/* The helper writes auth_len bytes of the slot, no more. */
	CHECK_EQ(z.tag[14], 0);
	CHECK_EQ(z.tag[15], 0);
	gpu_aes_producer_wait_idle(p);
	gpu_aes_producer_get_stats(p, &st);
	CHECK_EQ(st.submitted, 1);
	CHECK_EQ(st.completed, 1);
	CHECK_EQ(st.bytes, sizeof(pt));
	gpu_aes_producer_destroy(p);
}
