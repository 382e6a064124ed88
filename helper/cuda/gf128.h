/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gf128.h - GF(2^128) arithmetic shared by the kernel (XTS tweaks, GHASH)
 * and the host (chunk tweaks, GHASH key powers), compiled for both so the
 * host unit tests check the very code the GPU runs.
 *
 * Elements are four 32-bit limbs, limb k holding the coefficients of
 * x^(32k) .. x^(32k+31) (bit i of the 128-bit integer = coefficient of
 * x^i), modulo x^128 + x^7 + x^2 + x + 1.  That is IEEE 1619's XTS
 * convention as it is (a tweak loaded as four little-endian words); GCM's
 * bit-reflected blocks are converted with gf128_from_gcm/gf128_to_gcm.
 *
 * The carry-less products use integer multiplications of operands with
 * holes (BearSSL's ghash_ctmul32 idea): each operand is split into four
 * classes of bits 4 apart, so in a 32x32 product a result bit collects at
 * most 8 one-bit products, a sum below 16 that cannot carry into the next
 * bit of its own class.  GPUs have no carry-less multiply instruction, and
 * this keeps GHASH on the integer pipe instead of the shared-memory lookups
 * AES already saturates (NOTES.md).  No branch or lookup depends on data.
 */
#ifndef GPU_AES_CUDA_GF128_H
#define GPU_AES_CUDA_GF128_H

#include <stdint.h>

#ifdef __CUDACC__
#define GF_HD __host__ __device__ __forceinline__
#else
#define GF_HD static inline
#endif

/*
 * Multiplication by a constant (GHASH's Horner step by a fixed power of H):
 * the constant's share of the work below, its 9 Karatsuba pieces each
 * split into the four bit classes, is done once per key (36 words), which
 * removes about a sixth of the integer logic of every product; the
 * multiplies themselves issue on the FMA pipe, the logic on the ALU pipe
 * that AES's PRMT/LOP3 also use (NOTES.md, experiment X4).
 */
struct gf128_pre {
	uint32_t m[9][4];
};

GF_HD void gf_split4(uint32_t b, uint32_t m[4])
{
	m[0] = b & 0x11111111U;
	m[1] = b & 0x22222222U;
	m[2] = b & 0x44444444U;
	m[3] = b & 0x88888888U;
}

/* 32x32 -> 64 carry-less, b already split by gf_split4(). */
GF_HD uint64_t gf_clmul32_pre(uint32_t a, const uint32_t b[4])
{
	uint64_t a0 = a & 0x11111111U, a1 = a & 0x22222222U;
	uint64_t a2 = a & 0x44444444U, a3 = a & 0x88888888U;
	uint64_t b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
	uint64_t z0 = (a0 * b0) ^ (a1 * b3) ^ (a2 * b2) ^ (a3 * b1);
	uint64_t z1 = (a0 * b1) ^ (a1 * b0) ^ (a2 * b3) ^ (a3 * b2);
	uint64_t z2 = (a0 * b2) ^ (a1 * b1) ^ (a2 * b0) ^ (a3 * b3);
	uint64_t z3 = (a0 * b3) ^ (a1 * b2) ^ (a2 * b1) ^ (a3 * b0);

	return (z0 & 0x1111111111111111ULL) | (z1 & 0x2222222222222222ULL) |
	       (z2 & 0x4444444444444444ULL) | (z3 & 0x8888888888888888ULL);
}

/*
 * 32x32 -> 64 carry-less.  Not written as gf_split4() + gf_clmul32_pre():
 * that form compiles the GCM kernel to different code, and the figures in
 * docs/performance.md are for this one.
 */
GF_HD uint64_t gf_clmul32(uint32_t a, uint32_t b)
{
	uint64_t a0 = a & 0x11111111U, a1 = a & 0x22222222U;
	uint64_t a2 = a & 0x44444444U, a3 = a & 0x88888888U;
	uint64_t b0 = b & 0x11111111U, b1 = b & 0x22222222U;
	uint64_t b2 = b & 0x44444444U, b3 = b & 0x88888888U;
	uint64_t z0 = (a0 * b0) ^ (a1 * b3) ^ (a2 * b2) ^ (a3 * b1);
	uint64_t z1 = (a0 * b1) ^ (a1 * b0) ^ (a2 * b3) ^ (a3 * b2);
	uint64_t z2 = (a0 * b2) ^ (a1 * b1) ^ (a2 * b0) ^ (a3 * b3);
	uint64_t z3 = (a0 * b3) ^ (a1 * b2) ^ (a2 * b1) ^ (a3 * b0);

	return (z0 & 0x1111111111111111ULL) | (z1 & 0x2222222222222222ULL) |
	       (z2 & 0x4444444444444444ULL) | (z3 & 0x8888888888888888ULL);
}

/* 64x64 -> 128 carry-less (Karatsuba over 32-bit halves). */
GF_HD void gf_clmul64(uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
	uint32_t a0 = (uint32_t)a, a1 = (uint32_t)(a >> 32);
	uint32_t b0 = (uint32_t)b, b1 = (uint32_t)(b >> 32);
	uint64_t l = gf_clmul32(a0, b0), h = gf_clmul32(a1, b1);
	uint64_t m = gf_clmul32(a0 ^ a1, b0 ^ b1) ^ l ^ h;

	*lo = l ^ (m << 32);
	*hi = h ^ (m >> 32);
}

/*
 * r = the 256-bit product l0 + p1 x^64 + p2 x^128 + h1 x^192 modulo
 * x^128 + x^7 + x^2 + x + 1: fold the high half, then its overflow.
 */
GF_HD void gf128_reduce(uint64_t l0, uint64_t p1, uint64_t p2, uint64_t h1,
			uint32_t r[4])
{
	uint64_t t = (h1 >> 63) ^ (h1 >> 62) ^ (h1 >> 57);
	uint64_t r0 = l0 ^ p2 ^ (p2 << 1) ^ (p2 << 2) ^ (p2 << 7);
	uint64_t r1 = p1 ^ h1 ^ (h1 << 1 | p2 >> 63) ^ (h1 << 2 | p2 >> 62) ^
		      (h1 << 7 | p2 >> 57);

	r0 ^= t ^ (t << 1) ^ (t << 2) ^ (t << 7);
	r[0] = (uint32_t)r0;
	r[1] = (uint32_t)(r0 >> 32);
	r[2] = (uint32_t)r1;
	r[3] = (uint32_t)(r1 >> 32);
}

/* r = a * b mod x^128 + x^7 + x^2 + x + 1; r may alias a or b. */
GF_HD void gf128_mul(const uint32_t a[4], const uint32_t b[4], uint32_t r[4])
{
	uint64_t a0 = a[0] | (uint64_t)a[1] << 32, a1 = a[2] | (uint64_t)a[3] << 32;
	uint64_t b0 = b[0] | (uint64_t)b[1] << 32, b1 = b[2] | (uint64_t)b[3] << 32;
	uint64_t l0, l1, h0, h1, m0, m1;

	gf_clmul64(a0, b0, &l0, &l1);
	gf_clmul64(a1, b1, &h0, &h1);
	gf_clmul64(a0 ^ a1, b0 ^ b1, &m0, &m1);
	m0 ^= l0 ^ h0;
	m1 ^= l1 ^ h1;
	gf128_reduce(l0, l1 ^ m0, h0 ^ m1, h1, r);
}

GF_HD void gf128_precompute(const uint32_t b[4], struct gf128_pre *p)
{
	const uint32_t m0 = b[0] ^ b[2], m1 = b[1] ^ b[3];

	gf_split4(b[0], p->m[0]);
	gf_split4(b[1], p->m[1]);
	gf_split4(b[0] ^ b[1], p->m[2]);
	gf_split4(b[2], p->m[3]);
	gf_split4(b[3], p->m[4]);
	gf_split4(b[2] ^ b[3], p->m[5]);
	gf_split4(m0, p->m[6]);
	gf_split4(m1, p->m[7]);
	gf_split4(m0 ^ m1, p->m[8]);
}

/* a times pieces i..i+2 of p (one 64-bit Karatsuba level). */
GF_HD void gf_clmul64_pre(uint64_t a, const struct gf128_pre *p,
			  unsigned int i, uint64_t *lo, uint64_t *hi)
{
	uint32_t a0 = (uint32_t)a, a1 = (uint32_t)(a >> 32);
	uint64_t l = gf_clmul32_pre(a0, p->m[i]);
	uint64_t h = gf_clmul32_pre(a1, p->m[i + 1]);
	uint64_t m = gf_clmul32_pre(a0 ^ a1, p->m[i + 2]) ^ l ^ h;

	*lo = l ^ (m << 32);
	*hi = h ^ (m >> 32);
}

/* r = a * b where p = gf128_precompute(b); r may alias a. */
GF_HD void gf128_mul_pre(const uint32_t a[4], const struct gf128_pre *p,
			 uint32_t r[4])
{
	uint64_t a0 = a[0] | (uint64_t)a[1] << 32, a1 = a[2] | (uint64_t)a[3] << 32;
	uint64_t l0, l1, h0, h1, m0, m1;

	gf_clmul64_pre(a0, p, 0, &l0, &l1);
	gf_clmul64_pre(a1, p, 3, &h0, &h1);
	gf_clmul64_pre(a0 ^ a1, p, 6, &m0, &m1);
	m0 ^= l0 ^ h0;
	m1 ^= l1 ^ h1;
	gf128_reduce(l0, l1 ^ m0, h0 ^ m1, h1, r);
}

/* w *= x^k for 1 <= k <= 32 (XTS: k doublings of the tweak). */
GF_HD void gf128_mulx_k(uint32_t w[4], unsigned int k)
{
	uint32_t c = (uint32_t)((uint64_t)w[3] >> (32 - k));
	uint64_t red;

	w[3] = (uint32_t)((((uint64_t)w[3] << 32) | w[2]) >> (32 - k));
	w[2] = (uint32_t)((((uint64_t)w[2] << 32) | w[1]) >> (32 - k));
	w[1] = (uint32_t)((((uint64_t)w[1] << 32) | w[0]) >> (32 - k));
	w[0] = (uint32_t)(((uint64_t)w[0] << 32) >> (32 - k));
	red = (uint64_t)c ^ ((uint64_t)c << 1) ^ ((uint64_t)c << 2) ^
	      ((uint64_t)c << 7);
	w[0] ^= (uint32_t)red;
	w[1] ^= (uint32_t)(red >> 32);
}

/* Reverses the bits of each byte: GCM's bit order <-> ours. */
GF_HD uint32_t gf_rev8(uint32_t w)
{
#ifdef __CUDA_ARCH__
	return __brev(__byte_perm(w, 0, 0x0123));
#else
	w = ((w >> 1) & 0x55555555U) | ((w & 0x55555555U) << 1);
	w = ((w >> 2) & 0x33333333U) | ((w & 0x33333333U) << 2);
	return ((w >> 4) & 0x0f0f0f0fU) | ((w & 0x0f0f0f0fU) << 4);
#endif
}

/*
 * A GCM block loaded as four little-endian words <-> an element: GCM puts
 * x^0 in the top bit of byte 0.
 */
GF_HD void gf128_from_gcm(const uint32_t in[4], uint32_t out[4])
{
	for (int i = 0; i < 4; i++)
		out[i] = gf_rev8(in[i]);
}

#define gf128_to_gcm gf128_from_gcm

#endif /* GPU_AES_CUDA_GF128_H */
