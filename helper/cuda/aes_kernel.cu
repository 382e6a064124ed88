// SPDX-License-Identifier: GPL-2.0-only
/*
 * aes_kernel.cu - table-driven AES (ECB enc/dec, CTR, XTS, GCM, CBC, XCTR;
 * 128/192/256) over a batch of segments, one launch per batch.
 *
 * Design (after Tezcan 2021 / CUDA_AES, see NOTES.md for the measurements):
 * each lookup table is replicated 32 times in shared memory, copy i read by
 * lane i only, so a warp's 32 lookups hit 32 different banks whatever the
 * indices.  Rows are 256 bytes apart, so the byte offset of entry x for lane
 * l is (x << 8) | (l << 2): a single PRMT builds it from the state word, and
 * the table is picked by the load's immediate offset.  Variant 0 keeps two
 * rotations of the table (64 KiB) and makes the other two with one PRMT
 * each; variant 1 keeps all four (128 KiB), trading occupancy for fewer
 * instructions.  Round keys live in registers: each thread loads them once
 * per chunk (64 KiB; GCM up to 1 MiB) and reuses them for every block it
 * encrypts there.
 * The last round takes S(x) from byte 1 of the T-table entry.
 */
#include "../../uapi/gpu_aes.h"
#include "aes_gpu.h"
#include "aes_kernel.h"
#include "aes_tables.h"
#include "cuda_backend.h"
#include "gf128.h"
#include "gpu_path.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The TMA path: cp.async.bulk and its mbarrier (the stage of small GCM
 * batches) exist from compute capability 9.0 on.  Device code compiled
 * for an older virtual architecture (the portable path: the compute_75
 * PTX and the SASS made from it) holds none of it, so that its PTX loads
 * on every GPU; the host launches the stage kernel only where the code
 * a GPU runs was compiled with it (the TMA path, gpu_path.h).
 */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GPU_AES_TMA 1
#else
#define GPU_AES_TMA 0
#endif

