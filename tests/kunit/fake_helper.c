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

/*
 * The key table entry the sqe names must be the one the kernel promised:
 * right generation, a valid key length, a tweak key exactly when the sqe
 * is XTS (same length), and zeros everywhere else.
 */
static int fake_helper_key(struct fake_helper *h, const struct gpu_aes_sqe *sqe,
			   struct crypto_aes_ctx *ctx,
			   struct crypto_aes_ctx *tweak)
{
	bool xts = sqe->alg == GPU_AES_ALG_XTS;
	const struct gpu_aes_key *k;
	unsigned int klen;

	if (sqe->key_slot >= h->setup.geo.nr_keys)
		return -EINVAL;
	k = &h->keys[sqe->key_slot];
	if (k->gen != sqe->key_gen || k->reserved ||
	    !gpu_aes_alg_key_valid(sqe->alg, k->key_len, k->tweak_len))
		return -EINVAL;
	klen = k->key_len + k->tweak_len;
	if (memchr_inv(k->key + klen, 0, sizeof(k->key) - klen) ||
	    memchr_inv(k->pad, 0, sizeof(k->pad)))
		return -EINVAL;
	if (aes_expandkey(ctx, k->key, k->key_len))
		return -EINVAL;
	if (xts && aes_expandkey(tweak, k->key + k->key_len, k->tweak_len))
		return -EINVAL;
	return 0;
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
	u64 slice = h->geo.queue_data_size, base = h->cur * slice;
	struct crypto_aes_ctx ctx, tweak;
	bool dec = sqe->dir == GPU_AES_DIR_DECRYPT;
	bool gcm = sqe->alg == GPU_AES_ALG_GCM;
	int ret = GPU_AES_STATUS_OK;
	u64 span;
	u8 *buf;

	/* The seq names the queue the kernel posted it on. */
	if (sqe->tag >= h->geo.queue_entries || (sqe->seq & 0xff) != h->cur ||
	    memchr_inv(sqe->reserved1, 0, sizeof(sqe->reserved1)))
		goto bad;
	if (!gpu_aes_sqe_alg_fields_valid(sqe))
		goto bad;
	if (sqe->dir != GPU_AES_DIR_ENCRYPT && sqe->dir != GPU_AES_DIR_DECRYPT)
		goto bad;
	/* Inside the queue's own slice of the data area, 64-byte aligned. */
	span = gpu_aes_sqe_span(sqe->alg, sqe->len, sqe->aad_len);
	if ((!gcm && !sqe->len) || sqe->data_off % GPU_AES_DATA_ALIGN ||
	    sqe->data_off < base || sqe->data_off - base > slice ||
	    span > slice - (sqe->data_off - base))
		goto bad;
	if (sqe->alg == GPU_AES_ALG_ECB && memchr_inv(sqe->iv, 0, 16))
		goto bad;
	if (fake_helper_key(h, sqe, &ctx, &tweak))
		goto bad;

