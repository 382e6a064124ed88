/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aes_gpu.h - the batch AES kernel as the host sees it.
 *
 * One launch transforms a whole batch: a table of segments (key, alg, dir,
 * counter, bytes) cut into chunks of equal size (but each segment's last)
 * so that the CTAs of a persistent grid get work of the same size.  Chunks
 * that need the decryption tables are sorted after the others so that a CTA
 * only ever fills the shared-memory tables of one direction.  A serial
 * op's segment (a chained encryption: each block needs the one before) is
 * one chunk that GPU_AES_CBC_LANES lanes of a warp run whole, a column of
 * the state each; those come last among the chunks of the encryption
 * tables, longest first.
 */
#ifndef GPU_AES_CUDA_AES_GPU_H
#define GPU_AES_CUDA_AES_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../../uapi/gpu_aes.h"
#include "gf128.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_AES_CHUNK_BLOCKS	4096U	/* at most 64 KiB of data per chunk */
#define GPU_AES_CHUNK_MIN	256U
#define GPU_AES_CHUNK_BLOCKS_GCM 65536U	/* batches with GCM and no XTS */
#define GPU_AES_RK_WORDS	60U	/* 15 round keys of 4 words */
#define GPU_AES_CBC_LANES	4U	/* lanes of a serial chain: its columns */

/*
 * Expanded key as the kernel reads it: words are AES bytes, little endian.
 * GCM needs powers of its hash key H = E_K(0^128) (gf128.h elements):
 * hp1[i] = H^i for i <= GPU_AES_HP1_MAX (lane l's factor H^(32 - l), or
 * that and its warp's in one, H^(32 (e + 1) - l), while the warp has
 * e < GPU_AES_HP1_GROUPS groups after it: every warp of a lone 4 KiB
 * request), hp32[i] = H^(32 i) for i <= 16 (the warps of a CTA and the
 * Horner stride of 128..512 threads), hpre[i] = hp32[i] prepared by
 * gf128_precompute().
 * The backend computes them for every one-key entry when it uploads it,
 * since an entry does not say which algorithm will use it
 * (cuda_keys.cu, key_ensure()); they are zero for XTS entries.
 */
#define GPU_AES_HP32_MAX	16U
#define GPU_AES_HP1_GROUPS	9U
#define GPU_AES_HP1_MAX		(32U * GPU_AES_HP1_GROUPS)
struct gpu_aes_dev_key {
	uint32_t erk[GPU_AES_RK_WORDS];
	uint32_t drk[GPU_AES_RK_WORDS];	/* equivalent inverse cipher order */
	uint32_t hp1[GPU_AES_HP1_MAX + 1][4];
	uint32_t hp32[GPU_AES_HP32_MAX + 1][4];
	/* hp32[i] prepared for gf128_mul_pre: the kernel's Horner factors */
	struct gf128_pre hpre[GPU_AES_HP32_MAX + 1];
};

/*
 * What host and kernel decide by an op, so that no code compares op
 * numbers: each mode's row of the ABI's table (uapi/gpu_aes.h,
 * GPU_AES_MODES) gives its two ops' flags, and its code is the kernel's
 * dispatch case.
 * DEC_TABLES  runs the inverse cipher: the decryption round keys and the
 *             inverse T-tables, so its chunks go to the decrypting CTAs;
 * EXT         only the kernel build with XTS and GCM (aes_kernel.cu) has
 *             its code: a batch with such a segment takes that build;
 * GHASH       GCM: the segment hashes a stream of gpu_aes_seg_blocks()
 *             blocks, spans its tag slot and AAD, and has a GHASH sum the
 *             host turns into the tag; chunk aux is the hash factor;
 * TWEAK       XTS: chunk aux is the tweak of its first block, and chunks
 *             stay within GPU_AES_CHUNK_BLOCKS, where the kernel's x^(32n)
 *             table ends;
 * LONG_CHUNKS the per-chunk work is heavy: a batch with such a segment
 *             (and none with TWEAK) uses chunks up to
 *             GPU_AES_CHUNK_BLOCKS_GCM;
 * SERIAL      a block needs the previous block's result: the segment is
 *             one chunk, run by one thread (many segments run side by
 *             side); otherwise its chunks split across a CTA's threads;
 * CHAIN       block chaining: chunk aux is the ciphertext block before
 *             the chunk (the IV for the first), read by the host before
 *             the launch, since the kernel overwrites it in place.
 */
#define GPU_AES_KOPF_DEC_TABLES		(1U << 0)
#define GPU_AES_KOPF_EXT		(1U << 1)
#define GPU_AES_KOPF_GHASH		(1U << 2)
#define GPU_AES_KOPF_TWEAK		(1U << 3)
#define GPU_AES_KOPF_LONG_CHUNKS	(1U << 4)
#define GPU_AES_KOPF_SERIAL		(1U << 5)
#define GPU_AES_KOPF_CHAIN		(1U << 6)

#ifdef __CUDACC__
#define GPU_AES_HD __host__ __device__
#else
#define GPU_AES_HD
#endif

/*
 * The kernel's ops: one per mode and direction, 2 * (alg - 1) + dir
 * (gpu_aes_kop()).  A stream mode's two are the same code.
 */
#define GPU_AES_KOP_ENUM_(ID, VAL, ...)				\
	GPU_AES_KOP_##ID##_ENC = 2 * ((VAL) - 1) + GPU_AES_DIR_ENCRYPT,	\
	GPU_AES_KOP_##ID##_DEC = 2 * ((VAL) - 1) + GPU_AES_DIR_DECRYPT,
enum gpu_aes_kop {
	GPU_AES_MODES(GPU_AES_KOP_ENUM_)
	GPU_AES_NR_KOPS = 2 * GPU_AES_ALG_MAX
};

/* The op for a mode (enum gpu_aes_alg, known) and direction. */
static inline GPU_AES_HD uint32_t gpu_aes_kop(uint32_t alg, uint32_t dir)
{
	return 2 * (alg - 1) + dir;
}

/* The direction an op runs: enum gpu_aes_dir. */
static inline GPU_AES_HD uint32_t gpu_aes_kop_dir(uint32_t op)
{
	return op % 2;
}

#define GPU_AES_KOP_FLAGS_(ID, VAL, NAME, KIND, IV, KEYS, LEN, OUT_IV,	\
			   PRIO, AUX, EVP, KOPF_ENC, KOPF_DEC)		\
	case GPU_AES_KOP_##ID##_ENC:					\
		return KOPF_ENC;					\
	case GPU_AES_KOP_##ID##_DEC:					\
		return KOPF_DEC;

