// SPDX-License-Identifier: GPL-2.0-only
/*
 * fake_helper - attaches to /dev/gpu_aes like gpu-aes-helper (run it where
 * no helper is attached: vm-run --no-helper) and attacks or inspects the
 * kernel side of the ABI (uapi/gpu_aes.h, version 3: a region of several
 * queues, each with its own SQ, CQ and data slice, and a shared key table).
 * QUEUES defaults to 2, one per vCPU of the guest.
 *
 *   fake_helper access [QUEUES]
 *	who may open the device, EBUSY, ENOTTY, INFO (and v2's INFO number,
 *	answered with version 3), EINVAL/EFAULT for bad SETUPs, COMPLETE's
 *	queue argument, no mmap, and the region after attach holds exactly
 *	what the ABI says (header and offsets of gpu_aes_layout(), zeroed
 *	queues and key table, data area untouched).
 *   fake_helper keys [QUEUES]
 *	a consumer pinned to CPU c posts to queue c % QUEUES; its raw key
 *	sits in its 128-byte slot while its tfm lives (for xts-aes-gpu the
 *	tweak key after the key); once the tfm is freed the slot and the
 *	whole table read zero through this mapping.
 *   fake_helper withhold QUEUES ENTRIES NTH SECONDS READYFILE
 *	a well-behaved helper on QUEUES queues of ENTRIES entries, except
 *	that it never answers the NTH request it reads (whatever its
 *	queue); serves until SIGTERM or SECONDS, then detaches.  Writes
 *	READYFILE once attached, and READYFILE.q holding the withheld
 *	request's queue number once it withholds it.  Prints "stat
 *	served=S withheld_queue=Q withheld_tag=T" and per queue "stat
 *	queue=Q served=S served_after_withhold=A".
 *   fake_helper hostile SECONDS MIN_GARBAGE CONSUMERS [QUEUES]
 *	serves real completions to CONSUMERS processes (consumer i pinned
 *	to the i-th allowed CPU, round robin, so every CPU's queue is live)
 *	that byte-check ctr-aes-gpu/ecb-aes-gpu against aes-generic, and
 *	between them posts at least MIN_GARBAGE completion entries that must
 *	all be rejected: among them GPU_AES_STATUS_EBADMSG for live ECB/CTR
 *	requests (a verdict only a GCM decryption can have) and live
 *	requests of another queue posted on the wrong queue; plus overruns
 *	of each queue's cq_tail and scribbles over the kernel's header and
 *	queue header fields.
 *
 * Each check prints "ok ..." or "not ok ..."; numbers go on "stat" lines.
 * Exit status 1 if any check failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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
/* Queues this program serves at most (the ABI allows GPU_AES_MAX_QUEUES). */
#define MAXQ 16
/* ABI v2's INFO number (its struct was 56 bytes); the kernel answers it. */
#define GPU_AES_IOC_INFO_V2 _IOC(_IOC_READ, GPU_AES_IOC_MAGIC, 1, 56)

struct fqueue {
	struct gpu_aes_queue_hdr *h;
	struct gpu_aes_sqe *sq;
	struct gpu_aes_cqe *cq;
};

struct region {
	struct gpu_aes_setup s;
	struct gpu_aes_geometry g;
	struct gpu_aes_layout l;
	uint8_t *base;
	struct gpu_aes_region_hdr *h;
	struct fqueue q[MAXQ];
	struct gpu_aes_key *keys;
	uint8_t *data;
};

static uint32_t page_size(void)
{
	return (uint32_t)sysconf(_SC_PAGESIZE);
}

/* @s's geometry, and region_size as gpu_aes_layout() gives it for them. */
static void setup_fit(struct gpu_aes_setup *s)
{
	struct gpu_aes_layout l;

	gpu_aes_layout(&s->geo, &l);
	s->region_size = l.region_size;
}

/* Fills @r for the given sizes and maps (but does not attach) it. */
static int region_map(struct region *r, uint32_t queues, uint32_t entries,
		      uint32_t keys, uint64_t queue_data, int prot)
{
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->g.nr_queues = queues;
	r->g.queue_entries = entries;
	r->g.nr_keys = keys;
	r->g.page_size = page_size();
	r->g.queue_data_size = queue_data;
	if (queues > MAXQ || !gpu_aes_geometry_valid(&r->g)) {
		errno = EINVAL;
		return -1;
	}
	gpu_aes_layout(&r->g, &r->l);
	r->s.abi_version = GPU_AES_ABI_VERSION;
	r->s.features = GPU_AES_FEAT_NEED_WAKEUP;
	r->s.geo = r->g;
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
	for (i = 0; i < queues; i++) {
		uint8_t *qb = r->base + r->l.queues_off + i * r->l.queue_stride;

		r->q[i].h = (void *)qb;
		r->q[i].sq = (void *)(qb + r->l.sq_off);
		r->q[i].cq = (void *)(qb + r->l.cq_off);
	}
	r->keys = (void *)(r->base + r->l.keys_off);
	r->data = r->base + r->l.data_off;
	return 0;
}

