// SPDX-License-Identifier: GPL-2.0-only
/*
 * kring.c - a request type over kmod/'s request path (kring.h): what
 * skcipher.c and aead.c do in the kernel, with OpenSSL as the fallback.
 *
 * Built like the kmod/ files it calls (kshim.h force-included), so the
 * ring's structures are the kernel's own.
 */
#include <stdio.h>

#include "cost.h"
#include "dispatch.h"
#include "job.h"
#include "keys.h"
#include "params.h"
#include "ring.h"
#include "stats.h"

#include "../helper/src/cpu_aes.h"
#include "kring.h"

/* The module's parameters (kmod/main.c defines them in the kernel). */
unsigned int gpu_aes_ring_min_bytes = GPU_AES_DEFAULT_RING_MIN_BYTES;
unsigned int gpu_aes_ring_max_bytes = GPU_AES_DEFAULT_RING_MAX_BYTES;
unsigned int gpu_aes_timeout_ms = GPU_AES_DEFAULT_TIMEOUT_MS;
int gpu_aes_dispatch = GPU_AES_DISPATCH_AUTO;

/*
 * A tfm: its key state in the ring (keys.c) and, standing for the fallback
 * tfm, an OpenSSL key per CPU (thread): a context holds a request's state,
 * and the kernel's fallback runs on whatever CPU submits, reaps or times
 * out, possibly at once.  Each is made on its CPU's first fallback.
 */
struct kring_tfm {
	const struct gpu_aes_alg_desc *desc;
	struct gpu_aes_tfm_key key;
	uint8_t raw[64];
	uint32_t key_len;
	uint32_t tweak_len;
	unsigned int authsize;
	struct gpu_aes_cpu_key *cpu[KSHIM_NR_CPUS];
};

/* A request and its context: the job the ring sees, and the API's fields. */
struct kring_req {
	struct gpu_aes_job job;
	struct kring_tfm *tfm;
	struct scatterlist src_sg;
	struct scatterlist dst_sg;
	const uint8_t *src;
	uint8_t *dst;
	uint8_t *iv;
	uint32_t len;
	uint32_t aad_len;
	uint32_t flags;
	u8 auth_len;		/* the tfm's authsize when the request was set */
	u8 dir;
	/* Times its last submission ran on the CPU: fallback or replay. */
	unsigned int cpu_runs;
	void (*done)(void *arg, int err);
	void *arg;
};

static struct kring_req *kring_job_req(struct gpu_aes_job *job)
{
	return container_of(job, struct kring_req, job);
}

static struct gpu_aes_cpu_key *kring_cpu_key(struct kring_tfm *t)
{
	int cpu = raw_smp_processor_id();
	struct gpu_aes_cpu_key *k = t->cpu[cpu];

	if (k)
		return k;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	gpu_aes_cpu_key_set(k, t->raw, t->key_len, t->tweak_len);
	t->cpu[cpu] = k;
	return k;
}

/* The fallback: the whole request, synchronously, on this CPU. */
static int kring_cpu_crypt(struct kring_req *r)
{
	struct kring_tfm *t = r->tfm;
	bool gcm = t->desc->aead;
	struct gpu_aes_cpu_key *k = kring_cpu_key(t);
	uint8_t iv[16] = { 0 };
	struct gpu_aes_cpu_op op = {
		.alg = t->desc->alg,
		.dir = r->dir,
		.auth_len = gcm ? r->auth_len : 0,
		.iv = iv,
		.in = r->src + r->aad_len,
		.out = r->dst + r->aad_len,
		.len = r->len,
		.aad = r->src,
		.aad_len = r->aad_len,
		.tag = (r->dir == GPU_AES_DIR_DECRYPT ? (uint8_t *)r->src :
			r->dst) + r->aad_len + r->len,
	};
	int32_t status;

	uint8_t in_last[16] = { 0 };

	if (!k)
		return -ENOMEM;
	/* A constant size is two moves; a variable one, a rep movs. */
	if (t->desc->iv_bytes == sizeof(iv))
		memcpy(iv, r->iv, sizeof(iv));
	else if (t->desc->iv_bytes)
		memcpy(iv, r->iv, t->desc->iv_bytes);
	/*
	 * Block chaining: the last input block, before an in-place run; no
	 * other output IV rule reads it (nor do the kernel's CPU drivers
	 * copy it for the other modes).
	 */
	if (t->desc->out_iv == GPU_AES_OUT_IV_CHAIN && r->len >= sizeof(in_last))
		memcpy(in_last, op.in + r->len - sizeof(in_last),
		       sizeof(in_last));
	status = gpu_aes_cpu_crypt(k, &op);
	if (status == GPU_AES_STATUS_EBADMSG)
		return -EBADMSG;
	if (status)
		return -EIO;
	/* What the kernel's fallback tfm leaves in req->iv. */
	gpu_aes_out_iv(t->desc, r->dir, r->iv, r->len, in_last,
		       op.out + r->len - (r->len >= 16 ? 16 : r->len));
	return 0;
}

