/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * transport.h - how the core reaches its producer: the kernel through
 * /dev/gpu_aes (transport_dev.c) or the in-process producer
 * (transport_inproc.c).  The rings themselves are the same shared region in
 * both cases; a transport only sleeps and rings doorbells.
 */
#ifndef GPU_AES_HELPER_TRANSPORT_H
#define GPU_AES_HELPER_TRANSPORT_H

#include "backend.h"

struct gpu_aes_transport;

struct gpu_aes_transport_ops {
	/*
	 * Sleep until the producer rings the doorbell or stop_fd becomes
	 * readable (it is never read here).  0 on a wake-up of any kind
	 * (spurious ones included: the caller re-checks the rings), or
	 * -errno when the producer is gone and the core must exit.
	 */
	int (*wait)(struct gpu_aes_transport *t, int stop_fd);
	/*
	 * Completions are published up to cq_tail; called once per batch,
	 * from any thread.  0, or -errno when the producer is gone.
	 */
	int (*notify)(struct gpu_aes_transport *t);
	void (*close)(struct gpu_aes_transport *t);
};

struct gpu_aes_transport {
	const struct gpu_aes_transport_ops *ops;
	const char *name;
};

/*
 * Opens the device, checks its ABI version and attaches the region
 * (GPU_AES_IOC_SETUP), which the kernel then fills in.  Errors are logged
 * with what to do about them; returns -errno.
 */
int gpu_aes_transport_dev_open(const char *path, struct gpu_aes_region *r,
			       struct gpu_aes_transport **out);

/*
 * In-process: the producer rings doorbell_fd (an eventfd the transport
 * creates; see gpu_aes_transport_inproc_doorbell) when it sees
 * GPU_AES_HELPER_NEED_WAKEUP, and the core calls reap(arg) where the kernel
 * would be entered with GPU_AES_IOC_COMPLETE.
 */
int gpu_aes_transport_inproc_open(int (*reap)(void *arg), void *arg,
				  struct gpu_aes_transport **out);
/* The eventfd the producer writes to wake the core. */
int gpu_aes_transport_inproc_doorbell(struct gpu_aes_transport *t);

#endif /* GPU_AES_HELPER_TRANSPORT_H */
