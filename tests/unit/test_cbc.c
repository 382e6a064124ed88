// SPDX-License-Identifier: GPL-2.0-only
/*
 * CBC (GPU_AES_ALG_CBC) in the helper: the cpu backend's OpenSSL path on
 * its own (cpu_aes.c) against NIST SP 800-38A F.2, and the real core and
 * cpu backend served submission entries written by hand as the kernel
 * writes them (struct mfix; the kernel's request path has no cbc(aes) to
 * drive through kring): the vectors again, random batches mixed with CTR
 * and ECB against OpenSSL called directly, requests that chain their IVs
 * as consecutive requests of one stream do, and the backend's key copies
 * gone once the kernel wipes the entry.  Everything in place, as the data
 * area is.
 */
#include <string.h>

#include "backend_cpu.h"
#include "cpu_aes.h"
#include "harness.h"
#include "secret.h"
#include "util.h"

#define QDATA	(4U << 20)

static const char *pt_hex =
	"6bc1bee22e409f96e93d7e117393172a"
	"ae2d8a571e03ac9c9eb76fac45af8e51"
	"30c81c46a35ce411e5fbc1191a0a52ef"
	"f69f2445df4f9b17ad2b417be66c3710";
static const char *iv_hex = "000102030405060708090a0b0c0d0e0f";

/* SP 800-38A F.2.1/F.2.2 (AES-128), F.2.3/F.2.4 (192), F.2.5/F.2.6 (256). */
static const struct {
	const char *key, *ct;
} f2[] = {
	{ "2b7e151628aed2a6abf7158809cf4f3c",
	  "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
	  "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7" },
	{ "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
	  "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a"
	  "571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd" },
	{ "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
	  "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
	  "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b" },
};

static struct gpu_aes_sqe cbc_sqe(uint32_t tag, uint8_t dir, uint16_t slot,
				  uint64_t off, uint32_t len,
				  const uint8_t iv[16])
{
	struct gpu_aes_sqe e;

	memset(&e, 0, sizeof(e));
	e.tag = tag;
	e.seq = 0x100 + tag;
	e.alg = GPU_AES_ALG_CBC;
	e.dir = dir;
	e.key_slot = slot;
	e.key_gen = 1;
	e.data_off = off;
	e.len = len;
	memcpy(e.iv, iv, 16);
	return e;
}

/* cpu_aes.c alone: out of place and in place, both ways. */
TEST(cbc_sp800_38a_f2_cpu_crypt)
{
	struct gpu_aes_cpu_key *kc = gpu_aes_secret_alloc(sizeof(*kc));
	uint8_t pt[64], ct[64], out[64], buf[64], key[32], iv[16];
	unsigned int i;

	CHECK(kc);
	t_unhex(pt_hex, pt, 64);
	t_unhex(iv_hex, iv, 16);
	for (i = 0; i < 3; i++) {
		size_t klen = t_unhex(f2[i].key, key, 32);
		struct gpu_aes_cpu_op op = {
			.alg = GPU_AES_ALG_CBC, .dir = GPU_AES_DIR_ENCRYPT,
			.iv = iv, .in = pt, .out = out, .len = 64,
		};

		t_unhex(f2[i].ct, ct, 64);
		gpu_aes_cpu_key_set(kc, key, (uint32_t)klen, 0);
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
		CHECK_MEM(out, ct, 64);
		/* A context keeps no chain: the IV is the request's. */
		memset(out, 0, sizeof(out));
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
		CHECK_MEM(out, ct, 64);
		memcpy(buf, pt, 64);
		op.in = op.out = buf;
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
		CHECK_MEM(buf, ct, 64);
		op.dir = GPU_AES_DIR_DECRYPT;
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
		CHECK_MEM(buf, pt, 64);
		op.in = ct;
		op.out = out;
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
		CHECK_MEM(out, pt, 64);
		/* Whole blocks only; no text is no work. */
		op.len = 40;
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_EIO);
		op.len = 0;
		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_OK);
	}
	/* A two-key (XTS) entry is not a CBC key. */
	gpu_aes_cpu_key_set(kc, key, 16, 16);
	{
		struct gpu_aes_cpu_op op = {
			.alg = GPU_AES_ALG_CBC, .dir = GPU_AES_DIR_ENCRYPT,
			.iv = iv, .in = pt, .out = out, .len = 64,
		};

		CHECK_EQ(gpu_aes_cpu_crypt(kc, &op), GPU_AES_STATUS_EIO);
	}
	gpu_aes_cpu_key_wipe(kc);
	CHECK_EQ(gpu_aes_cpu_key_held(kc), 0);
	gpu_aes_secret_free(kc, sizeof(*kc));
}