static inline GPU_AES_HD uint32_t gpu_aes_kop_flags(uint32_t op)
{
	switch (op) {
	GPU_AES_MODES(GPU_AES_KOP_FLAGS_)
	default:
		return 0;
	}
}

static inline GPU_AES_HD int gpu_aes_kop_has(uint32_t op, uint32_t flags)
{
	return (gpu_aes_kop_flags(op) & flags) != 0;
}

/*
 * A GCM segment's hash runs over a virtual stream of gpu_aes_seg_blocks()
 * blocks: zero blocks first (they leave GHASH unchanged) so that the
 * stream is a whole number of 32-block groups, then the associated data,
 * the text and the lengths block.  Its "blocks" and chunks count in that
 * stream; the text is at off, the AAD at gpu_aes_gcm_aad_off().
 */
struct gpu_aes_kseg {
	uint64_t off;		/* byte offset of the segment in the data base */
	uint32_t len;		/* bytes, as the mode's LEN column takes */
	uint16_t key;		/* index into the device key array */
	uint8_t op;		/* enum gpu_aes_kop */
	uint8_t rounds;		/* 10, 12 or 14 */
	uint64_t ctr_hi;	/* CTR: IV as a 128-bit big-endian number; */
	uint64_t ctr_lo;	/* GCM: the 12-byte IV, then 4 zero bytes */
	uint32_t aad_len;	/* GCM */
	uint32_t aux[4];	/* as the mode's AUX column says */
	uint32_t pad;
};

struct gpu_aes_kchunk {
	uint32_t seg;
	uint32_t block0;	/* first block of the segment in this chunk */
	uint32_t nblocks;	/* blocks, the last one possibly partial */
	uint32_t pad;
	/*
	 * gpu_aes_chunk_aux(): XTS, the tweak of block0 (E_K2(iv) x^block0);
	 * GCM, H^(blocks of the stream after this chunk); CHAIN, the
	 * ciphertext block block0 - 1 (the IV for block0 0).
	 */
	uint32_t aux[4];
};