namespace {

__device__ uint32_t g_tables[3 * 256];	/* te0, td0, td4 */
/* x^(32 n): an XTS warp's first tweak is one multiply from its chunk's. */
__constant__ uint32_t c_xpow[129][4];

__device__ __forceinline__ uint32_t rotl(uint32_t v, int bytes)
{
	return bytes ? __funnelshift_l(v, v, 8 * bytes) : v;
}

/* Shared-memory byte offset of table t (t < number of stored tables). */
__host__ __device__ constexpr unsigned int tbase(int t)
{
	return (unsigned int)((t >> 1) * 65536 + (t & 1) * 128);
}

template <int V> struct layout {
	static constexpr int enc_tables = V ? 4 : 2;
	static constexpr int dec_tables = V ? 4 : 1;
	static constexpr unsigned int td4 = V ? 131072U : 128U;
};

/* The host sizes a CTA's shared memory by gpu_aes_table_bytes(). */
static_assert(GPU_AES_ENC_TABLE_BYTES(0) == tbase(1) + 65536 - 128 &&
	      GPU_AES_DEC_TABLE_BYTES(0) == layout<0>::td4 + 65536 - 128 &&
	      GPU_AES_ENC_TABLE_BYTES(1) == tbase(3) + 65536 - 128 &&
	      GPU_AES_DEC_TABLE_BYTES(1) == layout<1>::td4 + 65536,
	      "aes_gpu.h's table sizes are this layout's");

__device__ __forceinline__ uint32_t lds(const char *smb, unsigned int off)
{
	return *reinterpret_cast<const uint32_t *>(smb + off);
}

/* Byte k of x as a row offset, plus this lane's copy. */
__device__ __forceinline__ unsigned int idx(uint32_t x, int k, uint32_t lane4)
{
	return __byte_perm(x, lane4, 0x5504 | (k << 4));
}

/* Row r contribution: table T_r = rotl(T_{r mod NT}, r - r mod NT bytes). */
template <int NT>
__device__ __forceinline__ uint32_t tl(const char *smb, unsigned int tb0,
				       int r, uint32_t x, uint32_t lane4)
{
	const int t = r % NT;

	return rotl(lds(smb + tb0 + tbase(t), idx(x, r, lane4)), r - t);
}

__device__ __forceinline__ uint32_t last(const char *smb, uint32_t a,
					 uint32_t b, uint32_t c, uint32_t d,
					 uint32_t lane4)
{
	uint32_t ta = lds(smb, idx(a, 0, lane4));
	uint32_t tb = lds(smb, idx(b, 1, lane4));
	uint32_t tc = lds(smb, idx(c, 2, lane4));
	uint32_t td = lds(smb, idx(d, 3, lane4));

	return __byte_perm(__byte_perm(ta, tb, 0x51), __byte_perm(tc, td, 0x51),
			   0x5410);
}

/* Rounds R0..R of an encryption whose state already went through R0 - 1. */
template <int V, int R, int B, int R0>
__device__ __forceinline__ void enc_rounds(const char *smb, uint32_t lane4,
					   const uint32_t *rk, uint32_t (*s)[4])
{
	constexpr int NT = layout<V>::enc_tables;

#pragma unroll
	for (int r = R0; r < R; r++) {
#pragma unroll
		for (int b = 0; b < B; b++) {
			uint32_t n[4];

#pragma unroll
			for (int j = 0; j < 4; j++)
				n[j] = tl<NT>(smb, 0, 0, s[b][j], lane4) ^
				       tl<NT>(smb, 0, 1, s[b][(j + 1) & 3], lane4) ^
				       tl<NT>(smb, 0, 2, s[b][(j + 2) & 3], lane4) ^
				       tl<NT>(smb, 0, 3, s[b][(j + 3) & 3], lane4) ^
				       rk[4 * r + j];
#pragma unroll
			for (int j = 0; j < 4; j++)
				s[b][j] = n[j];
		}
	}
#pragma unroll
	for (int b = 0; b < B; b++) {
		uint32_t n[4];

#pragma unroll
		for (int j = 0; j < 4; j++)
			n[j] = last(smb, s[b][j], s[b][(j + 1) & 3],
				    s[b][(j + 2) & 3], s[b][(j + 3) & 3], lane4) ^
			       rk[4 * R + j];
#pragma unroll
		for (int j = 0; j < 4; j++)
			s[b][j] = n[j];
	}
}

template <int V, int R, int B>
__device__ __forceinline__ void encrypt(const char *smb, uint32_t lane4,
					const uint32_t *rk, uint32_t (*s)[4])
{
#pragma unroll
	for (int b = 0; b < B; b++)
#pragma unroll
		for (int j = 0; j < 4; j++)
			s[b][j] ^= rk[j];
	enc_rounds<V, R, B, 1>(smb, lane4, rk, s);
}

template <int V, int R, int B>
__device__ __forceinline__ void decrypt(const char *smb, uint32_t lane4,
					const uint32_t *rk, uint32_t (*s)[4])
{
	constexpr int NT = layout<V>::dec_tables;

#pragma unroll
	for (int b = 0; b < B; b++)
#pragma unroll
		for (int j = 0; j < 4; j++)
			s[b][j] ^= rk[j];
#pragma unroll
	for (int r = 1; r < R; r++) {
#pragma unroll
		for (int b = 0; b < B; b++) {
			uint32_t n[4];

#pragma unroll
			for (int j = 0; j < 4; j++)
				n[j] = tl<NT>(smb, 0, 0, s[b][j], lane4) ^
				       tl<NT>(smb, 0, 1, s[b][(j + 3) & 3], lane4) ^
				       tl<NT>(smb, 0, 2, s[b][(j + 2) & 3], lane4) ^
				       tl<NT>(smb, 0, 3, s[b][(j + 1) & 3], lane4) ^
				       rk[4 * r + j];
#pragma unroll
			for (int j = 0; j < 4; j++)
				s[b][j] = n[j];
		}
	}
#pragma unroll
	for (int b = 0; b < B; b++) {
		uint32_t n[4];

#pragma unroll
		for (int j = 0; j < 4; j++)
			n[j] = last(smb + layout<V>::td4, s[b][j],
				    s[b][(j + 3) & 3], s[b][(j + 2) & 3],
				    s[b][(j + 1) & 3], lane4) ^
			       rk[4 * R + j];
#pragma unroll
		for (int j = 0; j < 4; j++)
			s[b][j] = n[j];
	}
}

__device__ __forceinline__ void ctr_words(const gpu_aes_kseg &sg, uint32_t bi,
					  uint32_t *w)
{
	uint64_t lo = sg.ctr_lo + bi;
	uint64_t hi = sg.ctr_hi + (lo < sg.ctr_lo ? 1 : 0);

	w[0] = __byte_perm((uint32_t)(hi >> 32), 0, 0x0123);
	w[1] = __byte_perm((uint32_t)hi, 0, 0x0123);
	w[2] = __byte_perm((uint32_t)(lo >> 32), 0, 0x0123);
	w[3] = __byte_perm((uint32_t)lo, 0, 0x0123);
}

/*
 * XCTR's counter block bi (from 0): the IV, in sg.aux as the kernel reads
 * words (AUX IV), XOR le128(bi + 1), whose words above the second stay
 * zero for any segment.
 */
__device__ __forceinline__ void xctr_words(const gpu_aes_kseg &sg,
					   uint32_t bi, uint32_t *w)
{
	const uint64_t n = (uint64_t)bi + 1;

	w[0] = sg.aux[0] ^ (uint32_t)n;
	w[1] = sg.aux[1] ^ (uint32_t)(n >> 32);
	w[2] = sg.aux[2];
	w[3] = sg.aux[3];
}

/*
 * ECB, and the stream modes CTR and XCTR (OP their _ENC op: a stream op
 * is its own inverse), a block per thread and B in flight.
 */
template <int V, int OP, int R, int B>
__device__ void run_chunk(const char *smb, uint32_t lane4, uint8_t *base,
			  const gpu_aes_kseg &sg, const gpu_aes_kchunk &ch,
			  const gpu_aes_dev_key *keys)
{
	const bool DEC = gpu_aes_kop_has(OP, GPU_AES_KOPF_DEC_TABLES);
	const bool STREAM = OP == GPU_AES_KOP_CTR_ENC ||
			    OP == GPU_AES_KOP_XCTR_ENC;
	const uint32_t *src = DEC ? keys[sg.key].drk : keys[sg.key].erk;
	uint32_t rk[4 * (R + 1)];
	uint8_t *p = base + sg.off;
	const uint32_t nt = blockDim.x;

#pragma unroll
	for (int i = 0; i < 4 * (R + 1); i++)
		rk[i] = __ldg(src + i);

	for (uint32_t i0 = threadIdx.x; i0 < ch.nblocks; i0 += B * nt) {
		uint32_t s[B][4];
		uint4 in[B];

#pragma unroll
		for (int b = 0; b < B; b++) {
			uint32_t i = i0 + b * nt;
			uint32_t bi = ch.block0 + i;
			bool full = i < ch.nblocks &&
				    (uint64_t)bi * 16 + 16 <= sg.len;

			in[b] = full ? __ldcs(reinterpret_cast<const uint4 *>(
					       p + (uint64_t)bi * 16)) :
				       make_uint4(0, 0, 0, 0);
			if (OP == GPU_AES_KOP_CTR_ENC) {
				ctr_words(sg, bi, s[b]);
			} else if (OP == GPU_AES_KOP_XCTR_ENC) {
				xctr_words(sg, bi, s[b]);
			} else {
				s[b][0] = in[b].x;
				s[b][1] = in[b].y;
				s[b][2] = in[b].z;
				s[b][3] = in[b].w;
			}
		}
		if (DEC)
			decrypt<V, R, B>(smb, lane4, rk, s);
		else
			encrypt<V, R, B>(smb, lane4, rk, s);
#pragma unroll
		for (int b = 0; b < B; b++) {
			uint32_t i = i0 + b * nt;
			uint32_t bi = ch.block0 + i;
			uint8_t *q = p + (uint64_t)bi * 16;
			uint4 o;

			if (i >= ch.nblocks)
				continue;
			if (STREAM) {
				o = make_uint4(in[b].x ^ s[b][0],
					       in[b].y ^ s[b][1],
					       in[b].z ^ s[b][2],
					       in[b].w ^ s[b][3]);
			} else {
				o = make_uint4(s[b][0], s[b][1], s[b][2],
					       s[b][3]);
			}
			if ((uint64_t)bi * 16 + 16 <= sg.len) {
				__stcs(reinterpret_cast<uint4 *>(q), o);
			} else {
				/* a stream's partial last block, byte by byte */
				uint32_t n = sg.len - bi * 16;

#pragma unroll
				for (uint32_t k = 0; k < 16; k++)
					if (k < n)
						q[k] ^= (uint8_t)(s[b][k >> 2] >>
								  (8 * (k & 3)));
			}
		}
	}
}

__device__ __forceinline__ uint32_t bswap(uint32_t v)
{
	return __byte_perm(v, 0, 0x0123);
}

__device__ __forceinline__ uint32_t get_byte(const uint32_t *w, uint32_t k)
{
	return (w[k >> 2] >> (8 * (k & 3))) & 0xff;
}

/* The first n < 16 bytes at q, zero padded, as four words. */
__device__ __forceinline__ void load_partial(const uint8_t *q, uint32_t n,
					     uint32_t *w)
{
#pragma unroll
	for (int k = 0; k < 4; k++)
		w[k] = 0;
#pragma unroll
	for (uint32_t k = 0; k < 16; k++)
		if (k < n)
			w[k >> 2] |= (uint32_t)q[k] << (8 * (k & 3));
}

__device__ __forceinline__ void store_partial(uint8_t *q, uint32_t n,
					      const uint32_t *w)
{
#pragma unroll
	for (uint32_t k = 0; k < 16; k++)
		if (k < n)
			q[k] = (uint8_t)get_byte(w, k);
}

template <int V, bool DEC, int R>
__device__ __forceinline__ void aes1(const char *smb, uint32_t lane4,
				     const uint32_t *rk, uint32_t (*s)[4])
{
	if (DEC)
		decrypt<V, R, 1>(smb, lane4, rk, s);
	else
		encrypt<V, R, 1>(smb, lane4, rk, s);
}

/*
 * IEEE 1619 ciphertext stealing over full block m-1 (at q) and the r-byte
 * block after it; t is block m-1's tweak.  Decryption takes the blocks in
 * the other order, so the tweaks swap.
 */
template <int V, bool DEC, int R>
__device__ __forceinline__ void xts_steal(const char *smb, uint32_t lane4,
				       const uint32_t *rk, uint8_t *q,
				       uint32_t r, const uint32_t *t)
{
	uint32_t t2[4] = { t[0], t[1], t[2], t[3] }, s[1][4], x[4], y[4];
	uint8_t *tail = q + 16;

	gf128_mulx_k(t2, 1);
	const uint32_t *ta = DEC ? t2 : t, *tb = DEC ? t : t2;
	uint4 in = *reinterpret_cast<const uint4 *>(q);

	s[0][0] = in.x ^ ta[0];
	s[0][1] = in.y ^ ta[1];
	s[0][2] = in.z ^ ta[2];
	s[0][3] = in.w ^ ta[3];
	aes1<V, DEC, R>(smb, lane4, rk, s);
#pragma unroll
	for (int k = 0; k < 4; k++)
		x[k] = s[0][k] ^ ta[k];
	load_partial(tail, r, y);
#pragma unroll
	for (uint32_t k = 0; k < 16; k++)
		if (k >= r)
			y[k >> 2] |= get_byte(x, k) << (8 * (k & 3));
	store_partial(tail, r, x);
#pragma unroll
	for (int k = 0; k < 4; k++)
		s[0][k] = y[k] ^ tb[k];
	aes1<V, DEC, R>(smb, lane4, rk, s);
	*reinterpret_cast<uint4 *>(q) = make_uint4(s[0][0] ^ tb[0],
						   s[0][1] ^ tb[1],
						   s[0][2] ^ tb[2],
						   s[0][3] ^ tb[3]);
}

/*
 * XTS: warp w owns blocks [w pw, (w+1) pw) of the chunk and lane l every
 * 32nd of them from l, so loads stay coalesced and a lane's next tweak is
 * its last one times x^32 (a few shifts).  The block before a partial
 * last block is stolen from by the lane that owns it; no lane takes the
 * partial block itself.
 */
template <int V, bool DEC, int R>
__device__ void run_xts(const char *smb, uint32_t lane4, uint8_t *base,
			const gpu_aes_kseg &sg, const gpu_aes_kchunk &ch,
			const gpu_aes_dev_key *keys)
{
	const uint32_t *src = DEC ? keys[sg.key].drk : keys[sg.key].erk;
	const uint32_t nw = blockDim.x >> 5, w = threadIdx.x >> 5;
	const uint32_t l = threadIdx.x & 31;
	const uint32_t pw = ((ch.nblocks + nw - 1) / nw + 31) & ~31U;
	const uint32_t start = w * pw, m = sg.len / 16, r = sg.len % 16;
	const uint32_t end = min(start + pw, ch.nblocks);
	uint8_t *p = base + sg.off;
	uint32_t rk[4 * (R + 1)], t[4];

	if (start >= ch.nblocks)
		return;
#pragma unroll
	for (int i = 0; i < 4 * (R + 1); i++)
		rk[i] = __ldg(src + i);
#pragma unroll
	for (int k = 0; k < 4; k++)
		t[k] = ch.aux[k];
	if (start)
		gf128_mul(t, c_xpow[start / 32], t);
	if (l)
		gf128_mulx_k(t, l);
	for (uint32_t i = start + l; i < end; i += 32) {
		const uint32_t bi = ch.block0 + i;
		uint8_t *q = p + (uint64_t)bi * 16;

		if (r && bi == m - 1) {
			xts_steal<V, DEC, R>(smb, lane4, rk, q, r, t);
		} else if (bi < m) {
			uint4 in = __ldcs(reinterpret_cast<const uint4 *>(q));
			uint32_t s[1][4] = { { in.x ^ t[0], in.y ^ t[1],
					       in.z ^ t[2], in.w ^ t[3] } };

			aes1<V, DEC, R>(smb, lane4, rk, s);
			__stcs(reinterpret_cast<uint4 *>(q),
			       make_uint4(s[0][0] ^ t[0], s[0][1] ^ t[1],
					  s[0][2] ^ t[2], s[0][3] ^ t[3]));
		}
		gf128_mulx_k(t, 32);
	}
}

/*
 * CBC decryption, P_i = D_K(C_i) ^ C_{i-1}, in place, blocks in parallel.
 * Warp w owns blocks [w pw, (w+1) pw) of the chunk and lane l every 32nd
 * of them from l, so loads stay coalesced and the block before a lane's
 * is the previous lane's, handed over in registers (shuffle) before
 * either is written; lane 0's is lane 31's of the warp's previous step.
 * Only two blocks a warp needs are written by others: the one before the
 * chunk, which the host read before the launch (ch.aux, the IV for the
 * first chunk), and the one before the warp's range, the previous warp's
 * last, which is read before the CTA's barrier and written after it.
 */
template <int V, int R>
__device__ void run_cbc_dec(const char *smb, uint32_t lane4, uint8_t *base,
			    const gpu_aes_kseg &sg, const gpu_aes_kchunk &ch,
			    const gpu_aes_dev_key *keys)
{
	const uint32_t *src = keys[sg.key].drk;
	const uint32_t nw = blockDim.x >> 5, w = threadIdx.x >> 5;
	const uint32_t l = threadIdx.x & 31;
	const uint32_t pw = ((ch.nblocks + nw - 1) / nw + 31) & ~31U;
	const uint32_t start = min(w * pw, ch.nblocks);
	const uint32_t end = min(start + pw, ch.nblocks);
	uint8_t *p = base + sg.off + (uint64_t)ch.block0 * 16;
	uint32_t rk[4 * (R + 1)], prev[4] = { ch.aux[0], ch.aux[1], ch.aux[2],
					      ch.aux[3] };

	if (start && start < end) {
		uint4 c = __ldcs(reinterpret_cast<const uint4 *>(
			p + (uint64_t)(start - 1) * 16));

		prev[0] = c.x;
		prev[1] = c.y;
		prev[2] = c.z;
		prev[3] = c.w;
	}
	__syncthreads();
	if (start >= end)
		return;
#pragma unroll
	for (int i = 0; i < 4 * (R + 1); i++)
		rk[i] = __ldg(src + i);
	/* i0 is the same in every lane: the shuffles see all 32. */
	for (uint32_t i0 = start; i0 < end; i0 += 32) {
		const uint32_t i = i0 + l;
		uint8_t *q = p + (uint64_t)i * 16;
		uint4 c = i < end ? __ldcs(reinterpret_cast<const uint4 *>(q)) :
				    make_uint4(0, 0, 0, 0);
		uint32_t x[4] = { c.x, c.y, c.z, c.w }, y[4], s[1][4];

#pragma unroll
		for (int k = 0; k < 4; k++) {
			uint32_t up = __shfl_up_sync(0xffffffffU, x[k], 1);
			uint32_t last = __shfl_sync(0xffffffffU, x[k], 31);

			y[k] = l ? up : prev[k];
			prev[k] = last;
			s[0][k] = x[k];
		}
		if (i >= end)
			continue;
		aes1<V, true, R>(smb, lane4, rk, s);
		__stcs(reinterpret_cast<uint4 *>(q),
		       make_uint4(s[0][0] ^ y[0], s[0][1] ^ y[1],
				  s[0][2] ^ y[2], s[0][3] ^ y[3]));
	}
}

/*
 * The group's 4 x 4 words, one row a lane, become its columns: x[c] of
 * lane q is x[q] of lane c after: two butterfly steps of two shuffles.
 */
__device__ __forceinline__ void transpose4(uint32_t group, uint32_t q,
					   uint32_t x[4])
{
#pragma unroll
	for (uint32_t d = 2; d >= 1; d >>= 1) {
		const bool hi = q & d;

#pragma unroll
		for (uint32_t c = 0; c < 4; c++) {
			if (c & d)
				continue;
			const uint32_t r = __shfl_xor_sync(group,
							   hi ? x[c] : x[c | d],
							   d, GPU_AES_CBC_LANES);

			if (hi)
				x[c] = r;
			else
				x[c | d] = r;
		}
	}
}

/*
 * Quad j of a chain's blocks as lane q of its group loads it: block 4 j +
 * q whole (the group's 64 bytes in one go), zeros past the chain's n.
 */
__device__ __forceinline__ void load_quad(const uint8_t *p, uint32_t j,
					  uint32_t q, uint32_t n, uint32_t w[4])
{
	const uint32_t b = 4 * j + q;
	const uint4 t = b < n ? *reinterpret_cast<const uint4 *>(
				       p + (uint64_t)b * 16) :
				make_uint4(0, 0, 0, 0);

	w[0] = t.x;
	w[1] = t.y;
	w[2] = t.z;
	w[3] = t.w;
}

/*
 * CBC encryption, C_i = E_K(P_i ^ C_{i-1}): each block needs the one
 * before, so a segment is one chain (a serial chunk, IV in ch.aux) that
 * goes at the speed of one block's latency, while the batch's other
 * chains run beside it.  Four lanes share a chain, lane q holding column
 * q of the state: a round is the column's four lookups, three of them on
 * words the other lanes hold (shuffles), so a lane issues 4 shared loads
 * and 3 shuffles a round where a lane alone issued 16 loads.  A warp's
 * shared loads issue one every few cycles, and those 16 were most of a
 * lone chain's 0.68 us a block (ncu, H100: 2.6 cycles an instruction,
 * the loads waiting on the one before).  The next 4 Q blocks are loaded
 * while the current ones are encrypted, so a load (over PCIe when
 * zero-copy) is not added to the chain, and each lane loads and stores
 * whole blocks, 64 bytes a group: over PCIe, each lane loading its own
 * word of 16 blocks ahead still held 512 chains at 0.89 us a block, where
 * the same from GPU memory took 0.49 (H100); whole blocks, 0.53 both.
 */
template <int V, int R>
__device__ void run_cbc_enc(const char *smb, uint32_t lane4, uint8_t *base,
			    const gpu_aes_kseg &sg, const gpu_aes_kchunk &ch,
			    const gpu_aes_dev_key *keys)
{
	constexpr uint32_t Q = 4;	/* quads of blocks loaded ahead */
	constexpr int NT = layout<V>::enc_tables;
	const uint32_t q = threadIdx.x & (GPU_AES_CBC_LANES - 1);
	const uint32_t group = ((1U << GPU_AES_CBC_LANES) - 1)
			       << (threadIdx.x & 31 & ~(GPU_AES_CBC_LANES - 1));
	const uint32_t *src = keys[sg.key].erk;
	const uint32_t n = ch.nblocks;
	uint8_t *p = base + sg.off + (uint64_t)ch.block0 * 16;
	uint32_t rk[R + 1], cur[Q][4], nxt[Q][4];
	uint32_t x = q == 0 ? ch.aux[0] : q == 1 ? ch.aux[1] :
		     q == 2 ? ch.aux[2] : ch.aux[3];

#pragma unroll
	for (int i = 0; i <= R; i++)
		rk[i] = __ldg(src + 4 * i + q);
#pragma unroll
	for (uint32_t i = 0; i < Q; i++)
		load_quad(p, i, q, n, cur[i]);
	for (uint32_t j0 = 0; 4 * j0 < n; j0 += Q) {
#pragma unroll
		for (uint32_t i = 0; i < Q; i++)
			load_quad(p, j0 + Q + i, q, n, nxt[i]);
#pragma unroll
		for (uint32_t i = 0; i < Q; i++) {
			const uint32_t b0 = 4 * (j0 + i);
			uint32_t o[4] = { 0, 0, 0, 0 };

			if (b0 >= n)
				break;
			/* cur[i][k]: word q of block b0 + k */
			transpose4(group, q, cur[i]);
#pragma unroll
			for (uint32_t k = 0; k < 4; k++) {
				if (b0 + k >= n)
					break;
				x ^= cur[i][k] ^ rk[0];
#pragma unroll
				for (int r = 1; r <= R; r++) {
					const uint32_t a1 = __shfl_sync(
						group, x, q + 1, GPU_AES_CBC_LANES);
					const uint32_t a2 = __shfl_sync(
						group, x, q + 2, GPU_AES_CBC_LANES);
					const uint32_t a3 = __shfl_sync(
						group, x, q + 3, GPU_AES_CBC_LANES);

					if (r < R)
						x = tl<NT>(smb, 0, 0, x, lane4) ^
						    tl<NT>(smb, 0, 1, a1, lane4) ^
						    tl<NT>(smb, 0, 2, a2, lane4) ^
						    tl<NT>(smb, 0, 3, a3, lane4) ^
						    rk[r];
					else
						x = last(smb, x, a1, a2, a3,
							 lane4) ^ rk[R];
				}
				o[k] = x;
			}
			/* lane q stores block b0 + q of the quad */
			transpose4(group, q, o);
			if (b0 + q < n)
				*reinterpret_cast<uint4 *>(p + (uint64_t)(b0 + q) * 16) =
					make_uint4(o[0], o[1], o[2], o[3]);
		}
#pragma unroll
		for (uint32_t i = 0; i < Q; i++)
#pragma unroll
			for (uint32_t k = 0; k < 4; k++)
				cur[i][k] = nxt[i][k];
	}
}

/*
 * A GCM segment's hash stream (aes_gpu.h): pad zero blocks, so that it
 * fills whole groups of 32, then a blocks of associated data, c of text
 * and the lengths block; n = a + c + 1.
 */
struct gcm_stream {
	uint32_t a, c, n, pad;
};

__device__ __forceinline__ gcm_stream gcm_stream_of(const gpu_aes_kseg &sg)
{
	const uint32_t a = (sg.aad_len + 15) / 16, c = (sg.len + 15) / 16;
	const uint32_t n = a + c + 1;

	return { a, c, n, ((n + 31) & ~31U) - n };
}

/* Word k of a block whose bytes from nb on count as zero. */
__device__ __forceinline__ uint32_t tail_mask(int k, uint32_t nb)
{
	return 4 * k + 4 <= nb ? ~0U : 4 * k >= nb ? 0U :
	       ~0U >> (8 * (4 * k + 4 - nb));
}

/*
 * A CTA's first GCM chunk's input (its text blocks, then its blocks of
 * associated data, which lie after the text and tag), copied into shared
 * memory by the TMA while the CTA fills its tables and computes its
 * keystream: two cp.async.bulk issued by thread 0 at the CTA's entry,
 * one mbarrier.  Read by the lanes instead, over PCIe when the data is
 * host memory, a lone launch's text came back 1.1-1.2 us after its
 * keystream (NOTES.md rows 29, 34), and reads the lanes issued earlier held
 * up their shared-memory work (rows 30-32); the TMA reads it with no
 * lane's load in flight.  Staged: text blocks [lo, hi) at buf, blocks of
 * associated data [alo, ahi) after them; none when the two are empty.
 * Whole blocks are copied: the bytes past a partial block's end are the
 * entry's own (the text is padded to 16 bytes before its tag, and an
 * entry ends within its GPU_AES_DATA_ALIGN granule), and hash as zero.
 */
struct gcm_stage {
	uint64_t *bar;
	const uint4 *buf;
	uint32_t lo, hi, alo, ahi;
};

/* The blocks of chunk ch that the stage holds, if they fit. */
__device__ __forceinline__ void gcm_stage_range(const gpu_aes_kseg &sg,
						const gpu_aes_kchunk &ch,
						gcm_stage *st)
{
	const gcm_stream gs = gcm_stream_of(sg);
	const uint32_t a = gs.a, c = gs.c, pad = gs.pad;
	const uint32_t v0 = ch.block0, v1 = ch.block0 + 32 * (ch.nblocks / 32);
	const uint32_t ts = max(v0, pad + a), te = min(v1, pad + a + c);
	const uint32_t as = max(v0, pad), ae = min(v1, pad + a);
	const uint32_t nt = ts < te ? te - ts : 0, na = as < ae ? ae - as : 0;

	st->lo = st->hi = st->alo = st->ahi = 0;
	if (nt + na == 0 || 16 * (nt + na) > GPU_AES_STAGE_BYTES)
		return;
	if (nt) {
		st->lo = ts - pad - a;
		st->hi = te - pad - a;
	}
	if (na) {
		st->alo = as - pad;
		st->ahi = ae - pad;
	}
}

#if GPU_AES_TMA
__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void tma_load(void *dst, const void *src,
					 uint32_t bytes, uint32_t bar)
{
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
		     " [%0], [%1], %2, [%3];"
		     ::"r"(smem_u32(dst)), "l"(src), "r"(bytes), "r"(bar)
		     : "memory");
}

