// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel_check - the batch kernel alone, every launch shape, against
 * OpenSSL: random mixed batches of every mode of the table (direction,
 * key size, counters that carry across 2^32/2^64/2^128, partial CTR and
 * XCTR blocks, XTS ciphertext stealing and equal key halves, GCM with 0..64
 * KiB of AAD and empty texts, CBC requests that continue the one before
 * them in memory, IV = its last ciphertext block), output poisoned first.
 * Every fourth round is hundreds of short requests, so CBC encryption
 * runs on many threads of many CTAs and its chains differ in length.
 * XTS is checked against OpenSSL's XTS for 128/256-bit keys and against
 * XTS composed from OpenSSL's AES-ECB otherwise; GCM texts and full
 * 16-byte tags against OpenSSL's GCM (decryption: the tag the kernel
 * computes must be the one encryption gave); CBC against OpenSSL's CBC;
 * XCTR, which OpenSSL lacks, against ref.c's over OpenSSL's ECB.
 * Usage: kernel_check [rounds] [max_seg_bytes] | --probe
 */
#include "../../helper/cuda/aes_gpu.h"
#include "../../helper/cuda/aes_kernel.h"
#include "../../uapi/gpu_aes.h"
#include "ref.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, \
		cudaGetErrorString(e_)); exit(2); } } while (0)

struct tkey {
	uint8_t key[32];
	uint8_t tkey[32];	/* XTS tweak key */
	unsigned int len;
};

static bool is_gcm(const gpu_aes_kseg &k)
{
	return gpu_aes_kop_has(k.op, GPU_AES_KOPF_GHASH);
}

