// SPDX-License-Identifier: GPL-2.0-only
/*
 * Submission entries with each field wrong, posted by hand to the real
 * core (struct mfix): each completes with GPU_AES_STATUS_EINVAL on the
 * queue it was posted to and no byte of the data area changes - the other
 * queues' slices included (run under ASan too, which also watches the
 * helper's own heap).  Then gpu_aes_core_check_sqe() on its own.
 */
#include <string.h>

#include "core.h"
#include "harness.h"
#include "util.h"

#define QDATA	(1U << 20)
#define NQ	3U

/* The data area poisoned, and a copy to compare it with. */
static uint8_t *v_snapshot(struct mfix *m)
{
	static uint8_t copy[NQ * QDATA];

	if (m->r.data_size != sizeof(copy))
		return NULL;
	memset(m->r.data, 0x5c, m->r.data_size);
	memcpy(copy, m->r.data, m->r.data_size);
	return copy;
}

/*
 * Posts @s on queue @q and checks that it completes there with @want;
 * counts it in *nr.  Reports which field made it fail.
 */
static int v_expect(struct mfix *m, uint32_t q, struct gpu_aes_sqe *s,
		    int32_t want, unsigned int *nr, const char *what, int line)
{
	int32_t got;

	s->tag = *nr % m->r.queue_entries;
	s->seq = 0x1000 + *nr;
	got = mfix_run_one(m, q, s);
	(*nr)++;
	if (got == want)
		return 1;
	t_failf(__FILE__, line, "%s: status %d, want %d", what, got, want);
	return 0;
}