	buf = h->data + sqe->data_off;
	switch (sqe->alg) {
	case GPU_AES_ALG_ECB:
		aes_ref_ecb(&ctx, dec, buf, sqe->len);
		break;
	case GPU_AES_ALG_CBC:
		aes_ref_cbc(&ctx, dec, sqe->iv, buf, sqe->len);
		break;
	case GPU_AES_ALG_CTR:
		aes_ref_ctr(&ctx, sqe->iv, buf, sqe->len);
		break;
	case GPU_AES_ALG_XTS:
		aes_ref_xts(&ctx, &tweak, dec, sqe->iv, buf, sqe->len);
		break;
	case GPU_AES_ALG_XCTR:
		aes_ref_xctr(&ctx, sqe->iv, buf, sqe->len);
		break;
	case GPU_AES_ALG_GCM:
		ret = fake_helper_gcm(h, sqe);
		if (ret == -EINVAL)
			goto bad;
		break;
	default:
		/* a mode of the table with no reference here */
		goto bad;
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

void fake_helper_use(struct fake_helper *h, u32 q)
{
	h->cur = q;
	h->qhdr = h->q[q].qhdr;
	h->sq = h->q[q].sq;
	h->cq = h->q[q].cq;
}

unsigned int fake_helper_pending(struct fake_helper *h)
{
	/* Entries and data before the tail; pairs with the kernel's release. */
	return smp_load_acquire(&h->qhdr->sq_tail) - h->q[h->cur].sq_head;
}

unsigned int fake_helper_fetch(struct fake_helper *h, struct gpu_aes_sqe *out,
			       unsigned int max)
{
	struct fake_queue *fq = &h->q[h->cur];
	u32 mask = h->geo.queue_entries - 1;
	unsigned int n = 0, avail = fake_helper_pending(h);

	if (avail > h->geo.queue_entries) {
		/* The kernel overran its own queue. */
		atomic_inc(&h->sqe_errors);
		avail = h->geo.queue_entries;
	}
	while (n < avail && n < max) {
		memcpy(&out[n], &fq->sq[fq->sq_head & mask], sizeof(*out));
		fq->sq_head++;
		n++;
	}
	WRITE_ONCE(fq->qhdr->sq_head, fq->sq_head);
	return n;
}

void fake_helper_post(struct fake_helper *h, u32 tag, u32 seq, s32 status)
{
	struct fake_queue *fq = &h->q[h->cur];
	struct gpu_aes_cqe *c = &fq->cq[fq->cq_tail & (h->geo.queue_entries - 1)];

	c->tag = tag;
	c->seq = seq;
	c->status = status;
	c->reserved = 0;
	fq->cq_tail++;
}

void fake_helper_publish_tail(struct fake_helper *h, u32 tail)
{
	/* cqes and data before the tail; pairs with the kernel's acquire. */
	smp_store_release(&h->qhdr->cq_tail, tail);
}

void fake_helper_publish(struct fake_helper *h)
{
	fake_helper_publish_tail(h, h->q[h->cur].cq_tail);
}

int fake_helper_reap(struct fake_helper *h)
{
	atomic_inc(&h->reaps);
	return gpu_aes_ring_reap(h->ring, h->cur);
}

/* Everything pending on the current queue, one at a time. */
static unsigned int fake_helper_run_queue(struct fake_helper *h)
{
	struct gpu_aes_sqe sqe;
	unsigned int done = 0;

	/*
	 * One at a time so the CQ (as deep as the SQ) can never overflow: the
	 * kernel holds at most queue_entries tags per queue.
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

unsigned int fake_helper_run(struct fake_helper *h)
{
	u32 cur = h->cur, i;
	unsigned int done = 0;

	for (i = 0; i < h->geo.nr_queues; i++) {
		fake_helper_use(h, i);
		done += fake_helper_run_queue(h);
	}
	fake_helper_use(h, cur);
	return done;
}

/* Any queue with entries the fake has not read. */
static bool fake_helper_any_pending(struct fake_helper *h)
{
	u32 i;

	for (i = 0; i < h->geo.nr_queues; i++)
		if (smp_load_acquire(&h->q[i].qhdr->sq_tail) != h->q[i].sq_head)
			return true;
	return false;
}

static void fake_helper_set_flags(struct fake_helper *h, u32 flags)
{
	u32 i;

	for (i = 0; i < h->geo.nr_queues; i++)
		WRITE_ONCE(h->q[i].qhdr->helper_flags, flags);
}

/*
 * The real helper's loop: drain, announce sleep with NEED_WAKEUP, re-check,
 * sleep.  Anything the kernel posts after the re-check must kick us.
 */
static void fake_helper_work(struct work_struct *work)
{
	struct fake_helper *h = container_of(work, struct fake_helper, work);

	for (;;) {
		fake_helper_set_flags(h, 0);
		fake_helper_run(h);
		fake_helper_set_flags(h, GPU_AES_HELPER_NEED_WAKEUP);
		/* Pairs with the kernel's smp_mb() between tail and flags. */
		smp_mb();
		/* What its poll() does before it sleeps: the handler's look. */
		if (!fake_helper_any_pending(h) &&
		    !gpu_aes_ring_pending(h->ring))
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
		fake_helper_set_flags(h, 0);
	}
}

int fake_helper_attach_algs(struct fake_helper *h, struct gpu_aes_ring *ring,
			    u32 nr_queues, u32 nr_entries, u32 nr_keys,
			    u64 queue_data, bool automatic, u32 algs)
{
	u32 i;
	int ret;

	if (nr_queues > FAKE_HELPER_MAX_QUEUES)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->ring = ring;
	h->geo.nr_queues = nr_queues;
	h->geo.queue_entries = nr_entries;
	h->geo.nr_keys = nr_keys;
	h->geo.page_size = PAGE_SIZE;
	h->geo.queue_data_size = queue_data;
	h->setup.abi_version = GPU_AES_ABI_VERSION;
	h->setup.features = GPU_AES_FEAT_NEED_WAKEUP;
	if (algs != FAKE_HELPER_ALGS_V3) {
		h->setup.features |= GPU_AES_FEAT_ALGS;
		h->setup.algs = algs;
	}
	h->setup.geo = h->geo;
	gpu_aes_layout(&h->geo, &h->layout);
	h->setup.region_size = h->layout.region_size;
	h->region = vmalloc(h->layout.region_size);
	if (!h->region)
		return -ENOMEM;
	/* Garbage where the kernel must write before it reads. */
	memset(h->region, 0xa5, h->layout.region_size);
	h->setup.region_addr = (unsigned long)h->region;
	h->hdr = h->region;
	h->keys = h->region + h->layout.keys_off;
	h->data = h->region + h->layout.data_off;
	for (i = 0; i < nr_queues; i++) {
		void *qbase = h->region + h->layout.queues_off +
			      i * h->layout.queue_stride;

		h->q[i].qhdr = qbase;
		h->q[i].sq = qbase + h->layout.sq_off;
		h->q[i].cq = qbase + h->layout.cq_off;
	}
	fake_helper_use(h, 0);
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
		fake_helper_set_flags(h, GPU_AES_HELPER_NEED_WAKEUP);
	return 0;
}

int fake_helper_attach_queues(struct fake_helper *h, struct gpu_aes_ring *ring,
			      u32 nr_queues, u32 nr_entries, u32 nr_keys,
			      u64 queue_data, bool automatic)
{
	return fake_helper_attach_algs(h, ring, nr_queues, nr_entries, nr_keys,
				       queue_data, automatic,
				       GPU_AES_ALGS_KNOWN);
}

int fake_helper_attach(struct fake_helper *h, struct gpu_aes_ring *ring,
		       u32 nr_entries, u32 nr_keys, u64 data_size,
		       bool automatic)
{
	return fake_helper_attach_queues(h, ring, 1, nr_entries, nr_keys,
					 data_size, automatic);
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
