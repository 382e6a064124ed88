// SPDX-License-Identifier: GPL-2.0-only
/*
 * cost_hooks.c - KUnit's hold on the live estimates (cost_hooks.h),
 * linked only into kernels built with the KUnit suites.
 */
#include <linux/percpu.h>
#include <linux/string.h>

#include "cost_hooks.h"
#include "estimates.h"

void gpu_aes_dispatch_test_set(unsigned int op, unsigned int class,
			       u32 cpu_ns_per_kib, u32 submit_ns_per_kib)
{
	struct gpu_aes_dispatch_pcpu *pc = raw_cpu_ptr(&gpu_aes_dispatch_pcpu);

	pc->cpu_ns[op][class] = cpu_ns_per_kib;
	pc->submit_ns[op][class] = submit_ns_per_kib;
}

void gpu_aes_dispatch_test_set_complete(u32 q, u32 complete_ns_per_kib)
{
	WRITE_ONCE(gpu_aes_dispatch_queues[q].complete_ns_per_kib,
		   complete_ns_per_kib);
}

void gpu_aes_dispatch_test_set_drain(u32 q, u32 drain_ns_per_kib)
{
	WRITE_ONCE(gpu_aes_dispatch_queues[q].drain_ns_per_kib,
		   drain_ns_per_kib);
}

void gpu_aes_dispatch_test_set_lone(unsigned int op, unsigned int class,
				    u32 lone_ns)
{
	WRITE_ONCE(gpu_aes_lone_ns[op][class], lone_ns);
}

u32 gpu_aes_dispatch_test_complete(u32 q)
{
	return READ_ONCE(gpu_aes_dispatch_queues[q].complete_ns_per_kib);
}

u32 gpu_aes_dispatch_test_lone(unsigned int op, unsigned int class)
{
	return READ_ONCE(gpu_aes_lone_ns[op][class]);
}

u32 gpu_aes_dispatch_test_drain(u32 q)
{
	return READ_ONCE(gpu_aes_dispatch_queues[q].drain_ns_per_kib);
}

void gpu_aes_dispatch_test_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&gpu_aes_dispatch_pcpu, cpu), 0,
		       sizeof(struct gpu_aes_dispatch_pcpu));
	memset(gpu_aes_dispatch_queues, 0, sizeof(gpu_aes_dispatch_queues));
	memset(gpu_aes_lone_ns, 0, sizeof(gpu_aes_lone_ns));
}