#define BAD(q, base, field, value)					\
	do {								\
		s = base;						\
		s.field = value;					\
		CHECK(v_expect(&m, q, &s, GPU_AES_STATUS_EINVAL, &nr_bad, \
			       #base "." #field " = " #value, __LINE__)); \
	} while (0)

TEST(validation_each_bad_field_is_einval)
{
	const uint64_t base_off = QDATA;	/* queue 1's slice */
	struct gpu_aes_core_stats st;
	struct gpu_aes_sqe ctr, s;
	uint8_t key[16] = { 9 };
	unsigned int i, nr_bad = 0, nr_ok = 0;
	uint64_t size;
	uint8_t *copy;
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, NQ, 64, 8, QDATA), 0);
	size = m.r.data_size;
	CHECK_EQ(size, NQ * QDATA);
	mfix_set_key(&m, 1, 5, key, 16, 0);
	/* The kernel's table is trusted, but a garbled entry must not be. */
	mfix_set_key(&m, 3, 1, key, 16, 0);
	m.r.keys[3].key_len = 20;
	mfix_set_key(&m, 4, 1, key, 16, 0);
	m.r.keys[4].key_len = 64;
	CHECK_EQ(mfix_open(&m, NULL, 1, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	copy = v_snapshot(&m);
	CHECK(copy);

	memset(&ctr, 0, sizeof(ctr));
	ctr.alg = GPU_AES_ALG_CTR;
	ctr.dir = GPU_AES_DIR_ENCRYPT;
	ctr.key_slot = 1;
	ctr.key_gen = 5;
	ctr.data_off = base_off;
	ctr.len = 64;

	BAD(1, ctr, alg, 0);
	BAD(1, ctr, alg, GPU_AES_ALG_MAX + 1);	/* the first unassigned */
	BAD(1, ctr, alg, 255);
	BAD(1, ctr, dir, 2);
	BAD(1, ctr, dir, 255);
	BAD(1, ctr, key_slot, 8);
	BAD(1, ctr, key_slot, 65535);
	BAD(1, ctr, key_slot, 2);		/* never set: key_len 0 */
	BAD(1, ctr, key_slot, 3);		/* garbled key_len */
	BAD(1, ctr, key_slot, 4);		/* garbled key_len */
	BAD(1, ctr, key_gen, 6);		/* key was replaced */
	BAD(1, ctr, key_gen, 0);
	/* Other queues' slices, and past the whole area. */
	BAD(1, ctr, data_off, 0);
	BAD(1, ctr, data_off, base_off - 64);
	BAD(1, ctr, data_off, base_off + QDATA);
	BAD(1, ctr, data_off, 2 * QDATA + 4096);
	BAD(1, ctr, data_off, size);
	BAD(1, ctr, data_off, size - 64);
	BAD(1, ctr, data_off, base_off + QDATA - 32);	/* straddles the end */
	BAD(1, ctr, data_off, 1ULL << 63);
	BAD(1, ctr, data_off, 0xffffffffffffffc0ULL);	/* off + len wraps */
	BAD(1, ctr, data_off, base_off + 8);		/* not 16-byte aligned */
	BAD(1, ctr, len, 0xffffffffU);
	BAD(1, ctr, len, QDATA + 16);
	s = ctr;
	s.alg = GPU_AES_ALG_ECB;
	for (i = 1; i < 16; i++) {
		s.len = 16 + i;			/* ECB: whole blocks only */
		CHECK(v_expect(&m, 1, &s, GPU_AES_STATUS_EINVAL, &nr_bad,
			       "ECB length", __LINE__));
	}
	CHECK_MEM(m.r.data, copy, size);

	/* The same entries with valid fields do run. */
	s = ctr;
	s.len = 0;
	CHECK(v_expect(&m, 1, &s, GPU_AES_STATUS_OK, &nr_ok, "len 0", __LINE__));
	CHECK_MEM(m.r.data, copy, size);
	s = ctr;
	s.data_off = base_off + QDATA - 64;	/* the slice's last bytes */
	CHECK(v_expect(&m, 1, &s, GPU_AES_STATUS_OK, &nr_ok, "end", __LINE__));
	CHECK(memcmp(m.r.data + base_off + QDATA - 64, copy, 64) != 0);
	CHECK_MEM(m.r.data, copy, base_off + QDATA - 64);
	CHECK_MEM(m.r.data + base_off + QDATA, copy + base_off + QDATA,
		  size - base_off - QDATA);

	mfix_stop(&m);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.invalid, nr_bad);
	CHECK_EQ(st.requests, nr_bad + nr_ok);
	CHECK_EQ(st.bytes, 64);
	mfix_teardown(&m);
}

/*
 * An algorithm the helper did not agree to at SETUP (an older helper's
 * region, or a backend that lacks it) is refused, however well formed:
 * the backend may not know it.
 */
TEST(validation_unagreed_alg_is_einval)
{
	struct gpu_aes_core_stats st;
	unsigned int nr_bad = 0, nr_ok = 0;
	struct gpu_aes_sqe ctr, s;
	uint8_t key[16] = { 7 }, *copy;
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, NQ, 64, 8, QDATA), 0);
	CHECK_EQ(m.r.algs, GPU_AES_ALGS_KNOWN);
	m.r.algs &= ~GPU_AES_ALG_BIT(GPU_AES_ALG_CTR);
	mfix_set_key(&m, 1, 1, key, 16, 0);
	CHECK_EQ(mfix_open(&m, NULL, 1, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	copy = v_snapshot(&m);
	CHECK(copy);

	memset(&ctr, 0, sizeof(ctr));
	ctr.alg = GPU_AES_ALG_CTR;
	ctr.key_slot = 1;
	ctr.key_gen = 1;
	ctr.data_off = QDATA;
	ctr.len = 64;
	BAD(1, ctr, dir, GPU_AES_DIR_ENCRYPT);
	BAD(1, ctr, dir, GPU_AES_DIR_DECRYPT);
	CHECK_MEM(m.r.data, copy, m.r.data_size);
	s = ctr;
	s.alg = GPU_AES_ALG_ECB;
	CHECK(v_expect(&m, 1, &s, GPU_AES_STATUS_OK, &nr_ok, "ecb", __LINE__));

	mfix_stop(&m);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.invalid, nr_bad);
	CHECK_EQ(st.requests, 3);
	mfix_teardown(&m);
}

