// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "log.h"
#include "transport.h"

struct dev {
	struct gpu_aes_transport t;	/* first: the core holds &t */
	int fd;
	const char *path;
	int failed;			/* notify error already logged */
};

static int dev_wait(struct gpu_aes_transport *t, int stop_fd)
{
	struct dev *d = (struct dev *)t;
	struct pollfd pfd[2] = {
		{ .fd = d->fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};

	if (poll(pfd, 2, -1) < 0) {
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

static int dev_notify(struct gpu_aes_transport *t)
{
	struct dev *d = (struct dev *)t;

	/* The kernel reaps the CQ, copies out and completes in this call. */
	while (ioctl(d->fd, GPU_AES_IOC_COMPLETE) < 0) {
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

static int check_info(struct dev *d, const struct gpu_aes_region *r,
		      struct gpu_aes_info *info)
{
	memset(info, 0, sizeof(*info));
	if (ioctl(d->fd, GPU_AES_IOC_INFO, info) < 0) {
		log_err("GPU_AES_IOC_INFO on %s: %s", d->path, strerror(errno));
		return -errno;
	}
	log_info("module ABI version %u, features 0x%x, max %u entries, %u keys, %llu MiB data",
		 info->abi_version, info->features, info->max_entries,
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
	if (r->nr_entries > info->max_entries || r->nr_keys > info->max_keys ||
	    r->data_size > info->max_data_size) {
		log_err("region (%u entries, %u keys, %llu bytes) exceeds the module's limits",
			r->nr_entries, r->nr_keys,
			(unsigned long long)r->data_size);
		return -EINVAL;
	}
	return 0;
}

static int setup(struct dev *d, struct gpu_aes_region *r,
		 const struct gpu_aes_info *info)
{
	struct gpu_aes_setup s;
	const struct gpu_aes_region_hdr *h = r->hdr;

	memset(&s, 0, sizeof(s));
	s.abi_version = GPU_AES_ABI_VERSION;
	s.features = info->features & GPU_AES_FEAT_NEED_WAKEUP;
	s.nr_entries = r->nr_entries;
	s.nr_keys = r->nr_keys;
	s.data_size = r->data_size;
	s.region_addr = (uint64_t)(uintptr_t)r->base;
	s.region_size = r->size;
	if (ioctl(d->fd, GPU_AES_IOC_SETUP, &s) < 0) {
		int err = errno;

		if (err == EBUSY)
			log_open_error(d->path, err);
		else
			log_err("GPU_AES_IOC_SETUP on %s: %s", d->path,
				strerror(err));
		return -err;
	}
	/* The kernel wrote the header; make sure it agrees with our view. */
	if (h->magic != GPU_AES_MAGIC || h->abi_version != GPU_AES_ABI_VERSION ||
	    h->nr_entries != r->nr_entries || h->nr_keys != r->nr_keys ||
	    h->data_size != r->data_size || h->region_size != r->size) {
		log_err("region header written by the module does not match the request");
		return -EPROTO;
	}
	return 0;
}

int gpu_aes_transport_dev_open(const char *path, struct gpu_aes_region *r,
			       struct gpu_aes_transport **out)
{
	struct gpu_aes_info info;
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
	err = check_info(d, r, &info);
	if (!err)
		err = setup(d, r, &info);
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
