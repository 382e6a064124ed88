/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring.h - the kernel side of the shared region, as the rest of the
 * module uses it: attach and detach a region, submit a request to a
 * queue, reap a queue's completions, and a status snapshot.  Nothing here
 * knows how the region's memory was obtained: the character device pins
 * and vmaps helper memory, KUnit passes vmalloc() memory and plays the
 * helper in-kernel, and kring/ builds these files unchanged in userspace
 * to drive the real helper on machines that cannot load modules.  The
 * state and its locking rules: ring_state.h.
 */
#ifndef GPU_AES_RING_H
#define GPU_AES_RING_H

#include <linux/types.h>

#include "ring_state.h"

/**
 * struct gpu_aes_queue_status - one queue in a gpu_aes_ring_status()
 * snapshot.
 * @in_flight: requests posted to the helper and not completed.
 * @backlog: requests waiting in the queue's backlog.
 * @data_used: bytes of the queue's data slice held by requests (being
 *	copied in, in flight, being copied out, or timed out and not yet
 *	completed).
 * @stalled: a request on the queue timed out and the helper has completed
 *	nothing on it since (its new requests run on the CPU).
 * @stalled_at: CLOCK_BOOTTIME when that stall began, in ns; 0 when not
 *	stalled.
 */
struct gpu_aes_queue_status {
	u32 in_flight;
	u32 backlog;
	u64 data_used;
	bool stalled;
	u64 stalled_at;
};

/**
 * struct gpu_aes_ring_status - a snapshot of the ring for readers outside
 * the request path (the status files of kmod/status.c).  This plain struct
 * is the interface: whatever the ring's internals become, they fill it in.
 * Every field is 0 (false) while no region is attached.
 * @attached: a helper's region is attached.
 * @helper_pid: thread group id, in the initial PID namespace, of the
 *	process that attached (made the SETUP call).
 * @attached_at: CLOCK_BOOTTIME of the attach, in ns.
 * @nr_queues: queues of the region.
 * @queue_entries: entries of each queue (SQ, CQ and tags).
 * @queue_data_size: bytes of each queue's data slice.
 * @data_size: bytes of the whole data area.
 * @keys: key table slots (shared by the queues).
 * @keys_used: key table slots held by tfms.
 * @total: the queues' figures added up; @total.stalled is true if any
 *	queue is stalled and @total.stalled_at is when the oldest current
 *	stall began.
 * @stalled_queues: queues stalled now.
 */
struct gpu_aes_ring_status {
	bool attached;
	pid_t helper_pid;
	u64 attached_at;
	u32 nr_queues;
	u32 queue_entries;
	u64 queue_data_size;
	u64 data_size;
	u32 keys;
	u32 keys_used;
	struct gpu_aes_queue_status total;
	u32 stalled_queues;
};

/**
 * gpu_aes_ring_init() - initialise an unattached ring and its queues.
 * @ring: the ring.
 * @observer: what to tell of attaches and completion costs, or NULL.
 *
 * Return: 0 or -ENOMEM.
 */
int gpu_aes_ring_init(struct gpu_aes_ring *ring,
		      const struct gpu_aes_ring_observer *observer);

/**
 * gpu_aes_ring_exit() - free what gpu_aes_ring_init() allocated.
 * @ring: a detached ring.
 */
void gpu_aes_ring_exit(struct gpu_aes_ring *ring);

/**
 * gpu_aes_setup_check() - validate a SETUP request (all but the address).
 * @ring: the ring (its queue count bounds nr_queues).
 * @s: the request, as copied from the helper.
 *
 * Checks version, features, the geometry (gpu_aes_geometry_valid()), that
 * page_size is the kernel's, reserved fields, and that region_size is
 * exactly gpu_aes_layout()'s size.
 *
 * Return: 0 or -EINVAL.
 */
int gpu_aes_setup_check(const struct gpu_aes_ring *ring,
			const struct gpu_aes_setup *s);

/**
 * gpu_aes_ring_attach() - attach a mapped region.
 * @ring: the ring.
 * @base: kernel address of the region, region_size bytes, page aligned.
 * @s: a setup that passed gpu_aes_setup_check().
 *
 * Fills the header, zeroes the queues and key table, allocates the tag
 * tables and key state.  May sleep.
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
 * request of every queue on the CPU and completes it, wipes the key table.
 * When it returns the kernel no longer touches the region, which the
 * caller may unmap.  May sleep.  A no-op on an unattached ring.
 */
