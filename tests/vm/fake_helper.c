// SPDX-License-Identifier: GPL-2.0-only
/*
 * fake_helper - attaches to /dev/gpu_aes like gpu-aes-helper (run it where
 * no helper is attached: vm-run --no-helper) and attacks or inspects the
 * kernel side of the ABI.
 *
 *   fake_helper access
 *	who may open the device, EBUSY, ENOTTY, EINVAL/EFAULT for bad
 *	SETUPs, no mmap, and the region after attach holds exactly what the
 *	ABI says (header, zeroed queues and key table, data area untouched).
 *   fake_helper keys
 *	a consumer's key sits in its slot while its tfm lives (for
 *	xts-aes-gpu both halves, the tweak key's schedule too); once the tfm
 *	is freed the whole 1024-byte slot reads zero through this mapping.
 *   fake_helper withhold ENTRIES NTH SECONDS READYFILE
 *	a well-behaved helper on a ring of ENTRIES entries (run with
 *	vm-run --no-helper), except that it never answers the NTH request
 *	it reads; serves until SIGTERM or SECONDS, then detaches.  Writes
 *	READYFILE once attached; prints "stat served=S withheld_tag=T".
 *   fake_helper hostile SECONDS MIN_GARBAGE CONSUMERS
 *	serves real completions to CONSUMERS processes that byte-check
 *	ctr-aes-gpu/ecb-aes-gpu against aes-generic, and between them posts
 *	at least MIN_GARBAGE completion entries that must all be rejected
 *	(among them GPU_AES_STATUS_EBADMSG for live ECB/CTR requests: a
 *	verdict only a GCM decryption can have), overruns of cq_tail, and
 *	scribbles over the kernel's header fields.
 *
 * Each check prints "ok ..." or "not ok ..."; numbers go on "stat" lines.
 * Exit status 1 if any check failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>

#include "alg.h"
#include "check.h"
#include "../../uapi/gpu_aes.h"

#define DEV "/dev/gpu_aes"
#define GUARD (4u << 20)


struct region {
	struct gpu_aes_setup s;
	struct gpu_aes_layout l;
	uint8_t *base;
	struct gpu_aes_region_hdr *h;
	struct gpu_aes_sqe *sq;
	struct gpu_aes_cqe *cq;
	struct gpu_aes_key *keys;
	uint8_t *data;
};

/* Fills @r for the given sizes and maps (but does not attach) it. */
static int region_map(struct region *r, uint32_t entries, uint32_t keys,
		      uint64_t data, int prot)
{
	memset(r, 0, sizeof(*r));
	r->s.abi_version = GPU_AES_ABI_VERSION;
	r->s.features = GPU_AES_FEAT_NEED_WAKEUP;
	r->s.nr_entries = entries;
	r->s.nr_keys = keys;
	r->s.data_size = data;
	gpu_aes_layout(entries, keys, data, &r->l);
	r->s.region_size = r->l.region_size;
	/* A hole after the region, so a SETUP that runs past it faults. */
	r->base = mmap(NULL, r->l.region_size + GUARD, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->base == MAP_FAILED)
		return -1;
	munmap(r->base + r->l.region_size, GUARD);
	/* Anything the kernel does not write keeps this pattern. */
	memset(r->base, 0xa5, r->l.region_size);
	if (prot != (PROT_READ | PROT_WRITE))
		mprotect(r->base, r->l.region_size, prot);
	r->s.region_addr = (uintptr_t)r->base;
	r->h = (void *)r->base;
	r->sq = (void *)(r->base + r->l.sq_off);
	r->cq = (void *)(r->base + r->l.cq_off);
	r->keys = (void *)(r->base + r->l.keys_off);
	r->data = r->base + r->l.data_off;
	return 0;
}