/*
 * The fields that depend on the algorithm: GCM's span, auth_len and IV
 * tail, XTS's length and two-key entry, CBC's whole blocks,
 * aad_len/auth_len on the other algorithms, reserved1.  On queue 2, the
 * last: its slice ends the area.
 */
TEST(validation_alg_fields_are_einval)
{
	static const uint8_t bad_auth[] = {
		0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17, 32, 255
	};
	const uint64_t base_off = 2 * QDATA, end = 3 * QDATA;
	struct gpu_aes_core_stats st;
	struct gpu_aes_sqe gcm, xts, ctr, ecb, cbc, s;
	unsigned int i, nr_bad = 0, nr_ok = 0;
	uint8_t key[64], *copy;
	uint64_t size;
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, NQ, 64, 8, QDATA), 0);
	size = m.r.data_size;
	CHECK_EQ(size, end);
	t_rand_bytes(key, sizeof(key));
	mfix_set_key(&m, 1, 1, key, 16, 0);
	mfix_set_key(&m, 2, 1, key, 32, 32);
	/* A garbled XTS entry: the tweak key shorter than the data key. */
	mfix_set_key(&m, 3, 1, key, 32, 32);
	m.r.keys[3].tweak_len = 16;
	CHECK_EQ(mfix_open(&m, NULL, 1, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	copy = v_snapshot(&m);
	CHECK(copy);

	memset(&gcm, 0, sizeof(gcm));
	gcm.alg = GPU_AES_ALG_GCM;
	gcm.dir = GPU_AES_DIR_DECRYPT;
	gcm.key_slot = 1;
	gcm.key_gen = 1;
	gcm.data_off = base_off;
	gcm.len = 32;
	gcm.aad_len = 16;
	gcm.auth_len = 16;
	memset(gcm.iv, 0xc3, 12);
	xts = gcm;
	xts.alg = GPU_AES_ALG_XTS;
	xts.key_slot = 2;
	xts.len = 64;
	xts.aad_len = 0;
	xts.auth_len = 0;
	memset(xts.iv, 0x3c, 16);
	ctr = xts;
	ctr.alg = GPU_AES_ALG_CTR;
	ctr.key_slot = 1;
	ecb = ctr;
	ecb.alg = GPU_AES_ALG_ECB;
	memset(ecb.iv, 0, 16);
	cbc = ctr;
	cbc.alg = GPU_AES_ALG_CBC;

	/* GCM's extent: text, 16-byte tag slot, AAD, all inside the slice. */
	s = gcm;
	s.len = 0xffffffffU;
	BAD(2, s, aad_len, 0xffffffffU);	/* span near 8 GiB */
	BAD(2, gcm, aad_len, 0xffffffffU);
	BAD(2, gcm, len, 0xffffffffU);
	/* The text fits, its tag slot does not. */
	BAD(2, gcm, len, QDATA);
	s = gcm;
	s.aad_len = 17;				/* 32 + 16 + 17 > 64 */
	BAD(2, s, data_off, end - 64);
	BAD(2, gcm, data_off, end - 48);	/* AAD past the end */
	BAD(2, gcm, data_off, end - 32);	/* tag past the end */
	BAD(2, gcm, data_off, 0xffffffffffffffc0ULL);	/* wraps */
	BAD(2, gcm, data_off, base_off + 8);
	BAD(2, gcm, data_off, base_off - 64);	/* queue 1's slice */
	for (i = 0; i < sizeof(bad_auth); i++)
		BAD(2, gcm, auth_len, bad_auth[i]);
	for (i = 12; i < 16; i++)
		BAD(2, gcm, iv[i], 1);		/* 96-bit IVs only */
	BAD(2, gcm, key_slot, 2);		/* a two-key entry */
	BAD(2, gcm, dir, 2);

	/* XTS: a whole block at least, and a two-key entry. */
	BAD(2, xts, len, 0);
	BAD(2, xts, len, 1);
	BAD(2, xts, len, 15);
	BAD(2, xts, key_slot, 1);		/* no tweak key */
	BAD(2, xts, key_slot, 3);		/* tweak_len wrong */
	BAD(2, xts, data_off, end - 32);
	BAD(2, xts, aad_len, 1);
	BAD(2, xts, auth_len, 16);

	/* The one-key modes carry no AAD or tag, nor an XTS entry. */
	BAD(2, ctr, aad_len, 1);
	BAD(2, ctr, auth_len, 16);
	BAD(2, ecb, aad_len, 16);
	BAD(2, ecb, auth_len, 4);
	BAD(2, ctr, key_slot, 2);
	BAD(2, ecb, key_slot, 2);

	/* CBC: whole blocks; one key; no AAD or tag. */
	BAD(2, cbc, len, 1);
	BAD(2, cbc, len, 15);
	BAD(2, cbc, len, 17);
	BAD(2, cbc, len, 4095);
	BAD(2, cbc, len, 0xfffffff0U);
	BAD(2, cbc, aad_len, 16);
	BAD(2, cbc, auth_len, 16);
	BAD(2, cbc, key_slot, 2);
	BAD(2, cbc, key_slot, 3);
	BAD(2, cbc, data_off, end - 32);
	BAD(2, cbc, data_off, base_off + 8);
	BAD(2, cbc, dir, 2);

	/* Room for later ABI fields must be zero in every algorithm. */
	for (i = 0; i < sizeof(s.reserved1); i++) {
		BAD(2, gcm, reserved1[i], 0x80);
		BAD(2, ctr, reserved1[i], 1);
	}
	BAD(2, xts, reserved1[14], 1);
	BAD(2, ecb, reserved1[0], 1);
	BAD(2, cbc, reserved1[7], 1);
	CHECK_MEM(m.r.data, copy, size);

	/* The bases themselves run, at the very end of the slice too. */
	s = gcm;
	s.dir = GPU_AES_DIR_ENCRYPT;
	s.data_off = end - 64;			/* 32 + 16 + 16 */
	CHECK(v_expect(&m, 2, &s, GPU_AES_STATUS_OK, &nr_ok, "gcm", __LINE__));
	s.auth_len = 4;
	s.len = 0;
	s.data_off = end - 32;			/* tag slot + AAD only */
	CHECK(v_expect(&m, 2, &s, GPU_AES_STATUS_OK, &nr_ok, "gcm 0",
		       __LINE__));
	s = xts;
	s.data_off = end - 128;
	CHECK(v_expect(&m, 2, &s, GPU_AES_STATUS_OK, &nr_ok, "xts", __LINE__));
	CHECK(memcmp(m.r.data + end - 128, copy, 64) != 0);
	CHECK_MEM(m.r.data, copy, size - 128);
	s = cbc;
	s.data_off = end - 16;			/* one block, the last */
	s.len = 16;
	CHECK(v_expect(&m, 2, &s, GPU_AES_STATUS_OK, &nr_ok, "cbc", __LINE__));
	CHECK(memcmp(m.r.data + end - 16, copy, 16) != 0);
	CHECK_MEM(m.r.data, copy, size - 128);

	mfix_stop(&m);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.invalid, nr_bad);
	CHECK_EQ(st.requests, nr_bad + nr_ok);
	mfix_teardown(&m);
}

