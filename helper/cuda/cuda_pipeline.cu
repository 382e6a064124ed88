// SPDX-License-Identifier: GPL-2.0-only
/*
 * cuda_pipeline.cu - gpu_aes_backend_cuda: batches of the shared ring run as
 * one kernel launch each, on every GPU chosen (one worker per GPU, a batch
 * goes to the worker with the fewest bytes in flight).
 *
 * The region is registered with CUDA once at open.  Per batch, a worker
 * either lets the kernel read and write the region directly over PCIe
 * (zero-copy: no copy latency, best for small batches) or copies the
 * batch's contiguous runs into a device mirror of the data area, runs the
 * kernel there and copies back (copy engines: best for bulk).  Each
 * in-flight batch owns a slot with its own stream, so the copies of one
 * batch overlap the kernel of another.  NR_COMPLETERS completion threads
 * per worker take the slots in submission order, each waits for its own
 * slot and calls batch->done(), so several done() calls (the core's CQE
 * writing and the producer's reaping and copy-out) run at once.
 *
 * Failure policy: a CUDA error before anything could have written the
 * region sends the batch to the in-process cpu backend; after that point
 * (zero-copy kernel launched, or copy-back queued) the batch completes with
 * GPU_AES_STATUS_EIO, which makes the kernel recompute it from its own
 * source pages.  Either way the worker is marked dead and later batches go
 * to the other GPUs or the cpu backend.  Never a wrong byte, never a hang.
 */
#include "aes_kernel.h"
#include "cuda_backend.h"
#include "cuda_internal.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#define SMALL_BATCH	(1U << 20)
/*
 * GCM batches up to this take the kernel that stages a chunk's input
 * through the TMA (aes_kernel.h): a few requests, whose wait is the
 * launch's; it spills more, which larger batches would pay in GB/s.
 */
#define STAGE_BATCH	(64U << 10)
#define LONE_STAGES	4
#define LONE_BIN_NS	250	/* LONE_BINS of them: the last holds the rest */
#define LONE_BINS	256
/*
 * Copy-engine batches larger than two pieces are cut into pieces of about
 * this size on two streams, so that one piece's copy-back overlaps the next
 * piece's upload inside one batch too.
 */
#define PIECE		(4U << 20)

struct gpu_aes_backend {
	const struct gpu_aes_region *region;
	std::vector<gpu_aes_cuda::worker *> workers;
	const struct gpu_aes_backend_ops *cpu_ops;
	struct gpu_aes_backend *cpu;
	pthread_mutex_t cpu_lock;
	uint64_t zc_max;	/* gpu_aes_batch_zero_copy()'s */
	uint64_t cpu_below;	/* lone batches under this go to the CPU */
	uint64_t sync_spin_ns;	/* the oldest batch's waiter polls this long */
	bool registered;
	struct gpu_aes_cuda_stats stats;
	uint64_t submit_ns;	/* time submit() spent, summed */
	uint64_t done_ns;	/* time the completion threads spent in done() */
	/*
	 * Lone requests (slot.lone), ns summed: enqueue(), then until a
	 * completion thread holds it, until it sees the GPU's end, done().
	 */
	uint64_t lone_n, lone_enqueue_ns, lone_claim_ns, lone_gpu_ns,
		 lone_done_ns;
	/* ... of which (one kernel launch) before it, and the launch call */
	uint64_t lone_launch_n, lone_prelaunch_ns, lone_launch_ns;
	/* ... of which the GPU had ended before a thread first looked */
	uint64_t lone_ended_n;
	/*
	 * ... and the same four stages as histograms, for their medians:
	 * a few slow wake-ups weigh on the means, not on a p50.
	 */
	uint64_t lone_hist[LONE_STAGES][LONE_BINS];
	unsigned int next_pick;	/* where pick_worker() starts looking */
};

