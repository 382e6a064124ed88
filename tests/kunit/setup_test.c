// SPDX-License-Identifier: GPL-2.0-only
/*
 * GPU_AES_IOC_SETUP's checks (gpu_aes_setup_check(), gpu_aes_ring_attach()):
 * every field the helper passes is validated, a second helper is refused
 * without disturbing the first, and the header the kernel writes is the
 * layout both sides compute.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>

#include "fake_helper.h"
#include "ring.h"
#include "test_util.h"

static void gt_setup_fill(struct gpu_aes_setup *s, u32 queues, u32 entries,
			  u32 keys, u64 data)
{
	struct gpu_aes_geometry g = {
		.nr_queues = queues, .queue_entries = entries, .nr_keys = keys,
		.page_size = PAGE_SIZE, .queue_data_size = data,
	};
	struct gpu_aes_layout l;

	memset(s, 0, sizeof(*s));
	s->abi_version = GPU_AES_ABI_VERSION;
	s->features = GPU_AES_FEAT_NEED_WAKEUP;
	s->geo = g;
	gpu_aes_layout(&g, &l);
	s->region_size = l.region_size;
}

struct gt_bad_setup {
	const char *what;
	u32 queues, entries, keys;
	u64 data;
};

/* Each consistent in itself (region_size matches), each out of limits. */
static const struct gt_bad_setup gt_bad_sizes[] = {
	{ "no queues", 0, 16, 16, SZ_1M },
	{ "too many queues", GPU_AES_MAX_QUEUES + 1, 16, 16, SZ_1M },
	{ "no entries", 1, 0, 16, SZ_1M },
	{ "too few entries", 1, GPU_AES_MIN_ENTRIES / 2, 16, SZ_1M },
	{ "entries not a power of two", 1, 24, 16, SZ_1M },
	{ "too many entries", 1, GPU_AES_MAX_ENTRIES * 2, 16, SZ_1M },
	{ "no keys", 1, 16, 0, SZ_1M },
	{ "too many keys", 1, 16, GPU_AES_MAX_KEYS + 1, SZ_1M },
	{ "no data", 1, 16, 16, 0 },
	{ "too little data", 1, 16, 16, GPU_AES_MIN_QUEUE_DATA - PAGE_SIZE },
	{ "data not whole pages", 1, 16, 16, SZ_1M + 64 },
	{ "too much data", 1, 16, 16, (u64)GPU_AES_MAX_DATA + PAGE_SIZE },
	{ "too much data in all", 2, 16, 16, GPU_AES_MAX_DATA / 2 + PAGE_SIZE },
};

static void gpu_aes_setup_check_rejects(struct kunit *test)
{
	struct gpu_aes_ring *ring = &gpu_aes_ring;
	struct gpu_aes_setup s;
	unsigned int i;

	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), 0);
	gt_setup_fill(&s, 1, GPU_AES_MAX_ENTRIES, GPU_AES_MAX_KEYS,
		      GPU_AES_MAX_DATA);
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), 0);
	/* More queues than the kernel has room for (its CPUs). */
	gt_setup_fill(&s, ring->max_queues + 1, 16, 16, SZ_1M);
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);

	for (i = 0; i < ARRAY_SIZE(gt_bad_sizes); i++) {
		gt_setup_fill(&s, gt_bad_sizes[i].queues,
			      gt_bad_sizes[i].entries, gt_bad_sizes[i].keys,
			      gt_bad_sizes[i].data);
		KUNIT_EXPECT_EQ_MSG(test, gpu_aes_setup_check(ring, &s), -EINVAL,
				    "%s", gt_bad_sizes[i].what);
	}

	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	s.abi_version = GPU_AES_ABI_VERSION + 1;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	s.abi_version = 2;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	s.features |= 1U << 31;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	/* Another page size than the kernel's: the layout would differ. */
	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	s.geo.page_size = PAGE_SIZE * 2;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(s.reserved); i++) {
		gt_setup_fill(&s, 1, 16, 16, SZ_1M);
		s.reserved[i] = 1;
		KUNIT_EXPECT_EQ_MSG(test, gpu_aes_setup_check(ring, &s), -EINVAL,
				    "reserved[%u]", i);
	}
	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	s.reserved0 = 1;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	s.region_size += PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	s.region_size -= 2 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
}

/*
 * GPU_AES_FEAT_ALGS: asked for, the set must name an algorithm the module
 * posts (bits it does not know are ignored, for a newer helper's sake);
 * not asked for, the field is reserved.
 */
static void gpu_aes_setup_check_algs(struct kunit *test)
{
	const u32 ecb = GPU_AES_ALG_BIT(GPU_AES_ALG_ECB);
	struct gpu_aes_ring *ring = &gpu_aes_ring;
	struct gpu_aes_setup s;

	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	s.algs = ecb;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	s.features |= GPU_AES_FEAT_ALGS;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), 0);
	s.algs = ecb | 1U << 31;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), 0);
	s.algs = 1U << 31 | GPU_AES_ALG_BIT(0);
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	s.algs = 0;
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), -EINVAL);
	s.algs = gpu_aes_alg_set();
	KUNIT_EXPECT_EQ(test, gpu_aes_setup_check(ring, &s), 0);
}

/* A helper that does not negotiate serves what ABI version 3 had. */
static void gpu_aes_setup_algs_v3_helper(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup_algs(test, FAKE_HELPER_ALGS_V3);

	KUNIT_EXPECT_EQ(test, h->hdr->features, GPU_AES_FEAT_NEED_WAKEUP);
	KUNIT_EXPECT_EQ(test, h->hdr->algs, GPU_AES_ALGS_V3);
	KUNIT_EXPECT_EQ(test, gpu_aes_ring.algs, GPU_AES_ALGS_V3);
}

