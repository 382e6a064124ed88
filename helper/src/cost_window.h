/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cost_window.h - what one window of serving cost the helper per KiB, the
 * figure it publishes for the kernel's dispatch policy
 * (gpu_aes_region_hdr.helper_cpu_ns_per_kib).
 */
#ifndef GPU_AES_COST_WINDOW_H
#define GPU_AES_COST_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A figure must rest on this much: below it the helper's cost per
 * wake-up, not per KiB, is what it would show.
 */
#define GPU_AES_COST_MIN_KIB	1024

/*
 * Windows that moved bytes add up (struct gpu_aes_cost_acc) until they
 * make a figure, for at most this much of their time: a slow host (or a
 * VM) moves 1 MiB over several windows, a trickle never does.
 */
#define GPU_AES_COST_SPAN_NS	1000000000ULL

/*
 * @work_ns: the helper's CPU over the window, spins left out; @dt_ns: the
 * window's length; @kib: KiB it served; @idle_share: the CPU per ns it
 * spends with nothing to do.  True and *@ns_per_kib when the window says
 * what a KiB costs; false when it says nothing, and the last figure
 * stands: under GPU_AES_COST_MIN_KIB, or work under twice what idling
 * costs over the same time.  Those are a few requests among idle time:
 * the idle estimate's error is as large as the work, and the figure reads
 * as next to nothing (published, a 0 made the ring look cheaper than the
 * CPU driver whenever auto kept most requests on the CPU, so auto sent
 * more there) or, a wake-up's cost over a few KiB, as the clamp (which
 * would keep the ring looking dear on a host where it is not, since the
 * CPU's requests leave it nothing but such windows).
 */
static inline bool gpu_aes_cost_window(uint64_t work_ns, uint64_t dt_ns,
				       uint64_t kib, double idle_share,
				       uint32_t *ns_per_kib)
{
	double idle = idle_share * (double)dt_ns, per_kib;

	if (kib < GPU_AES_COST_MIN_KIB || (double)work_ns < 2 * idle)
		return false;
	per_kib = ((double)work_ns - idle) / (double)kib;
	*ns_per_kib = per_kib > UINT32_MAX ? UINT32_MAX : (uint32_t)per_kib;
	return true;
}

/* The windows that moved bytes since the last figure. */
struct gpu_aes_cost_acc {
	uint64_t work_ns, dt_ns, bytes;
};

/*
 * Adds a window that moved @bytes; true, with the cost and the rate they
 * moved at (MiB/s), when the windows since the last figure make one
 * (gpu_aes_cost_window()).  The sum restarts then, and once it spans
 * GPU_AES_COST_SPAN_NS without making one.
 */
static inline bool gpu_aes_cost_add(struct gpu_aes_cost_acc *a,
				    uint64_t work_ns, uint64_t dt_ns,
				    uint64_t bytes, double idle_share,
				    uint32_t *ns_per_kib, uint32_t *mib_per_s)
{
	a->work_ns += work_ns;
	a->dt_ns += dt_ns;
	a->bytes += bytes;
	if (a->dt_ns && gpu_aes_cost_window(a->work_ns, a->dt_ns,
					    a->bytes >> 10, idle_share,
					    ns_per_kib)) {
		double rate = (double)a->bytes / (1 << 20) * 1e9 /
			      (double)a->dt_ns;

		*mib_per_s = rate > UINT32_MAX ? UINT32_MAX : (uint32_t)rate;
		*a = (struct gpu_aes_cost_acc){ 0 };
		return true;
	}
	if (a->dt_ns >= GPU_AES_COST_SPAN_NS)
		*a = (struct gpu_aes_cost_acc){ 0 };
	return false;
}

#endif