static bool all_bytes(const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

static int errno_of(long rc)
{
	return rc < 0 ? errno : 0;
}

/* Drops @cap from this process's effective and permitted sets. */
static int drop_cap(unsigned int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[cap / 32].effective &= ~(1u << (cap % 32));
	d[cap / 32].permitted &= ~(1u << (cap % 32));
	return (int)syscall(SYS_capset, &h, d);
}

/*
 * Runs @fn(@fd, @arg) in a child process (its own mm, the descriptor
 * inherited) and returns the errno it reports, or -1.
 */
static int in_child(int (*fn)(int fd, void *arg), int fd, void *arg)
{
	int err = -1, st, pfd[2];
	pid_t p;

	if (pipe(pfd))
		return -1;
	p = fork();
	if (p == 0) {
		err = fn(fd, arg);
		if (write(pfd[1], &err, sizeof(err)) != sizeof(err))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	close(pfd[0]);
	waitpid(p, &st, 0);
	return err;
}

/* An unprivileged process that inherited the descriptor tries SETUP. */
static int child_setup_as_nobody(int fd, void *arg)
{
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return -1;
	return errno_of(ioctl(fd, GPU_AES_IOC_SETUP, arg));
}

/* Root without CAP_IPC_LOCK and with 64 KiB of RLIMIT_MEMLOCK tries SETUP. */
static int child_setup_memlock(int fd, void *arg)
{
	struct rlimit rl = { 64 << 10, 64 << 10 };

	if (drop_cap(CAP_IPC_LOCK) || setrlimit(RLIMIT_MEMLOCK, &rl))
		return -1;
	return errno_of(ioctl(fd, GPU_AES_IOC_SETUP, arg));
}

/* Another process (root, the descriptor inherited) tries to complete. */
static int child_complete(int fd, void *arg)
{
	(void)arg;
	return errno_of(ioctl(fd, GPU_AES_IOC_COMPLETE));
}

/* This process's VmLck in kB, or -1. */
static long vm_locked_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* ---- access ---------------------------------------------------------- */

static void access_nonroot(void)
{
	int st, pfd[2];
	int err = 0;
	pid_t p;

	if (pipe(pfd))
		return check(false, "pipe");
	p = fork();
	if (p == 0) {
		int fd;

		/* nobody, and no supplementary groups: plain DAC applies. */
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		fd = open(DEV, O_RDWR);
		err = fd < 0 ? errno : 0;
		if (write(pfd[1], &err, sizeof(err)) != sizeof(err))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	close(pfd[0]);
	waitpid(p, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
	      (err == EACCES || err == EPERM),
	      "open by uid 65534 fails with EACCES/EPERM (errno %d)", err);
}

static void access_setup(int fd)
{
	struct region r, ro;
	struct gpu_aes_setup b;
	struct gpu_aes_layout l;
	struct gpu_aes_info info;
	size_t i;

#define BAD(field, val, want) do {						\
	b = r.s;								\
	b.field = (val);							\
	int e_ = errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &b));			\
	check(e_ == (want), "SETUP with " #field " = " #val " fails with "	\
	      #want " (errno %d)", e_);						\
} while (0)

	long attaches = stat_read("helper_attaches"), lck;
	int e;

	if (region_map(&r, 16, 4, GPU_AES_MIN_DATA, PROT_READ | PROT_WRITE))
		return check(false, "mmap region");
	check(ioctl(fd, GPU_AES_IOC_INFO, &info) == 0 &&
	      info.abi_version == GPU_AES_ABI_VERSION &&
	      info.max_entries == GPU_AES_MAX_ENTRIES &&
	      info.max_keys == GPU_AES_MAX_KEYS &&
	      info.max_data_size == GPU_AES_MAX_DATA, "INFO before SETUP");
	check(errno_of(ioctl(fd, GPU_AES_IOC_INFO, (void *)8)) == EFAULT,
	      "INFO to an unmapped address fails with EFAULT");
	check(errno_of(ioctl(fd, GPU_AES_IOC_COMPLETE)) == ENXIO,
	      "COMPLETE before SETUP fails with ENXIO");
	check(errno_of(ioctl(fd, GPU_AES_IOC_SETUP, (void *)8)) == EFAULT,
	      "SETUP from an unmapped address fails with EFAULT");
	BAD(abi_version, GPU_AES_ABI_VERSION + 1, EINVAL);
	BAD(abi_version, 0, EINVAL);
	BAD(features, 2, EINVAL);
	BAD(features, 0x80000000u, EINVAL);
	BAD(nr_entries, 24, EINVAL);
	BAD(nr_entries, 8, EINVAL);
	BAD(nr_entries, 0, EINVAL);
	BAD(nr_entries, 32768, EINVAL);
	BAD(nr_entries, 0x80000000u, EINVAL);
	BAD(nr_keys, 0, EINVAL);
	BAD(nr_keys, 4097, EINVAL);
	BAD(nr_keys, UINT32_MAX, EINVAL);
	BAD(data_size, GPU_AES_MIN_DATA + 512, EINVAL);
	BAD(data_size, GPU_AES_MIN_DATA / 2, EINVAL);
	BAD(data_size, 0, EINVAL);
	BAD(data_size, (uint64_t)GPU_AES_MAX_DATA * 2, EINVAL);
	BAD(data_size, UINT64_MAX & ~4095ull, EINVAL);
	BAD(region_size, r.l.region_size + 4096, EINVAL);
	BAD(region_size, r.l.region_size - 4096, EINVAL);
	BAD(region_size, 0, EINVAL);
	BAD(region_addr, 0, EINVAL);
	BAD(region_addr, (uintptr_t)r.base + 8, EINVAL);
	BAD(region_addr, (uintptr_t)r.base + 2048, EINVAL);
	BAD(reserved[0], 1, EINVAL);
	BAD(reserved[2], 0x8000000000000000ull, EINVAL);
	/* Page aligned but nothing mapped there. */
	BAD(region_addr, 4096, EFAULT);
	/* Kernel addresses are no user memory to pin. */
	BAD(region_addr, 0xffff888000000000ull, EFAULT);
	/* Sizes valid, but the region runs past the mapping. */
	gpu_aes_layout(16, 4, 2 * GPU_AES_MIN_DATA, &l);
	b = r.s;
	b.data_size = 2 * GPU_AES_MIN_DATA;
	b.region_size = l.region_size;
	check(errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &b)) == EFAULT,
	      "SETUP of a region longer than the mapping fails with EFAULT (errno %d)",
	      errno);
	/* Read-only memory cannot be pinned for writing. */
	if (region_map(&ro, 16, 4, GPU_AES_MIN_DATA, PROT_READ) == 0) {
		check(errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &ro.s)) == EFAULT,
		      "SETUP of a read-only mapping fails with EFAULT (errno %d)",
		      errno);
		munmap(ro.base, ro.l.region_size);
	}
	/* The role is checked where it is taken, not only at open. */
	e = in_child(child_setup_as_nobody, fd, &r.s);
	check(e == EPERM,
	      "SETUP through a descriptor inherited by uid 65534 fails with EPERM (errno %d)",
	      e);
	e = in_child(child_setup_memlock, fd, &r.s);
	check(e == ENOMEM,
	      "SETUP over RLIMIT_MEMLOCK (64 KiB) without CAP_IPC_LOCK fails with ENOMEM (errno %d)",
	      e);
	check(stat_read("helper_attaches") == attaches,
	      "no failed SETUP counted as an attach");

	lck = vm_locked_kb();
	check(ioctl(fd, GPU_AES_IOC_SETUP, &r.s) == 0 &&
	      stat_read("helper_attaches") == attaches + 1,
	      "valid SETUP, counted in helper_attaches");
	check(vm_locked_kb() - lck == (long)(r.l.region_size >> 10),
	      "the pinned region is charged as locked memory: VmLck %ld -> %ld kB (region %llu kB)",
	      lck, vm_locked_kb(), (unsigned long long)(r.l.region_size >> 10));
	e = in_child(child_complete, fd, NULL);
	check(e == EPERM,
	      "COMPLETE from another process holding the descriptor fails with EPERM (errno %d)",
	      e);
	check(errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &r.s)) == EBUSY,
	      "second SETUP on the same file fails with EBUSY");
	check(errno_of(ioctl(fd, GPU_AES_IOC_COMPLETE)) == 0,
	      "COMPLETE with nothing posted returns 0");

	/* The region after attach: the header and nothing else. */
	check(r.h->magic == GPU_AES_MAGIC && r.h->abi_version == GPU_AES_ABI_VERSION &&
	      r.h->features == GPU_AES_FEAT_NEED_WAKEUP && r.h->nr_entries == 16 &&
	      r.h->nr_keys == 4 && r.h->region_size == r.l.region_size &&
	      r.h->sq_off == r.l.sq_off && r.h->cq_off == r.l.cq_off &&
	      r.h->keys_off == r.l.keys_off && r.h->data_off == r.l.data_off &&
	      r.h->data_size == GPU_AES_MIN_DATA,
	      "header fields are the ABI's layout");
	check(r.h->reserved0 == 0 && all_bytes(r.h->pad0, sizeof(r.h->pad0), 0) &&
	      r.h->sq_tail == 0 && r.h->sq_head == 0 && r.h->helper_flags == 0 &&
	      r.h->cq_tail == 0 && r.h->cq_head == 0 &&
	      all_bytes(r.h->pad1, sizeof(r.h->pad1), 0) &&
	      all_bytes(r.h->pad2, sizeof(r.h->pad2), 0) &&
	      all_bytes(r.h->pad3, sizeof(r.h->pad3), 0) &&
	      all_bytes(r.h->pad4, sizeof(r.h->pad4), 0) &&
	      all_bytes(r.h->pad5, sizeof(r.h->pad5), 0),
	      "the rest of the header page is zero (indices, padding)");
	check(all_bytes(r.base + r.l.sq_off, r.l.data_off - r.l.sq_off, 0),
	      "submission queue, completion queue and key table are zero (%llu bytes)",
	      (unsigned long long)(r.l.data_off - r.l.sq_off));
	for (i = 0; i < GPU_AES_MIN_DATA && r.data[i] == 0xa5; i++)
		;
	check(i == GPU_AES_MIN_DATA,
	      "the data area is untouched: no kernel bytes in it (%zu of %u bytes)",
	      i, GPU_AES_MIN_DATA);
	/* Indices past the ring: the batch is rejected whole, head kept. */
	long rej = stat_read("rejected_completions");

	r.h->cq_tail = 17;
	check(errno_of(ioctl(fd, GPU_AES_IOC_COMPLETE)) == EINVAL &&
	      r.h->cq_head == 0 && stat_read("rejected_completions") == rej + 1,
	      "cq_tail 17 on a 16-entry ring: EINVAL, counted once, cq_head 0");
	r.h->cq_tail = 0;