/* Thread 0 alone; the others wait for the barrier after a __syncthreads. */
__device__ __forceinline__ void gcm_stage_issue(const gcm_stage &st,
						const uint8_t *p,
						const uint8_t *ad)
{
	const uint32_t bar = smem_u32(st.bar), nt = st.hi - st.lo;
	const uint32_t bytes = 16 * (nt + st.ahi - st.alo);

	asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
		     : "memory");
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
		     ::"r"(bar), "r"(bytes) : "memory");
	if (nt)
		tma_load(const_cast<uint4 *>(st.buf), p + 16 * (uint64_t)st.lo,
			 16 * nt, bar);
	if (st.ahi > st.alo)
		tma_load(const_cast<uint4 *>(st.buf + nt),
			 ad + 16 * (uint64_t)st.alo, 16 * (st.ahi - st.alo), bar);
}

__device__ __forceinline__ void gcm_stage_wait(const gcm_stage &st)
{
	const uint32_t bar = smem_u32(st.bar);
	uint32_t done;

	do {
		asm volatile("{\n\t.reg .pred p;\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
			     "selp.u32 %0, 1, 0, p;\n\t}"
			     : "=r"(done) : "r"(bar) : "memory");
	} while (!done);
}
#else
/* Not reached: the stage kernel ends at once below 9.0 (aes_batch()). */
__device__ __forceinline__ void gcm_stage_issue(const gcm_stage &,
						const uint8_t *,
						const uint8_t *)
{
	__trap();
}

