// SPDX-License-Identifier: GPL-2.0-only
/*
 * keys.c - tfm keys and the shared key table.
 *
 * The table holds raw keys (uapi/gpu_aes.h); every backend expands its own
 * round keys.  Slots are shared by all queues, so binding a tfm's key to a
 * slot, rewriting it after setkey, taking a slot over and freeing it run
 * under the ring's key_lock.  A request whose tfm's key is bound and
 * unchanged - nearly every request - takes no lock but its queue's: it
 * counts itself in its queue's key_taken[slot] and then checks that the
 * slot is still its tfm's.  A take-over claims the slot (key_owner) and
 * then checks that no queue counts it.  Each side writes, then a full
 * barrier, then reads what the other writes (a Dekker handshake), so at
 * least one of them sees the other and backs off: a slot is never handed
 * to another tfm while a request of the old one names it.
 */
#include <crypto/aes.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/string.h>

#include "keys.h"
#include "ring_state.h"
#include "stats.h"

void gpu_aes_key_init(struct gpu_aes_tfm_key *k)
{
	memset(k, 0, sizeof(*k));
	k->slot = -1;
}

int gpu_aes_key_set(struct gpu_aes_ring *ring, struct gpu_aes_tfm_key *k,
		    u8 alg, const u8 *key, unsigned int len)
{
	u32 key_len, tweak_len;

	if (!gpu_aes_alg_key_split(alg, len, &key_len, &tweak_len))
		return -EINVAL;
	/* key_lock keeps a concurrent slot write from copying a torn image. */
	spin_lock_bh(&ring->key_lock);
	memzero_explicit(&k->img, sizeof(k->img));
	k->img.key_len = key_len;
	k->img.tweak_len = tweak_len;
	memcpy(k->img.key, key, len);
	WRITE_ONCE(k->dirty, true);
	spin_unlock_bh(&ring->key_lock);
	return 0;
}

/*
 * Requests of every queue naming slot @s.  No queue lock: see the top.  A
 * queue's count is taken less returned, each written by one side of the
 * queue (ring.h); returned is read first and a request is returned only
 * after it was taken, so no queue's figure is ever below the truth at the
 * moment its taken count is read.
 */
static u32 gpu_aes_key_users(struct gpu_aes_ring *ring, u32 s)
{
	u32 n = ring->nr_queues, i, users = 0;
	const struct gpu_aes_queue *q;
	u16 returned;

	for (i = 0; i < n; i++) {
		q = &ring->queues[i];
		/* Acquire: pairs with gpu_aes_tag_release()'s release. */
		returned = smp_load_acquire(&q->key_returned[s]);
		users += (u16)(READ_ONCE(q->key_taken[s]) - returned);
	}
	return users;
}

/*
 * A slot to take over when the table is full: the least recently used one
 * whose tfm has left it unused for GPU_AES_KEY_IDLE and that no request
 * names.  A scan that finds none is not repeated before the first slot
 * could qualify, so a table held by busy tfms costs a request that finds
 * no slot one comparison.  key_lock held.
 */
static int gpu_aes_key_take_over(struct gpu_aes_ring *ring)
{
	unsigned long now = jiffies, soonest = now + GPU_AES_KEY_IDLE, lu;
	struct gpu_aes_tfm_key *o, *best = NULL;
	unsigned long best_lu = 0;
	int slot = -1;
	u32 s;

	lockdep_assert_held(&ring->key_lock);
	if (time_before(now, ring->key_scan_after))
		return -ENOKEY;
	for (s = 0; s < ring->nr_keys; s++) {
		o = ring->key_owner[s];
		if (!o)
			continue;
		lu = READ_ONCE(o->last_use);
		if (time_before(now, lu + GPU_AES_KEY_IDLE)) {
			if (time_before(lu + GPU_AES_KEY_IDLE, soonest))
				soonest = lu + GPU_AES_KEY_IDLE;
			continue;
		}
		if (gpu_aes_key_users(ring, s)) {
			/* Free again when its requests complete: look soon. */
			soonest = now + 1;
			continue;
		}
		if (!best || time_before(lu, best_lu)) {
			best = o;
			best_lu = lu;
			slot = s;
		}
	}
	if (best) {
		/* Claim it, then make sure no reservation got in first. */
		WRITE_ONCE(ring->key_owner[slot], NULL);
		/* Owner written before counts read; pairs with the prepare's. */
		smp_mb();
		if (!gpu_aes_key_users(ring, slot)) {
			/* Its tfm binds another slot at its next ring use. */
			WRITE_ONCE(best->slot, -1);
			gpu_aes_stat_inc(GPU_AES_STAT_KEY_RECLAIMS);
			return slot;
		}
		WRITE_ONCE(ring->key_owner[slot], best);
		soonest = now + 1;
	}
	ring->key_scan_after = soonest;
	return -ENOKEY;
}

