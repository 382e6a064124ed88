/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * gpu_aes.h - the one ABI shared by gpu_aes.ko and gpu-aes-helper.
 *
 * The helper allocates the shared region (anonymous, page aligned memory it
 * can also register with CUDA) and hands it to the kernel with
 * GPU_AES_IOC_SETUP; the kernel pins it for as long as the helper stays
 * attached.  Layout of the region, every section aligned to the kernel's
 * page size (GPU_AES_IOC_INFO says which):
 *
 *   [ header | queue 0 | queue 1 | ... | key table | data area ]
 *
 * A queue is a queue header (its four indices, each on its own cache
 * line), its submission queue and its completion queue; the data area is
 * cut into one equal slice per queue.  A submitting CPU posts to its own
 * queue (CPU number modulo nr_queues), so CPUs on different queues share
 * no lock and no written cache line; the key table is shared.
 *
 * Offsets come from gpu_aes_layout(), which both sides compute from struct
 * gpu_aes_geometry; the kernel also publishes them in the header.  Nothing
 * in the region is a pointer.
 *
 * Ownership: every field below says who writes it.  "kernel" fields are
 * read-only for the helper; "helper" fields are untrusted by the kernel,
 * which re-reads them once (READ_ONCE) and checks them against its own
 * private state before acting on them.
 *
 * Indices (sq_head/sq_tail/cq_head/cq_tail) run freely over the whole
 * __u32 range; an entry's position is (index & (queue_entries - 1)).
 *
 * Version 3: queues (version 2 had one SQ/CQ pair), key table entries hold
 * raw keys only (no round-key schedules: every backend expands its own),
 * sections aligned to the kernel's page size, COMPLETE names a queue, and
 * the helper publishes its cost figures in the header.
 */
#ifndef _UAPI_GPU_AES_H
#define _UAPI_GPU_AES_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define GPU_AES_MAGIC		0x53454167U	/* "gAES" little endian */
#define GPU_AES_ABI_VERSION	3U
#define GPU_AES_DEVICE_NAME	"gpu_aes"

/*
 * Feature bits of struct gpu_aes_info.features and gpu_aes_setup.features.
 * The ABI grows by features both sides know, not by versions (ublk's
 * model): a module offers what it has in INFO, a helper asks in SETUP
 * for what it knows of those, and either side meets an older other one
 * on what they share.
 *
 * NEED_WAKEUP: the helper sleeps only after setting
 *	GPU_AES_HELPER_NEED_WAKEUP; every helper needs it.
 * ALGS: the module says which algorithms it may post (gpu_aes_info.algs)
 *	and posts only those the helper says it serves (gpu_aes_setup.algs);
 *	the rest run on the CPU.  A helper that does not ask for it is taken
 *	to serve GPU_AES_ALGS_V3, what every helper of ABI version 3 serves.
 */
#define GPU_AES_FEAT_NEED_WAKEUP	(1U << 0)
#define GPU_AES_FEAT_ALGS		(1U << 1)

#define GPU_AES_CACHELINE	64U
/* The header's own size; sections start on the page size instead. */
#define GPU_AES_HDR_SIZE	4096U

/* Limits the kernel accepts in GPU_AES_IOC_SETUP. */
#define GPU_AES_MAX_QUEUES	256U
#define GPU_AES_MIN_ENTRIES	16U	/* per queue; power of two */
#define GPU_AES_MAX_ENTRIES	16384U
#define GPU_AES_MAX_KEYS	4096U
#define GPU_AES_MIN_QUEUE_DATA	(1U << 20)	/* per queue */
#define GPU_AES_MAX_DATA	(1ULL << 30)	/* all queues */
#define GPU_AES_MIN_PAGE	4096U
#define GPU_AES_MAX_PAGE	65536U
/* Request bytes start on this boundary in the data area (16-byte loads). */
#define GPU_AES_DATA_ALIGN	64U

