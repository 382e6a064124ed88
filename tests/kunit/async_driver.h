/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An asynchronous CPU driver of ctr(aes) and gcm(aes), for the suite that
 * checks gpu_aes passes a consumer what its displaced driver answered.
 * It behaves as x86's SIMD wrappers do when the FPU is not usable: each
 * request is handed to a worker (cryptd's role) that runs the kernel's
 * synchronous implementation and calls the request's callback, with
 * -EBUSY and a later -EINPROGRESS notice when it "backlogs" one.
 */
#ifndef GPU_AES_KUNIT_ASYNC_DRIVER_H
#define GPU_AES_KUNIT_ASYNC_DRIVER_H

#include <linux/atomic.h>
#include <linux/types.h>

/* Above every software ctr(aes)/gcm(aes), below gpu_aes (priority 1500). */
#define GT_ASYNC_PRIORITY	1400
#define GT_ASYNC_CTR_DRIVER	"ctr-aes-kunit-async"
#define GT_ASYNC_GCM_DRIVER	"gcm-aes-kunit-async"

/**
 * enum gt_async_mode - how the driver answers a request.
 * @GT_ASYNC_SYNC: computes it before it returns (0 or its error).
 * @GT_ASYNC_DEFER: -EINPROGRESS; the worker computes and calls back once.
 * @GT_ASYNC_BUSY: a full queue: -EBUSY where the request may be
 *	backlogged (then -EINPROGRESS and the result from the worker),
 *	-ENOSPC where it may not (no callback).
 */
enum gt_async_mode {
	GT_ASYNC_SYNC,
	GT_ASYNC_DEFER,
	GT_ASYNC_BUSY,
};

/**
 * struct gt_async - the driver's settings and what it saw.
 * @mode: enum gt_async_mode, for every request from now on.
 * @calls: requests it was given.
 * @deferred: requests handed to the worker.
 * @last_flags: CRYPTO_TFM_REQ_* flags of the last request.
 */
struct gt_async {
	int mode;
	atomic_t calls;
	atomic_t deferred;
	u32 last_flags;
};

extern struct gt_async gt_async;

/* Register both algorithms (mode SYNC), once their self-tests passed. */
int gt_async_register(void);
/* Unregister them; every tfm of theirs must have been freed. */
void gt_async_unregister(void);
/* Wait until every deferred request has called back. */
void gt_async_drain(void);

#endif /* GPU_AES_KUNIT_ASYNC_DRIVER_H */