__device__ __forceinline__ void gcm_stage_wait(const gcm_stage &)
{
	__trap();
}
#endif

/* Block i of the stage, its bytes from nb on zero. */
__device__ __forceinline__ void gcm_stage_read(const gcm_stage &st,
					       uint32_t i, uint32_t nb,
					       uint32_t *w)
{
	gcm_stage_wait(st);
	const uint4 q = st.buf[i];
	const uint32_t v[4] = { q.x, q.y, q.z, q.w };

#pragma unroll
	for (int k = 0; k < 4; k++)
		w[k] = v[k] & tail_mask(k, nb);
}

/*
 * GCM: CTR with the 32-bit counter (block b of the text uses IV || b+2)
 * and GHASH in the same pass.  Position v of the segment's hash stream
 * (aes_gpu.h) goes to warp (v / 32) mod nw, lane v mod 32: each lane folds
 * its blocks by Horner's rule with H^(threads); its sum times H^(32 - l),
 * the warp's sum times H^(32 (groups after the warp's last one)) and the
 * chunk's factor H^(blocks after the chunk) put every block at its power,
 * so the segment's GHASH is the XOR of all lanes' results, in any order.
 * The last two are one power of H^32 where the table holds it
 * (gpu_aes_gcm_warp_power()), and all three one power of H where hp1
 * does: a lone request's GHASH ends with one product a lane, its Horner
 * product on a zero sum being skipped too.
 */
static_assert(offsetof(gpu_aes_dev_key, hpre) % 16 == 0,
	      "hpre is read as uint4");