/*
 * The modes, one row each, with what every layer needs to know of a mode
 * (docs/design.md, "Adding a mode"): the kernel's algorithms and their
 * rules, the helper's CPU and GPU paths, names, counters and the tests'
 * loops are all made from these rows.  A layer defines X to take the
 * columns it uses:
 *
 *   X(ID, VAL, NAME, KIND, IV, KEYS, LEN, OUT_IV, PRIO, AUX, EVP,
 *     KOPF_ENC, KOPF_DEC)
 *
 * ID       the enum's name, GPU_AES_ALG_<ID>
 * VAL      its value in the sqe: the ABI, never reused
 * NAME     the short name: the crypto API's is NAME(aes), which is also
 *          what the kernel falls back on (its CPU driver); the driver's
 *          is NAME-aes-gpu
 * KIND     BLOCK (cra_blocksize 16), STREAM (1, chunksize 16), AEAD (1,
 *          an aead_alg: GCM's shape, a 96-bit IV and a tag)
 * IV       bytes of the request's IV the sqe carries (0, 12 or 16)
 * KEYS     AES keys in a key: 1, or 2 (a data key, then a tweak key)
 * LEN      text lengths it takes: BLOCKS (whole blocks), MIN_BLOCK (a
 *          block at least), ANY
 * OUT_IV   what the request's IV holds once it completes: KEEP, CTR (the
 *          counter after the last block, a partial one counting as one),
 *          CHAIN (the last ciphertext block)
 * PRIO     how far above the priority parameter it registers (1 where a
 *          template over our own ecb or ctr could tie it)
 * AUX      what the GPU kernel's segment aux starts as (helper/cuda):
 *          NONE, TWEAK (the IV, for the host to encrypt with the tweak
 *          key), J0 (IV || 1, for the host to encrypt), IV (the IV itself)
 * EVP      OpenSSL's cipher, aes-<key bits>-EVP (helper/src/cpu_aes.c);
 *          for a mode OpenSSL lacks, the one cpu_aes.c builds it from
 * KOPF_*   the GPU kernel's op flags for each direction
 *          (helper/cuda/aes_gpu.h, GPU_AES_KOPF_*)
 */
#define GPU_AES_MODES(X)						\
	X(ECB, 1, ecb, BLOCK, 0, 1, BLOCKS, KEEP, 0, NONE, ecb,		\
	  0, GPU_AES_KOPF_DEC_TABLES)					\
	X(CTR, 2, ctr, STREAM, 16, 1, ANY, CTR, 0, NONE, ctr, 0, 0)	\
	/* IEEE 1619, ciphertext stealing; the IV is left as it was */	\
	X(XTS, 3, xts, BLOCK, 16, 2, MIN_BLOCK, KEEP, 1, TWEAK, xts,	\
	  GPU_AES_KOPF_EXT | GPU_AES_KOPF_TWEAK,			\
	  GPU_AES_KOPF_EXT | GPU_AES_KOPF_TWEAK | GPU_AES_KOPF_DEC_TABLES) \
	/* SP 800-38D, 96-bit IV; CTR both ways: encryption tables */	\
	X(GCM, 4, gcm, AEAD, 12, 1, ANY, KEEP, 1, J0, gcm,		\
	  GPU_AES_KOPF_EXT | GPU_AES_KOPF_GHASH | GPU_AES_KOPF_LONG_CHUNKS, \
	  GPU_AES_KOPF_EXT | GPU_AES_KOPF_GHASH | GPU_AES_KOPF_LONG_CHUNKS) \
	/* SP 800-38A: encryption one chain a request, decryption not */ \
	X(CBC, 5, cbc, BLOCK, 16, 1, BLOCKS, CHAIN, 0, IV, cbc,		\
	  GPU_AES_KOPF_EXT | GPU_AES_KOPF_SERIAL | GPU_AES_KOPF_CHAIN,	\
	  GPU_AES_KOPF_EXT | GPU_AES_KOPF_DEC_TABLES | GPU_AES_KOPF_CHAIN) \
	/* HCTR2's XCTR: block i (from 1) is E_K(IV ^ le128(i)); the IV */ \
	/* is left as it was; OpenSSL has none: built on its ECB */	\
	X(XCTR, 6, xctr, STREAM, 16, 1, ANY, KEEP, 0, IV, ecb,		\
	  GPU_AES_KOPF_EXT, GPU_AES_KOPF_EXT)

