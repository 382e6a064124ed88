// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "transport.h"

struct inproc {
	struct gpu_aes_transport t;	/* first: the core holds &t */
	int doorbell;
	int (*reap)(void *arg, uint32_t qid);
	int (*poll)(void *arg);
	void *arg;
};

static int inproc_wait(struct gpu_aes_transport *t, int stop_fd,
		    int timeout_ms)
{
	struct inproc *ip = (struct inproc *)t;
	struct pollfd pfd[2] = {
		{ .fd = ip->doorbell, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	uint64_t v;

	/* Past this look, whatever the producer posts rings the eventfd. */
	if (ip->poll && ip->poll(ip->arg))
		return 0;
	if (poll(pfd, 2, timeout_ms) < 0)
		return errno == EINTR ? 0 : -errno;
	/* Reset the counter so the next poll() sleeps; EAGAIN is harmless. */
	if (pfd[0].revents & POLLIN &&
	    read(ip->doorbell, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

static int inproc_notify(struct gpu_aes_transport *t, uint32_t qid)
{
	struct inproc *ip = (struct inproc *)t;

	return ip->reap(ip->arg, qid);
}

static void inproc_close(struct gpu_aes_transport *t)
{
	struct inproc *ip = (struct inproc *)t;

	close(ip->doorbell);
	free(ip);
}

static const struct gpu_aes_transport_ops inproc_ops = {
	.wait = inproc_wait,
	.notify = inproc_notify,
	.close = inproc_close,
};

int gpu_aes_transport_inproc_open(int (*reap)(void *arg, uint32_t qid),
				  void *arg, struct gpu_aes_transport **out)
{
	struct inproc *ip = calloc(1, sizeof(*ip));

	if (!ip)
		return -ENOMEM;
	ip->doorbell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ip->doorbell < 0) {
		int err = -errno;

		free(ip);
		return err;
	}
	ip->t.ops = &inproc_ops;
	ip->t.name = "in-process";
	ip->reap = reap;
	ip->arg = arg;
	*out = &ip->t;
	return 0;
}

int gpu_aes_transport_inproc_doorbell(struct gpu_aes_transport *t)
{
	return ((struct inproc *)t)->doorbell;
}

void gpu_aes_transport_inproc_set_poll(struct gpu_aes_transport *t,
				       int (*poll)(void *arg))
{
	((struct inproc *)t)->poll = poll;
}
