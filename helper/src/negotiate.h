/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * negotiate.h - what a helper and a module agree on before a region is
 * served, whichever way SETUP reaches the module: the helper's own ioctl
 * (transport_dev.c) or an agent's in a guest (transport_guest.c).  Both
 * check INFO, fill SETUP and check the header the module wrote with these,
 * so the rules have one home.
 */
#ifndef GPU_AES_HELPER_NEGOTIATE_H
#define GPU_AES_HELPER_NEGOTIATE_H

#include "backend.h"

/*
 * Logs what @info says (as @who's) and checks the ABI version and the
 * features this helper needs.  0, or -EPROTO with the reason logged.
 */
int gpu_aes_info_check(const struct gpu_aes_info *info, const char *who);

/*
 * Fills *s for a region of geometry @g: version, features, geometry and
 * the algorithms to ask for (what the module may post and @served, the
 * backend's GPU_AES_ALG_BIT() set); region_addr and region_size are left
 * 0.  -EINVAL when @g exceeds the module's limits, -EPROTO when the two
 * share no algorithm (or an old module posts one the backend lacks); the
 * reason is logged.
 */
int gpu_aes_setup_prepare(const struct gpu_aes_info *info, uint32_t served,
			  const struct gpu_aes_geometry *g,
			  struct gpu_aes_setup *s);

/*
 * After a SETUP of *s: the header the module wrote into @r must say what
 * was asked for.  Sets r->algs to the agreed set.  0 or -EPROTO (logged).
 */
int gpu_aes_hdr_check(struct gpu_aes_region *r, const struct gpu_aes_setup *s);

/* "ecb ctr" for a GPU_AES_ALG_BIT() set, "none" for an empty one. */
const char *gpu_aes_alg_set_str(uint32_t set, char *buf, size_t size);

#endif /* GPU_AES_HELPER_NEGOTIATE_H */
