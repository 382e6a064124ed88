// SPDX-License-Identifier: GPL-2.0-only
/*
 * aes_kernel.cu - table-driven AES (ECB enc/dec, CTR; 128/192/256) over a
 * batch of segments, one launch per batch.
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
 * per 64 KiB chunk and reuses them for every block it encrypts there.
 * The last round takes S(x) from byte 1 of the T-table entry.
 */
#include "aes_gpu.h"
#include "aes_kernel.h"
#include "aes_tables.h"

#include <cuda_runtime.h>

namespace {

__device__ uint32_t g_tables[3 * 256];	/* te0, td0, td4 */

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
	static constexpr unsigned int enc_bytes = V ? 131072U : 65536U;
	static constexpr unsigned int dec_bytes = V ? 196608U : 65536U;
};

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

template <int V, int R, int B>
__device__ __forceinline__ void encrypt(const char *smb, uint32_t lane4,
					const uint32_t *rk, uint32_t (*s)[4])
{
	constexpr int NT = layout<V>::enc_tables;

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

template <int V, int OP, int R, int B>
__device__ void run_chunk(const char *smb, uint32_t lane4, uint8_t *base,
			  const gpu_aes_kseg &sg, const gpu_aes_kchunk &ch,
			  const gpu_aes_dev_key *keys)
{
	const uint32_t *src = OP == GPU_AES_KOP_ECB_DEC ? keys[sg.key].drk :
							  keys[sg.key].erk;
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
			if (OP == GPU_AES_KOP_CTR) {
				ctr_words(sg, bi, s[b]);
			} else {
				s[b][0] = in[b].x;
				s[b][1] = in[b].y;
				s[b][2] = in[b].z;
				s[b][3] = in[b].w;
			}
		}
		if (OP == GPU_AES_KOP_ECB_DEC)
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
			if (OP == GPU_AES_KOP_CTR) {
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
				/* CTR's partial last block, byte by byte. */
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

template <int V, int B>
__device__ void dispatch(const char *smb, uint32_t lane4, uint8_t *base,
			 const gpu_aes_kseg &sg, const gpu_aes_kchunk &ch,
			 const gpu_aes_dev_key *keys, bool dec)
{
	if (dec) {
		switch (sg.rounds) {
		case 10: run_chunk<V, GPU_AES_KOP_ECB_DEC, 10, B>(smb, lane4, base, sg, ch, keys); break;
		case 12: run_chunk<V, GPU_AES_KOP_ECB_DEC, 12, B>(smb, lane4, base, sg, ch, keys); break;
		default: run_chunk<V, GPU_AES_KOP_ECB_DEC, 14, B>(smb, lane4, base, sg, ch, keys); break;
		}
	} else if (sg.op == GPU_AES_KOP_CTR) {
		switch (sg.rounds) {
		case 10: run_chunk<V, GPU_AES_KOP_CTR, 10, B>(smb, lane4, base, sg, ch, keys); break;
		case 12: run_chunk<V, GPU_AES_KOP_CTR, 12, B>(smb, lane4, base, sg, ch, keys); break;
		default: run_chunk<V, GPU_AES_KOP_CTR, 14, B>(smb, lane4, base, sg, ch, keys); break;
		}
	} else {
		switch (sg.rounds) {
		case 10: run_chunk<V, GPU_AES_KOP_ECB_ENC, 10, B>(smb, lane4, base, sg, ch, keys); break;
		case 12: run_chunk<V, GPU_AES_KOP_ECB_ENC, 12, B>(smb, lane4, base, sg, ch, keys); break;
		default: run_chunk<V, GPU_AES_KOP_ECB_ENC, 14, B>(smb, lane4, base, sg, ch, keys); break;
		}
	}
}

/*
 * Each warp owns whole entries: lane l writes copy l, so a warp's stores
 * hit 32 banks.  The entries' global loads are issued 8 at a time so their
 * L2 latency overlaps (a serial loop cost ~8 us per launch, NOTES.md).
 */
template <int V>
__device__ void fill_tables(uint32_t *sm, bool dec)
{
	const uint32_t *t0 = g_tables + (dec ? 256 : 0);
	const int nt = dec ? layout<V>::dec_tables : layout<V>::enc_tables;
	const unsigned int l = threadIdx.x & 31, nw = blockDim.x >> 5;

	for (unsigned int e0 = threadIdx.x >> 5; e0 < 256; e0 += 8 * nw) {
		uint32_t v[8], v4[8];

#pragma unroll
		for (int k = 0; k < 8; k++) {
			unsigned int e = e0 + k * nw;

			v[k] = e < 256 ? __ldg(t0 + e) : 0;
			v4[k] = dec && e < 256 ? __ldg(g_tables + 512 + e) : 0;
		}
#pragma unroll
		for (int k = 0; k < 8; k++) {
			unsigned int e = e0 + k * nw;

			if (e >= 256)
				break;
			for (int t = 0; t < nt; t++)
				sm[(tbase(t) + e * 256 + l * 4) / 4] =
					rotl(v[k], t);
			if (dec)
				sm[(layout<V>::td4 + e * 256 + l * 4) / 4] =
					v4[k];
		}
	}
	__syncthreads();
}

template <int V, int B>
__global__ void __launch_bounds__(512)
aes_batch(uint8_t *base, const gpu_aes_kseg *segs,
	  const gpu_aes_kchunk *chunks, uint32_t nenc, uint32_t ndec,
	  uint32_t enc_ctas, const gpu_aes_dev_key *keys,
	  const __grid_constant__ gpu_aes_inline inl)
{
	extern __shared__ uint4 smem_raw[];
	uint32_t *sm = reinterpret_cast<uint32_t *>(smem_raw);
	const char *smb = reinterpret_cast<const char *>(smem_raw);
	const bool dec = blockIdx.x >= enc_ctas;
	const uint32_t lane4 = (threadIdx.x & 31) * 4;
	uint32_t first, n, stride;

	if (dec) {
		first = nenc + (blockIdx.x - enc_ctas);
		n = nenc + ndec;
		stride = gridDim.x - enc_ctas;
	} else {
		first = blockIdx.x;
		n = nenc;
		stride = enc_ctas;
	}
	if (first >= n)
		return;
	fill_tables<V>(sm, dec);
	for (uint32_t c = first; c < n; c += stride) {
		const gpu_aes_kchunk ch = chunks ? chunks[c] : inl.chunks[c];
		const gpu_aes_kseg sg = chunks ? segs[ch.seg] : inl.segs[ch.seg];

		dispatch<V, B>(smb, lane4, base, sg, ch, keys, dec);
	}
}

typedef void (*kfn)(uint8_t *, const gpu_aes_kseg *, const gpu_aes_kchunk *,
		    uint32_t, uint32_t, uint32_t, const gpu_aes_dev_key *,
		    const gpu_aes_inline);

kfn pick(unsigned int variant, unsigned int bpt)
{
	static const kfn fns[2][3] = {
		{ aes_batch<0, 1>, aes_batch<0, 2>, aes_batch<0, 4> },
		{ aes_batch<1, 1>, aes_batch<1, 2>, aes_batch<1, 4> },
	};
	unsigned int b = bpt == 4 ? 2 : bpt == 2 ? 1 : 0;

	return fns[variant ? 1 : 0][b];
}

unsigned int smem_bytes(unsigned int variant, bool enc, bool dec)
{
	unsigned int e = variant ? layout<1>::enc_bytes : layout<0>::enc_bytes;
	unsigned int d = variant ? layout<1>::dec_bytes : layout<0>::dec_bytes;

	return dec ? (enc && e > d ? e : d) : e;
}

} /* namespace */

extern "C" int gpu_aes_kernel_init(void)
{
	struct gpu_aes_tables t;
	uint32_t host[3 * 256];

	gpu_aes_make_tables(&t);
	for (int i = 0; i < 256; i++) {
		host[i] = t.te0[i];
		host[256 + i] = t.td0[i];
		host[512 + i] = t.td4[i];
	}
	if (cudaMemcpyToSymbol(g_tables, host, sizeof(host)) != cudaSuccess)
		return -1;
	for (unsigned int v = 0; v < GPU_AES_NR_VARIANTS; v++)
		for (unsigned int b = 1; b <= 4; b *= 2)
			if (cudaFuncSetAttribute(
				    pick(v, b),
				    cudaFuncAttributeMaxDynamicSharedMemorySize,
				    (int)smem_bytes(v, true, true)) != cudaSuccess)
				return -1;
	return 0;
}

extern "C" unsigned int gpu_aes_kernel_smem(unsigned int variant, int enc,
					    int dec)
{
	return smem_bytes(variant, enc, dec);
}

extern "C" int gpu_aes_kernel_launch(const struct gpu_aes_launch *l,
				     cudaStream_t stream)
{
	uint32_t nenc = l->nenc, ndec = l->nchunks - l->nenc;
	uint32_t grid = l->max_ctas, enc_ctas;

	if (l->nchunks == 0)
		return 0;
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
	pick(l->shape.variant, l->shape.bpt)<<<grid, l->shape.threads,
		smem_bytes(l->shape.variant, nenc != 0, ndec != 0), stream>>>(
		l->base, l->segs, l->chunks, nenc, ndec, enc_ctas, l->keys,
		l->inl);
	return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
