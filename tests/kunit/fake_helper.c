// SPDX-License-Identifier: GPL-2.0-only
/*
 * The in-kernel stand-in for gpu-aes-helper (see fake_helper.h).
 */
#include <crypto/aes.h>
#include <crypto/gcm.h>
#include <linux/atomic.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "aes_ref.h"
#include "fake_helper.h"
#include "ring.h"

/* The driver has one ring, so at most one fake is attached to it. */
static struct fake_helper *fake_helper_current;

static void fake_helper_words_to_bytes(u8 *out, const u32 *w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		__le32 v = cpu_to_le32(w[i]);

		memcpy(out + 4 * i, &v, 4);
	}
}

/*
 * The key table entry the sqe names must be the one the kernel promised:
 * right generation, schedules that match the raw key in the ABI's byte
 * order (what the CUDA kernels load), a tweak key and its schedule exactly
 * when the sqe is XTS, and zeros everywhere else.
 */
static int fake_helper_key(struct fake_helper *h, const struct gpu_aes_sqe *sqe,
			   struct crypto_aes_ctx *ctx,
			   struct crypto_aes_ctx *tweak)
{
	bool xts = sqe->alg == GPU_AES_ALG_XTS;
	const struct gpu_aes_key *k;
	unsigned int n, klen;
	u8 sched[240];
	int ret = -EINVAL;

	if (sqe->key_slot >= h->setup.nr_keys)
		return -EINVAL;
	k = &h->keys[sqe->key_slot];
	if (k->gen != sqe->key_gen || k->rounds != 6 + k->key_len / 4)
		return -EINVAL;
	if (k->tweak_len != (xts ? k->key_len : 0))
		return -EINVAL;
	klen = k->key_len + k->tweak_len;
	if (memchr_inv(k->key + klen, 0, sizeof(k->key) - klen) ||
	    memchr_inv(k->pad, 0, sizeof(k->pad)))
		return -EINVAL;
	if (aes_expandkey(ctx, k->key, k->key_len))
		return -EINVAL;
	n = 4 * (k->rounds + 1);
	fake_helper_words_to_bytes(sched, ctx->key_enc, n);
	if (memcmp(sched, k->enc_sched, 4 * n) ||
	    memchr_inv(k->enc_sched + 4 * n, 0, sizeof(k->enc_sched) - 4 * n))
		goto out;
	fake_helper_words_to_bytes(sched, ctx->key_dec, n);
	if (memcmp(sched, k->dec_sched, 4 * n) ||
	    memchr_inv(k->dec_sched + 4 * n, 0, sizeof(k->dec_sched) - 4 * n))
		goto out;
	if (!xts) {
		if (memchr_inv(k->tweak_sched, 0, sizeof(k->tweak_sched)))
			goto out;
		ret = 0;
		goto out;
	}
	if (aes_expandkey(tweak, k->key + k->key_len, k->tweak_len))
		goto out;
	fake_helper_words_to_bytes(sched, tweak->key_enc, n);
	if (memcmp(sched, k->tweak_sched, 4 * n) ||
	    memchr_inv(k->tweak_sched + 4 * n, 0,
		       sizeof(k->tweak_sched) - 4 * n))
		goto out;
	ret = 0;
out:
	memzero_explicit(sched, sizeof(sched));
	return ret;
}

/* GCM through lib/crypto/aesgcm.c, on the ABI's text | tag | AAD layout. */
static int fake_helper_gcm(struct fake_helper *h, const struct gpu_aes_sqe *sqe)
{
	const struct gpu_aes_key *k = &h->keys[sqe->key_slot];
	u8 *text = h->data + sqe->data_off;
	u8 *tag = h->data + gpu_aes_gcm_tag_off(sqe->data_off, sqe->len);
	u8 *aad = h->data + gpu_aes_gcm_aad_off(sqe->data_off, sqe->len);
	struct aesgcm_ctx *gcm = &h->gcm;
	int ret = GPU_AES_STATUS_OK;

	if (aesgcm_expandkey(gcm, k->key, k->key_len, sqe->auth_len))
		return -EINVAL;
	if (sqe->dir == GPU_AES_DIR_ENCRYPT) {
		aesgcm_encrypt(gcm, text, text, sqe->len, aad, sqe->aad_len,
			       sqe->iv, tag);
	} else if (!aesgcm_decrypt(gcm, text, text, sqe->len, aad,
				   sqe->aad_len, sqe->iv, tag)) {
		atomic_inc(&h->auth_fails);
		ret = GPU_AES_STATUS_EBADMSG;
	}
	memzero_explicit(gcm, sizeof(*gcm));
	return ret;
}

