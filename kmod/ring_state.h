/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring_state.h - the kernel's state of the shared region and its queues,
 * and the rules that keep it: what ring.c, queue.c, backlog.c and keys.c
 * share (ring.h is what the rest of the module calls).
 *
 * Queues: a submitter uses the queue of the CPU it runs on (CPU number
 * modulo the number of queues), and everything a request touches from
 * reservation to completion - the queue's lock, tags, data slice, indices,
 * deadline scan, backlog, user count and the per-CPU counters - is that
 * queue's or that CPU's.  CPUs on different queues share no lock and write
 * no common cache line; the only shared state is the key table, whose
 * lock a request takes only when its tfm needs a slot (keys.c).
 *
 * Locking, per queue: two BH-safe spinlocks (submission works from
 * softirq), one per side of the queue, so a submitter never waits for a
 * reaper.  @sq_lock is the submitting side's: reserving a tag, its data
 * space and its key slot at the heads of the queue's rings, and posting
 * it.  @lock is the completing side's: claiming completions, releasing
 * tags at the tails, the deadline scan and the backlog.  Each side reads
 * the other's indices without its lock (a tail released with release
 * semantics, a tag's state with acquire); a submitter that finds the queue
 * full takes both (@lock first) to decide between the backlog and the CPU,
 * so no reaper frees space between its look and its choice.  Both are
 * held only for bookkeeping: the bytes are copied in (by a submitter
 * holding a RESERVED tag) and out (by a reaper holding COMPLETING tags)
 * without them.  Whoever copies holds a reference in the queue's @users,
 * taken under @sq_lock while the queue is attached; detach (under both
 * locks) waits for every queue's count to drop to zero before the tag
 * tables and region go away.  A request belongs to whoever moves its tag
 * out of IN_FLIGHT under @lock, so it is completed exactly once; posting
 * moves it in under @sq_lock, before the sqe that names it is published.
 */
#ifndef GPU_AES_RING_STATE_H
#define GPU_AES_RING_STATE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "gpu_aes.h"
#include "job.h"
#include "stats.h"

struct gpu_aes_ring;
struct gpu_aes_tfm_key;