/*
 * Every queue may touch its own slice only.  From each queue, entries that
 * name another queue's slice (its start, middle and last bytes), straddle
 * their own slice's end or start just before it are refused on the
 * posting queue's CQ; those at the slice's very edges run.  Nothing
 * outside the accepted entries' bytes changes.
 */
TEST(validation_data_off_outside_own_slice_is_einval)
{
	const uint64_t qd = QDATA;
	struct gpu_aes_core_stats st;
	struct gpu_aes_sqe ctr, gcm, s;
	unsigned int nr_bad = 0, nr_ok = 0;
	uint8_t key[16], *copy;
	uint32_t q, o;
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, NQ, 64, 8, QDATA), 0);
	t_rand_bytes(key, sizeof(key));
	mfix_set_key(&m, 0, 1, key, 16, 0);
	CHECK_EQ(mfix_open(&m, NULL, 1, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	copy = v_snapshot(&m);
	CHECK(copy);

	memset(&ctr, 0, sizeof(ctr));
	ctr.alg = GPU_AES_ALG_CTR;
	ctr.dir = GPU_AES_DIR_ENCRYPT;
	ctr.key_gen = 1;
	ctr.len = 64;
	gcm = ctr;
	gcm.alg = GPU_AES_ALG_GCM;
	gcm.len = 16;
	gcm.aad_len = 16;
	gcm.auth_len = 16;

	for (q = 0; q < NQ; q++) {
		uint64_t base = q * qd;

		for (o = 0; o < NQ; o++) {
			if (o == q)
				continue;
			BAD(q, ctr, data_off, o * qd);
			BAD(q, ctr, data_off, o * qd + qd / 2);
			BAD(q, ctr, data_off, o * qd + qd - 64);
			BAD(q, gcm, data_off, o * qd);
		}
		/* Across the end of its own slice (into the next one's). */
		BAD(q, ctr, data_off, base + qd - 48);
		BAD(q, ctr, data_off, base + qd - 16);
		BAD(q, gcm, data_off, base + qd - 32);	/* AAD over the end */
		if (q) {
			/* Starting in the previous slice, ending in its own. */
			BAD(q, ctr, data_off, base - 16);
			BAD(q, ctr, data_off, base - 48);
		}
	}
	CHECK_MEM(m.r.data, copy, m.r.data_size);

	/* The very first and last bytes of each slice are its own. */
	for (q = 0; q < NQ; q++) {
		s = ctr;
		s.data_off = q * qd;
		CHECK(v_expect(&m, q, &s, GPU_AES_STATUS_OK, &nr_ok, "first",
			       __LINE__));
		s.data_off = q * qd + qd - 64;
		CHECK(v_expect(&m, q, &s, GPU_AES_STATUS_OK, &nr_ok, "last",
			       __LINE__));
		CHECK(memcmp(m.r.data + q * qd, copy, 64) != 0);
		CHECK(memcmp(m.r.data + q * qd + qd - 64, copy, 64) != 0);
		CHECK_MEM(m.r.data + q * qd + 64, copy, qd - 128);
	}
	mfix_stop(&m);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.invalid, nr_bad);
	CHECK_EQ(st.requests, nr_bad + nr_ok);
	mfix_teardown(&m);
}

