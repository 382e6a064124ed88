// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu_aes_cost_window(): the helper's published CPU per KiB, on windows
 * taken from a dispatch=auto run (gpu-aes-bench --dispatch, cpu backend):
 * a busy window is measured, a trickle among idle time is not, so the
 * figure the kernel reads is neither a near-zero that makes the ring look
 * free nor a wake-up's cost spread over a few KiB.
 */
#include "cost_window.h"
#include "harness.h"

TEST(cost_window_busy_window_is_measured)
{
	uint32_t ns = 0;

	/* 50.4 ms, 35.6 ms of CPU, 4 % idle share, 170,602 KiB. */
	CHECK(gpu_aes_cost_window(35641094, 50437127, 170602, 0.04, &ns));
	CHECK_EQ(ns, (uint32_t)((35641094 - 0.04 * 50437127) / 170602));
	CHECK_EQ(ns, 197);
	/* No idle figure yet: all of the work is the requests'. */
	CHECK(gpu_aes_cost_window(1024000, 50000000, 1024, 0, &ns));
	CHECK_EQ(ns, 1000);
}

TEST(cost_window_trickle_says_nothing)
{
	uint32_t ns = 4242;

	/* 32 KiB in 100 ms: 0.23 ms of work against 4.0 ms of idling. */
	CHECK(!gpu_aes_cost_window(225121, 99751939, 32, 0.04, &ns));
	/* Work above idle, but not twice it: still noise. */
	CHECK(!gpu_aes_cost_window(3000000, 50000000, 20000, 0.04, &ns));
	/* Busy, but a wake-up's worth of bytes: 16 KiB, 1 ms of work. */
	CHECK(!gpu_aes_cost_window(1000000, 50000000, 16, 0.0, &ns));
	CHECK(!gpu_aes_cost_window(1000000, 50000000,
				   GPU_AES_COST_MIN_KIB - 1, 0.0, &ns));
	/* No bytes. */
	CHECK(!gpu_aes_cost_window(35641094, 50437127, 0, 0.04, &ns));
	CHECK_EQ(ns, 4242);
	/* Exactly twice: measured, the idle half taken off. */
	CHECK(gpu_aes_cost_window(4000000, 50000000, 2000, 0.04, &ns));
	CHECK_EQ(ns, 1000);
}

TEST(cost_window_clamps_to_u32)
{
	uint32_t ns = 0;

	CHECK(gpu_aes_cost_window(UINT64_MAX / 2, 1000, GPU_AES_COST_MIN_KIB,
				  0, &ns));
	CHECK_EQ(ns, UINT32_MAX);
}

TEST(cost_window_slow_host_adds_windows_up)
{
	struct gpu_aes_cost_acc acc = { 0 };
	uint32_t ns = 0, rate = 0;
	int i;

	/* 100 KiB a window, 3 ms of work, 0.5 ms of idling: a VM's pace. */
	for (i = 0; i < 10; i++)
		CHECK(!gpu_aes_cost_add(&acc, 3000000, 50000000, 100 << 10,
					0.01, &ns, &rate));
	CHECK(gpu_aes_cost_add(&acc, 3000000, 50000000, 100 << 10, 0.01,
			       &ns, &rate));
	/* 11 windows: 1100 KiB, 33 ms of work less 5.5 ms of idling. */
	CHECK_EQ(ns, 25000);
	CHECK_EQ(rate, 1);	/* 1100 KiB in 550 ms: 1.95 MiB/s, truncated */
	CHECK_EQ(acc.bytes, 0);
	CHECK_EQ(acc.dt_ns, 0);
}

TEST(cost_window_trickle_restarts_after_a_second)
{
	struct gpu_aes_cost_acc acc = { 0 };
	uint32_t ns = 4242, rate = 4242;
	int i;

	/* 4 KiB a window, 0.1 ms of work against 2 ms of idling. */
	for (i = 0; i < 19; i++)
		CHECK(!gpu_aes_cost_add(&acc, 100000, 50000000, 4096, 0.04,
					&ns, &rate));
	CHECK_EQ(acc.bytes, 19 * 4096);
	CHECK(!gpu_aes_cost_add(&acc, 100000, 50000000, 4096, 0.04, &ns,
				&rate));
	CHECK_EQ(acc.bytes, 0);	/* a second of windows: restarted */
	CHECK_EQ(ns, 4242);
	CHECK_EQ(rate, 4242);
}

TEST(cost_window_busy_window_publishes_at_once)
{
	struct gpu_aes_cost_acc acc = { 0 };
	uint32_t ns = 0, rate = 0;

	CHECK(gpu_aes_cost_add(&acc, 35641094, 50437127,
			       (uint64_t)170602 << 10, 0.04, &ns, &rate));
	CHECK_EQ(ns, 197);
	CHECK_EQ(rate, 3303);	/* 166.6 MiB in 50.4 ms */
}
