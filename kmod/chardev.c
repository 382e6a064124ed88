// SPDX-License-Identifier: GPL-2.0-only
/*
 * chardev.c - /dev/gpu_aes: one helper at a time, region pinning, ioctls.
 *
 * Error codes (also in kmod/README.md):
 *   open        -EBUSY   another process has the device open.
 *   INFO        -EFAULT  bad user pointer.  Works before SETUP.  ABI v2's
 *                        INFO (another number) is answered with version 3
 *                        in v2's layout, so an old helper names the mismatch.
 *   SETUP       -EPERM   the caller, or whoever opened the file, lacks
 *                        CAP_SYS_ADMIN.
 *               -EFAULT  bad user pointer, or region not fully pinnable.
 *               -EINVAL  any field out of range, reserved field non-zero,
 *                        region_size != gpu_aes_layout(), address not page
 *                        aligned.
 *               -EBUSY   this open file already attached a region.
 *               -ENOMEM  no memory for the page array, vmap or tag table,
 *                        or the pinned pages would exceed RLIMIT_MEMLOCK
 *                        (without CAP_IPC_LOCK).
 *   COMPLETE    -ENXIO   no region attached (before SETUP).
 *               -EPERM   called from another process (mm) than SETUP's.
 *               -EINVAL  the argument is neither a queue of the region nor
 *                        GPU_AES_ALL_QUEUES, or cq_tail is more than
 *                        queue_entries past cq_head; that batch is rejected
 *                        (see gpu_aes_ring_reap()).
 *               >= 0     number of completions accepted.
 *               Several threads may call it at once; they share the work.
 *   other       -ENOTTY
 *   poll()      EPOLLIN while some queue's sq_head != sq_tail.  Each
 *               call re-arms the wake-up: a submission wakes the helper
 *               once per poll() that found nothing.
 *
 * Release detaches: every request still on the ring or in the backlog is
 * recomputed on the CPU and completed before the pages are unpinned.
 */
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "chardev.h"
#include "dispatch.h"
#include "ring.h"
#include "stats.h"
#include "status.h"

/**
 * struct gpu_aes_attachment - the pinned region of the open file.
 * @lock: serialises SETUP against itself and release.
 * @pages: pinned pages, @nr_pages of them.
 * @nr_pages: number of pinned pages.
 * @vaddr: vmap() of @pages, or NULL before SETUP.
 * @mm: the mm that did SETUP: its locked_vm carries the pinned pages, and
 *	only it may complete requests.
 * @charged: pages charged to @mm's locked_vm.
 */
struct gpu_aes_attachment {
	struct mutex lock;	/* SETUP vs SETUP and release */
	struct page **pages;
	unsigned long nr_pages;
	void *vaddr;
	struct mm_struct *mm;
	unsigned long charged;
};

static unsigned long gpu_aes_dev_busy;

static int gpu_aes_open(struct inode *inode, struct file *file)
{
	struct gpu_aes_attachment *a;

	if (test_and_set_bit_lock(0, &gpu_aes_dev_busy))
		return -EBUSY;
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		clear_bit_unlock(0, &gpu_aes_dev_busy);
		return -ENOMEM;
	}
	mutex_init(&a->lock);
	file->private_data = a;
	return nonseekable_open(inode, file);
}

static void gpu_aes_unpin(struct gpu_aes_attachment *a)
{
	if (a->vaddr)
		vunmap(a->vaddr);
	if (a->nr_pages)
		unpin_user_pages(a->pages, a->nr_pages);
	kvfree(a->pages);
	if (a->mm) {
		account_locked_vm(a->mm, a->charged, false);
		mmdrop(a->mm);
	}
	a->vaddr = NULL;
	a->pages = NULL;
	a->nr_pages = 0;
	a->mm = NULL;
	a->charged = 0;
}

static int gpu_aes_release(struct inode *inode, struct file *file)
{
	struct gpu_aes_attachment *a = file->private_data;

	mutex_lock(&a->lock);
	if (a->vaddr)
		gpu_aes_ring_detach(&gpu_aes_ring);
	gpu_aes_unpin(a);
	mutex_unlock(&a->lock);
	kfree(a);
	clear_bit_unlock(0, &gpu_aes_dev_busy);
	return 0;
}

