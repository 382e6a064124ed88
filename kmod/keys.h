/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * keys.h - a tfm's key and its slot in the shared key table.
 */
#ifndef GPU_AES_KEYS_H
#define GPU_AES_KEYS_H

#include <linux/types.h>

#include "gpu_aes.h"

struct gpu_aes_queue;
struct gpu_aes_ring;

/*
 * How long a tfm must leave its key slot unused before another tfm may
 * take it when the table is full: a consumer that uses the ring keeps its
 * slot, one that went quiet gives it to one that has none.
 */
#define GPU_AES_KEY_IDLE	HZ

/**
 * struct gpu_aes_tfm_key - per-tfm key state.
 * @img: the key table entry this tfm wants in its slot; gen is set when
 *	it is written.
 * @attach_gen: ring->attach_gen when @slot was taken.
 * @last_use: jiffies of the last reservation naming @slot.
 * @slot: key table slot held in attachment @attach_gen, or -1 (also when
 *	another tfm took it over: gpu_aes_key_prepare()).
 * @dirty: @img changed since it was last written to @slot.
 *
 * Written under the ring's key_lock, but @last_use, which reservations
 * refresh under their queue's lock only.  The reservation fast path reads
 * @slot, @attach_gen and @dirty without key_lock (see keys.c).
 */
struct gpu_aes_tfm_key {
	struct gpu_aes_key img;
	u64 attach_gen;
	unsigned long last_use;
	int slot;
	bool dirty;
};

/**
 * gpu_aes_key_init() - initialise a tfm's key state (no key, no slot).
 * @k: the key state.
 */
void gpu_aes_key_init(struct gpu_aes_tfm_key *k);

/**
 * gpu_aes_key_set() - take a new key into @k.
 * @ring: the ring whose key_lock protects @k.
 * @k: the key state.
 * @alg: the tfm's enum gpu_aes_alg: the key's shape is its
 *	(gpu_aes_alg_key_split(): one AES key, or XTS's data key then tweak
 *	key, halves of @len).
 * @key: raw key.
 * @len: its bytes.
 *
 * The slot (if any) is rewritten on the next ring submission.
 *
 * Return: 0, or -EINVAL for a length the mode does not take.
 */
int gpu_aes_key_set(struct gpu_aes_ring *ring, struct gpu_aes_tfm_key *k,
		    u8 alg, const u8 *key, unsigned int len);

/**
 * gpu_aes_key_prepare() - make sure @k is in the attached key table, and
 * count a request of queue @q that names its slot.
 * @ring: an attached ring.
 * @q: the queue reserving, lock held.
 * @k: the key state.
 * @slot: out: the slot.
 * @gen: out: the slot's generation to put in the sqe.
 *
 * The common case, a bound and unchanged key, takes no shared lock and
 * writes no shared cache line.  Otherwise, under key_lock: takes a slot
 * on the first use in this attachment (or after another tfm took its slot
 * over): a free one, else the least recently used slot that no request on
 * any queue names and whose tfm has left it unused for GPU_AES_KEY_IDLE
 * (that tfm binds another slot at its next use); and writes the entry if
 * the key changed since the last write, bumping the slot's generation.
 * @q's sq_lock held.  On success @q->key_taken[@slot] counts one more
 * request; the caller undoes that if it then reserves nothing.
 *
 * Return: 0, or -ENOKEY if no slot can be had now.
 */
int gpu_aes_key_prepare(struct gpu_aes_ring *ring, struct gpu_aes_queue *q,
			struct gpu_aes_tfm_key *k, u16 *slot, u32 *gen);

/**
 * gpu_aes_key_release() - wipe @k and free its slot (exit_tfm).
 * @ring: the ring (takes its lock).
 * @k: the key state.
 *
 * No backlogged request waits for a key slot (one that finds none goes to
 * the CPU), so a freed slot has nobody to admit.
 */
void gpu_aes_key_release(struct gpu_aes_ring *ring, struct gpu_aes_tfm_key *k);

#endif /* GPU_AES_KEYS_H */
