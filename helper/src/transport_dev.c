// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "log.h"
#include "region.h"
#include "transport.h"

struct dev {
	struct gpu_aes_transport t;	/* first: the core holds &t */
	int fd;
	const char *path;
	int failed;			/* notify error already logged */
};

static int dev_wait(struct gpu_aes_transport *t, int stop_fd,
		    int timeout_ms)
{
	struct dev *d = (struct dev *)t;
	struct pollfd pfd[2] = {
		{ .fd = d->fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};

	if (poll(pfd, 2, timeout_ms) < 0) {
		if (errno == EINTR)
			return 0;
		log_err("poll %s: %s", d->path, strerror(errno));
		return -errno;
	}
	if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
		log_err("%s reported %s: the module detached this helper",
			d->path, pfd[0].revents & POLLNVAL ? "POLLNVAL" :
			pfd[0].revents & POLLHUP ? "POLLHUP" : "POLLERR");
		return -EPIPE;
	}
	return 0;
}

static int dev_notify(struct gpu_aes_transport *t, uint32_t qid)
{
	struct dev *d = (struct dev *)t;

	/* The kernel reaps the CQ, copies out and completes in this call. */
	while (ioctl(d->fd, GPU_AES_IOC_COMPLETE, (unsigned long)qid) < 0) {
		int err = errno;

		if (err == EINTR)
			continue;
		if (!__atomic_exchange_n(&d->failed, 1, __ATOMIC_RELAXED))
			log_err("GPU_AES_IOC_COMPLETE on %s: %s", d->path,
				strerror(err));
		return -err;
	}
	return 0;
}

static void dev_close(struct gpu_aes_transport *t)
{
	struct dev *d = (struct dev *)t;

	close(d->fd);
	free(d);
}

static const struct gpu_aes_transport_ops dev_ops = {
	.wait = dev_wait,
	.notify = dev_notify,
	.close = dev_close,
};

static void log_open_error(const char *path, int err)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		log_err("cannot open %s: %s (is the module loaded? try 'modprobe gpu_aes')",
			path, strerror(err));
		break;
	case EACCES:
	case EPERM:
		log_err("cannot open %s: %s (the device is root-only: run as root)",
			path, strerror(err));
		break;
	case EBUSY:
		log_err("cannot attach to %s: %s (another gpu-aes-helper is attached)",
			path, strerror(err));
		break;
	default:
		log_err("cannot open %s: %s", path, strerror(err));
	}
}

/*
 * What this kernel supports, asked before the region is made, so its size
 * can follow the kernel's page size and CPU count.
 */
int gpu_aes_transport_dev_info(const char *path, struct gpu_aes_info *info)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), err = 0;

	if (fd < 0) {
		err = -errno;
		log_open_error(path, -err);
		return err;
	}
	memset(info, 0, sizeof(*info));
	if (ioctl(fd, GPU_AES_IOC_INFO, info) < 0) {
		err = -errno;
		/*
		 * The v3 INFO is a different ioctl number than v2's (its size
		 * is in it): an older module does not know it.
		 */
		if (err == -ENOTTY)
			log_err("%s does not answer this helper's GPU_AES_IOC_INFO: the module is older than ABI version %u; install matching versions",
				path, GPU_AES_ABI_VERSION);
		else
			log_err("GPU_AES_IOC_INFO on %s: %s", path,
				strerror(-err));
	}
	close(fd);
	if (err)
		return err;
	log_info("module ABI version %u, features 0x%x, %u CPUs, page %u, max %u queues of %u entries, %u keys, %llu MiB data",
		 info->abi_version, info->features, info->nr_cpus,
		 info->page_size, info->max_queues, info->max_entries,
		 info->max_keys,
		 (unsigned long long)(info->max_data_size >> 20));
	if (info->abi_version != GPU_AES_ABI_VERSION) {
		log_err("module speaks ABI version %u, this helper %u: install matching versions",
			info->abi_version, GPU_AES_ABI_VERSION);
		return -EPROTO;
	}
	if (!(info->features & GPU_AES_FEAT_NEED_WAKEUP)) {
		log_err("module lacks the NEED_WAKEUP feature this helper needs");
		return -EPROTO;
	}
	return 0;
}

static const char *alg_name(enum gpu_aes_alg alg)
{
	switch (alg) {
	case GPU_AES_ALG_ECB:
		return "ecb";
	case GPU_AES_ALG_CTR:
		return "ctr";
	case GPU_AES_ALG_XTS:
		return "xts";
	case GPU_AES_ALG_GCM:
		return "gcm";
	case GPU_AES_ALG_CBC:
		return "cbc";
	}
	return "?";
}

/* "ecb ctr" for a GPU_AES_ALG_BIT() set, "none" for an empty one. */
static const char *alg_set_str(uint32_t set, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int alg;

	buf[0] = 0;
	for (alg = 1; alg <= GPU_AES_ALG_MAX; alg++)
		if (set & GPU_AES_ALG_BIT(alg) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? " " : "",
					      alg_name((enum gpu_aes_alg)alg));
	return buf[0] ? buf : "none";
}

