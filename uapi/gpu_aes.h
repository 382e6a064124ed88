/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * gpu_aes.h - the one ABI shared by gpu_aes.ko and gpu-aes-helper.
 *
 * The helper allocates the shared region (anonymous, page aligned memory it
 * can also register with CUDA) and hands it to the kernel with
 * GPU_AES_IOC_SETUP; the kernel pins it for as long as the helper stays
 * attached.  Layout of the region, every section page aligned:
 *
 *   [ header | submission queue | completion queue | key table | data area ]
 *
 * Offsets come from gpu_aes_layout(), which both sides compute from the
 * sizes in struct gpu_aes_setup; the kernel also publishes them in the
 * header.  Nothing in the region is a pointer.
 *
 * Ownership: every field below says who writes it.  "kernel" fields are
 * read-only for the helper; "helper" fields are untrusted by the kernel,
 * which re-reads them once (READ_ONCE) and checks them against its own
 * private state before acting on them.
 *
 * Indices (sq_head/sq_tail/cq_head/cq_tail) run freely over the whole
 * __u32 range; an entry's position is (index & (nr_entries - 1)).
 */
#ifndef _UAPI_GPU_AES_H
#define _UAPI_GPU_AES_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define GPU_AES_MAGIC		0x53454167U	/* "gAES" little endian */
#define GPU_AES_ABI_VERSION	2U
#define GPU_AES_DEVICE_NAME	"gpu_aes"

/* Feature bits of struct gpu_aes_info.features; none are optional yet. */
#define GPU_AES_FEAT_NEED_WAKEUP	(1U << 0)

#define GPU_AES_CACHELINE	64U
#define GPU_AES_PAGE		4096U

/* Limits the kernel accepts in GPU_AES_IOC_SETUP. */
#define GPU_AES_MIN_ENTRIES	16U
#define GPU_AES_MAX_ENTRIES	16384U	/* power of two */
#define GPU_AES_MAX_KEYS	4096U
#define GPU_AES_MIN_DATA	(1U << 20)
#define GPU_AES_MAX_DATA	(1U << 30)
/* Request bytes start on this boundary in the data area (16-byte loads). */
#define GPU_AES_DATA_ALIGN	64U

enum gpu_aes_alg {
	GPU_AES_ALG_ECB = 1,
	GPU_AES_ALG_CTR = 2,
	GPU_AES_ALG_XTS = 3,	/* IEEE 1619, ciphertext stealing */
	GPU_AES_ALG_GCM = 4,	/* SP 800-38D, 96-bit IV */
};

enum gpu_aes_dir {
	GPU_AES_DIR_ENCRYPT = 0,
	GPU_AES_DIR_DECRYPT = 1,
};

/*
 * Header, one page.  Each index the two sides move lives on its own cache
 * line so producer and consumer never write the same line.
 */
struct gpu_aes_region_hdr {
	/* Written by the kernel at setup, constant afterwards. */
	__u32 magic;
	__u32 abi_version;
	__u32 features;
	__u32 nr_entries;
	__u32 nr_keys;
	__u32 reserved0;
	__u64 region_size;
	__u64 sq_off;
	__u64 cq_off;
	__u64 keys_off;
	__u64 data_off;
	__u64 data_size;
	__u8 pad0[2 * GPU_AES_CACHELINE - 72];

	/* kernel: next submission entry it will write. */
	__u32 sq_tail;
	__u8 pad1[GPU_AES_CACHELINE - 4];

	/*
	 * helper: next submission entry it will read, and GPU_AES_HELPER_*
	 * flags.  The kernel reads these only to decide whether to wake the
	 * helper; a lying helper only delays itself.
	 */
	__u32 sq_head;
	__u32 helper_flags;
	__u8 pad2[GPU_AES_CACHELINE - 8];

	/* helper: next completion entry it will write. */
	__u32 cq_tail;
	__u8 pad3[GPU_AES_CACHELINE - 4];

	/* kernel: next completion entry it will read. */
	__u32 cq_head;
	__u8 pad4[GPU_AES_CACHELINE - 4];

	__u8 pad5[GPU_AES_PAGE - 6 * GPU_AES_CACHELINE];
};

/*
 * helper_flags: the helper is about to sleep in poll(); the kernel must wake
 * it for the next submission.  While clear, the kernel posts entries without
 * any wake-up, so a busy helper sees no syscall or IPI per request.
 */
#define GPU_AES_HELPER_NEED_WAKEUP	(1U << 0)

/*
 * Submission entry, written by the kernel, read by the helper.  The request's
 * bytes sit at data_off in the data area (relative to the area's start) and
 * are transformed in place.
 *
 * ECB, CTR, XTS: len bytes at data_off.
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
	__u32 tag;		/* request id, < nr_entries; echo in the cqe */
	__u32 seq;		/* generation of the tag; echo in the cqe */
	__u8 alg;		/* enum gpu_aes_alg */
	__u8 dir;		/* enum gpu_aes_dir */
	__u16 key_slot;		/* index into the key table */
	__u32 key_gen;		/* == key table entry's gen when posted */
	__u64 data_off;
	__u32 len;		/* bytes; ECB: multiple of 16; XTS: >= 16 */
	__u32 aad_len;		/* GCM: associated data bytes; else 0 */
	/*
	 * CTR: big-endian 128-bit counter.  XTS: the tweak before encryption
	 * with the second key (plain64: little-endian sector number).
	 * GCM: the 12-byte IV, then 4 zero bytes.  ECB: zero.
	 */
	__u8 iv[16];
	__u8 auth_len;		/* GCM: tag bytes, 4, 8 or 12..16; else 0 */
	__u8 reserved1[15];
};

