// SPDX-License-Identifier: GPL-2.0-only
/*
 * raw.cu - the batch kernel with data resident in GPU memory: one
 * segment per launch, every alg/key size/direction (XTS, GCM and CBC: 128
 * and 256-bit keys), sizes raw_min..raw_max (a lone CBC encryption, one
 * thread's chain, up to 1 MiB); batches of many CBC requests of one size
 * (raw-gpu-batch: encryption runs one request per thread); with --sweep,
 * every launch shape for AES-128-CTR at 256 MiB first; then one 4 KiB
 * launch at a time, each waited for (raw-qd1).
 */
#include "../uapi/gpu_aes.h"
#include "../helper/cuda/aes_gpu.h"
#include "../helper/cuda/aes_kernel.h"
#include "bench.h"
#include "report.h"

#include <algorithm>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#define CKR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "bench_raw: %s: %s\n", #x, cudaGetErrorString(e_)); \
	return -1; } } while (0)

namespace {

/* Requests in one raw-gpu-batch launch, at most (a full helper batch). */
#define BATCH_MAX	32768U

struct ctx {
	uint8_t *data;
	const uint8_t *hdata;	/* the same bytes on the host (CBC chunk aux) */
	gpu_aes_kseg *segs;
	gpu_aes_kchunk *chunks;
	gpu_aes_dev_key *keys;
	const gpu_aes_dev_key *hkeys;
	uint32_t *ghash;
	int sms;
	gpu_aes_kernel_caps caps;
};

/*
 * The launch of segments sg[0..n) with shape sh, its tables uploaded.
 * GHASH sums pile up in c.ghash (one segment's): only GCM writes them,
 * and only the time matters.
 */
int prepare_launch(ctx &c, const gpu_aes_kseg *sg, size_t n,
		   const gpu_aes_shape &sh, gpu_aes_launch *l)
{
	uint32_t chunk = gpu_aes_chunk_blocks(sg, n, c.sms * sh.ctas_per_sm);
	std::vector<gpu_aes_kchunk> ch(gpu_aes_count_chunks(sg, n, chunk));
	size_t nser, nenc = gpu_aes_build_chunks(sg, n, chunk, ch.data(), &nser);

	gpu_aes_chunk_aux(sg, c.hkeys, c.hdata, ch.data(), ch.size());
	memset(l, 0, sizeof(*l));
	CKR(cudaMemcpy(c.segs, sg, n * sizeof(*sg), cudaMemcpyHostToDevice));
	CKR(cudaMemcpy(c.chunks, ch.data(), ch.size() * sizeof(ch[0]),
		       cudaMemcpyHostToDevice));
	l->caps = &c.caps;
	l->base = c.data;
	l->segs = c.segs;
	l->chunks = c.chunks;
	l->keys = c.keys;
	l->ghash = c.ghash;
	for (size_t i = 0; i < n; i++)
		l->ext |= gpu_aes_kop_has(sg[i].op, GPU_AES_KOPF_EXT);
	l->nchunks = (uint32_t)ch.size();
	l->nenc = (uint32_t)nenc;
	l->nser = (uint32_t)nser;
	l->max_ctas = (uint32_t)c.sms * sh.ctas_per_sm;
	l->shape = sh;
	return 0;
}

int prepare_launch(ctx &c, const gpu_aes_kseg &sg, const gpu_aes_shape &sh,
		   gpu_aes_launch *l)
{
	return prepare_launch(c, &sg, 1, sh, l);
}

/* Median seconds per launch of sg[0..n) over several timed loops. */
int time_launch(ctx &c, const gpu_aes_kseg *sg, size_t n,
		const gpu_aes_shape &sh, double budget_s, double *sec)
{
	gpu_aes_launch l;
	cudaEvent_t a, b;
	std::vector<double> t;
	int iters;

	if (prepare_launch(c, sg, n, sh, &l))
		return -1;
	CKR(cudaEventCreate(&a));
	CKR(cudaEventCreate(&b));
	/* Warm-up, and a first estimate to size the loops. */
	for (int i = 0; i < 3; i++)
		if (gpu_aes_kernel_launch(&l, 0))
			return -1;
	CKR(cudaEventRecord(a));
	if (gpu_aes_kernel_launch(&l, 0))
		return -1;
	CKR(cudaEventRecord(b));
	CKR(cudaEventSynchronize(b));
	float ms;
	CKR(cudaEventElapsedTime(&ms, a, b));
	iters = (int)(budget_s / 7 / (ms / 1e3 + 1e-6));
	iters = std::max(1, std::min(iters, 2000));
	for (int rep = 0; rep < 7; rep++) {
		CKR(cudaEventRecord(a));
		for (int i = 0; i < iters; i++)
			if (gpu_aes_kernel_launch(&l, 0))
				return -1;
		CKR(cudaEventRecord(b));
		CKR(cudaEventSynchronize(b));
		CKR(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms / 1e3 / iters);
	}
	std::sort(t.begin(), t.end());
	*sec = t[t.size() / 2];
	CKR(cudaEventDestroy(a));
	CKR(cudaEventDestroy(b));
	return 0;
}

int time_launch(ctx &c, const gpu_aes_kseg &sg, const gpu_aes_shape &sh,
		double budget_s, double *sec)
{
	return time_launch(c, &sg, 1, sh, budget_s, sec);
}

/*
 * Batches of nreq CBC requests of size bytes each, back to back (64-byte
 * aligned, as the data area hands them out), every key size measured:
 * encryption runs one request per thread, decryption cuts each request
 * over a CTA's threads like any other mode.
 */
int time_cbc_batches(ctx &c, size_t maxb, const gpu_aes_shape &best,
		     double seconds)
{
	static const uint32_t sizes[] = { 512, 4096, 16384, 65536 };
	static const uint32_t counts[] = { 64, 1024, 16384 };
	std::vector<gpu_aes_kseg> segs;

	for (int dec = 0; dec < 2; dec++)
	for (int k = 0; k < 3; k += 2)
	for (uint32_t size : sizes)
	for (uint32_t nreq : counts) {
		struct bench_result r;
		double s;

		if ((uint64_t)size * nreq > maxb || nreq > BATCH_MAX)
			continue;
		segs.assign(nreq, gpu_aes_kseg());
		for (uint32_t i = 0; i < nreq; i++) {
			gpu_aes_kseg &sg = segs[i];

			sg.off = (uint64_t)i * size;
			sg.len = size;
			sg.key = (uint16_t)k;
			sg.rounds = (uint8_t)(10 + 2 * k);
			sg.op = dec ? GPU_AES_KOP_CBC_DEC : GPU_AES_KOP_CBC_ENC;
			for (int w = 0; w < 4; w++)
				sg.aux[w] = 0x9e3779b9U * (i + w + 1);	/* IV */
		}
		if (time_launch(c, segs.data(), nreq, best, seconds, &s))
			return -1;
		memset(&r, 0, sizeof(r));
		snprintf(r.path, sizeof(r.path), "raw-gpu-batch");
		snprintf(r.alg, sizeof(r.alg), "aes-%d-cbc-%s", 128 + 64 * k,
			 dec ? "dec" : "enc");
		r.size = size;
		r.gbps = (double)size * nreq / s / 1e9;
		r.rps = nreq / s;
		snprintf(r.note, sizeof(r.note), "%u requests per launch",
			 nreq);
		bench_add(&r);
	}
	return 0;
}

/* The completion word (aes_kernel.h: done) and its ticket. */
struct done_word {
	uint32_t *host, *dev, *ticket;
};

/*
 * One launch, then wait for it, again and again: the GPU's part of a QD1
 * request (data already in GPU memory, the host spinning on the stream),
 * so QD1 through the helper can be read as this plus the host's part.
 * With @zc (host memory the GPU maps), the kernel reads and writes the
 * request over PCIe, as the helper runs a lone small batch; with @word
 * too, the host polls the word the kernel stores at its end instead of
 * the stream, as the helper's completion thread does.  *call_us: the
 * launch call's own p50, the host's part of the round trip.
 */
int time_round_trips(ctx &c, const gpu_aes_kseg &sg, const gpu_aes_shape &sh,
		     uint8_t *zc, const done_word *word, double budget_s,
		     struct bench_result *r, double *call_us)
{
	gpu_aes_launch l;
	std::vector<double> t, call;
	double t0, end;

