// SPDX-License-Identifier: GPL-2.0-only
/*
 * The region layout (uapi/gpu_aes.h, gpu_aes_layout()) for every page size
 * the ABI accepts, 4 KiB to 64 KiB: arm64 kernels run with 4K, 16K or 64K
 * pages (Grace's with 64K), and both sides compute the same layout from
 * GPU_AES_IOC_INFO's page size.  Each section must start on a page, fit
 * before the next and leave the header its GPU_AES_HDR_SIZE bytes; the
 * helper's own region (gpu_aes_region_alloc()) must sit on this process's
 * pages at those offsets.  make check-arm64 also runs this under
 * qemu-aarch64 with 64K pages, where the helper's own page is 65536.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "region.h"

struct shape {
	uint32_t queues, entries, keys;
	uint64_t qdata;
};

static const struct shape shapes[] = {
	{ 1, GPU_AES_MIN_ENTRIES, 1, GPU_AES_MIN_QUEUE_DATA },
	{ 2, 1024, 1024, 4U << 20 },		/* the helper's default on 2 CPUs */
	{ 3, 32, 7, 2U << 20 },
	{ GPU_AES_MAX_QUEUES, GPU_AES_MAX_ENTRIES, GPU_AES_MAX_KEYS,
	  GPU_AES_MAX_DATA / GPU_AES_MAX_QUEUES },
};

static int aligned(uint64_t v, uint64_t page)
{
	return v % page == 0;
}

TEST(layout_every_page_size_sections_on_pages)
{
	uint32_t page;
	size_t i;

	for (page = GPU_AES_MIN_PAGE; page <= GPU_AES_MAX_PAGE; page *= 2) {
		for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			const struct shape *s = &shapes[i];
			struct gpu_aes_geometry g = {
				.nr_queues = s->queues,
				.queue_entries = s->entries,
				.nr_keys = s->keys, .page_size = page,
				.queue_data_size = s->qdata,
			};
			struct gpu_aes_layout l;
			uint64_t qend;

			CHECK(gpu_aes_geometry_valid(&g));
			gpu_aes_layout(&g, &l);
			/* The header keeps its size; queues start on a page. */
			CHECK_EQ(l.queues_off, page > GPU_AES_HDR_SIZE ?
				 page : GPU_AES_HDR_SIZE);
			CHECK(aligned(l.queue_stride, page));
			CHECK_EQ(l.sq_off, sizeof(struct gpu_aes_queue_hdr));
			CHECK_EQ(l.cq_off, l.sq_off + (uint64_t)s->entries *
				 sizeof(struct gpu_aes_sqe));
			qend = l.cq_off + (uint64_t)s->entries *
			       sizeof(struct gpu_aes_cqe);
			CHECK(qend <= l.queue_stride);
			/* No more than one page of padding per queue. */
			CHECK(l.queue_stride - qend < page);
			CHECK_EQ(l.keys_off, l.queues_off +
				 (uint64_t)s->queues * l.queue_stride);
			CHECK(aligned(l.keys_off, page));
			CHECK(aligned(l.data_off, page));
			CHECK(l.data_off >= l.keys_off + (uint64_t)s->keys *
			      sizeof(struct gpu_aes_key));
			CHECK(l.data_off - l.keys_off -
			      (uint64_t)s->keys * sizeof(struct gpu_aes_key) <
			      page);
			CHECK_EQ(l.data_size, (uint64_t)s->queues * s->qdata);
			CHECK_EQ(l.region_size, l.data_off + l.data_size);
			CHECK(aligned(l.region_size, page));
		}
	}
}

TEST(layout_page_size_rules)
{
	struct gpu_aes_geometry g = {
		.nr_queues = 1, .queue_entries = 16, .nr_keys = 1,
		.page_size = 65536, .queue_data_size = 1U << 20,
	};

	CHECK(gpu_aes_geometry_valid(&g));
	/* A data slice must be whole pages of the kernel's size. */
	g.queue_data_size = (1U << 20) + 4096;
	CHECK(!gpu_aes_geometry_valid(&g));
	g.page_size = 4096;
	CHECK(gpu_aes_geometry_valid(&g));
	g.queue_data_size = 1U << 20;
	/* Powers of two from 4 KiB to 64 KiB, nothing else. */
	g.page_size = 2048;
	CHECK(!gpu_aes_geometry_valid(&g));
	g.page_size = 131072;
	CHECK(!gpu_aes_geometry_valid(&g));
	g.page_size = 3 * 4096;
	CHECK(!gpu_aes_geometry_valid(&g));
	g.page_size = 16384;
	CHECK(gpu_aes_geometry_valid(&g));
}

/* The helper's region on this process's pages, at the layout's offsets. */
TEST(layout_helper_region_on_own_pages)
{
	long page = sysconf(_SC_PAGESIZE);
	struct gpu_aes_geometry g;
	struct gpu_aes_region r;
	struct gpu_aes_layout l;
	uint8_t *base;
	uint32_t q;

	CHECK_EQ(gpu_aes_region_geometry(2, 64, 16, 1U << 20, &g), 0);
	CHECK_EQ(g.page_size, page);
	CHECK_EQ(gpu_aes_region_alloc(&g, &r, NULL), 0);
	gpu_aes_layout(&g, &l);
	base = r.base;
	CHECK_EQ((uintptr_t)base % (uintptr_t)page, 0);
	CHECK_EQ(r.size, l.region_size);
	CHECK_EQ(r.page_size, page);
	for (q = 0; q < 2; q++) {
		CHECK((uint8_t *)r.queues[q].qhdr ==
		      base + l.queues_off + q * l.queue_stride);
		CHECK((uint8_t *)r.queues[q].sq ==
		      base + l.queues_off + q * l.queue_stride + l.sq_off);
		CHECK((uint8_t *)r.queues[q].cq ==
		      base + l.queues_off + q * l.queue_stride + l.cq_off);
	}
	CHECK((uint8_t *)r.keys == base + l.keys_off);
	CHECK(r.data == base + l.data_off);
	/* Every byte of the region is ours to write (ASan watches). */
	memset(base, 0x5a, r.size);
	gpu_aes_region_init_hdr(&r);
	CHECK_EQ(r.hdr->page_size, page);
	CHECK_EQ(r.hdr->queues_off, l.queues_off);
	CHECK_EQ(r.hdr->data_off, l.data_off);
	gpu_aes_region_free(&r);
}

/*
 * Huge pages for the region: 2 MiB ones (4K pages) always, as before
 * arm64; 32 MiB (16K pages) and 512 MiB (64K pages) PMDs only for a
 * region that holds one, so the helper's few-MiB region on a Grace kernel
 * gets base pages and says so, instead of "transparent huge pages" that
 * THP would never give it.
 */
TEST(layout_huge_pages_only_where_one_fits)
{
	CHECK(gpu_aes_region_huge_fits(4096, 2U << 20));
	CHECK(gpu_aes_region_huge_fits(9U << 20, 2U << 20));
	CHECK(!gpu_aes_region_huge_fits(9U << 20, 32U << 20));
	CHECK(gpu_aes_region_huge_fits(32U << 20, 32U << 20));
	CHECK(!gpu_aes_region_huge_fits(9U << 20, 512U << 20));
	CHECK(!gpu_aes_region_huge_fits((512U << 20) - 65536, 512U << 20));
	CHECK(gpu_aes_region_huge_fits(1U << 30, 512U << 20));
	CHECK(!gpu_aes_region_huge_fits(9U << 20, 0));
}