int fake_helper_compute(struct fake_helper *h, const struct gpu_aes_sqe *sqe)
{
	struct crypto_aes_ctx ctx, tweak;
	bool dec = sqe->dir == GPU_AES_DIR_DECRYPT;
	bool gcm = sqe->alg == GPU_AES_ALG_GCM;
	int ret = GPU_AES_STATUS_OK;
	u64 span;
	u8 *buf;

	if (sqe->tag >= h->setup.nr_entries ||
	    memchr_inv(sqe->reserved1, 0, sizeof(sqe->reserved1)))
		goto bad;
	if (sqe->alg < GPU_AES_ALG_ECB || sqe->alg > GPU_AES_ALG_GCM)
		goto bad;
	if (sqe->dir != GPU_AES_DIR_ENCRYPT && sqe->dir != GPU_AES_DIR_DECRYPT)
		goto bad;
	span = gpu_aes_sqe_span(sqe->alg, sqe->len, sqe->aad_len);
	if ((!gcm && !sqe->len) || sqe->data_off % GPU_AES_DATA_ALIGN ||
	    sqe->data_off > h->setup.data_size ||
	    span > h->setup.data_size - sqe->data_off)
		goto bad;
	if (sqe->alg == GPU_AES_ALG_ECB &&
	    (sqe->len % AES_BLOCK_SIZE || memchr_inv(sqe->iv, 0, 16)))
		goto bad;
	if (sqe->alg == GPU_AES_ALG_XTS && sqe->len < AES_BLOCK_SIZE)
		goto bad;
	if (gcm && (crypto_gcm_check_authsize(sqe->auth_len) ||
		    memchr_inv(sqe->iv + GCM_AES_IV_SIZE, 0, 4)))
		goto bad;
	if (!gcm && (sqe->aad_len || sqe->auth_len))
		goto bad;
	if (fake_helper_key(h, sqe, &ctx, &tweak))
		goto bad;

	buf = h->data + sqe->data_off;
	switch (sqe->alg) {
	case GPU_AES_ALG_ECB:
		aes_ref_ecb(&ctx, dec, buf, sqe->len);
		break;
	case GPU_AES_ALG_CTR:
		aes_ref_ctr(&ctx, sqe->iv, buf, sqe->len);
		break;
	case GPU_AES_ALG_XTS:
		aes_ref_xts(&ctx, &tweak, dec, sqe->iv, buf, sqe->len);
		break;
	default:
		ret = fake_helper_gcm(h, sqe);
		if (ret == -EINVAL)
			goto bad;
		break;
	}
	memzero_explicit(&ctx, sizeof(ctx));
	memzero_explicit(&tweak, sizeof(tweak));
	atomic_inc(&h->sqes);
	return ret;
bad:
	memzero_explicit(&ctx, sizeof(ctx));
	memzero_explicit(&tweak, sizeof(tweak));
	atomic_inc(&h->sqe_errors);
	atomic_inc(&h->sqes);
	return GPU_AES_STATUS_EINVAL;
}

unsigned int fake_helper_pending(struct fake_helper *h)
{
	/* Entries and data before the tail; pairs with the kernel's release. */
	return smp_load_acquire(&h->hdr->sq_tail) - h->sq_head;
}

unsigned int fake_helper_fetch(struct fake_helper *h, struct gpu_aes_sqe *out,
			       unsigned int max)
{
	u32 mask = h->setup.nr_entries - 1;
	unsigned int n = 0, avail = fake_helper_pending(h);

	if (avail > h->setup.nr_entries) {
		/* The kernel overran its own queue. */
		atomic_inc(&h->sqe_errors);
		avail = h->setup.nr_entries;
	}
	while (n < avail && n < max) {
		memcpy(&out[n], &h->sq[h->sq_head & mask], sizeof(*out));
		h->sq_head++;
		n++;
	}
	WRITE_ONCE(h->hdr->sq_head, h->sq_head);
	return n;
}

void fake_helper_post(struct fake_helper *h, u32 tag, u32 seq, s32 status)
{
	struct gpu_aes_cqe *c = &h->cq[h->cq_tail & (h->setup.nr_entries - 1)];

	c->tag = tag;
	c->seq = seq;
	c->status = status;
	c->reserved = 0;
	h->cq_tail++;
}

void fake_helper_publish_tail(struct fake_helper *h, u32 tail)
{
	/* cqes and data before the tail; pairs with the kernel's acquire. */
	smp_store_release(&h->hdr->cq_tail, tail);
}

void fake_helper_publish(struct fake_helper *h)
{
	fake_helper_publish_tail(h, h->cq_tail);
}

