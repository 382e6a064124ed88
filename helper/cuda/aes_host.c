// SPDX-License-Identifier: GPL-2.0-only
/*
 * aes_host.c - host-side parts of the GPU AES path that need no GPU:
 * counter arithmetic, chunking a batch, expanded keys in the kernel's word
 * order, the tables the kernel replicates, and the tuning-cache format.
 * Unit-tested without a GPU (tests/gpu/unit_host.c).
 */
#include "aes_gpu.h"
#include "aes_tables.h"
#include "cuda_backend.h"
#include "gf128.h"

#include "../src/aes_key.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Two loads and two byte swaps: the core runs this for every request it
 * batches, and gcc -O2 left the byte loop a loop (8 ns a request).
 */
void gpu_aes_ctr_load(const uint8_t iv[16], uint64_t *hi, uint64_t *lo)
{
	uint64_t h, l;

	memcpy(&h, iv, 8);
	memcpy(&l, iv + 8, 8);
	*hi = be64toh(h);
	*lo = be64toh(l);
}

void gpu_aes_ctr_store(uint64_t hi, uint64_t lo, uint8_t iv[16])
{
	for (int i = 7; i >= 0; i--) {
		iv[i] = (uint8_t)hi;
		iv[8 + i] = (uint8_t)lo;
		hi >>= 8;
		lo >>= 8;
	}
}

/* Carries across 2^64 and wraps at 2^128, like the kernel's ctr(aes). */
void gpu_aes_ctr_add(uint64_t *hi, uint64_t *lo, uint64_t blocks)
{
	uint64_t l = *lo + blocks;

	if (l < *lo)
		(*hi)++;
	*lo = l;
}

uint32_t gpu_aes_seg_blocks(const struct gpu_aes_kseg *s)
{
	uint32_t n;

	if (!gpu_aes_kop_has(s->op, GPU_AES_KOPF_GHASH))
		return (s->len + 15U) / 16U;
	/* AAD blocks + text blocks + the lengths block, in 32-block groups */
	n = (s->aad_len + 15U) / 16U + (s->len + 15U) / 16U + 1U;
	return (n + 31U) & ~31U;
}

int gpu_aes_kseg_mode(struct gpu_aes_kseg *k, uint8_t alg, uint8_t dir,
		      const uint8_t iv[16], uint32_t tweak_len,
		      uint32_t auth_len, uint32_t aad_len, int *host_ecb)
{
	int keys = gpu_aes_alg_keys(alg), aead = gpu_aes_alg_aead(alg);

	if (!keys || (keys == 2) != (tweak_len != 0) ||
	    dir > GPU_AES_DIR_DECRYPT || !gpu_aes_alg_len_valid(alg, k->len) ||
	    (aead && !gpu_aes_gcm_auth_len_valid(auth_len)))
		return 0;
	k->op = (uint8_t)gpu_aes_kop(alg, dir);
	if (aead)
		k->aad_len = aad_len;
	switch (gpu_aes_alg_aux(alg)) {
	case GPU_AES_AUX_TWEAK:
		memcpy(k->aux, iv, 16);		/* E_K2(iv) once encrypted */
		*host_ecb = 1;
		break;
	case GPU_AES_AUX_J0:
		/* E_K(J0), J0 = iv || 1 (a 96-bit iv) */
		memcpy(k->aux, iv, 12);
		k->aux[3] = 0;
		((uint8_t *)k->aux)[15] = 1;
		*host_ecb = 1;
		break;
	case GPU_AES_AUX_IV:
		memcpy(k->aux, iv, 16);		/* words as the kernel reads */
		break;
	default:
		break;
	}
	return 1;
}

static uint32_t seg_blocks(const struct gpu_aes_kseg *s)
{
	return gpu_aes_seg_blocks(s);
}

static int is_serial(const struct gpu_aes_kseg *s)
{
	return gpu_aes_kop_has(s->op, GPU_AES_KOPF_SERIAL);
}