/* KIND: what a mode's requests are (the table's column). */
enum gpu_aes_kind {
	GPU_AES_KIND_BLOCK = 1,
	GPU_AES_KIND_STREAM = 2,
	GPU_AES_KIND_AEAD = 3,
};

/* OUT_IV: what a completed request's IV holds (the table's column). */
enum gpu_aes_out_iv {
	GPU_AES_OUT_IV_KEEP = 0,
	GPU_AES_OUT_IV_CTR = 1,
	GPU_AES_OUT_IV_CHAIN = 2,
};

/* AUX: what the GPU kernel's segment aux starts as (the table's column). */
enum gpu_aes_aux {
	GPU_AES_AUX_NONE = 0,
	GPU_AES_AUX_TWEAK = 1,
	GPU_AES_AUX_J0 = 2,
	GPU_AES_AUX_IV = 3,
};

#define GPU_AES_ALG_ENUM_(ID, VAL, ...)	GPU_AES_ALG_##ID = VAL,
enum gpu_aes_alg {
	GPU_AES_MODES(GPU_AES_ALG_ENUM_)
};

#define GPU_AES_ALG_COUNT_(...)	+ 1
/*
 * The largest enum gpu_aes_alg value: tables indexed by alg - 1 (the
 * values run from 1 with no gap, asserted below).  An enumerator, not a
 * macro: a layer's X may use it.
 */
enum gpu_aes_alg_max {
	GPU_AES_ALG_MAX = 0 GPU_AES_MODES(GPU_AES_ALG_COUNT_)
};

/* A set of algorithms: bit (1 << alg) for each enum gpu_aes_alg value. */
#define GPU_AES_ALG_BIT(alg)	(1U << (alg))
/* The algorithms a helper that does not negotiate them serves. */
#define GPU_AES_ALGS_V3		(GPU_AES_ALG_BIT(GPU_AES_ALG_ECB) | \
				 GPU_AES_ALG_BIT(GPU_AES_ALG_CTR) | \
				 GPU_AES_ALG_BIT(GPU_AES_ALG_XTS) | \
				 GPU_AES_ALG_BIT(GPU_AES_ALG_GCM))
/* Every algorithm this header defines. */
#define GPU_AES_ALGS_KNOWN	((GPU_AES_ALG_BIT(GPU_AES_ALG_MAX + 1) - 1) & \
				 ~GPU_AES_ALG_BIT(0))

enum gpu_aes_dir {
	GPU_AES_DIR_ENCRYPT = 0,
	GPU_AES_DIR_DECRYPT = 1,
};

/*
 * Header, GPU_AES_HDR_SIZE bytes at offset 0.  The helper's figures live on
 * a cache line of their own.
 */
struct gpu_aes_region_hdr {
	/* Written by the kernel at setup, constant afterwards. */
	__u32 magic;
	__u32 abi_version;
	__u32 features;
	__u32 nr_queues;
	__u32 queue_entries;
	__u32 nr_keys;
	__u32 page_size;
	__u32 algs;		/* the algorithms the kernel posts (ALG_BIT) */
	__u64 region_size;
	__u64 queues_off;	/* queue q at queues_off + q * queue_stride */
	__u64 queue_stride;
	__u64 keys_off;
	__u64 data_off;		/* queue q's slice at data_off + q * queue_data_size */
	__u64 queue_data_size;
	__u8 pad0[2 * GPU_AES_CACHELINE - 80];

	/*
	 * helper: what serving the ring costs it, for the kernel's routing
	 * policy.  Untrusted: the kernel clamps them and lets them only ever
	 * send work to the CPU, never away from it.  0 means "not measured".
	 */
	__u32 helper_cpu_ns_per_kib;	/* host CPU, all its threads, per KiB */
	__u32 helper_mib_per_s;		/* what it sustains, MiB/s */
	__u32 helper_report_seq;	/* bumped after each update */
	__u8 pad1[GPU_AES_CACHELINE - 12];

	__u8 pad2[GPU_AES_HDR_SIZE - 3 * GPU_AES_CACHELINE];
};

/*
 * Queue header, at the start of each queue.  Each index the two sides move
 * lives on its own cache line so producer and consumer never write the
 * same line.
 */
