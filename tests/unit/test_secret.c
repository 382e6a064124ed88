// SPDX-License-Identifier: GPL-2.0-only
/*
 * Key material stays out of core dumps (helper/src/secret.c): secret
 * mappings are MADV_DONTDUMP, OpenSSL contexts made from a key land in the
 * arena, and after the helper's core and cpu backend have served every
 * algorithm with 128 and 256-bit keys, no key and no first round key of
 * its schedules is in any mapping a core dump would hold, while the same
 * search over the excluded mappings finds them (so it would have seen
 * them).  This process is what the kernel would dump; tests/vm/coredump.sh
 * crashes the real helper.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aes_key.h"
#include "cpu_aes.h"
#include "harness.h"
#include "secret.h"
#include "util.h"

#define QDATA		(1U << 20)
#define SCAN_CHUNK	(1U << 20)
/* Larger mappings are sanitizer shadow or reservations, not our data. */
#define SCAN_MAX_MAPPING (1UL << 30)
#define MAX_NEEDLES	64

/*
 * Whether a line of /proc/PID/smaps starts a mapping ("lo-hi perms ..."),
 * and its range and read permission if so.  Field names can start like
 * hex ("FilePmdMapped:").
 */
static int map_header(const char *line, unsigned long *lo, unsigned long *hi,
		      int *readable)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(line, &end, 16);
	if (end == line || *end != '-')
		return 0;
	b = strtoul(end + 1, &end, 16);
	if (errno || *end != ' ')
		return 0;
	*lo = a;
	*hi = b;
	*readable = end[1] == 'r';
	return 1;
}

/* Whether the mapping that holds p is MADV_DONTDUMP ("dd" in smaps). */
static int dontdump(const void *p)
{
	unsigned long lo, hi, a = (unsigned long)p;
	char line[512];
	int in = 0, dd = -1, r;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (map_header(line, &lo, &hi, &r)) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && strncmp(line, "VmFlags:", 8) == 0) {
			dd = strstr(line, " dd") != NULL;
			break;
		}
	}
	fclose(f);
	return dd;
}

/*
 * Whether this process can see MADV_DONTDUMP in its smaps at all: qemu's
 * user-mode emulation (make arm64-check) accepts the madvise() and applies
 * nothing, so there the property cannot be observed and the tests that
 * read it say so and stop; natively (make check) they assert it.
 */
static int dontdump_observable(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int seen;

	if (p == MAP_FAILED)
		return 0;
	seen = madvise(p, (size_t)page, MADV_DONTDUMP) == 0 &&
	       dontdump(p) == 1;
	munmap(p, (size_t)page);
	if (!seen)
		fprintf(stderr, "  (MADV_DONTDUMP does not show in smaps here, as under qemu-user: not observable, not checked)\n");
	return seen;
}

TEST(secret_alloc_is_left_out_of_core_dumps)
{
	uint8_t *p = gpu_aes_secret_alloc(10000);
	size_t i, nz = 0;

	CHECK(p);
	for (i = 0; i < 10000; i++)
		nz += p[i] != 0;
	CHECK_EQ(nz, 0);
	memset(p, 0x5a, 10000);
	if (!dontdump_observable()) {
		gpu_aes_secret_free(p, 10000);
		return;
	}
	CHECK_EQ(dontdump(p), 1);
	CHECK_EQ(dontdump(p + 9999), 1);
	gpu_aes_secret_free(p, 10000);
	gpu_aes_secret_free(NULL, 1);
}

TEST(secret_region_is_left_out_of_core_dumps)
{
	struct mfix m;

	CHECK_EQ(mfix_alloc(&m, 1, 16, 4, QDATA), 0);
	if (!dontdump_observable()) {
		mfix_teardown(&m);
		return;
	}
	CHECK_EQ(dontdump(m.r.keys), 1);
	CHECK_EQ(dontdump(m.r.data), 1);
	CHECK_EQ(dontdump(m.r.hdr), 1);
	mfix_teardown(&m);
}

/*
 * Every kind of context of two keys (kc[0]: one key; kc[1]: two, XTS's),
 * by running each mode of the table and direction once.  0, or -1.
 */