/*
 * Counter-mode caching (Bernstein-Schwabe) over two rounds.  GCM's counter
 * blocks differ only in word 3, whose byte k feeds round-1 column 3 - k.
 * A lane's blocks are 32 nw apart, a multiple of 256 when nw >= 8, so its
 * byte 3 (the counter's low byte) never changes, bytes 0 and 1 change at
 * most once per 65536 blocks and only byte 2 changes from one block to the
 * next: of round 1 only column 1 varies, and it feeds one lookup of each
 * round-2 column.  The cache holds round-1 column 1 without byte 2's lookup (r1b)
 * and round 2 without column 1's lookups (r2): 5 lookups per block instead
 * of 20, and a refill (28) when bytes 0, 1 or 3 of word 3 change.  With
 * fewer warps byte 3 changes every block and the cache refills each time:
 * correct, but slower than no cache.
 */
#define GCM_R2_KEY 0xff00ffffU

template <int NT>
__device__ __forceinline__ void gcm_ctr_cache(const char *smb, uint32_t lane4,
					      const uint32_t *erk, uint32_t c0,
					      uint32_t c1, uint32_t c2,
					      uint32_t x3, uint32_t *r1b,
					      uint32_t *r2)
{
	const uint32_t w0[4] = { c0 ^ __ldg(erk), c1 ^ __ldg(erk + 1),
				 c2 ^ __ldg(erk + 2), x3 };
	uint32_t u[4];

#pragma unroll
	for (int j = 0; j < 4; j++) {
		u[j] = __ldg(erk + 4 + j);
#pragma unroll
		for (int t = 0; t < 4; t++)
			u[j] ^= tl<NT>(smb, 0, t, w0[(j + t) & 3], lane4);
	}
	*r1b = u[1] ^ tl<NT>(smb, 0, 2, x3, lane4);
#pragma unroll
	for (int j = 0; j < 4; j++) {
		r2[j] = __ldg(erk + 8 + j);
#pragma unroll
		for (int t = 0; t < 4; t++)
			if (((j + t) & 3) != 1)
				r2[j] ^= tl<NT>(smb, 0, t, u[(j + t) & 3],
						lane4);
	}
}

template <int V, bool DEC, int R, bool STAGE>
__device__ void run_gcm(const char *smb, uint32_t lane4, uint8_t *base,
			const gpu_aes_kseg &sg, const gpu_aes_kchunk &ch,
			const gpu_aes_dev_key *keys, uint32_t *ghash,
			const gcm_stage *st)
{
	const gpu_aes_dev_key *K = &keys[sg.key];
	const uint32_t nw = blockDim.x >> 5, w = threadIdx.x >> 5;
	const uint32_t l = threadIdx.x & 31, G = ch.nblocks / 32;
	const gcm_stream gs = gcm_stream_of(sg);
	const uint32_t a = gs.a, c = gs.c, n = gs.n, pad = gs.pad;
	uint8_t *p = base + sg.off;
	const uint8_t *ad = p + gpu_aes_gcm_aad_off(0, sg.len);
	const uint32_t c0 = bswap((uint32_t)(sg.ctr_hi >> 32));
	const uint32_t c1 = bswap((uint32_t)sg.ctr_hi);
	const uint32_t c2 = bswap((uint32_t)(sg.ctr_lo >> 32));
	constexpr int NT = layout<V>::enc_tables;
	uint32_t rk[4 * (R + 1)], y[4] = { 0, 0, 0, 0 };
	uint32_t r1b, r2[4], r2key = 0;
	bool r2ok = false;

	if (w >= G)
		return;	/* the whole warp: no lane would reduce */
#pragma unroll
	for (int i = 0; i < 4 * (R + 1); i++)
		rk[i] = __ldg(K->erk + i);
	for (uint32_t g = w; g < G; g += nw) {
		const uint32_t v = ch.block0 + 32 * g + l;
		uint32_t x[4] = { 0, 0, 0, 0 }, xr[4];

		if (v >= pad && v - pad < a) {
			const uint32_t q = v - pad;

			if (STAGE && st && q >= st->alo && q < st->ahi) {
				gcm_stage_read(*st, st->hi - st->lo + q - st->alo,
					       min(sg.aad_len - 16 * q, 16U), x);
			} else if (16 * q + 16 <= sg.aad_len) {
				uint4 in = __ldcs(reinterpret_cast<const uint4 *>(
					ad + 16 * (uint64_t)q));

				x[0] = in.x;
				x[1] = in.y;
				x[2] = in.z;
				x[3] = in.w;
			} else {
				load_partial(ad + 16 * (uint64_t)q,
					     sg.aad_len - 16 * q, x);
			}
		} else if (v >= pad && v - pad < a + c) {
			const uint32_t b = v - pad - a;
			uint8_t *q = p + 16 * (uint64_t)b;
			const uint32_t x3 = bswap(b + 2) ^ rk[3];
			uint32_t s[1][4], in[4], o[4], u1;
			const bool full = 16 * (uint64_t)b + 16 <= sg.len;
			const uint32_t nb = full ? 16 : sg.len - 16 * b;

			if (!r2ok || ((x3 ^ r2key) & GCM_R2_KEY)) {
				gcm_ctr_cache<NT>(smb, lane4, K->erk, c0, c1, c2,
						  x3, &r1b, r2);
				r2key = x3;
				r2ok = true;
			}
			u1 = r1b ^ tl<NT>(smb, 0, 2, x3, lane4);
#pragma unroll
			for (int j = 0; j < 4; j++)
				s[0][j] = r2[j] ^ tl<NT>(smb, 0, (1 - j) & 3,
							 u1, lane4);
			enc_rounds<V, R, 1, 3>(smb, lane4, rk, s);
			if (STAGE && st && b >= st->lo && b < st->hi) {
				gcm_stage_read(*st, b - st->lo, nb, in);
			} else if (full) {
				uint4 i4 = __ldcs(reinterpret_cast<const uint4 *>(q));

				in[0] = i4.x;
				in[1] = i4.y;
				in[2] = i4.z;
				in[3] = i4.w;
			} else {
				load_partial(q, nb, in);
			}
#pragma unroll
			for (int k = 0; k < 4; k++) {
				/* bytes past the text hash as zero */
				uint32_t keep = tail_mask(k, nb);

				o[k] = (in[k] ^ s[0][k]) & keep;
				x[k] = DEC ? in[k] : o[k];
			}
			if (full)
				__stcs(reinterpret_cast<uint4 *>(q),
				       make_uint4(o[0], o[1], o[2], o[3]));
			else
				store_partial(q, nb, o);
		} else if (v >= pad) {
			uint64_t abits = (uint64_t)sg.aad_len * 8;
			uint64_t cbits = (uint64_t)sg.len * 8;

			x[0] = bswap((uint32_t)(abits >> 32));
			x[1] = bswap((uint32_t)abits);
			x[2] = bswap((uint32_t)(cbits >> 32));
			x[3] = bswap((uint32_t)cbits);
		}
		/* y is zero before the warp's first group: nothing to fold */
		if (g != w) {
			/* reloaded (L1) rather than held: registers are short */
			gf128_pre hn;
			const uint4 *src = reinterpret_cast<const uint4 *>(
				K->hpre[nw].m);

#pragma unroll
			for (int k = 0; k < 9; k++) {
				uint4 q = __ldg(src + k);

				hn.m[k][0] = q.x;
				hn.m[k][1] = q.y;
				hn.m[k][2] = q.z;
				hn.m[k][3] = q.w;
			}
			gf128_mul_pre(y, &hn, y);
		}
		gf128_from_gcm(x, xr);
#pragma unroll
		for (int k = 0; k < 4; k++)
			y[k] ^= xr[k];
	}
	const uint32_t glast = w + nw * ((G - 1 - w) / nw);
	const uint32_t e = gpu_aes_gcm_warp_power(n + pad, ch.block0, glast);
	/*
	 * Warp-uniform.  Where hp1 holds the lane's and the warp's factors
	 * as one power, lane 0 places the warp's sum with no product of its
	 * own: ~1.1 us less at the end of a lone request (NOTES.md row 33).
	 */
	const bool joint = e < GPU_AES_HP1_GROUPS;
	{
		uint32_t f[4];
		const uint32_t i = 32 * (joint ? e + 1 : 1) - l;

#pragma unroll
		for (int k = 0; k < 4; k++)
			f[k] = __ldg(&K->hp1[i][k]);
		gf128_mul(y, f, y);
	}
#pragma unroll
	for (int d = 16; d; d >>= 1)
#pragma unroll
		for (int k = 0; k < 4; k++)
			y[k] ^= __shfl_xor_sync(0xffffffffU, y[k], d);
	if (l == 0 && !joint) {
		uint32_t f[4];

		if (e <= GPU_AES_HP32_MAX) {
#pragma unroll
			for (int k = 0; k < 4; k++)
				f[k] = __ldg(&K->hp32[e][k]);
			gf128_mul(y, f, y);
		} else {
#pragma unroll
			for (int k = 0; k < 4; k++)
				f[k] = __ldg(&K->hp32[G - 1 - glast][k]);
			gf128_mul(y, f, y);
#pragma unroll
			for (int k = 0; k < 4; k++)
				f[k] = ch.aux[k];
			gf128_mul(y, f, y);
		}
	}
	if (l == 0) {
#pragma unroll
		for (int k = 0; k < 4; k++)
			atomicXor(ghash + 4 * (size_t)ch.seg + k, y[k]);
	}
}

