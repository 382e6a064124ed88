/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * region.h - the shared region's memory: allocation, the view the rest of
 * the helper uses (struct gpu_aes_region, backend.h) and its release.
 */
#ifndef GPU_AES_HELPER_REGION_H
#define GPU_AES_HELPER_REGION_H

#include "backend.h"

/* How the region's pages were obtained (for the log). */
enum gpu_aes_region_pages {
	GPU_AES_PAGES_HUGETLB,	/* MAP_HUGETLB: reserved huge pages */
	GPU_AES_PAGES_THP,	/* huge-page aligned, MADV_HUGEPAGE accepted */
	GPU_AES_PAGES_SMALL,	/* base pages (4K, or 16K/64K on arm64) */
	GPU_AES_PAGES_GUEST,	/* a guest's, mapped from its RAM file */
};

/*
 * Whether huge pages of @huge bytes (the kernel's PMD size: 2 MiB with 4K
 * pages, 512 MiB with 64K) are worth asking for a region of @region_size
 * bytes: 2 MiB ones always (a region rounds up to one), larger ones only
 * if one fits in it.
 */
int gpu_aes_region_huge_fits(size_t region_size, size_t huge);

/*
 * The geometry of a region with @nr_queues queues of @queue_entries
 * entries, @nr_keys key slots, @queue_data_size bytes of data per queue,
 * laid out for this machine's page size.  0 when the ABI accepts it
 * (gpu_aes_geometry_valid()), else -EINVAL.
 */
int gpu_aes_region_geometry(uint32_t nr_queues, uint32_t queue_entries,
			    uint32_t nr_keys, uint64_t queue_data_size,
			    struct gpu_aes_geometry *g);

/*
 * Maps a zeroed, page aligned region of exactly gpu_aes_layout() bytes for
 * @g and fills *r.  Returns 0 or -errno; *pages (may be NULL) says what
 * backs it.
 */
int gpu_aes_region_alloc(const struct gpu_aes_geometry *g,
			 struct gpu_aes_region *r,
			 enum gpu_aes_region_pages *pages);

/*
 * Fills *r for a region of geometry @g laid out at @base, mapped for
 * @map_size bytes (at least gpu_aes_layout()'s): the view of memory
 * mapped some other way (a guest's, transport_guest.c).  0 or -errno.
 */
int gpu_aes_region_view(struct gpu_aes_region *r, void *base, size_t map_size,
			const struct gpu_aes_geometry *g);

/* The geometry @r was allocated with (what SETUP asks for). */
void gpu_aes_region_geometry_of(const struct gpu_aes_region *r,
				struct gpu_aes_geometry *g);

/*
 * Writes the header the way the kernel does in GPU_AES_IOC_SETUP and
 * zeroes the queues and key table, every algorithm agreed: for tests that
 * play the kernel by hand.
 */
void gpu_aes_region_init_hdr(struct gpu_aes_region *r);

/* Zeroes the key table in a way the compiler cannot elide. */
void gpu_aes_region_wipe_keys(struct gpu_aes_region *r);

/* Wipes the key table and unmaps; *r is zeroed.  NULL base is a no-op. */
void gpu_aes_region_free(struct gpu_aes_region *r);

#endif /* GPU_AES_HELPER_REGION_H */