TEST(validation_check_sqe_copies_fields)
{
	struct gpu_aes_segment seg;
	struct gpu_aes_sqe s;
	uint8_t key[32] = { 3 };
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, 4, 16, 8, QDATA), 0);
	mfix_set_key(&m, 7, 42, key, 32, 0);
	memset(&s, 0, sizeof(s));
	s.tag = 11;
	s.seq = 0xdeadbeef;
	s.alg = GPU_AES_ALG_ECB;
	s.dir = GPU_AES_DIR_DECRYPT;
	s.key_slot = 7;
	s.key_gen = 42;
	s.data_off = 2 * QDATA + 4096;
	s.len = 4096;
	memset(s.iv, 0x77, 16);
	memset(&seg, 0xa5, sizeof(seg));
	CHECK_EQ(gpu_aes_core_check_sqe(&m.r, 2, &s, &seg), GPU_AES_STATUS_OK);
	CHECK_EQ(seg.queue, 2);
	CHECK_EQ(seg.aad_len, 0);
	CHECK_EQ(seg.auth_len, 0);
	CHECK_EQ(seg.tag, 11);
	CHECK_EQ(seg.seq, 0xdeadbeef);
	CHECK_EQ(seg.alg, GPU_AES_ALG_ECB);
	CHECK_EQ(seg.dir, GPU_AES_DIR_DECRYPT);
	CHECK_EQ(seg.key_slot, 7);
	CHECK_EQ(seg.key_gen, 42);
	CHECK_EQ(seg.data_off, 2 * QDATA + 4096);
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
	CHECK_EQ(gpu_aes_core_check_sqe(&m.r, 2, &s, &seg), GPU_AES_STATUS_OK);
	CHECK_EQ(seg.alg, GPU_AES_ALG_GCM);
	CHECK_EQ(seg.len, 100);
	CHECK_EQ(seg.aad_len, 300);
	CHECK_EQ(seg.auth_len, 13);
	CHECK_MEM(seg.iv, s.iv, 16);
	/* The same entry from any other queue names a slice not its own. */
	CHECK_EQ(gpu_aes_core_check_sqe(&m.r, 0, &s, &seg),
		 GPU_AES_STATUS_EINVAL);
	CHECK_EQ(seg.queue, 0);
	CHECK_EQ(gpu_aes_core_check_sqe(&m.r, 1, &s, &seg),
		 GPU_AES_STATUS_EINVAL);
	CHECK_EQ(gpu_aes_core_check_sqe(&m.r, 3, &s, &seg),
		 GPU_AES_STATUS_EINVAL);
	mfix_teardown(&m);
}