/**
 * enum gpu_aes_tag_state - life of a tag.
 * @GPU_AES_TAG_FREE: not allocated.
 * @GPU_AES_TAG_RESERVED: space and key slot taken; its submitter copies the
 *	source in without the lock and then posts it.  Never expires (its
 *	submitter owns the request), and as the oldest tag it does not count
 *	as space that comes back (gpu_aes_queue_space_returns()): a
 *	submitter may be kept off the CPU indefinitely.
 * @GPU_AES_TAG_ADMITTED: reserved by admission for a backlogged request;
 *	posted by the context that admitted it before it can be preempted
 *	(gpu_aes_queue_unlock_post_admitted(); not so on PREEMPT_RT).
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
	GPU_AES_TAG_ADMITTED,
	GPU_AES_TAG_IN_FLIGHT,
	GPU_AES_TAG_TIMED_OUT,
	GPU_AES_TAG_COMPLETING,
	GPU_AES_TAG_RELEASED,
};

/**
 * struct gpu_aes_tag - kernel-private state of one queue entry.
 * @job: the request while RESERVED, ADMITTED, IN_FLIGHT or COMPLETING,
 *	else NULL.
 * @end: the queue's byte-ring position just past this tag's data space.
 * @data_off: offset of the request's bytes in the data area.
 * @len: text bytes of the request.
 * @deadline: jiffies after which the request is recomputed on the CPU:
 *	its job's, set when its caller was promised an answer.
 * @seq: bumped on every use, its low 8 bits the queue's number, so a
 *	completion must echo it on the right queue.
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
 * struct gpu_aes_queue - one queue: what a CPU's requests touch.
 * @ring: the ring it belongs to.
 * @id: its index.
 * @scan_mutex: held by the deadline scan; KUnit holds it to keep requests
 *	from expiring while a test submits.
 * @timeout_work: the queue's deadline scan.
 * @attached: a region is attached (written under both locks).
 * @stalled: a request on this queue timed out (on the ring or in the
 *	backlog) and the helper has not completed anything on it since.  New
 *	requests then go to the CPU at once and the backlog is flushed to
 *	the CPU: a consumer that waits for each -EBUSY request's
 *	-EINPROGRESS (dm-crypt does) would otherwise crawl at one request
 *	per timeout.  Cleared by the next valid completion on the queue.
 * @stalled_at: CLOCK_BOOTTIME (ns) when @stalled last went from false to
 *	true; for gpu_aes_ring_status() only.
 * @scan_armed: @timeout_work is queued to run at @scan_at.
 * @scan_at: see @scan_armed.
 * @qhdr: the queue's header in the region.
 * @sq: its submission queue.
 * @cq: its completion queue.
 * @data: its slice of the data area.
 * @data_base: the slice's offset in the data area.
 * @tags: queue_entries tags, used round robin.
 * @nr_backlog: requests in @backlog (written under @lock; read by
 *	submitters, whom a backlog sends to gpu_aes_queue_full(), and by
 *	status reads, which must not walk the list under a lock submitters
 *	take).
 * @lock: the completing side: the fields after it up to @sq_lock,
 *	@stalled, @stalled_at, @scan_armed, @scan_at, @nr_backlog, and a
 *	tag from IN_FLIGHT on.
 * @key_returned: per key slot, requests of this queue naming it whose tag
 *	was released (free running; @key_taken's other half).
 * @cq_head: kernel's copy of the CQ head.
 * @tag_tail: oldest tag not yet freed (free running; written with
 *	release, read by reservers with acquire).
 * @data_tail: byte-ring release position (free running; likewise).
 * @retired: tags that left IN_FLIGHT (completed, timed out, or taken by
 *	detach), free running: gpu_aes_queue_in_flight().
 * @backlog: MAY_BACKLOG requests waiting for space, oldest first.
 * @sq_lock: the submitting side: the fields after it but @users, and a
 *	tag from reservation to IN_FLIGHT.  Taken inside @lock where both
 *	are held.  Each lock starts a cache line with its side's hot fields,
 *	so the two sides write no common line and the read-mostly fields
 *	above share none with either.
 * @users: submitters and reapers working on the region outside the locks
 *	(on the submitting side's line: a submitter counts twice per
 *	request, a reaper once per batch).
 * @tag_head: next tag to allocate (free running).
 * @data_head: byte-ring allocation position in the slice (free running).
 * @key_taken: per key slot, requests of this queue that named it at
 *	reservation (free running).  Less @key_returned: the requests
 *	reserved or posted naming it whose tag is not yet released (a
 *	timed-out one counts until the helper answers it); keys.c never
 *	takes over a slot that any queue counts (gpu_aes_key_users()).
 * @sq_tail: kernel's copy of the SQ tail (the header's is only written).
 * @posted: tags moved to IN_FLIGHT, free running.
 */
struct gpu_aes_queue {
	/*
	 * Read by both sides on every request, written rarely (attach,
	 * detach, a stall, a backlog, arming the scan): no line a lock or
	 * a per-request count lives on, so reading them costs no miss.
	 */
	struct gpu_aes_ring *ring;
	u32 id;
	bool attached;
	bool stalled;
	bool scan_armed;
	u32 nr_backlog;
	unsigned long scan_at;
	u64 stalled_at;
	struct gpu_aes_queue_hdr *qhdr;
	struct gpu_aes_sqe *sq;
	struct gpu_aes_cqe *cq;
	u8 *data;
	u64 data_base;
	struct gpu_aes_tag *tags;
	struct mutex scan_mutex;	/* the deadline scan */
	struct delayed_work timeout_work;

	/* The completing side. */
	spinlock_t lock ____cacheline_aligned_in_smp;
	u16 *key_returned;
	u32 cq_head;
	u32 tag_tail;
	u64 data_tail;
	u32 retired;
	struct list_head backlog;