#undef BAD
}

static void do_access(void)
{
	static const unsigned long bad_cmds[] = {
		_IO(GPU_AES_IOC_MAGIC, 0), _IO(GPU_AES_IOC_MAGIC, 4),
		_IO(GPU_AES_IOC_MAGIC, 255), _IO('T', 1), 0, 0xffffffffUL,
		/* The right numbers with the wrong direction or size. */
		_IOW(GPU_AES_IOC_MAGIC, 1, struct gpu_aes_info),
		_IOR(GPU_AES_IOC_MAGIC, 2, struct gpu_aes_setup),
		_IOW(GPU_AES_IOC_MAGIC, 2, uint32_t),
		_IOR(GPU_AES_IOC_MAGIC, 3, uint32_t),
		TCGETS, FIONREAD,
	};
	size_t i;
	void *m;
	int fd, fd2;

	access_nonroot();
	fd = open(DEV, O_RDWR);
	check(fd >= 0, "root opens " DEV);
	if (fd < 0)
		return;
	fd2 = open(DEV, O_RDWR);
	check(fd2 < 0 && errno == EBUSY, "a second open fails with EBUSY (errno %d)",
	      fd2 < 0 ? errno : 0);
	if (fd2 >= 0)
		close(fd2);
	for (i = 0; i < sizeof(bad_cmds) / sizeof(bad_cmds[0]); i++)
		check(errno_of(ioctl(fd, bad_cmds[i], 0)) == ENOTTY,
		      "ioctl 0x%lx fails with ENOTTY (errno %d)", bad_cmds[i],
		      errno);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	check(m == MAP_FAILED && errno == ENODEV,
	      "mmap of " DEV " fails with ENODEV (errno %d)", errno);
	m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 1ull << 40);
	check(m == MAP_FAILED, "mmap at a huge offset fails (errno %d)", errno);
	access_setup(fd);
	fd2 = open(DEV, O_RDWR);
	check(fd2 < 0 && errno == EBUSY,
	      "while attached, a second open fails with EBUSY (errno %d)",
	      fd2 < 0 ? errno : 0);
	close(fd);
	check(vm_locked_kb() == 0, "close gave the locked memory back (VmLck %ld kB)",
	      vm_locked_kb());
	/* Release made the device free again. */
	fd = open(DEV, O_RDWR);
	check(fd >= 0, "after close the device opens again");
	if (fd >= 0)
		close(fd);
}

