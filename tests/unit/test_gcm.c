// SPDX-License-Identifier: GPL-2.0-only
/*
 * GCM through the kernel's request path (kring) and the cpu backend:
 * McGrew-Viega test cases (the 96-bit IV ones), random requests vs OpenSSL
 * EVP called directly, EBADMSG with nothing released, the data area's
 * layout (text, tag slot, associated data) as the helper sees it.
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

TEST(gcm_mcgrew_viega_vectors)
{
	uint8_t key[32], iv[12], pt[64], aad[20], ct[64], tag[16];
	uint8_t out[64], otag[16];
	int64_t ring0 = kstat("ring_requests"), gcm0 = kstat("ring_gcm_requests");
	int64_t fb0 = kstat("fallback_requests");
	unsigned int i, auth_len, n = 0;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 1, 64, 1 << 20, 1, 50), 0);
	for (i = 0; i < sizeof(mv) / sizeof(mv[0]); i++) {
		/* Test cases 1, 2, 7, 8, 13, 14: all zero. */
		int plain = mv[i].plen <= 16;
		struct kring_tfm *t;
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
		t = kr_tfm(GPU_AES_ALG_GCM, key, mv[i].klen);
		CHECK(t);
		CHECK_EQ(kring_tfm_authsize(t), 16);

		memset(out, 0, sizeof(out));
		CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_ENCRYPT, iv, aad, alen, pt,
				    out, plen, otag), 0);
		if (t_memdiff(out, ct, plen) >= 0 ||
		    t_memdiff(otag, tag, 16) >= 0)
			t_failf(__FILE__, __LINE__, "test case %d", mv[i].tc);
		CHECK_MEM(out, ct, plen);
		CHECK_MEM(otag, tag, 16);
		CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_DECRYPT, iv, aad, alen, ct,
				    out, plen, tag), 0);
		CHECK_MEM(out, pt, plen);
		n += 2;
		/* A shorter tag is the full one's prefix, both ways. */
		for (auth_len = 4; auth_len < 16; auth_len++) {
			if (auth_len != 4 && auth_len != 8 && auth_len < 12)
				continue;
			CHECK_EQ(kring_tfm_set_authsize(t, auth_len), 0);
			memset(otag, 0, sizeof(otag));
			CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_ENCRYPT, iv, aad,
					    alen, pt, out, plen, otag), 0);
			CHECK_MEM(otag, tag, auth_len);
			CHECK_EQ(otag[auth_len], 0);
			CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_DECRYPT, iv, aad,
					    alen, ct, out, plen, tag), 0);
			CHECK_MEM(out, pt, plen);
			n += 2;
		}
		kring_tfm_free(t);
	}
	kfix_stop(&f);
	/* Every one of them the backend's, empty texts included. */
	CHECK_EQ(kstat("ring_requests") - ring0, n);
	CHECK_EQ(kstat("ring_gcm_requests") - gcm0, n);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
}

static const uint32_t auth_lens[] = { 4, 8, 12, 13, 14, 15, 16 };

#define TEXT_MAX	4096U
#define AAD_MAX		64U

static void gcm_random(unsigned int threads, unsigned int rounds)
{
	static uint8_t in[TEXT_MAX], out[TEXT_MAX], ref[TEXT_MAX];
	uint8_t keys[3][32], aad[AAD_MAX], iv[12], tag[16], rtag[16];
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	int64_t auth0 = kstat("auth_failures");
	struct kring_tfm *t[3] = { NULL, NULL, NULL };
	unsigned int n, k;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 2, 256, 4 << 20, threads, 50), 0);
	for (k = 0; k < 3; k++) {
		t_rand_bytes(keys[k], 32);
		t[k] = kr_tfm(GPU_AES_ALG_GCM, keys[k], 16 + 8 * k);
		CHECK(t[k]);
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
		CHECK_EQ(kring_tfm_set_authsize(t[k], auth_len), 0);
		CHECK_EQ(kr_run_gcm(t[k], GPU_AES_DIR_ENCRYPT, iv, aad, alen,
				    in, out, len, tag), 0);
		CHECK_MEM(out, ref, len);
		CHECK_MEM(tag, rtag, auth_len);
		/* And back, the tag checked by the helper. */
		CHECK_EQ(kr_run_gcm(t[k], GPU_AES_DIR_DECRYPT, iv, aad, alen,
				    ref, out, len, tag), 0);
		CHECK_MEM(out, in, len);
	}
	for (k = 0; k < 3; k++)
		kring_tfm_free(t[k]);
	kfix_stop(&f);
	CHECK_EQ(kstat("ring_requests") - ring0, 2 * rounds);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
	CHECK_EQ(kstat("auth_failures") - auth0, 0);
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
 * A GCM decryption whose result lands in caller buffers laid out as the
 * AEAD API has them: src = AAD | ciphertext | tag, dst = AAD | text.
 */
