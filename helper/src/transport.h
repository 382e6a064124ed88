/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * transport.h - how the core reaches its producer: the kernel through
 * /dev/gpu_aes (transport_dev.c), a guest's kernel through its agent and
 * its RAM (transport_guest.c) or, in the same process, the kernel's
 * request path built in userspace (kring/, through transport_inproc.c).
 * The rings themselves are the same shared region in every case; a
 * transport only sleeps and rings doorbells.
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

/*
 * A guest's module (transport_guest.c, guest_proto.h): the connection to
 * its agent, which outlives the sessions served through it.  @port is the
 * unix socket of qemu's virtio-serial port, @memory the file that is the
 * guest's RAM (memory-backend-file or /proc/PID/fd/N of a memfd, shared);
 * @lowmem the guest RAM below 4 GiB, 0 for q35's layout.  -errno on
 * failure (logged but for connect()'s own errors, which callers retry).
 */
struct gpu_aes_guest;
int gpu_aes_guest_connect(const char *port, const char *memory,
			  uint64_t lowmem, struct gpu_aes_guest **out);
/* The same over a connected stream @sock and the RAM's @mem_fd (owned). */
int gpu_aes_guest_attach(int sock, int mem_fd, uint64_t lowmem,
			 const char *name, struct gpu_aes_guest **out);
/* Ends a session still served, then closes.  NULL is a no-op. */
void gpu_aes_guest_disconnect(struct gpu_aes_guest *g);

/*
 * Waits for an agent's HELLO (its INFO) and returns it, unchecked.
 * -EINTR when @stop_fd became readable, -EPIPE when qemu closed the port.
 */
int gpu_aes_guest_hello(struct gpu_aes_guest *g, int stop_fd,
			struct gpu_aes_info *info);

/* Answers the HELLO with ERROR @err: this helper will not serve it. */
void gpu_aes_guest_refuse(struct gpu_aes_guest *g, int err);

/*
 * Answers the HELLO with a SETUP for @geo (the served algorithms
 * negotiated as for the device), receives the pages the agent's SETUP
 * pinned, checks them and maps them as *r, then checks the header the
 * guest's kernel wrote.  The transport owns r's mapping: its close()
 * unmaps it (never writing the guest's key table, which is its kernel's)
 * and only then tells the agent its pages are free.  -ECONNRESET when
 * the agent ended the session or began another (call hello again),
 * -EINVAL/-EPROTO for a guest we refuse (it is told), -EINTR, -errno.
 */
int gpu_aes_transport_guest_open(struct gpu_aes_guest *g, int stop_fd,
				 const struct gpu_aes_info *info,
				 uint32_t served,
				 const struct gpu_aes_geometry *geo,
				 struct gpu_aes_region *r,
				 struct gpu_aes_transport **out);

#endif /* GPU_AES_HELPER_TRANSPORT_H */