static long complete_q(int fd, uint32_t q)
{
	return ioctl(fd, GPU_AES_IOC_COMPLETE, (unsigned long)q);
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

/* The CPUs this process may run on, in order; returns how many. */
static int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int c, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* nr_cpu_ids as the kernel has it: the highest possible CPU + 1, or -1. */
static long possible_cpus(void)
{
	char buf[256], *p;
	long hi = -1, v;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	/* "0-1", "0", "0-3,8-11": the last number is the highest. */
	for (p = buf; *p;) {
		if (*p >= '0' && *p <= '9') {
			v = strtol(p, &p, 10);
			if (v > hi)
				hi = v;
		} else {
			p++;
		}
	}
	return hi < 0 ? -1 : hi + 1;
}

/*
 * The modes the module registered, as dispatch/cpu_drivers lists them
 * ("NAME DRIVER" a line): GPU_AES_ALG_BIT() each, or 0 if unreadable.  A
 * mode whose CPU driver this kernel lacks (xctr without the xctr template
 * or an architecture's driver) is not there, and INFO must leave it out.
 */
static uint32_t registered_algs(void)
{
	FILE *f = fopen("/sys/class/misc/gpu_aes/dispatch/cpu_drivers", "r");
	char line[256], name[32];
	uint32_t set = 0;
	uint8_t alg;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s", name) != 1)
			continue;
		for (alg = 1; alg <= GPU_AES_ALG_MAX; alg++)
			if (!strcmp(name, gpu_aes_alg_name(alg)))
				set |= GPU_AES_ALG_BIT(alg);
	}
	fclose(f);
	return set;
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
	return errno_of(complete_q(fd, GPU_AES_ALL_QUEUES));
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

/* INFO, and v2's INFO number, before anything is attached. */
static void access_info(int fd, struct gpu_aes_info *info)
{
	uint8_t v2[64];
	uint32_t v2ver, algs = registered_algs();
	long ncpu = possible_cpus();
	int e;

	memset(info, 0xff, sizeof(*info));
	e = errno_of(ioctl(fd, GPU_AES_IOC_INFO, info));
	check(e == 0 && info->abi_version == GPU_AES_ABI_VERSION &&
	      info->features == (GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS) &&
	      info->max_entries == GPU_AES_MAX_ENTRIES &&
	      info->max_keys == GPU_AES_MAX_KEYS &&
	      info->max_data_size == GPU_AES_MAX_DATA &&
	      algs && info->algs == algs && !info->reserved[0] &&
	      !info->reserved[1] && !info->reserved[2],
	      "INFO before SETUP: version %u, features %#x, algs %#x (dispatch/cpu_drivers: %#x), max_entries %u, max_keys %u, max_data_size %llu, reserved fields zero (errno %d)",
	      info->abi_version, info->features, info->algs, algs,
	      info->max_entries, info->max_keys,
	      (unsigned long long)info->max_data_size, e);
	check(info->max_queues >= 1 && info->max_queues <= GPU_AES_MAX_QUEUES,
	      "INFO max_queues %u is within 1..%u", info->max_queues,
	      GPU_AES_MAX_QUEUES);
	check(info->page_size == page_size(),
	      "INFO page_size %u = getpagesize() %u", info->page_size,
	      page_size());
	check(ncpu > 0 && info->nr_cpus == (uint32_t)ncpu,
	      "INFO nr_cpus %u = the possible CPUs of /sys/devices/system/cpu/possible (%ld)",
	      info->nr_cpus, ncpu);
	check(errno_of(ioctl(fd, GPU_AES_IOC_INFO, (void *)8)) == EFAULT,
	      "INFO to an unmapped address fails with EFAULT");

	/* An old helper's INFO: version 3 in the first u32, the rest zero. */
	memset(v2, 0xee, sizeof(v2));
	e = errno_of(ioctl(fd, GPU_AES_IOC_INFO_V2, v2));
	memcpy(&v2ver, v2, sizeof(v2ver));
	check(e == 0 && v2ver == GPU_AES_ABI_VERSION && all_bytes(v2 + 4, 52, 0) &&
	      all_bytes(v2 + 56, sizeof(v2) - 56, 0xee),
	      "ABI v2's INFO number (0x%lx) answers version %u in v2's 56 bytes, the rest zero, nothing written past them (errno %d)",
	      (unsigned long)GPU_AES_IOC_INFO_V2, v2ver, e);
	check(errno_of(ioctl(fd, GPU_AES_IOC_INFO_V2, (void *)8)) == EFAULT,
	      "v2's INFO to an unmapped address fails with EFAULT");
}

static void access_setup(int fd, uint32_t nq)
{
	const uint32_t pg = page_size();
	const uint64_t qmin = GPU_AES_MIN_QUEUE_DATA;
	struct region r, ro;
	struct gpu_aes_setup b;
	struct gpu_aes_info info;
	struct gpu_aes_region_hdr want;
	size_t i;
	uint32_t q;

/* One field wrong, everything else (region_size too) as for @r. */
#define BAD(field, val, want) do {						\
	b = r.s;								\
	b.field = (val);							\
	int e_ = errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &b));			\
	check(e_ == (want), "SETUP with " #field " = " #val " fails with "	\
	      #want " (errno %d)", e_);						\
} while (0)
/*
 * One size wrong and region_size what gpu_aes_layout() gives for the
 * result, so only the size's own rule is broken.
 */
