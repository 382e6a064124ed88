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
#include "negotiate.h"
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
	return gpu_aes_info_check(info, "module");
}

static int setup(struct dev *d, struct gpu_aes_region *r,
		 const struct gpu_aes_info *info, uint32_t served)
{
	struct gpu_aes_geometry g;
	struct gpu_aes_setup s;
	int err;

	gpu_aes_region_geometry_of(r, &g);
	err = gpu_aes_setup_prepare(info, served, &g, &s);
	if (err)
		return err;
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
	return gpu_aes_hdr_check(r, &s);
}

int gpu_aes_transport_dev_open(const char *path, const struct gpu_aes_info *info,
			       uint32_t served, struct gpu_aes_region *r,
			       struct gpu_aes_transport **out)
{
	struct dev *d;
	int err;

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