int fake_helper_reap(struct fake_helper *h)
{
	atomic_inc(&h->reaps);
	return gpu_aes_ring_reap(h->ring);
}

unsigned int fake_helper_run(struct fake_helper *h)
{
	struct gpu_aes_sqe sqe;
	unsigned int done = 0;

	/*
	 * One at a time so the CQ (as deep as the SQ) can never overflow: the
	 * kernel holds at most nr_entries tags.
	 */
	while (fake_helper_fetch(h, &sqe, 1)) {
		fake_helper_post(h, sqe.tag, sqe.seq,
				 fake_helper_compute(h, &sqe));
		done++;
	}
	if (done) {
		fake_helper_publish(h);
		fake_helper_reap(h);
	}
	return done;
}

/*
 * The real helper's loop: drain, announce sleep with NEED_WAKEUP, re-check,
 * sleep.  Anything the kernel posts after the re-check must kick us.
 */
static void fake_helper_work(struct work_struct *work)
{
	struct fake_helper *h = container_of(work, struct fake_helper, work);

	for (;;) {
		WRITE_ONCE(h->hdr->helper_flags, 0);
		fake_helper_run(h);
		WRITE_ONCE(h->hdr->helper_flags, GPU_AES_HELPER_NEED_WAKEUP);
		/* Pairs with the kernel's smp_mb() between tail and flags. */
		smp_mb();
		if (!fake_helper_pending(h))
			break;
	}
}

static void fake_helper_kick(struct gpu_aes_ring *ring)
{
	struct fake_helper *h = READ_ONCE(fake_helper_current);

	if (!h || h->ring != ring)
		return;
	atomic_inc(&h->kicks);
	if (READ_ONCE(h->automatic))
		queue_work(h->wq, &h->work);
}

void fake_helper_set_automatic(struct fake_helper *h, bool on)
{
	WRITE_ONCE(h->automatic, on);
	if (on) {
		queue_work(h->wq, &h->work);
		flush_workqueue(h->wq);
	} else {
		flush_workqueue(h->wq);
		/* Manual: nobody sleeps, so the kernel need not kick. */
		WRITE_ONCE(h->hdr->helper_flags, 0);
	}
}

int fake_helper_attach(struct fake_helper *h, struct gpu_aes_ring *ring,
		       u32 nr_entries, u32 nr_keys, u64 data_size,
		       bool automatic)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->ring = ring;
	h->setup.abi_version = GPU_AES_ABI_VERSION;
	h->setup.features = GPU_AES_FEAT_NEED_WAKEUP;
	h->setup.nr_entries = nr_entries;
	h->setup.nr_keys = nr_keys;
	h->setup.data_size = data_size;
	gpu_aes_layout(nr_entries, nr_keys, data_size, &h->layout);
	h->setup.region_size = h->layout.region_size;
	h->region = vmalloc(h->layout.region_size);
	if (!h->region)
		return -ENOMEM;
	/* Garbage where the kernel must write before it reads. */
	memset(h->region, 0xa5, h->layout.region_size);
	h->setup.region_addr = (unsigned long)h->region;
	h->hdr = h->region;
	h->sq = h->region + h->layout.sq_off;
	h->cq = h->region + h->layout.cq_off;
	h->keys = h->region + h->layout.keys_off;
	h->data = h->region + h->layout.data_off;
	h->wq = alloc_ordered_workqueue("gpu_aes_fake_helper", 0);
	if (!h->wq) {
		vfree(h->region);
		return -ENOMEM;
	}
	INIT_WORK(&h->work, fake_helper_work);
	h->automatic = automatic;
	WRITE_ONCE(fake_helper_current, h);
	ring->kick = fake_helper_kick;
	ret = gpu_aes_ring_attach(ring, h->region, &h->setup);
	if (ret) {
		ring->kick = NULL;
		WRITE_ONCE(fake_helper_current, NULL);
		destroy_workqueue(h->wq);
		vfree(h->region);
		return ret;
	}
	if (automatic)
		WRITE_ONCE(h->hdr->helper_flags, GPU_AES_HELPER_NEED_WAKEUP);
	return 0;
}

void fake_helper_detach(struct fake_helper *h)
{
	gpu_aes_ring_detach(h->ring);
	/* No more posts, so no more kicks; let a running drain finish. */
	WRITE_ONCE(h->automatic, false);
	flush_workqueue(h->wq);
	h->ring->kick = NULL;
	WRITE_ONCE(fake_helper_current, NULL);
	destroy_workqueue(h->wq);
	vfree(h->region);
	h->region = NULL;
}