/*
 * GCM: a warp's sum (its last group is glast of the chunk at block0 of a
 * stream of stream_blocks) goes to its place in the segment's hash times
 * H^(32 e), e the groups of the stream after glast.  That is
 * hp32[G - 1 - glast] times the chunk's aux (H^(32 groups after the
 * chunk)), one product instead of two while e <= GPU_AES_HP32_MAX:
 * always for a segment of one chunk, as a lone request is.
 */
static inline GPU_AES_HD uint32_t gpu_aes_gcm_warp_power(uint32_t stream_blocks,
							 uint32_t block0,
							 uint32_t glast)
{
	return (stream_blocks - block0) / 32 - 1 - glast;
}

/* Launch shape: the tuning result for one GPU. */
struct gpu_aes_shape {
	unsigned int variant;	/* 0: 2 tables (64 KiB), 1: 4 tables (128 KiB) */
	unsigned int threads;	/* per CTA: 128, 256, 512 */
	unsigned int bpt;	/* AES blocks per thread in flight: 1, 2, 4 */
	unsigned int ctas_per_sm;
};

#define GPU_AES_NR_VARIANTS	2U

/*
 * Shared memory a CTA's tables take (aes_kernel.cu's layout): variant 0
 * holds two rotations of the encryption table, or the decryption table
 * and the inverse S-box, in 64 KiB; variant 1 four rotations (128 KiB)
 * and for decryption the inverse S-box after them (192 KiB).  A launch
 * with chunks of both directions sizes for the larger side.
 */
#define GPU_AES_ENC_TABLE_BYTES(v)	((v) ? 131072U : 65536U)
#define GPU_AES_DEC_TABLE_BYTES(v)	((v) ? 196608U : 65536U)

static inline GPU_AES_HD unsigned int gpu_aes_table_bytes(unsigned int variant,
							  int enc, int dec)
{
	unsigned int e = GPU_AES_ENC_TABLE_BYTES(variant);
	unsigned int d = GPU_AES_DEC_TABLE_BYTES(variant);

	return dec ? (enc && e > d ? e : d) : e;
}
/* The fewest threads a CTA may have (gpu_aes_kernel_launch() refuses less) */
#define GPU_AES_MIN_THREADS	128U

/*
 * A stage: a CTA's first GCM chunk's input in shared memory after its
 * tables, at most this much (a lone 4 KiB request's chunks, two CTAs, and
 * then some), and its barrier after it (aes_kernel.h, gpu_aes_launch).
 */
#define GPU_AES_STAGE_BYTES	4096U
#define GPU_AES_STAGE_SMEM	(GPU_AES_STAGE_BYTES + 16U)

/*
 * The shape of batches under a MiB, whatever the tuning chose: the 64 KiB
 * table variant, one block per thread, as filling 128 KiB of tables would
 * cost more than the AES itself.
 */
#define GPU_AES_SHAPE_SMALL	{ 0, 256, 1, 2 }

/* 128-bit big-endian counter helpers (host side; the kernel mirrors them). */
void gpu_aes_ctr_load(const uint8_t iv[16], uint64_t *hi, uint64_t *lo);
void gpu_aes_ctr_store(uint64_t hi, uint64_t lo, uint8_t iv[16]);
void gpu_aes_ctr_add(uint64_t *hi, uint64_t *lo, uint64_t blocks);

/*
 * Chunk size (blocks) for a batch run by ctas CTAs: small enough that every
 * CTA gets a chunk (one SM encrypts ~6.5 GB/s, so a 64 KiB chunk alone
 * takes ~10 us), a multiple of GPU_AES_CHUNK_MIN, at most
 * GPU_AES_CHUNK_BLOCKS (fewer, larger chunks amortise the round-key loads;
 * GPU_AES_CHUNK_BLOCKS_GCM for a batch with GCM and no XTS segment).
 * Serial segments are not cut, so they do not count.
 */
uint32_t gpu_aes_chunk_blocks(const struct gpu_aes_kseg *segs, size_t nsegs,
			      unsigned int ctas);
/*
 * The op and starting aux of segment k (its len set) for a request of
 * mode @alg (enum gpu_aes_alg) and direction @dir, from the mode's row of
 * the ABI's table: 1, or 0 where the request breaks its mode's rules (the
 * core checks them too) and k is left as it was.  *host_ecb becomes 1
 * where aux is a block still to go through the key's host AES (the tweak
 * key's, for TWEAK).
 */