struct gpu_aes_queue_hdr {
	/* kernel: next submission entry it will write. */
	__u32 sq_tail;
	__u8 pad0[GPU_AES_CACHELINE - 4];

	/*
	 * helper: next submission entry it will read, and GPU_AES_HELPER_*
	 * flags.  The kernel reads these only to decide whether to wake the
	 * helper; a lying helper only delays itself.
	 */
	__u32 sq_head;
	__u32 helper_flags;
	__u8 pad1[GPU_AES_CACHELINE - 8];

	/* helper: next completion entry it will write. */
	__u32 cq_tail;
	__u8 pad2[GPU_AES_CACHELINE - 4];

	/* kernel: next completion entry it will read. */
	__u32 cq_head;
	__u8 pad3[GPU_AES_CACHELINE - 4];
};

/*
 * helper_flags: the helper is about to sleep in poll(); the kernel must
 * wake it for the next submission to this queue.  While clear, the kernel
 * posts entries without any wake-up, so a busy helper sees no syscall or
 * IPI per request.  It wakes a sleeping helper once: the next wake-up
 * needs the helper's poll() to have looked for work again, as it does
 * before every sleep.
 */
#define GPU_AES_HELPER_NEED_WAKEUP	(1U << 0)

/*
 * Submission entry, written by the kernel, read by the helper.  The request's
 * bytes sit at data_off in the data area (relative to the area's start,
 * inside the queue's own slice) and are transformed in place.
 *
 * ECB, CTR, XTS, CBC, XCTR: len bytes at data_off.
 * GCM: the text (plaintext or ciphertext, len bytes, may be 0) at data_off,
 * then the tag at gpu_aes_gcm_tag_off() (auth_len bytes), then the
 * associated data at gpu_aes_gcm_aad_off() (aad_len bytes), so the text
 * starts on GPU_AES_DATA_ALIGN like every other algorithm's.  Encryption
 * replaces the text by ciphertext and writes the tag; decryption reads the
 * tag, replaces the text by plaintext and completes with
 * GPU_AES_STATUS_EBADMSG if the tag does not match (the kernel then
 * releases none of the text).  gpu_aes_sqe_span() is the whole extent.
 */
struct gpu_aes_sqe {
	__u32 tag;		/* request id, < queue_entries; echo in the cqe */
	__u32 seq;		/* generation of the tag; echo in the cqe */
	__u8 alg;		/* enum gpu_aes_alg */
	__u8 dir;		/* enum gpu_aes_dir */
	__u16 key_slot;		/* index into the key table */
	__u32 key_gen;		/* == key table entry's gen when posted */
	__u64 data_off;
	__u32 len;		/* bytes, as the mode's LEN column takes */
	__u32 aad_len;		/* an AEAD's associated data bytes; else 0 */
	/*
	 * The request's IV as the crypto API gave it, its first IV bytes
	 * (the mode's IV column), the rest zero: for ECB none; CTR's
	 * big-endian 128-bit counter; XTS's tweak before encryption with the
	 * second key (plain64: the little-endian sector number); GCM's
	 * 12-byte IV; CBC's IV, the block before the first; XCTR's IV, which
	 * each block's number (from 1, little endian) is XORed into.
	 */
	__u8 iv[16];
	__u8 auth_len;		/* GCM: tag bytes, 4, 8 or 12..16; else 0 */
	__u8 reserved1[15];
};

/* Completion entry, written by the helper to the sqe's queue, validated. */
struct gpu_aes_cqe {
	__u32 tag;
	__u32 seq;
	__s32 status;		/* 0, or GPU_AES_STATUS_* */
	__u32 reserved;
};

/*
 * Non-zero statuses the kernel accepts.  EIO and EINVAL make the kernel
 * recompute the request on the CPU; EBADMSG is accepted only for GCM
 * decryption and fails the request with -EBADMSG, releasing nothing.  Any
 * other value is rejected as garbage.
 */
#define GPU_AES_STATUS_OK	0
#define GPU_AES_STATUS_EIO	(-5)	/* backend failed; retry on CPU */
#define GPU_AES_STATUS_EINVAL	(-22)	/* helper could not parse the sqe */
#define GPU_AES_STATUS_EBADMSG	(-74)	/* GCM: the tag does not match */