#define BY_ROUNDS(call_)						\
	do {								\
		switch (sg.rounds) {					\
		case 10: { constexpr int R_ = 10; call_; } break;	\
		case 12: { constexpr int R_ = 12; call_; } break;	\
		default: { constexpr int R_ = 14; call_; } break;	\
		}							\
	} while (0)

/*
 * EXT: the kernel also runs XTS, GCM, CBC and XCTR.  Their register needs
 * (GHASH's products next to 60 round-key words) make ptxas spill, so
 * batches of ECB and CTR alone use a kernel without them and keep its
 * allocation.  XCTR is CTR's code with another counter, but a third
 * run_chunk() instance in the plain kernels cost one of them a spill
 * (bpt 4, ptxas -v for sm_90), so it runs in the EXT build.
 * Forced inline: left a call, the EXT build spills ~300 B around it.
 */
template <int V, int B, bool EXT, bool STAGE>
__device__ __forceinline__ void
dispatch(const char *smb, uint32_t lane4, uint8_t *base, const gpu_aes_kseg &sg,
	 const gpu_aes_kchunk &ch, const gpu_aes_dev_key *keys, uint32_t *ghash,
	 const gcm_stage *st)
{
	if (!EXT && gpu_aes_kop_has(sg.op, GPU_AES_KOPF_EXT))
		return;
	switch (sg.op) {
	case GPU_AES_KOP_CTR_ENC:
	case GPU_AES_KOP_CTR_DEC:	/* its own inverse: one instance */
		BY_ROUNDS((run_chunk<V, GPU_AES_KOP_CTR_ENC, R_, B>(smb, lane4, base, sg, ch, keys)));
		break;
	case GPU_AES_KOP_XCTR_ENC:
	case GPU_AES_KOP_XCTR_DEC:	/* its own inverse: one instance */
		if (EXT)
			BY_ROUNDS((run_chunk<V, GPU_AES_KOP_XCTR_ENC, R_, B>(smb, lane4, base, sg, ch, keys)));
		break;
	case GPU_AES_KOP_ECB_ENC:
		BY_ROUNDS((run_chunk<V, GPU_AES_KOP_ECB_ENC, R_, B>(smb, lane4, base, sg, ch, keys)));
		break;
	case GPU_AES_KOP_ECB_DEC:
		BY_ROUNDS((run_chunk<V, GPU_AES_KOP_ECB_DEC, R_, B>(smb, lane4, base, sg, ch, keys)));
		break;
	case GPU_AES_KOP_XTS_ENC:
		if (EXT)
			BY_ROUNDS((run_xts<V, false, R_>(smb, lane4, base, sg, ch, keys)));
		break;
	case GPU_AES_KOP_XTS_DEC:
		if (EXT)
			BY_ROUNDS((run_xts<V, true, R_>(smb, lane4, base, sg, ch, keys)));
		break;
	case GPU_AES_KOP_GCM_ENC:
		if (EXT)
			BY_ROUNDS((run_gcm<V, false, R_, STAGE>(smb, lane4, base, sg, ch, keys, ghash, st)));
		break;
	case GPU_AES_KOP_GCM_DEC:
		if (EXT)
			BY_ROUNDS((run_gcm<V, true, R_, STAGE>(smb, lane4, base, sg, ch, keys, ghash, st)));
		break;
	case GPU_AES_KOP_CBC_DEC:
		if (EXT)
			BY_ROUNDS((run_cbc_dec<V, R_>(smb, lane4, base, sg, ch, keys)));
		break;
	default:	/* serial ops: dispatch_serial() */
		break;
	}
}

/*
 * dispatch() and dispatch_serial() have a case for every op: an op with
 * none would leave its segments' bytes as they came, completed OK.  A new
 * mode's row (uapi/gpu_aes.h) adds two ops: their cases first, then the
 * count here (docs/design.md, "Adding a mode").
 */
static_assert(GPU_AES_NR_KOPS == 12,
	      "every op has its case in dispatch() or dispatch_serial()");

/* A serial chunk, run whole by the calling thread's group of lanes. */
template <int V>
__device__ __forceinline__ void
dispatch_serial(const char *smb, uint32_t lane4, uint8_t *base,
		const gpu_aes_kseg &sg, const gpu_aes_kchunk &ch,
		const gpu_aes_dev_key *keys)
{
	switch (sg.op) {
	case GPU_AES_KOP_CBC_ENC:
		BY_ROUNDS((run_cbc_enc<V, R_>(smb, lane4, base, sg, ch, keys)));
		break;
	default:
		break;
	}
}

/*
 * Each warp owns whole entries: lane l writes copy l, so a warp's stores
 * hit 32 banks.  A warp's entries are all loaded first, one or two to a
 * lane, and each is then broadcast to the warp with a shuffle, unrolled
 * with the side's table count known: one L2 round trip a CTA, and no
 * shuffle waits for the stores before it.  Loaded 8 at a time in a loop,
 * the tables took 3.5-4.2 us of a lone launch; now 2.2 (NOTES.md 27-28).
 */
template <int V, bool DEC>
__device__ __forceinline__ void fill_side(uint32_t *sm)
{
	/* a warp's entries, w + nw j: 2 a lane with 128 threads, the fewest */
	constexpr int MAX_LOADS = 256 / (32 * (GPU_AES_MIN_THREADS / 32));
	constexpr int NT = DEC ? layout<V>::dec_tables : layout<V>::enc_tables;
	const uint32_t *t0 = g_tables + (DEC ? 256 : 0);
	const unsigned int l = threadIdx.x & 31, w = threadIdx.x >> 5;
	const unsigned int nw = blockDim.x >> 5, m = (256 + nw - 1 - w) / nw;
	uint32_t v[MAX_LOADS], v4[MAX_LOADS];

#pragma unroll
	for (int r = 0; r < MAX_LOADS; r++) {
		unsigned int j = l + 32 * r, e = w + nw * j;

		v[r] = j < m ? __ldg(t0 + e) : 0;
		v4[r] = DEC && j < m ? __ldg(g_tables + 512 + e) : 0;
	}
#pragma unroll
	for (int r = 0; r < MAX_LOADS; r++) {
#pragma unroll
		for (int k = 0; k < 32; k++) {
			unsigned int j = k + 32 * r, e = w + nw * j;
			uint32_t x = __shfl_sync(0xffffffffU, v[r], k);
			uint32_t x4 = DEC ? __shfl_sync(0xffffffffU, v4[r], k) : 0;

			if (j < m) {	/* the same for the whole warp */
#pragma unroll
				for (int t = 0; t < NT; t++)
					sm[(tbase(t) + e * 256 + l * 4) / 4] =
						rotl(x, t);
				if (DEC)
					sm[(layout<V>::td4 + e * 256 + l * 4) / 4] = x4;
			}
		}
	}
}

template <int V>
__device__ void fill_tables(uint32_t *sm, bool dec)
{
	if (dec)
		fill_side<V, true>(sm);
	else
		fill_side<V, false>(sm);
	__syncthreads();
}

/*
 * The last CTA to finish (a ticket taken after each CTA's fence, as in
 * CUDA's threadFenceReduction sample) moves the GHASH sums to @out, if
 * any, zeroes them and the ticket, and last stores @done_value to @done,
 * if any: every warp's atomicXor is visible device-wide before its CTA
 * takes a ticket, and atomicExch reads each sum where the atomics
 * happened.  With @done every thread's writes (the data, over PCIe when
 * it is host memory) are made visible to the host before its CTA's
 * ticket, and the hand-over's before the store, so a host that reads
 * @done_value there may read everything the launch wrote.  Every CTA of
 * the grid must get here.
 *
 * A grid of one CTA (a lone request of one chunk) is its own last: it
 * takes no ticket, so the atomic round trip to L2 and the fence before
 * it are off the lone request's path; the fence before @done still makes
 * the data and the hand-over visible first.
 */