/* GCM: where the tag and the associated data follow the text. */
static inline __u64 gpu_aes_gcm_tag_off(__u64 data_off, __u32 len)
{
	return data_off + (((__u64)len + 15) & ~(__u64)15);
}

static inline __u64 gpu_aes_gcm_aad_off(__u64 data_off, __u32 len)
{
	return gpu_aes_gcm_tag_off(data_off, len) + 16;
}

/* Bytes of the data area an entry uses, from data_off. */
static inline __u64 gpu_aes_sqe_span(__u8 alg, __u32 len, __u32 aad_len)
{
	if (alg == GPU_AES_ALG_GCM)
		return gpu_aes_gcm_aad_off(0, len) + aad_len;
	return len;
}

/* Completion entry, written by the helper, validated by the kernel. */
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
 * Key table entry, written by the kernel only.  Round keys are stored as
 * bytes in AES order, 16 per round (rounds + 1 of them); dec_sched is the
 * equivalent inverse cipher's schedule (InvMixColumns applied to the middle
 * rounds, first and last swapped), ready for table-driven decryption.
 * XTS entries also carry the second (tweak) key and its encryption
 * schedule; the two keys always have the same length.  GCM derives its hash
 * key from enc_sched.  An entry with key_len 0 is free and all zero.
 */
struct gpu_aes_key {
	__u32 gen;		/* bumped on every write of the entry */
	__u32 key_len;		/* one AES key: 16, 24, 32, or 0 */
	__u32 rounds;		/* 10, 12, 14 */
	__u32 tweak_len;	/* XTS: == key_len; else 0 */
	__u8 key[64];		/* the key, then (XTS) the tweak key */
	__u8 enc_sched[240];
	__u8 dec_sched[240];
	__u8 tweak_sched[240];	/* XTS: the tweak key's encryption schedule */
	__u8 pad[224];
};

/* GPU_AES_IOC_INFO: what this kernel supports. */
struct gpu_aes_info {
	__u32 abi_version;
	__u32 features;
	__u32 max_entries;
	__u32 max_keys;
	__u64 max_data_size;
	__u64 reserved[4];
};

/*
 * GPU_AES_IOC_SETUP: attach the region.  region_addr/region_size describe
 * page-aligned helper memory of exactly gpu_aes_layout()'s size.  The
 * kernel fills the header and zeroes the queues and key table.
 */
struct gpu_aes_setup {
	__u32 abi_version;	/* GPU_AES_ABI_VERSION */
	__u32 features;		/* subset of gpu_aes_info.features */
	__u32 nr_entries;	/* power of two */
	__u32 nr_keys;
	__u64 data_size;	/* multiple of GPU_AES_PAGE */
	__u64 region_addr;
	__u64 region_size;
	__u64 reserved[3];	/* must be zero */
};

#define GPU_AES_IOC_MAGIC	0xA5
#define GPU_AES_IOC_INFO	_IOR(GPU_AES_IOC_MAGIC, 1, struct gpu_aes_info)
#define GPU_AES_IOC_SETUP	_IOW(GPU_AES_IOC_MAGIC, 2, struct gpu_aes_setup)
/* Completions were posted up to cq_tail: reap them.  Returns the count. */
#define GPU_AES_IOC_COMPLETE	_IO(GPU_AES_IOC_MAGIC, 3)

struct gpu_aes_layout {
	__u64 sq_off;
	__u64 cq_off;
	__u64 keys_off;
	__u64 data_off;
	__u64 region_size;
};

static inline __u64 gpu_aes_page_align(__u64 v)
{
	return (v + GPU_AES_PAGE - 1) & ~(__u64)(GPU_AES_PAGE - 1);
}

/*
 * The layout for the given sizes.  Callers validate the sizes first (see
 * the GPU_AES_MIN/MAX limits), so nothing here can overflow.
 */
static inline void gpu_aes_layout(__u32 nr_entries, __u32 nr_keys,
				  __u64 data_size, struct gpu_aes_layout *l)
{
	l->sq_off = sizeof(struct gpu_aes_region_hdr);
	l->cq_off = l->sq_off +
		gpu_aes_page_align((__u64)nr_entries * sizeof(struct gpu_aes_sqe));
	l->keys_off = l->cq_off +
		gpu_aes_page_align((__u64)nr_entries * sizeof(struct gpu_aes_cqe));
	l->data_off = l->keys_off +
		gpu_aes_page_align((__u64)nr_keys * sizeof(struct gpu_aes_key));
	l->region_size = l->data_off + data_size;
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

GPU_AES_ASSERT(sizeof(struct gpu_aes_region_hdr) == GPU_AES_PAGE, "hdr size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_sqe) == 64, "sqe size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_cqe) == 16, "cqe size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_key) == 1024, "key size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_info) == 56, "info size");
GPU_AES_ASSERT(sizeof(struct gpu_aes_setup) == 64, "setup size");

#endif /* _UAPI_GPU_AES_H */