#define BADG(field, val, want) do {						\
	b = r.s;								\
	b.field = (val);							\
	setup_fit(&b);								\
	int e_ = errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &b));			\
	check(e_ == (want), "SETUP with " #field " = " #val " (region_size "	\
	      "to match) fails with " #want " (errno %d)", e_);		\
} while (0)

	long attaches = stat_read("helper_attaches"), lck;
	int e;

	access_info(fd, &info);
	if (region_map(&r, nq, 16, 4, qmin, PROT_READ | PROT_WRITE))
		return check(false, "mmap region (errno %d)", errno);
	check(errno_of(complete_q(fd, GPU_AES_ALL_QUEUES)) == ENXIO &&
	      errno_of(complete_q(fd, 0)) == ENXIO,
	      "COMPLETE before SETUP fails with ENXIO (all queues, queue 0)");
	check(errno_of(ioctl(fd, GPU_AES_IOC_SETUP, (void *)8)) == EFAULT,
	      "SETUP from an unmapped address fails with EFAULT");
	BAD(abi_version, GPU_AES_ABI_VERSION + 1, EINVAL);
	BAD(abi_version, 2, EINVAL);
	BAD(abi_version, 0, EINVAL);
	BAD(features, 4, EINVAL);
	BAD(features, 0x80000000u, EINVAL);
	BAD(reserved0, 1, EINVAL);
	BAD(reserved[0], 1, EINVAL);
	BAD(reserved[1], 0x8000000000000000ull, EINVAL);
	/* algs only with GPU_AES_FEAT_ALGS, and then naming one of ours. */
	BAD(algs, GPU_AES_ALG_BIT(GPU_AES_ALG_ECB), EINVAL);
	{
		static const uint32_t bad_algs[] = {
			0, GPU_AES_ALG_BIT(0), 0x80000000u,
		};

		for (i = 0; i < sizeof(bad_algs) / sizeof(bad_algs[0]); i++) {
			b = r.s;
			b.features |= GPU_AES_FEAT_ALGS;
			b.algs = bad_algs[i];
			e = errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &b));
			check(e == EINVAL,
			      "SETUP with GPU_AES_FEAT_ALGS and algs %#x fails with EINVAL (errno %d)",
			      bad_algs[i], e);
		}
	}
	BADG(geo.nr_queues, 0, EINVAL);
	BADG(geo.nr_queues, info.max_queues + 1, EINVAL);
	BADG(geo.nr_queues, GPU_AES_MAX_QUEUES + 1, EINVAL);
	BADG(geo.nr_queues, UINT32_MAX, EINVAL);
	BADG(geo.queue_entries, 24, EINVAL);
	BADG(geo.queue_entries, GPU_AES_MIN_ENTRIES / 2, EINVAL);
	BADG(geo.queue_entries, 0, EINVAL);
	BADG(geo.queue_entries, GPU_AES_MAX_ENTRIES * 2, EINVAL);
	BADG(geo.queue_entries, 0x80000000u, EINVAL);
	BADG(geo.nr_keys, 0, EINVAL);
	BADG(geo.nr_keys, GPU_AES_MAX_KEYS + 1, EINVAL);
	BADG(geo.nr_keys, UINT32_MAX, EINVAL);
	BADG(geo.page_size, 0, EINVAL);
	BADG(geo.page_size, pg / 2, EINVAL);
	BADG(geo.page_size, pg * 2, EINVAL);
	BADG(geo.page_size, 3 * 1024, EINVAL);
	if (pg != GPU_AES_MAX_PAGE)
		/* Valid for the ABI, but not this kernel's page size. */
		BADG(geo.page_size, GPU_AES_MAX_PAGE, EINVAL);
	BADG(geo.queue_data_size, qmin + 512, EINVAL);
	BADG(geo.queue_data_size, qmin - pg, EINVAL);
	BADG(geo.queue_data_size, qmin / 2, EINVAL);
	BADG(geo.queue_data_size, 0, EINVAL);
	/* Each slice valid alone, all of them over GPU_AES_MAX_DATA. */
	BADG(geo.queue_data_size, GPU_AES_MAX_DATA / nq + pg, EINVAL);
	BADG(geo.queue_data_size, GPU_AES_MAX_DATA, EINVAL);
	BADG(geo.queue_data_size, UINT64_MAX & ~(uint64_t)(pg - 1), EINVAL);
	BAD(region_size, r.l.region_size + pg, EINVAL);
	BAD(region_size, r.l.region_size - pg, EINVAL);
	BAD(region_size, r.l.region_size + 1, EINVAL);
	BAD(region_size, 0, EINVAL);
	BAD(region_addr, 0, EINVAL);
	BAD(region_addr, (uintptr_t)r.base + 8, EINVAL);
	BAD(region_addr, (uintptr_t)r.base + pg / 2, EINVAL);
	/* Page aligned but nothing mapped there (4096 is not with 64K pages). */
	BAD(region_addr, pg, EFAULT);
	/* Kernel addresses are no user memory to pin. */
	BAD(region_addr, 0xffff888000000000ull, EFAULT);
	/* Sizes valid, but the region runs past the mapping (into GUARD). */
	b = r.s;
	b.geo.queue_data_size = 2 * qmin;
	setup_fit(&b);
	e = errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &b));
	check(e == EFAULT,
	      "SETUP of a region %llu bytes longer than the mapping fails with EFAULT (errno %d)",
	      (unsigned long long)(b.region_size - r.l.region_size), e);
	/* Read-only memory cannot be pinned for writing. */
	if (region_map(&ro, nq, 16, 4, qmin, PROT_READ) == 0) {
		e = errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &ro.s));
		check(e == EFAULT,
		      "SETUP of a read-only mapping fails with EFAULT (errno %d)", e);
		munmap(ro.base, ro.l.region_size);
	} else {
		check(false, "mmap read-only region (errno %d)", errno);
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
	      "valid SETUP (%u queues of 16 entries, 4 keys, %llu-byte slices), counted in helper_attaches",
	      nq, (unsigned long long)qmin);
	check(vm_locked_kb() - lck == (long)(r.l.region_size >> 10),
	      "the pinned region is charged as locked memory: VmLck %ld -> %ld kB (region %llu kB)",
	      lck, vm_locked_kb(), (unsigned long long)(r.l.region_size >> 10));
	e = in_child(child_complete, fd, NULL);
	check(e == EPERM,
	      "COMPLETE from another process holding the descriptor fails with EPERM (errno %d)",
	      e);
	check(errno_of(ioctl(fd, GPU_AES_IOC_SETUP, &r.s)) == EBUSY,
	      "second SETUP on the same file fails with EBUSY");

	/* COMPLETE names a queue of the region, or all of them. */
	e = 0;
	for (q = 0; q < nq; q++)
		e |= errno_of(complete_q(fd, q)) != 0 || complete_q(fd, q) != 0;
	check(!e && complete_q(fd, GPU_AES_ALL_QUEUES) == 0,
	      "COMPLETE of each queue 0..%u and of GPU_AES_ALL_QUEUES with nothing posted returns 0",
	      nq - 1);
	{
		static const uint32_t badq[] = { 0, 1, 0x100, 0x7fffffff, 0xfffffffe };
		long rej = stat_read("rejected_completions");

		for (i = 0; i < sizeof(badq) / sizeof(badq[0]); i++) {
			uint32_t v = badq[i] < 2 ? nq + badq[i] : badq[i];

			e = errno_of(complete_q(fd, v));
			check(e == EINVAL,
			      "COMPLETE of queue %u (the region has %u) fails with EINVAL (errno %d)",
			      v, nq, e);
		}
		printf("stat COMPLETE of bad queue numbers: rejected_completions +%ld\n",
		       stat_read("rejected_completions") - rej);
	}

	/* The region after attach: the header and nothing else. */
	memset(&want, 0, sizeof(want));
	want.magic = GPU_AES_MAGIC;
	want.abi_version = GPU_AES_ABI_VERSION;
	want.features = GPU_AES_FEAT_NEED_WAKEUP;
	want.nr_queues = nq;
	want.queue_entries = 16;
	want.nr_keys = 4;
	want.page_size = pg;
	/* This helper does not negotiate: what ABI version 3's served. */
	want.algs = GPU_AES_ALGS_V3;
	want.region_size = r.l.region_size;
	want.queues_off = r.l.queues_off;
	want.queue_stride = r.l.queue_stride;
	want.keys_off = r.l.keys_off;
	want.data_off = r.l.data_off;
	want.queue_data_size = qmin;
	check(r.h->magic == want.magic && r.h->abi_version == want.abi_version &&
	      r.h->features == want.features && r.h->nr_queues == nq &&
	      r.h->queue_entries == 16 && r.h->nr_keys == 4 &&
	      r.h->page_size == pg && r.h->algs == GPU_AES_ALGS_V3 &&
	      r.h->region_size == r.l.region_size &&
	      r.h->queues_off == r.l.queues_off &&
	      r.h->queue_stride == r.l.queue_stride &&
	      r.h->keys_off == r.l.keys_off && r.h->data_off == r.l.data_off &&
	      r.h->queue_data_size == qmin,
	      "header fields are gpu_aes_layout()'s, algs those of a helper that does not negotiate: queues_off %llu, queue_stride %llu, keys_off %llu, data_off %llu, region_size %llu",
	      (unsigned long long)r.h->queues_off,
	      (unsigned long long)r.h->queue_stride,
	      (unsigned long long)r.h->keys_off,
	      (unsigned long long)r.h->data_off,
	      (unsigned long long)r.h->region_size);
	check(!memcmp(r.h, &want, sizeof(want)) &&
	      all_bytes(r.base + sizeof(want), r.l.queues_off - sizeof(want), 0),
	      "the rest of the header page is zero (padding, the helper's cost fields; %llu bytes)",
	      (unsigned long long)r.l.queues_off);
	for (q = 0; q < nq; q++)
		check(all_bytes(r.base + r.l.queues_off + q * r.l.queue_stride,
				r.l.queue_stride, 0),
		      "queue %u is zero: indices, helper_flags, SQ, CQ, padding (%llu bytes at %llu)",
		      q, (unsigned long long)r.l.queue_stride,
		      (unsigned long long)(r.l.queues_off + q * r.l.queue_stride));
	check(all_bytes(r.base + r.l.keys_off, r.l.data_off - r.l.keys_off, 0),
	      "the key table is zero (%llu bytes)",
	      (unsigned long long)(r.l.data_off - r.l.keys_off));
	for (i = 0; i < r.l.data_size && r.data[i] == 0xa5; i++)
		;
	check(i == r.l.data_size,
	      "the data area (%u slices) is untouched: no kernel bytes in it (%zu of %llu bytes)",
	      nq, i, (unsigned long long)r.l.data_size);

	/* Indices past a queue: that batch is rejected whole, head kept. */
	{
		struct fqueue *lq = &r.q[nq - 1];
		long rej = stat_read("rejected_completions");

		lq->h->cq_tail = 17;
		e = errno_of(complete_q(fd, nq - 1));
		check(e == EINVAL && lq->h->cq_head == 0 &&
		      stat_read("rejected_completions") == rej + 1,
		      "cq_tail 17 on queue %u of 16 entries: COMPLETE(%u) EINVAL, counted once, cq_head 0 (errno %d)",
		      nq - 1, nq - 1, e);
		e = errno_of(complete_q(fd, GPU_AES_ALL_QUEUES));
		check(e == EINVAL && lq->h->cq_head == 0 &&
		      stat_read("rejected_completions") == rej + 2,
		      "the same through COMPLETE(GPU_AES_ALL_QUEUES): EINVAL, counted once more (errno %d)",
		      e);
		lq->h->cq_tail = 0;
		for (q = 0, e = 0; q < nq; q++)
			e |= r.q[q].h->cq_head != 0;
		check(!e && complete_q(fd, GPU_AES_ALL_QUEUES) == 0,
		      "cq_tail back in range: COMPLETE(GPU_AES_ALL_QUEUES) returns 0, every cq_head 0");
	}