int gpu_aes_batch_zero_copy(const struct gpu_aes_kseg *segs, size_t nsegs,
			    uint64_t bytes, uint64_t zc_max)
{
	uint64_t serial = 0;

	if (bytes <= zc_max)
		return 1;
	if (!zc_max)
		return 0;
	for (size_t i = 0; i < nsegs; i++)
		if (is_serial(&segs[i]))
			serial += segs[i].len;
	return 2 * serial >= bytes;
}

/* Where build_chunks() puts a segment's chunks, in this order. */
enum chunk_class { CLASS_ENC, CLASS_SERIAL, CLASS_DEC };

static enum chunk_class class_of(const struct gpu_aes_kseg *s)
{
	if (gpu_aes_kop_has(s->op, GPU_AES_KOPF_DEC_TABLES))
		return CLASS_DEC;
	return is_serial(s) ? CLASS_SERIAL : CLASS_ENC;
}

uint32_t gpu_aes_chunk_blocks(const struct gpu_aes_kseg *segs, size_t nsegs,
			      unsigned int ctas)
{
	uint64_t total = 0, c, max = GPU_AES_CHUNK_BLOCKS;
	int lng = 0, capped = 0;

	for (size_t i = 0; i < nsegs; i++) {
		if (!is_serial(&segs[i]))
			total += seg_blocks(&segs[i]);
		lng |= gpu_aes_kop_has(segs[i].op, GPU_AES_KOPF_LONG_CHUNKS);
		capped |= gpu_aes_kop_has(segs[i].op, GPU_AES_KOPF_TWEAK);
	}
	/*
	 * A GCM chunk ends with three GF multiplies per warp (lane and chunk
	 * factors) and reloads its round keys: longer chunks amortise them.
	 * XTS's first-tweak table stops at GPU_AES_CHUNK_BLOCKS.
	 */
	if (lng && !capped)
		max = GPU_AES_CHUNK_BLOCKS_GCM;
	c = ctas ? (total + ctas - 1) / ctas : max;
	/*
	 * CTAs take chunks in turns: with long chunks, split evenly so no CTA
	 * gets one more than the others (4096 chunks on 264 CTAs would give
	 * some 16 and some 15).
	 */
	if (max > GPU_AES_CHUNK_BLOCKS && c > max)
		c = (c + (c + max - 1) / max - 1) / ((c + max - 1) / max);
	c = (c + GPU_AES_CHUNK_MIN - 1) / GPU_AES_CHUNK_MIN * GPU_AES_CHUNK_MIN;
	if (c < GPU_AES_CHUNK_MIN)
		c = GPU_AES_CHUNK_MIN;
	if (c > max)
		c = max;
	return (uint32_t)c;
}

size_t gpu_aes_count_chunks(const struct gpu_aes_kseg *segs, size_t nsegs,
			    uint32_t chunk)
{
	size_t n = 0;

	for (size_t i = 0; i < nsegs; i++) {
		uint32_t nb = seg_blocks(&segs[i]);

		if (is_serial(&segs[i]))
			n += nb != 0;
		else
			n += (nb + chunk - 1) / chunk;
	}
	return n;
}

static size_t emit(const struct gpu_aes_kseg *segs, size_t nsegs,
		   enum chunk_class cls, uint32_t chunk,
		   struct gpu_aes_kchunk *out)
{
	size_t n = 0;

	for (size_t i = 0; i < nsegs; i++) {
		uint32_t nb = seg_blocks(&segs[i]);
		uint32_t step = is_serial(&segs[i]) ? nb : chunk;

		if (class_of(&segs[i]) != cls)
			continue;
		for (uint32_t b = 0; b < nb; b += step) {
			out[n].seg = (uint32_t)i;
			out[n].block0 = b;
			out[n].nblocks = nb - b < step ? nb - b : step;
			out[n].pad = 0;
			n++;
		}
	}
	return n;
}