/* OpenSSL is synchronous: the sub-request's flags change nothing. */
static int kring_job_cpu_crypt(struct gpu_aes_job *job, u32 flags)
{
	struct kring_req *r = kring_job_req(job);

	/*
	 * A request is on one CPU path at a time (run or replay), so no two
	 * of these race: a load and a store, without the locked add that
	 * cost a fifth of the layer gpu-aes-bench --decision weighs.
	 */
	__atomic_store_n(&r->cpu_runs,
			 __atomic_load_n(&r->cpu_runs, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	return kring_cpu_crypt(r);
}

static void kring_job_complete(struct gpu_aes_job *job, int err)
{
	struct kring_req *r = kring_job_req(job);

	r->done(r->arg, err);
}

static const struct gpu_aes_job_ops kring_sk_ops = {
	.copy_in = gpu_aes_sk_copy_in,
	.copy_out = gpu_aes_sk_copy_out,
	.cpu_crypt = kring_job_cpu_crypt,
	.complete = kring_job_complete,
};

static const struct gpu_aes_job_ops kring_aead_ops = {
	.copy_in = gpu_aes_aead_copy_in,
	.copy_out = gpu_aes_aead_copy_out,
	.cpu_crypt = kring_job_cpu_crypt,
	.complete = kring_job_complete,
};

int kring_init(void)
{
	int err = kshim_start();

	if (err)
		return err;
	gpu_aes_alg_init();
	gpu_aes_stats_init();
	return gpu_aes_ring_init(&gpu_aes_ring, &gpu_aes_dispatch_observer);
}

void kring_exit(void)
{
	gpu_aes_ring_exit(&gpu_aes_ring);
	kshim_stop();
}

void kring_set_cpu(int cpu)
{
	kshim_set_cpu(cpu);
}

uint64_t kring_submitters_cpu_ns(void)
{
	return kshim_chosen_cpu_ns();
}

int kring_consumer_thread(void)
{
	return kshim_add_consumer();
}

void kring_set_params(unsigned int ring_min_bytes, unsigned int ring_max_bytes,
		      unsigned int timeout_ms)
{
	WRITE_ONCE(gpu_aes_ring_min_bytes, ring_min_bytes);
	WRITE_ONCE(gpu_aes_ring_max_bytes, ring_max_bytes);
	WRITE_ONCE(gpu_aes_timeout_ms, timeout_ms);
}

void kring_set_doorbell(void (*ring)(void *arg), void *arg)
{
	gpu_aes_ring.wq.arg = arg;
	WRITE_ONCE(gpu_aes_ring.wq.wake, ring);
}

int kring_attach(void *base, const struct gpu_aes_setup *s)
{
	if (!base || (uintptr_t)base % PAGE_SIZE)
		return -EINVAL;
	return gpu_aes_ring_attach(&gpu_aes_ring, base, s);
}

void kring_detach(void)
{
	gpu_aes_ring_detach(&gpu_aes_ring);
}

void kring_copy_to_slot(void *slot, const void *src, uint32_t len)
{
	struct scatterlist sg = {
		.buf = (void *)src, .length = len, .last = true,
	};

	gpu_aes_sg_to_slot(&sg, 1, slot, len, 0);
}

void kring_copy_to_slot_fence(void)
{
	gpu_aes_slot_copied();
}

int kring_reap(uint32_t qid)
{
	return gpu_aes_ring_reap(&gpu_aes_ring, qid);
}

int kring_pending(void)
{
	return gpu_aes_ring_pending(&gpu_aes_ring);
}

int kring_doorbell_armed(void)
{
	return !atomic_read(&gpu_aes_ring.doorbell_rung);
}

void kring_hold_key_lock(int hold)
{
	if (hold)
		spin_lock_bh(&gpu_aes_ring.key_lock);
	else
		spin_unlock_bh(&gpu_aes_ring.key_lock);
}

unsigned int kring_nr_stats(void)
{
	return GPU_AES_NR_STATS;
}

const char *kring_stat_name(unsigned int i)
{
	return i < GPU_AES_NR_STATS ? gpu_aes_stat_names[i] : NULL;
}

int64_t kring_stat(const char *name)
{
	unsigned int i;

	for (i = 0; i < GPU_AES_NR_STATS; i++)
		if (gpu_aes_stat_names[i] && !strcmp(name, gpu_aes_stat_names[i]))
			return gpu_aes_stat_read(i);
	return -1;
}

int kring_tfm_new(enum gpu_aes_alg alg, const uint8_t *key,
		  unsigned int key_len, struct kring_tfm **out)
{
	const struct gpu_aes_alg_desc *desc = gpu_aes_alg_desc(alg);
	struct kring_tfm *t;
	int err;

	if (!desc)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->desc = desc;
	t->authsize = 16;
	gpu_aes_key_init(&t->key);
	err = kring_tfm_setkey(t, key, key_len);
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

int kring_tfm_setkey(struct kring_tfm *t, const uint8_t *key,
		     unsigned int key_len)
{
	int err, cpu;

	err = gpu_aes_key_set(&gpu_aes_ring, &t->key, t->desc->alg, key,
			      key_len);
	if (err)
		return err;
	gpu_aes_alg_key_split(t->desc->alg, key_len, &t->key_len,
			      &t->tweak_len);
	memzero_explicit(t->raw, sizeof(t->raw));
	memcpy(t->raw, key, key_len);
	for (cpu = 0; cpu < KSHIM_NR_CPUS; cpu++)
		if (t->cpu[cpu])
			gpu_aes_cpu_key_set(t->cpu[cpu], t->raw, t->key_len,
					    t->tweak_len);
	return 0;
}

int kring_tfm_set_authsize(struct kring_tfm *t, unsigned int authsize)
{
	if (!t->desc->aead || !gpu_aes_gcm_auth_len_valid(authsize))
		return -EINVAL;
	t->authsize = authsize;
	return 0;
}

unsigned int kring_tfm_authsize(const struct kring_tfm *t)
{
	return t->authsize;
}

void kring_tfm_free(struct kring_tfm *t)
{
	int cpu;

	if (!t)
		return;
	gpu_aes_key_release(&gpu_aes_ring, &t->key);
	for (cpu = 0; cpu < KSHIM_NR_CPUS; cpu++) {
		if (!t->cpu[cpu])
			continue;
		gpu_aes_cpu_key_wipe(t->cpu[cpu]);
		free(t->cpu[cpu]);
	}
	memzero_explicit(t, sizeof(*t));
	free(t);
}

struct kring_req *kring_req_new(struct kring_tfm *t)
{
	struct kring_req *r = calloc(1, sizeof(*r));

	if (r)
		r->tfm = t;
	return r;
}

void kring_req_free(struct kring_req *r)
{
	free(r);
}

void kring_req_set(struct kring_req *r, enum gpu_aes_dir dir,
		   const uint8_t *src, uint8_t *dst, uint32_t len,
		   uint32_t aad_len, uint8_t *iv, uint32_t flags,
		   void (*done)(void *arg, int err), void *arg)
{
	bool gcm = r->tfm->desc->aead;
	uint32_t tag = gcm ? r->tfm->authsize : 0;

	r->auth_len = tag;
	r->dir = dir;
	r->src = src;
	r->dst = dst;
	r->len = len;
	r->aad_len = gcm ? aad_len : 0;
	r->iv = iv;
	r->flags = flags;
	r->done = done;
	r->arg = arg;
	r->src_sg.buf = (void *)src;
	r->src_sg.length = r->aad_len + len +
			   (dir == GPU_AES_DIR_DECRYPT ? tag : 0);
	r->src_sg.last = true;
	r->dst_sg.buf = dst;
	r->dst_sg.length = r->aad_len + len +
			   (dir == GPU_AES_DIR_ENCRYPT ? tag : 0);
	r->dst_sg.last = true;
}

int kring_submit(struct kring_req *r)
{
	struct kring_tfm *t = r->tfm;
	const struct gpu_aes_alg_desc *desc = t->desc;
	u64 bytes = (u64)r->len + r->aad_len;

	if (!gpu_aes_alg_len_valid(desc->alg, r->len))
		return -EINVAL;
	if (!r->len && !desc->aead)
		return 0;
	__atomic_store_n(&r->cpu_runs, 0, __ATOMIC_RELAXED);
	gpu_aes_job_init(&r->job, desc->aead ? &kring_aead_ops : &kring_sk_ops,
			 desc, &t->key, &r->src_sg, &r->dst_sg, r->iv, r->len,
			 r->flags, r->dir);
	if (desc->aead) {
		r->job.aad_len = r->aad_len;
		r->job.auth_len = r->auth_len;
	}
	return gpu_aes_route(&gpu_aes_ring, &r->job, bytes);
}

int kring_cpu_direct(struct kring_req *r)
{
	return kring_cpu_crypt(r);
}

unsigned int kring_req_cpu_runs(const struct kring_req *r)
{
	return __atomic_load_n(&r->cpu_runs, __ATOMIC_RELAXED);
}

int kring_set_dispatch(const char *mode)
{
	static const char *const names[] = {
		[GPU_AES_DISPATCH_AUTO] = "auto",
		[GPU_AES_DISPATCH_RING] = "ring",
		[GPU_AES_DISPATCH_CPU] = "cpu",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(mode, names[i])) {
			WRITE_ONCE(gpu_aes_dispatch, (int)i);
			return 0;
		}
	return -EINVAL;
}

int kring_dispatch_show(char *buf, size_t size)
{
	if (size < PAGE_SIZE)
		return -EINVAL;
	return (int)gpu_aes_dispatch_show(buf);
}
