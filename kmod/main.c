// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - gpu_aes.ko: module parameters, init and exit.
 *
 * AES modes (alg.c's table: skciphers and the gcm AEAD) for the kernel
 * crypto API, computed by a userspace helper (gpu-aes-helper, CUDA)
 * through a shared ring, with a CPU fallback for small requests, a
 * missing or slow helper and a full ring.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "aead.h"
#include "chardev.h"
#include "cost.h"
#include "dispatch.h"
#include "keys.h"
#include "params.h"
#include "ring.h"
#include "skcipher.h"
#include "stats.h"

/*
 * 1500 beats every x86 AES implementation: aesni's skciphers (400/401),
 * 6.12's VAES xts and gcm (at most 800), and any template instance over
 * them, whose priority is at most the average of its parts.  ecb and ctr
 * register at it, xts and gcm one above: a template instance over our own
 * ecb or ctr takes their priority (xts(ecb-aes-gpu) exactly 1500, once
 * someone asks for "xts(ecb(aes))"), and registered later it would win a
 * tie against the native driver.
 */
int gpu_aes_priority = 1500;
module_param_named(priority, gpu_aes_priority, int, 0444);
MODULE_PARM_DESC(priority,
		 "cra_priority of ecb- and ctr-aes-gpu; xts- and gcm-aes-gpu get one more (default 1500; read at load)");

unsigned int gpu_aes_ring_min_bytes = GPU_AES_DEFAULT_RING_MIN_BYTES;
module_param_named(ring_min_bytes, gpu_aes_ring_min_bytes, uint, 0644);
MODULE_PARM_DESC(ring_min_bytes,
		 "requests (gcm: text plus associated data) shorter than this run on the CPU fallback (default 256)");

unsigned int gpu_aes_ring_max_bytes = GPU_AES_DEFAULT_RING_MAX_BYTES;
module_param_named(ring_max_bytes, gpu_aes_ring_max_bytes, uint, 0644);
MODULE_PARM_DESC(ring_max_bytes,
		 "requests longer than this (or than a quarter of the data area) run on the CPU fallback (default 1048576)");

unsigned int gpu_aes_timeout_ms = GPU_AES_DEFAULT_TIMEOUT_MS;
module_param_named(timeout_ms, gpu_aes_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms,
		 "deadline of a ring or backlogged request before it is recomputed on the CPU, ms (default 1000, min 1)");

int gpu_aes_dispatch = GPU_AES_DISPATCH_AUTO;

static const char *const gpu_aes_dispatch_names[] = {
	[GPU_AES_DISPATCH_AUTO] = "auto",
	[GPU_AES_DISPATCH_RING] = "ring",
	[GPU_AES_DISPATCH_CPU] = "cpu",
};

static int gpu_aes_dispatch_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(gpu_aes_dispatch_names, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(*(int *)kp->arg, i);
	return 0;
}

static int gpu_aes_dispatch_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  gpu_aes_dispatch_names[READ_ONCE(*(int *)kp->arg)]);
}

static const struct kernel_param_ops gpu_aes_dispatch_ops = {
	.set = gpu_aes_dispatch_set,
	.get = gpu_aes_dispatch_get,
};

module_param_cb(dispatch, &gpu_aes_dispatch_ops, &gpu_aes_dispatch, 0644);
/* module_param_cb() names no type: modinfo shows this one. */
__MODULE_PARM_TYPE(dispatch, "string");
MODULE_PARM_DESC(dispatch,
		 "where requests run: auto (by measured cost and load), ring or cpu (default auto)");

static int __init gpu_aes_init(void)
{
	int ret;

	gpu_aes_alg_init();
	ret = gpu_aes_ring_init(&gpu_aes_ring, &gpu_aes_dispatch_observer);
	if (ret)
		return ret;
	/*
	 * The algorithms first: registration finds which modes this kernel
	 * has a CPU driver for, and the counters' names, the device's INFO
	 * and the helper's SETUP list only those.  Until the device exists
	 * their self-tests and first users run on the CPU driver.
	 */
	ret = gpu_aes_skcipher_register();
	if (ret)
		goto err_ring;
	ret = gpu_aes_aead_register();
	if (ret)
		goto err_skcipher;
	gpu_aes_stats_sysfs_init();
	ret = gpu_aes_chardev_register();
	if (ret)
		goto err_aead;
	return 0;

err_aead:
	gpu_aes_aead_unregister();
err_skcipher:
	gpu_aes_skcipher_unregister();
err_ring:
	gpu_aes_ring_exit(&gpu_aes_ring);
	return ret;
}

static void __exit gpu_aes_exit(void)
{
	gpu_aes_chardev_unregister();
	gpu_aes_aead_unregister();
	gpu_aes_skcipher_unregister();
	/*
	 * An open /dev/gpu_aes holds a module reference, so only a region
	 * attached in-kernel (KUnit) can still be here; a no-op otherwise.
	 */
	gpu_aes_ring_detach(&gpu_aes_ring);
	gpu_aes_ring_exit(&gpu_aes_ring);
}

module_init(gpu_aes_init);
module_exit(gpu_aes_exit);

MODULE_DESCRIPTION("AES modes of the crypto API offloaded to a userspace GPU helper");
MODULE_LICENSE("GPL");
MODULE_VERSION(GPU_AES_VERSION);
/* The crypto API's aliases are with each algorithm's descriptor (alg.c). */