static int gcm_decrypt_into(struct kring_tfm *t, const uint8_t *iv,
			    const uint8_t *aad, uint32_t alen,
			    const uint8_t *ct, const uint8_t *tag,
			    uint32_t len, uint8_t *dst)
{
	uint8_t src[24 + 100 + 16], ivc[16] = { 0 };
	unsigned int auth = kring_tfm_authsize(t);

	if (alen + len + auth > sizeof(src))
		return -EINVAL;
	memcpy(ivc, iv, 12);
	memcpy(src, aad, alen);
	if (len)
		memcpy(src + alen, ct, len);
	memcpy(src + alen + len, tag, auth);
	return kr_req_run(t, GPU_AES_DIR_DECRYPT, src, dst, len, alen, ivc);
}

/*
 * One flipped bit in the tag, the AAD or the ciphertext: -EBADMSG exactly,
 * no byte of dst written (the kernel releases nothing of a forgery),
 * counted as an authentication failure of a ring request, never as a
 * fallback.  The intact request still decrypts afterwards.
 */
TEST(gcm_flipped_bit_is_ebadmsg_and_releases_nothing)
{
	uint8_t key[32], iv[12], pt[100], ct[100], aad[24], tag[16];
	uint8_t bad_ct[100], bad_aad[24], bad_tag[16], out[100];
	uint8_t dst[24 + 100], fill[24 + 100];
	int64_t ring0 = kstat("ring_requests"), fb0 = kstat("fallback_requests");
	int64_t auth0 = kstat("auth_failures"), rec0 = kstat("recomputed");
	unsigned int where, bit, nr = 0, nr_bad = 0;
	struct kring_tfm *t;
	struct kfix f;

	CHECK_EQ(kfix_start(&f, 1, 64, 1 << 20, 1, 50), 0);
	t_rand_bytes(key, sizeof(key));
	t_rand_bytes(iv, sizeof(iv));
	t_rand_bytes(pt, sizeof(pt));
	t_rand_bytes(aad, sizeof(aad));
	memset(fill, 0xe7, sizeof(fill));
	t = kr_tfm(GPU_AES_ALG_GCM, key, 32);
	CHECK(t);
	CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_ENCRYPT, iv, aad, sizeof(aad), pt,
			    ct, sizeof(pt), tag), 0);
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
			memcpy(dst, fill, sizeof(dst));
			CHECK_EQ(gcm_decrypt_into(t, iv, bad_aad, sizeof(aad),
						  bad_ct, bad_tag, sizeof(ct),
						  dst), -EBADMSG);
			CHECK_MEM(dst, fill, sizeof(dst));
			nr++;
			nr_bad++;
		}
	/* The intact one decrypts into the same kind of buffer. */
	memcpy(dst, fill, sizeof(dst));
	CHECK_EQ(gcm_decrypt_into(t, iv, aad, sizeof(aad), ct, tag, sizeof(ct),
				  dst), 0);
	CHECK_MEM(dst + sizeof(aad), pt, sizeof(pt));
	/* The associated data in dst is left as the caller put it. */
	CHECK_MEM(dst, fill, sizeof(aad));
	nr++;
	/* A truncated tag is checked on its auth_len bytes only. */
	memcpy(bad_tag, tag, sizeof(tag));
	bad_tag[8] ^= 1;
	CHECK_EQ(kring_tfm_set_authsize(t, 8), 0);
	CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_DECRYPT, iv, aad, sizeof(aad), ct,
			    out, sizeof(out), bad_tag), 0);
	CHECK_MEM(out, pt, sizeof(pt));
	CHECK_EQ(kring_tfm_set_authsize(t, 12), 0);
	CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_DECRYPT, iv, aad, sizeof(aad), ct,
			    out, sizeof(out), bad_tag), -EBADMSG);
	nr += 2;
	nr_bad++;
	/* Empty text: the tag alone authenticates the AAD. */
	CHECK_EQ(kring_tfm_set_authsize(t, 16), 0);
	CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_ENCRYPT, iv, aad, sizeof(aad), NULL,
			    NULL, 0, tag), 0);
	CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_DECRYPT, iv, aad, sizeof(aad), NULL,
			    NULL, 0, tag), 0);
	aad[0] ^= 0x80;
	CHECK_EQ(kr_run_gcm(t, GPU_AES_DIR_DECRYPT, iv, aad, sizeof(aad), NULL,
			    NULL, 0, tag), -EBADMSG);
	nr += 3;
	nr_bad++;
	kring_tfm_free(t);
	kfix_stop(&f);
	CHECK_EQ(kstat("ring_requests") - ring0, nr);
	CHECK_EQ(kstat("auth_failures") - auth0, nr_bad);
	CHECK_EQ(kstat("fallback_requests") - fb0, 0);
	/* The helper's verdict stands: nothing was replayed on the CPU. */
	CHECK_EQ(kstat("recomputed") - rec0, 0);
}