static int use_every_context(struct gpu_aes_cpu_key *kc, uint8_t *buf)
{
	uint8_t iv[16] = { 0 };
	unsigned int alg, dir;

	t_rand_bytes(buf, 96);
	gpu_aes_cpu_key_set(&kc[0], buf, 32, 0);
	gpu_aes_cpu_key_set(&kc[1], buf + 32, 32, 32);
	/* Decryption first: an AEAD's then meets a tag never made. */
	for (alg = 1; alg <= GPU_AES_ALG_MAX; alg++)
		for (dir = 2; dir-- > 0;) {
			struct gpu_aes_cpu_op op = {
				.alg = (uint8_t)alg, .dir = (uint8_t)dir,
				.auth_len = 16,
				.iv = iv, .in = buf + 128, .out = buf + 128,
				.len = 512, .aad = buf + 1024, .aad_len = 16,
				.tag = buf + 2048,
			};
			int32_t want = gpu_aes_alg_aead(op.alg) && dir ?
				       GPU_AES_STATUS_EBADMSG :
				       GPU_AES_STATUS_OK;

			if (gpu_aes_cpu_crypt(&kc[gpu_aes_alg_keys(op.alg) == 2],
					      &op) != want)
				return -1;
		}
	return 0;
}

/* Every context of a key, of every kind, is in the arena, and goes. */
TEST(secret_openssl_contexts_live_in_the_arena)
{
	struct gpu_aes_cpu_key *kc = gpu_aes_secret_alloc(sizeof(*kc) * 2);
	uint8_t *buf = gpu_aes_secret_alloc(4096);
	unsigned int i, j, held = 0;
	size_t base;

	CHECK(kc && buf);
	/*
	 * Once first: a cipher's first use may leave OpenSSL's own cached
	 * objects in the arena, for good.  The second use must give back
	 * all it takes.
	 */
	CHECK_EQ(use_every_context(kc, buf), 0);
	gpu_aes_cpu_key_wipe(&kc[0]);
	gpu_aes_cpu_key_wipe(&kc[1]);
	base = gpu_aes_secret_arena_used();
	CHECK_EQ(use_every_context(kc, buf), 0);
	CHECK(gpu_aes_secret_arena_used() > base);
	for (j = 0; j < 2; j++)
		for (i = 0; i < GPU_AES_CPU_NR_CTX; i++) {
			if (!kc[j].ctx[i])
				continue;
			held++;
			CHECK(gpu_aes_secret_owns(kc[j].ctx[i]));
		}
	/* one per mode and direction; distinct XTS halves need no tweak's */
	CHECK_EQ(held, 2 * GPU_AES_ALG_MAX);
	gpu_aes_cpu_key_wipe(&kc[0]);
	gpu_aes_cpu_key_wipe(&kc[1]);
	CHECK_EQ(gpu_aes_secret_arena_used(), base);
	gpu_aes_secret_free(kc, sizeof(*kc) * 2);
	gpu_aes_secret_free(buf, 4096);
}

/* Outside a secret section OpenSSL allocates from libc, as before. */
TEST(secret_arena_only_inside_a_section)
{
	EVP_CIPHER_CTX *a, *b;

	a = EVP_CIPHER_CTX_new();
	gpu_aes_secret_begin();
	gpu_aes_secret_begin();
	gpu_aes_secret_end();
	b = EVP_CIPHER_CTX_new();
	gpu_aes_secret_end();
	CHECK(a && b);
	CHECK(!gpu_aes_secret_owns(a));
	CHECK(gpu_aes_secret_owns(b));
	EVP_CIPHER_CTX_free(a);
	EVP_CIPHER_CTX_free(b);
}

/*
 * A needle: bytes a process holding a key may have (see
 * tests/vm/corekey.c): the raw key, its first 16 bytes, the first
 * derived encryption round key, the first two decryption round keys.
 * Needles live in secret memory and the scan skips them there.
 */