/*
 * Longest first: the kernel hands serial chunks to warps in this order,
 * 32 / GPU_AES_CBC_LANES to a warp (aes_kernel.cu, serial_chain()), so a
 * warp's chains are of similar length and the longest start at once.
 */
static int longer_first(const void *a, const void *b)
{
	const struct gpu_aes_kchunk *x = a, *y = b;

	if (x->nblocks != y->nblocks)
		return x->nblocks > y->nblocks ? -1 : 1;
	return x->seg < y->seg ? -1 : x->seg > y->seg;
}

size_t gpu_aes_build_chunks(const struct gpu_aes_kseg *segs, size_t nsegs,
			    uint32_t chunk, struct gpu_aes_kchunk *chunks,
			    size_t *nser)
{
	size_t npar = emit(segs, nsegs, CLASS_ENC, chunk, chunks);
	size_t ns = emit(segs, nsegs, CLASS_SERIAL, chunk, chunks + npar);

	qsort(chunks + npar, ns, sizeof(*chunks), longer_first);
	emit(segs, nsegs, CLASS_DEC, chunk, chunks + npar + ns);
	*nser = ns;
	return npar + ns;
}

static uint32_t load_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static const uint32_t gf_one[4] = { 1, 0, 0, 0 };

/* base^e by squaring and multiplying. */
static void gf_pow(const uint32_t base[4], uint32_t e, uint32_t out[4])
{
	uint32_t b[4], r[4];

	memcpy(b, base, sizeof(b));
	memcpy(r, gf_one, sizeof(r));
	while (e) {
		if (e & 1)
			gf128_mul(r, b, r);
		e >>= 1;
		if (e)
			gf128_mul(b, b, b);
	}
	memcpy(out, r, sizeof(r));
}

/* w *= x^n (XTS), in 32-doubling steps. */
static void xts_advance(uint32_t w[4], uint32_t n)
{
	for (; n >= 32; n -= 32)
		gf128_mulx_k(w, 32);
	if (n)
		gf128_mulx_k(w, n);
}

void gpu_aes_xts_xpow(uint32_t out[129][4])
{
	memcpy(out[0], gf_one, sizeof(out[0]));
	for (int i = 1; i < 129; i++) {
		memcpy(out[i], out[i - 1], sizeof(out[i]));
		gf128_mulx_k(out[i], 32);
	}
}

/*
 * build_chunks() emits a segment's chunks together and in order, so each
 * run is walked once: XTS forwards (tweak of the previous chunk times
 * x^its length), GCM backwards (the last chunk's factor is 1, an earlier
 * one's is the next one's times H^the next one's length).  CHAIN: the
 * block before each chunk, which another CTA may overwrite with plaintext
 * before this chunk's CTA starts; the data is the input still.
 */
void gpu_aes_chunk_aux(const struct gpu_aes_kseg *segs,
		       const struct gpu_aes_dev_key *keys,
		       const uint8_t *data, struct gpu_aes_kchunk *chunks,
		       size_t nchunks)
{
	size_t i = 0;

	while (i < nchunks) {
		const struct gpu_aes_kseg *s = &segs[chunks[i].seg];
		size_t j = i;

		while (j < nchunks && chunks[j].seg == chunks[i].seg)
			j++;
		if (gpu_aes_kop_has(s->op, GPU_AES_KOPF_TWEAK)) {
			uint32_t t[4];

			memcpy(t, s->aux, sizeof(t));
			xts_advance(t, chunks[i].block0);
			for (size_t c = i; c < j; c++) {
				if (c > i)
					xts_advance(t, chunks[c].block0 -
						       chunks[c - 1].block0);
				memcpy(chunks[c].aux, t, sizeof(t));
			}
		} else if (gpu_aes_kop_has(s->op, GPU_AES_KOPF_GHASH)) {
			const uint32_t *h32 = keys[s->key].hp32[1];
			uint32_t f[4], step[4];
			uint32_t step_n = 0;

			memcpy(f, gf_one, sizeof(f));
			for (size_t c = j; c-- > i;) {
				memcpy(chunks[c].aux, f, sizeof(f));
				if (c == i)
					break;
				if (chunks[c].nblocks != step_n) {
					step_n = chunks[c].nblocks;
					gf_pow(h32, step_n / 32, step);
				}
				gf128_mul(f, step, f);
			}
		} else if (gpu_aes_kop_has(s->op, GPU_AES_KOPF_CHAIN)) {
			for (size_t c = i; c < j; c++) {
				uint64_t b0 = chunks[c].block0;

				for (int k = 0; k < 4; k++)
					chunks[c].aux[k] = b0 ?
						load_le32(data + s->off +
							  16 * (b0 - 1) + 4 * k) :
						s->aux[k];
			}
		} else {
			for (size_t c = i; c < j; c++)
				memset(chunks[c].aux, 0, sizeof(chunks[c].aux));
		}
		i = j;
	}
}

