/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gpu_aes_producer.h - an in-process producer for gpu-aes-helper's core.
 *
 * It plays gpu_aes.ko's role over the same ABI (uapi/gpu_aes.h) and the same
 * kind of region: it owns a region, a helper core running on its own thread
 * and a backend, writes key table entries and submission entries exactly as
 * the kernel does, and reaps completions when the core notifies it (where
 * the kernel reaps inside GPU_AES_IOC_COMPLETE).  GPU tests and benchmarks
 * use it on machines that cannot load the module.
 *
 * Requests: copy-in/copy-out (submit, submit_wait, run) or zero-copy
 * (reserve, fill buf->data, post).  Every request gets a tag and a run of
 * the data area, allocated like the kernel's: a byte ring, 64-byte aligned
 * starts, never wrapping a request, released in submission order.
 *
 * Threads: every function may be called from any number of threads at
 * once, except destroy.  Callbacks run on the thread that reaps (the core's
 * or a backend's; several reap at once, as several helper threads may be in
 * GPU_AES_IOC_COMPLETE, each on its own chunk of completions, so callbacks
 * of different requests run concurrently); they may call the non-blocking submit/reserve/post but
 * must not block (no submit_wait, run or wait_idle from a callback: the
 * completions those wait for are delivered by the very thread they block).
 *
 * Errors are negative errno values; request results are the GPU_AES_STATUS_*
 * values of the completion (0, -EIO, -EINVAL, and -EBADMSG for a GCM
 * decryption whose tag does not match).
 */
#ifndef GPU_AES_PRODUCER_H
#define GPU_AES_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "../src/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_aes_producer_config {
	uint32_t nr_entries;	/* power of two; 0 = 1024 */
	uint32_t nr_keys;	/* 0 = 64 */
	uint64_t data_size;	/* multiple of 4096; 0 = 64 MiB */
	const char *backend;	/* "cpu", "cuda", "auto"; NULL = "auto" */
	struct gpu_aes_backend_config backend_cfg;
	unsigned int spin_us;	/* core's busy-poll before sleeping */
	uint32_t max_batch;	/* core: 0 = nr_entries */
	unsigned int max_inflight;	/* core: batches in the backend, 0 = 4 */
};

/* Called once per request with its status (GPU_AES_STATUS_*). */
typedef void (*gpu_aes_producer_cb)(void *cookie, int status);

/* A zero-copy reservation: data points into the region's data area. */
struct gpu_aes_producer_buf {
	uint32_t tag;
	uint32_t len;
	uint64_t data_off;	/* data - region->data */
	void *data;
};

struct gpu_aes_producer_stats {
	uint64_t submitted;	/* requests posted */
	uint64_t completed;	/* valid completions reaped */
	uint64_t rejected;	/* completions that failed validation */
	uint64_t wakeups;	/* doorbells rung (NEED_WAKEUP was set) */
	uint64_t eagain;	/* submissions refused for lack of room */
	/* The core's counters (core.h). */
	uint64_t batches;
	uint64_t requests;
	uint64_t bytes;
	uint64_t invalid;
	uint64_t sleeps;
};

struct gpu_aes_producer;

/* Starts region, backend and core thread.  0 or -errno. */
int gpu_aes_producer_create(const struct gpu_aes_producer_config *cfg,
			    struct gpu_aes_producer **out);

/*
 * Waits for every posted request to complete, stops the core, closes the
 * backend (which wipes its key copies) and frees the region, key table
 * wiped.  Unposted reservations are dropped.
 */
void gpu_aes_producer_destroy(struct gpu_aes_producer *p);

/* Name of the backend in use ("cpu", "cuda"). */
const char *gpu_aes_producer_backend(const struct gpu_aes_producer *p);

/*
 * Writes key table entry key_slot as the kernel does: raw key, encryption
 * and equivalent-inverse schedules, gen bumped (never reused for a slot).
 * Requests already posted with that slot may then fail with -EINVAL.
 * -EINVAL for a bad slot or a key_len other than 16, 24, 32.
 */
int gpu_aes_producer_setkey(struct gpu_aes_producer *p, unsigned int key_slot,
			    const uint8_t *key, size_t key_len);

/*
 * XTS: key is the data key followed by the tweak key, key_len 32, 48 or 64
 * (else -EINVAL).  Writes the entry as setkey() does for the data key,
 * plus the tweak key after it in key[] and its encryption schedule
 * (entry key_len == tweak_len == key_len / 2).  Equal halves are accepted,
 * as a kernel outside FIPS mode accepts them without
 * CRYPTO_TFM_REQ_FORBID_WEAK_KEYS.
 */
int gpu_aes_producer_setkey_xts(struct gpu_aes_producer *p,
				unsigned int key_slot, const uint8_t *key,
				size_t key_len);

/* Wipes key table entry key_slot to all zero (the kernel's tfm free). */
int gpu_aes_producer_clearkey(struct gpu_aes_producer *p,
			      unsigned int key_slot);

/*
 * Copies len bytes of src into the data area and posts one request; on
 * completion copies the result to dst (may equal src; NULL: discard) and
 * calls cb (may be NULL).  iv: CTR's initial counter block, XTS's tweak
 * input (plain64: the little-endian sector number); not posted for ECB,
 * may be NULL then.  GCM goes through submit_gcm() instead.
 * alg/dir/key_slot are posted as given: the helper validates them and
 * completes bad ones with -EINVAL.
 * -EAGAIN when no tag or data space is free now; -EINVAL when len can never
 * fit the data area.
 */
