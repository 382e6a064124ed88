/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kring.h - the kernel's request path (kmod/ring.c, keys.c, job.c, alg.c,
 * stats.c, built unchanged against kshim.h) as a userspace library, so
 * tests and the benchmark on a machine that cannot load the module drive
 * the real helper with the kernel's own code: its queues, tags, data
 * allocator, deadlines, backlog, key slots, counters and CPU replay.
 *
 * What kring adds is what skcipher.c and aead.c are to the kernel: a
 * request type (struct kring_req) with its copy, fallback and completion
 * operations.  Its CPU fallback is OpenSSL (cpu_aes.c), standing for the
 * CPU driver the module displaces.
 *
 * One ring per process, as one module per kernel.  A "CPU" is a thread
 * (kshim.h): a thread's requests go to queue (its number % nr_queues);
 * kring_set_cpu() picks the number.
 */
#ifndef GPU_AES_KRING_H
#define GPU_AES_KRING_H

#include <stddef.h>
#include <stdint.h>

#include "../uapi/gpu_aes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The request flags kring_req_set() takes (the crypto API's values). */
#define KRING_MAY_SLEEP		0x00000200U
#define KRING_MAY_BACKLOG	0x00000400U

/* Starts kshim and initialises the ring.  0 or -errno. */
int kring_init(void);
/* The ring must be detached and every tfm freed. */
void kring_exit(void);

/* The calling thread is CPU @cpu (0..511) from now on; call before use. */
void kring_set_cpu(int cpu);
/*
 * CPU time, ns, of every thread that called kring_set_cpu() (live or
 * gone) or kring_consumer_thread(): the consumers', so the rest of the
 * process is the helper's.
 */
uint64_t kring_submitters_cpu_ns(void);
/*
 * The calling thread is a consumer that submits nothing (a benchmark's
 * main thread, which prepares the buffers): its CPU counts in
 * kring_submitters_cpu_ns(), not as the helper's.  It must live as long
 * as the ring; at most 8 such threads.  0 or -errno.
 */
int kring_consumer_thread(void);

/* The module's parameters (module_param writes, in the kernel). */
void kring_set_params(unsigned int ring_min_bytes, unsigned int ring_max_bytes,
		      unsigned int timeout_ms);

/*
 * The dispatch parameter: "auto", "ring" or "cpu" (kmod/dispatch.h).
 * kring starts in auto, as the module.  0 or -EINVAL.
 */
int kring_set_dispatch(const char *mode);

/*
 * The dispatch policy's estimates as the module's sysfs file shows them,
 * into @buf (at least a page).  Bytes written, or -EINVAL.
 */
int kring_dispatch_show(char *buf, size_t size);

/* The doorbell: called where the kernel wakes the helper's poll(). */
void kring_set_doorbell(void (*ring)(void *arg), void *arg);

/*
 * GPU_AES_IOC_SETUP's checks and attach, for a region at @base of
 * s->region_size bytes: 0, -EINVAL or -EBUSY, as the ioctl.
 */
int kring_attach(void *base, const struct gpu_aes_setup *s);
/* The helper's release(): every request left is replayed on the CPU. */
void kring_detach(void);
/* GPU_AES_IOC_COMPLETE(@qid): accepted completions, or -errno. */
int kring_reap(uint32_t qid);
/*
 * poll()'s answer: some queue has submissions the helper has not taken.
 * Called before each sleep: it re-arms the once-per-sleep doorbell.
 */
int kring_pending(void);
/* Whether the next post that sees NEED_WAKEUP wakes the helper. */
int kring_doorbell_armed(void);

/*
 * Tests: take (@hold 1) or drop (@hold 0) the ring's key table lock from
 * the calling thread.  Attach takes it between writing the region header
 * and publishing what it agreed, so a test holding it keeps an attach
 * there, as a helper thread racing its own SETUP would find it.
 */
void kring_hold_key_lock(int hold);