int gpu_aes_kseg_mode(struct gpu_aes_kseg *k, uint8_t alg, uint8_t dir,
		      const uint8_t iv[16], uint32_t tweak_len,
		      uint32_t auth_len, uint32_t aad_len, int *host_ecb);

/* Blocks the kernel runs for a segment (GCM: its hash stream). */
uint32_t gpu_aes_seg_blocks(const struct gpu_aes_kseg *seg);
/* Number of chunks build_chunks() produces for these segments. */
size_t gpu_aes_count_chunks(const struct gpu_aes_kseg *segs, size_t nsegs,
			    uint32_t chunk);
/*
 * Fills chunks (room for gpu_aes_count_chunks()) with the chunks of the
 * encryption tables first, and of those the serial ones (one per
 * segment, longest first) last; returns how many use the encryption
 * tables and sets *nser to how many of them are serial.  A segment's
 * chunks are together and in order.
 */
size_t gpu_aes_build_chunks(const struct gpu_aes_kseg *segs, size_t nsegs,
			    uint32_t chunk, struct gpu_aes_kchunk *chunks,
			    size_t *nser);

/*
 * Whether a batch of these segments, bytes in all, runs zero-copy (the
 * kernel on the region in host memory, over PCIe) rather than through the
 * copy engines: at most zc_max bytes (GPU_AES_CUDA_ZC_MAX), or, unless
 * zc_max is 0, serial chains for half its bytes or more.  A chain goes at
 * one block's latency, so its batch lasts as long as its longest chain
 * and the copies before and after only add to that: the ring's CBC
 * encryption of 1-64 KiB requests from 16 threads on an H100 moved
 * 16.7-17.8 GB/s zero-copy, 6.0-6.5 through the copy engines.
 */
int gpu_aes_batch_zero_copy(const struct gpu_aes_kseg *segs, size_t nsegs,
			    uint64_t bytes, uint64_t zc_max);

/*
 * Fills chunks[i].aux (see struct gpu_aes_kchunk) from segs[].aux (TWEAK,
 * CHAIN), keys[].hp32 (GHASH, host copies) and the data (CHAIN: data +
 * off is a segment's input, as it is before the launch); chunks are as
 * build_chunks() left them.
 */
void gpu_aes_chunk_aux(const struct gpu_aes_kseg *segs,
		       const struct gpu_aes_dev_key *keys,
		       const uint8_t *data, struct gpu_aes_kchunk *chunks,
		       size_t nchunks);

/* Bytes [off, end) of the data area that one copy moves. */
struct gpu_aes_run {
	uint64_t off, end;
};

/*
 * Sorts runs[0..n) and merges those only an allocation's padding apart
 * (the gap below the next GPU_AES_DATA_ALIGN boundary): no other request's
 * bytes can lie there, while a wider gap could hold a request of another
 * batch in flight on another stream, whose result a copy back of the gap
 * would overwrite.  Returns how many runs are left.
 */
size_t gpu_aes_merge_runs(struct gpu_aes_run *runs, size_t n);

/* GCM: the hash key powers of key from h = E_K(0^128). */
void gpu_aes_gcm_powers(const uint8_t h[16], struct gpu_aes_dev_key *key);

/*
 * GCM: the full tag from the kernel's GHASH sum (an element) and E_K(J0),
 * both words as the kernel writes them / kseg.aux holds them.
 */
void gpu_aes_gcm_tag(const uint32_t ghash[4], const uint32_t ekj0[4],
		     uint8_t tag[16]);

/* Element n of gpu_aes_kernel's XTS step table: x^(32 n), n <= 128. */
void gpu_aes_xts_xpow(uint32_t out[129][4]);

/*
 * *out from a raw key: helper/src/aes_key.c's expansion in the kernel's
 * word order, everything else zero (gpu_aes_gcm_powers() adds the GCM
 * powers).  0, or -1 for a bad key size (then *out is untouched).
 */
int gpu_aes_dev_expand_key(const uint8_t *key, unsigned int key_len,
		       struct gpu_aes_dev_key *out, unsigned int *rounds);

/* Tuning cache line: "variant threads bpt ctas_per_sm". 0 or -1. */
int gpu_aes_shape_parse(const char *line, struct gpu_aes_shape *shape);
int gpu_aes_shape_format(const struct gpu_aes_shape *shape, char *buf,
			 size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_CUDA_AES_GPU_H */
