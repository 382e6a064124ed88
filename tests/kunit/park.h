/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Holding a thread inside the ring: the suites park a submitter or a
 * reaper in the middle of its copy (the ring's mid_copy hook) from a
 * kthread, and look at the ring while it sits there.
 */
#ifndef GPU_AES_KUNIT_PARK_H
#define GPU_AES_KUNIT_PARK_H

#include <kunit/test.h>
#include <linux/completion.h>

#include "ring.h"
#include "test_util.h"

/* Bound on every wait for a parked thread: against a hang only. */
#define GT_WAIT		(60 * HZ)

/*
 * Where the mid_copy hook parks the first copy of the kind asked for.
 * A copy made with BHs disabled (an admitted request's, see
 * gpu_aes_queue_post_admitted()) cannot sleep: it is counted in
 * @atomic_copies and never parked.
 */
struct gt_park {
	bool out;
	atomic_t hits;
	atomic_t atomic_copies;
	atomic_t copies;
	struct completion entered;
	struct completion go;
};

extern struct gt_park gt_park;

/* Install @fn as the ring's mid_copy hook until the test ends. */
void gt_hook_set(struct kunit *test,
		 void (*fn)(struct gpu_aes_ring *ring, bool out));
/* Park the first copy-in (@out false) or copy-out (@out true) from now. */
void gt_park_at(struct kunit *test, bool out);
/* Wait until a thread is parked; false after GT_WAIT. */
bool gt_park_wait(void);
/* Let the parked thread go on. */
void gt_park_release(void);

/* A kthread running one call, so the test can park it and go on. */
struct gt_call {
	struct gt_req *r;	/* submit r, or ... */
	bool detach;		/* ... detach the ring, or reap it */
	int ret;
	struct completion done;
};

struct gt_call *gt_call_start(struct kunit *test, struct gt_req *r,
			      bool detach);
/* Wait for the call to return; false after GT_WAIT. */
bool gt_call_wait(struct gt_call *c);

#endif /* GPU_AES_KUNIT_PARK_H */
