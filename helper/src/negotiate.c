// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "negotiate.h"

int gpu_aes_info_check(const struct gpu_aes_info *info, const char *who)
{
	log_info("%s: ABI version %u, features 0x%x, %u CPUs, page %u, max %u queues of %u entries, %u keys, %llu MiB data",
		 who, info->abi_version, info->features, info->nr_cpus,
		 info->page_size, info->max_queues, info->max_entries,
		 info->max_keys,
		 (unsigned long long)(info->max_data_size >> 20));
	if (info->abi_version != GPU_AES_ABI_VERSION) {
		log_err("%s speaks ABI version %u, this helper %u: install matching versions",
			who, info->abi_version, GPU_AES_ABI_VERSION);
		return -EPROTO;
	}
	if (!(info->features & GPU_AES_FEAT_NEED_WAKEUP)) {
		log_err("%s lacks the NEED_WAKEUP feature this helper needs",
			who);
		return -EPROTO;
	}
	return 0;
}

const char *gpu_aes_alg_set_str(uint32_t set, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int alg;

	buf[0] = 0;
	for (alg = 1; alg <= GPU_AES_ALG_MAX; alg++)
		if (set & GPU_AES_ALG_BIT(alg) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? " " : "",
					      gpu_aes_alg_name(alg));
	return buf[0] ? buf : "none";
}

/*
 * The algorithms to ask for: what the module may post and we serve.  A
 * module without GPU_AES_FEAT_ALGS posts GPU_AES_ALGS_V3, which every
 * backend serves.
 */
static int agree_algs(const struct gpu_aes_info *info, uint32_t served,
		      struct gpu_aes_setup *s)
{
	char posts[64], serves[64];

	if (!(info->features & GPU_AES_FEAT_ALGS)) {
		gpu_aes_alg_set_str(GPU_AES_ALGS_V3, posts, sizeof(posts));
		if (GPU_AES_ALGS_V3 & ~served) {
			log_err("the module posts %s without asking, this backend serves only %s",
				posts, gpu_aes_alg_set_str(served, serves,
							   sizeof(serves)));
			return -EPROTO;
		}
		log_info("algorithms served: %s (the module predates algorithm negotiation)",
			 posts);
		s->algs = 0;
		return 0;
	}
	s->features |= GPU_AES_FEAT_ALGS;
	s->algs = info->algs & served;
	if (!s->algs) {
		log_err("the module posts %s, this backend serves %s: nothing to do",
			gpu_aes_alg_set_str(info->algs, posts, sizeof(posts)),
			gpu_aes_alg_set_str(served, serves, sizeof(serves)));
		return -EPROTO;
	}
	if (info->algs & ~served) {
		char left[64];

		log_info("algorithms served: %s; %s stay on the module's CPU path (fallback_unsupported)",
			 gpu_aes_alg_set_str(s->algs, serves, sizeof(serves)),
			 gpu_aes_alg_set_str(info->algs & ~served, left,
					     sizeof(left)));
	} else {
		log_info("algorithms served: %s",
			 gpu_aes_alg_set_str(s->algs, serves, sizeof(serves)));
	}
	return 0;
}

static int check_fits(const struct gpu_aes_geometry *g,
		      const struct gpu_aes_info *info)
{
	struct gpu_aes_layout l;

	gpu_aes_layout(g, &l);
	if (g->nr_queues > info->max_queues ||
	    g->queue_entries > info->max_entries ||
	    g->nr_keys > info->max_keys || l.data_size > info->max_data_size ||
	    g->page_size != info->page_size) {
		log_err("region (%u queues of %u entries, %u keys, %llu bytes of data, page %u) exceeds the module's limits",
			g->nr_queues, g->queue_entries, g->nr_keys,
			(unsigned long long)l.data_size, g->page_size);
		return -EINVAL;
	}
	return 0;
}

int gpu_aes_setup_prepare(const struct gpu_aes_info *info, uint32_t served,
			  const struct gpu_aes_geometry *g,
			  struct gpu_aes_setup *s)
{
	int err = check_fits(g, info);

	if (err)
		return err;
	memset(s, 0, sizeof(*s));
	s->abi_version = GPU_AES_ABI_VERSION;
	s->features = info->features & GPU_AES_FEAT_NEED_WAKEUP;
	s->geo = *g;
	return agree_algs(info, served, s);
}

int gpu_aes_hdr_check(struct gpu_aes_region *r, const struct gpu_aes_setup *s)
{
	const struct gpu_aes_region_hdr *h = r->hdr;

	/* The module wrote the header; make sure it agrees with our view. */
	if (h->magic != GPU_AES_MAGIC || h->abi_version != GPU_AES_ABI_VERSION ||
	    h->nr_queues != r->nr_queues ||
	    h->queue_entries != r->queue_entries || h->nr_keys != r->nr_keys ||
	    h->queue_data_size != r->queue_data_size ||
	    h->region_size != r->size ||
	    (s->features & GPU_AES_FEAT_ALGS && h->algs != s->algs)) {
		log_err("region header written by the module does not match the request");
		return -EPROTO;
	}
	r->algs = (s->features & GPU_AES_FEAT_ALGS) ? s->algs : GPU_AES_ALGS_V3;
	return 0;
}