/*
 * Key table entry, written by the kernel only: the raw key, and for XTS the
 * tweak key after it (both the same length).  Backends expand their own
 * round keys.  An entry with key_len 0 is free and all zero.
 */
struct gpu_aes_key {
	__u32 gen;		/* bumped on every write of the entry */
	__u32 key_len;		/* one AES key: 16, 24, 32, or 0 */
	__u32 tweak_len;	/* XTS: == key_len; else 0 */
	__u32 reserved;
	__u8 key[64];		/* the key, then (XTS) the tweak key */
	__u8 pad[48];
};

/* GPU_AES_IOC_INFO: what this kernel supports. */
struct gpu_aes_info {
	__u32 abi_version;
	__u32 features;
	__u32 max_queues;
	__u32 max_entries;	/* per queue */
	__u32 max_keys;
	__u32 page_size;	/* sections of the region align to this */
	__u64 max_data_size;	/* all queues */
	/*
	 * CPU numbers run below this; CPU c submits to queue c % nr_queues,
	 * so nr_cpus queues give every CPU its own.
	 */
	__u32 nr_cpus;
	__u32 algs;		/* FEAT_ALGS: the algorithms it may post */
	__u64 reserved[3];
};

/*
 * What the region's layout depends on (gpu_aes_layout()): the sizes a
 * helper asks for in SETUP, checked by gpu_aes_geometry_valid().
 */
struct gpu_aes_geometry {
	__u32 nr_queues;
	__u32 queue_entries;	/* power of two */
	__u32 nr_keys;
	__u32 page_size;	/* gpu_aes_info.page_size */
	__u64 queue_data_size;	/* multiple of page_size */
};

/*
 * GPU_AES_IOC_SETUP: attach the region.  region_addr/region_size describe
 * page-aligned helper memory of exactly gpu_aes_layout()'s size.  The
 * kernel fills the header and zeroes the queues and key table.
 */
struct gpu_aes_setup {
	__u32 abi_version;	/* GPU_AES_ABI_VERSION */
	__u32 features;		/* subset of gpu_aes_info.features */
	struct gpu_aes_geometry geo;
	__u64 region_addr;
	__u64 region_size;
	__u32 algs;		/* FEAT_ALGS: those it serves; else must be 0 */
	__u32 reserved0;	/* must be zero */
	__u64 reserved[2];	/* must be zero */
};

#define GPU_AES_IOC_MAGIC	0xA5
#define GPU_AES_IOC_INFO	_IOR(GPU_AES_IOC_MAGIC, 1, struct gpu_aes_info)
#define GPU_AES_IOC_SETUP	_IOW(GPU_AES_IOC_MAGIC, 2, struct gpu_aes_setup)
/*
 * Completions were posted up to the queue's cq_tail: reap them.  The
 * argument is the queue, or GPU_AES_ALL_QUEUES.  Returns the count.
 */
#define GPU_AES_IOC_COMPLETE	_IO(GPU_AES_IOC_MAGIC, 3)
#define GPU_AES_ALL_QUEUES	0xffffffffU

struct gpu_aes_layout {
	__u64 queues_off;
	__u64 queue_stride;
	__u64 sq_off;		/* within a queue */
	__u64 cq_off;		/* within a queue */
	__u64 keys_off;
	__u64 data_off;
	__u64 data_size;	/* all queues */
	__u64 region_size;
};

/* ---- The ABI's rules, one home for both sides ---- */

/* The cuda backend's kernels compute the GCM layout on the GPU too. */
#ifdef __CUDACC__
#define GPU_AES_RULE_ATTRS __attribute__((host, device))
#else
#define GPU_AES_RULE_ATTRS
#endif

static inline GPU_AES_RULE_ATTRS int gpu_aes_is_pow2(__u64 v)
{
	return v && !(v & (v - 1));
}

