/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dispatch.h - where a request runs: the ring or the CPU driver we
 * displace.  ring_min_bytes, ring_max_bytes, MAY_BACKLOG and an attached
 * helper bound it; dispatch=ring and dispatch=cpu force it; dispatch=auto
 * (the default) asks the cost model (cost.h), whose rules are policy.h's.
 */
#ifndef GPU_AES_DISPATCH_H
#define GPU_AES_DISPATCH_H

#include <linux/types.h>

#include "job.h"
#include "policy.h"

struct attribute_group;
struct gpu_aes_ring;

/* The dispatch parameter (main.c), read on every request. */
extern int gpu_aes_dispatch;

/**
 * gpu_aes_route() - run a request where the policy says.
 * @ring: the ring.
 * @job: the request's job (gpu_aes_job_init()).
 * @bytes: the bytes the policy weighs (GCM: text plus associated data).
 *
 * Requests under ring_min_bytes or over ring_max_bytes, without
 * CRYPTO_TFM_REQ_MAY_BACKLOG, with no helper attached, or that the policy
 * sends to the CPU run there now; the rest go to gpu_aes_ring_submit(),
 * and run on the CPU now if it gives them back.  Counts the decision and
 * any fallback with its reason; times a sample of both paths.
 *
 * Return: -EINPROGRESS or -EBUSY (the callback will report), or the
 * result of running the request on the CPU.
 */
int gpu_aes_route(struct gpu_aes_ring *ring, struct gpu_aes_job *job,
		  u64 bytes);

/**
 * gpu_aes_dispatch_note_cpu_driver() - the CPU driver a tfm falls back to.
 * @desc: its algorithm.
 * @driver: the fallback's driver name, as the crypto API gave it.
 *
 * The last one seen per algorithm is what dispatch/cpu_drivers shows.
 */
void gpu_aes_dispatch_note_cpu_driver(const struct gpu_aes_alg_desc *desc,
				      const char *driver);

/**
 * gpu_aes_dispatch_cpu_drivers_show() - the CPU drivers, for sysfs.
 * @buf: a page.
 *
 * One line per algorithm: its short name and the driver its tfms fall
 * back to ("-" before any tfm of it was made).
 *
 * Return: bytes written.
 */
ssize_t gpu_aes_dispatch_cpu_drivers_show(char *buf);

/* /sys/class/misc/gpu_aes/dispatch/ (dispatch_sysfs.c). */
extern const struct attribute_group gpu_aes_dispatch_group;

#endif /* GPU_AES_DISPATCH_H */