void gpu_aes_gcm_powers(const uint8_t h[16], struct gpu_aes_dev_key *key)
{
	uint32_t w[4];

	for (int i = 0; i < 4; i++)
		w[i] = load_le32(h + 4 * i);
	memcpy(key->hp1[0], gf_one, sizeof(key->hp1[0]));
	gf128_from_gcm(w, key->hp1[1]);
	for (unsigned int i = 2; i <= GPU_AES_HP1_MAX; i++)
		gf128_mul(key->hp1[i - 1], key->hp1[1], key->hp1[i]);
	memcpy(key->hp32[0], gf_one, sizeof(key->hp32[0]));
	memcpy(key->hp32[1], key->hp1[32], sizeof(key->hp32[1]));
	for (unsigned int i = 2; i <= GPU_AES_HP32_MAX; i++)
		gf128_mul(key->hp32[i - 1], key->hp32[1], key->hp32[i]);
	for (unsigned int i = 0; i <= GPU_AES_HP32_MAX; i++)
		gf128_precompute(key->hp32[i], &key->hpre[i]);
	memset(w, 0, sizeof(w));
}

void gpu_aes_gcm_tag(const uint32_t ghash[4], const uint32_t ekj0[4],
		     uint8_t tag[16])
{
	uint32_t s[4];

	gf128_to_gcm(ghash, s);
	for (int i = 0; i < 16; i++)
		tag[i] = (uint8_t)((s[i / 4] ^ ekj0[i / 4]) >> (8 * (i % 4)));
}

