/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring.h - the kernel side of the shared ring: tags, the byte-ring data
 * allocator, submission, completion reaping, deadlines and the backlog.
 *
 * Nothing here knows how the region's memory was obtained: the character
 * device pins and vmaps helper memory, KUnit may pass vmalloc() memory and
 * play the helper in-kernel.
 *
 * Locking: @lock (a BH-safe spinlock) protects every field below it, so
 * submission works from softirq.  It is held only for bookkeeping: the
 * bytes are copied in (by a submitter holding a RESERVED tag) and out (by
 * a reaper holding COMPLETING tags) without it, so several CPUs submit and
 * several helper threads reap at once.  Whoever copies holds a reference
 * in @users, taken under @lock while @attached; detach waits for it to
 * drop to zero before the tag table and region go away.  A request
 * belongs to whoever moves its tag out of IN_FLIGHT under @lock, so it is
 * completed exactly once.
 */
#ifndef GPU_AES_RING_H
#define GPU_AES_RING_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "gpu_aes.h"
#include "stats.h"

struct gpu_aes_job;
struct gpu_aes_tfm_key;
struct scatterlist;

/**
 * struct gpu_aes_job_ops - what differs between skcipher and AEAD requests.
 * @copy_in: copy the request's input into its data space @slot, laid out
 *	as struct gpu_aes_sqe says for the job's algorithm.  No lock held.
 * @copy_out: copy the helper's result from @slot to the request's
 *	destination (and set the output IV where the algorithm has one).
 *	Called only for GPU_AES_STATUS_OK.  No lock held.
 * @cpu_crypt: run the request synchronously on the software fallback
 *	(any context, never sleeps); returns its result.
 * @complete: call the request's completion callback with @err; the caller
 *	has BHs disabled.
 */
struct gpu_aes_job_ops {
	void (*copy_in)(struct gpu_aes_job *job, u8 *slot);
	void (*copy_out)(struct gpu_aes_job *job, const u8 *slot);
	int (*cpu_crypt)(struct gpu_aes_job *job);
	void (*complete)(struct gpu_aes_job *job, int err);
};

/**
 * struct gpu_aes_job - what the ring knows of one request, embedded in the
 * skcipher and AEAD request contexts (so nothing is allocated per request).
 * @node: on the ring's backlog, or a private list while being completed.
 * @ops: the request type's operations.
 * @key: the tfm's key state.
 * @src: source scatterlist (AEAD: associated data, then text, then tag).
 * @dst: destination scatterlist, same layout.
 * @iv: the request's IV (CTR: updated on completion), or NULL for ECB.
 * @deadline: backlog deadline (jiffies).
 * @len: text bytes (GCM decryption: without the tag).
 * @aad_len: GCM: associated data bytes; else 0.
 * @tag: ring tag while being completed.
 * @status: result while being completed.
 * @alg: enum gpu_aes_alg.
 * @dir: enum gpu_aes_dir.
 * @auth_len: GCM: tag bytes; else 0.
 * @may_backlog: the request has CRYPTO_TFM_REQ_MAY_BACKLOG.
 * @backlogged: answered -EBUSY and not yet told -EINPROGRESS.
 */
struct gpu_aes_job {
	struct list_head node;
	const struct gpu_aes_job_ops *ops;
	struct gpu_aes_tfm_key *key;
	struct scatterlist *src;
	struct scatterlist *dst;
	u8 *iv;
	unsigned long deadline;
	u32 len;
	u32 aad_len;
	u32 tag;
	int status;
	u8 alg;
	u8 dir;
	u8 auth_len;
	bool may_backlog;
	bool backlogged;
};

/**
 * gpu_aes_job_span() - data area bytes a job occupies (see struct
 * gpu_aes_sqe), before rounding up to GPU_AES_DATA_ALIGN.
 * @job: the job.
 *
 * Return: the span.
 */
static inline u64 gpu_aes_job_span(const struct gpu_aes_job *job)
{
	return gpu_aes_sqe_span(job->alg, job->len, job->aad_len);
}