/*
 * The slice bounds exactly, per queue and algorithm: the last offset whose
 * span still fits is accepted, one block later is refused, and so is one
 * block before the slice.
 */
TEST(validation_check_sqe_slice_bounds)
{
	static const struct {
		uint8_t alg;
		uint32_t len, aad_len;
		uint8_t auth_len;
	} c[] = {
		{ GPU_AES_ALG_ECB, 4096, 0, 0 },
		{ GPU_AES_ALG_CTR, 17, 0, 0 },
		{ GPU_AES_ALG_XTS, 33, 0, 0 },
		{ GPU_AES_ALG_GCM, 20, 13, 12 },
		{ GPU_AES_ALG_GCM, 0, 0, 16 },
		{ GPU_AES_ALG_CBC, 48, 0, 0 },
	};
	struct gpu_aes_segment seg;
	struct gpu_aes_sqe s;
	uint8_t key[64] = { 1 };
	uint32_t q, i;
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, 4, 16, 8, QDATA), 0);
	mfix_set_key(&m, 0, 1, key, 16, 0);
	mfix_set_key(&m, 1, 1, key, 16, 16);
	for (q = 0; q < 4; q++)
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			uint64_t base = (uint64_t)q * QDATA;
			uint64_t span = gpu_aes_sqe_span(c[i].alg, c[i].len,
							 c[i].aad_len);
			/* The last 16-byte aligned start that fits. */
			uint64_t last = (base + QDATA - span) & ~15ULL;

			memset(&s, 0, sizeof(s));
			s.alg = c[i].alg;
			s.key_slot = c[i].alg == GPU_AES_ALG_XTS;
			s.key_gen = 1;
			s.len = c[i].len;
			s.aad_len = c[i].aad_len;
			s.auth_len = c[i].auth_len;
			s.data_off = base;
			CHECK_EQ(gpu_aes_core_check_sqe(&m.r, q, &s, &seg), 0);
			s.data_off = last;
			CHECK_EQ(gpu_aes_core_check_sqe(&m.r, q, &s, &seg), 0);
			s.data_off = last + 16;
			CHECK_EQ(gpu_aes_core_check_sqe(&m.r, q, &s, &seg),
				 GPU_AES_STATUS_EINVAL);
			s.data_off = base + QDATA;
			CHECK_EQ(gpu_aes_core_check_sqe(&m.r, q, &s, &seg),
				 GPU_AES_STATUS_EINVAL);
			if (!q)
				continue;
			s.data_off = base - 16;
			CHECK_EQ(gpu_aes_core_check_sqe(&m.r, q, &s, &seg),
				 GPU_AES_STATUS_EINVAL);
		}
	mfix_teardown(&m);
}