namespace gpu_aes_cuda {

namespace {

uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return def;
	x = strtoull(v, &end, 0);
	return *end ? def : (uint64_t)x;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void cpu_run(gpu_aes_backend *be, struct gpu_aes_batch *b)
{
	__atomic_add_fetch(&be->stats.cpu_batches, 1, __ATOMIC_RELAXED);
	/* The inline cpu backend finishes (and calls done) before return. */
	pthread_mutex_lock(&be->cpu_lock);
	be->cpu_ops->submit(be->cpu, b);
	pthread_mutex_unlock(&be->cpu_lock);
}

/*
 * Index of the worker with the fewest bytes in flight, -1 if none lives.
 * Ties go round the workers, not to the first: at low load every GPU is
 * idle at each pick, and the first would take every batch.
 */
int pick_worker(gpu_aes_backend *be)
{
	size_t n = be->workers.size();
	size_t start = __atomic_fetch_add(&be->next_pick, 1, __ATOMIC_RELAXED);
	int best = -1;
	uint64_t least = ~0ULL;

	for (size_t k = 0; k < n; k++) {
		size_t i = (start + k) % n;
		worker *w = be->workers[i];
		uint64_t b = __atomic_load_n(&w->inflight_bytes,
					     __ATOMIC_RELAXED);

		if (__atomic_load_n(&w->dead, __ATOMIC_RELAXED))
			continue;
		if (b < least) {
			least = b;
			best = (int)i;
		}
	}
	return best;
}

/* Statuses are those enqueue() and gcm_finish() set, unless it failed. */
void finish(worker *w, struct gpu_aes_batch *b, bool failed)
{
	if (failed) {
		for (uint32_t i = 0; i < b->nr; i++)
			b->segs[i].status = GPU_AES_STATUS_EIO;
		__atomic_add_fetch(&w->be->stats.eio_batches, 1,
				   __ATOMIC_RELAXED);
	}
	b->done(b);
}

/*
 * GCM tags from the kernel's GHASH sums, on the completion thread while the
 * slot (h_segs, h_ghash) is still ours: encryption writes the tag after the
 * text, decryption compares in constant time.
 */
void gcm_finish(const gpu_aes_region *r, const slot *s, struct gpu_aes_batch *b)
{
	for (uint32_t i = 0; i < b->nr; i++) {
		const gpu_aes_kseg *k = &s->h_segs[i];
		gpu_aes_segment *g = &b->segs[i];
		uint8_t tag[16];
		uint8_t *dst;

		if (!gpu_aes_kop_has(k->op, GPU_AES_KOPF_GHASH) || g->status)
			continue;
		gpu_aes_gcm_tag(s->h_ghash + 4 * (size_t)i, k->aux, tag);
		dst = r->data + gpu_aes_gcm_tag_off(g->data_off, g->len);
		if (gpu_aes_kop_dir(k->op) == GPU_AES_DIR_ENCRYPT)
			memcpy(dst, tag, g->auth_len);
		else if (CRYPTO_memcmp(dst, tag, g->auth_len))
			g->status = GPU_AES_STATUS_EBADMSG;
		OPENSSL_cleanse(tag, sizeof(tag));
	}
}

/*
 * Waits for a slot's batch to finish on the GPU.  Events block (no CPU
 * while the GPU works: every spinning thread would count against the host
 * path).  Only the waiter of the oldest batch in flight, the next one to
 * finish, first polls for GPU_AES_CUDA_SYNC_SPIN_US: a short batch then
 * completes without a sleep and wake-up, which would double a lone small
 * request's latency.
 *
 * A batch whose kernel stores a completion word (slot.by_word) is polled
 * there, a load from host memory, and has no event until a waiter must
 * sleep: it records one then, which the slot's stream allows because
 * nothing is queued on it after the kernel.
 */
inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

bool word_seen(const slot *s)
{
	return __atomic_load_n(s->h_done, __ATOMIC_ACQUIRE) == s->done_seq;
}

/* 1: the slot's batch has ended, 0: not yet, -1: it failed (logged). */
int batch_ended(worker *w, slot *s)
{
	if (s->by_word)
		return word_seen(s);
	cudaError_t e = cudaEventQuery(s->done_ev);

	if (e == cudaErrorNotReady)
		return 0;
	return CK(w, e) ? 1 : -1;
}

/*
 * Sleeps until a by_word batch ends: its event is recorded only now, and
 * the word must be there once the event has passed.
 */
bool sleep_on_word(worker *w, slot *s)
{
	if (word_seen(s))
		return true;
	if (!CK(w, cudaEventRecord(s->done_ev, s->stream)) ||
	    !CK(w, cudaEventSynchronize(s->done_ev)))
		return false;
	if (word_seen(s))
		return true;
	gpu_aes_log(LOG_ERR, "cuda: gpu %d: a batch ended without storing its completion word %u (found %u)",
		    w->dev, s->done_seq,
		    __atomic_load_n(s->h_done, __ATOMIC_ACQUIRE));
	w->dead = true;
	return false;
}

bool wait_done(worker *w, slot *s, bool oldest)
{
	/* A look at the word is a load, at an event a driver call. */
	int looks = s->by_word ? 16 : 1, pauses = s->by_word ? 1 : 64;

	if (oldest && w->be->sync_spin_ns) {
		uint64_t end = now_ns() + w->be->sync_spin_ns;

		do {
			for (int i = 0; i < looks; i++) {
				int ended = batch_ended(w, s);

				if (ended)
					return ended > 0;
				for (int k = 0; k < pauses; k++)
					cpu_relax();
			}
		} while (now_ns() < end);
	}
	if (s->by_word)
		return sleep_on_word(w, s);
	return CK(w, cudaEventSynchronize(s->done_ev));
}

void lone_hist_add(gpu_aes_backend *be, int stage, uint64_t ns)
{
	uint64_t bin = ns / LONE_BIN_NS;

	if (bin >= LONE_BINS)
		bin = LONE_BINS - 1;
	__atomic_add_fetch(&be->lone_hist[stage][bin], 1, __ATOMIC_RELAXED);
}

/* The middle of the bin that holds the median, in us. */
double lone_median_us(const gpu_aes_backend *be, int stage)
{
	uint64_t seen = 0;
	unsigned int bin = 0;

	for (; bin < LONE_BINS - 1; bin++) {
		seen += be->lone_hist[stage][bin];
		if (2 * seen >= be->lone_n)
			break;
	}
	return (bin + 0.5) * LONE_BIN_NS / 1e3;
}

/* A lone request's stages: its slot's times, then the completion's. */
void lone_account(gpu_aes_backend *be, const lone_times &t, uint64_t claim,
		  bool ended, uint64_t seen, uint64_t end)
{
	if (ended)
		__atomic_add_fetch(&be->lone_ended_n, 1, __ATOMIC_RELAXED);
	if (t.launched) {
		__atomic_add_fetch(&be->lone_launch_n, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&be->lone_prelaunch_ns, t.launch - t.submit,
				   __ATOMIC_RELAXED);
		__atomic_add_fetch(&be->lone_launch_ns, t.launched - t.launch,
				   __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&be->lone_n, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&be->lone_enqueue_ns, t.queued - t.submit,
			   __ATOMIC_RELAXED);
	__atomic_add_fetch(&be->lone_claim_ns, claim - t.queued,
			   __ATOMIC_RELAXED);
	__atomic_add_fetch(&be->lone_gpu_ns, seen - t.queued, __ATOMIC_RELAXED);
	__atomic_add_fetch(&be->lone_done_ns, end - seen, __ATOMIC_RELAXED);
	lone_hist_add(be, 0, t.queued - t.submit);
	lone_hist_add(be, 1, claim - t.queued);
	lone_hist_add(be, 2, seen - t.queued);
	lone_hist_add(be, 3, end - seen);
}

/* Takes idle completion thread @id off the stack; under w->lock. */
void unpark(worker *w, unsigned int id)
{
	unsigned int i = 0;

	while (i < w->nr_idle && w->idle[i] != id)
		i++;
	for (; i + 1 < w->nr_idle; i++)
		w->idle[i] = w->idle[i + 1];
	w->nr_idle--;
	w->parked[id] = false;
}

void *completer(void *arg)
{
	const worker::completer_arg *a = (const worker::completer_arg *)arg;
	worker *w = a->w;
	unsigned int me = a->id;

	/* Named for top -H, and for the benchmark's CPU split by thread. */
	pthread_setname_np(pthread_self(), "gpuaes-cudadone");
	cudaSetDevice(w->dev);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->claim == w->tail && !w->stop) {
			if (!w->parked[me]) {
				w->parked[me] = true;
				w->idle[w->nr_idle++] = me;
			}
			pthread_cond_wait(&w->wake[me], &w->lock);
		}
		if (w->parked[me])	/* woken by stop, or spuriously */
			unpark(w, me);
		if (w->claim == w->tail)
			break;
		slot *s = &w->slots[w->claim % NR_SLOTS];
		bool oldest = w->head == w->claim, lone = s->lone;
		lone_times lt = s->lt;	/* the slot is reused after done() */
		uint64_t t_claim = lone ? now_ns() : 0, t_seen = 0;
		/* whether waking this thread, not the GPU, was the longer */
		bool ended = lone && s->by_word && word_seen(s);

		w->claim++;
		pthread_mutex_unlock(&w->lock);
		if (!s->failed && !wait_done(w, s, oldest))
			s->failed = true;
		if (lone)
			t_seen = now_ns();
		/*
		 * A failed batch may still have copies queued: let them end
		 * (or the context die) before its data space is handed back.
		 */
		if (s->failed) {
			cudaStreamSynchronize(s->stream);
			cudaStreamSynchronize(s->stream2);
		}
		struct gpu_aes_batch *b = s->batch;
		bool to_cpu = s->failed && !s->wrote;
		bool failed = s->failed && !to_cpu;

		if (!s->failed && s->gcm)
			gcm_finish(w->be->region, s, b);
		/*
		 * The slot goes back under the lock below: the core sees it.
		 * A kernel that took the ticket left it zero, and the sums
		 * too if it handed them over.
		 */
		if (s->gcm || s->by_word)
			s->ghash_clean = !s->failed &&
					 (s->hand_over || !s->gcm);

		/*
		 * The GPU is done with the slot: hand it back before done(),
		 * whose reaping and copy-out can take long for a big batch,
		 * so the core can keep the GPU busy meanwhile.
		 */
		pthread_mutex_lock(&w->lock);
		w->inflight_bytes -= s->bytes;
		s->batch = NULL;
		s->finished = true;
		while (w->head != w->claim &&
		       w->slots[w->head % NR_SLOTS].finished) {
			w->slots[w->head % NR_SLOTS].finished = false;
			w->head++;
		}
		w->in_done++;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
		uint64_t t0 = now_ns();
		if (to_cpu)
			cpu_run(w->be, b);
		else
			finish(w, b, failed);
		uint64_t t1 = now_ns();
		__atomic_add_fetch(&w->be->done_ns, t1 - t0, __ATOMIC_RELAXED);
		if (lone)
			lone_account(w->be, lt, t_claim, ended, t_seen, t1);
		pthread_mutex_lock(&w->lock);
		w->in_done--;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

typedef gpu_aes_run run;

void merge_runs(std::vector<run> &runs)
{
	runs.resize(gpu_aes_merge_runs(runs.data(), runs.size()));
}

/*
 * One call for all of a batch's runs each way: a batch of 4 KiB requests
 * from every queue has a run or two per queue, and a cudaMemcpyAsync per
 * run cost the core, the one thread that takes every batch, more than
 * checking the requests.  The batch call falls back to one call per run
 * on a driver that does not have it.
 */
bool copy_runs(worker *w, const std::vector<run> &runs, uint8_t *host,
	       bool to_dev, cudaStream_t st)
{
	size_t n = runs.size();

	if (n > 1 && w->batch_copy) {
		cudaMemcpyAttributes attr = {};
		size_t first = 0;
		cudaError_t e;

		w->cp_dst.resize(n);
		w->cp_src.resize(n);
		w->cp_len.resize(n);
		for (size_t i = 0; i < n; i++) {
			uint8_t *dev = w->d_data + runs[i].off;
			uint8_t *hst = host + runs[i].off;

			w->cp_dst[i] = to_dev ? dev : hst;
			w->cp_src[i] = to_dev ? hst : dev;
			w->cp_len[i] = runs[i].end - runs[i].off;
		}
		/* The device side is written by the stream's kernel. */
		attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
		e = cudaMemcpyBatchAsync(w->cp_dst.data(), w->cp_src.data(),
					 w->cp_len.data(), n, &attr, &first, 1,
					 st);
		if (e != cudaErrorNotSupported &&
		    e != cudaErrorCallRequiresNewerDriver)
			return CK(w, e);
		(void)cudaGetLastError();
		w->batch_copy = false;
		gpu_aes_log(LOG_INFO, "cuda: gpu %d: no batched copies (%s), one call per run",
			    w->dev, cudaGetErrorString(e));
	}
	for (const run &x : runs)
		if (!CK(w, cudaMemcpyAsync(
				    to_dev ? w->d_data + x.off : host + x.off,
				    to_dev ? host + x.off : w->d_data + x.off,
				    x.end - x.off,
				    to_dev ? cudaMemcpyHostToDevice :
					     cudaMemcpyDeviceToHost, st)))
			return false;
	return true;
}

/* Bytes of the data area a segment's kernel reads or writes. */
uint64_t kspan(const gpu_aes_kseg &k)
{
	if (gpu_aes_kop_has(k.op, GPU_AES_KOPF_GHASH))
		return gpu_aes_gcm_aad_off(0, k.len) + k.aad_len;
	return k.len;
}

/*
 * The kernel's view of request g, in k; g->status becomes its status
 * unless the GPU fails.  A request its algorithm cannot take (the core
 * checks these too) becomes an empty segment with GPU_AES_STATUS_EINVAL.
 * *ecb: k->aux holds a block still to go through the key's host AES
 * (encrypt_aux()).  false: the key could not be made ready (the caller
 * sends the batch to the CPU).
 */
bool make_kseg(worker *w, const gpu_aes_region *r, gpu_aes_segment *g,
	       gpu_aes_kseg *k, bool *ecb)
{
	const gpu_aes_key *e = &r->keys[g->key_slot];
	uint32_t key_len, tweak_len;

	if (!key_current(w, g->key_slot, g->key_gen) &&
	    key_ensure(w, r, g->key_slot, g->key_gen) < 0)
		return false;
	key_len = e->key_len;
	tweak_len = e->tweak_len;
	memset(k, 0, sizeof(*k));
	k->off = g->data_off;
	k->len = g->len;
	k->key = g->key_slot;
	k->rounds = (uint8_t)(key_len / 4 + 6);
	gpu_aes_ctr_load(g->iv, &k->ctr_hi, &k->ctr_lo);
	g->status = GPU_AES_STATUS_OK;
	int host_ecb = 0;

	if (gpu_aes_kseg_mode(k, g->alg, g->dir, g->iv, tweak_len,
			      g->auth_len, g->aad_len, &host_ecb)) {
		*ecb = host_ecb != 0;
		return true;
	}
	/* An op with no chunks: the first, with no text. */
	k->op = 0;
	k->len = 0;
	g->status = GPU_AES_STATUS_EINVAL;
	return true;
}

/*
 * Runs the aux blocks of segments w->ecb_idx (all under key slot k)
 * through k's host AES in one call: one EVP call per block cost the core
 * more than the AES (AES-NI pipelines many blocks at once).
 */
bool encrypt_aux(worker *w, gpu_aes_kseg *segs, uint16_t k)
{
	size_t n = w->ecb_idx.size(), i;
	int out = 0;
	bool ok;

	if (!n)
		return true;
	w->ecb_buf.resize(16 * n);
	for (i = 0; i < n; i++)
		memcpy(&w->ecb_buf[16 * i], segs[w->ecb_idx[i]].aux, 16);
	ok = EVP_EncryptUpdate(w->hctx[k], w->ecb_buf.data(), &out,
			       w->ecb_buf.data(), (int)(16 * n)) == 1 &&
	     out == (int)(16 * n);
	for (i = 0; ok && i < n; i++)
		memcpy(segs[w->ecb_idx[i]].aux, &w->ecb_buf[16 * i], 16);
	OPENSSL_cleanse(w->ecb_buf.data(), 16 * n);	/* E_K(J0), tweaks */
	w->ecb_idx.clear();
	return ok;
}

/*
 * s->h_segs[] from the batch's segments; the aux blocks go through the
 * host AES in runs of one key, each run before the key's context could
 * change (key_ensure() of another generation).  false: as make_kseg().
 */
bool make_ksegs(worker *w, const gpu_aes_region *r, slot *s,
		struct gpu_aes_batch *b)
{
	uint16_t run_key = 0;

	w->ecb_idx.clear();
	for (uint32_t i = 0; i < b->nr; i++) {
		gpu_aes_segment *g = &b->segs[i];
		gpu_aes_kseg *k = &s->h_segs[i];
		bool ecb = false;

		if (!w->ecb_idx.empty() &&
		    (g->key_slot != run_key ||
		     !key_current(w, run_key, g->key_gen)) &&
		    !encrypt_aux(w, s->h_segs, run_key))
			return false;
		if (!make_kseg(w, r, g, k, &ecb))
			return false;
		if (ecb) {
			run_key = g->key_slot;
			w->ecb_idx.push_back(i);
		}
		if (gpu_aes_kop_has(k->op, GPU_AES_KOPF_GHASH))
			s->gcm = true;
		if (gpu_aes_kop_has(k->op, GPU_AES_KOPF_EXT))
			s->ext = true;
	}
	return encrypt_aux(w, s->h_segs, run_key);
}

/*
 * A large copy-engine batch (segment tables already in s->h_segs): pieces
 * of consecutive segments, alternately on the slot's two streams, each
 * upload -> kernel -> copy-back; the slot's event joins both streams.
 */
bool enqueue_pieces(gpu_aes_backend *be, worker *w, slot *s,
		    struct gpu_aes_batch *b)
{
	const gpu_aes_region *r = be->region;
	uint32_t n = b->nr, max_ctas = (uint32_t)w->sms * w->shape.ctas_per_sm;
	struct piece { uint32_t s0, s1; size_t c0, nch, nenc, nser; };
	std::vector<piece> pcs;
	size_t nch = 0;

	for (uint32_t i = 0; i < n;) {
		piece p = { i, i, nch, 0, 0, 0 };
		uint64_t bytes = 0;

		while (p.s1 < n && (bytes < PIECE || p.s1 == p.s0))
			bytes += kspan(s->h_segs[p.s1++]);
		uint32_t chunk = gpu_aes_chunk_blocks(s->h_segs + p.s0,
						      p.s1 - p.s0, max_ctas);
		p.nch = gpu_aes_count_chunks(s->h_segs + p.s0, p.s1 - p.s0,
					     chunk);
		if (nch + p.nch > w->max_chunks)
			return false;
		p.nenc = gpu_aes_build_chunks(s->h_segs + p.s0, p.s1 - p.s0,
					      chunk, s->h_chunks + nch, &p.nser);
		gpu_aes_chunk_aux(s->h_segs + p.s0, w->h_keys, r->data,
				  s->h_chunks + nch, p.nch);
		nch += p.nch;
		pcs.push_back(p);
		i = p.s1;
	}
	/* Pieces on two streams cannot share a ticket: copied after. */
	s->hand_over = false;
	if (s->gcm)
		s->ghash_clean = false;
	if ((s->gcm && !CK(w, cudaMemsetAsync(s->d_ghash, 0, n * 16,
					      s->stream))) ||
	    !CK(w, cudaMemcpyAsync(s->d_segs, s->h_segs, n * sizeof(gpu_aes_kseg),
				   cudaMemcpyHostToDevice, s->stream)) ||
	    !CK(w, cudaMemcpyAsync(s->d_chunks, s->h_chunks,
				   nch * sizeof(gpu_aes_kchunk),
				   cudaMemcpyHostToDevice, s->stream)) ||
	    !CK(w, cudaEventRecord(s->tab_ev, s->stream)) ||
	    !CK(w, cudaStreamWaitEvent(s->stream2, s->tab_ev, 0)))
		return false;
	for (size_t k = 0; k < pcs.size(); k++) {
		const piece &p = pcs[k];
		cudaStream_t st = k % 2 ? s->stream2 : s->stream;
		std::vector<run> runs;
		gpu_aes_launch l;

		for (uint32_t i = p.s0; i < p.s1; i++)
			if (kspan(s->h_segs[i]))
				runs.push_back({ s->h_segs[i].off,
						 s->h_segs[i].off +
						 kspan(s->h_segs[i]) });
		merge_runs(runs);
		if (!copy_runs(w, runs, r->data, true, st)) {
			if (!s->wrote)
				return false;
			s->failed = true;
			return true;
		}
		memset(&l, 0, sizeof(l));
		l.caps = &w->caps;
		l.base = w->d_data;
		l.segs = s->d_segs + p.s0;
		l.chunks = s->d_chunks + p.c0;
		l.keys = w->d_keys;
		l.ghash = s->gcm ? s->d_ghash + 4 * (size_t)p.s0 : nullptr;
		l.ext = s->ext;
		l.nchunks = (uint32_t)p.nch;
		l.nenc = (uint32_t)p.nenc;
		l.nser = (uint32_t)p.nser;
		l.shape = w->shape;
		l.max_ctas = max_ctas;
		s->wrote = true;
		if (gpu_aes_kernel_launch(&l, st)) {
			CK(w, cudaGetLastError());
			w->dead = true;
			s->failed = true;
			return true;
		}
		if (!copy_runs(w, runs, r->data, false, st)) {
			s->failed = true;
			return true;
		}
	}
	if (!CK(w, cudaEventRecord(s->join_ev, s->stream2)) ||
	    !CK(w, cudaStreamWaitEvent(s->stream, s->join_ev, 0)) ||
	    (s->gcm && !CK(w, cudaMemcpyAsync(s->h_ghash, s->d_ghash, n * 16,
					      cudaMemcpyDeviceToHost,
					      s->stream))) ||
	    !CK(w, cudaEventRecord(s->done_ev, s->stream)))
		s->failed = true;
	__atomic_add_fetch(&be->stats.copy_batches, 1, __ATOMIC_RELAXED);
	return true;
}

/*
 * Queues one batch on worker w, in slot s.  Returns false when nothing of
 * it was queued that could write the region (the caller sends it to the
 * CPU); errors after that point mark the slot failed (EIO).
 */
bool enqueue(gpu_aes_backend *be, worker *w, slot *s, struct gpu_aes_batch *b)
{
	const gpu_aes_region *r = be->region;
	std::vector<run> &runs = w->runs;
	uint32_t n = b->nr;

	if (n > w->max_segs)
		return false;
	s->gcm = false;
	s->ext = false;
	s->by_word = false;
	s->nr = n;
	if (!make_ksegs(w, r, s, b))
		return false;
	bool zc = gpu_aes_batch_zero_copy(s->h_segs, n, b->bytes, be->zc_max);
	runs.clear();
	for (uint32_t i = 0; !zc && i < n; i++)
		if (kspan(s->h_segs[i]))
			runs.push_back({ s->h_segs[i].off,
					 s->h_segs[i].off + kspan(s->h_segs[i]) });
	if (!zc && b->bytes > 2 * (uint64_t)PIECE)
		return enqueue_pieces(be, w, s, b);
	gpu_aes_shape shape = w->shape;
	if (b->bytes < SMALL_BATCH)
		shape = GPU_AES_SHAPE_SMALL;
	uint32_t max_ctas = (uint32_t)w->sms * shape.ctas_per_sm;
	uint32_t chunk = gpu_aes_chunk_blocks(s->h_segs, n, max_ctas);
	size_t nch = gpu_aes_count_chunks(s->h_segs, n, chunk);
	if (nch > w->max_chunks)
		return false;
	size_t nser;
	size_t nenc = gpu_aes_build_chunks(s->h_segs, n, chunk, s->h_chunks,
					   &nser);
	gpu_aes_chunk_aux(s->h_segs, w->h_keys, r->data, s->h_chunks, nch);
	bool inl = n <= GPU_AES_INLINE_MAX && nch <= GPU_AES_INLINE_MAX;
	gpu_aes_launch l;

	memset(&l, 0, sizeof(l));
	l.caps = &w->caps;
	if (inl) {
		memcpy(l.inl.segs, s->h_segs, n * sizeof(gpu_aes_kseg));
		memcpy(l.inl.chunks, s->h_chunks, nch * sizeof(gpu_aes_kchunk));
	} else if (!CK(w, cudaMemcpyAsync(s->d_segs, s->h_segs,
					  n * sizeof(gpu_aes_kseg),
					  cudaMemcpyHostToDevice, s->stream)) ||
		   !CK(w, cudaMemcpyAsync(s->d_chunks, s->h_chunks,
					  nch * sizeof(gpu_aes_kchunk),
					  cudaMemcpyHostToDevice, s->stream))) {
		return false;
	}
	if (!zc) {
		merge_runs(runs);
		if (!copy_runs(w, runs, r->data, true, s->stream))
			return false;
	}
	/*
	 * GCM: the kernel hands the sums over to h_ghash itself and leaves
	 * d_ghash zero; zeroed here only after a batch that did not.  A
	 * zero-copy kernel is the batch's last operation: it stores the
	 * completion word, on the same ticket.
	 */
	bool hand_over = s->gcm && nch > 0;
	bool by_word = zc && nch > 0;

	if ((s->gcm || by_word) && !s->ghash_clean &&
	    !CK(w, cudaMemsetAsync(s->d_ghash, 0,
				   (size_t)w->max_segs * 16 + 16, s->stream)))
		return false;
	if (s->gcm || by_word)
		s->ghash_clean = false;
	s->hand_over = hand_over;
	l.base = zc ? w->zc_data : w->d_data;
	l.segs = inl ? nullptr : s->d_segs;
	l.chunks = inl ? nullptr : s->d_chunks;
	l.keys = w->d_keys;
	l.ghash = s->gcm ? s->d_ghash : nullptr;
	if (hand_over) {
		l.ghash_out = s->dv_ghash;
		l.ghash_words = 4 * n;
	}
	if (by_word) {
		l.done = s->dv_done;
		l.done_value = ++s->done_seq;
	}
	if (hand_over || by_word)
		l.ticket = s->d_ghash + 4 * (size_t)w->max_segs;
	l.ext = s->ext;
	l.nchunks = (uint32_t)nch;
	l.nenc = (uint32_t)nenc;
	l.nser = (uint32_t)nser;
	l.shape = shape;
	l.max_ctas = max_ctas;
	l.stage = s->gcm && b->bytes <= STAGE_BATCH;
	/* From here on the region may be written: failures are EIO. */
	s->wrote = true;
	if (s->lone)
		s->lt.launch = now_ns();
	if (gpu_aes_kernel_launch(&l, s->stream)) {
		CK(w, cudaGetLastError());
		w->dead = true;
		s->failed = true;
		return true;
	}
	if (s->lone)
		s->lt.launched = now_ns();
	s->by_word = by_word;
	if (!zc && !copy_runs(w, runs, r->data, false, s->stream)) {
		s->failed = true;
		return true;
	}
	if (s->gcm && !hand_over &&
	    !CK(w, cudaMemcpyAsync(s->h_ghash, s->d_ghash, n * 16,
				   cudaMemcpyDeviceToHost, s->stream))) {
		s->failed = true;
		return true;
	}
	if (!by_word && !CK(w, cudaEventRecord(s->done_ev, s->stream)))
		s->failed = true;
	__atomic_add_fetch(zc ? &be->stats.zc_batches : &be->stats.copy_batches,
			   1, __ATOMIC_RELAXED);
	return true;
}

void worker_free(worker *w)
{
	if (!w)
		return;
	cudaSetDevice(w->dev);
	if (w->nr_completers) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		for (pthread_cond_t &c : w->wake)
			pthread_cond_signal(&c);
		pthread_mutex_unlock(&w->lock);
		for (unsigned int i = 0; i < w->nr_completers; i++)
			pthread_join(w->completer[i], NULL);
	}
	keys_free(w);
	for (slot &s : w->slots) {
		if (s.h_segs)	/* E_K(J0), tweaks */
			OPENSSL_cleanse(s.h_segs, w->max_segs * sizeof(gpu_aes_kseg));
		cudaFreeHost(s.h_segs);
		cudaFreeHost(s.h_ghash);
		cudaFree(s.d_ghash);
		cudaFreeHost(s.h_done);
		cudaFreeHost(s.h_chunks);
		cudaFree(s.d_segs);
		cudaFree(s.d_chunks);
		if (s.stream)
			cudaStreamDestroy(s.stream);
		if (s.stream2)
			cudaStreamDestroy(s.stream2);
		if (s.done_ev)
			cudaEventDestroy(s.done_ev);
		if (s.tab_ev)
			cudaEventDestroy(s.tab_ev);
		if (s.join_ev)
			cudaEventDestroy(s.join_ev);
	}
	cudaFree(w->d_data);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	for (pthread_cond_t &c : w->wake)
		pthread_cond_destroy(&c);
	delete w;
}

/*
 * What @info says of a GPU before its kernels are set up: from its
 * properties, which the status file reports whether it is used or not.
 */
void gpu_facts(const cudaDeviceProp &p, gpu_aes_gpu_info *info)
{
	snprintf(info->name, sizeof(info->name), "%s", p.name);
	info->memory_bytes = p.totalGlobalMem;
	snprintf(info->pci, sizeof(info->pci), "%04x:%02x:%02x.0",
		 (unsigned int)p.pciDomainID & 0xffffU,
		 (unsigned int)p.pciBusID & 0xffU,
		 (unsigned int)p.pciDeviceID & 0x1fU);
	info->cc = 10 * p.major + p.minor;
}

/*
 * The kernels set up on the current GPU, its code path chosen
 * (gpu_aes_kernel_init()) into w->caps and @info, and logged: false when
 * it cannot be used, info->reason saying why.
 */
bool kernel_setup(worker *w, const cudaDeviceProp &p, const char *path_option,
		  gpu_aes_gpu_info *info)
{
	const gpu_aes_kernel_caps *c = &w->caps;
	uint64_t t0 = now_ns();
	char code[64];
	double s;

	if (gpu_aes_kernel_init(path_option, &w->caps)) {
		snprintf(info->reason, sizeof(info->reason), "%s", c->why);
		gpu_aes_log(LOG_WARNING, "cuda: gpu %d %s (compute capability %d.%d) not used: %s",
			    w->dev, p.name, p.major, p.minor, c->why);
		return false;
	}
	s = (now_ns() - t0) / 1e9;
	snprintf(info->path, sizeof(info->path), "%s",
		 gpu_aes_path_name(c->path));
	info->code_sm = c->code_sm;
	info->code_ptx = c->code_ptx;
	info->jit = c->jit;
	gpu_aes_code_name(c, code, sizeof(code));
	gpu_aes_log(LOG_INFO, "cuda: gpu %d %s (compute capability %d.%d): %s path%s%s%s, code %s",
		    w->dev, p.name, p.major, p.minor, info->path,
		    c->why[0] ? " (" : "", c->why, c->why[0] ? ")" : "", code);
	if (s >= 1.0)
		gpu_aes_log(LOG_INFO, "cuda: gpu %d: its kernels took %.1f s to load%s",
			    w->dev, s, c->jit ?
			    " (the driver's JIT; its cache, CUDA_CACHE_PATH, keeps the result)" :
			    "");
	return true;
}

/* A worker on GPU @dev; NULL when it cannot run there (@info says why). */
worker *worker_new(gpu_aes_backend *be, int dev, const char *path_option,
		   gpu_aes_gpu_info *info)
{
	const gpu_aes_region *r = be->region;
	worker *w = new worker();
	cudaDeviceProp p;

	memset(info, 0, sizeof(*info));
	info->id = dev;

	w->be = be;
	w->dev = dev;
	w->batch_copy = env_u64("GPU_AES_CUDA_BATCH_COPY", 1) != 0;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	for (pthread_cond_t &c : w->wake)
		pthread_cond_init(&c, NULL);
	/* A batch holds at most every queue's entries. */
	w->max_segs = r->nr_queues * r->queue_entries;
	/*
	 * Worst case: every chunk the minimum size, one partial per segment,
	 * and a GCM segment's hash stream up to 33 blocks longer than its
	 * bytes (zero blocks in front, lengths block).
	 */
	w->max_chunks = (uint32_t)(r->data_size / 16 / GPU_AES_CHUNK_MIN) +
			2 * w->max_segs;
	if (!CK(w, cudaSetDevice(dev)) ||
	    !CK(w, cudaGetDeviceProperties(&p, dev)))
		goto fail;
	gpu_facts(p, info);
	if (!kernel_setup(w, p, path_option, info))
		goto fail;
	if (!CK(w, cudaMalloc(&w->d_data, r->data_size)) ||
	    !CK(w, cudaHostGetDevicePointer((void **)&w->zc_data, r->data, 0)) ||
	    !keys_init(w, r->nr_keys))
		goto fail;
	w->sms = p.multiProcessorCount;
	for (slot &s : w->slots)
		if (!CK(w, cudaStreamCreateWithFlags(&s.stream,
						     cudaStreamNonBlocking)) ||
		    !CK(w, cudaStreamCreateWithFlags(&s.stream2,
						     cudaStreamNonBlocking)) ||
		    !CK(w, cudaEventCreateWithFlags(&s.tab_ev,
						    cudaEventDisableTiming)) ||
		    !CK(w, cudaEventCreateWithFlags(&s.join_ev,
						    cudaEventDisableTiming)) ||
		    !CK(w, cudaEventCreateWithFlags(&s.done_ev,
						    cudaEventDisableTiming |
						    cudaEventBlockingSync)) ||
		    !CK(w, cudaMallocHost(&s.h_segs, w->max_segs * sizeof(gpu_aes_kseg))) ||
		    !CK(w, cudaMallocHost(&s.h_chunks, w->max_chunks * sizeof(gpu_aes_kchunk))) ||
		    !CK(w, cudaMalloc(&s.d_segs, w->max_segs * sizeof(gpu_aes_kseg))) ||
		    !CK(w, cudaMalloc(&s.d_chunks, w->max_chunks * sizeof(gpu_aes_kchunk))) ||
		    !CK(w, cudaMallocHost(&s.h_ghash, w->max_segs * 16)) ||
		    !CK(w, cudaHostGetDevicePointer((void **)&s.dv_ghash,
						    s.h_ghash, 0)) ||
		    !CK(w, cudaMallocHost(&s.h_done, sizeof(*s.h_done))) ||
		    !CK(w, cudaHostGetDevicePointer((void **)&s.dv_done,
						    s.h_done, 0)) ||
		    /* and the ticket word of a launch's last CTA */
		    !CK(w, cudaMalloc(&s.d_ghash, w->max_segs * 16 + 16)) ||
		    !CK(w, cudaMemset(s.d_ghash, 0, w->max_segs * 16 + 16)))
			goto fail;
		else
			*s.h_done = 0;
	for (slot &s : w->slots)
		s.ghash_clean = true;
	load_shape(w, p);
	if (w->dead)
		goto fail;
	for (unsigned int i = 0; i < NR_COMPLETERS; i++)
		w->completer_args[i] = { w, i };
	while (w->nr_completers < NR_COMPLETERS &&
	       !pthread_create(&w->completer[w->nr_completers], NULL,
			       completer,
			       &w->completer_args[w->nr_completers]))
		w->nr_completers++;
	if (!w->nr_completers)
		goto fail;
	gpu_aes_log(LOG_INFO, "cuda: gpu %d %s, %d SMs, variant %u threads %u bpt %u ctas/sm %u",
		    dev, p.name, w->sms, w->shape.variant, w->shape.threads,
		    w->shape.bpt, w->shape.ctas_per_sm);
	info->usable = 1;
	return w;
fail:
	if (!info->reason[0])
		snprintf(info->reason, sizeof(info->reason),
			 "cannot start on it: %s",
			 w->error ? w->error : "no completion thread");
	worker_free(w);
	return nullptr;
}

int cuda_probe(void)
{
	int n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1)
		return -ENODEV;
	return 0;
}

void cuda_close(struct gpu_aes_backend *be);

int cuda_open(const struct gpu_aes_backend_config *cfg,
	      const struct gpu_aes_region *region,
	      struct gpu_aes_backend **out)
{
	gpu_aes_backend *be = new gpu_aes_backend();
	struct gpu_aes_backend_config cpu_cfg = {};
	struct gpu_aes_gpu_report *rep = cfg ? cfg->report : nullptr;
	int devs[GPU_AES_MAX_GPUS], nsel, ndev = 0;
	const char *why = "no usable GPU";
	char buf[sizeof(rep->why)];
	cudaError_t e;

