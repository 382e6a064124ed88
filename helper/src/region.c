// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "region.h"

#define HUGE_SZ		(2UL << 20)

int gpu_aes_region_check(uint32_t nr_entries, uint32_t nr_keys,
			 uint64_t data_size)
{
	if (nr_entries < GPU_AES_MIN_ENTRIES ||
	    nr_entries > GPU_AES_MAX_ENTRIES ||
	    (nr_entries & (nr_entries - 1)))
		return -EINVAL;
	if (nr_keys < 1 || nr_keys > GPU_AES_MAX_KEYS)
		return -EINVAL;
	if (data_size < GPU_AES_MIN_DATA || data_size > GPU_AES_MAX_DATA ||
	    data_size % GPU_AES_PAGE)
		return -EINVAL;
	return 0;
}

static size_t round_up_sz(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/*
 * Transparent huge pages need 2 MiB aligned virtual addresses: map one huge
 * page more than needed and trim both ends.
 */
static void *map_aligned(size_t len)
{
	size_t span = len + HUGE_SZ;
	uint8_t *raw, *start;
	size_t head, tail;

	raw = mmap(NULL, span, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	start = (uint8_t *)round_up_sz((size_t)raw, HUGE_SZ);
	head = (size_t)(start - raw);
	tail = span - head - len;
	if (head)
		munmap(raw, head);
	if (tail)
		munmap(start + len, tail);
	return start;
}

int gpu_aes_region_alloc(uint32_t nr_entries, uint32_t nr_keys,
			 uint64_t data_size, struct gpu_aes_region *r,
			 enum gpu_aes_region_pages *pages)
{
	enum gpu_aes_region_pages kind = GPU_AES_PAGES_HUGETLB;
	struct gpu_aes_layout l;
	size_t map_size;
	void *base;
	int err;

	memset(r, 0, sizeof(*r));
	err = gpu_aes_region_check(nr_entries, nr_keys, data_size);
	if (err)
		return err;
	gpu_aes_layout(nr_entries, nr_keys, data_size, &l);

	/*
	 * Reserved huge pages first (fewest TLB misses for the GPU's and the
	 * kernel's accesses); most hosts have none, so fall back to an aligned
	 * mapping that THP can back, then to plain pages.
	 */
	map_size = round_up_sz(l.region_size, HUGE_SZ);
	base = mmap(NULL, map_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (base == MAP_FAILED) {
		kind = GPU_AES_PAGES_THP;
		base = map_aligned(map_size);
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

	r->base = base;
	r->size = l.region_size;
	r->map_size = map_size;
	r->hdr = base;
	r->sq = (struct gpu_aes_sqe *)((uint8_t *)base + l.sq_off);
	r->cq = (struct gpu_aes_cqe *)((uint8_t *)base + l.cq_off);
	r->keys = (struct gpu_aes_key *)((uint8_t *)base + l.keys_off);
	r->data = (uint8_t *)base + l.data_off;
	r->nr_entries = nr_entries;
	r->nr_keys = nr_keys;
	r->data_size = data_size;
	if (pages)
		*pages = kind;
	return 0;
}

void gpu_aes_region_init_hdr(struct gpu_aes_region *r)
{
	struct gpu_aes_region_hdr *h = r->hdr;

	memset(h, 0, sizeof(*h));
	memset(r->sq, 0, (size_t)r->nr_entries * sizeof(*r->sq));
	memset(r->cq, 0, (size_t)r->nr_entries * sizeof(*r->cq));
	gpu_aes_region_wipe_keys(r);
	h->magic = GPU_AES_MAGIC;
	h->abi_version = GPU_AES_ABI_VERSION;
	h->features = GPU_AES_FEAT_NEED_WAKEUP;
	h->nr_entries = r->nr_entries;
	h->nr_keys = r->nr_keys;
	h->region_size = r->size;
	h->sq_off = (uint64_t)((uint8_t *)r->sq - (uint8_t *)r->base);
	h->cq_off = (uint64_t)((uint8_t *)r->cq - (uint8_t *)r->base);
	h->keys_off = (uint64_t)((uint8_t *)r->keys - (uint8_t *)r->base);
	h->data_off = (uint64_t)(r->data - (uint8_t *)r->base);
	h->data_size = r->data_size;
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
	memset(r, 0, sizeof(*r));
}
