// SPDX-License-Identifier: GPL-2.0-only
/*
 * policy.c - dispatch=auto's rules on given figures (policy.h).  No state
 * and no clock: the same figures give the same answer, so KUnit feeds
 * them and sysfs shows what auto would do.
 */
#include <linux/math64.h>

#include "policy.h"

/*
 * The latency rule: a lone request goes where it finishes sooner.  On the
 * CPU it takes what it costs (the fallback is synchronous); on the ring
 * the measured latency of a lone request of its class.  Either unknown:
 * the CPU, which measures itself, while exploration measures the ring.
 */
static enum gpu_aes_choice gpu_aes_choose_lone(const struct gpu_aes_dispatch_in *in)
{
	u64 cpu_ns = div_u64((u64)in->cpu_ns_per_kib * in->bytes, 1024);
	u64 ring_ns = in->ring_lone_ns;
	bool ring_sooner = in->cpu_ns_per_kib && ring_ns &&
			   ring_ns + ring_ns / 8 < cpu_ns;

	if (ring_sooner)
		return in->explore ? GPU_AES_CHOOSE_CPU_EXPLORE :
				     GPU_AES_CHOOSE_RING_LONE;
	return in->explore ? GPU_AES_CHOOSE_RING_EXPLORE :
			     GPU_AES_CHOOSE_CPU_LONE;
}

/*
 * The load rule's figures, not the load: posting costs this CPU less
 * than running the request, and the ring costs little more in all
 * (dispatch.h: GPU_AES_LOAD_COST_DIV), since what is shed costs the
 * machine that much more per byte.
 */
bool gpu_aes_load_rule_pays(const struct gpu_aes_dispatch_in *in)
{
	return in->submit_ns_per_kib && in->ring_ns_per_kib &&
	       in->submit_ns_per_kib < in->cpu_ns_per_kib &&
	       in->ring_ns_per_kib <= in->cpu_ns_per_kib +
				      in->cpu_ns_per_kib / GPU_AES_LOAD_COST_DIV;
}

/*
 * The ring drains the request's queue more slowly than this CPU computes
 * the request's class, by 1/8 (a tie does not flap): with the queue
 * backed up, a request the CPU runs now is done sooner than one waiting
 * its turn, and the ring stays as busy as before.  Unknown: not.
 */
bool gpu_aes_ring_is_bottleneck(const struct gpu_aes_dispatch_in *in)
{
	return in->drain_ns_per_kib &&
	       in->drain_ns_per_kib > in->cpu_ns_per_kib +
				      in->cpu_ns_per_kib / 8;
}

enum gpu_aes_choice gpu_aes_dispatch_choose(const struct gpu_aes_dispatch_in *in)
{
	bool ring_better;

	if (in->mode == GPU_AES_DISPATCH_RING)
		return GPU_AES_CHOOSE_RING_FORCED;
	if (in->mode == GPU_AES_DISPATCH_CPU)
		return GPU_AES_CHOOSE_CPU_FORCED;
	if (in->lone && !in->saturated)
		return gpu_aes_choose_lone(in);
	/* Nothing known of the CPU: it never costs more than we displace. */
	if (!in->cpu_ns_per_kib)
		return GPU_AES_CHOOSE_CPU_COST;
	if (!in->ring_ns_per_kib)
		ring_better = false;
	else if (in->ring_was_chosen)
		ring_better = in->ring_ns_per_kib <=
			      in->cpu_ns_per_kib + in->cpu_ns_per_kib / 8;
	else
		ring_better = in->ring_ns_per_kib + in->ring_ns_per_kib / 8 <
			      in->cpu_ns_per_kib;
	if (ring_better) {
		/*
		 * Cheaper, but the bottleneck: the CPU takes what the ring
		 * cannot absorb (dispatch.h, the load rule's mirror).
		 */
		if (in->backed_up && gpu_aes_ring_is_bottleneck(in))
			return GPU_AES_CHOOSE_CPU_LOAD;
		return in->explore ? GPU_AES_CHOOSE_CPU_EXPLORE :
				     GPU_AES_CHOOSE_RING_COST;
	}
	/*
	 * Costlier in all, but a saturated CPU sheds the request for less
	 * than running it costs, and the rest happens on CPUs that were idle
	 * and on the GPU.
	 */
	if (in->saturated && in->spare && in->headroom &&
	    gpu_aes_load_rule_pays(in))
		return GPU_AES_CHOOSE_RING_LOAD;
	return in->explore ? GPU_AES_CHOOSE_RING_EXPLORE :
			     GPU_AES_CHOOSE_CPU_COST;
}