	if (rep)
		memset(rep, 0, sizeof(*rep));
	be->region = region;
	pthread_mutex_init(&be->cpu_lock, NULL);
	be->zc_max = env_u64("GPU_AES_CUDA_ZC_MAX", 256U << 10);
	be->cpu_below = env_u64("GPU_AES_CUDA_CPU_BELOW", 0);
	be->sync_spin_ns = env_u64("GPU_AES_CUDA_SYNC_SPIN_US", 20) * 1000;
	be->cpu_ops = &gpu_aes_backend_cpu;
	if (be->cpu_ops->open(&cpu_cfg, region, &be->cpu)) {
		be->cpu = nullptr;
		why = "cannot open the cpu backend it falls back on";
		goto fail;
	}
	if ((e = cudaGetDeviceCount(&ndev)) != cudaSuccess || ndev < 1) {
		why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA GPU";
		goto fail;
	}
	nsel = gpu_aes_parse_gpus(cfg ? cfg->gpus : NULL, ndev, devs,
				  GPU_AES_MAX_GPUS);
	if (nsel < 1) {
		snprintf(buf, sizeof(buf),
			 "--gpus '%s' names no GPU of the %d here, or one twice",
			 cfg && cfg->gpus ? cfg->gpus : "", ndev);
		why = buf;
		goto fail;
	}
	e = cudaHostRegister(region->base, region->size,
			     cudaHostRegisterMapped | cudaHostRegisterPortable);
	if (!ck(nullptr, e, "cudaHostRegister", __FILE__, __LINE__)) {
		snprintf(buf, sizeof(buf), "cannot register the shared region: %s",
			 cudaGetErrorString(e));
		why = buf;
		goto fail;
	}
	be->registered = true;
	for (int i = 0; i < nsel; i++) {
		gpu_aes_gpu_info info;
		worker *w = worker_new(be, devs[i], cfg ? cfg->gpu_path : NULL,
				       &info);

		if (w)
			be->workers.push_back(w);
		if (rep)
			rep->gpus[rep->nr++] = info;
	}
	if (be->workers.empty())
		goto fail;
	*out = be;
	return 0;
fail:
	if (rep)
		snprintf(rep->why, sizeof(rep->why), "%s", why);
	cuda_close(be);
	return -ENODEV;
}

void submit_one(struct gpu_aes_backend *be, struct gpu_aes_batch *b,
		uint64_t t0);

/*
 * The core calls this on its only thread: every batch waits for it, so
 * its cost caps requests/s once it nears a whole CPU (57 % of one at 4
 * KiB on 16 threads, 721baa5:bench-results/2026-11-27-h200-qd).
 */
void cuda_submit(struct gpu_aes_backend *be, struct gpu_aes_batch *b)
{
	uint64_t t0 = now_ns();

	submit_one(be, b, t0);
	__atomic_add_fetch(&be->submit_ns, now_ns() - t0, __ATOMIC_RELAXED);
}

void submit_one(struct gpu_aes_backend *be, struct gpu_aes_batch *b,
		uint64_t t0)
{
	int i;

	if (b->nr == 0 || (be->cpu_below && b->bytes < be->cpu_below) ||
	    (i = pick_worker(be)) < 0) {
		cpu_run(be, b);
		return;
	}
	worker *w = be->workers[i];

	pthread_mutex_lock(&w->lock);
	while (w->tail - w->head >= NR_SLOTS)
		pthread_cond_wait(&w->cond, &w->lock);
	slot *s = &w->slots[w->tail % NR_SLOTS];
	bool lone = w->head == w->tail && b->nr == 1;
	/*
	 * Queued without the lock: the slot at tail is the core's alone
	 * (no completion thread looks past tail, none touches a slot after
	 * handing it back), and this is the core's only thread; a batch's
	 * queuing takes 6 us to over 100, which completion threads handing
	 * slots back would otherwise spend waiting for the lock.
	 */
	pthread_mutex_unlock(&w->lock);
	s->batch = b;
	s->bytes = b->bytes;
	s->wrote = false;
	s->failed = false;
	s->lone = lone;
	s->lt = { t0, 0, 0, 0 };
	cudaSetDevice(w->dev);
	if (w->dead || !enqueue(be, w, s, b)) {
		if (!s->wrote) {
			cpu_run(be, b);
			return;
		}
		s->failed = true;
	}
	if (s->lone)
		s->lt.queued = now_ns();
	pthread_mutex_lock(&w->lock);
	w->inflight_bytes += s->bytes;
	w->batches++;
	w->bytes += s->bytes;
	w->tail++;
	/*
	 * One completion thread, the one idle the shortest time: waking
	 * them all cost the core ~10 us per lone batch.  The longest idle
	 * (pthread_cond_signal's pick) measured QD1 64 KiB p50 at 214 us
	 * instead of 45 (helper/cuda/NOTES.md): its vCPU may be slow to
	 * wake.  A thread that is busy claims the next slot itself, and the
	 * next batch queued wakes another if this one is slow.
	 */
	if (w->nr_idle) {
		unsigned int id = w->idle[--w->nr_idle];

		w->parked[id] = false;
		pthread_cond_signal(&w->wake[id]);
	}
	pthread_mutex_unlock(&w->lock);
}

void cuda_drain(struct gpu_aes_backend *be)
{
	for (worker *w : be->workers) {
		pthread_mutex_lock(&w->lock);
		while (w->head != w->tail || w->in_done)
			pthread_cond_wait(&w->cond, &w->lock);
		pthread_mutex_unlock(&w->lock);
	}
}

/*
 * The core calls this with no batch in flight, on the thread that also runs
 * key_ensure(), so no launch can be reading a schedule we wipe: drop every
 * copy whose key table entry the kernel wiped or rewrote since the upload,
 * so a freed tfm's key does not outlive it here.
 */
bool cuda_idle(struct gpu_aes_backend *be)
{
	const struct gpu_aes_region *r = be->region;
	bool holds = false;

	for (worker *w : be->workers) {
		/* E_K(J0) and XTS tweaks of the last batches (kseg.aux) */
		for (slot &s : w->slots) {
			if (s.nr)
				OPENSSL_cleanse(s.h_segs, s.nr * sizeof(gpu_aes_kseg));
			s.nr = 0;
		}
		holds |= keys_drop_stale(w, r);
	}
	if (be->cpu && be->cpu_ops->idle) {
		pthread_mutex_lock(&be->cpu_lock);
		holds |= be->cpu_ops->idle(be->cpu);
		pthread_mutex_unlock(&be->cpu_lock);
	}
	return holds;
}

void cuda_close(struct gpu_aes_backend *be)
{
	if (!be)
		return;
	cuda_drain(be);
	uint64_t nb = be->stats.zc_batches + be->stats.copy_batches +
		      be->stats.cpu_batches;
	if (!be->workers.empty() && nb)
		gpu_aes_log(LOG_INFO, "cuda: batches: %llu zero-copy, %llu copy engines, %llu cpu, %llu failed (EIO); per batch: submit %.1f us, completion %.1f us",
			    (unsigned long long)be->stats.zc_batches,
			    (unsigned long long)be->stats.copy_batches,
			    (unsigned long long)be->stats.cpu_batches,
			    (unsigned long long)be->stats.eio_batches,
			    be->submit_ns / 1e3 / nb, be->done_ns / 1e3 / nb);
	if (be->lone_n)
		gpu_aes_log(LOG_INFO, "cuda: %llu lone requests (one at a time on the GPU); per request: enqueue %.1f us (before the launch %.1f, the launch call %.1f), then held by a completion thread after %.1f us, the GPU's end seen after %.1f us, done() %.1f us",
			    (unsigned long long)be->lone_n,
			    be->lone_enqueue_ns / 1e3 / be->lone_n,
			    be->lone_launch_n ? be->lone_prelaunch_ns / 1e3 /
						be->lone_launch_n : 0.0,
			    be->lone_launch_n ? be->lone_launch_ns / 1e3 /
						be->lone_launch_n : 0.0,
			    be->lone_claim_ns / 1e3 / be->lone_n,
			    be->lone_gpu_ns / 1e3 / be->lone_n,
			    be->lone_done_ns / 1e3 / be->lone_n);
	if (be->lone_n)
		gpu_aes_log(LOG_INFO, "cuda: lone requests, medians: enqueue %.2f us, held after %.2f us, end seen after %.2f us, done() %.2f us; the GPU had ended before a thread looked for %.1f%%",
			    lone_median_us(be, 0), lone_median_us(be, 1),
			    lone_median_us(be, 2), lone_median_us(be, 3),
			    100.0 * be->lone_ended_n / be->lone_n);
	/* Which GPUs took the work: pick_worker() spreads it by bytes in flight. */
	for (worker *w : be->workers)
		if (w->batches)
			gpu_aes_log(LOG_INFO, "cuda: gpu %d: %llu batches, %.1f MiB",
				    w->dev, (unsigned long long)w->batches,
				    w->bytes / 1048576.0);
	for (worker *w : be->workers)
		worker_free(w);
	be->workers.clear();
	if (be->registered)
		cudaHostUnregister(be->region->base);
	if (be->cpu)
		be->cpu_ops->close(be->cpu);
	pthread_mutex_destroy(&be->cpu_lock);
	delete be;
}

/*
 * A batch per slot of every GPU: the core kept four in flight whatever the
 * slots, which left half of one GPU's idle and bounded 16 threads of 4 KiB
 * requests at 3.7-4.6 M/s (2ab1c55:bench-results/2026-11-27-inflight).
 */
unsigned int cuda_max_batches(struct gpu_aes_backend *be)
{
	return NR_SLOTS * (unsigned int)be->workers.size();
}

} /* namespace */

} /* namespace gpu_aes_cuda */

extern "C" void gpu_aes_cuda_get_stats(struct gpu_aes_backend *be,
				       struct gpu_aes_cuda_stats *out)
{
	out->zc_batches = __atomic_load_n(&be->stats.zc_batches,
					  __ATOMIC_RELAXED);
	out->copy_batches = __atomic_load_n(&be->stats.copy_batches,
					    __ATOMIC_RELAXED);
	out->cpu_batches = __atomic_load_n(&be->stats.cpu_batches,
					   __ATOMIC_RELAXED);
	out->eio_batches = __atomic_load_n(&be->stats.eio_batches,
					   __ATOMIC_RELAXED);
}

extern "C" const struct gpu_aes_backend_ops gpu_aes_backend_cuda = {
	"cuda", GPU_AES_ALGS_KNOWN,
	gpu_aes_cuda::cuda_probe, gpu_aes_cuda::cuda_open,
	gpu_aes_cuda::cuda_submit, gpu_aes_cuda::cuda_drain,
	gpu_aes_cuda::cuda_close, gpu_aes_cuda::cuda_idle,
	gpu_aes_cuda::cuda_max_batches,
};
