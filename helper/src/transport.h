/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * transport.h - how the core reaches its producer: the kernel through
 * /dev/gpu_aes (transport_dev.c) or, in the same process, the kernel's
 * request path built in userspace (kring/, through transport_inproc.c).  The rings themselves are the same shared region in
 * both cases; a transport only sleeps and rings doorbells.
 */
#ifndef GPU_AES_HELPER_TRANSPORT_H
#define GPU_AES_HELPER_TRANSPORT_H

#include "backend.h"

struct gpu_aes_transport;

struct gpu_aes_transport_ops {
	/*
	 * Sleep until the producer rings the doorbell, stop_fd becomes
	 * readable (it is never read here) or @timeout_ms pass (-1: no
	 * limit).  0 on a wake-up of any kind (spurious ones and the timeout
	 * included: the caller re-checks the rings), or -errno when the
	 * producer is gone and the core must exit.
	 */
	int (*wait)(struct gpu_aes_transport *t, int stop_fd, int timeout_ms);
	/*
	 * Completions are published up to queue @qid's cq_tail (every
	 * queue's for GPU_AES_ALL_QUEUES); called once per batch, from any
	 * thread.  0, or -errno when the producer is gone.
	 */
	int (*notify)(struct gpu_aes_transport *t, uint32_t qid);
	void (*close)(struct gpu_aes_transport *t);
};

struct gpu_aes_transport {
	const struct gpu_aes_transport_ops *ops;
	const char *name;
};

/*
 * Asks the device what it supports (GPU_AES_IOC_INFO) and checks the ABI
 * version and features.  Errors are logged with what to do about them;
 * returns 0 or -errno.
 */
int gpu_aes_transport_dev_info(const char *path, struct gpu_aes_info *info);

/*
 * Opens the device and attaches the region (GPU_AES_IOC_SETUP), which the
 * kernel then fills in; @info is what gpu_aes_transport_dev_info() said,
 * @served the algorithms the backend serves (GPU_AES_ALG_BIT()): the
 * module is asked for those of them it has (r->algs after).
 * Errors are logged with what to do about them; returns -errno.
 */
int gpu_aes_transport_dev_open(const char *path, const struct gpu_aes_info *info,
			       uint32_t served, struct gpu_aes_region *r,
			       struct gpu_aes_transport **out);

/*
 * In-process: the producer rings doorbell_fd (an eventfd the transport
 * creates; see gpu_aes_transport_inproc_doorbell) when it sees
 * GPU_AES_HELPER_NEED_WAKEUP, and the core calls reap(arg, qid) where the
 * kernel would be entered with GPU_AES_IOC_COMPLETE.
 */
int gpu_aes_transport_inproc_open(int (*reap)(void *arg, uint32_t qid),
				  void *arg, struct gpu_aes_transport **out);
/* The eventfd the producer writes to wake the core. */
int gpu_aes_transport_inproc_doorbell(struct gpu_aes_transport *t);
/*
 * What the kernel's poll() handler does, for a producer that needs it
 * (kring: gpu_aes_ring_pending(), which re-arms a doorbell rung once per
 * sleep): wait calls it before it sleeps and does not sleep when it
 * returns nonzero.
 */
void gpu_aes_transport_inproc_set_poll(struct gpu_aes_transport *t,
				       int (*poll)(void *arg));

#endif /* GPU_AES_HELPER_TRANSPORT_H */
