// SPDX-License-Identifier: GPL-2.0-only
/*
 * keys.c - tfm keys and the shared key table.
 *
 * The kernel AES library (aes_expandkey()) produces the schedules as u32
 * words loaded little-endian from the key bytes (get_unaligned_le32), so
 * storing every word back little-endian yields the round keys as bytes in
 * AES (FIPS-197) order on any CPU.  key_dec is the equivalent inverse
 * cipher's schedule in decryption order: the last encryption round key
 * first, InvMixColumns applied to the middle rounds, the cipher key last.
 * gpu_aes_key_selftest() checks this at module load against FIPS-197
 * Appendix A.1, for the data key and for an XTS tweak key, so a library
 * change cannot silently feed the helper garbage.
 */
#include <crypto/aes.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "keys.h"
#include "ring.h"
#include "stats.h"

static void gpu_aes_words_to_bytes(u8 *out, const u32 *w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		__le32 v = cpu_to_le32(w[i]);

		memcpy(out + 4 * i, &v, 4);
	}
}

/*
 * Fill a key table image from one AES key of @len bytes, followed (@xts)
 * by a tweak key of the same length; the caller holds whatever protects
 * @img.  On error @img is left as it was.
 */
static int gpu_aes_key_expand(struct gpu_aes_key *img, const u8 *key,
			      unsigned int len, bool xts)
{
	struct crypto_aes_ctx aes, tweak;
	unsigned int words;
	int ret;

	ret = aes_expandkey(&aes, key, len);
	if (!ret && xts)
		ret = aes_expandkey(&tweak, key + len, len);
	if (ret)
		goto out;
	memset(img, 0, sizeof(*img));
	img->key_len = len;
	img->rounds = 6 + len / 4;
	memcpy(img->key, key, xts ? 2 * len : len);
	words = 4 * (img->rounds + 1);
	gpu_aes_words_to_bytes(img->enc_sched, aes.key_enc, words);
	gpu_aes_words_to_bytes(img->dec_sched, aes.key_dec, words);
	if (xts) {
		img->tweak_len = len;
		gpu_aes_words_to_bytes(img->tweak_sched, tweak.key_enc, words);
	}
out:
	memzero_explicit(&aes, sizeof(aes));
	memzero_explicit(&tweak, sizeof(tweak));
	return ret;
}

void gpu_aes_key_init(struct gpu_aes_tfm_key *k)
{
	memset(k, 0, sizeof(*k));
	k->slot = -1;
}

static int gpu_aes_key_store(struct gpu_aes_ring *ring,
			     struct gpu_aes_tfm_key *k, const u8 *key,
			     unsigned int len, bool xts)
{
	int ret;

	/* The ring lock keeps a concurrent post from copying a torn image. */
	spin_lock_bh(&ring->lock);
	ret = gpu_aes_key_expand(&k->img, key, len, xts);
	k->dirty = true;
	spin_unlock_bh(&ring->lock);
	return ret;
}

int gpu_aes_key_set(struct gpu_aes_ring *ring, struct gpu_aes_tfm_key *k,
		    const u8 *key, unsigned int len)
{
	return gpu_aes_key_store(ring, k, key, len, false);
}

int gpu_aes_key_set_xts(struct gpu_aes_ring *ring, struct gpu_aes_tfm_key *k,
			const u8 *key, unsigned int len)
{
	if (len % 2)
		return -EINVAL;
	return gpu_aes_key_store(ring, k, key, len / 2, true);
}

/*
 * A slot to take over when the table is full: the least recently used one
 * whose tfm has left it unused for GPU_AES_KEY_IDLE and that no request on
 * the ring names (ring->key_inflight).  A scan that finds none is not
 * repeated before the first slot could qualify, so a table held by busy
 * tfms costs a request that finds no slot one comparison.  Lock held.
 */
static int gpu_aes_key_reclaim(struct gpu_aes_ring *ring)
{
	unsigned long now = jiffies, soonest = now + GPU_AES_KEY_IDLE;
	struct gpu_aes_tfm_key *o, *best = NULL;
	int slot = -1;
	u32 s;

	if (time_before(now, ring->key_scan_after))
		return -ENOKEY;
	for (s = 0; s < ring->nr_keys; s++) {
		o = ring->key_owner[s];
		if (ring->key_inflight[s]) {
			/* Free again when its requests complete: look soon. */
			soonest = now + 1;
			continue;
		}
		if (time_before(now, o->last_use + GPU_AES_KEY_IDLE)) {
			if (time_before(o->last_use + GPU_AES_KEY_IDLE, soonest))
				soonest = o->last_use + GPU_AES_KEY_IDLE;
			continue;
		}
		if (!best || time_before(o->last_use, best->last_use)) {
			best = o;
			slot = s;
		}
	}
	if (!best) {
		ring->key_scan_after = soonest;
		return -ENOKEY;
	}
	/* Its tfm binds another slot at its next ring use. */
	best->slot = -1;
	gpu_aes_stat_inc(GPU_AES_STAT_KEY_RECLAIMS);
	return slot;
}