	if (prepare_launch(c, sg, sh, &l))
		return -1;
	if (zc) {	/* the helper's small batch */
		l.base = zc;
		l.stage = gpu_aes_kop_has(sg.op, GPU_AES_KOPF_GHASH);
	}
	if (word) {
		l.done = word->dev;
		l.ticket = word->ticket;
	}
	for (int i = 0; i < 100; i++) {	/* warm-up: clocks, caches */
		if (gpu_aes_kernel_launch(&l, 0))
			return -1;
		CKR(cudaStreamSynchronize(0));
	}
	t0 = bench_now();
	end = t0 + budget_s;
	while (bench_now() < end && t.size() < 200000) {
		double s0 = bench_now();

		l.done_value++;
		if (gpu_aes_kernel_launch(&l, 0))
			return -1;
		call.push_back((bench_now() - s0) * 1e6);
		if (word)
			while (__atomic_load_n(word->host, __ATOMIC_ACQUIRE) !=
			       l.done_value)
				;
		else
			CKR(cudaStreamSynchronize(0));
		t.push_back((bench_now() - s0) * 1e6);
	}
	std::sort(t.begin(), t.end());
	std::sort(call.begin(), call.end());
	*call_us = call[call.size() / 2];
	r->rps = t.size() / (bench_now() - t0);
	r->p50_us = t[t.size() / 2];
	r->p99_us = t[t.size() * 99 / 100];
	r->gbps = r->rps * sg.len / 1e9;
	return 0;
}

/*
 * What is measured, in this order; keys: 1 AES-128, 2 AES-192, 4
 * AES-256; sizes up to max bytes (0: raw_max).  ghash: a GCM segment of
 * associated data only (GHASH alone).
 */
struct raw_op {
	uint8_t op;
	const char *name;
	unsigned int keys;
	size_t max;
	bool ghash;
};

const raw_op raw_ops[] = {
	{ GPU_AES_KOP_CTR_ENC, "ctr", 7, 0, false },
	/* CTR's code with HCTR2's counter: the IV in aux (zero here) */
	{ GPU_AES_KOP_XCTR_ENC, "xctr", 7, 0, false },
	{ GPU_AES_KOP_ECB_ENC, "ecb-enc", 7, 0, false },
	{ GPU_AES_KOP_ECB_DEC, "ecb-dec", 7, 0, false },
	/* no AES-192-XTS, -GCM or -CBC figure asked for */
	{ GPU_AES_KOP_XTS_ENC, "xts-enc", 5, 0, false },
	{ GPU_AES_KOP_XTS_DEC, "xts-dec", 5, 0, false },
	{ GPU_AES_KOP_GCM_ENC, "gcm-enc", 5, 0, false },
	{ GPU_AES_KOP_GCM_DEC, "gcm-dec", 5, 0, false },
	{ GPU_AES_KOP_GCM_ENC, "ghash", 1, 0, true },
	/* a lone encryption is one thread's chain: ~1 s at 64 MiB */
	{ GPU_AES_KOP_CBC_ENC, "cbc-enc", 5, 1U << 20, false },
	{ GPU_AES_KOP_CBC_DEC, "cbc-dec", 5, 0, false },
};

/* The kernel op that encrypts for one of bench_algs' algorithms. */
uint8_t encrypt_op(unsigned int alg)
{
	return alg == GPU_AES_ALG_XTS ? GPU_AES_KOP_XTS_ENC :
	       alg == GPU_AES_ALG_GCM ? GPU_AES_KOP_GCM_ENC : GPU_AES_KOP_CTR_ENC;
}

} /* namespace */

