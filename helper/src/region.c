// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "region.h"
#include "secret.h"

/* A PMD with 4K pages (x86-64, Debian's arm64), if the kernel does not say. */
#define HUGE_SZ_DEFAULT	(2UL << 20)
#define HPAGE_PMD_SIZE	"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"

int gpu_aes_region_geometry(uint32_t nr_queues, uint32_t queue_entries,
			    uint32_t nr_keys, uint64_t queue_data_size,
			    struct gpu_aes_geometry *g)
{
	long page = sysconf(_SC_PAGESIZE);

	memset(g, 0, sizeof(*g));
	g->nr_queues = nr_queues;
	g->queue_entries = queue_entries;
	g->nr_keys = nr_keys;
	g->page_size = page > 0 ? (uint32_t)page : 0;
	g->queue_data_size = queue_data_size;
	return gpu_aes_geometry_valid(g) ? 0 : -EINVAL;
}

static size_t round_up_sz(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/*
 * The kernel's huge page, a PMD: 2 MiB with 4K pages, but 32 MiB with 16K
 * and 512 MiB with the 64K pages of arm64 server kernels (Grace's).
 */
static size_t huge_page_size(void)
{
	unsigned long long v = 0;
	FILE *f = fopen(HPAGE_PMD_SIZE, "re");

	if (f) {
		char buf[32], *end;

		if (fgets(buf, sizeof(buf), f)) {
			errno = 0;
			v = strtoull(buf, &end, 10);
			if (errno || end == buf)
				v = 0;
		}
		fclose(f);
	}
	return v ? (size_t)v : HUGE_SZ_DEFAULT;
}

int gpu_aes_region_huge_fits(size_t region_size, size_t huge)
{
	return huge && (huge <= HUGE_SZ_DEFAULT || huge <= region_size);
}

/*
 * Transparent huge pages need huge-page aligned virtual addresses: map one
 * huge page more than needed and trim both ends.
 */
static void *map_aligned(size_t len, size_t huge)
{
	size_t span = len + huge;
	uint8_t *raw, *start;
	size_t head, tail;

	raw = mmap(NULL, span, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	start = (uint8_t *)round_up_sz((size_t)raw, huge);
	head = (size_t)(start - raw);
	tail = span - head - len;
	if (head)
		munmap(raw, head);
	if (tail)
		munmap(start + len, tail);
	return start;
}

int gpu_aes_region_view(struct gpu_aes_region *r, void *base, size_t map_size,
			const struct gpu_aes_geometry *g)
{
	struct gpu_aes_region_queue *queues;
	struct gpu_aes_layout l;
	uint32_t i;

	if (!gpu_aes_geometry_valid(g))
		return -EINVAL;
	gpu_aes_layout(g, &l);
	if (map_size < l.region_size)
		return -EINVAL;
	queues = calloc(g->nr_queues, sizeof(*queues));
	if (!queues)
		return -ENOMEM;
	for (i = 0; i < g->nr_queues; i++) {
		uint8_t *q = (uint8_t *)base + l.queues_off +
			     (size_t)i * l.queue_stride;

		queues[i].qhdr = (struct gpu_aes_queue_hdr *)q;
		queues[i].sq = (struct gpu_aes_sqe *)(q + l.sq_off);
		queues[i].cq = (struct gpu_aes_cqe *)(q + l.cq_off);
	}
	memset(r, 0, sizeof(*r));
	r->base = base;
	r->size = l.region_size;
	r->map_size = map_size;
	r->hdr = (struct gpu_aes_region_hdr *)base;
	r->queues = queues;
	r->keys = (struct gpu_aes_key *)((uint8_t *)base + l.keys_off);
	r->data = (uint8_t *)base + l.data_off;
	r->nr_queues = g->nr_queues;
	r->queue_entries = g->queue_entries;
	r->nr_keys = g->nr_keys;
	r->page_size = g->page_size;
	r->queue_data_size = g->queue_data_size;
	r->data_size = l.data_size;
	return 0;
}

int gpu_aes_region_alloc(const struct gpu_aes_geometry *g,
			 struct gpu_aes_region *r,
			 enum gpu_aes_region_pages *pages)
{
	enum gpu_aes_region_pages kind = GPU_AES_PAGES_HUGETLB;
	struct gpu_aes_layout l;
	size_t map_size, huge;
	uint8_t *base;
	int err;

	memset(r, 0, sizeof(*r));
	if (!gpu_aes_geometry_valid(g))
		return -EINVAL;
	gpu_aes_layout(g, &l);

	/*
	 * Reserved huge pages first (fewest TLB misses for the GPU's and the
	 * kernel's accesses); most hosts have none, so fall back to an aligned
	 * mapping that THP can back, then to plain pages.  A region smaller
	 * than a huge page larger than 2 MiB (a 512 MiB PMD under 64K pages)
	 * gets base pages: THP would not back it, and a reserved huge page
	 * would be mostly waste.
	 */
	huge = huge_page_size();
	if (!gpu_aes_region_huge_fits(l.region_size, huge)) {
		kind = GPU_AES_PAGES_SMALL;
		map_size = l.region_size;
		base = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED)
			return -errno;
	} else {
		map_size = round_up_sz(l.region_size, huge);
		base = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	}
	if (base == MAP_FAILED) {
		kind = GPU_AES_PAGES_THP;
		base = map_aligned(map_size, huge);
		if (!base)
			return -errno;
		if (madvise(base, map_size, MADV_HUGEPAGE))
			kind = GPU_AES_PAGES_SMALL;
	}
	/*
	 * A forked child must not share (or copy-on-write) pages the kernel
	 * has pinned; this is what io_uring and RDMA users do too.
	 */
	if (madvise(base, map_size, MADV_DONTFORK)) {
		err = -errno;
		munmap(base, map_size);
		return err;
	}
	/*
	 * The key table, and the plaintext of every request in the data
	 * area, must not end up in a core dump: excluded before the kernel
	 * can write either.
	 */
	err = gpu_aes_secret_exclude(base, map_size);
	if (!err)
		err = gpu_aes_region_view(r, base, map_size, g);
	if (err) {
		munmap(base, map_size);
		return err;
	}
	if (pages)
		*pages = kind;
	return 0;
}

void gpu_aes_region_geometry_of(const struct gpu_aes_region *r,
				struct gpu_aes_geometry *g)
{
	g->nr_queues = r->nr_queues;
	g->queue_entries = r->queue_entries;
	g->nr_keys = r->nr_keys;
	g->page_size = r->page_size;
	g->queue_data_size = r->queue_data_size;
}

void gpu_aes_region_init_hdr(struct gpu_aes_region *r)
{
	struct gpu_aes_geometry g;
	struct gpu_aes_layout l;

	gpu_aes_region_geometry_of(r, &g);
	gpu_aes_layout(&g, &l);
	/* Header, queues and key table: everything before the data. */
	memset(r->base, 0, l.data_off);
	gpu_aes_hdr_fill(r->hdr, &g, &l,
			 GPU_AES_FEAT_NEED_WAKEUP | GPU_AES_FEAT_ALGS,
			 GPU_AES_ALGS_KNOWN);
	r->algs = GPU_AES_ALGS_KNOWN;
}

void gpu_aes_region_wipe_keys(struct gpu_aes_region *r)
{
	if (r->keys)
		explicit_bzero(r->keys, (size_t)r->nr_keys * sizeof(*r->keys));
}

void gpu_aes_region_free(struct gpu_aes_region *r)
{
	if (!r->base)
		return;
	gpu_aes_region_wipe_keys(r);
	munmap(r->base, r->map_size);
	free(r->queues);
	memset(r, 0, sizeof(*r));
}