/* AES S-box from its definition (GF(2^8) inverse + affine map). */
static uint8_t gmul(uint8_t a, uint8_t b)
{
	uint8_t p = 0;

	while (b) {
		if (b & 1)
			p ^= a;
		a = (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
		b >>= 1;
	}
	return p;
}

static uint8_t sbox_of(uint8_t x)
{
	uint8_t inv = 0, s;

	if (x) {
		for (unsigned int y = 1; y < 256; y++)
			if (gmul(x, (uint8_t)y) == 1) {
				inv = (uint8_t)y;
				break;
			}
	}
	s = inv;
	for (int i = 1; i < 5; i++)
		s ^= (uint8_t)((inv << i) | (inv >> (8 - i)));
	return s ^ 0x63;
}

void gpu_aes_make_tables(struct gpu_aes_tables *t)
{
	for (unsigned int x = 0; x < 256; x++) {
		uint8_t s = sbox_of((uint8_t)x);

		t->sbox[x] = s;
		t->isbox[s] = (uint8_t)x;
	}
	for (unsigned int x = 0; x < 256; x++) {
		uint32_t s = t->sbox[x], is = t->isbox[x];

		t->te0[x] = gmul(2, (uint8_t)s) | s << 8 | s << 16 |
			    (uint32_t)gmul(3, (uint8_t)s) << 24;
		t->td0[x] = gmul(14, (uint8_t)is) |
			    (uint32_t)gmul(9, (uint8_t)is) << 8 |
			    (uint32_t)gmul(13, (uint8_t)is) << 16 |
			    (uint32_t)gmul(11, (uint8_t)is) << 24;
		t->td4[x] = is * 0x01010101U;
	}
}

_Static_assert(GPU_AES_RK_WORDS * 4 == GPU_AES_SCHED_BYTES,
	       "a device key's round keys hold one schedule");

/*
 * The expansion is aes_key.c's, the helper's only one; here its bytes
 * become the words the kernel reads (AES bytes, little endian).
 */
int gpu_aes_dev_expand_key(const uint8_t *key, unsigned int key_len,
			   struct gpu_aes_dev_key *out, unsigned int *rounds)
{
	uint8_t enc[GPU_AES_SCHED_BYTES], dec[GPU_AES_SCHED_BYTES];
	int nr = gpu_aes_expand_schedules(key, key_len, enc, dec);

	if (nr < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < GPU_AES_RK_WORDS; i++) {
		out->erk[i] = load_le32(enc + 4 * i);
		out->drk[i] = load_le32(dec + 4 * i);
	}
	explicit_bzero(enc, sizeof(enc));
	explicit_bzero(dec, sizeof(dec));
	*rounds = (unsigned int)nr;
	return 0;
}

int gpu_aes_shape_parse(const char *line, struct gpu_aes_shape *s)
{
	unsigned int v, t, b, c;
	char extra;

	if (sscanf(line, "%u %u %u %u %c", &v, &t, &b, &c, &extra) != 4)
		return -1;
	if (v >= GPU_AES_NR_VARIANTS || (t != 128 && t != 256 && t != 512) ||
	    (b != 1 && b != 2 && b != 4) || c < 1 || c > 8)
		return -1;
	s->variant = v;
	s->threads = t;
	s->bpt = b;
	s->ctas_per_sm = c;
	return 0;
}

int gpu_aes_shape_format(const struct gpu_aes_shape *s, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%u %u %u %u\n", s->variant, s->threads,
			 s->bpt, s->ctas_per_sm);

	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

int gpu_aes_parse_gpus(const char *spec, int ndev, int *out, int max)
{
	int n = 0;

	if (!spec || !*spec || !strcmp(spec, "all")) {
		for (int i = 0; i < ndev && i < max; i++)
			out[n++] = i;
		return n;
	}
	while (*spec) {
		char *end;
		long v = strtol(spec, &end, 10);

		if (end == spec || v < 0 || v >= ndev || n >= max)
			return -1;
		for (int i = 0; i < n; i++)
			if (out[i] == v)
				return -1;
		out[n++] = (int)v;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -1;
		spec = end;
	}
	return n;
}

/* Merges each run into the one before it that it follows closely enough. */
static size_t merge_neighbours(struct gpu_aes_run *runs, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		struct gpu_aes_run x = runs[i];
		struct gpu_aes_run *last = m ? &runs[m - 1] : NULL;

		if (last && x.off >= last->off &&
		    x.off <= (last->end + GPU_AES_DATA_ALIGN - 1) /
			     GPU_AES_DATA_ALIGN * GPU_AES_DATA_ALIGN) {
			if (x.end > last->end)
				last->end = x.end;
		} else {
			runs[m++] = x;
		}
	}
	return m;
}

static int run_cmp(const void *a, const void *b)
{
	const struct gpu_aes_run *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * A queue's requests lie in order in its part of the data area, so
 * merging neighbours first leaves a run or two per queue to sort.
 */
size_t gpu_aes_merge_runs(struct gpu_aes_run *runs, size_t n)
{
	n = merge_neighbours(runs, n);
	qsort(runs, n, sizeof(*runs), run_cmp);
	return merge_neighbours(runs, n);
}