/* setauthsize and setkey refuse what crypto_gcm_check_authsize() does. */
TEST(gcm_tfm_rejects_bad_arguments)
{
	static const unsigned int bad[] = { 0, 1, 2, 3, 5, 6, 7, 9, 10, 11,
					    17, 32, 255 };
	uint8_t key[32] = { 1 };
	struct kring_tfm *t, *e;
	unsigned int i;

	CHECK_EQ(kring_tfm_new(GPU_AES_ALG_GCM, key, 20, &t), -EINVAL);
	CHECK_EQ(kring_tfm_new(GPU_AES_ALG_GCM, key, 64, &t), -EINVAL);
	CHECK_EQ(kring_tfm_new(GPU_AES_ALG_GCM, key, 24, &t), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(kring_tfm_set_authsize(t, bad[i]), -EINVAL);
		/* A refused size leaves the one in use. */
		CHECK_EQ(kring_tfm_authsize(t), 16);
	}
	CHECK_EQ(kring_tfm_set_authsize(t, 13), 0);
	CHECK_EQ(kring_tfm_authsize(t), 13);
	kring_tfm_free(t);
	/* Only an AEAD has a tag length. */
	CHECK_EQ(kring_tfm_new(GPU_AES_ALG_CTR, key, 16, &e), 0);
	CHECK_EQ(kring_tfm_set_authsize(e, 16), -EINVAL);
	kring_tfm_free(e);
}

/*
 * The data area as the helper sees it (struct gpu_aes_sqe): the text at
 * the request's offset, the tag slot after it on a 16-byte boundary, then
 * the associated data; the helper writes auth_len bytes of the slot and
 * no more.  The first request of a fresh queue sits at its slice's start.
 */
TEST(gcm_data_area_layout)
{
	uint8_t key[24], iv[16] = { 0 }, pt[37], aad[11], ref[37], rtag[16];
	uint8_t src[11 + 37], dst[11 + 37 + 14], zero[16] = { 0 };
	const uint64_t tag_off = gpu_aes_gcm_tag_off(0, sizeof(pt));
	const uint64_t aad_off = gpu_aes_gcm_aad_off(0, sizeof(pt));
	const struct gpu_aes_region *r;
	struct kring_tfm *t;
	struct kfix f;

	CHECK_EQ(gpu_aes_sqe_span(GPU_AES_ALG_GCM, sizeof(pt), sizeof(aad)),
		 48 + 16 + sizeof(aad));
	CHECK_EQ(tag_off, 48);
	CHECK_EQ(aad_off, 64);
	CHECK_EQ(kfix_start(&f, 1, 16, 1 << 20, 1, 50), 0);
	r = kring_host_region(f.host);
	t_rand_bytes(key, sizeof(key));
	t_rand_bytes(iv, 12);
	t_rand_bytes(pt, sizeof(pt));
	t_rand_bytes(aad, sizeof(aad));
	CHECK_EQ(ref_gcm(GPU_AES_DIR_ENCRYPT, key, sizeof(key), iv, aad,
			 sizeof(aad), pt, ref, sizeof(pt), rtag, 14), 0);
	t = kr_tfm(GPU_AES_ALG_GCM, key, sizeof(key));
	CHECK(t);
	CHECK_EQ(kring_tfm_set_authsize(t, 14), 0);
	memcpy(src, aad, sizeof(aad));
	memcpy(src + sizeof(aad), pt, sizeof(pt));
	memset(dst, 0xee, sizeof(dst));
	CHECK_EQ(kr_req_run(t, GPU_AES_DIR_ENCRYPT, src, dst, sizeof(pt),
			    sizeof(aad), iv), 0);
	/* The caller's view: text and tag after the untouched AAD. */
	CHECK_MEM(dst + sizeof(aad), ref, sizeof(pt));
	CHECK_MEM(dst + sizeof(aad) + sizeof(pt), rtag, 14);
	memset(src, 0xee, sizeof(aad));
	CHECK_MEM(dst, src, sizeof(aad));
	/* The helper's view, at queue 0's first data offset. */
	CHECK_MEM(r->data, ref, sizeof(pt));
	CHECK_MEM(r->data + sizeof(pt), zero, tag_off - sizeof(pt));
	CHECK_MEM(r->data + tag_off, rtag, 14);
	CHECK_MEM(r->data + tag_off + 14, zero, 2);
	CHECK_MEM(r->data + aad_off, aad, sizeof(aad));
	kring_tfm_free(t);
	kfix_stop(&f);
}