/* Sizes the kernel accepts in SETUP (and the helper asks for). */
static inline GPU_AES_RULE_ATTRS int gpu_aes_geometry_valid(const struct gpu_aes_geometry *g)
{
	return g->nr_queues >= 1 && g->nr_queues <= GPU_AES_MAX_QUEUES &&
	       gpu_aes_is_pow2(g->queue_entries) &&
	       g->queue_entries >= GPU_AES_MIN_ENTRIES &&
	       g->queue_entries <= GPU_AES_MAX_ENTRIES &&
	       g->nr_keys >= 1 && g->nr_keys <= GPU_AES_MAX_KEYS &&
	       gpu_aes_is_pow2(g->page_size) &&
	       g->page_size >= GPU_AES_MIN_PAGE &&
	       g->page_size <= GPU_AES_MAX_PAGE &&
	       g->queue_data_size >= GPU_AES_MIN_QUEUE_DATA &&
	       g->queue_data_size % g->page_size == 0 &&
	       g->queue_data_size <= GPU_AES_MAX_DATA / g->nr_queues;
}

static inline GPU_AES_RULE_ATTRS __u64 gpu_aes_align_up(__u64 v, __u64 to)
{
	return (v + to - 1) & ~(to - 1);
}

/*
 * The layout for a geometry that gpu_aes_geometry_valid() accepts; the
 * limits make every sum here fit easily in 64 bits.
 */
static inline GPU_AES_RULE_ATTRS void gpu_aes_layout(const struct gpu_aes_geometry *g,
						     struct gpu_aes_layout *l)
{
	__u64 page = g->page_size;

	l->queues_off = gpu_aes_align_up(GPU_AES_HDR_SIZE, page);
	l->sq_off = sizeof(struct gpu_aes_queue_hdr);
	l->cq_off = l->sq_off +
		(__u64)g->queue_entries * sizeof(struct gpu_aes_sqe);
	l->queue_stride = gpu_aes_align_up(l->cq_off +
		(__u64)g->queue_entries * sizeof(struct gpu_aes_cqe), page);
	l->keys_off = l->queues_off + (__u64)g->nr_queues * l->queue_stride;
	l->data_off = l->keys_off +
		gpu_aes_align_up((__u64)g->nr_keys * sizeof(struct gpu_aes_key),
				 page);
	l->data_size = (__u64)g->nr_queues * g->queue_data_size;
	l->region_size = l->data_off + l->data_size;
}

/*
 * The header as the kernel writes it at SETUP (and a helper's tests that
 * play the kernel): one geometry, its layout, the agreed features and
 * algorithms.  The helper's cost fields stay as they are.
 */
static inline GPU_AES_RULE_ATTRS void gpu_aes_hdr_fill(struct gpu_aes_region_hdr *h,
						       const struct gpu_aes_geometry *g,
						       const struct gpu_aes_layout *l,
						       __u32 features, __u32 algs)
{
	h->magic = GPU_AES_MAGIC;
	h->abi_version = GPU_AES_ABI_VERSION;
	h->features = features;
	h->nr_queues = g->nr_queues;
	h->queue_entries = g->queue_entries;
	h->nr_keys = g->nr_keys;
	h->page_size = g->page_size;
	h->algs = algs;
	h->region_size = l->region_size;
	h->queues_off = l->queues_off;
	h->queue_stride = l->queue_stride;
	h->keys_off = l->keys_off;
	h->data_off = l->data_off;
	h->queue_data_size = g->queue_data_size;
}

/*
 * A column of the mode table for one mode: each rule below is a chain of
 * (alg == VAL ? column :), so kernel, helper and GPU code read the same
 * rows, and an unknown alg gets the chain's last value.
 */
#define GPU_AES_LEN_BLOCKS(len)		((len) % 16 == 0)
#define GPU_AES_LEN_MIN_BLOCK(len)	((len) >= 16)
#define GPU_AES_LEN_ANY(len)		1
#define GPU_AES_COL_LEN_(ID, VAL, NAME, KIND, IV, KEYS, LEN, ...)	\
	alg == (VAL) ? GPU_AES_LEN_##LEN(len) :
#define GPU_AES_COL_KEYS_(ID, VAL, NAME, KIND, IV, KEYS, ...)		\
	alg == (VAL) ? (KEYS) :