/*
 * An algorithm the helper does not serve runs on the CPU, synchronously,
 * counted as fallback_unsupported and by no dispatch decision; the others
 * still go to the ring.
 */
static void gpu_aes_setup_algs_unserved_on_cpu(struct kunit *test)
{
	const u32 ecb = GPU_AES_ALG_BIT(GPU_AES_ALG_ECB);
	struct fake_helper *h = gt_ring_setup_algs(test, ecb | 1U << 31);
	struct gt_tfm *tc = gt_tfm_new(test, true, 16);
	struct gt_tfm *te = gt_tfm_new(test, false, 16);
	struct gt_stats st;
	struct gt_req *r;

	KUNIT_EXPECT_EQ(test, h->hdr->features,
			GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS);
	KUNIT_EXPECT_EQ(test, h->hdr->algs, ecb);
	gt_stats_snap(&st);
	r = gt_req_new(test, tc, 4096, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(r, false), 0);
	gt_req_expect_done(test, r);
	r = gt_req_new(test, tc, 64, GT_BL);
	KUNIT_EXPECT_EQ(test, gt_req_start(r, true), 0);
	gt_req_expect_done(test, r);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&st,
					     GPU_AES_STAT_FALLBACK_UNSUPPORTED), 2);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&st, GPU_AES_STAT_FALLBACK_POLICY),
			0);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&st,
					     GT_RING_STAT(GPU_AES_ALG_CTR)), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&h->sqes), 0);

	r = gt_req_new(test, te, 4096, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, r);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&st,
					     GT_RING_STAT(GPU_AES_ALG_ECB)), 1);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&st,
					     GPU_AES_STAT_FALLBACK_UNSUPPORTED), 2);
}

static void gt_vfree(void *p)
{
	vfree(p);
}

static void gpu_aes_setup_attach(struct kunit *test)
{
	struct fake_helper *h = gt_ring_setup(test, 32);
	struct gpu_aes_region_hdr *hdr = h->hdr;
	struct gt_tfm *t = gt_tfm_new(test, true, 16);
	struct gpu_aes_setup s;
	struct gt_stats st;
	struct gt_req *r;
	void *other;

	/* The header says what both sides computed. */
	KUNIT_EXPECT_EQ(test, hdr->magic, GPU_AES_MAGIC);
	KUNIT_EXPECT_EQ(test, hdr->abi_version, GPU_AES_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, hdr->nr_queues, 1);
	KUNIT_EXPECT_EQ(test, hdr->queue_entries, 32);
	KUNIT_EXPECT_EQ(test, hdr->nr_keys, FAKE_HELPER_KEYS);
	KUNIT_EXPECT_EQ(test, hdr->page_size, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, hdr->algs, gpu_aes_alg_set());
	KUNIT_EXPECT_EQ(test, hdr->region_size, h->layout.region_size);
	KUNIT_EXPECT_EQ(test, hdr->queues_off, h->layout.queues_off);
	KUNIT_EXPECT_EQ(test, hdr->queue_stride, h->layout.queue_stride);
	KUNIT_EXPECT_EQ(test, hdr->keys_off, h->layout.keys_off);
	KUNIT_EXPECT_EQ(test, hdr->data_off, h->layout.data_off);
	KUNIT_EXPECT_EQ(test, hdr->queue_data_size, FAKE_HELPER_DATA);
	KUNIT_EXPECT_EQ(test, h->qhdr->sq_tail, 0);
	KUNIT_EXPECT_EQ(test, h->qhdr->cq_tail, 0);
	/* The 0xa5 the fake filled the region with is gone up to the data. */
	KUNIT_EXPECT_NULL(test, memchr_inv(h->region + sizeof(*hdr), 0,
					   h->layout.data_off - sizeof(*hdr)));

	/* A second region, valid or not, is refused and changes nothing. */
	gt_stats_snap(&st);
	gt_setup_fill(&s, 1, 16, 16, SZ_1M);
	other = vmalloc(s.region_size);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, gt_vfree, other),
			0);
	s.region_addr = (unsigned long)other;
	KUNIT_EXPECT_EQ(test, gpu_aes_ring_attach(&gpu_aes_ring, other, &s),
			-EBUSY);
	s.geo.queue_entries = 24;
	KUNIT_EXPECT_EQ(test, gpu_aes_ring_attach(&gpu_aes_ring, other, &s),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, gt_stats_delta(&st, GPU_AES_STAT_HELPER_ATTACHES),
			0);
	KUNIT_EXPECT_EQ(test, gpu_aes_ring.queue_entries, 32);

	r = gt_req_new(test, t, 3000, GT_BL);
	KUNIT_ASSERT_EQ(test, gt_req_start(r, false), -EINPROGRESS);
	gt_helper_complete_all(test, h, 1);
	gt_req_expect_done(test, r);
}

static struct kunit_case gpu_aes_setup_cases[] = {
	KUNIT_CASE(gpu_aes_setup_check_rejects),
	KUNIT_CASE(gpu_aes_setup_attach),
	KUNIT_CASE(gpu_aes_setup_check_algs),
	KUNIT_CASE(gpu_aes_setup_algs_v3_helper),
	KUNIT_CASE(gpu_aes_setup_algs_unserved_on_cpu),
	{}
};

static struct kunit_suite gpu_aes_setup_suite = {
	.name = "gpu_aes_setup",
	.test_cases = gpu_aes_setup_cases,
};

kunit_test_suite(gpu_aes_setup_suite);