	/* The submitting side. */
	spinlock_t sq_lock ____cacheline_aligned_in_smp;
	atomic_t users;
	u32 tag_head;
	u64 data_head;
	u16 *key_taken;
	u32 sq_tail;
	u32 posted;
} ____cacheline_aligned_in_smp;

/**
 * gpu_aes_queue_in_flight() - requests of a queue posted and not retired.
 * @q: the queue.
 *
 * Needs no lock: a tag is retired only after it was posted, and @retired
 * is read first.
 *
 * Return: the number.
 */
static inline u32 gpu_aes_queue_in_flight(const struct gpu_aes_queue *q)
{
	/* Acquire: @posted read after, so never below @retired. */
	u32 retired = smp_load_acquire(&q->retired);

	return READ_ONCE(q->posted) - retired;
}

/**
 * struct gpu_aes_ring_observer - what the ring tells the policy that
 * routes requests to it (dispatch.c), so the ring knows nothing of it.
 * @attached: a helper attached @nr_queues queues: its figures are new.
 * @completed: a reaper of queue @q spent @ns copying out and completing
 *	requests of @bytes in all (after it admitted what then fitted).
 * @lone_completed: @job, posted alone on its queue (job->lone_t0 set),
 *	took @ns from submission to its callback.
 */
struct gpu_aes_ring_observer {
	void (*attached)(u32 nr_queues);
	void (*completed)(struct gpu_aes_queue *q, u64 ns, u64 bytes);
	void (*lone_completed)(const struct gpu_aes_job *job, u64 ns);
};

/**
 * struct gpu_aes_ring - the attachable region and its queues.
 * @observer: told of attaches and completion costs (may be NULL).
 * @setup_mutex: serialises attach and detach.
 * @wq: the helper's poll() waits here.
 * @doorbell_rung: @wq was woken since the helper's poll() last looked for
 *	work (gpu_aes_ring_pending()): the helper is awake or waking, so
 *	a post that sees NEED_WAKEUP need not wake it again.
 * @key_lock: protects the key table state from @key_map on, and binding
 *	a tfm key to a slot (keys.c); taken inside a queue's lock.
 * @queues: @max_queues queues, initialised once; the first @nr_queues
 *	are attached while a region is.
 * @max_queues: queues there is room for (GPU_AES_MAX_QUEUES).
 * @nr_queues: queues of the attached region (1 while none is): a
 *	submitter on CPU c uses queue c % @nr_queues.
 * @attached: a region is attached (under every queue's lock and
 *	@key_lock, so any of them is enough to read it).
 * @attach_gen: bumped on every detach; key slots of older generations are
 *	stale.
 * @hdr: region header.
 * @keys: key table.
 * @data: data area.
 * @queue_entries: entries of each queue's SQ and CQ (power of two).
 * @nr_keys: key table entries.
 * @queue_data_size: bytes of each queue's data slice.
 * @data_size: bytes of the data area, all slices (gpu_aes_layout()'s).
 * @key_map: allocated key slots.
 * @key_gen: per-slot generation, private so the helper cannot move it.
 * @key_owner: per slot, the tfm key bound to it (NULL when free).
 * @key_scan_after: keys.c does not look for a slot to take over before
 *	this (jiffies).
 * @helper_ns_per_kib: the helper's own CPU per KiB, as its header says,
 *	clamped; copied by reapers so the request path reads no region.
 * @helper_mib_per_s: the rate it says it sustains, clamped; 0: unknown.
 * @algs: the algorithms the attached helper serves (GPU_AES_ALG_BIT());
 *	the others run on the CPU (fallback_unsupported).
 * @helper_pid: thread group id (initial PID namespace) of the task that
 *	attached the region; for gpu_aes_ring_status() only.
 * @attached_at: CLOCK_BOOTTIME (ns) of the attach; ditto.
 * @kick: KUnit builds only; called (atomic context, no lock held) whenever
 *	the helper would be woken, so an in-kernel test helper can schedule
 *	work.
 * @mid_copy: KUnit builds only; called with no lock held and a reference
 *	in the queue's users, just before a submitter copies in (@out false)
 *	or a reaper copies out (@out true), so a test can hold one there.
 * @test_queue: KUnit builds only; when >= 0, the queue every submission
 *	uses, whatever CPU it runs on (UML has one CPU).
 * @posted: KUnit builds only; called with the queue's sq_lock held just
 *	after a post published @job's sqe: from then on a helper and a
 *	reaper on other CPUs may complete it and its consumer reuse the
 *	request, which a test does there.
 * @claiming: KUnit builds only; called with the queue's lock held by a
 *	reaper that has just read (acquire) the state of tag @t to judge a
 *	completion naming it, before it reads anything else of the tag: a
 *	test makes there the stores a weakly ordered CPU would show it only
 *	from the acquire on.
 */