/* The vectors as entries of one batch, through the core: all six at once. */
static void f2_through_core(unsigned int threads)
{
	uint8_t pt[64], ct[3][64], key[32], iv[16];
	struct gpu_aes_sqe e[6];
	struct mfix m;
	unsigned int i;

	CHECK_EQ(mfix_alloc(&m, 1, 16, 4, QDATA), 0);
	t_unhex(pt_hex, pt, 64);
	t_unhex(iv_hex, iv, 16);
	for (i = 0; i < 3; i++) {
		size_t klen = t_unhex(f2[i].key, key, 32);

		t_unhex(f2[i].ct, ct[i], 64);
		mfix_set_key(&m, i, 1, key, (uint32_t)klen, 0);
		/* encryption at 128 i, decryption at 128 i + 64: adjacent */
		memcpy(m.r.data + 128 * i, pt, 64);
		memcpy(m.r.data + 128 * i + 64, ct[i], 64);
		e[2 * i] = cbc_sqe(2 * i, GPU_AES_DIR_ENCRYPT, (uint16_t)i,
				   128 * i, 64, iv);
		e[2 * i + 1] = cbc_sqe(2 * i + 1, GPU_AES_DIR_DECRYPT,
				       (uint16_t)i, 128 * i + 64, 64, iv);
	}
	CHECK_EQ(mfix_open(&m, NULL, threads, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	mfix_post(&m, 0, e, 6);
	CHECK_EQ(mfix_wait_cq(&m, 0, 6), 0);
	for (i = 0; i < 6; i++) {
		const struct gpu_aes_cqe *c = mfix_cqe(&m, 0, i);

		CHECK_EQ(c->status, GPU_AES_STATUS_OK);
		CHECK_EQ(c->seq, 0x100 + c->tag);
	}
	for (i = 0; i < 3; i++) {
		CHECK_MEM(m.r.data + 128 * i, ct[i], 64);
		CHECK_MEM(m.r.data + 128 * i + 64, pt, 64);
	}
	mfix_teardown(&m);
}

TEST(cbc_sp800_38a_f2_through_the_core_inline_backend)
{
	f2_through_core(0);
}

TEST(cbc_sp800_38a_f2_through_the_core_threaded_backend)
{
	f2_through_core(3);
}

#define R_KEYS		6
#define R_ENTRIES	256U

struct r_req {
	uint8_t alg, dir;
	uint16_t slot;
	uint32_t len;
	uint64_t off;
	uint8_t iv[16];
};

static uint32_t r_len(uint8_t alg)
{
	uint32_t len;

	switch (t_rand() % 8) {
	case 0:
		len = 1 + (uint32_t)(t_rand() % (1U << 20));
		break;
	case 1:
	case 2:
		len = 1 + (uint32_t)(t_rand() % (64U << 10));
		break;
	default:
		len = 1 + (uint32_t)(t_rand() % 4096);
	}
	if (alg != GPU_AES_ALG_CTR)
		len = (len + 15) & ~15U;
	return len;
}

/*
 * Rounds of batches on two queues: up to 200 requests per queue per batch,
 * most of them CBC (both directions, every key size), some CTR and ECB,
 * random lengths to 1 MiB, packed back to back at the 64-byte alignment
 * the kernel uses, against OpenSSL on a copy of the input.
 */
static void random_batches(unsigned int threads, unsigned int rounds)
{
	static uint8_t want[2][QDATA];
	static struct r_req rq[2][R_ENTRIES];
	uint8_t keys[R_KEYS][32];
	unsigned int nr[2], round, q, i, total = 0;
	uint32_t cq[2] = { 0, 0 };
	struct gpu_aes_core_stats st;
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, 2, R_ENTRIES, R_KEYS, QDATA), 0);
	for (i = 0; i < R_KEYS; i++) {
		t_rand_bytes(keys[i], 32);
		mfix_set_key(&m, i, 1, keys[i], 16 + 8 * (i % 3), 0);
	}
	CHECK_EQ(mfix_open(&m, NULL, threads, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	for (round = 0; round < rounds; round++) {
		for (q = 0; q < 2; q++) {
			uint8_t *slice = mfix_slice(&m, q);
			uint64_t off = 0;
			struct gpu_aes_sqe e[R_ENTRIES];
			unsigned int want_nr = 1 + (unsigned int)(t_rand() % 200);

			for (nr[q] = 0; nr[q] < want_nr; nr[q]++) {
				struct r_req *r = &rq[q][nr[q]];
				unsigned int pick = (unsigned int)(t_rand() % 10);

				r->alg = pick < 7 ? GPU_AES_ALG_CBC :
					 pick < 9 ? GPU_AES_ALG_CTR :
						    GPU_AES_ALG_ECB;
				r->dir = (uint8_t)(t_rand() & 1);
				r->slot = (uint16_t)(t_rand() % R_KEYS);
				r->len = r_len(r->alg);
				if (off + r->len > QDATA)
					break;
				r->off = off;
				off = (off + r->len + 63) & ~63ULL;
				t_rand_bytes(r->iv, 16);
				t_rand_bytes(slice + r->off, r->len);
				CHECK_EQ(ref_crypt(r->alg, r->dir,
						   keys[r->slot],
						   16 + 8 * (r->slot % 3),
						   r->iv, slice + r->off,
						   want[q] + r->off, r->len), 0);
				e[nr[q]] = cbc_sqe(nr[q], r->dir, r->slot,
						   (uint64_t)q * QDATA + r->off,
						   r->len, r->iv);
				e[nr[q]].alg = r->alg;
				if (r->alg == GPU_AES_ALG_ECB)
					memset(e[nr[q]].iv, 0, 16);
			}
			mfix_post(&m, q, e, nr[q]);
		}
		for (q = 0; q < 2; q++) {
			CHECK_EQ(mfix_wait_cq(&m, q, cq[q] + nr[q]), 0);
			for (i = 0; i < nr[q]; i++) {
				const struct gpu_aes_cqe *c =
					mfix_cqe(&m, q, cq[q] + i);
				const struct r_req *r;

				CHECK(c->tag < nr[q]);
				CHECK_EQ(c->status, GPU_AES_STATUS_OK);
				r = &rq[q][c->tag];
				if (t_memdiff(mfix_slice(&m, q) + r->off,
					      want[q] + r->off, r->len) >= 0) {
					t_failf(__FILE__, __LINE__,
						"alg %u dir %u key %u len %u: wrong bytes",
						r->alg, r->dir,
						16 + 8 * (r->slot % 3), r->len);
					return;
				}
			}
			cq[q] += nr[q];
			mfix_reap(&m, q, cq[q]);
			total += nr[q];
		}
	}
	mfix_stop(&m);
	gpu_aes_core_get_stats(m.core, &st);
	CHECK_EQ(st.requests, total);
	CHECK_EQ(st.invalid, 0);
	mfix_teardown(&m);
}

TEST(cbc_random_batches_vs_openssl_inline_backend)
{
	random_batches(0, 12);
}

TEST(cbc_random_batches_vs_openssl_threaded_backend)
{
	random_batches(3, 12);
}

/*
 * One stream in parts, each part's IV the last ciphertext block before it
 * (what the kernel hands a request that continues an earlier one):
 * encryption one part per batch, since a part's IV is the previous part's
 * output; decryption all parts in one batch, back to back in memory, so a
 * part's IV block is turned into plaintext by its neighbour meanwhile.
 * Both equal the whole stream through OpenSSL.
 */
TEST(cbc_iv_chains_across_requests)
{
	static const uint32_t parts[] = { 64, 1024, 16, 4096, 448, 512 };
	enum { NP = sizeof(parts) / sizeof(parts[0]), ALL = 6160 };
	static uint8_t pt[ALL], ct[ALL];
	uint8_t key[3][32], iv[16], piv[NP][16];
	struct gpu_aes_sqe e[NP];
	uint32_t off, cq = 0;
	unsigned int i;
	uint16_t slot;
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, 1, 16, 4, QDATA), 0);
	t_rand_bytes(pt, ALL);
	/* Slots 1..3: AES-128, -192, -256, all written before the core runs. */
	for (slot = 1; slot <= 3; slot++) {
		t_rand_bytes(key[slot - 1], 32);
		mfix_set_key(&m, slot, 1, key[slot - 1], 8 + 8 * slot, 0);
	}
	CHECK_EQ(mfix_open(&m, NULL, 2, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	for (slot = 1; slot <= 3; slot++) {
		uint32_t k = 8 + 8 * slot;

		t_rand_bytes(iv, 16);
		CHECK_EQ(ref_crypt(GPU_AES_ALG_CBC, GPU_AES_DIR_ENCRYPT,
				   key[slot - 1], k, iv, pt, ct, ALL), 0);
		memcpy(m.r.data, pt, ALL);
		memcpy(piv[0], iv, 16);
		for (i = 0, off = 0; i < NP; off += parts[i], i++) {
			e[i] = cbc_sqe(i, GPU_AES_DIR_ENCRYPT, slot, off,
				       parts[i], piv[i]);
			CHECK_EQ(mfix_run_one(&m, 0, &e[i]), GPU_AES_STATUS_OK);
			cq++;
			if (i + 1 < NP)
				memcpy(piv[i + 1],
				       m.r.data + off + parts[i] - 16, 16);
		}
		CHECK_EQ(off, ALL);
		CHECK_MEM(m.r.data, ct, ALL);

		for (i = 0, off = 0; i < NP; off += parts[i], i++) {
			e[i] = cbc_sqe(i, GPU_AES_DIR_DECRYPT, slot, off,
				       parts[i], i ? ct + off - 16 : iv);
		}
		mfix_post(&m, 0, e, NP);
		CHECK_EQ(mfix_wait_cq(&m, 0, cq + NP), 0);
		for (i = 0; i < NP; i++)
			CHECK_EQ(mfix_cqe(&m, 0, cq + i)->status,
				 GPU_AES_STATUS_OK);
		cq += NP;
		mfix_reap(&m, 0, cq);
		CHECK_MEM(m.r.data, pt, ALL);
	}
	mfix_teardown(&m);
}

static int nothing_cached(void *arg)
{
	return gpu_aes_backend_cpu_cached(arg) == 0;
}

/*
 * The CBC contexts are the key's too: gone once the kernel wipes the
 * entry, without a request (the core looks again now and then while the
 * backend holds keys).
 */
TEST(cbc_wiped_key_leaves_no_host_copy)
{
	uint8_t key[32], iv[16] = { 0 };
	struct gpu_aes_sqe e;
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, 1, 16, 4, QDATA), 0);
	t_rand_bytes(key, sizeof(key));
	mfix_set_key(&m, 1, 1, key, 32, 0);
	CHECK_EQ(mfix_open(&m, NULL, 2, NULL), 0);
	CHECK_EQ(gpu_aes_backend_cpu_cached(m.be), 0);
	CHECK_EQ(mfix_start(&m), 0);
	e = cbc_sqe(0, GPU_AES_DIR_ENCRYPT, 1, 0, 4096, iv);
	CHECK_EQ(mfix_run_one(&m, 0, &e), GPU_AES_STATUS_OK);
	e = cbc_sqe(1, GPU_AES_DIR_DECRYPT, 1, 8192, 4096, iv);
	CHECK_EQ(mfix_run_one(&m, 0, &e), GPU_AES_STATUS_OK);
	CHECK(gpu_aes_backend_cpu_cached(m.be) > 0);
	explicit_bzero(&m.r.keys[1], sizeof(m.r.keys[1]));
	CHECK_EQ(wait_until(nothing_cached, m.be), 0);
	mfix_teardown(&m);
}