/* ---- a minimal real helper ------------------------------------------- */

/*
 * Runs @s (ECB, CTR or XTS) on the CPU through aes-generic with the key the
 * kernel put in the key table: GPU_AES_STATUS_OK, or a status saying why
 * not.
 */
static int32_t serve_one(struct region *r, const struct gpu_aes_sqe *s)
{
	static uint8_t tmp[1 << 20];
	const struct gpu_aes_key *k;
	const char *name;
	uint8_t key[64];
	uint32_t klen, tlen, gen;
	int rc;

	switch (s->alg) {
	case GPU_AES_ALG_ECB:
		name = "ecb(aes-generic)";
		break;
	case GPU_AES_ALG_CTR:
		name = "ctr(aes-generic)";
		break;
	case GPU_AES_ALG_XTS:
		name = "xts(ecb(aes-generic))";
		break;
	default:
		return GPU_AES_STATUS_EINVAL;
	}
	if (s->key_slot >= r->s.nr_keys || s->len > sizeof(tmp) ||
	    s->data_off > r->s.data_size - s->len)
		return GPU_AES_STATUS_EINVAL;
	k = &r->keys[s->key_slot];
	gen = __atomic_load_n(&k->gen, __ATOMIC_ACQUIRE);
	klen = k->key_len;
	tlen = s->alg == GPU_AES_ALG_XTS ? k->tweak_len : 0;
	if (klen > 32 || tlen != (s->alg == GPU_AES_ALG_XTS ? klen : 0))
		return GPU_AES_STATUS_EINVAL;
	/* XTS: key[] holds the data key, then the tweak key. */
	memcpy(key, k->key, klen + tlen);
	if (gen != s->key_gen || __atomic_load_n(&k->gen, __ATOMIC_ACQUIRE) != gen)
		return GPU_AES_STATUS_EINVAL;
	rc = alg_once(name, key, klen + tlen, s->dir == GPU_AES_DIR_ENCRYPT,
		      s->alg == GPU_AES_ALG_ECB ? NULL : s->iv,
		      r->data + s->data_off, tmp, s->len);
	memset(key, 0, sizeof(key));
	if (rc)
		return GPU_AES_STATUS_EIO;
	memcpy(r->data + s->data_off, tmp, s->len);
	return GPU_AES_STATUS_OK;
}

/* ---- keys ------------------------------------------------------------ */

/*
 * One consumer of @drv (ctr-aes-gpu or xts-aes-gpu) with a @klen-byte key
 * and one ring request: its key table entry while the tfm lives, and after.
 */