#define GPU_AES_COL_KIND_(ID, VAL, NAME, KIND, ...)			\
	alg == (VAL) ? GPU_AES_KIND_##KIND :
#define GPU_AES_COL_IV_(ID, VAL, NAME, KIND, IV, ...)			\
	alg == (VAL) ? (IV) :
#define GPU_AES_COL_OUT_IV_(ID, VAL, NAME, KIND, IV, KEYS, LEN, OUT_IV, ...) \
	alg == (VAL) ? GPU_AES_OUT_IV_##OUT_IV :
#define GPU_AES_COL_PRIO_(ID, VAL, NAME, KIND, IV, KEYS, LEN, OUT_IV, PRIO, \
			  ...)						\
	alg == (VAL) ? (PRIO) :
#define GPU_AES_COL_AUX_(ID, VAL, NAME, KIND, IV, KEYS, LEN, OUT_IV, PRIO, \
			 AUX, ...)					\
	alg == (VAL) ? GPU_AES_AUX_##AUX :
#define GPU_AES_COL_NAME_(ID, VAL, NAME, ...)				\
	alg == (VAL) ? #NAME :
#define GPU_AES_COL_EVP_(ID, VAL, NAME, KIND, IV, KEYS, LEN, OUT_IV, PRIO, \
			 AUX, EVP, ...)					\
	alg == (VAL) ? #EVP :

/* Text lengths a mode takes (LEN); none for no mode. */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_len_valid(__u8 alg, __u32 len)
{
	return GPU_AES_MODES(GPU_AES_COL_LEN_) 0;
}

/* AES keys in a mode's key: 1, or 2 (KEYS); 0 for no mode. */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_keys(__u8 alg)
{
	return GPU_AES_MODES(GPU_AES_COL_KEYS_) 0;
}

/* enum gpu_aes_kind (KIND); 0 for no mode. */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_kind(__u8 alg)
{
	return GPU_AES_MODES(GPU_AES_COL_KIND_) 0;
}

/* An AEAD: the sqe carries a tag and associated data. */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_aead(__u8 alg)
{
	return gpu_aes_alg_kind(alg) == GPU_AES_KIND_AEAD;
}

/* Bytes of the request's IV the sqe carries (IV). */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_iv_bytes(__u8 alg)
{
	return GPU_AES_MODES(GPU_AES_COL_IV_) 0;
}

/* enum gpu_aes_out_iv (OUT_IV). */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_out_iv(__u8 alg)
{
	/*
	 * The last row's KEEP and the unknown mode's make the chain's last
	 * two branches equal: cppcheck's style finding, meant so.
	 */
	/* cppcheck-suppress duplicateExpressionTernary */
	return GPU_AES_MODES(GPU_AES_COL_OUT_IV_) GPU_AES_OUT_IV_KEEP;
}

/* Registration priority above the module parameter's (PRIO). */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_prio(__u8 alg)
{
	return GPU_AES_MODES(GPU_AES_COL_PRIO_) 0;
}

/* enum gpu_aes_aux (AUX). */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_aux(__u8 alg)
{
	return GPU_AES_MODES(GPU_AES_COL_AUX_) GPU_AES_AUX_NONE;
}

/* A mode's short name (NAME), or "?" for none. */
static inline const char *gpu_aes_alg_name(__u8 alg)
{
	return GPU_AES_MODES(GPU_AES_COL_NAME_) "?";
}

/* OpenSSL's mode name for it (EVP), or "" for no mode. */
static inline const char *gpu_aes_alg_evp(__u8 alg)
{
	return GPU_AES_MODES(GPU_AES_COL_EVP_) "";
}

/* A key length crypto_aes_expand_key() takes. */
static inline GPU_AES_RULE_ATTRS int gpu_aes_key_len_valid(__u32 len)
{
	return len == 16 || len == 24 || len == 32;
}

/*
 * A key as a mode takes it, @len bytes in all: one AES key, or for XTS a
 * data key then a tweak key of the same length.  Sets the key table
 * entry's key_len and tweak_len and returns 1, or returns 0.
 */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_key_split(__u8 alg, __u32 len,
							   __u32 *key_len,
							   __u32 *tweak_len)
{
	int keys = gpu_aes_alg_keys(alg);
	__u32 each = keys == 2 ? len / 2 : len;

	if (!keys || !gpu_aes_key_len_valid(each) || len != keys * each)
		return 0;
	*key_len = each;
	*tweak_len = keys == 2 ? each : 0;
	return 1;
}

