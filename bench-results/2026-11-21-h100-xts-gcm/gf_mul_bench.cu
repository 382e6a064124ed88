// microbenchmark: GF(2^128) multiplies per second, two implementations
/*
 * gf_mul_bench.cu - experiment (helper/cuda/NOTES.md, XTS and GCM): GF(2^128)
 * multiplies per second on the GPU, gf128.h's gf128_mul (9 products of
 * 32x32->64 IMAD.WIDE) against a variant from 18 low-half products with
 * 32-bit IMAD only (the high half as the reversed low half of the
 * reversed operands).  Build from the repository root:
 *   nvcc -O3 -arch=sm_90 -Ihelper/cuda -o gfmb bench-results/2026-11-21-h100-xts-gcm/gf_mul_bench.cu
 */
#include "gf128.h"

GF_HD uint32_t gf_rev32(uint32_t w)
{
#ifdef __CUDA_ARCH__
	return __brev(w);
#else
	w = ((w >> 1) & 0x55555555U) | ((w & 0x55555555U) << 1);
	w = ((w >> 2) & 0x33333333U) | ((w & 0x33333333U) << 2);
	w = ((w >> 4) & 0x0f0f0f0fU) | ((w & 0x0f0f0f0fU) << 4);
	w = ((w >> 8) & 0x00ff00ffU) | ((w & 0x00ff00ffU) << 8);
	return (w >> 16) | (w << 16);
#endif
}

/* Low 32 bits of a 32x32 carry-less product, 32-bit multiplies only. */
GF_HD uint32_t gf_bmul32(uint32_t a, uint32_t b)
{
	uint32_t a0 = a & 0x11111111U, a1 = a & 0x22222222U;
	uint32_t a2 = a & 0x44444444U, a3 = a & 0x88888888U;
	uint32_t b0 = b & 0x11111111U, b1 = b & 0x22222222U;
	uint32_t b2 = b & 0x44444444U, b3 = b & 0x88888888U;
	uint32_t z0 = (a0 * b0) ^ (a1 * b3) ^ (a2 * b2) ^ (a3 * b1);
	uint32_t z1 = (a0 * b1) ^ (a1 * b0) ^ (a2 * b3) ^ (a3 * b2);
	uint32_t z2 = (a0 * b2) ^ (a1 * b1) ^ (a2 * b0) ^ (a3 * b3);
	uint32_t z3 = (a0 * b3) ^ (a1 * b2) ^ (a2 * b1) ^ (a3 * b0);

	return (z0 & 0x11111111U) | (z1 & 0x22222222U) |
	       (z2 & 0x44444444U) | (z3 & 0x88888888U);
}

/*
 * r = a * b like gf128_mul, from 18 low-half products (the high half of
 * a 32x32 product is the reversed low half of the reversed operands',
 * shifted by one) instead of 9 full ones: 32-bit multiplies instead of
 * 32x32->64 ones.
 */