static void keys_one(const char *drv, const char *refname, size_t klen)
{
	static uint8_t pt[4096], out[4096], ref[4096];
	/* XTS: two AES-256 keys, the tweak key second. */
	const size_t half = klen > 32 ? klen / 2 : klen;
	const bool xts = klen > 32;
	uint8_t key[64], iv[16];
	struct region r;
	struct pollfd pfd;
	int fd, st, i, nslot = 0;
	pid_t p;

	for (i = 0; i < (int)klen; i++)
		key[i] = (uint8_t)(0x11 * i + 3);
	memset(iv, 0x42, sizeof(iv));
	memset(pt, 0x5c, sizeof(pt));
	check(alg_once(refname, key, klen, 1, iv, pt, ref, sizeof(pt)) == 0,
	      "%s: reference from %s", drv, refname);
	fd = open(DEV, O_RDWR);
	if (fd < 0 || region_map(&r, 16, 8, GPU_AES_MIN_DATA, PROT_READ | PROT_WRITE) ||
	    ioctl(fd, GPU_AES_IOC_SETUP, &r.s))
		return check(false, "attach (errno %d)", errno);
	r.h->helper_flags = GPU_AES_HELPER_NEED_WAKEUP;

	/* The consumer: one tfm, one ring request, then the tfm is freed. */
	int go[2], done[2];

	if (pipe(go) || pipe(done))
		return check(false, "pipe");
	p = fork();
	if (p == 0) {
		int tfm = alg_tfm(drv, key, klen);
		char c;

		if (tfm < 0 || alg_op(tfm, 1, iv, pt, out, sizeof(out)) ||
		    memcmp(out, ref, sizeof(out)))
			_exit(1);
		/* Hold the tfm until the parent has looked at the slot. */
		if (write(done[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		close(tfm);
		_exit(0);
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	check(poll(&pfd, 1, 10000) == 1 && r.h->sq_tail == 1,
	      "%s: the consumer's request reaches the ring", drv);
	struct gpu_aes_sqe s = r.sq[0];
	const struct gpu_aes_key *k = &r.keys[s.key_slot % 8];

	check(s.key_slot < 8 && k->key_len == half && k->rounds == 14 &&
	      !memcmp(k->key, key, klen) && !memcmp(k->enc_sched, key, half) &&
	      k->gen == s.key_gen,
	      "%s: while the tfm lives its key is in slot %u (gen %u)", drv,
	      s.key_slot, k->gen);
	/* The first round key of a schedule is the key itself. */
	if (xts)
		check(k->tweak_len == half &&
		      !memcmp(k->tweak_sched, key + half, half) &&
		      s.alg == GPU_AES_ALG_XTS && !memcmp(s.iv, iv, 16),
		      "%s: tweak key and its schedule follow the key, the sqe carries the tweak",
		      drv);
	else
		check(k->tweak_len == 0 &&
		      all_bytes(k->tweak_sched, sizeof(k->tweak_sched), 0) &&
		      all_bytes(k->key + klen, sizeof(k->key) - klen, 0),
		      "%s: no tweak key, the unused key bytes are zero", drv);
	r.cq[0] = (struct gpu_aes_cqe){ .tag = s.tag, .seq = s.seq,
					.status = serve_one(&r, &s) };
	r.h->sq_head = 1;
	__atomic_store_n(&r.h->cq_tail, 1, __ATOMIC_RELEASE);
	check(ioctl(fd, GPU_AES_IOC_COMPLETE) == 1, "%s: its completion is accepted", drv);
	char c;

	check(read(done[0], &c, 1) == 1, "%s: the consumer got the right bytes", drv);
	for (i = 0; i < 8; i++)
		nslot += !all_bytes(&r.keys[i], sizeof(r.keys[i]), 0);
	check(nslot == 1, "%s: exactly one key slot is in use (%d)", drv, nslot);
	if (write(go[1], "x", 1) != 1)
		check(false, "write");
	waitpid(p, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: consumer exit status %d",
	      drv, WEXITSTATUS(st));
	/* The tfm is freed by the time its last socket is closed. */
	check(all_bytes(k, sizeof(*k), 0),
	      "%s: after the tfm is freed slot %u reads all zero (%zu bytes)",
	      drv, s.key_slot, sizeof(*k));
	nslot = 0;
	for (i = 0; i < 8; i++)
		nslot += !all_bytes(&r.keys[i], sizeof(r.keys[i]), 0);
	check(nslot == 0, "%s: the whole key table is zero (%d slots not)", drv,
	      nslot);
	close(fd);
}

static void do_keys(void)
{
	keys_one("ctr-aes-gpu", "ctr(aes-generic)", 32);
	keys_one("xts-aes-gpu", "xts(ecb(aes-generic))", 64);
}

/* ---- hostile --------------------------------------------------------- */

struct shared {
	volatile int stop;
	long bytes, requests, mismatches, errors;
};

/*
 * A byte-checked consumer: random keys, lengths, IVs and directions on the
 * gpu drivers, each result compared with aes-generic's.
 */
static void consumer(struct shared *sh, uint64_t seed)
{
	static uint8_t in[16384], out[16384], ref[16384];
	uint8_t key[32], iv[16];
	uint64_t s = seed;

	while (!sh->stop) {
		int ctr = rnd(&s) & 1, klen = 16 + 8 * (int)(rnd(&s) % 3), n;
		int gpu, gen;

		rnd_fill(&s, key, klen);
		gpu = alg_tfm(ctr ? "ctr-aes-gpu" : "ecb-aes-gpu", key, klen);
		gen = alg_tfm(ctr ? "ctr(aes-generic)" : "ecb(aes-generic)", key, klen);
		if (gpu < 0 || gen < 0) {
			__atomic_add_fetch(&sh->errors, 1, __ATOMIC_RELAXED);
			break;
		}
		for (n = 0; n < 8 && !sh->stop; n++) {
			size_t len = 256 + rnd(&s) % (sizeof(in) - 255);
			int enc = rnd(&s) & 1;

			if (!ctr)
				len &= ~(size_t)15;
			rnd_fill(&s, in, len);
			rnd_fill(&s, iv, 16);
			if (alg_op(gpu, enc, ctr ? iv : NULL, in, out, len) ||
			    alg_op(gen, enc, ctr ? iv : NULL, in, ref, len)) {
				__atomic_add_fetch(&sh->errors, 1, __ATOMIC_RELAXED);
				continue;
			}
			if (memcmp(out, ref, len))
				__atomic_add_fetch(&sh->mismatches, 1, __ATOMIC_RELAXED);
			else
				__atomic_add_fetch(&sh->bytes, (long)len, __ATOMIC_RELAXED);
			__atomic_add_fetch(&sh->requests, 1, __ATOMIC_RELAXED);
		}
		close(gpu);
		close(gen);
	}
	_exit(0);
}

struct hostile {
	struct region r;
	int fd;
	uint64_t rs;
	uint32_t cq_tail;		/* ours; the kernel's head after a reap */
	uint32_t *seq;			/* last seq seen per tag, 0 = never */
	bool *mine;			/* seen, not yet completed */
	long garbage, overruns, real, accepted, scribbles, bad_reaps;
	long ebadmsg;			/* EBADMSG sent for live ECB/CTR requests */
};

static const int32_t bad_status[] = {
	1, -1, -4, -6, -21, -23, 5, 22, INT_MIN, INT_MAX, 0x7fff, -0x10000,
};

static bool status_valid(int32_t v)
{
	return v == GPU_AES_STATUS_OK || v == GPU_AES_STATUS_EIO ||
	       v == GPU_AES_STATUS_EINVAL || v == GPU_AES_STATUS_EBADMSG;
}

/*
 * A seq the tag cannot have now or during this test: seqs only grow by
 * one per post, so anything below the last one seen is stale, and a tag
 * never seen is nowhere near 2^31.
 */
static uint32_t stale_seq(struct hostile *x, uint32_t tag)
{
	uint32_t s = x->seq[tag];

	if (!s)
		return 0x80000000u + (uint32_t)(rnd(&x->rs) % 0x40000000u);
	return s - 1 - (uint32_t)(rnd(&x->rs) % 1000);
}

/* One garbage entry, never acceptable whatever the kernel posts meanwhile. */
static struct gpu_aes_cqe garbage_entry(struct hostile *x)
{
	uint32_t n = x->r.s.nr_entries, tag;
	struct gpu_aes_cqe c;

	c.reserved = (uint32_t)rnd(&x->rs);
	switch (rnd(&x->rs) % 6) {
	case 0:		/* random, with a status no kernel accepts */
		c.tag = (uint32_t)rnd(&x->rs);
		c.seq = (uint32_t)rnd(&x->rs);
		do
			c.status = (int32_t)rnd(&x->rs);
		while (status_valid(c.status));
		break;
	case 1:		/* a tag past the ring */
		c.tag = n + (uint32_t)(rnd(&x->rs) % (UINT32_MAX - n));
		c.seq = (uint32_t)rnd(&x->rs);
		c.status = 0;
		break;
	case 2:		/* a free or foreign tag: stale seq */
		tag = (uint32_t)(rnd(&x->rs) % n);
		c.tag = tag;
		c.seq = stale_seq(x, tag);
		c.status = (int32_t)(rnd(&x->rs) % 2 ? 0 : GPU_AES_STATUS_EIO);
		break;
	case 3:		/* seq far ahead */
		tag = (uint32_t)(rnd(&x->rs) % n);
		c.tag = tag;
		c.seq = x->seq[tag] + 0x40000000u + (uint32_t)(rnd(&x->rs) % 1000);
		c.status = 0;
		break;
	case 4:		/* the right tag and seq of a live request, bad status */
		tag = (uint32_t)(rnd(&x->rs) % n);
		c.tag = tag;
		c.seq = x->mine[tag] ? x->seq[tag] : stale_seq(x, tag);
		c.status = bad_status[rnd(&x->rs) % (sizeof(bad_status) /
						    sizeof(bad_status[0]))];
		break;
	default:	/* a live request, EBADMSG: the consumers run no GCM */
		tag = (uint32_t)(rnd(&x->rs) % n);
		c.tag = tag;
		c.seq = x->mine[tag] ? x->seq[tag] : stale_seq(x, tag);
		c.status = GPU_AES_STATUS_EBADMSG;
		x->ebadmsg += x->mine[tag];
		break;
	}
	return c;
}

/* Overwrites every header field the kernel owns with noise. */
static void scribble_header(struct hostile *x)
{
	struct gpu_aes_region_hdr *h = x->r.h;

	h->magic = (uint32_t)rnd(&x->rs);
	h->abi_version = (uint32_t)rnd(&x->rs);
	h->features = (uint32_t)rnd(&x->rs);
	h->nr_entries = (uint32_t)rnd(&x->rs);
	h->nr_keys = (uint32_t)rnd(&x->rs);
	h->region_size = rnd(&x->rs);
	h->sq_off = rnd(&x->rs);
	h->cq_off = rnd(&x->rs);
	h->keys_off = rnd(&x->rs);
	h->data_off = rnd(&x->rs);
	h->data_size = rnd(&x->rs);
	h->cq_head = (uint32_t)rnd(&x->rs);
	rnd_fill(&x->rs, h->pad0, sizeof(h->pad0));
	rnd_fill(&x->rs, h->pad5, sizeof(h->pad5));
	x->scribbles++;
}

static void reap(struct hostile *x, uint32_t tail, long real)
{
	long rc;

	__atomic_store_n(&x->r.h->cq_tail, tail, __ATOMIC_RELEASE);
	rc = ioctl(x->fd, GPU_AES_IOC_COMPLETE);
	if (rc < 0 || rc > real)
		x->bad_reaps++;
	else
		x->accepted += rc;
	x->cq_tail = tail;
}

/* One round: take what was posted, answer it wrapped in garbage. */
static void hostile_round(struct hostile *x, bool overrun)
{
	uint32_t n = x->r.s.nr_entries, mask = n - 1;
	uint32_t head = x->r.h->sq_head, tail, t = x->cq_tail;
	struct gpu_aes_cqe done[64];
	uint32_t nd = 0, g, i, room;

	if (overrun) {
		/* Past the ring, or behind the kernel's head: rejected whole. */
		uint32_t bad = rnd(&x->rs) & 1 ?
			t + n + 1 + (uint32_t)(rnd(&x->rs) % 4096) :
			t - 1 - (uint32_t)(rnd(&x->rs) % 4096);

		__atomic_store_n(&x->r.h->cq_tail, bad, __ATOMIC_RELEASE);
		if (errno_of(ioctl(x->fd, GPU_AES_IOC_COMPLETE)) == EINVAL)
			x->overruns++;
		else
			x->bad_reaps++;
		__atomic_store_n(&x->r.h->cq_tail, t, __ATOMIC_RELEASE);
	}
	tail = __atomic_load_n(&x->r.h->sq_tail, __ATOMIC_ACQUIRE);
	for (; head != tail && nd < 64; head++) {
		struct gpu_aes_sqe s = x->r.sq[head & mask];

		if (s.tag >= n) {
			x->bad_reaps++;
			continue;
		}
		x->seq[s.tag] = s.seq;
		x->mine[s.tag] = true;
		done[nd++] = (struct gpu_aes_cqe){
			.tag = s.tag, .seq = s.seq, .status = serve_one(&x->r, &s),
			.reserved = (uint32_t)rnd(&x->rs) };
		/* The kernel must never read a posted sqe back. */
		rnd_fill(&x->rs, &x->r.sq[head & mask], sizeof(s));
	}
	x->r.h->sq_head = head;
	/* Garbage first, then the real answers, then their duplicates. */
	room = n - 2 * nd;
	g = room / 2 + (uint32_t)(rnd(&x->rs) % (room / 2 + 1));
	for (i = 0; i < g; i++)
		x->r.cq[t++ & mask] = garbage_entry(x);
	for (i = 0; i < nd; i++)
		x->r.cq[t++ & mask] = done[i];
	for (i = 0; i < nd; i++) {
		x->r.cq[t++ & mask] = done[i];
		x->mine[done[i].tag] = false;
	}
	x->garbage += g + nd;
	x->real += nd;
	scribble_header(x);
	reap(x, t, nd);
}

static void do_hostile(int secs, long min_garbage, int nconsumers)
{
	struct hostile x = { .rs = 0x9e3779b97f4a7c15ull };
	struct shared *sh;
	struct timespec t0, now;
	long rej0, late0, to0, rr0, rr, late, to, af0;
	pid_t pids[16];
	int i, st, live;

	if (nconsumers > 16)
		nconsumers = 16;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	x.fd = open(DEV, O_RDWR);
	if (sh == MAP_FAILED || x.fd < 0 ||
	    region_map(&x.r, 1024, 64, 8 << 20, PROT_READ | PROT_WRITE) ||
	    ioctl(x.fd, GPU_AES_IOC_SETUP, &x.r.s))
		return check(false, "attach (errno %d)", errno);
	x.seq = calloc(1024, sizeof(*x.seq));
	x.mine = calloc(1024, sizeof(*x.mine));
	rej0 = stat_read("rejected_completions");
	late0 = stat_read("late_completions");
	to0 = stat_read("timeouts");
	rr0 = stat_read("ring_requests");
	af0 = stat_read("auth_failures");
	for (i = 0; i < nconsumers; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			consumer(sh, 0x1234567ull * (i + 1));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0;; i++) {
		struct pollfd pfd = { .fd = x.fd, .events = POLLIN };

		x.r.h->helper_flags = GPU_AES_HELPER_NEED_WAKEUP;
		poll(&pfd, 1, 2);
		hostile_round(&x, i % 8 == 7);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!sh->stop && now.tv_sec - t0.tv_sec >= secs &&
		    x.garbage >= min_garbage)
			sh->stop = 1;
		if (sh->stop) {
			for (live = 0, st = 0; st < nconsumers; st++)
				live += pids[st] && waitpid(pids[st], NULL, WNOHANG) == 0;
			if (!live)
				break;
		}
	}
	/* Whatever is still posted goes back to the CPU at detach. */
	close(x.fd);
	rr = stat_read("ring_requests") - rr0;
	late = stat_read("late_completions") - late0;
	to = stat_read("timeouts") - to0;
	printf("stat consumers=%d requests=%ld bytes_verified=%ld mismatches=%ld errors=%ld\n",
	       nconsumers, sh->requests, sh->bytes, sh->mismatches, sh->errors);
	printf("stat garbage_entries=%ld cq_overruns=%ld header_scribbles=%ld real_completions=%ld accepted=%ld late=%ld timeouts=%ld ring_requests=%ld rejected=%ld\n",
	       x.garbage, x.overruns, x.scribbles, x.real, x.accepted, late,
	       to, rr, stat_read("rejected_completions") - rej0);
	check(sh->mismatches == 0 && sh->errors == 0 && sh->bytes > 0,
	      "every consumer byte correct (%ld requests, %ld bytes, %ld wrong, %ld errors)",
	      sh->requests, sh->bytes, sh->mismatches, sh->errors);
	check(x.garbage >= min_garbage, "at least %ld garbage entries sent (%ld)",
	      min_garbage, x.garbage);
	check(x.bad_reaps == 0, "every COMPLETE answered as the ABI says (%ld not)",
	      x.bad_reaps);
	check(stat_read("rejected_completions") - rej0 == x.garbage + x.overruns,
	      "rejected_completions moved by exactly %ld entries + %ld whole batches",
	      x.garbage, x.overruns);
	check(x.ebadmsg > 0 && stat_read("auth_failures") == af0,
	      "%ld EBADMSG completions of live ECB/CTR requests rejected, auth_failures unmoved",
	      x.ebadmsg);
	check(x.accepted + late == x.real,
	      "each real completion accepted once: %ld on time + %ld late = %ld",
	      x.accepted, late, x.real);
	check(rr >= x.real && x.real > 0, "the ring carried the workload (%ld requests)", rr);
	free(x.seq);
	free(x.mine);
}

/* ---- withhold ------------------------------------------------------ */

static volatile sig_atomic_t withhold_stop;

static void withhold_term(int sig)
{
	(void)sig;
	withhold_stop = 1;
}

static void do_withhold(uint32_t entries, unsigned long nth, int secs,
			const char *ready)
{
	uint32_t mask = entries - 1, head = 0, tail, cq = 0;
	unsigned long seen = 0, served = 0;
	struct timespec t0, now;
	long withheld = -1;
	struct region r;
	FILE *f;
	int fd;

	signal(SIGTERM, withhold_term);
	fd = open(DEV, O_RDWR);
	if (fd < 0 || region_map(&r, entries, 64, 8 << 20, PROT_READ | PROT_WRITE) ||
	    ioctl(fd, GPU_AES_IOC_SETUP, &r.s))
		return check(false, "attach (errno %d)", errno);
	f = fopen(ready, "w");
	if (f)
		fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!withhold_stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint32_t posted = 0;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= secs)
			break;
		/* io_uring's handshake: flag, then look again, then sleep. */
		__atomic_store_n(&r.h->helper_flags, GPU_AES_HELPER_NEED_WAKEUP,
				 __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&r.h->sq_tail, __ATOMIC_ACQUIRE) == head)
			poll(&pfd, 1, 100);
		__atomic_store_n(&r.h->helper_flags, 0, __ATOMIC_RELAXED);
		tail = __atomic_load_n(&r.h->sq_tail, __ATOMIC_ACQUIRE);
		for (; head != tail; head++) {
			struct gpu_aes_sqe sqe = r.sq[head & mask];

			if (++seen == nth) {
				withheld = sqe.tag;
				continue;
			}
			r.cq[cq++ & mask] = (struct gpu_aes_cqe){
				.tag = sqe.tag, .seq = sqe.seq,
				.status = serve_one(&r, &sqe) };
			posted++;
		}
		__atomic_store_n(&r.h->sq_head, head, __ATOMIC_RELEASE);
		if (!posted)
			continue;
		__atomic_store_n(&r.h->cq_tail, cq, __ATOMIC_RELEASE);
		if (ioctl(fd, GPU_AES_IOC_COMPLETE) < 0)
			return check(false, "COMPLETE (errno %d)", errno);
		served += posted;
	}
	printf("stat served=%lu withheld_tag=%ld\n", served, withheld);
	check(withheld >= 0, "withheld request %lu (tag %ld), served %lu others",
	      nth, withheld, served);
	/* Detach: whatever is still posted is recomputed on the CPU. */
	close(fd);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc == 2 && !strcmp(argv[1], "access"))
		do_access();
	else if (argc == 2 && !strcmp(argv[1], "keys"))
		do_keys();
	else if (argc == 5 && !strcmp(argv[1], "hostile"))
		do_hostile(atoi(argv[2]), atol(argv[3]), atoi(argv[4]));
	else if (argc == 6 && !strcmp(argv[1], "withhold"))
		do_withhold((uint32_t)atoi(argv[2]), strtoul(argv[3], NULL, 0),
			    atoi(argv[4]), argv[5]);
	else {
		fprintf(stderr, "usage: %s access | keys | hostile SECONDS MIN_GARBAGE CONSUMERS | withhold ENTRIES NTH SECONDS READYFILE\n",
			argv[0]);
		return 2;
	}
	printf("fake_helper: %d failed\n", nfail);
	return nfail != 0;
}