#undef BAD
#undef BADG
}

static void do_access(uint32_t nq)
{
	static const unsigned long bad_cmds[] = {
		_IO(GPU_AES_IOC_MAGIC, 0), _IO(GPU_AES_IOC_MAGIC, 4),
		_IO(GPU_AES_IOC_MAGIC, 255), _IO('T', 1), 0, 0xffffffffUL,
		/* The right numbers with the wrong direction or size. */
		_IOW(GPU_AES_IOC_MAGIC, 1, struct gpu_aes_info),
		_IOC(_IOC_READ, GPU_AES_IOC_MAGIC, 1, 60),
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
	for (i = 0; i < sizeof(bad_cmds) / sizeof(bad_cmds[0]); i++) {
		int e = errno_of(ioctl(fd, bad_cmds[i], 0));

		check(e == ENOTTY, "ioctl 0x%lx fails with ENOTTY (errno %d)",
		      bad_cmds[i], e);
	}
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	i = m == MAP_FAILED ? (size_t)errno : 0;
	check(m == MAP_FAILED && i == ENODEV,
	      "mmap of " DEV " fails with ENODEV (errno %zu)", i);
	m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 1ull << 40);
	i = m == MAP_FAILED ? (size_t)errno : 0;
	check(m == MAP_FAILED, "mmap at a huge offset fails (errno %zu)", i);
	access_setup(fd, nq);
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
 * Does @s, read from queue @q, look like what the kernel posts there: a tag
 * of the queue, a seq carrying the queue's number in its low byte, and
 * bytes inside the queue's own slice of the data area?
 */
static bool sqe_fits_queue(const struct region *r, uint32_t q,
			   const struct gpu_aes_sqe *s)
{
	uint64_t lo = (uint64_t)q * r->g.queue_data_size;
	uint64_t span = gpu_aes_sqe_span(s->alg, s->len, s->aad_len);

	return s->tag < r->g.queue_entries && (s->seq & 0xff) == q &&
	       s->data_off >= lo && span <= r->g.queue_data_size &&
	       s->data_off - lo <= r->g.queue_data_size - span;
}

/* The kernel cipher serve_one() computes @alg with, or NULL. */
static const char *serve_ref_name(uint8_t alg)
{
	switch (alg) {
	case GPU_AES_ALG_ECB:
		return "ecb(aes-generic)";
	case GPU_AES_ALG_CTR:
		return "ctr(aes-generic)";
	case GPU_AES_ALG_XTS:
		return "xts(ecb(aes-generic))";
	default:
		return NULL;
	}
}

/*
 * Bind each of serve_one()'s ciphers once before attaching.  The first
 * bind of a template instance after boot waits for its self-tests
 * (cryptomgr): under TCG on a busy host that took 230 ms, so a fake
 * helper whose first batch paid it let the whole queue pass a 200 ms
 * deadline (withhold.sh, when it ran first after boot).
 */
static void serve_warm(void)
{
	static const uint8_t alg[] = { GPU_AES_ALG_ECB, GPU_AES_ALG_CTR,
				       GPU_AES_ALG_XTS };
	uint8_t key[32], iv[16] = { 0 }, in[16] = { 0 }, out[16];
	unsigned int i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < sizeof(alg); i++) {
		const char *name = serve_ref_name(alg[i]);
		/* XTS: two AES-128 keys. */
		size_t klen = alg[i] == GPU_AES_ALG_XTS ? 32 : 16;

		if (alg_once(name, key, klen, 1,
			     alg[i] == GPU_AES_ALG_ECB ? NULL : iv, in, out,
			     sizeof(in)))
			check(false, "reference cipher %s (errno %d)", name,
			      errno);
	}
}

/*
 * Runs @s (ECB, CTR or XTS), read from queue @q, on the CPU through
 * aes-generic with the key the kernel put in the key table:
 * GPU_AES_STATUS_OK, or a status saying why not.
 */
