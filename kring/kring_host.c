// SPDX-License-Identifier: GPL-2.0-only
/* kring_host.c - the helper in-process over kring (kring_host.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../helper/src/region.h"
#include "../helper/src/transport.h"
#include "kring.h"
#include "kring_host.h"

struct kring_host {
	struct gpu_aes_region region;
	const struct gpu_aes_backend_ops *ops;
	struct gpu_aes_backend *be;
	struct gpu_aes_transport *t;
	struct gpu_aes_core *core;
	pthread_t thread;
	int running;
	int attached;
	int doorbell;
	int core_err;
};

/* Where the kernel would wake the helper's poll(). */
static void host_doorbell(void *arg)
{
	struct kring_host *h = arg;
	uint64_t one = 1;
	ssize_t n = write(h->doorbell, &one, sizeof(one));

	(void)n;	/* a full counter is still readable: the wake is kept */
}

/* GPU_AES_IOC_COMPLETE from a helper thread. */
static int host_reap(void *arg, uint32_t qid)
{
	int n;

	(void)arg;
	n = kring_reap(qid);
	/* A detached ring (the helper was killed) has nothing to reap. */
	return n < 0 && n != -ENXIO ? n : 0;
}

/* The helper's poll() entering the kernel's handler before it sleeps. */
static int host_poll(void *arg)
{
	(void)arg;
	return kring_pending();
}

/*
 * The helper's CPU for the cost it publishes: the process less the threads
 * that submit (kring_set_cpu()), as if the helper were a process apart.
 */
static uint64_t host_cpu_ns(void *arg)
{
	struct timespec ts;
	uint64_t all, consumers = kring_submitters_cpu_ns();

	(void)arg;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	all = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return all > consumers ? all - consumers : 0;
}

static void *host_main(void *arg)
{
	struct kring_host *h = arg;

	/* The helper's main thread, in-process: its core loop. */
	pthread_setname_np(pthread_self(), "gpuaes-core");

	h->core_err = gpu_aes_core_run(h->core);
	return NULL;
}

static void host_free(struct kring_host *h)
{
	gpu_aes_core_destroy(h->core);
	if (h->be)
		h->ops->close(h->be);
	if (h->attached)
		kring_detach();
	kring_set_doorbell(NULL, NULL);
	if (h->t)
		h->t->ops->close(h->t);
	gpu_aes_region_free(&h->region);
	free(h);
}

int kring_host_start(const struct kring_host_config *cfg,
		     struct kring_host **out)
{
	struct gpu_aes_core_config core;
	struct gpu_aes_geometry g;
	struct gpu_aes_setup s;
	struct kring_host *h;
	int err;

	err = gpu_aes_region_geometry(cfg->nr_queues, cfg->queue_entries,
				      cfg->nr_keys, cfg->queue_data_size, &g);
	if (err)
		return err;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->ops = cfg->ops;
	err = gpu_aes_region_alloc(&g, &h->region, NULL);
	if (err)
		goto fail;
	memset(&s, 0, sizeof(s));
	s.abi_version = GPU_AES_ABI_VERSION;
	s.features = GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS;
	s.algs = h->ops->algs;
	s.geo = g;
	s.region_addr = (uint64_t)(uintptr_t)h->region.base;
	s.region_size = h->region.size;
	err = gpu_aes_transport_inproc_open(host_reap, h, &h->t);
	if (err)
		goto fail;
	h->doorbell = gpu_aes_transport_inproc_doorbell(h->t);
	gpu_aes_transport_inproc_set_poll(h->t, host_poll);
	kring_set_doorbell(host_doorbell, h);
	err = kring_attach(h->region.base, &s);
	if (err)
		goto fail;
	h->region.algs = h->region.hdr->algs;
	h->attached = 1;
	err = h->ops->open(&cfg->backend, &h->region, &h->be);
	if (err) {
		h->be = NULL;
		goto fail;
	}
	core = cfg->core;
	if (!core.cpu_ns)
		core.cpu_ns = host_cpu_ns;
	err = gpu_aes_core_create(&h->region, h->ops, h->be, h->t, &core,
				  &h->core);
	if (err)
		goto fail;
	err = -pthread_create(&h->thread, NULL, host_main, h);
	if (err)
		goto fail;
	h->running = 1;
	*out = h;
	return 0;
fail:
	host_free(h);
	return err;
}

static void host_join(struct kring_host *h)
{
	if (!h->running)
		return;
	gpu_aes_core_stop(h->core);
	pthread_join(h->thread, NULL);
	h->running = 0;
}

void kring_host_stop(struct kring_host *h)
{
	host_join(h);
	host_free(h);
}

void kring_host_kill(struct kring_host *h)
{
	kring_detach();
	h->attached = 0;
	host_join(h);
	host_free(h);
}

const struct gpu_aes_region *kring_host_region(const struct kring_host *h)
{
	return &h->region;
}

struct gpu_aes_backend *kring_host_backend(const struct kring_host *h)
{
	return h->be;
}

void kring_host_core_stats(struct kring_host *h, struct gpu_aes_core_stats *s)
{
	gpu_aes_core_get_stats(h->core, s);
}