void gpu_aes_ring_detach(struct gpu_aes_ring *ring);

/**
 * gpu_aes_ring_submit() - post a request to its CPU's queue, or backlog it.
 * @ring: the ring.
 * @job: the request's job (gpu_aes_job_init()).
 * @why: out, for GPU_AES_RING_FALLBACK: the reason.
 *
 * Reserves a key slot, a tag and ALIGN(gpu_aes_job_span(),
 * GPU_AES_DATA_ALIGN) bytes of the queue's slice under the queue's lock,
 * copies the input in (job->ops->copy_in) without it, then writes the sqe
 * and publishes it.  A request waits in the backlog only for space that
 * the queue's own in-flight requests will free: one with no key slot, or
 * blocked by a timed-out or still reserved oldest request, goes to the CPU
 * at once, and so does one without @may_backlog that finds no room now or
 * a backlog ahead of it (fallback_full).  Behind a backlog a request that
 * may wait waits its turn (FIFO), whatever room there is.  Never admits
 * backlogged requests (reapers and the deadline scan do).  Any context up
 * to softirq; never sleeps or allocates.
 *
 * Return: -EINPROGRESS (posted), -EBUSY (backlogged) or
 * GPU_AES_RING_FALLBACK (the caller must run it on the CPU; also when the
 * ring was detached during the copy).
 */
int gpu_aes_ring_submit(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
			enum gpu_aes_fallback_reason *why);

/**
 * gpu_aes_ring_reap() - process a queue's completions up to its cq_tail.
 * @ring: the ring.
 * @qid: the queue, or GPU_AES_ALL_QUEUES for every queue in turn.
 *
 * Claims cqes in chunks of at most GPU_AES_REAP_BATCH under the queue's
 * lock, validating each against the queue's tag table (GPU_AES_STATUS_EBADMSG
 * only on a GCM decryption's tag), then, without it, copies results out
 * (job->ops->copy_out, which also sets the output IV) or, for EBADMSG,
 * copies nothing and fails the request with -EBADMSG, completes the
 * requests (BHs disabled around the callbacks), releases their space and
 * admits backlogged requests.  Goes on until cq_head has passed the
 * cq_tail read first; other callers may claim chunks in between (several
 * helper threads may call this at once, on one queue or many).  If cq_tail
 * is more than queue_entries ahead of cq_head the chunk is rejected: it
 * counts once in rejected_completions, cq_head does not move and the
 * requests are left to their deadlines.  May sleep.
 *
 * Return: number of completions accepted, -ENXIO if not attached, -EINVAL
 * for a queue number out of range or an impossible cq_tail (chunks claimed
 * before it are still completed).
 */
int gpu_aes_ring_reap(struct gpu_aes_ring *ring, u32 qid);

/**
 * gpu_aes_ring_pending() - does the helper have submissions to read?
 * @ring: the ring.
 *
 * The helper's poll() handler: called after the helper is on @ring->wq
 * and before it sleeps, it re-arms the doorbell (@ring->doorbell_rung),
 * so a submission it does not see here wakes it.
 *
 * Return: true if attached and some queue's sq_head differs from its
 * sq_tail.
 */
bool gpu_aes_ring_pending(struct gpu_aes_ring *ring);

/**
 * gpu_aes_ring_status() - take a snapshot of the ring and its queues.
 * @ring: the ring.
 * @st: out: the ring's figures, with the totals over its queues.
 * @qs: out, may be NULL: the figures of queue 0, 1, ... up to @max_qs of
 *	them (st->nr_queues are valid).
 * @max_qs: entries @qs has room for.
 *
 * For status readers, not the request path: takes the key lock for the
 * ring's figures, then each queue's lock in turn, then the key lock
 * again, and starts over if a detach came in between; never the setup
 * mutex, which detach needs (its readers are any user's).  Each queue's
 * figures are consistent; the totals add up queues read one after the
 * other, all of one attachment.  Any context that may take a BH-safe
 * spinlock.
 */
void gpu_aes_ring_status(struct gpu_aes_ring *ring,
			 struct gpu_aes_ring_status *st,
			 struct gpu_aes_queue_status *qs, u32 max_qs);

#endif /* GPU_AES_RING_H */