/**
 * enum gpu_aes_tag_state - life of a tag.
 * @GPU_AES_TAG_FREE: not allocated.
 * @GPU_AES_TAG_RESERVED: space and key slot taken; its submitter copies the
 *	source in without the lock and then posts it.  Never expires: the
 *	request is not on the ring yet.
 * @GPU_AES_TAG_IN_FLIGHT: posted, owned by the ring.
 * @GPU_AES_TAG_TIMED_OUT: its request was completed on the CPU; the tag and
 *	data space stay reserved until the helper completes it or detaches.
 * @GPU_AES_TAG_COMPLETING: a valid completion was taken; the reaper copies
 *	the data out.
 * @GPU_AES_TAG_RELEASED: done; freed once every older tag is released.
 */
enum gpu_aes_tag_state {
	GPU_AES_TAG_FREE,
	GPU_AES_TAG_RESERVED,
	GPU_AES_TAG_IN_FLIGHT,
	GPU_AES_TAG_TIMED_OUT,
	GPU_AES_TAG_COMPLETING,
	GPU_AES_TAG_RELEASED,
};

/**
 * struct gpu_aes_tag - kernel-private state of one ring entry.
 * @job: the request while RESERVED, IN_FLIGHT or COMPLETING, else NULL.
 * @end: byte-ring position just past this tag's data space.
 * @data_off: offset of the request's bytes in the data area.
 * @len: text bytes of the request.
 * @deadline: jiffies after which the request is recomputed on the CPU.
 * @seq: bumped on every use; a completion must echo it.
 * @key_gen: key table generation the sqe names (taken at reservation).
 * @key_slot: key table slot the sqe names.
 * @state: enum gpu_aes_tag_state.
 * @alg: the sqe's algorithm, kept so a completion can be judged even after
 *	the request timed out.
 * @dir: the sqe's direction, for the same reason.
 */
struct gpu_aes_tag {
	struct gpu_aes_job *job;
	u64 end;
	u64 data_off;
	u32 len;
	unsigned long deadline;
	u32 seq;
	u32 key_gen;
	u16 key_slot;
	u8 state;
	u8 alg;
	u8 dir;
};

/**
 * struct gpu_aes_ring - one attachable ring.
 * @lock: protects everything from @attached on.
 * @setup_mutex: serialises attach and detach.
 * @scan_mutex: held by the deadline scan; KUnit holds it to keep requests
 *	from expiring while a test submits.
 * @users: submitters and reapers working on the region outside @lock.
 * @wq: the helper's poll() waits here.
 * @timeout_work: deadline scan, queued while requests are in flight or
 *	backlogged.
 * @kick: KUnit builds only; called (atomic context, no lock held)
 *	whenever the helper would be woken, so an in-kernel test helper can
 *	schedule work.
 * @mid_copy: KUnit builds only; called with no lock held and a reference
 *	in @users, just before a submitter copies in (@out false) or a reaper
 *	copies out (@out true), so a test can hold one there.
 * @attached: a region is attached.
 * @attach_gen: bumped on every detach; key slots of older generations are
 *	stale.
 * @stalled: a request timed out and the helper has not completed anything
 *	since.  New requests then go to the CPU at once and the backlog is
 *	flushed to the CPU: a consumer that waits for each -EBUSY request's
 *	-EINPROGRESS (dm-crypt does) would otherwise crawl at one request per
 *	timeout.  Cleared by the next valid completion.
 * @may_admit: space or a key slot was freed since admission last ran, so
 *	a submitter with a backlog in front of it runs admission first.
 * @scan_armed: @timeout_work is queued to run at @scan_at.
 * @hdr: region header.
 * @sq: submission queue.
 * @cq: completion queue.
 * @keys: key table.
 * @data: data area.
 * @nr_entries: SQ/CQ entries and tags (power of two).
 * @nr_keys: key table entries.
 * @data_size: data area bytes.
 * @sq_tail: kernel's copy of the SQ tail (the header's is only written).
 * @cq_head: kernel's copy of the CQ head.
 * @tags: @nr_entries tags, used round robin.
 * @tag_head: next tag to allocate (free running).
 * @tag_tail: oldest tag not yet freed (free running).
 * @data_head: byte-ring allocation position (free running).
 * @data_tail: byte-ring release position (free running).
 * @in_flight: tags in IN_FLIGHT.
 * @key_map: allocated key slots.
 * @key_gen: per-slot generation, private so the helper cannot move it.
 * @key_owner: per slot, the tfm key bound to it (NULL when free).
 * @key_inflight: per slot, reserved or posted requests naming it whose tag
 *	was not yet released (a timed-out one counts until the helper answers
 *	it); such a slot is never taken over.
 * @key_scan_after: gpu_aes_key_prepare() does not look for a slot to take
 *	over before this (jiffies).
 * @backlog: MAY_BACKLOG requests waiting for space, oldest first.
 */
