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
	GPU_AES_PAGES_HUGETLB,	/* MAP_HUGETLB: reserved 2 MiB pages */
	GPU_AES_PAGES_THP,	/* 2 MiB aligned, MADV_HUGEPAGE accepted */
	GPU_AES_PAGES_SMALL,	/* ordinary 4 KiB pages */
};

/*
 * 0 when the sizes are within what the ABI accepts (uapi/gpu_aes.h limits,
 * nr_entries a power of two, data_size page aligned), else -EINVAL.
 */
int gpu_aes_region_check(uint32_t nr_entries, uint32_t nr_keys,
			 uint64_t data_size);

/*
 * Maps a zeroed, page aligned region of exactly gpu_aes_layout() bytes and
 * fills *r.  Returns 0 or -errno; *pages (may be NULL) says what backs it.
 */
int gpu_aes_region_alloc(uint32_t nr_entries, uint32_t nr_keys,
			 uint64_t data_size, struct gpu_aes_region *r,
			 enum gpu_aes_region_pages *pages);

/*
 * Writes the header the way the kernel does in GPU_AES_IOC_SETUP; the
 * in-process producer calls it, the device transport leaves it to the
 * kernel.
 */
void gpu_aes_region_init_hdr(struct gpu_aes_region *r);

/* Zeroes the key table in a way the compiler cannot elide. */
void gpu_aes_region_wipe_keys(struct gpu_aes_region *r);

/* Wipes the key table and unmaps; *r is zeroed.  NULL base is a no-op. */
void gpu_aes_region_free(struct gpu_aes_region *r);

#endif /* GPU_AES_HELPER_REGION_H */
