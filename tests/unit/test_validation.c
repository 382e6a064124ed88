// SPDX-License-Identifier: GPL-2.0-only
/*
 * Submission entries with each field wrong, posted through the producer:
 * each completes with GPU_AES_STATUS_EINVAL and no byte of the data area
 * changes (run under ASan too, which also watches the helper's own heap).
 */
#include <string.h>

#include "core.h"
#include "harness.h"
#include "util.h"

/* Posts sqe (tag/seq aside) over a fresh 64-byte reservation. */
static int post_one(struct gpu_aes_producer *p, struct gpu_aes_sqe *sqe,
		    int use_buf_off, struct result *res)
{
	struct gpu_aes_producer_buf b;

	if (gpu_aes_producer_reserve_wait(p, 64, &b))
		return -1;
	if (use_buf_off)
		sqe->data_off = b.data_off;
	res->done = 0;
	if (gpu_aes_producer_post_sqe(p, &b, sqe, on_done, res))
		return -1;
	return wait_until(is_done, res);
}

TEST(validation_each_bad_field_is_einval)
{
	struct gpu_aes_producer *p = mk_producer(64, 1 << 20, 1, 50);
	const struct gpu_aes_region *r;
	struct gpu_aes_producer_stats st;
	struct gpu_aes_sqe base, s;
	struct result res;
	uint8_t key[16] = { 9 };
	uint64_t size;
	unsigned int i, nr_bad = 0;
	static uint8_t copy[1 << 20];

	CHECK(p);
	r = gpu_aes_producer_region(p);
	size = r->data_size;
	CHECK_EQ(gpu_aes_producer_setkey(p, 1, key, 16), 0);
	/* The kernel's table is trusted, but a garbled entry must not be. */
	CHECK_EQ(gpu_aes_producer_setkey(p, 3, key, 16), 0);
	r->keys[3].rounds = 12;
	CHECK(size == sizeof(copy));
	memset(r->data, 0x5c, size);
	memcpy(copy, r->data, size);

	memset(&base, 0, sizeof(base));
	base.alg = GPU_AES_ALG_CTR;
	base.dir = GPU_AES_DIR_ENCRYPT;
	base.key_slot = 1;
	base.key_gen = r->keys[1].gen;
	base.len = 64;

#define BAD(field, value)						\
	do {								\
		s = base;						\
		s.field = value;					\
		CHECK_EQ(post_one(p, &s, 0, &res), 0);			\
		if (res.status != GPU_AES_STATUS_EINVAL)		\
			t_failf(__FILE__, __LINE__, "%s = %s: status %d", \
				#field, #value, res.status);		\
		CHECK_EQ(res.status, GPU_AES_STATUS_EINVAL);		\
		nr_bad++;						\
	} while (0)

	BAD(alg, 0);
	BAD(alg, 5);
	BAD(alg, 255);
	BAD(dir, 2);
	BAD(dir, 255);
	BAD(key_slot, 8);
	BAD(key_slot, 65535);
	BAD(key_slot, 2);			/* never set: key_len 0 */
	BAD(key_slot, 3);			/* rounds do not match key_len */
	BAD(key_gen, base.key_gen + 1);		/* key was replaced */
	BAD(data_off, size);
	BAD(data_off, size - 32);		/* straddles the end */
	BAD(data_off, 1ULL << 63);
	BAD(data_off, 0xffffffffffffffc0ULL);	/* off + len wraps to 0 */
	BAD(data_off, 8);			/* not 16-byte aligned */
	BAD(len, 0xffffffffU);
	BAD(len, (uint32_t)size + 16);
	s = base;
	s.alg = GPU_AES_ALG_ECB;
	for (i = 1; i < 16; i++) {
		s.len = 16 + i;			/* ECB: whole blocks only */
		CHECK_EQ(post_one(p, &s, 0, &res), 0);
		CHECK_EQ(res.status, GPU_AES_STATUS_EINVAL);
		nr_bad++;
	}
	CHECK_MEM(r->data, copy, size);

	/* The same entries with valid fields do run. */
	s = base;
	s.len = 0;
	CHECK_EQ(post_one(p, &s, 0, &res), 0);
	CHECK_EQ(res.status, GPU_AES_STATUS_OK);
	CHECK_MEM(r->data, copy, size);
	s = base;
	s.data_off = size - 64;
	CHECK_EQ(post_one(p, &s, 0, &res), 0);
	CHECK_EQ(res.status, GPU_AES_STATUS_OK);
	CHECK(memcmp(r->data + size - 64, copy, 64) != 0);
	CHECK_MEM(r->data, copy, size - 64);

	gpu_aes_producer_get_stats(p, &st);
	CHECK_EQ(st.invalid, nr_bad);
	CHECK_EQ(st.requests, nr_bad + 2);
	CHECK_EQ(st.rejected, 0);
	gpu_aes_producer_destroy(p);
}

/*
 * The ABI v2 fields: GCM's span, auth_len and IV tail, XTS's length and
 * two-key entry, aad_len/auth_len on the other algorithms, reserved1.
 */
TEST(validation_v2_fields_are_einval)
{
	struct gpu_aes_producer *p = mk_producer(64, 1 << 20, 1, 50);
	static const uint8_t bad_auth[] = {
		0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17, 32, 255
	};
	const struct gpu_aes_region *r;
	struct gpu_aes_producer_stats st;
	struct gpu_aes_sqe gcm, xts, ctr, ecb, s;
	struct result res;
	uint8_t key[64];
	uint64_t size;
	unsigned int i, nr_bad = 0;
	static uint8_t copy[1 << 20];

	CHECK(p);
	r = gpu_aes_producer_region(p);
	size = r->data_size;
	CHECK(size == sizeof(copy));
	t_rand_bytes(key, sizeof(key));
	CHECK_EQ(gpu_aes_producer_setkey(p, 1, key, 16), 0);
	CHECK_EQ(gpu_aes_producer_setkey_xts(p, 2, key, 64), 0);
	CHECK_EQ(r->keys[1].tweak_len, 0);
	CHECK_EQ(r->keys[2].key_len, 32);
	CHECK_EQ(r->keys[2].tweak_len, 32);
	/* A garbled XTS entry: the tweak key shorter than the data key. */
	CHECK_EQ(gpu_aes_producer_setkey_xts(p, 3, key, 64), 0);
	r->keys[3].tweak_len = 16;
	memset(r->data, 0x5c, size);
	memcpy(copy, r->data, size);

	memset(&gcm, 0, sizeof(gcm));
	gcm.alg = GPU_AES_ALG_GCM;
	gcm.dir = GPU_AES_DIR_DECRYPT;
	gcm.key_slot = 1;
	gcm.key_gen = r->keys[1].gen;
	gcm.len = 32;
	gcm.aad_len = 16;
	gcm.auth_len = 16;
	memset(gcm.iv, 0xc3, 12);
	xts = gcm;
	xts.alg = GPU_AES_ALG_XTS;
	xts.key_slot = 2;
	xts.key_gen = r->keys[2].gen;
	xts.len = 64;
	xts.aad_len = 0;
	xts.auth_len = 0;
	memset(xts.iv, 0x3c, 16);
	ctr = xts;
	ctr.alg = GPU_AES_ALG_CTR;
	ctr.key_slot = 1;
	ctr.key_gen = r->keys[1].gen;
	ecb = ctr;
	ecb.alg = GPU_AES_ALG_ECB;
	memset(ecb.iv, 0, 16);

#define BAD2(base, field, value)					\
	do {								\
		s = base;						\
		s.field = value;					\
		CHECK_EQ(post_one(p, &s, 0, &res), 0);			\
		if (res.status != GPU_AES_STATUS_EINVAL)		\
			t_failf(__FILE__, __LINE__, "%s.%s = %s: status %d", \
				#base, #field, #value, res.status);	\
		CHECK_EQ(res.status, GPU_AES_STATUS_EINVAL);		\
		nr_bad++;						\
	} while (0)

	/* GCM's extent: text, 16-byte tag slot, AAD, all inside the area. */
	s = gcm;
	s.len = 0xffffffffU;
	BAD2(s, aad_len, 0xffffffffU);		/* span near 8 GiB */
	BAD2(gcm, aad_len, 0xffffffffU);
	BAD2(gcm, len, 0xffffffffU);
	/* The text fits, its tag slot does not. */
	BAD2(gcm, len, (uint32_t)size);
	s = gcm;
	s.aad_len = 17;				/* 32 + 16 + 17 > 64 */
	BAD2(s, data_off, size - 64);
	BAD2(gcm, data_off, size - 48);		/* AAD past the end */
	BAD2(gcm, data_off, size - 32);		/* tag past the end */
	BAD2(gcm, data_off, 0xffffffffffffffc0ULL);	/* wraps */
	BAD2(gcm, data_off, 8);
	for (i = 0; i < sizeof(bad_auth); i++)
		BAD2(gcm, auth_len, bad_auth[i]);
	for (i = 12; i < 16; i++)
		BAD2(gcm, iv[i], 1);		/* 96-bit IVs only */
	BAD2(gcm, key_slot, 2);			/* a two-key entry */
	BAD2(gcm, dir, 2);

	/* XTS: a whole block at least, and a two-key entry. */
	BAD2(xts, len, 0);
	BAD2(xts, len, 1);
	BAD2(xts, len, 15);
	BAD2(xts, key_slot, 1);			/* no tweak key */
	BAD2(xts, key_slot, 3);			/* tweak_len wrong */
	BAD2(xts, data_off, size - 32);
	BAD2(xts, aad_len, 1);
	BAD2(xts, auth_len, 16);

	/* The one-key modes carry no AAD or tag, nor an XTS entry. */
	BAD2(ctr, aad_len, 1);
	BAD2(ctr, auth_len, 16);
	BAD2(ecb, aad_len, 16);
	BAD2(ecb, auth_len, 4);
	BAD2(ctr, key_slot, 2);
	BAD2(ecb, key_slot, 2);

	/* Room for later ABI fields must be zero in every algorithm. */
	for (i = 0; i < sizeof(s.reserved1); i++) {
		BAD2(gcm, reserved1[i], 0x80);
		BAD2(ctr, reserved1[i], 1);
	}
	BAD2(xts, reserved1[14], 1);
	BAD2(ecb, reserved1[0], 1);
	CHECK_MEM(r->data, copy, size);

	/* The bases themselves run, at the very end of the area too. */
	s = gcm;
	s.dir = GPU_AES_DIR_ENCRYPT;
	s.data_off = size - 64;			/* 32 + 16 + 16 */
	CHECK_EQ(post_one(p, &s, 0, &res), 0);
	CHECK_EQ(res.status, GPU_AES_STATUS_OK);
	s.auth_len = 4;
	s.len = 0;
	s.data_off = size - 32;			/* tag slot + AAD only */
	CHECK_EQ(post_one(p, &s, 0, &res), 0);
	CHECK_EQ(res.status, GPU_AES_STATUS_OK);
	s = xts;
	s.data_off = size - 128;
	CHECK_EQ(post_one(p, &s, 0, &res), 0);
	CHECK_EQ(res.status, GPU_AES_STATUS_OK);
	CHECK(memcmp(r->data + size - 128, copy, 64) != 0);
	CHECK_MEM(r->data, copy, size - 128);

	gpu_aes_producer_get_stats(p, &st);
	CHECK_EQ(st.invalid, nr_bad);
	CHECK_EQ(st.requests, nr_bad + 3);
	CHECK_EQ(st.completed, nr_bad + 3);
	CHECK_EQ(st.rejected, 0);
	gpu_aes_producer_destroy(p);
}

TEST(validation_check_sqe_copies_fields)
{
	struct gpu_aes_producer *p = mk_producer(16, 1 << 20, 1, 50);
	const struct gpu_aes_region *r;
	struct gpu_aes_segment seg;
	struct gpu_aes_sqe s;
	uint8_t key[32] = { 3 };

	CHECK(p);
	r = gpu_aes_producer_region(p);
	CHECK_EQ(gpu_aes_producer_setkey(p, 7, key, 32), 0);
	memset(&s, 0, sizeof(s));
	s.tag = 11;
	s.seq = 0xdeadbeef;
	s.alg = GPU_AES_ALG_ECB;
	s.dir = GPU_AES_DIR_DECRYPT;
	s.key_slot = 7;
	s.key_gen = r->keys[7].gen;
	s.data_off = 4096;
	s.len = 4096;
	memset(s.iv, 0x77, 16);
	CHECK_EQ(gpu_aes_core_check_sqe(r, &s, &seg), GPU_AES_STATUS_OK);
	CHECK_EQ(seg.aad_len, 0);
	CHECK_EQ(seg.auth_len, 0);
	CHECK_EQ(seg.tag, 11);
	CHECK_EQ(seg.seq, 0xdeadbeef);
	CHECK_EQ(seg.alg, GPU_AES_ALG_ECB);
	CHECK_EQ(seg.dir, GPU_AES_DIR_DECRYPT);
	CHECK_EQ(seg.key_slot, 7);
	CHECK_EQ(seg.data_off, 4096);
	CHECK_EQ(seg.len, 4096);
	CHECK_MEM(seg.iv, s.iv, 16);
	/* Until a backend says otherwise, a segment has failed. */
	CHECK_EQ(seg.status, GPU_AES_STATUS_EIO);

	s.alg = GPU_AES_ALG_GCM;
	s.dir = GPU_AES_DIR_ENCRYPT;
	s.len = 100;
	s.aad_len = 300;
	s.auth_len = 13;
	memset(s.iv + 12, 0, 4);
	CHECK_EQ(gpu_aes_core_check_sqe(r, &s, &seg), GPU_AES_STATUS_OK);
	CHECK_EQ(seg.alg, GPU_AES_ALG_GCM);
	CHECK_EQ(seg.len, 100);
	CHECK_EQ(seg.aad_len, 300);
	CHECK_EQ(seg.auth_len, 13);
	CHECK_MEM(seg.iv, s.iv, 16);
	gpu_aes_producer_destroy(p);
}
