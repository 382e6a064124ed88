/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cuda_internal.h - what the parts of the cuda backend share, and nothing
 * outside helper/cuda/cuda_*.cu includes: the per-GPU worker with its
 * in-flight slots (cuda_pipeline.cu), the key copies it keeps
 * (cuda_keys.cu) and its launch shape (cuda_tuning.cu).  C++ only.
 */
#ifndef GPU_AES_CUDA_INTERNAL_H
#define GPU_AES_CUDA_INTERNAL_H

#include "aes_gpu.h"
#include "gpu_path.h"

#include <cuda_runtime.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <vector>

#include "../src/backend.h"
/* log.h is C without extern "C" guards. */
extern "C" {
#include "../src/log.h"
}

#define NR_SLOTS	8
#define NR_COMPLETERS	NR_SLOTS

namespace gpu_aes_cuda {

/*
 * A request alone on the GPU (a synchronous consumer's), CLOCK_MONOTONIC
 * ns: when the core handed it over, called the launch, got it back and
 * had the batch queued, for the breakdown of a QD1 request's time the log
 * gives at close.  launched is 0 when no single launch was timed.
 */
struct lone_times {
	uint64_t submit, launch, launched, queued;
};

struct slot {
	cudaStream_t stream;
	cudaStream_t stream2;	/* second stream for pieces of a large batch */
	cudaEvent_t done_ev;
	cudaEvent_t tab_ev, join_ev;
	gpu_aes_kseg *h_segs, *d_segs;
	gpu_aes_kchunk *h_chunks, *d_chunks;
	uint32_t *h_ghash, *d_ghash;	/* GCM: 4 words per segment */
	uint32_t *dv_ghash;		/* device view of h_ghash */
	/*
	 * The completion word (aes_kernel.h: done), and the value the
	 * slot's batch stores there when by_word.
	 */
	uint32_t *h_done, *dv_done;
	uint32_t done_seq;
	/*
	 * d_ghash and its ticket word (after max_segs segments' sums) are
	 * zero: the last kernel to use them handed the sums over itself
	 * (aes_kernel.h: ghash_out) or took the ticket alone.  Set by the
	 * completer, read by the core.
	 */
	bool ghash_clean;
	bool hand_over;			/* the last batch's kernel did that */
	bool gcm;			/* the batch has GCM segments */
	bool ext;			/* ... or XTS ones */
	bool by_word;	/* queued with no event: its kernel stores h_done */
	uint32_t nr;			/* h_segs entries the last batch used */
	struct gpu_aes_batch *batch;
	uint64_t bytes;
	bool wrote;	/* region may hold partial output if this fails */
	bool failed;
	bool finished;	/* done() returned; freed once it is the oldest */
	bool lone;	/* one request alone on the GPU */
	lone_times lt;
};

struct worker {
	struct gpu_aes_backend *be;
	int dev;
	int sms;
	bool dead;
	const char *error;	/* the first failed call's, for the report */
	gpu_aes_kernel_caps caps;	/* its code path (gpu_path.h) */
	gpu_aes_shape shape;	/* cuda_tuning.cu */
	uint8_t *d_data;	/* mirror of the data area */
	uint8_t *zc_data;	/* device view of region->data */

	/* Key copies, per key table slot (cuda_keys.cu). */
	uint32_t nr_keys;
	gpu_aes_dev_key *d_keys;
	gpu_aes_dev_key *h_keys;	/* secret memory (secret.h) */
	bool h_keys_pinned;		/* cudaHostRegister()ed */
	uint32_t *key_gen;	/* generation uploaded, per slot */
	uint8_t *key_valid;
	/*
	 * Per key slot, AES-ECB under the XTS tweak key (XTS entries) or the
	 * key itself (others): E_K2(iv) and E_K(J0) per request, on the CPU's
	 * constant-time AES, once per segment rather than once per GPU thread.
	 */
	EVP_CIPHER_CTX **hctx;
	cudaStream_t key_stream;

	uint32_t max_segs, max_chunks;
	/* copy_runs(): cudaMemcpyBatchAsync's arrays, kept between batches */
	bool batch_copy;
	std::vector<void *> cp_dst;
	std::vector<const void *> cp_src;
	std::vector<size_t> cp_len;
	/*
	 * enqueue(): the batch's copy runs, kept between batches: built anew
	 * for each, a batch of 600 requests grew it through ten allocations
	 */
	std::vector<gpu_aes_run> runs;
	/* make_ksegs(): segments whose aux awaits the host AES, and it */
	std::vector<uint32_t> ecb_idx;
	std::vector<uint8_t> ecb_buf;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* a slot or a done() finished */
	/*
	 * Idle completion threads, the one idle the shortest time on top: a
	 * queued batch wakes that one alone, on its own condition, as its
	 * CPU is the likeliest to be awake still.  parked: on the stack.
	 */
	pthread_cond_t wake[NR_COMPLETERS];
	unsigned int idle[NR_COMPLETERS], nr_idle;
	bool parked[NR_COMPLETERS];
	struct completer_arg {
		struct worker *w;
		unsigned int id;
	} completer_args[NR_COMPLETERS];
	slot slots[NR_SLOTS];
	/*
	 * Ring of slots in submission order: [head, claim) are taken by
	 * completion threads, [claim, tail) wait for one; a slot is reused
	 * once every older one has finished too.
	 */
	unsigned int head, claim, tail;
	unsigned int in_done;		/* done() calls running */
	uint64_t inflight_bytes;
	uint64_t batches, bytes;	/* taken, for the log at close */
	bool stop;
	pthread_t completer[NR_COMPLETERS];
	unsigned int nr_completers;
};

/*
 * Every CUDA call goes through CK: a failure is logged with the call and
 * where it was made, and marks the worker dead (w may be NULL) so that
 * later batches go to another GPU or the cpu backend.
 */
#define CK(w, call) ck((w), (call), #call, __FILE__, __LINE__)

inline bool ck(worker *w, cudaError_t e, const char *what, const char *file,
	       int line)
{
	if (e == cudaSuccess)
		return true;
	gpu_aes_log(LOG_ERR, "cuda: gpu %d: %s (%s:%d): %s", w ? w->dev : -1,
		    what, file, line, cudaGetErrorString(e));
	if (w) {
		w->dead = true;
		if (!w->error)
			w->error = cudaGetErrorString(e);
	}
	return false;
}

/* cuda_keys.cu; all after cudaSetDevice(w->dev). */
bool keys_init(worker *w, uint32_t nr_keys);
void keys_free(worker *w);
int key_ensure(worker *w, const gpu_aes_region *r, uint16_t k, uint32_t gen);

/*
 * Whether the worker holds generation @gen of slot @k already: what
 * key_ensure() checks first, inline here for the core, which asks it of
 * every request it batches.
 */
static inline bool key_current(const worker *w, uint16_t k, uint32_t gen)
{
	return w->key_valid[k] && w->key_gen[k] == gen;
}
/* Returns whether the worker still holds a key copy. */
bool keys_drop_stale(worker *w, const gpu_aes_region *r);

/* cuda_tuning.cu: w->shape from GPU_AES_CUDA_SHAPE, the cache or a run. */
void load_shape(worker *w, const cudaDeviceProp &p);

} /* namespace gpu_aes_cuda */

#endif /* GPU_AES_CUDA_INTERNAL_H */