static long gpu_aes_ioc_info(void __user *arg)
{
	struct gpu_aes_info info = {
		.abi_version = GPU_AES_ABI_VERSION,
		.features = GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS,
		.max_queues = gpu_aes_ring.max_queues,
		.max_entries = GPU_AES_MAX_ENTRIES,
		.max_keys = GPU_AES_MAX_KEYS,
		.page_size = PAGE_SIZE,
		.max_data_size = GPU_AES_MAX_DATA,
		.nr_cpus = nr_cpu_ids,
		.algs = gpu_aes_alg_set(),
	};

	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/*
 * An ABI v2 helper asks with v2's INFO, whose number differs (its struct was
 * 56 bytes).  Answer it with our version in v2's layout (abi_version first,
 * everything else zero) so it says "install matching versions" instead of
 * failing on -ENOTTY.
 */
#define GPU_AES_IOC_INFO_V2	_IOC(_IOC_READ, GPU_AES_IOC_MAGIC, 1, 56)

static long gpu_aes_ioc_info_v2(void __user *arg)
{
	u32 v2[14] = { GPU_AES_ABI_VERSION };

	return copy_to_user(arg, v2, sizeof(v2)) ? -EFAULT : 0;
}

static int gpu_aes_pin(struct gpu_aes_attachment *a, u64 addr, u64 size)
{
	unsigned long nr = size >> PAGE_SHIFT;
	unsigned long done = 0;
	int ret;

	/*
	 * Long-term pins are locked memory: charge them to the helper like
	 * io_uring and VFIO do (RLIMIT_MEMLOCK unless CAP_IPC_LOCK).
	 */
	ret = account_locked_vm(current->mm, nr, true);
	if (ret)
		return ret;
	mmgrab(current->mm);
	a->mm = current->mm;
	a->charged = nr;
	a->pages = kvmalloc_array(nr, sizeof(*a->pages), GFP_KERNEL);
	if (!a->pages)
		return -ENOMEM;
	/* pin_user_pages_fast() may pin fewer pages than asked: go on. */
	while (done < nr) {
		ret = pin_user_pages_fast(addr + (done << PAGE_SHIFT),
					  min_t(unsigned long, nr - done,
						INT_MAX >> PAGE_SHIFT),
					  FOLL_WRITE | FOLL_LONGTERM,
					  a->pages + done);
		if (ret <= 0) {
			a->nr_pages = done;
			return ret ? ret : -EFAULT;
		}
		done += ret;
		a->nr_pages = done;
	}
	a->vaddr = vmap(a->pages, nr, VM_MAP, PAGE_KERNEL);
	return a->vaddr ? 0 : -ENOMEM;
}

static long gpu_aes_ioc_setup(struct file *file, void __user *arg)
{
	struct gpu_aes_attachment *a = file->private_data;
	struct gpu_aes_setup s;
	long ret;

	/*
	 * The helper sees every key and every byte it serves.  The node's
	 * 0600 mode is checked at open only, so a descriptor inherited or
	 * passed to another process would carry the role: ask again here,
	 * of the caller and of whoever opened the file.
	 */
	if (!capable(CAP_SYS_ADMIN) ||
	    !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&s, arg, sizeof(s)))
		return -EFAULT;
	ret = gpu_aes_setup_check(&gpu_aes_ring, &s);
	if (ret)
		return ret;
	if (!s.region_addr || !PAGE_ALIGNED(s.region_addr) ||
	    !PAGE_ALIGNED(s.region_size) ||
	    s.region_addr + s.region_size < s.region_addr)
		return -EINVAL;

	mutex_lock(&a->lock);
	if (a->vaddr || a->nr_pages) {
		ret = -EBUSY;
		goto out;
	}
	ret = gpu_aes_pin(a, s.region_addr, s.region_size);
	if (!ret)
		ret = gpu_aes_ring_attach(&gpu_aes_ring, a->vaddr, &s);
	if (ret)
		gpu_aes_unpin(a);
out:
	mutex_unlock(&a->lock);
	return ret;
}

static long gpu_aes_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct gpu_aes_attachment *a = file->private_data;

	switch (cmd) {
	case GPU_AES_IOC_INFO:
		return gpu_aes_ioc_info((void __user *)arg);
	case GPU_AES_IOC_INFO_V2:
		return gpu_aes_ioc_info_v2((void __user *)arg);
	case GPU_AES_IOC_SETUP:
		return gpu_aes_ioc_setup(file, (void __user *)arg);
	case GPU_AES_IOC_COMPLETE:
		/* Only this file can have attached the ring: one opener. */
		if (!READ_ONCE(a->vaddr))
			return -ENXIO;
		/* The helper's threads; not a process the fd was passed to. */
		if (READ_ONCE(a->mm) != current->mm)
			return -EPERM;
		/* The queue number, or GPU_AES_ALL_QUEUES. */
		return gpu_aes_ring_reap(&gpu_aes_ring, (u32)arg);
	default:
		return -ENOTTY;
	}
}

static __poll_t gpu_aes_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &gpu_aes_ring.wq, wait);
	return gpu_aes_ring_pending(&gpu_aes_ring) ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct file_operations gpu_aes_fops = {
	.owner = THIS_MODULE,
	.open = gpu_aes_open,
	.release = gpu_aes_release,
	.unlocked_ioctl = gpu_aes_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = gpu_aes_poll,
};

/* /sys/class/misc/gpu_aes/{stats,dispatch,status,queues}/. */
static const struct attribute_group *gpu_aes_groups[] = {
	&gpu_aes_stats_group,
	&gpu_aes_dispatch_group,
	&gpu_aes_status_group,
	&gpu_aes_queues_group,
	NULL
};

static struct miscdevice gpu_aes_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = GPU_AES_DEVICE_NAME,
	.fops = &gpu_aes_fops,
	.mode = 0600,
	.groups = gpu_aes_groups,
};

int gpu_aes_chardev_register(void)
{
	return misc_register(&gpu_aes_misc);
}

void gpu_aes_chardev_unregister(void)
{
	misc_deregister(&gpu_aes_misc);
}