struct gpu_aes_ring {
	const struct gpu_aes_ring_observer *observer;
	struct mutex setup_mutex;	/* attach vs detach */
	wait_queue_head_t wq;
	spinlock_t key_lock;		/* the key table state */
	struct gpu_aes_queue *queues;
	u32 max_queues;
	u32 nr_queues;

	bool attached;
	u64 attach_gen;
	struct gpu_aes_region_hdr *hdr;
	struct gpu_aes_key *keys;
	u8 *data;
	u32 queue_entries;
	u32 nr_keys;
	u64 queue_data_size;
	u64 data_size;
	unsigned long *key_map;
	u32 *key_gen;
	struct gpu_aes_tfm_key **key_owner;
	unsigned long key_scan_after;
	u32 helper_ns_per_kib;
	u32 helper_mib_per_s;
	u32 algs;
	pid_t helper_pid;
	u64 attached_at;
#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
	void (*kick)(struct gpu_aes_ring *ring);
	void (*mid_copy)(struct gpu_aes_ring *ring, bool out);
	int test_queue;
	void (*posted)(struct gpu_aes_ring *ring, struct gpu_aes_job *job);
	void (*claiming)(struct gpu_aes_ring *ring, struct gpu_aes_tag *t);
#endif
	/* Written once per sleep of the helper, read on every wake. */
	atomic_t doorbell_rung ____cacheline_aligned_in_smp;
};

/* The ring behind /dev/gpu_aes and the registered algorithms. */
extern struct gpu_aes_ring gpu_aes_ring;

/*
 * A helper's CPU per KiB above this (100 us, a thousand times any real
 * backend's) is clamped: it already sends every request to the CPU.
 */
#define GPU_AES_HELPER_NS_PER_KIB_MAX	100000U

/*
 * gpu_aes_ring_submit() and gpu_aes_queue_full() result: run the request
 * on the CPU instead.
 */
#define GPU_AES_RING_FALLBACK	1

/*
 * cqes one reaper claims per lock hold: bounds the lock hold time and lets
 * concurrent reapers share a burst of completions.
 */
#define GPU_AES_REAP_BATCH	32U

/**
 * gpu_aes_ring_serves() - does the attached helper serve an algorithm?
 * @ring: the ring.
 * @alg: enum gpu_aes_alg.
 *
 * A hint for the request path (a helper may attach or leave meanwhile:
 * gpu_aes_ring_submit() decides under the queue's lock).
 *
 * Return: true if a helper is attached and says it serves @alg.
 */
static inline bool gpu_aes_ring_serves(const struct gpu_aes_ring *ring, u8 alg)
{
	return READ_ONCE(ring->attached) &&
	       READ_ONCE(ring->algs) & GPU_AES_ALG_BIT(alg);
}

/**
 * gpu_aes_ring_queue() - the queue of the CPU this runs on.
 * @ring: the ring.
 *
 * A hint for the dispatch policy: a submitter preempted onto another CPU
 * may post to another queue.
 *
 * Return: the queue.
 */
struct gpu_aes_queue *gpu_aes_ring_queue(struct gpu_aes_ring *ring);

#endif /* GPU_AES_RING_STATE_H */