static void words(const uint8_t *b, uint32_t w[4])
{
	for (int i = 0; i < 4; i++)
		w[i] = b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
		       (uint32_t)b[4 * i + 2] << 16 |
		       (uint32_t)b[4 * i + 3] << 24;
}

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
	gpu_aes_kernel_caps caps;

	if (argc > 1 && !strcmp(argv[1], "--probe")) {
		int n = 0;

		if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1)
			return 1;
		CK(cudaSetDevice(0));
		if (gpu_aes_kernel_init(NULL, &caps)) {
			printf("kernel_check: GPU 0 cannot run the kernels: %s\n",
			       caps.why);
			return 1;
		}
		return 0;
	}
	rng_seed(&r, 0x5eed);
	CK(cudaSetDevice(0));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	{
		struct timespec t0, t1;
		cudaDeviceProp p;
		char code[64];

		CK(cudaGetDeviceProperties(&p, 0));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (gpu_aes_kernel_init(NULL, &caps)) {
			fprintf(stderr, "kernel init failed: %s\n", caps.why);
			return 2;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		gpu_aes_code_name(&caps, code, sizeof(code));
		/* the gpu-check of each path greps this line */
		printf("kernel_check: %s, compute capability %d.%d: %s path%s%s%s, code %s, kernels loaded in %.1f s\n",
		       p.name, p.major, p.minor, gpu_aes_path_name(caps.path),
		       caps.why[0] ? " (" : "", caps.why,
		       caps.why[0] ? ")" : "", code,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		for (unsigned int v = 0; v < GPU_AES_NR_VARIANTS; v++)
			if (gpu_aes_launch_variant(&caps, v, 1, 0) != v)
				printf("kernel_check: variant %u's tables do not fit this GPU: its shapes are skipped\n",
				       v);
	}
	for (unsigned int k = 0; k < nkeys; k++) {
		unsigned int nr;

		uint8_t zero[16] = { 0 }, h[16];

		keys[k].len = 16 + 8 * (k % 3);
		rng_fill(&r, keys[k].key, 32);
		rng_fill(&r, keys[k].tkey, 32);
		if (k >= 9)	/* equal halves: a non-FIPS kernel takes them */
			memcpy(keys[k].tkey, keys[k].key, 32);
		if (gpu_aes_dev_expand_key(keys[k].key, keys[k].len, &dkeys[k], &nr) ||
		    ref_block(keys[k].key, keys[k].len, zero, h))
			return 2;
		gpu_aes_gcm_powers(h, &dkeys[k]);
	}
	CK(cudaMalloc(&d_keys, nkeys * sizeof(gpu_aes_dev_key)));
	CK(cudaMemcpy(d_keys, dkeys.data(), nkeys * sizeof(gpu_aes_dev_key),
		      cudaMemcpyHostToDevice));

	for (int it = 0; it < rounds; it++) {
		const bool many = it % 4 == 3;
		/*
		 * A lone request of at most 4 KiB: one chunk, so one CTA,
		 * which ends its launch without the ticket (launch_end()).
		 */
		const bool lone = it % 8 == 1;
		static const int lone_alg[] = { GPU_AES_ALG_GCM, GPU_AES_ALG_XTS,
						GPU_AES_ALG_CTR };
		unsigned int nsegs = lone ? 1 : 1 + rng_next(&r) % (many ? 700 :
							 it % 2 ? 40 : 6);
		std::vector<gpu_aes_kseg> segs(nsegs);
		std::vector<uint8_t> ivs(16 * nsegs);
		std::vector<int> algs(nsegs), dirs(nsegs), chain(nsegs);
		std::vector<uint8_t> want_tag(16 * nsegs);
		uint64_t total = 0;

		for (unsigned int i = 0; i < nsegs; i++) {
			unsigned int k = rng_next(&r) % nkeys;
			uint32_t len = 1 + rng_next(&r) % (many ? 2048 :
					rng_next(&r) % 4 ? 4096 : maxlen);
			gpu_aes_kseg &sg = segs[i];

			memset(&sg, 0, sizeof(sg));
			algs[i] = 1 + (int)(rng_next(&r) % GPU_AES_ALG_MAX);
			dirs[i] = rng_next(&r) % 2;
			if (lone) {
				algs[i] = lone_alg[(it / 8) % 3];
				len = 1 + len % 4096;
			}
			/* both CBC kernels in every even round: the sanitizers run one */
			if (it % 2 == 0 && i < 2) {
				algs[i] = GPU_AES_ALG_CBC;
				dirs[i] = (int)i;
			}
			chain[i] = 0;
			if (!gpu_aes_alg_len_valid((uint8_t)algs[i], len))
				len = (len + 15) & ~15U;	/* whole blocks */
			if (!gpu_aes_alg_len_valid((uint8_t)algs[i], len))
				len += 16;			/* one at least */
			if (algs[i] == GPU_AES_ALG_CBC) {
				/* a multiple of 64: the next request starts right after */
				len = rng_next(&r) % 2 ? (len + 63) & ~63U :
							 (len + 15) & ~15U;
				if (i >= 2 && algs[i - 1] == GPU_AES_ALG_CBC &&
				    rng_next(&r) % 3 == 0) {
					chain[i] = 1;
					k = segs[i - 1].key;
					dirs[i] = dirs[i - 1];
				}
			}
			if (gpu_aes_alg_aead((uint8_t)algs[i]) &&
			    rng_next(&r) % 8 == 0)
				len = 0;
			sg.off = total;
			sg.len = len;
			sg.key = (uint16_t)k;
			sg.rounds = (uint8_t)(keys[k].len / 4 + 6);
			sg.op = (uint8_t)gpu_aes_kop((uint32_t)algs[i],
						     (uint32_t)dirs[i]);
			pick_iv(&r, &ivs[16 * i]);
			if (gpu_aes_alg_aead((uint8_t)algs[i])) {
				uint32_t pick = (uint32_t)(rng_next(&r) % 8);

				sg.aad_len = pick == 0 ? 0 : pick < 6 || lone ?
					(uint32_t)(rng_next(&r) % 80) :
					(uint32_t)(rng_next(&r) % 70000);
				memset(&ivs[16 * i + 12], 0, 4);
			}
			gpu_aes_ctr_load(&ivs[16 * i], &sg.ctr_hi, &sg.ctr_lo);
			total += (gpu_aes_sqe_span((uint8_t)algs[i], len,
						   sg.aad_len) + 63) & ~63ULL;
		}
		std::vector<uint8_t> in(total), want(total), got(total);
		rng_fill(&r, in.data(), total);
		for (unsigned int i = 0; i < nsegs; i++) {
			gpu_aes_kseg &sg = segs[i];
			const tkey &K = keys[sg.key];
			int rc;

			if (algs[i] == GPU_AES_ALG_CBC) {
				uint8_t *iv = &ivs[16 * i];

				/* CBC across requests: the IV is the last ciphertext block */
				if (chain[i]) {
					const gpu_aes_kseg &pv = segs[i - 1];
					const uint8_t *ct = dirs[i] ? &in[0] : &want[0];

					memcpy(iv, ct + pv.off + pv.len - 16, 16);
				}
				words(iv, sg.aux);
				rc = ref_crypt(GPU_AES_ALG_CBC, dirs[i], K.key, K.len, iv,
					       &in[sg.off], &want[sg.off], sg.len);
			} else if (algs[i] == GPU_AES_ALG_XTS) {
				uint8_t t0[16];

				rc = ref_block(K.tkey, K.len, &ivs[16 * i], t0);
				words(t0, sg.aux);
				if (!rc && K.len != 24 && memcmp(K.key, K.tkey, K.len))
					rc = ref_xts_evp(dirs[i], K.key, K.tkey,
							 K.len, &ivs[16 * i],
							 &in[sg.off], &want[sg.off],
							 sg.len);
				else if (!rc)
					rc = ref_xts(dirs[i], K.key, K.tkey,
						     K.len, &ivs[16 * i],
						     &in[sg.off], &want[sg.off],
						     sg.len);
			} else if (algs[i] == GPU_AES_ALG_GCM) {
				uint64_t ao = gpu_aes_gcm_aad_off(sg.off, sg.len);
				uint8_t *tg = &want_tag[16 * i], j0[16];

				memcpy(j0, &ivs[16 * i], 12);
				j0[12] = j0[13] = j0[14] = 0;
				j0[15] = 1;
				rc = ref_block(K.key, K.len, j0, j0);
				words(j0, sg.aux);
				/* decryption's input: a real ciphertext */
				if (!rc)
					rc = ref_gcm(0, K.key, K.len, &ivs[16 * i],
						     &in[ao], sg.aad_len, &in[sg.off],
						     dirs[i] ? &want[sg.off] :
							       &want[sg.off],
						     sg.len, tg, 16);
				if (!rc && dirs[i]) {
					std::vector<uint8_t> pt(&in[sg.off],
								&in[sg.off] + sg.len);

					memcpy(&in[sg.off], &want[sg.off], sg.len);
					memcpy(&want[sg.off], pt.data(), sg.len);
				}
			} else {
				/*
				 * ECB, CTR, XCTR: ref_crypt()'s, and the aux
				 * the AUX column says (gpu_aes_kseg_mode()).
				 */
				if (gpu_aes_alg_aux((uint8_t)algs[i]) ==
				    GPU_AES_AUX_IV)
					words(&ivs[16 * i], sg.aux);
				rc = ref_crypt(algs[i], dirs[i], K.key, K.len,
					       &ivs[16 * i], &in[sg.off],
					       &want[sg.off], sg.len);
				if (rc)
					fprintf(stderr, "kernel_check: no reference for mode %s\n",
						gpu_aes_alg_name((uint8_t)algs[i]));
			}
			if (rc)
				return 2;
		}
		/* Every chunk size the backend can pick, and odd ones. */
		static const uint32_t csz[] = { 256, 512, 1024, 4096, 768 };
		uint32_t chunk = csz[it % 5];
		size_t nch = gpu_aes_count_chunks(segs.data(), nsegs, chunk);
		std::vector<gpu_aes_kchunk> ch(nch);
		size_t nser, nenc = gpu_aes_build_chunks(segs.data(), nsegs,
							 chunk, ch.data(), &nser);
		uint8_t *d_data;
		gpu_aes_kseg *d_segs;
		gpu_aes_kchunk *d_ch;
		uint32_t *d_ghash, *h_out, *dv_out, *h_done, *dv_done;
		uint8_t *h_zc, *dv_zc;
		std::vector<uint32_t> ghash(4 * nsegs), left(4 * nsegs + 4);

		gpu_aes_chunk_aux(segs.data(), dkeys.data(), in.data(), ch.data(),
				  nch);
		CK(cudaMalloc(&d_data, total));
		CK(cudaMalloc(&d_segs, nsegs * sizeof(gpu_aes_kseg)));
		CK(cudaMalloc(&d_ch, nch * sizeof(gpu_aes_kchunk)));
		/* the sums, then the hand-over's ticket word */
		CK(cudaMalloc(&d_ghash, nsegs * 16 + 16));
		CK(cudaMallocHost(&h_out, nsegs * 16));
		CK(cudaHostGetDevicePointer((void **)&dv_out, h_out, 0));
		CK(cudaMallocHost(&h_done, sizeof(*h_done)));
		CK(cudaHostGetDevicePointer((void **)&dv_done, h_done, 0));
		CK(cudaMallocHost(&h_zc, total));
		CK(cudaHostGetDevicePointer((void **)&dv_zc, h_zc, 0));
		CK(cudaMemcpy(d_segs, segs.data(), nsegs * sizeof(gpu_aes_kseg),
			      cudaMemcpyHostToDevice));
		CK(cudaMemcpy(d_ch, ch.data(), nch * sizeof(gpu_aes_kchunk),
			      cudaMemcpyHostToDevice));
		uint32_t ext = 0;
		for (unsigned int i = 0; i < nsegs; i++)
			ext |= gpu_aes_kop_has(segs[i].op, GPU_AES_KOPF_EXT);
		bool fits = nsegs <= GPU_AES_INLINE_MAX &&
			    nch <= GPU_AES_INLINE_MAX;
		for (int inl = 0; inl <= (fits ? 1 : 0); inl++)
		for (unsigned int v = 0; v < GPU_AES_NR_VARIANTS; v++)
		for (unsigned int b = 1; b <= 4; b *= 2)
		for (unsigned int t = 128; t <= 512; t *= 2) {
			gpu_aes_launch l;

			if (gpu_aes_launch_variant(&caps, v, 1, 0) != v)
				continue;
			memset(&l, 0, sizeof(l));
			l.caps = &caps;
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
			l.ghash = d_ghash;
			/*
			 * Every other shape, the last CTA hands the sums over
			 * to pinned host memory and zeroes them and the ticket
			 * (the backend's path for a batch in one launch).
			 */
			bool hand_over = ((t / 128) + b + v) & 1;

			if (hand_over) {
				l.ghash_out = dv_out;
				l.ghash_words = 4 * nsegs;
			}
			/*
			 * In the other half, shifted against the first, the
			 * kernel works on host memory and stores a completion
			 * word (the backend's zero-copy batch); the host reads
			 * the results as soon as it sees the word, before any
			 * synchronization, as the backend's waiter does.
			 */
			bool by_word = ((t / 128) + b / 2) & 1;
			uint32_t done_value = 0x5eed0000U + (uint32_t)passed;

			if (by_word) {
				l.base = dv_zc;
				l.done = dv_done;
				l.done_value = done_value;
				memcpy(h_zc, in.data(), total);
				*(volatile uint32_t *)h_done = ~done_value;
			}
			if (hand_over || by_word)
				l.ticket = d_ghash + 4 * (size_t)nsegs;
			l.ext = ext;
			l.nchunks = (uint32_t)nch;
			l.nenc = (uint32_t)nenc;
			l.nser = (uint32_t)nser;
			l.max_ctas = (uint32_t)sms * (v ? 1 : 2);
			l.shape.variant = v;
			l.shape.threads = t;
			l.shape.bpt = b;
			l.shape.ctas_per_sm = v ? 1 : 2;
			/* GCM input through the TMA (its own kernel), shifted against both */
			l.stage = ((t / 128) + b + inl) & 1;
			CK(cudaMemcpy(d_data, in.data(), total,
				      cudaMemcpyHostToDevice));
			CK(cudaMemset(d_ghash, 0, nsegs * 16 + 16));
			memset(h_out, 0xa5, nsegs * 16);
			memset(got.data(), 0xa5, total);
			/*
			 * Fewer threads than fill_tables() loads for, and a
			 * count that is not whole sets of the warps serial
			 * chains are dealt in: refused.
			 */
			if (it == 0 && !inl && v == 0 && b == 1 && t == 128) {
				static const unsigned int bad[] = {
					GPU_AES_MIN_THREADS / 2,
					GPU_AES_MIN_THREADS + 32,
				};

				for (unsigned int odd : bad) {
					gpu_aes_launch few = l;

					few.shape.threads = odd;
					if (gpu_aes_kernel_launch(&few, 0) == -1) {
						passed++;
					} else {
						fprintf(stderr, "FAIL: a launch of %u threads a CTA was not refused\n",
							few.shape.threads);
						failed++;
					}
				}
			}
			if (gpu_aes_kernel_launch(&l, 0)) {
				fprintf(stderr, "launch refused v%u b%u t%u: %s\n",
					v, b, t, cudaGetErrorString(cudaGetLastError()));
				failed++;
				continue;
			}
			bool ok = true;

			if (by_word) {
				/* a hang, not a sanitized launch on a shared GPU */
				time_t give_up = time(NULL) + 60;

				while (__atomic_load_n(h_done, __ATOMIC_ACQUIRE) !=
				       done_value && time(NULL) < give_up)
					;
				ok = __atomic_load_n(h_done, __ATOMIC_ACQUIRE) ==
				     done_value;
				memcpy(got.data(), h_zc, total);
				if (hand_over)
					memcpy(ghash.data(), h_out, nsegs * 16);
				if (!ok)
					fprintf(stderr,
						"FAIL it %d v%u b%u t%u: no completion word in 60 s\n",
						it, v, b, t);
			}
			CK(cudaDeviceSynchronize());
			if (!by_word)
				CK(cudaMemcpy(got.data(), d_data, total,
					      cudaMemcpyDeviceToHost));
			if (hand_over) {
				if (!by_word)
					memcpy(ghash.data(), h_out, nsegs * 16);
				CK(cudaMemcpy(left.data(), d_ghash,
					      nsegs * 16 + 16,
					      cudaMemcpyDeviceToHost));
				for (uint32_t wd : left)
					ok = ok && !wd;
				if (!ok)
					fprintf(stderr,
						"FAIL it %d v%u b%u t%u: the hand-over left the sums or its ticket nonzero\n",
						it, v, b, t);
			} else {
				CK(cudaMemcpy(ghash.data(), d_ghash, nsegs * 16,
					      cudaMemcpyDeviceToHost));
			}
			if (by_word && !hand_over) {
				uint32_t ticket;

				CK(cudaMemcpy(&ticket, d_ghash + 4 * (size_t)nsegs,
					      sizeof(ticket),
					      cudaMemcpyDeviceToHost));
				if (ticket) {
					fprintf(stderr,
						"FAIL it %d v%u b%u t%u: the completion word's ticket left at %u\n",
						it, v, b, t, ticket);
					ok = false;
				}
			}
			for (unsigned int i = 0; i < nsegs && ok; i++) {
				uint8_t tag[16];
				bool tag_ok = true;

				if (is_gcm(segs[i])) {
					uint64_t to = gpu_aes_gcm_tag_off(segs[i].off,
									  segs[i].len);

					gpu_aes_gcm_tag(&ghash[4 * i], segs[i].aux, tag);
					/* the tag slot and the AAD stay as they were */
					tag_ok = !memcmp(tag, &want_tag[16 * i], 16) &&
						 !memcmp(&got[to], &in[to],
							 16 + segs[i].aad_len);
				}
				if (!tag_ok || memcmp(&got[segs[i].off],
						      &want[segs[i].off],
						      segs[i].len)) {
					fprintf(stderr,
						"FAIL it %d seg %u op %u len %u aad %u rounds %u v%u b%u t%u%s\n",
						it, i, segs[i].op, segs[i].len,
						segs[i].aad_len, segs[i].rounds,
						v, b, t, tag_ok ? "" : " (tag)");
					ok = false;
				}
			}
			if (ok)
				passed++;
			else
				failed++;
		}
		CK(cudaFree(d_ghash));
		CK(cudaFreeHost(h_out));
		CK(cudaFreeHost(h_done));
		CK(cudaFreeHost(h_zc));
		CK(cudaFree(d_data));
		CK(cudaFree(d_segs));
		CK(cudaFree(d_ch));
	}
	CK(cudaMemset(d_keys, 0, nkeys * sizeof(gpu_aes_dev_key)));
	CK(cudaFree(d_keys));
	printf("kernel_check: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