extern "C" int bench_raw(const struct bench_opts *o)
{
	ctx c;
	size_t maxb = o->raw_max;
	std::vector<gpu_aes_dev_key> hk(3);
	gpu_aes_shape best = { 0, 256, 4, 2 };
	double best_gbps = 0;
	uint8_t key[32];

	CKR(cudaSetDevice(0));
	CKR(cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, 0));
	if (gpu_aes_kernel_init(NULL, &c.caps)) {
		fprintf(stderr, "bench_raw: %s\n", c.caps.why);
		return -1;
	}
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(i * 37 + 11);
	for (int k = 0; k < 3; k++) {
		unsigned int nr;

		gpu_aes_dev_expand_key(key, 16 + 8 * k, &hk[k], &nr);
		/* any non-trivial hash key times the same */
		gpu_aes_gcm_powers(key + k, &hk[k]);
	}
	c.hkeys = hk.data();
	CKR(cudaMalloc(&c.ghash, 16));
	CKR(cudaMalloc(&c.data, maxb));
	CKR(cudaMalloc(&c.keys, 3 * sizeof(gpu_aes_dev_key)));
	CKR(cudaMalloc(&c.segs, BATCH_MAX * sizeof(gpu_aes_kseg)));
	CKR(cudaMalloc(&c.chunks, (maxb / 16 / GPU_AES_CHUNK_BLOCKS + 8 * 1024 +
				   BATCH_MAX) * sizeof(gpu_aes_kchunk)));
	CKR(cudaMemcpy(c.keys, hk.data(), 3 * sizeof(gpu_aes_dev_key),
		       cudaMemcpyHostToDevice));
	/* Random-looking data; never zeros (see METHOD.md). */
	std::vector<uint8_t> hdata(maxb);
	for (size_t i = 0; i < maxb / 4; i++) {
		uint32_t v = (uint32_t)((i & 0xfffff) * 2654435761U) ^ 0x9e3779b9U;

		memcpy(&hdata[4 * i], &v, 4);
	}
	c.hdata = hdata.data();
	CKR(cudaMemcpy(c.data, hdata.data(), maxb, cudaMemcpyHostToDevice));
	gpu_aes_kseg sg;
	memset(&sg, 0, sizeof(sg));
	sg.key = 0;
	sg.rounds = 10;
	sg.op = GPU_AES_KOP_CTR_ENC;
	sg.ctr_hi = 0x0123456789abcdefULL;
	sg.ctr_lo = 0xfffffffffff00000ULL;
	for (int i = 0; i < 4; i++)
		sg.aux[i] = 0x9e3779b9U * (i + 1);	/* XTS: E_K2(iv) */

	if (o->shape[1])
		best = { o->shape[0], o->shape[1], o->shape[2], o->shape[3] };
	if (o->sweep) {
		size_t n = std::min<size_t>(maxb, 256U << 20);

		sg.len = (uint32_t)n;
		printf("# shape sweep, aes-128-ctr, %zu MiB in HBM\n", n >> 20);
		for (unsigned int v = 0; v < GPU_AES_NR_VARIANTS; v++)
		for (unsigned int b = 1; b <= 4; b *= 2)
		for (unsigned int t = 128; t <= 512; t *= 2)
		for (unsigned int cps = 1; cps <= 4; cps *= 2) {
			gpu_aes_shape sh = { v, t, b, cps };
			double s;
			if (time_launch(c, sg, sh, o->seconds / 4, &s))
				return -1;
			double g = n / s / 1e9;
			struct bench_result r;

			memset(&r, 0, sizeof(r));
			snprintf(r.path, sizeof(r.path), "raw-sweep");
			snprintf(r.alg, sizeof(r.alg), "aes-128-ctr");
			r.size = n;
			r.gbps = g;
			snprintf(r.note, sizeof(r.note), "v%u t%u b%u c%u", v, t,
				 b, cps);
			bench_add(&r);
			if (g > best_gbps) {
				best_gbps = g;
				best = sh;
			}
		}
		printf("# best shape: variant %u threads %u bpt %u ctas/sm %u: %.1f GB/s\n",
		       best.variant, best.threads, best.bpt, best.ctas_per_sm,
		       best_gbps);
	}
	for (const raw_op &ro : raw_ops)
	for (int k = 0; k < 3; k++)
	for (size_t n = o->raw_min; n <= maxb; n *= 4) {
		const bool gcm = gpu_aes_kop_has(ro.op, GPU_AES_KOPF_GHASH);
		double s;
		struct bench_result r;

		if (!(ro.keys & (1U << k)) || (ro.max && n > ro.max))
			continue;
		if (ro.ghash) {
			sg.op = ro.op;
			sg.key = 0;
			sg.rounds = 10;
			sg.len = 0;
			sg.aad_len = (uint32_t)std::min<size_t>(n, maxb - 64);
			if (time_launch(c, sg, best, o->seconds, &s))
				return -1;
			memset(&r, 0, sizeof(r));
			snprintf(r.path, sizeof(r.path), "raw-gpu");
			snprintf(r.alg, sizeof(r.alg), "ghash");
			r.size = n;
			r.gbps = sg.aad_len / s / 1e9;
			snprintf(r.note, sizeof(r.note), "gcm, aad only");
			bench_add(&r);
			continue;
		}
		sg.op = ro.op;
		sg.key = (uint16_t)k;
		sg.rounds = (uint8_t)(10 + 2 * k);
		sg.len = (uint32_t)std::min<size_t>(n, 0xfffffff0U);
		/* GCM: a TLS record's 13 bytes of AAD; tag and AAD after */
		sg.aad_len = gcm ? 13 : 0;
		if (gcm && sg.len + 64 > maxb)
			sg.len = (uint32_t)(maxb - 64);
		if (time_launch(c, sg, best, o->seconds, &s))
			return -1;
		memset(&r, 0, sizeof(r));
		snprintf(r.path, sizeof(r.path), "raw-gpu");
		snprintf(r.alg, sizeof(r.alg), "aes-%d-%s", 128 + 64 * k,
			 ro.name);
		r.size = n;
		r.gbps = sg.len / s / 1e9;
		snprintf(r.note, sizeof(r.note), "v%u t%u b%u c%u",
			 best.variant, best.threads, best.bpt,
			 best.ctas_per_sm);
		bench_add(&r);
	}
	if (time_cbc_batches(c, maxb, best, o->seconds))
		return -1;
	/*
	 * The GPU's part of a lone 4 KiB request, for each algorithm the
	 * helper path's QD1 rows measure, with the same keys: what a QD1
	 * figure through the host path is judged against.
	 */
	/* The same through mapped host memory, in the helper's small shape. */
	const gpu_aes_shape small = GPU_AES_SHAPE_SMALL;
	const size_t zc_bytes = std::min<size_t>(maxb, 65536);
	uint8_t *zc_host, *zc_dev;
	done_word word;

	CKR(cudaHostAlloc((void **)&zc_host, zc_bytes, cudaHostAllocMapped));
	memcpy(zc_host, hdata.data(), zc_bytes);
	CKR(cudaHostGetDevicePointer((void **)&zc_dev, zc_host, 0));
	CKR(cudaHostAlloc((void **)&word.host, sizeof(*word.host),
			  cudaHostAllocMapped));
	*word.host = 0;
	CKR(cudaHostGetDevicePointer((void **)&word.dev, word.host, 0));
	CKR(cudaMalloc(&word.ticket, sizeof(*word.ticket)));
	CKR(cudaMemset(word.ticket, 0, sizeof(*word.ticket)));
	/* 0: GPU memory, 1: host memory, 2: host memory and the word */
	for (const bench_alg &a : bench_algs)
	for (int zc = 0; zc < 3; zc++) {
		/* key slots 0, 1, 2: AES-128, -192, -256; XTS's are two keys */
		uint32_t aes_key = a.alg == GPU_AES_ALG_XTS ? a.key_len / 2 :
							      a.key_len;
		struct bench_result r;
		double call_us;

		memset(&r, 0, sizeof(r));
		sg.op = encrypt_op(a.alg);
		sg.key = (uint16_t)((aes_key - 16) / 8);
		sg.rounds = (uint8_t)(10 + 2 * sg.key);
		sg.len = 4096;
		sg.aad_len = a.aad_len;
		if (time_round_trips(c, sg, zc ? small : best,
				     zc ? zc_dev : nullptr,
				     zc == 2 ? &word : nullptr, o->seconds, &r,
				     &call_us))
			return -1;
		snprintf(r.path, sizeof(r.path), "%s",
			 zc == 2 ? "raw-qd1-word" : zc ? "raw-qd1-zc" : "raw-qd1");
		snprintf(r.alg, sizeof(r.alg), "%s", a.name);
		r.size = sg.len;
		snprintf(r.note, sizeof(r.note), "%s; launch call %.1f us",
			 zc == 2 ? "the same, polling the completion word the kernel stores" :
			 zc ? "the same, data in host memory over PCIe, v0 t256 b1 c2" :
			 "launch + cudaStreamSynchronize, one at a time",
			 call_us);
		bench_add(&r);
	}
	CKR(cudaFreeHost(zc_host));
	CKR(cudaFreeHost(word.host));
	CKR(cudaFree(word.ticket));
	CKR(cudaMemset(c.keys, 0, 3 * sizeof(gpu_aes_dev_key)));
	cudaFree(c.data);
	cudaFree(c.keys);
	cudaFree(c.segs);
	cudaFree(c.chunks);
	cudaFree(c.ghash);
	return 0;
}