int gpu_aes_producer_submit(struct gpu_aes_producer *p, unsigned int alg,
			    unsigned int dir, unsigned int key_slot,
			    const uint8_t *iv, const void *src, void *dst,
			    uint32_t len, gpu_aes_producer_cb cb, void *cookie);

/* submit(), but waits for room instead of returning -EAGAIN. */
int gpu_aes_producer_submit_wait(struct gpu_aes_producer *p, unsigned int alg,
				 unsigned int dir, unsigned int key_slot,
				 const uint8_t *iv, const void *src, void *dst,
				 uint32_t len, gpu_aes_producer_cb cb,
				 void *cookie);

/*
 * GCM (alg GPU_AES_ALG_GCM), laid out as the kernel lays it out (struct
 * gpu_aes_sqe): iv is the 12-byte IV; aad/aad_len the associated data; src
 * and dst the len-byte text.  Encryption writes auth_len tag bytes to tag
 * on success; decryption reads the expected tag from tag and completes
 * with GPU_AES_STATUS_EBADMSG (dst untouched) when it does not match.
 * Nothing is copied to dst or tag unless the status is 0.  -EINVAL for
 * auth_len other than 4, 8 or 12..16, a NULL iv, a NULL tag for
 * decryption or a span (gpu_aes_sqe_span()) over 4 GiB; like submit()
 * otherwise.
 */
int gpu_aes_producer_submit_gcm(struct gpu_aes_producer *p, unsigned int dir,
				unsigned int key_slot, const uint8_t *iv,
				const void *aad, uint32_t aad_len,
				const void *src, void *dst, uint32_t len,
				uint8_t *tag, uint32_t auth_len,
				gpu_aes_producer_cb cb, void *cookie);
int gpu_aes_producer_submit_gcm_wait(struct gpu_aes_producer *p,
				     unsigned int dir, unsigned int key_slot,
				     const uint8_t *iv, const void *aad,
				     uint32_t aad_len, const void *src,
				     void *dst, uint32_t len, uint8_t *tag,
				     uint32_t auth_len, gpu_aes_producer_cb cb,
				     void *cookie);
/* submit_gcm() and wait: the request's status or a submission error. */
int gpu_aes_producer_run_gcm(struct gpu_aes_producer *p, unsigned int dir,
			     unsigned int key_slot, const uint8_t *iv,
			     const void *aad, uint32_t aad_len,
			     const void *src, void *dst, uint32_t len,
			     uint8_t *tag, uint32_t auth_len);

/*
 * Submits and waits for the result: returns the request's status (0,
 * -EIO, -EINVAL from the helper) or a submission error.
 */
int gpu_aes_producer_run(struct gpu_aes_producer *p, unsigned int alg,
			 unsigned int dir, unsigned int key_slot,
			 const uint8_t *iv, const void *src, void *dst,
			 uint32_t len);

/*
 * Zero-copy: reserve a tag and len bytes of the data area; write the input
 * to buf->data, then post (the bytes are transformed in place and are
 * valid in buf->data until cb returns) or unreserve.  -EAGAIN / -EINVAL as
 * for submit.  reserve_wait waits for room.
 */
int gpu_aes_producer_reserve(struct gpu_aes_producer *p, uint32_t len,
			     struct gpu_aes_producer_buf *buf);
int gpu_aes_producer_reserve_wait(struct gpu_aes_producer *p, uint32_t len,
				  struct gpu_aes_producer_buf *buf);
int gpu_aes_producer_post(struct gpu_aes_producer *p,
			  const struct gpu_aes_producer_buf *buf,
			  unsigned int alg, unsigned int dir,
			  unsigned int key_slot, const uint8_t *iv,
			  gpu_aes_producer_cb cb, void *cookie);
/*
 * Zero-copy GCM: buf was reserved with gpu_aes_sqe_span(GPU_AES_ALG_GCM,
 * len, aad_len) bytes and holds text, tag slot and associated data at the
 * offsets struct gpu_aes_sqe gives (relative to buf->data); encryption
 * leaves the tag at gpu_aes_gcm_tag_off(0, len) there.  -EINVAL when that
 * span exceeds the reservation, or for auth_len or iv as submit_gcm().
 */
int gpu_aes_producer_post_gcm(struct gpu_aes_producer *p,
			      const struct gpu_aes_producer_buf *buf,
			      unsigned int dir, unsigned int key_slot,
			      const uint8_t *iv, uint32_t len,
			      uint32_t aad_len, uint32_t auth_len,
			      gpu_aes_producer_cb cb, void *cookie);
void gpu_aes_producer_unreserve(struct gpu_aes_producer *p,
				const struct gpu_aes_producer_buf *buf);

/*
 * For tests of the helper's validation: posts *sqe as it is, except tag and
 * seq, which come from the reservation.  The helper must complete any
 * content safely.
 */
int gpu_aes_producer_post_sqe(struct gpu_aes_producer *p,
			      const struct gpu_aes_producer_buf *buf,
			      const struct gpu_aes_sqe *sqe,
			      gpu_aes_producer_cb cb, void *cookie);

/* Waits until no posted request is outstanding. */
void gpu_aes_producer_wait_idle(struct gpu_aes_producer *p);

void gpu_aes_producer_get_stats(struct gpu_aes_producer *p,
				struct gpu_aes_producer_stats *s);

/* The shared region, for tests and benchmarks that inspect the rings. */
const struct gpu_aes_region *
gpu_aes_producer_region(const struct gpu_aes_producer *p);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_PRODUCER_H */
