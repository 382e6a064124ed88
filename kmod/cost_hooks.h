/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cost_hooks.h - KUnit's hold on the live estimates (estimates.h), built
 * only with the KUnit suites: tests inject figures and freeze learning,
 * so a decision can be predicted.
 */
#ifndef GPU_AES_COST_HOOKS_H
#define GPU_AES_COST_HOOKS_H

#include <linux/types.h>

#include "estimates.h"

#if IS_ENABLED(CONFIG_CRYPTO_DEV_GPU_AES_KUNIT_TEST)
/*
 * Sets this CPU's estimates for @op (gpu_aes_op_row()) and @class;
 * 0 = unknown.
 */
void gpu_aes_dispatch_test_set(unsigned int op, unsigned int class,
			       u32 cpu_ns_per_kib, u32 submit_ns_per_kib);
/* Sets queue @q's completion cost; 0 = unknown. */
void gpu_aes_dispatch_test_set_complete(u32 q, u32 complete_ns_per_kib);
/* Sets how fast the ring drains queue @q when backed up; 0 = unknown. */
void gpu_aes_dispatch_test_set_drain(u32 q, u32 drain_ns_per_kib);
/* Sets the ring's lone latency for @op and @class; 0 = unknown. */
void gpu_aes_dispatch_test_set_lone(unsigned int op, unsigned int class,
				    u32 lone_ns);
/* Queue @q's completion cost and the lone latency, as measured. */
u32 gpu_aes_dispatch_test_complete(u32 q);
u32 gpu_aes_dispatch_test_lone(unsigned int op, unsigned int class);
u32 gpu_aes_dispatch_test_drain(u32 q);
/* Forgets every CPU's estimates and hysteresis. */
void gpu_aes_dispatch_test_reset(void);
#endif

#endif /* GPU_AES_COST_HOOKS_H */
