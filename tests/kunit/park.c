// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parking threads inside the ring's copies (park.h).
 */
#include <linux/bottom_half.h>
#include <linux/kthread.h>
#include <linux/preempt.h>

#include "park.h"

struct gt_park gt_park;

static void gt_park_hook(struct gpu_aes_ring *ring, bool out)
{
	if (out != gt_park.out)
		return;
	atomic_inc(&gt_park.copies);
	if (softirq_count()) {
		atomic_inc(&gt_park.atomic_copies);
		return;
	}
	if (atomic_inc_return(&gt_park.hits) != 1)
		return;
	complete(&gt_park.entered);
	wait_for_completion(&gt_park.go);
}

static void gt_hook_remove(void *data)
{
	/* Never leave a parked thread behind, even after a failed assert. */
	complete_all(&gt_park.go);
	WRITE_ONCE(gpu_aes_ring.mid_copy, NULL);
}

void gt_hook_set(struct kunit *test,
		 void (*fn)(struct gpu_aes_ring *ring, bool out))
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_hook_remove,
							NULL), 0);
	WRITE_ONCE(gpu_aes_ring.mid_copy, fn);
}

void gt_park_at(struct kunit *test, bool out)
{
	gt_park.out = out;
	atomic_set(&gt_park.hits, 0);
	atomic_set(&gt_park.atomic_copies, 0);
	atomic_set(&gt_park.copies, 0);
	init_completion(&gt_park.entered);
	init_completion(&gt_park.go);
	gt_hook_set(test, gt_park_hook);
}

bool gt_park_wait(void)
{
	return wait_for_completion_timeout(&gt_park.entered, GT_WAIT);
}

void gt_park_release(void)
{
	complete(&gt_park.go);
}

static int gt_call_fn(void *data)
{
	struct gt_call *c = data;

	if (c->r)
		c->ret = gt_req_start(c->r, false);
	else if (c->detach)
		gpu_aes_ring_detach(&gpu_aes_ring);
	else
		c->ret = gpu_aes_ring_reap(&gpu_aes_ring, 0);
	complete(&c->done);
	return 0;
}

struct gt_call *gt_call_start(struct kunit *test, struct gt_req *r,
			      bool detach)
{
	struct gt_call *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct task_struct *k;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->r = r;
	c->detach = detach;
	init_completion(&c->done);
	k = kthread_run(gt_call_fn, c, "gt_call");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	return c;
}

bool gt_call_wait(struct gt_call *c)
{
	return wait_for_completion_timeout(&c->done, GT_WAIT);
}