struct needle {
	const uint8_t *b;
	unsigned long hits[2];	/* dumpable, left out */
	int kind;		/* 0 raw, 1 rk0, 2 enc, 3 dec0, 4 dec1 */
	size_t len;
};

struct scan {
	struct needle n[MAX_NEEDLES];
	unsigned int nr;
	uint8_t *store;		/* secret: keys and needle bytes */
	size_t store_len, used;
	uint8_t *buf;		/* secret: what the scan reads */
};

static void add(struct scan *s, const uint8_t *b, size_t len, int kind)
{
	s->n[s->nr].b = b;
	s->n[s->nr].len = len;
	s->n[s->nr].kind = kind;
	s->nr++;
}

/* The needles of one AES key at k (already in the store). */
static void add_aes(struct scan *s, const uint8_t *k, size_t len)
{
	uint8_t *enc = s->store + s->used, *dec = enc + GPU_AES_SCHED_BYTES;

	s->used += 2 * GPU_AES_SCHED_BYTES;
	if (gpu_aes_expand_schedules(k, len, enc, dec) < 0)
		return;
	add(s, k, 16, 1);
	add(s, enc + (len + 15) / 16 * 16, 16, 2);
	add(s, dec, 16, 3);
	add(s, dec + 16, 16, 4);
}

/*
 * Counts the needles in [lo, hi) of this process, read through fd in
 * chunks that overlap by 63 bytes (the longest needle less one): a needle
 * that starts in the overlap is the next chunk's.
 */
static void scan_range(struct scan *s, int fd, unsigned long lo,
		       unsigned long hi, int dd)
{
	const unsigned long over = 63;
	unsigned long a = lo;

	while (a < hi) {
		unsigned long left = hi - a, len, own;
		unsigned int i;
		ssize_t r;

		len = left > SCAN_CHUNK + over ? SCAN_CHUNK + over : left;
		r = pread(fd, s->buf, len, (off_t)a);
		if (r <= 0) {
			a = (a | 4095) + 1;	/* unreadable: the next page */
			continue;
		}
		own = (unsigned long)r < len ? (unsigned long)r :
		      len == left ? len : len - over;
		for (i = 0; i < s->nr; i++) {
			const uint8_t *p = s->buf, *end = s->buf + r;

			while ((p = memmem(p, (size_t)(end - p), s->n[i].b,
					   s->n[i].len))) {
				unsigned long at = a + (unsigned long)(p - s->buf);

				p++;
				if (at - a >= own)
					continue;
				/* The scan's own copies. */
				if ((at >= (unsigned long)s->store &&
				     at < (unsigned long)s->store + s->store_len) ||
				    (at >= (unsigned long)s->buf &&
				     at < (unsigned long)s->buf + SCAN_CHUNK + 64))
					continue;
				s->n[i].hits[dd]++;
			}
		}
		a += own;
	}
}

/* Every readable mapping of this process, split by "dd". */
static int scan_self(struct scan *s)
{
	unsigned long lo = 0, hi = 0;
	char line[512];
	int fd, readable = 0;
	FILE *f;

	fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	f = fopen("/proc/self/smaps", "r");
	if (fd < 0 || !f) {
		if (fd >= 0)
			close(fd);
		if (f)
			fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (map_header(line, &lo, &hi, &readable))
			continue;
		if (strncmp(line, "VmFlags:", 8) != 0 || !readable ||
		    hi - lo > SCAN_MAX_MAPPING || lo >= 0xffffffffff600000UL)
			continue;
		scan_range(s, fd, lo, hi, strstr(line, " dd") != NULL);
	}
	fclose(f);
	close(fd);
	return 0;
}

/*
 * The key table entry as the kernel writes it, but without memcpy(): the
 * test must not leave the key in a vector register of its own (secret.h).
 */
static void set_key(struct gpu_aes_key *e, const uint8_t *k, uint32_t len,
		    uint32_t tlen)
{
	gpu_aes_secret_copy(e->key, k, len + tlen);
	e->key_len = len;
	e->tweak_len = tlen;
	e->gen = 1;
}