static int32_t serve_one(struct region *r, uint32_t q,
			 const struct gpu_aes_sqe *s)
{
	static uint8_t tmp[1 << 20];
	const char *name = serve_ref_name(s->alg);
	const struct gpu_aes_key *k;
	uint8_t key[64];
	uint32_t klen, tlen, gen;
	int rc;

	if (!name)
		return GPU_AES_STATUS_EINVAL;
	if (s->key_slot >= r->g.nr_keys || s->len > sizeof(tmp) ||
	    !sqe_fits_queue(r, q, s) || !gpu_aes_sqe_alg_fields_valid(s))
		return GPU_AES_STATUS_EINVAL;
	k = &r->keys[s->key_slot];
	gen = __atomic_load_n(&k->gen, __ATOMIC_ACQUIRE);
	klen = k->key_len;
	tlen = k->tweak_len;
	if (!gpu_aes_alg_key_valid(s->alg, klen, tlen))
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

/* Key table slots not all zero, of the first @n. */
static int slots_in_use(const struct region *r, uint32_t n)
{
	uint32_t i;
	int used = 0;

	for (i = 0; i < n; i++)
		used += !all_bytes(&r->keys[i], sizeof(r->keys[i]), 0);
	return used;
}

/*
 * One consumer of @drv (ctr-aes-gpu or xts-aes-gpu) with a @klen-byte key,
 * pinned to @cpu, and one ring request: the queue it lands on, its key
 * table entry while the tfm lives, and after.
 */
static void keys_one(const char *drv, const char *refname, size_t klen,
		     int cpu, uint32_t nq)
{
	static uint8_t pt[4096], out[4096], ref[4096];
	/* XTS: two AES-256 keys, the tweak key second. */
	const size_t half = klen > 32 ? klen / 2 : klen;
	const bool xts = klen > 32;
	const uint32_t wq = (uint32_t)cpu % nq;
	uint8_t key[64], iv[16];
	struct region r;
	struct pollfd pfd;
	int fd, st, i, others = 0;
	uint32_t q;
	pid_t p;

	for (i = 0; i < (int)klen; i++)
		key[i] = (uint8_t)(0x11 * i + 3);
	memset(iv, 0x42, sizeof(iv));
	memset(pt, 0x5c, sizeof(pt));
	check(alg_once(refname, key, klen, 1, iv, pt, ref, sizeof(pt)) == 0,
	      "%s: reference from %s", drv, refname);
	fd = open(DEV, O_RDWR);
	if (fd < 0 || region_map(&r, nq, 16, 8, GPU_AES_MIN_QUEUE_DATA,
				 PROT_READ | PROT_WRITE) ||
	    ioctl(fd, GPU_AES_IOC_SETUP, &r.s))
		return check(false, "attach (errno %d)", errno);
	for (q = 0; q < nq; q++)
		r.q[q].h->helper_flags = GPU_AES_HELPER_NEED_WAKEUP;

	/* The consumer: one tfm, one ring request, then the tfm is freed. */
	int go[2], done[2];

	if (pipe(go) || pipe(done))
		return check(false, "pipe");
	p = fork();
	if (p == 0) {
		int tfm;
		char c;

		if (pin_to(cpu))
			_exit(3);
		tfm = alg_tfm(drv, key, klen);
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
	st = poll(&pfd, 1, 10000);
	for (q = 0; q < nq; q++)
		if (q != wq)
			others += r.q[q].h->sq_tail != 0;
	check(st == 1 && r.q[wq].h->sq_tail == 1 && !others,
	      "%s: the request of a consumer on CPU %d reaches queue %u (of %u), and no other queue",
	      drv, cpu, wq, nq);
	struct fqueue *fq = &r.q[wq];
	struct gpu_aes_sqe s = fq->sq[0];
	const struct gpu_aes_key *k = &r.keys[s.key_slot % 8];

	check(sqe_fits_queue(&r, wq, &s) && s.tag == 0 &&
	      s.alg == (xts ? GPU_AES_ALG_XTS : GPU_AES_ALG_CTR) &&
	      s.dir == GPU_AES_DIR_ENCRYPT && s.len == sizeof(pt) &&
	      !memcmp(s.iv, iv, 16),
	      "%s: the sqe: tag %u, seq %#x (low byte = queue %u), data_off %llu in the queue's slice, the consumer's IV",
	      drv, s.tag, s.seq, wq, (unsigned long long)s.data_off);
	check(s.key_slot < 8 && k->gen != 0 && k->gen == s.key_gen &&
	      k->key_len == half && k->tweak_len == (xts ? half : 0) &&
	      k->reserved == 0 && !memcmp(k->key, key, klen) &&
	      all_bytes(k->key + klen, sizeof(k->key) - klen, 0) &&
	      all_bytes(k->pad, sizeof(k->pad), 0),
	      "%s: while the tfm lives slot %u (gen %u) holds key_len %u, tweak_len %u, the %s, the rest of its %zu bytes zero",
	      drv, s.key_slot, k->gen, k->key_len, k->tweak_len,
	      xts ? "key then the tweak key" : "raw key", sizeof(*k));
	fq->cq[0] = (struct gpu_aes_cqe){ .tag = s.tag, .seq = s.seq,
					  .status = serve_one(&r, wq, &s) };
	fq->h->sq_head = 1;
	__atomic_store_n(&fq->h->cq_tail, 1, __ATOMIC_RELEASE);
	check(complete_q(fd, wq) == 1, "%s: its completion on queue %u is accepted",
	      drv, wq);
	char c;

	check(read(done[0], &c, 1) == 1, "%s: the consumer got the right bytes", drv);
	check(slots_in_use(&r, 8) == 1, "%s: exactly one key slot is in use (%d)",
	      drv, slots_in_use(&r, 8));
	if (write(go[1], "x", 1) != 1)
		check(false, "write");
	waitpid(p, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: consumer exit status %d",
	      drv, WEXITSTATUS(st));
	/* The tfm is freed by the time its last socket is closed. */
	check(all_bytes(k, sizeof(*k), 0),
	      "%s: after the tfm is freed slot %u reads all zero (%zu bytes)",
	      drv, s.key_slot, sizeof(*k));
	check(all_bytes(r.keys, r.l.data_off - r.l.keys_off, 0),
	      "%s: the whole key table is zero (%d slots not)", drv,
	      slots_in_use(&r, 8));
	close(fd);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
	munmap(r.base, r.l.region_size);
}

static void do_keys(uint32_t nq)
{
	int cpus[2], n = allowed_cpus(cpus, 2);

	if (n < 1)
		return check(false, "sched_getaffinity");
	/* Two CPUs (the guest's two): each consumer on another queue. */
	keys_one("ctr-aes-gpu", "ctr(aes-generic)", 32, cpus[0], nq);
	keys_one("xts-aes-gpu", "xts(ecb(aes-generic))", 64, cpus[n - 1], nq);
}

/* ---- hostile --------------------------------------------------------- */

struct shared {
	volatile int stop;
	long bytes, requests, mismatches, errors;
};

/*
 * A byte-checked consumer on @cpu: random keys, lengths, IVs and
 * directions on the gpu drivers, each result compared with aes-generic's.
 */
static void consumer(struct shared *sh, uint64_t seed, int cpu)
{
	static uint8_t in[16384], out[16384], ref[16384];
	uint8_t key[32], iv[16];
	uint64_t s = seed;

	if (pin_to(cpu)) {
		__atomic_add_fetch(&sh->errors, 1, __ATOMIC_RELAXED);
		_exit(1);
	}
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

#define HOSTILE_BATCH 64

/* The hostile helper's view of one queue. */
struct hqueue {
	uint32_t cq_tail;		/* ours; the kernel's head after a reap */
	uint32_t *seq;			/* last seq seen per tag, 0 = never */
	bool *mine;			/* seen, not yet completed */
	struct gpu_aes_cqe done[HOSTILE_BATCH];	/* this round's answers */
	uint32_t nd;
	long real, garbage, foreign, overruns;
};

struct hostile {
	struct region r;
	uint32_t nq;
	int fd;
	uint64_t rs;
	struct hqueue q[MAXQ];
	long garbage, overruns, real, accepted, scribbles, bad_reaps, bad_sqes;
	long foreign;			/* live cqes of one queue posted on another */
	long ebadmsg;			/* EBADMSG sent for live ECB/CTR requests */
	long all_reaps, queue_reaps;
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
 * A seq the tag cannot have now or during this test: seqs only grow (by
 * 256 per post, the low byte the queue's number), so anything below the
 * last one seen is stale, and a tag never seen is nowhere near 2^31.
 */
static uint32_t stale_seq(struct hostile *x, struct hqueue *hq, uint32_t tag)
{
	uint32_t s = hq->seq[tag];

	if (!s)
		return 0x80000000u + (uint32_t)(rnd(&x->rs) % 0x40000000u);
	return s - 1 - (uint32_t)(rnd(&x->rs) % 1000);
}

/* One garbage entry, never acceptable whatever the kernel posts meanwhile. */
static struct gpu_aes_cqe garbage_entry(struct hostile *x, struct hqueue *hq)
{
	uint32_t n = x->r.g.queue_entries, tag;
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
	case 1:		/* a tag past the queue */
		c.tag = n + (uint32_t)(rnd(&x->rs) % (UINT32_MAX - n));
		c.seq = (uint32_t)rnd(&x->rs);
		c.status = 0;
		break;
	case 2:		/* a free or foreign tag: stale seq */
		tag = (uint32_t)(rnd(&x->rs) % n);
		c.tag = tag;
		c.seq = stale_seq(x, hq, tag);
		c.status = (int32_t)(rnd(&x->rs) % 2 ? 0 : GPU_AES_STATUS_EIO);
		break;
	case 3:		/* seq far ahead */
		tag = (uint32_t)(rnd(&x->rs) % n);
		c.tag = tag;
		c.seq = hq->seq[tag] + 0x40000000u + (uint32_t)(rnd(&x->rs) % 1000);
		c.status = 0;
		break;
	case 4:		/* the right tag and seq of a live request, bad status */
		tag = (uint32_t)(rnd(&x->rs) % n);
		c.tag = tag;
		c.seq = hq->mine[tag] ? hq->seq[tag] : stale_seq(x, hq, tag);
		c.status = bad_status[rnd(&x->rs) % (sizeof(bad_status) /
						    sizeof(bad_status[0]))];
		break;
	default:	/* a live request, EBADMSG: the consumers run no GCM */
		tag = (uint32_t)(rnd(&x->rs) % n);
		c.tag = tag;
		c.seq = hq->mine[tag] ? hq->seq[tag] : stale_seq(x, hq, tag);
		c.status = GPU_AES_STATUS_EBADMSG;
		x->ebadmsg += hq->mine[tag];
		break;
	}
	return c;
}

/* Overwrites every header and queue header field the kernel owns. */
static void scribble_headers(struct hostile *x)
{
	struct gpu_aes_region_hdr *h = x->r.h;
	uint32_t q;

	h->magic = (uint32_t)rnd(&x->rs);
	h->abi_version = (uint32_t)rnd(&x->rs);
	h->features = (uint32_t)rnd(&x->rs);
	h->nr_queues = (uint32_t)rnd(&x->rs);
	h->queue_entries = (uint32_t)rnd(&x->rs);
	h->nr_keys = (uint32_t)rnd(&x->rs);
	h->page_size = (uint32_t)rnd(&x->rs);
	h->algs = (uint32_t)rnd(&x->rs);
	h->region_size = rnd(&x->rs);
	h->queues_off = rnd(&x->rs);
	h->queue_stride = rnd(&x->rs);
	h->keys_off = rnd(&x->rs);
	h->data_off = rnd(&x->rs);
	h->queue_data_size = rnd(&x->rs);
	rnd_fill(&x->rs, h->pad0, sizeof(h->pad0));
	rnd_fill(&x->rs, h->pad2, sizeof(h->pad2));
	/*
	 * cq_head is the kernel's; sq_tail too, but this helper reads it to
	 * find the kernel's entries, so it is left alone.
	 */
	for (q = 0; q < x->nq; q++) {
		struct gpu_aes_queue_hdr *qh = x->r.q[q].h;

		qh->cq_head = (uint32_t)rnd(&x->rs);
		rnd_fill(&x->rs, qh->pad0, sizeof(qh->pad0));
		rnd_fill(&x->rs, qh->pad3, sizeof(qh->pad3));
	}
	x->scribbles++;
}

/* COMPLETE(@qid) after the tails were set; @real entries could be accepted. */
static void reap(struct hostile *x, uint32_t qid, long real)
{
	long rc = complete_q(x->fd, qid);

	if (rc < 0 || rc > real)
		x->bad_reaps++;
	else
		x->accepted += rc;
	if (qid == GPU_AES_ALL_QUEUES)
		x->all_reaps++;
	else
		x->queue_reaps++;
}

/* A cq_tail past the queue, or behind the kernel's head: rejected whole. */
static void overrun(struct hostile *x, uint32_t q, bool all)
{
	struct fqueue *fq = &x->r.q[q];
	uint32_t n = x->r.g.queue_entries, t = x->q[q].cq_tail;
	uint32_t bad = rnd(&x->rs) & 1 ?
		t + n + 1 + (uint32_t)(rnd(&x->rs) % 4096) :
		t - 1 - (uint32_t)(rnd(&x->rs) % 4096);

	__atomic_store_n(&fq->h->cq_tail, bad, __ATOMIC_RELEASE);
	if (errno_of(complete_q(x->fd, all ? GPU_AES_ALL_QUEUES : q)) == EINVAL) {
		x->overruns++;
		x->q[q].overruns++;
	} else {
		x->bad_reaps++;
	}
	__atomic_store_n(&fq->h->cq_tail, t, __ATOMIC_RELEASE);
}

/* Take what queue @q has posted (up to a batch) and compute it. */
static void take(struct hostile *x, uint32_t q)
{
	struct fqueue *fq = &x->r.q[q];
	struct hqueue *hq = &x->q[q];
	uint32_t mask = x->r.g.queue_entries - 1;
	uint32_t head = fq->h->sq_head, tail;

	hq->nd = 0;
	tail = __atomic_load_n(&fq->h->sq_tail, __ATOMIC_ACQUIRE);
	for (; head != tail && hq->nd < HOSTILE_BATCH; head++) {
		struct gpu_aes_sqe s = fq->sq[head & mask];

		if (!sqe_fits_queue(&x->r, q, &s)) {
			x->bad_sqes++;
			continue;
		}
		hq->seq[s.tag] = s.seq;
		hq->mine[s.tag] = true;
		hq->done[hq->nd++] = (struct gpu_aes_cqe){
			.tag = s.tag, .seq = s.seq,
			.status = serve_one(&x->r, q, &s),
			.reserved = (uint32_t)rnd(&x->rs) };
		/* The kernel must never read a posted sqe back. */
		rnd_fill(&x->rs, &fq->sq[head & mask], sizeof(s));
	}
	fq->h->sq_head = head;
}

/*
 * Queue @q's batch: garbage, then live answers of other queues (on the
 * wrong queue: their seqs carry another queue's number), then the real
 * answers, then their duplicates.  Publishes the new cq_tail.
 */
static void post(struct hostile *x, uint32_t q)
{
	struct fqueue *fq = &x->r.q[q];
	struct hqueue *hq = &x->q[q];
	uint32_t n = x->r.g.queue_entries, mask = n - 1;
	uint32_t t = hq->cq_tail, nd = hq->nd, nf = 0, g, i, o, room;
	struct gpu_aes_cqe foreign[HOSTILE_BATCH];

	for (o = 0; o < x->nq; o++)
		for (i = 0; o != q && i < x->q[o].nd && nf < HOSTILE_BATCH; i++)
			if (rnd(&x->rs) & 1) {
				foreign[nf] = x->q[o].done[i];
				/* A real status: only the queue makes it wrong. */
				foreign[nf++].status = GPU_AES_STATUS_OK;
			}
	room = n - 2 * nd - nf;
	g = room / 2 + (uint32_t)(rnd(&x->rs) % (room / 2 + 1));
	for (i = 0; i < g; i++)
		fq->cq[t++ & mask] = garbage_entry(x, hq);
	for (i = 0; i < nf; i++)
		fq->cq[t++ & mask] = foreign[i];
	for (i = 0; i < nd; i++)
		fq->cq[t++ & mask] = hq->done[i];
	for (i = 0; i < nd; i++) {
		fq->cq[t++ & mask] = hq->done[i];
		hq->mine[hq->done[i].tag] = false;
	}
	hq->garbage += g + nf + nd;
	hq->foreign += nf;
	hq->real += nd;
	x->garbage += g + nf + nd;
	x->foreign += nf;
	x->real += nd;
	hq->cq_tail = t;
	__atomic_store_n(&fq->h->cq_tail, t, __ATOMIC_RELEASE);
}

/*
 * One round: every queue's entries taken and answered wrapped in garbage,
 * reaped all at once (COMPLETE(GPU_AES_ALL_QUEUES): queue 0 first) or
 * queue by queue in one order or the other, so the foreign answers on a
 * queue are sometimes reaped while their own requests are still live.
 */
static void hostile_round(struct hostile *x, unsigned long round)
{
	bool all = round % 3 == 0, reverse = round % 2;
	uint32_t q, i;
	long total = 0;

	if (round % 8 == 7)
		for (q = 0; q < x->nq; q++)
			overrun(x, q, (round / 8 + q) % 2);
	for (q = 0; q < x->nq; q++)
		take(x, q);
	for (q = 0; q < x->nq; q++)
		post(x, q);
	scribble_headers(x);
	if (all) {
		for (q = 0; q < x->nq; q++)
			total += x->q[q].nd;
		reap(x, GPU_AES_ALL_QUEUES, total);
		return;
	}
	for (i = 0; i < x->nq; i++) {
		q = reverse ? x->nq - 1 - i : i;
		reap(x, q, x->q[q].nd);
	}
}

static void do_hostile(int secs, long min_garbage, int nconsumers, uint32_t nq)
{
	struct hostile x = { .rs = 0x9e3779b97f4a7c15ull, .nq = nq };
	struct shared *sh;
	struct timespec t0, now;
	long rej0, late0, to0, rr0, rr, late, to, af0, he0;
	int cpus[16], ncpu = allowed_cpus(cpus, 16);
	bool reached[MAXQ] = { false };
	pid_t pids[16];
	unsigned long i;
	int c, st, live;
	uint32_t q;

	if (nconsumers > 16)
		nconsumers = 16;
	if (ncpu < 1)
		return check(false, "sched_getaffinity");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	serve_warm();
	x.fd = open(DEV, O_RDWR);
	if (sh == MAP_FAILED || x.fd < 0 ||
	    region_map(&x.r, nq, 1024, 64, 4 << 20, PROT_READ | PROT_WRITE) ||
	    ioctl(x.fd, GPU_AES_IOC_SETUP, &x.r.s))
		return check(false, "attach %u queues (errno %d)", nq, errno);
	for (q = 0; q < nq; q++) {
		x.q[q].seq = calloc(1024, sizeof(*x.q[q].seq));
		x.q[q].mine = calloc(1024, sizeof(*x.q[q].mine));
	}
	rej0 = stat_read("rejected_completions");
	late0 = stat_read("late_completions");
	to0 = stat_read("timeouts");
	rr0 = stat_read("ring_requests");
	af0 = stat_read("auth_failures");
	he0 = stat_read("helper_errors");
	for (c = 0; c < nconsumers; c++) {
		int cpu = cpus[c % ncpu];

		reached[cpu % nq] = true;
		pids[c] = fork();
		if (pids[c] == 0)
			consumer(sh, 0x1234567ull * (c + 1), cpu);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0;; i++) {
		struct pollfd pfd = { .fd = x.fd, .events = POLLIN };

		for (q = 0; q < nq; q++)
			x.r.q[q].h->helper_flags = GPU_AES_HELPER_NEED_WAKEUP;
		poll(&pfd, 1, 2);
		hostile_round(&x, i);
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
	printf("stat queues=%u consumers=%d (on CPUs", nq, nconsumers);
	for (c = 0; c < nconsumers; c++)
		printf(" %d", cpus[c % ncpu]);
	printf(") requests=%ld bytes_verified=%ld mismatches=%ld errors=%ld\n",
	       sh->requests, sh->bytes, sh->mismatches, sh->errors);
	printf("stat rounds=%lu garbage_entries=%ld (foreign=%ld) cq_overruns=%ld header_scribbles=%ld real_completions=%ld accepted=%ld late=%ld timeouts=%ld ring_requests=%ld rejected=%ld reaps_all=%ld reaps_queue=%ld\n",
	       i, x.garbage, x.foreign, x.overruns, x.scribbles, x.real,
	       x.accepted, late, to, rr, stat_read("rejected_completions") - rej0,
	       x.all_reaps, x.queue_reaps);
	for (q = 0; q < nq; q++)
		printf("stat queue=%u real_completions=%ld garbage=%ld foreign=%ld overruns=%ld\n",
		       q, x.q[q].real, x.q[q].garbage, x.q[q].foreign,
		       x.q[q].overruns);
	check(sh->mismatches == 0 && sh->errors == 0 && sh->bytes > 0,
	      "every consumer byte correct (%ld requests, %ld bytes, %ld wrong, %ld errors)",
	      sh->requests, sh->bytes, sh->mismatches, sh->errors);
	check(x.garbage >= min_garbage, "at least %ld garbage entries sent (%ld)",
	      min_garbage, x.garbage);
	check(x.bad_reaps == 0, "every COMPLETE answered as the ABI says (%ld not)",
	      x.bad_reaps);
	check(x.bad_sqes == 0,
	      "every sqe on its own queue: tag in range, seq's low byte the queue, bytes in the queue's slice (%ld not)",
	      x.bad_sqes);
	check(stat_read("rejected_completions") - rej0 == x.garbage + x.overruns,
	      "rejected_completions moved by exactly %ld entries + %ld whole batches",
	      x.garbage, x.overruns);
	check(x.foreign > 0,
	      "%ld live completions posted on the wrong queue, all rejected (in the count above)",
	      x.foreign);
	check(x.ebadmsg > 0 && stat_read("auth_failures") == af0,
	      "%ld EBADMSG completions of live ECB/CTR requests rejected, auth_failures unmoved",
	      x.ebadmsg);
	check(stat_read("helper_errors") == he0,
	      "helper_errors unmoved: no garbage status was taken for a real one");
	check(x.accepted + late == x.real,
	      "each real completion accepted once: %ld on time + %ld late = %ld",
	      x.accepted, late, x.real);
	check(rr >= x.real && x.real > 0, "the ring carried the workload (%ld requests)", rr);
	for (q = 0; q < nq; q++) {
		if (reached[q])
			check(x.q[q].real > 0 && x.q[q].overruns > 0,
			      "queue %u (a consumer's CPU maps to it) was live: %ld requests served, %ld overruns rejected",
			      q, x.q[q].real, x.q[q].overruns);
		else
			check(x.q[q].real == 0,
			      "queue %u (no consumer's CPU maps to it) got no request (%ld)",
			      q, x.q[q].real);
		free(x.q[q].seq);
		free(x.q[q].mine);
	}
}

/* ---- withhold ------------------------------------------------------ */

static volatile sig_atomic_t withhold_stop;

static void withhold_term(int sig)
{
	(void)sig;
	withhold_stop = 1;
}

static void do_withhold(uint32_t nq, uint32_t entries, unsigned long nth,
			int secs, const char *ready)
{
	uint32_t mask = entries - 1, head[MAXQ] = { 0 }, cq[MAXQ] = { 0 };
	unsigned long seen = 0, served = 0, qserved[MAXQ] = { 0 };
	unsigned long qafter[MAXQ] = { 0 };
	struct timespec t0, now;
	long withheld = -1, wqueue = -1;
	struct region r;
	char path[PATH_MAX];
	uint32_t q;
	FILE *f;
	int fd;

	signal(SIGTERM, withhold_term);
	serve_warm();
	fd = open(DEV, O_RDWR);
	if (fd < 0 || region_map(&r, nq, entries, 64, 4 << 20,
				 PROT_READ | PROT_WRITE) ||
	    ioctl(fd, GPU_AES_IOC_SETUP, &r.s))
		return check(false, "attach %u queues of %u entries (errno %d)",
			     nq, entries, errno);
	f = fopen(ready, "w");
	if (f)
		fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!withhold_stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		bool idle = true;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= secs)
			break;
		/* io_uring's handshake: flag, then look again, then sleep. */
		for (q = 0; q < nq; q++)
			__atomic_store_n(&r.q[q].h->helper_flags,
					 GPU_AES_HELPER_NEED_WAKEUP,
					 __ATOMIC_SEQ_CST);
		for (q = 0; q < nq; q++)
			idle &= __atomic_load_n(&r.q[q].h->sq_tail,
						__ATOMIC_ACQUIRE) == head[q];
		if (idle)
			poll(&pfd, 1, 100);
		for (q = 0; q < nq; q++)
			__atomic_store_n(&r.q[q].h->helper_flags, 0,
					 __ATOMIC_RELAXED);
		for (q = 0; q < nq; q++) {
			struct fqueue *fq = &r.q[q];
			uint32_t tail, posted = 0;

			tail = __atomic_load_n(&fq->h->sq_tail, __ATOMIC_ACQUIRE);
			for (; head[q] != tail; head[q]++) {
				struct gpu_aes_sqe sqe = fq->sq[head[q] & mask];

				if (++seen == nth) {
					withheld = sqe.tag;
					wqueue = q;
					snprintf(path, sizeof(path), "%s.q", ready);
					f = fopen(path, "w");
					if (f) {
						fprintf(f, "%u\n", q);
						fclose(f);
					}
					continue;
				}
				fq->cq[cq[q]++ & mask] = (struct gpu_aes_cqe){
					.tag = sqe.tag, .seq = sqe.seq,
					.status = serve_one(&r, q, &sqe) };
				posted++;
			}
			__atomic_store_n(&fq->h->sq_head, head[q], __ATOMIC_RELEASE);
			if (!posted)
				continue;
			__atomic_store_n(&fq->h->cq_tail, cq[q], __ATOMIC_RELEASE);
			if (complete_q(fd, q) < 0)
				return check(false, "COMPLETE(%u) (errno %d)", q, errno);
			served += posted;
			qserved[q] += posted;
			if (withheld >= 0)
				qafter[q] += posted;
		}
	}
	printf("stat served=%lu withheld_queue=%ld withheld_tag=%ld\n", served,
	       wqueue, withheld);
	for (q = 0; q < nq; q++)
		printf("stat queue=%u served=%lu served_after_withhold=%lu\n", q,
		       qserved[q], qafter[q]);
	check(withheld >= 0,
	      "withheld request %lu (queue %ld, tag %ld), served %lu others",
	      nth, wqueue, withheld, served);
	/* Detach: whatever is still posted is recomputed on the CPU. */
	close(fd);
}

static uint32_t queues_arg(int argc, char **argv, int i)
{
	long v = argc > i ? atol(argv[i]) : 2;

	if (v < 1 || v > MAXQ) {
		fprintf(stderr, "fake_helper: QUEUES must be in 1..%d\n", MAXQ);
		exit(2);
	}
	return (uint32_t)v;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "access"))
		do_access(queues_arg(argc, argv, 2));
	else if ((argc == 2 || argc == 3) && !strcmp(argv[1], "keys"))
		do_keys(queues_arg(argc, argv, 2));
	else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "hostile"))
		do_hostile(atoi(argv[2]), atol(argv[3]), atoi(argv[4]),
			   queues_arg(argc, argv, 5));
	else if (argc == 7 && !strcmp(argv[1], "withhold"))
		do_withhold(queues_arg(argc, argv, 2), (uint32_t)atoi(argv[3]),
			    strtoul(argv[4], NULL, 0), atoi(argv[5]), argv[6]);
	else {
		fprintf(stderr, "usage: %s access [QUEUES] | keys [QUEUES] | hostile SECONDS MIN_GARBAGE CONSUMERS [QUEUES] | withhold QUEUES ENTRIES NTH SECONDS READYFILE\n",
			argv[0]);
		return 2;
	}
	printf("fake_helper: %d failed\n", nfail);
	return nfail != 0;
}