GF_HD void gf128_mul_lo(const uint32_t a[4], const uint32_t b[4],
			uint32_t r[4])
{
	uint32_t x[9], y[9], xr[9], yr[9], lo[9], hi[9];

	/* Karatsuba operands: 0,1,0^1 | 2,3,2^3 | 0^2,1^3,0^1^2^3 */
	x[0] = a[0]; x[1] = a[1]; x[3] = a[2]; x[4] = a[3];
	y[0] = b[0]; y[1] = b[1]; y[3] = b[2]; y[4] = b[3];
	x[6] = x[0] ^ x[3]; x[7] = x[1] ^ x[4];
	y[6] = y[0] ^ y[3]; y[7] = y[1] ^ y[4];
	for (int i = 0; i < 9; i += 3) {
		x[i + 2] = x[i] ^ x[i + 1];
		y[i + 2] = y[i] ^ y[i + 1];
	}
	for (int i = 0; i < 9; i++) {
		xr[i] = gf_rev32(x[i]);
		yr[i] = gf_rev32(y[i]);
	}
	for (int i = 0; i < 9; i++) {
		lo[i] = gf_bmul32(x[i], y[i]);
		hi[i] = gf_rev32(gf_bmul32(xr[i], yr[i])) >> 1;
	}
	/* three 64x64 products (lo word, hi word pairs) */
	uint64_t q[3][2];

	for (int k = 0; k < 3; k++) {
		uint64_t l = lo[3 * k] | (uint64_t)hi[3 * k] << 32;
		uint64_t h = lo[3 * k + 1] | (uint64_t)hi[3 * k + 1] << 32;
		uint64_t m = (lo[3 * k + 2] | (uint64_t)hi[3 * k + 2] << 32) ^ l ^ h;

		q[k][0] = l ^ (m << 32);
		q[k][1] = h ^ (m >> 32);
	}
	uint64_t l0 = q[0][0], l1 = q[0][1], h0 = q[1][0], h1 = q[1][1];
	uint64_t m0 = q[2][0] ^ l0 ^ h0, m1 = q[2][1] ^ l1 ^ h1;
	uint64_t p1 = l1 ^ m0, p2 = h0 ^ m1, t, r0, r1;

	t = (h1 >> 63) ^ (h1 >> 62) ^ (h1 >> 57);
	r0 = l0 ^ p2 ^ (p2 << 1) ^ (p2 << 2) ^ (p2 << 7);
	r1 = p1 ^ h1 ^ (h1 << 1 | p2 >> 63) ^ (h1 << 2 | p2 >> 62) ^
	     (h1 << 7 | p2 >> 57);
	r0 ^= t ^ (t << 1) ^ (t << 2) ^ (t << 7);
	r[0] = (uint32_t)r0;
	r[1] = (uint32_t)(r0 >> 32);
	r[2] = (uint32_t)r1;
	r[3] = (uint32_t)(r1 >> 32);
}

#include <cstdio>
#include <cstring>
template <int V>
__global__ void k(uint32_t *p, const uint32_t *c, int n)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t y[4] = { p[4 * t], p[4 * t + 1], p[4 * t + 2], p[4 * t + 3] };
	uint32_t h[4] = { c[0], c[1], c[2], c[3] };
#pragma unroll 1
	for (int i = 0; i < n; i++) {
		if (V)
			gf128_mul_lo(y, h, y);
		else
			gf128_mul(y, h, y);
		y[0] ^= i;
	}
	p[4 * t] = y[0]; p[4 * t + 1] = y[1]; p[4 * t + 2] = y[2]; p[4 * t + 3] = y[3];
}
int main()
{
	const int blocks = 132 * 8, thr = 256, n = 4096;
	uint32_t *p, *c, out[2][4];
	cudaMalloc(&p, blocks * thr * 16);
	cudaMalloc(&c, 16);
	cudaMemset(p, 0x5a, blocks * thr * 16);
	cudaMemset(c, 0xc3, 16);
	cudaEvent_t a, b;
	cudaEventCreate(&a); cudaEventCreate(&b);
	for (int v = 0; v < 2; v++) {
		float best = 1e9;
		for (int rep = 0; rep < 5; rep++) {
			cudaMemset(p, 0x5a, blocks * thr * 16);
			cudaEventRecord(a);
			if (v) k<1><<<blocks, thr>>>(p, c, n); else k<0><<<blocks, thr>>>(p, c, n);
			cudaEventRecord(b);
			cudaEventSynchronize(b);
			float ms; cudaEventElapsedTime(&ms, a, b);
			if (ms < best) best = ms;
		}
		cudaMemcpy(out[v], p, 16, cudaMemcpyDeviceToHost);
		double muls = (double)blocks * thr * n;
		printf("variant %d (%s): %.1f Gmul/s = %.1f GB/s of GHASH, err %s\n", v,
		       v ? "32-bit IMAD, 18 half products" : "IMAD.WIDE, 9 products",
		       muls / best / 1e6, muls * 16 / best / 1e6,
		       cudaGetErrorString(cudaGetLastError()));
	}
	printf("same result: %d\n", !memcmp(out[0], out[1], 16));
	return 0;
}