__device__ void launch_end(uint32_t *ghash, uint32_t *out, uint32_t words,
			   uint32_t *ticket, uint32_t *done,
			   uint32_t done_value)
{
	const bool alone = gridDim.x == 1;

	if (!alone) {
		if (done)
			__threadfence_system();
		else
			__threadfence();
		__syncthreads();
		/*
		 * Thread 0's ticket reaches the CTA through the barrier's
		 * reduction: the kernels use no static shared memory, as a
		 * T4 (64 KiB a CTA) has none beside variant 0's tables.
		 */
		if (!__syncthreads_or(threadIdx.x == 0 &&
				      atomicAdd(ticket, 1U) == gridDim.x - 1))
			return;
		__threadfence();
	} else {
		/* this CTA's atomicXor are visible to its threads after it */
		__syncthreads();
	}
	for (uint32_t i = threadIdx.x; out && i < words; i += blockDim.x)
		out[i] = atomicExch(ghash + i, 0U);
	if (done) {
		__threadfence_system();
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		if (!alone)
			*ticket = 0;
		if (done)
			*(volatile uint32_t *)done = done_value;
	}
}

/* Serial chains a warp runs at once (GPU_AES_CBC_LANES lanes each). */
#define CHAINS_PER_WARP	(32 / GPU_AES_CBC_LANES)
/*
 * Warps of a CTA that take serial chains before the next CTA does: one
 * for each of an SM's four schedulers, which a chain's warp keeps busy
 * alone (it waits on its loads and shuffles, not on issue).
 */
#define SERIAL_WARPS	4U
static_assert(GPU_AES_MIN_THREADS % (32 * SERIAL_WARPS) == 0,
	      "every CTA has whole sets of SERIAL_WARPS warps");

/*
 * CTAs [0, enc_ctas) take the chunks of the encryption tables, the others
 * the decrypting ones; a CTA fills the tables of its side once.  Of the
 * first nenc chunks the last nser are serial: after its share of the
 * parallel chunks, each group of GPU_AES_CBC_LANES lanes of an encrypting
 * CTA runs serial chunks, CHAINS_PER_WARP to a warp, SERIAL_WARPS warps
 * of a CTA and then the next CTA's (serial_chain()).  build_chunks() puts
 * the longest first, so a warp's chains are of like length and it idles
 * little.  A chain goes at one block's latency wherever it runs; packed,
 * a batch's chains hold a few CTAs, not one each, and the batches in
 * flight after it find the GPU free: a CTA holds its SM's shared memory
 * (variant 1: all of it) for as long as its longest chain.  One chain to
 * a CTA let two batches of a few hundred chains fill an H100 (3.1 GB/s
 * through the ring); a warp of chains to a CTA holds as many SMs as the
 * batch has warps of chains, SERIAL_WARPS to a CTA a quarter of that.
 */
/*
 * The first serial chain of this thread.  Warp-sized sets of chains are
 * dealt SERIAL_WARPS to a CTA: set g goes to CTA (g / SERIAL_WARPS) mod
 * enc_ctas, warp SERIAL_WARPS p + g mod SERIAL_WARPS of it in pass p =
 * g / (SERIAL_WARPS enc_ctas); then every enc_ctas x blockDim /
 * GPU_AES_CBC_LANES chains again.
 */
__device__ __forceinline__ uint32_t serial_chain(uint32_t enc_ctas)
{
	const uint32_t w = threadIdx.x >> 5;
	const uint32_t set = (w / SERIAL_WARPS * enc_ctas + blockIdx.x) *
			     SERIAL_WARPS + w % SERIAL_WARPS;

	return set * CHAINS_PER_WARP + (threadIdx.x & 31) / GPU_AES_CBC_LANES;
}

template <int V, int B, bool EXT, bool STAGE = false>
__global__ void __launch_bounds__(512)
aes_batch(uint8_t *base, const gpu_aes_kseg *segs,
	  const gpu_aes_kchunk *chunks, uint32_t nenc, uint32_t nser,
	  uint32_t ndec, uint32_t enc_ctas, const gpu_aes_dev_key *keys,
	  uint32_t *ghash, uint32_t *ghash_out, uint32_t ghash_words,
	  uint32_t *ticket, uint32_t *done, uint32_t done_value,
	  const __grid_constant__ gpu_aes_inline inl)
{
	extern __shared__ uint4 smem_raw[];
	uint32_t *sm = reinterpret_cast<uint32_t *>(smem_raw);
	const char *smb = reinterpret_cast<const char *>(smem_raw);
	const bool dec = blockIdx.x >= enc_ctas;
	const uint32_t lane4 = (threadIdx.x & 31) * 4;
	const bool serial = EXT && !dec &&
			    blockIdx.x * SERIAL_WARPS * CHAINS_PER_WARP < nser;
	/*
	 * The stage is the TMA's: compiled below 9.0, the stage kernel is
	 * never launched, and its code there is this trap alone.
	 */
	constexpr bool ST = STAGE && GPU_AES_TMA;
	uint32_t first, n, stride;

	if constexpr (STAGE && !GPU_AES_TMA) {
		__trap();
		return;
	}

	if (dec) {
		first = nenc + (blockIdx.x - enc_ctas);
		n = nenc + ndec;
		stride = gridDim.x - enc_ctas;
	} else {
		first = blockIdx.x;
		n = nenc - nser;
		stride = enc_ctas;
	}
	/* the stage, then its barrier, after the tables (the launch's own) */
	const uint32_t so =
		ST ? gpu_aes_table_bytes(V, nenc != 0, ndec != 0) / 16 : 0;
	gcm_stage st = { reinterpret_cast<uint64_t *>(
				 smem_raw + so + GPU_AES_STAGE_BYTES / 16),
			 smem_raw + so, 0, 0, 0, 0 };

	if (ST && first < n) {
		const gpu_aes_kchunk ch = chunks ? chunks[first] :
						   inl.chunks[first];
		const gpu_aes_kseg sg = chunks ? segs[ch.seg] : inl.segs[ch.seg];
		const uint8_t *p = base + sg.off;

		/* the TMA's 16-byte alignment: data_off's 64 in the ring */
		if (gpu_aes_kop_has(sg.op, GPU_AES_KOPF_GHASH) &&
		    !((uintptr_t)p & 15))
			gcm_stage_range(sg, ch, &st);
		if (st.hi + st.ahi && threadIdx.x == 0)
			gcm_stage_issue(st, p, p + gpu_aes_gcm_aad_off(0, sg.len));
	}
	/* CTA-uniform: first, n and serial depend on blockIdx alone. */
	if (first < n || serial) {
		fill_tables<V>(sm, dec);	/* its barrier: the init seen */
		for (uint32_t c = first; c < n; c += stride) {
			const gpu_aes_kchunk ch = chunks ? chunks[c] :
							   inl.chunks[c];
			const gpu_aes_kseg sg = chunks ? segs[ch.seg] :
							 inl.segs[ch.seg];

			dispatch<V, B, EXT, ST>(smb, lane4, base, sg, ch, keys,
						ghash, ST && c == first ? &st :
									nullptr);
		}
	}
	/* no CTA leaves shared memory the TMA still writes to */
	if (ST && st.hi + st.ahi && threadIdx.x == 0)
		gcm_stage_wait(st);
	if constexpr (EXT) {
		for (uint32_t j = serial_chain(enc_ctas); serial && j < nser;
		     j += enc_ctas * (blockDim.x / GPU_AES_CBC_LANES)) {
			const uint32_t c = n + j;
			const gpu_aes_kchunk ch = chunks ? chunks[c] :
							   inl.chunks[c];
			const gpu_aes_kseg sg = chunks ? segs[ch.seg] :
							 inl.segs[ch.seg];

			dispatch_serial<V>(smb, lane4, base, sg, ch, keys);
		}
	}
	if (ghash_out || done)
		launch_end(ghash, ghash_out, ghash_words, ticket, done,
			   done_value);
}

typedef void (*kfn)(uint8_t *, const gpu_aes_kseg *, const gpu_aes_kchunk *,
		    uint32_t, uint32_t, uint32_t, uint32_t,
		    const gpu_aes_dev_key *, uint32_t *, uint32_t *, uint32_t,
		    uint32_t *, uint32_t *, uint32_t, const gpu_aes_inline);

/* Small GCM batches: their first chunks' input through the TMA. */
kfn pick_stage(unsigned int variant)
{
	return variant ? aes_batch<1, 1, true, true> : aes_batch<0, 1, true, true>;
}

