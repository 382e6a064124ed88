/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backend.h - what the helper core asks of an AES engine (cpu, cuda).
 *
 * The core drains the submission queue into a batch of segments and hands
 * the whole batch to one backend call; the backend transforms every
 * segment's bytes in place in the shared data area and fills in each
 * segment's status.  Batches may be completed asynchronously (the cuda
 * backend pipelines consecutive batches), so a backend reports a finished
 * batch through batch->done(), from any thread, exactly once.
 */
#ifndef GPU_AES_HELPER_BACKEND_H
#define GPU_AES_HELPER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../uapi/gpu_aes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One queue of the region: its indices and its two rings. */
struct gpu_aes_region_queue {
	struct gpu_aes_queue_hdr *qhdr;
	struct gpu_aes_sqe *sq;		/* queue_entries entries */
	struct gpu_aes_cqe *cq;		/* queue_entries entries */
};

/* The region as the helper sees it; all pointers are into one mapping. */
struct gpu_aes_region {
	void *base;
	size_t size;
	struct gpu_aes_region_hdr *hdr;
	struct gpu_aes_region_queue *queues;	/* nr_queues, malloc'ed */
	struct gpu_aes_key *keys;	/* nr_keys entries */
	uint8_t *data;			/* data_size bytes, all queues */
	uint32_t nr_queues;
	uint32_t queue_entries;
	uint32_t nr_keys;
	uint32_t page_size;
	uint64_t queue_data_size;	/* each queue's slice */
	uint64_t data_size;
	size_t map_size;		/* mapping length (>= size) */
	/*
	 * The algorithms both sides agreed on at SETUP (GPU_AES_ALG_BIT()):
	 * an entry of another is refused, whatever the header says.
	 */
	uint32_t algs;
};

/* One request: a copy of its sqe plus the result. */
struct gpu_aes_segment {
	uint32_t tag;
	uint32_t seq;
	uint16_t queue;		/* the queue it came on; its cqe goes there */
	uint8_t alg;		/* enum gpu_aes_alg */
	uint8_t dir;		/* enum gpu_aes_dir */
	uint16_t key_slot;	/* < region->nr_keys, checked by the core */
	uint32_t key_gen;
	uint64_t data_off;	/* span inside its queue's slice, checked */
	uint32_t len;		/* text bytes (see struct gpu_aes_sqe) */
	uint32_t aad_len;	/* GCM: associated data bytes; else 0 */
	uint8_t auth_len;	/* GCM: tag bytes; else 0 */
	uint8_t iv[16];
	int32_t status;		/* out: GPU_AES_STATUS_* */
};

struct gpu_aes_batch {
	struct gpu_aes_segment *segs;
	uint32_t nr;
	uint64_t bytes;		/* sum of segs[i].len (text bytes) */
	/* Called once when every segment's status is final. */
	void (*done)(struct gpu_aes_batch *batch);
	void *owner;		/* the core's, untouched by backends */
};

/*
 * One GPU a backend considered, whether it runs on it or not, as the log
 * and the helper's status file report it.
 */
struct gpu_aes_gpu_info {
	int id;			/* the backend's device id (CUDA ordinal) */
	char name[256];		/* as cudaDeviceProp::name, or "" */
	uint64_t memory_bytes;	/* device memory */
	char pci[16];		/* "dddd:bb:dd.f" for sysfs, or "" */
	int cc;			/* compute capability times ten; 0: unknown */
	int usable;		/* the backend runs on it */
	/* usable: */
	char path[16];		/* its code path: "tma" or "portable" */
	int code_sm;		/* the SASS it runs: 90 for sm_90 */
	int code_ptx;		/* the PTX that SASS came from: 75, 90 */
	int jit;		/* the driver JIT-compiled it (not in the binary) */
	/* not usable: why, in words */
	char reason[192];
};

#define GPU_AES_MAX_GPUS	64

/* What a GPU backend's open() found: its GPUs, and why it failed. */
struct gpu_aes_gpu_report {
	unsigned int nr;
	struct gpu_aes_gpu_info gpus[GPU_AES_MAX_GPUS];
	char why[192];		/* open() failed: why, in words */
};

struct gpu_aes_backend_config {
	const char *gpus;	/* cuda: comma-separated device ids, NULL = all */
	unsigned int threads;	/* cpu: worker threads, 0 = one */
	/* cuda: "auto" or "portable" (cuda_backend.h), NULL: unset */
	const char *gpu_path;
	/*
	 * Optional: a GPU backend's open() fills it, whether it succeeds or
	 * not (the helper reports the GPUs it cannot use, and why it fell
	 * back to the cpu backend); other backends leave it alone.
	 */
	struct gpu_aes_gpu_report *report;
};

struct gpu_aes_backend;

struct gpu_aes_backend_ops {
	const char *name;
	/* The algorithms it serves: GPU_AES_ALG_BIT() of each. */
	uint32_t algs;
	/* 0 when the backend can run on this machine (e.g. a GPU exists). */
	int (*probe)(void);
	int (*open)(const struct gpu_aes_backend_config *cfg,
		    const struct gpu_aes_region *region,
		    struct gpu_aes_backend **out);
	/*
	 * Takes ownership of the batch until batch->done().  May block while
	 * the backend's pipeline is full; never fails: a segment that cannot
	 * be processed gets GPU_AES_STATUS_EIO.
	 */
	void (*submit)(struct gpu_aes_backend *be, struct gpu_aes_batch *batch);
	/* Wait until every submitted batch is done. */
	void (*drain)(struct gpu_aes_backend *be);
	/* Drain, wipe every key copy (host and device), free everything. */
	void (*close)(struct gpu_aes_backend *be);
	/*
	 * Optional (NULL allowed).  Called by the core on its own thread when
	 * no batch is in flight, just before it sleeps: wipe every key copy
	 * (host and device) whose key table entry was wiped or rewritten since
	 * it was made, so a freed key does not outlive its tfm in the helper.
	 * Returns true while it still holds a key copy: the kernel wipes a
	 * freed tfm's entry without waking the helper, so the core calls
	 * idle() again after a while even when no request comes.
	 */
	bool (*idle)(struct gpu_aes_backend *be);
	/*
	 * Optional (NULL: 4).  How many batches it works on at once, after
	 * open(): the core keeps that many in flight, since requests wait
	 * in the queues whenever it keeps fewer and a place stands idle.
	 */
	unsigned int (*max_batches)(struct gpu_aes_backend *be);
};

extern const struct gpu_aes_backend_ops gpu_aes_backend_cpu;
extern const struct gpu_aes_backend_ops gpu_aes_backend_cuda;

/* NULL when no backend of that name was built in. */
const struct gpu_aes_backend_ops *gpu_aes_backend_find(const char *name);

/*
 * find() plus "auto": cuda when it was built in and its probe() succeeds,
 * else cpu.  NULL for an unknown or not-built name.
 */
const struct gpu_aes_backend_ops *gpu_aes_backend_select(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_HELPER_BACKEND_H */