/* A counter by its sysfs name (kmod/stats.c), summed over CPUs; -1: none. */
int64_t kring_stat(const char *name);
/* The number of counters, and the name of counter @i (NULL past the end). */
unsigned int kring_nr_stats(void);
const char *kring_stat_name(unsigned int i);

struct kring_tfm;
struct kring_req;

/*
 * A tfm of @alg with @key (XTS: data key then tweak key, 32/48/64 bytes),
 * as crypto_alloc + setkey: -EINVAL for a bad key length, -ENOMEM.
 */
int kring_tfm_new(enum gpu_aes_alg alg, const uint8_t *key,
		  unsigned int key_len, struct kring_tfm **out);
/* setkey, with no request of @t pending: 0 or -EINVAL. */
int kring_tfm_setkey(struct kring_tfm *t, const uint8_t *key,
		     unsigned int key_len);
/*
 * GCM: the tag length (setauthsize), for requests set from now on: 0 or
 * -EINVAL.
 */
int kring_tfm_set_authsize(struct kring_tfm *t, unsigned int authsize);
/* GCM: the tag length, 16 until set. */
unsigned int kring_tfm_authsize(const struct kring_tfm *t);
/* exit_tfm: frees the key slot and wipes the key.  No request pending. */
void kring_tfm_free(struct kring_tfm *t);

/* A reusable request of @t (the request context, allocated once). */
struct kring_req *kring_req_new(struct kring_tfm *t);
void kring_req_free(struct kring_req *r);

/*
 * What the request does.  Buffers as the crypto API lays them out:
 * skciphers read len bytes from src and write len to dst; GCM reads
 * aad_len bytes of associated data then the text (then, decrypting, the
 * tag) from src and writes the text (then, encrypting, the tag) after the
 * associated data in dst.  len is the text alone, without the tag.  src
 * and dst may be equal.  iv: 16 bytes for CTR and XTS, 12 for GCM,
 * ignored for ECB; CTR's is advanced on completion, as ctr(aes) does.
 * done() is called for -EINPROGRESS (a backlogged request admitted) and
 * then once with the result, from whatever thread completes it.
 */
void kring_req_set(struct kring_req *r, enum gpu_aes_dir dir,
		   const uint8_t *src, uint8_t *dst, uint32_t len,
		   uint32_t aad_len, uint8_t *iv, uint32_t flags,
		   void (*done)(void *arg, int err), void *arg);

/*
 * crypto_skcipher_encrypt()/crypto_aead_encrypt() (by dir): -EINPROGRESS
 * or -EBUSY (done() will report), or the result of a synchronous run on
 * the CPU (0, -EBADMSG, -EINVAL).
 */
int kring_submit(struct kring_req *r);

/*
 * The CPU driver kring's fallback stands for (OpenSSL, with the IV it
 * leaves in iv as the kernel's drivers leave it in req->iv), called with
 * @r as a consumer without gpu_aes would call that driver: no job, no
 * routing, no counters.  What gpu-aes-bench --decision pairs
 * kring_submit() with, so that the difference is gpu_aes's layer alone.
 * Synchronous: 0, -EBADMSG, -EIO or -ENOMEM.
 */
int kring_cpu_direct(struct kring_req *r);

/*
 * How many times the last kring_submit() of @r ran on the CPU (the
 * fallback at submission, or a replay of a backlogged or posted request):
 * 0 for a request the helper answered.  Read after its final done().
 */
unsigned int kring_req_cpu_runs(const struct kring_req *r);

/*
 * @len bytes from @src into a data space as a request's copy-in does it
 * (kmod/job.c), for a benchmark's bound that copies as the ring does.
 * Call kring_copy_to_slot_fence() after the last copy and before anything
 * else reads the data space: what a submission does before its post.
 */
void kring_copy_to_slot(void *slot, const void *src, uint32_t len);
void kring_copy_to_slot_fence(void);

#ifdef __cplusplus
}
#endif

#endif /* GPU_AES_KRING_H */