/* The slow path of gpu_aes_key_prepare(), under key_lock. */
static int gpu_aes_key_bind(struct gpu_aes_ring *ring, struct gpu_aes_queue *q,
			    struct gpu_aes_tfm_key *k, u16 *slot, u32 *gen)
{
	struct gpu_aes_key *e;
	int ret = 0;
	long s;

	/* The queue's sq_lock already has BHs off. */
	spin_lock(&ring->key_lock);
	if (k->slot < 0 || k->attach_gen != ring->attach_gen) {
		s = find_first_zero_bit(ring->key_map, ring->nr_keys);
		if (s >= ring->nr_keys)
			s = gpu_aes_key_take_over(ring);
		if (s < 0) {
			ret = -ENOKEY;
			goto out;
		}
		__set_bit(s, ring->key_map);
		WRITE_ONCE(ring->key_owner[s], k);
		WRITE_ONCE(k->attach_gen, ring->attach_gen);
		WRITE_ONCE(k->dirty, true);
		/*
		 * The slot last: a fast path that reads it (acquire) sees the
		 * entry dirty and comes here for the lock, instead of naming
		 * a slot whose image and gen are not written yet.
		 */
		smp_store_release(&k->slot, s);
	}
	s = k->slot;
	if (k->dirty) {
		e = &ring->keys[s];
		k->img.gen = ++ring->key_gen[s];
		/* The sqe naming this gen is published with release after. */
		memcpy(e, &k->img, sizeof(*e));
		/* gen before dirty: the fast path reads them the other way. */
		smp_store_release(&k->dirty, false);
	}
	/* Under key_lock: no take-over is looking at this slot now. */
	WRITE_ONCE(q->key_taken[s], q->key_taken[s] + 1);
	WRITE_ONCE(k->last_use, jiffies);
	*slot = s;
	*gen = ring->key_gen[s];
out:
	spin_unlock(&ring->key_lock);
	return ret;
}

int gpu_aes_key_prepare(struct gpu_aes_ring *ring, struct gpu_aes_queue *q,
			struct gpu_aes_tfm_key *k, u16 *slot, u32 *gen)
{
	unsigned long now = jiffies;
	/* Pairs with gpu_aes_key_bind()'s release: a new slot is dirty. */
	int s = smp_load_acquire(&k->slot);
	bool dirty;

	lockdep_assert_held(&q->sq_lock);
	/* Acquire: a clean key's gen below is the one written before. */
	dirty = smp_load_acquire(&k->dirty);
	if (s < 0 || READ_ONCE(k->attach_gen) != ring->attach_gen || dirty)
		return gpu_aes_key_bind(ring, q, k, slot, gen);
	WRITE_ONCE(q->key_taken[s], q->key_taken[s] + 1);
	/* Pairs with gpu_aes_key_take_over()'s: see the top of the file. */
	smp_mb();
	if (READ_ONCE(ring->key_owner[s]) != k) {
		WRITE_ONCE(q->key_taken[s], q->key_taken[s] - 1);
		return gpu_aes_key_bind(ring, q, k, slot, gen);
	}
	/* At most one write per tick: the line stays shared between CPUs. */
	if (READ_ONCE(k->last_use) != now)
		WRITE_ONCE(k->last_use, now);
	*slot = s;
	*gen = READ_ONCE(ring->key_gen[s]);
	return 0;
}

void gpu_aes_key_release(struct gpu_aes_ring *ring, struct gpu_aes_tfm_key *k)
{
	spin_lock_bh(&ring->key_lock);
	if (ring->attached && k->slot >= 0 &&
	    k->attach_gen == ring->attach_gen) {
		memzero_explicit(&ring->keys[k->slot], sizeof(ring->keys[0]));
		__clear_bit(k->slot, ring->key_map);
		WRITE_ONCE(ring->key_owner[k->slot], NULL);
	}
	k->slot = -1;
	spin_unlock_bh(&ring->key_lock);
	memzero_explicit(k, sizeof(*k));
	k->slot = -1;
}