struct gpu_aes_ring {
	spinlock_t lock;		/* the state from @attached on */
	struct mutex setup_mutex;	/* attach vs detach */
	struct mutex scan_mutex;	/* the deadline scan */
	atomic_t users;
	wait_queue_head_t wq;
	struct delayed_work timeout_work;
#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
	void (*kick)(struct gpu_aes_ring *ring);
	void (*mid_copy)(struct gpu_aes_ring *ring, bool out);
#endif

	bool attached;
	bool stalled;
	bool may_admit;
	bool scan_armed;
	unsigned long scan_at;
	u64 attach_gen;
	struct gpu_aes_region_hdr *hdr;
	struct gpu_aes_sqe *sq;
	struct gpu_aes_cqe *cq;
	struct gpu_aes_key *keys;
	u8 *data;
	u32 nr_entries;
	u32 nr_keys;
	u64 data_size;
	u32 sq_tail;
	u32 cq_head;
	struct gpu_aes_tag *tags;
	u32 tag_head;
	u32 tag_tail;
	u64 data_head;
	u64 data_tail;
	u32 in_flight;
	unsigned long *key_map;
	u32 *key_gen;
	struct gpu_aes_tfm_key **key_owner;
	u32 *key_inflight;
	unsigned long key_scan_after;
	struct list_head backlog;
};

/* The ring behind /dev/gpu_aes and the registered algorithms. */
extern struct gpu_aes_ring gpu_aes_ring;

/* gpu_aes_ring_submit() result: run the request on the CPU instead. */
#define GPU_AES_RING_FALLBACK	1

/*
 * cqes one reaper claims per lock hold: bounds the lock hold time and lets
 * concurrent reapers share a burst of completions.
 */
#define GPU_AES_REAP_BATCH	32U

/**
 * gpu_aes_ring_init() - initialise an unattached ring.
 * @ring: the ring.
 */
void gpu_aes_ring_init(struct gpu_aes_ring *ring);

/**
 * gpu_aes_setup_check() - validate a SETUP request (all but the address).
 * @s: the request, as copied from the helper.
 *
 * Checks version, features, entry/key/data limits, reserved fields and
 * that region_size is exactly gpu_aes_layout()'s size.
 *
 * Return: 0 or -EINVAL.
 */
int gpu_aes_setup_check(const struct gpu_aes_setup *s);

/**
 * gpu_aes_ring_attach() - attach a mapped region.
 * @ring: the ring.
 * @base: kernel address of the region, region_size bytes, page aligned.
 * @s: a setup that passed gpu_aes_setup_check().
 *
 * Fills the header, zeroes the queues and key table, allocates the tag
 * table and key bitmap.  May sleep.
 *
 * Return: 0, -EINVAL (bad setup), -EBUSY (already attached) or -ENOMEM.
 */
int gpu_aes_ring_attach(struct gpu_aes_ring *ring, void *base,
			const struct gpu_aes_setup *s);