/* A key table entry's shape is one its sqe's mode takes. */
static inline GPU_AES_RULE_ATTRS int gpu_aes_alg_key_valid(__u8 alg,
							   __u32 key_len,
							   __u32 tweak_len)
{
	return gpu_aes_key_len_valid(key_len) &&
	       tweak_len == (gpu_aes_alg_keys(alg) == 2 ? key_len : 0);
}

/* A tag length crypto_gcm_check_authsize() takes. */
static inline GPU_AES_RULE_ATTRS int gpu_aes_gcm_auth_len_valid(__u32 len)
{
	return len == 4 || len == 8 || (len >= 12 && len <= 16);
}

/* GCM: where the tag and the associated data follow the text. */
static inline GPU_AES_RULE_ATTRS __u64 gpu_aes_gcm_tag_off(__u64 data_off, __u32 len)
{
	return data_off + (((__u64)len + 15) & ~(__u64)15);
}

static inline GPU_AES_RULE_ATTRS __u64 gpu_aes_gcm_aad_off(__u64 data_off, __u32 len)
{
	return gpu_aes_gcm_tag_off(data_off, len) + 16;
}

/* Bytes of the data area an entry uses, from data_off. */
static inline GPU_AES_RULE_ATTRS __u64 gpu_aes_sqe_span(__u8 alg, __u32 len, __u32 aad_len)
{
	if (gpu_aes_alg_aead(alg))
		return gpu_aes_gcm_aad_off(0, len) + aad_len;
	return len;
}

/*
 * The fields of an sqe that depend on its algorithm, as the kernel writes
 * them: lengths, tag length, the IV's unused bytes.  The helper refuses any
 * other entry (GPU_AES_STATUS_EINVAL).
 */
static inline GPU_AES_RULE_ATTRS int gpu_aes_sqe_alg_fields_valid(const struct gpu_aes_sqe *s)
{
	if (!gpu_aes_alg_len_valid(s->alg, s->len))
		return 0;
	if (gpu_aes_alg_aead(s->alg))
		/* A 96-bit IV only: J0 = IV || 0^31 || 1. */
		return gpu_aes_gcm_auth_len_valid(s->auth_len) &&
		       !s->iv[12] && !s->iv[13] && !s->iv[14] && !s->iv[15];
	return !s->aad_len && !s->auth_len;
}

#ifdef __KERNEL__
#include <linux/build_bug.h>
#define GPU_AES_ASSERT(c, m) static_assert(c, m)
#else
#ifdef __cplusplus
#define GPU_AES_ASSERT(c, m) static_assert(c, m)
#else
#define GPU_AES_ASSERT(c, m) _Static_assert(c, m)
#endif
#endif

/*
 * Modes are numbered from 1 with no gap, and an IV fits the sqe's iv[]
 * and an AES block: the kernel copies a request's IV into both
 * (kmod/skcipher.h: fallback_iv).
 */
#define GPU_AES_ALG_CHECK_(ID, VAL, NAME, KIND, IV, ...)		\
	GPU_AES_ASSERT((VAL) >= 1 && (VAL) <= GPU_AES_ALG_MAX &&	\
		       (IV) <= 16,					\
		       "modes numbered from 1 with no gap, IVs of 16 bytes at most");
GPU_AES_MODES(GPU_AES_ALG_CHECK_)
GPU_AES_ASSERT(sizeof(struct gpu_aes_region_hdr) == GPU_AES_HDR_SIZE, "hdr size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_queue_hdr) == 4 * GPU_AES_CACHELINE,
	       "queue hdr size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_sqe) == 64, "sqe size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_cqe) == 16, "cqe size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_key) == 2 * GPU_AES_CACHELINE, "key size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_info) == 64, "info size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_setup) == 72, "setup size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_geometry) == 24, "geometry size");

#endif /* _UAPI_GPU_AES_H */