kfn pick(unsigned int variant, unsigned int bpt, bool ext)
{
	static const kfn fns[2][2][3] = {
		{ { aes_batch<0, 1, false>, aes_batch<0, 2, false>, aes_batch<0, 4, false> },
		  { aes_batch<1, 1, false>, aes_batch<1, 2, false>, aes_batch<1, 4, false> } },
		/* XTS, GCM, CBC, XCTR: one block per thread, bpt does not apply */
		{ { aes_batch<0, 1, true>, aes_batch<0, 1, true>, aes_batch<0, 1, true> },
		  { aes_batch<1, 1, true>, aes_batch<1, 1, true>, aes_batch<1, 1, true> } },
	};
	unsigned int b = bpt == 4 ? 2 : bpt == 2 ? 1 : 0;

	return fns[ext ? 1 : 0][variant ? 1 : 0][b];
}

} /* namespace */

/*
 * The code the binary carries, as nvcc was told to build it: "sm_75 ...
 * compute_90" (generated by cuda.mk into kernel_id.c).
 */
extern "C" const char gpu_aes_kernel_archs[];

namespace {

/* Per variant: ECB/CTR with bpt 1, 2 and 4, the EXT build, the stage. */
#define KERNELS_PER_VARIANT	5U
#define NR_KERNELS		(GPU_AES_NR_VARIANTS * KERNELS_PER_VARIANT)

struct kernel_ref {
	kfn fn;
	bool stage;
	unsigned int smem;	/* the most it uses: its tables and stage */
};

kernel_ref kernel_at(unsigned int i)
{
	const unsigned int v = i / KERNELS_PER_VARIANT;
	const unsigned int k = i % KERNELS_PER_VARIANT;
	const bool stage = k == 4;

	return { stage ? pick_stage(v) : pick(v, 1U << k, k == 3), stage,
		 gpu_aes_table_bytes(v, 1, 1) +
			 (stage ? GPU_AES_STAGE_SMEM : 0) };
}

/*
 * What CUDA says of the current device and of the code it would run
 * there, into @f; false with @why when it cannot say.
 */
bool device_facts(gpu_aes_dev_facts *f, char *why, size_t len)
{
	int dev, major, minor, optin;
	cudaFuncAttributes a;
	cudaError_t e;

	if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
					dev)) != cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
					dev)) != cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&optin,
					cudaDevAttrMaxSharedMemoryPerBlockOptin,
					dev)) != cudaSuccess) {
		snprintf(why, len, "cannot query the GPU: %s",
			 cudaGetErrorString(e));
		return false;
	}
	f->cc = 10 * major + minor;
	f->smem_optin = (unsigned int)optin;
	f->built = gpu_aes_kernel_archs;
	if (f->cc < GPU_AES_MIN_CC)
		return true;	/* too old: its code is not asked for */
	e = cudaFuncGetAttributes(&a, pick(0, 1, false));
	if (e == cudaErrorNoKernelImageForDevice ||
	    e == cudaErrorInvalidDeviceFunction) {
		(void)cudaGetLastError();
		return true;	/* no image */
	}
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		snprintf(why, len, "cannot load the kernels: %s",
			 cudaGetErrorString(e));
		return false;
	}
	f->image = 1;
	f->code_sm = a.binaryVersion;
	f->code_ptx = a.ptxVersion;
	for (unsigned int i = 0; i < NR_KERNELS; i++) {
		if ((e = cudaFuncGetAttributes(&a, kernel_at(i).fn)) !=
		    cudaSuccess) {
			snprintf(why, len, "cannot load the kernels: %s",
				 cudaGetErrorString(e));
			return false;
		}
		if (a.sharedSizeBytes > f->static_smem)
			f->static_smem = (unsigned int)a.sharedSizeBytes;
	}
	return true;
}

} /* namespace */

extern "C" int gpu_aes_kernel_init(const char *path_option,
				   struct gpu_aes_kernel_caps *caps)
{
	struct gpu_aes_tables t;
	struct gpu_aes_dev_facts f;
	struct gpu_aes_kernel_caps own;
	uint32_t host[3 * 256], xpow[129][4];
	int forced = gpu_aes_cuda_path_forced(path_option);

	if (!caps)
		caps = &own;
	memset(&f, 0, sizeof(f));
	memset(caps, 0, sizeof(*caps));
	if (forced < 0) {
		snprintf(caps->why, sizeof(caps->why),
			 "the code path asked for is '%s', not auto or portable",
			 path_option ? path_option : getenv("GPU_AES_CUDA_PATH"));
		return -1;
	}
	f.force_portable = forced;
	if (!device_facts(&f, caps->why, sizeof(caps->why)) ||
	    gpu_aes_path_choose(&f, caps) == GPU_AES_PATH_NONE)
		return -1;
	gpu_aes_make_tables(&t);
	for (int i = 0; i < 256; i++) {
		host[i] = t.te0[i];
		host[256 + i] = t.td0[i];
		host[512 + i] = t.td4[i];
	}
	if (cudaMemcpyToSymbol(g_tables, host, sizeof(host)) != cudaSuccess)
		goto cuda_failed;
	gpu_aes_xts_xpow(xpow);
	if (cudaMemcpyToSymbol(c_xpow, xpow, sizeof(xpow)) != cudaSuccess)
		goto cuda_failed;
	/* what a launch may take: its tables' size, up to the GPU's limit */
	for (unsigned int i = 0; i < NR_KERNELS; i++) {
		const kernel_ref k = kernel_at(i);

		if (k.stage && caps->path != GPU_AES_PATH_TMA)
			continue;	/* never launched */
		if (cudaFuncSetAttribute(k.fn,
					 cudaFuncAttributeMaxDynamicSharedMemorySize,
					 (int)(k.smem < caps->smem_max ?
					       k.smem : caps->smem_max)) !=
		    cudaSuccess)
			goto cuda_failed;
	}
	return 0;
cuda_failed:
	snprintf(caps->why, sizeof(caps->why), "cannot set up the kernels: %s",
		 cudaGetErrorString(cudaGetLastError()));
	caps->path = GPU_AES_PATH_NONE;
	return -1;
}

extern "C" int gpu_aes_kernel_launch(const struct gpu_aes_launch *l,
				     cudaStream_t stream)
{
	const struct gpu_aes_kernel_caps *caps = l->caps;
	uint32_t nenc = l->nenc, ndec = l->nchunks - l->nenc;
	uint32_t grid = l->max_ctas, enc_ctas;

	if (l->nchunks == 0)
		return 0;
	if (!caps || caps->path == GPU_AES_PATH_NONE)
		return -1;
	/*
	 * fill_tables() loads each warp's entries at once for these, and
	 * serial_chain() deals whole sets of SERIAL_WARPS warps: another
	 * count would leave chains unrun.
	 */
	if (l->shape.threads < GPU_AES_MIN_THREADS || l->shape.threads > 512 ||
	    l->shape.threads % (32 * SERIAL_WARPS))
		return -1;
	/* Only the EXT build runs serial chunks: refuse, not skip them. */
	if (l->nser > nenc || (l->nser && !l->ext))
		return -1;
	if ((l->ghash_out && !l->ghash) ||
	    ((l->ghash_out || l->done) && !l->ticket))
		return -1;
	if (grid > l->nchunks)
		grid = l->nchunks;
	if (ndec == 0) {
		enc_ctas = grid;
	} else if (nenc == 0) {
		enc_ctas = 0;
	} else {
		if (grid < 2)
			grid = 2;
		/* CTAs in proportion to chunks, at least one per class. */
		enc_ctas = (uint32_t)((uint64_t)grid * nenc / l->nchunks);
		if (enc_ctas == 0)
			enc_ctas = 1;
		if (enc_ctas == grid)
			enc_ctas = grid - 1;
	}
	const unsigned int v = gpu_aes_launch_variant(caps, l->shape.variant,
						      nenc != 0, ndec != 0);
	const bool stage = l->stage && l->ext && nenc != 0 &&
			   gpu_aes_launch_stages(caps, v, nenc != 0, ndec != 0);
	const kfn fn = stage ? pick_stage(v) :
			       pick(v, l->shape.bpt, l->ext != 0);

	fn<<<grid, l->shape.threads,
	     gpu_aes_table_bytes(v, nenc != 0, ndec != 0) +
		     (stage ? GPU_AES_STAGE_SMEM : 0), stream>>>(
		l->base, l->segs, l->chunks, nenc, l->nser, ndec, enc_ctas,
		l->keys, l->ghash, l->ghash_out, l->ghash_words, l->ticket,
		l->done, l->done_value, l->inl);
	return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