/*
 * The algorithms to ask for: what the module may post and we serve.  A
 * module without GPU_AES_FEAT_ALGS posts GPU_AES_ALGS_V3, which every
 * backend serves.
 */
static int agree_algs(const struct gpu_aes_info *info, uint32_t served,
		      struct gpu_aes_setup *s)
{
	char posts[64], serves[64];

	if (!(info->features & GPU_AES_FEAT_ALGS)) {
		alg_set_str(GPU_AES_ALGS_V3, posts, sizeof(posts));
		if (GPU_AES_ALGS_V3 & ~served) {
			log_err("the module posts %s without asking, this backend serves only %s",
				posts, alg_set_str(served, serves,
						   sizeof(serves)));
			return -EPROTO;
		}
		log_info("algorithms served: %s (the module predates algorithm negotiation)",
			 posts);
		s->algs = 0;
		return 0;
	}
	s->features |= GPU_AES_FEAT_ALGS;
	s->algs = info->algs & served;
	if (!s->algs) {
		log_err("the module posts %s, this backend serves %s: nothing to do",
			alg_set_str(info->algs, posts, sizeof(posts)),
			alg_set_str(served, serves, sizeof(serves)));
		return -EPROTO;
	}
	if (info->algs & ~served) {
		char left[64];

		log_info("algorithms served: %s; %s stay on the module's CPU path (fallback_unsupported)",
			 alg_set_str(s->algs, serves, sizeof(serves)),
			 alg_set_str(info->algs & ~served, left, sizeof(left)));
	} else {
		log_info("algorithms served: %s",
			 alg_set_str(s->algs, serves, sizeof(serves)));
	}
	return 0;
}

static int check_fits(const struct gpu_aes_region *r,
		      const struct gpu_aes_info *info)
{
	if (r->nr_queues > info->max_queues ||
	    r->queue_entries > info->max_entries ||
	    r->nr_keys > info->max_keys || r->data_size > info->max_data_size ||
	    r->page_size != info->page_size) {
		log_err("region (%u queues of %u entries, %u keys, %llu bytes of data, page %u) exceeds the module's limits",
			r->nr_queues, r->queue_entries, r->nr_keys,
			(unsigned long long)r->data_size, r->page_size);
		return -EINVAL;
	}
	return 0;
}

static int setup(struct dev *d, struct gpu_aes_region *r,
		 const struct gpu_aes_info *info, uint32_t served)
{
	struct gpu_aes_setup s;
	const struct gpu_aes_region_hdr *h = r->hdr;
	int err;

	memset(&s, 0, sizeof(s));
	s.abi_version = GPU_AES_ABI_VERSION;
	s.features = info->features & GPU_AES_FEAT_NEED_WAKEUP;
	err = agree_algs(info, served, &s);
	if (err)
		return err;
	gpu_aes_region_geometry_of(r, &s.geo);
	s.region_addr = (uint64_t)(uintptr_t)r->base;
	s.region_size = r->size;
	if (ioctl(d->fd, GPU_AES_IOC_SETUP, &s) < 0) {
		err = errno;

		if (err == EBUSY)
			log_open_error(d->path, err);
		else if (err == EPERM)
			log_err("GPU_AES_IOC_SETUP on %s: %s (the helper needs CAP_SYS_ADMIN, and so did whoever opened the device)",
				d->path, strerror(err));
		else if (err == ENOMEM)
			log_err("GPU_AES_IOC_SETUP on %s: %s (the %zu-byte region is locked memory: raise RLIMIT_MEMLOCK or grant CAP_IPC_LOCK)",
				d->path, strerror(err), r->size);
		else
			log_err("GPU_AES_IOC_SETUP on %s: %s", d->path,
				strerror(err));
		return -err;
	}
	/* The kernel wrote the header; make sure it agrees with our view. */
	if (h->magic != GPU_AES_MAGIC || h->abi_version != GPU_AES_ABI_VERSION ||
	    h->nr_queues != r->nr_queues ||
	    h->queue_entries != r->queue_entries || h->nr_keys != r->nr_keys ||
	    h->queue_data_size != r->queue_data_size ||
	    h->region_size != r->size ||
	    (s.features & GPU_AES_FEAT_ALGS && h->algs != s.algs)) {
		log_err("region header written by the module does not match the request");
		return -EPROTO;
	}
	r->algs = (s.features & GPU_AES_FEAT_ALGS) ? s.algs : GPU_AES_ALGS_V3;
	return 0;
}

int gpu_aes_transport_dev_open(const char *path, const struct gpu_aes_info *info,
			       uint32_t served, struct gpu_aes_region *r,
			       struct gpu_aes_transport **out)
{
	struct dev *d;
	int err;

	err = check_fits(r, info);
	if (err)
		return err;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->path = path;
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		err = -errno;
		log_open_error(path, -err);
		free(d);
		return err;
	}
	err = setup(d, r, info, served);
	if (err) {
		close(d->fd);
		free(d);
		return err;
	}
	log_info("attached to %s", path);
	d->t.ops = &dev_ops;
	d->t.name = "device";
	*out = &d->t;
	return 0;
}