/**
 * gpu_aes_ring_detach() - detach the region.
 * @ring: the ring.
 *
 * Stops new submissions, waits for submitters still copying in and
 * reapers still copying out, recomputes every in-flight and backlogged
 * request on the CPU and completes it, wipes the key table.  When it
 * returns the kernel no longer touches the region, which the caller may
 * unmap.  May sleep.  A no-op on an unattached ring.
 */
void gpu_aes_ring_detach(struct gpu_aes_ring *ring);

/**
 * gpu_aes_ring_submit() - post a request to the ring, or backlog it.
 * @ring: the ring.
 * @job: the request's job, every field up to @backlogged filled in but
 *	@node, @deadline, @tag and @status; @may_backlog set (gpu_aes_route()
 *	sends the others to the CPU).
 * @why: out, for GPU_AES_RING_FALLBACK: the reason.
 *
 * Reserves a key slot and ALIGN(gpu_aes_job_span(), GPU_AES_DATA_ALIGN)
 * bytes under the lock, copies the input into the data area
 * (job->ops->copy_in) without it, then writes the sqe and publishes it.
 * A request waits in the backlog only for space that requests on the
 * ring will free: one with no key slot, or blocked by a timed-out oldest
 * request, goes to the CPU at once.  Any context up to softirq; never
 * sleeps or allocates.
 *
 * Return: -EINPROGRESS (posted), -EBUSY (backlogged) or
 * GPU_AES_RING_FALLBACK (the caller must run it on the CPU; also when the
 * ring was detached during the copy).
 */
int gpu_aes_ring_submit(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
			enum gpu_aes_fallback_reason *why);

/**
 * gpu_aes_route() - the request path policy: ring or CPU.
 * @ring: the ring.
 * @job: as for gpu_aes_ring_submit().
 * @bytes: the bytes the policy weighs (GCM: text plus associated data).
 *
 * Requests under ring_min_bytes or over ring_max_bytes, and requests
 * without CRYPTO_TFM_REQ_MAY_BACKLOG, go to the CPU, the rest to
 * gpu_aes_ring_submit().  Counts the fallback and its reason.
 *
 * Return: -EINPROGRESS, -EBUSY, or GPU_AES_RING_FALLBACK: the caller runs
 * the request on the CPU now.
 */
int gpu_aes_route(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
		  u64 bytes);

/**
 * gpu_aes_job_finish() - call a job's completion callback, BHs disabled.
 * @job: the job.
 * @err: result, or -EINPROGRESS for a backlogged request now admitted.
 */
void gpu_aes_job_finish(struct gpu_aes_job *job, int err);

/**
 * gpu_aes_ring_reap() - process completions up to the helper's cq_tail.
 * @ring: the ring.
 *
 * Claims cqes in chunks of at most GPU_AES_REAP_BATCH under the lock,
 * validating each against the tag table (GPU_AES_STATUS_EBADMSG only on a
 * GCM decryption's tag), then, without it, copies results out
 * (job->ops->copy_out, which also sets the output IV) or, for EBADMSG,
 * copies nothing and fails the request with -EBADMSG, completes the
 * requests (BHs disabled around the callbacks), releases their space and
 * admits backlogged requests.  Goes on until cq_head has passed the
 * cq_tail read first; other callers may
 * claim chunks in between (several helper threads may call this at once).
 * If cq_tail is more than nr_entries ahead of cq_head the chunk is
 * rejected: it counts once in rejected_completions, cq_head does not move
 * and the requests are left to their deadlines.  May sleep.
 *
 * Return: number of completions accepted, -ENXIO if not attached, -EINVAL
 * for an impossible cq_tail (chunks claimed before it are still
 * completed).
 */
int gpu_aes_ring_reap(struct gpu_aes_ring *ring);

/**
 * gpu_aes_ring_pending() - does the helper have submissions to read?
 * @ring: the ring.
 *
 * Return: true if attached and the helper's sq_head differs from sq_tail.
 */
bool gpu_aes_ring_pending(struct gpu_aes_ring *ring);

#endif /* GPU_AES_RING_H */