static struct gpu_aes_sqe entry(uint32_t tag, uint8_t alg, uint8_t dir,
				uint16_t slot)
{
	struct gpu_aes_sqe e;

	memset(&e, 0, sizeof(e));
	e.tag = tag;
	e.seq = tag * 7 + 1;
	e.alg = alg;
	e.dir = dir;
	e.key_slot = slot;
	e.key_gen = 1;
	e.data_off = (uint64_t)(tag % 8) * 8192;
	e.len = 4096;
	if (alg == GPU_AES_ALG_GCM) {
		e.aad_len = 16;
		e.auth_len = 16;
	}
	return e;
}

TEST(secret_no_key_in_dumpable_memory)
{
	/* Slots: AES-128, AES-256 (one key); XTS-128, XTS-256 (two). */
	static const uint32_t klen[4] = { 16, 32, 16, 32 };
	static const uint32_t tlen[4] = { 0, 0, 16, 32 };
	static struct scan sc;
	struct scan *s = &sc;
	unsigned int i, slot, tag = 0, missing = 0;
	unsigned long dumpable = 0;
	struct mfix m;

	if (!dontdump_observable())
		return;
	memset(s, 0, sizeof(*s));
	s->store_len = 8192;
	s->store = gpu_aes_secret_alloc(s->store_len);
	s->buf = gpu_aes_secret_alloc(SCAN_CHUNK + 64);
	CHECK(s->store && s->buf);
	CHECK_EQ(mfix_alloc(&m, 1, 64, 4, QDATA), 0);
	for (slot = 0; slot < 4; slot++) {
		uint32_t len = klen[slot] + tlen[slot];
		uint8_t *k = s->store + s->used;

		/* Random straight into secret memory: no copy on our stack. */
		t_rand_bytes(k, len);
		s->used += len;
		add(s, k, len, 0);
		add_aes(s, k, klen[slot]);
		if (tlen[slot])
			add_aes(s, k + klen[slot], tlen[slot]);
		set_key(&m.r.keys[slot], k, klen[slot], tlen[slot]);
	}
	CHECK_EQ(mfix_open(&m, NULL, 2, NULL), 0);
	CHECK_EQ(mfix_start(&m), 0);
	for (slot = 0; slot < 4; slot++) {
		static const uint8_t one[] = {
			GPU_AES_ALG_ECB, GPU_AES_ALG_CTR, GPU_AES_ALG_GCM,
			GPU_AES_ALG_CBC,
		};
		uint8_t dir;

		for (dir = 0; dir < 2; dir++) {
			struct gpu_aes_sqe e;

			if (tlen[slot]) {
				e = entry(tag++, GPU_AES_ALG_XTS, dir,
					  (uint16_t)slot);
				CHECK_EQ(mfix_run_one(&m, 0, &e),
					 GPU_AES_STATUS_OK);
				continue;
			}
			for (i = 0; i < sizeof(one); i++) {
				int32_t st;

				e = entry(tag++, one[i], dir, (uint16_t)slot);
				st = mfix_run_one(&m, 0, &e);
				/* A GCM decryption of our bytes: tag wrong. */
				CHECK(st == GPU_AES_STATUS_OK ||
				      (one[i] == GPU_AES_ALG_GCM && dir &&
				       st == GPU_AES_STATUS_EBADMSG));
			}
		}
	}
	/* The backend holds every key now: where a core would find it. */
	CHECK_EQ(scan_self(s), 0);
	for (i = 0; i < s->nr; i++) {
		dumpable += s->n[i].hits[0];
		if (s->n[i].hits[0])
			printf("  needle %u (kind %d): %lu in dumpable memory\n",
			       i, s->n[i].kind, s->n[i].hits[0]);
		/* Raw keys (key table, caches) and schedules (contexts). */
		if ((s->n[i].kind <= 2) && !s->n[i].hits[1])
			missing++;
	}
	mfix_teardown(&m);
	gpu_aes_secret_free(s->store, s->store_len);
	gpu_aes_secret_free(s->buf, SCAN_CHUNK + 64);
	CHECK_EQ(dumpable, 0);
	CHECK_EQ(missing, 0);
}
