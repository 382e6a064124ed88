// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel_check - the batch kernel alone, every launch shape, against
 * OpenSSL: random mixed batches (alg, direction, key size, counters that
 * carry across 2^32/2^64/2^128, partial CTR blocks), output poisoned first.
 * Usage: kernel_check [rounds] [max_seg_bytes] | --probe
 */
#include "../../helper/cuda/aes_gpu.h"
#include "../../helper/cuda/aes_kernel.h"
#include "ref.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, \
		cudaGetErrorString(e_)); exit(2); } } while (0)

struct tkey {
	uint8_t key[32];
	unsigned int len;
};

static void pick_iv(struct rng *r, uint8_t iv[16])
{
	uint64_t hi = rng_next(r), lo = rng_next(r);

	switch (rng_next(r) % 5) {
	case 0: /* low word about to carry across 2^32 */
		lo = (lo & ~0xffffffffULL) | (0xffffffffULL - rng_next(r) % 300);
		break;
	case 1: /* across 2^64 */
		lo = ~0ULL - rng_next(r) % 300;
		break;
	case 2: /* across 2^128: wraps to 0 */
		hi = ~0ULL;
		lo = ~0ULL - rng_next(r) % 300;
		break;
	default:
		break;
	}
	gpu_aes_ctr_store(hi, lo, iv);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	uint32_t maxlen = argc > 2 ? (uint32_t)atoi(argv[2]) : (1U << 20);
	struct rng r;
	int sms, passed = 0, failed = 0;
	const unsigned int nkeys = 12;
	std::vector<tkey> keys(nkeys);
	std::vector<gpu_aes_dev_key> dkeys(nkeys);
	gpu_aes_dev_key *d_keys;

	if (argc > 1 && !strcmp(argv[1], "--probe")) {
		int n = 0;

		return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 ? 0 : 1;
	}
	rng_seed(&r, 0x5eed);
	CK(cudaSetDevice(0));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	if (gpu_aes_kernel_init()) {
		fprintf(stderr, "kernel init failed\n");
		return 2;
	}
	for (unsigned int k = 0; k < nkeys; k++) {
		unsigned int nr;

		keys[k].len = 16 + 8 * (k % 3);
		rng_fill(&r, keys[k].key, 32);
		if (gpu_aes_dev_expand_key(keys[k].key, keys[k].len, &dkeys[k], &nr))
			return 2;
	}
	CK(cudaMalloc(&d_keys, nkeys * sizeof(gpu_aes_dev_key)));
	CK(cudaMemcpy(d_keys, dkeys.data(), nkeys * sizeof(gpu_aes_dev_key),
		      cudaMemcpyHostToDevice));

	for (int it = 0; it < rounds; it++) {
		unsigned int nsegs = 1 + rng_next(&r) % (it % 2 ? 40 : 6);
		std::vector<gpu_aes_kseg> segs(nsegs);
		std::vector<uint8_t> ivs(16 * nsegs);
		std::vector<int> algs(nsegs), dirs(nsegs);
		uint64_t total = 0;

		for (unsigned int i = 0; i < nsegs; i++) {
			unsigned int k = rng_next(&r) % nkeys;
			uint32_t len = 1 + rng_next(&r) % (rng_next(&r) % 4 ?
					4096 : maxlen);

			algs[i] = rng_next(&r) % 2 ? 2 : 1;
			dirs[i] = rng_next(&r) % 2;
			if (algs[i] == 1)
				len = (len + 15) & ~15U;
			segs[i].off = total;
			segs[i].len = len;
			segs[i].key = (uint16_t)k;
			segs[i].rounds = (uint8_t)(keys[k].len / 4 + 6);
			segs[i].op = algs[i] == 2 ? GPU_AES_KOP_CTR :
				     dirs[i] ? GPU_AES_KOP_ECB_DEC :
					       GPU_AES_KOP_ECB_ENC;
			pick_iv(&r, &ivs[16 * i]);
			gpu_aes_ctr_load(&ivs[16 * i], &segs[i].ctr_hi,
					 &segs[i].ctr_lo);
			total += (len + 63) & ~63U;
		}
		std::vector<uint8_t> in(total), want(total), got(total);
		rng_fill(&r, in.data(), total);
		for (unsigned int i = 0; i < nsegs; i++)
			if (ref_crypt(algs[i], dirs[i], keys[segs[i].key].key,
				      keys[segs[i].key].len, &ivs[16 * i],
				      &in[segs[i].off], &want[segs[i].off],
				      segs[i].len))
				return 2;
		/* Every chunk size the backend can pick, and odd ones. */
		static const uint32_t csz[] = { 256, 512, 1024, 4096, 768 };
		uint32_t chunk = csz[it % 5];
		size_t nch = gpu_aes_count_chunks(segs.data(), nsegs, chunk);
		std::vector<gpu_aes_kchunk> ch(nch);
		size_t nenc = gpu_aes_build_chunks(segs.data(), nsegs, chunk,
						   ch.data());
		uint8_t *d_data;
		gpu_aes_kseg *d_segs;
		gpu_aes_kchunk *d_ch;

		CK(cudaMalloc(&d_data, total));
		CK(cudaMalloc(&d_segs, nsegs * sizeof(gpu_aes_kseg)));
		CK(cudaMalloc(&d_ch, nch * sizeof(gpu_aes_kchunk)));
		CK(cudaMemcpy(d_segs, segs.data(), nsegs * sizeof(gpu_aes_kseg),
			      cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_ch, ch.data(), nch * sizeof(gpu_aes_kchunk),
			      cudaMemcpyHostToDevice));
		bool fits = nsegs <= GPU_AES_INLINE_MAX &&
			    nch <= GPU_AES_INLINE_MAX;
		for (int inl = 0; inl <= (fits ? 1 : 0); inl++)
		for (unsigned int v = 0; v < GPU_AES_NR_VARIANTS; v++)
		for (unsigned int b = 1; b <= 4; b *= 2)
		for (unsigned int t = 128; t <= 512; t *= 2) {
			gpu_aes_launch l;

			memset(&l, 0, sizeof(l));
			l.base = d_data;
			l.segs = inl ? nullptr : d_segs;
			l.chunks = inl ? nullptr : d_ch;
			if (inl) {
				memcpy(l.inl.segs, segs.data(),
				       nsegs * sizeof(gpu_aes_kseg));
				memcpy(l.inl.chunks, ch.data(),
				       nch * sizeof(gpu_aes_kchunk));
			}
			l.keys = d_keys;
			l.nchunks = (uint32_t)nch;
			l.nenc = (uint32_t)nenc;
			l.max_ctas = (uint32_t)sms * (v ? 1 : 2);
			l.shape.variant = v;
			l.shape.threads = t;
			l.shape.bpt = b;
			l.shape.ctas_per_sm = v ? 1 : 2;
			CK(cudaMemcpy(d_data, in.data(), total,
				      cudaMemcpyHostToDevice));
			memset(got.data(), 0xa5, total);
			if (gpu_aes_kernel_launch(&l, 0)) {
				fprintf(stderr, "launch refused v%u b%u t%u: %s\n",
					v, b, t, cudaGetErrorString(cudaGetLastError()));
				failed++;
				continue;
			}
			CK(cudaDeviceSynchronize());
			CK(cudaMemcpy(got.data(), d_data, total,
				      cudaMemcpyDeviceToHost));
			bool ok = true;
			for (unsigned int i = 0; i < nsegs && ok; i++)
				if (memcmp(&got[segs[i].off], &want[segs[i].off],
					   segs[i].len)) {
					fprintf(stderr,
						"FAIL it %d seg %u op %u len %u rounds %u v%u b%u t%u\n",
						it, i, segs[i].op, segs[i].len,
						segs[i].rounds, v, b, t);
					ok = false;
				}
			if (ok)
				passed++;
			else
				failed++;
		}
		CK(cudaFree(d_data));
		CK(cudaFree(d_segs));
		CK(cudaFree(d_ch));
	}
	CK(cudaMemset(d_keys, 0, nkeys * sizeof(gpu_aes_dev_key)));
	CK(cudaFree(d_keys));
	printf("kernel_check: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