int gpu_aes_key_prepare(struct gpu_aes_ring *ring, struct gpu_aes_tfm_key *k,
			u16 *slot, u32 *gen)
{
	struct gpu_aes_key *e;
	unsigned long s;
	int r;

	lockdep_assert_held(&ring->lock);
	if (k->slot < 0 || k->attach_gen != ring->attach_gen) {
		s = find_first_zero_bit(ring->key_map, ring->nr_keys);
		if (s >= ring->nr_keys) {
			r = gpu_aes_key_reclaim(ring);
			if (r < 0)
				return r;
			s = r;
		}
		__set_bit(s, ring->key_map);
		ring->key_owner[s] = k;
		k->slot = s;
		k->attach_gen = ring->attach_gen;
		k->dirty = true;
	}
	if (k->dirty) {
		e = &ring->keys[k->slot];
		k->img.gen = ++ring->key_gen[k->slot];
		/* The sqe naming this gen is published with release after. */
		memcpy(e, &k->img, sizeof(*e));
		k->dirty = false;
	}
	k->last_use = jiffies;
	*slot = k->slot;
	*gen = ring->key_gen[k->slot];
	return 0;
}

void gpu_aes_key_release(struct gpu_aes_ring *ring, struct gpu_aes_tfm_key *k)
{
	spin_lock_bh(&ring->lock);
	if (ring->attached && k->slot >= 0 &&
	    k->attach_gen == ring->attach_gen) {
		memzero_explicit(&ring->keys[k->slot], sizeof(ring->keys[0]));
		__clear_bit(k->slot, ring->key_map);
		ring->key_owner[k->slot] = NULL;
	}
	k->slot = -1;
	spin_unlock_bh(&ring->lock);
	memzero_explicit(k, sizeof(*k));
	k->slot = -1;
}

int gpu_aes_key_selftest(void)
{
	/* FIPS-197 Appendix A.1: cipher key, w[4..7] and w[40..43]. */
	static const u8 key[16] = {
		0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
		0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
	};
	static const u8 round1[16] = {
		0xa0, 0xfa, 0xfe, 0x17, 0x88, 0x54, 0x2c, 0xb1,
		0x23, 0xa3, 0x39, 0x39, 0x2a, 0x6c, 0x76, 0x05,
	};
	static const u8 round10[16] = {
		0xd0, 0x14, 0xf9, 0xa8, 0xc9, 0xee, 0x25, 0x89,
		0xe1, 0x3f, 0x0c, 0xc8, 0xb6, 0x63, 0x0c, 0xa6,
	};
	u8 xts_key[2 * sizeof(key)] = {};
	struct gpu_aes_key *img;
	int ret = -EINVAL;

	img = kzalloc(sizeof(*img), GFP_KERNEL);
	if (!img)
		return -ENOMEM;
	if (gpu_aes_key_expand(img, key, sizeof(key), false))
		goto out;
	if (img->rounds != 10 || img->tweak_len ||
	    memcmp(img->enc_sched, key, 16) ||
	    memcmp(img->enc_sched + 16, round1, 16) ||
	    memcmp(img->enc_sched + 160, round10, 16) ||
	    memcmp(img->dec_sched, round10, 16) ||
	    memcmp(img->dec_sched + 160, key, 16))
		goto out;
	/* XTS: the A.1 key as the tweak key (second half), data key zero. */
	memcpy(xts_key + sizeof(key), key, sizeof(key));
	if (gpu_aes_key_expand(img, xts_key, sizeof(key), true))
		goto out;
	if (img->key_len != 16 || img->tweak_len != 16 ||
	    memcmp(img->key, xts_key, 2 * sizeof(key)) ||
	    memcmp(img->tweak_sched, key, 16) ||
	    memcmp(img->tweak_sched + 16, round1, 16) ||
	    memcmp(img->tweak_sched + 160, round10, 16) ||
	    !memcmp(img->enc_sched + 16, round1, 16))
		goto out;
	ret = 0;
out:
	kfree_sensitive(img);
	return ret;
}
