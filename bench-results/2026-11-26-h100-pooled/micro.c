/*
 * micro.c - what auto adds to a request the CPU driver runs: 1 KiB (or
 * argv[1] bytes) xts requests submitted through kring one at a time on
 * one thread, with the cpu backend attached, dispatch=cpu and auto
 * alternating in 20 rounds of argv[2] requests (the first two rounds
 * dropped from the means); argv[3] "cpu" or "auto" runs that mode alone.
 * A request the policy sends to the ring (an exploration) is waited for
 * by spinning and its wait printed.  An experiment kept with its
 * results, not part of the product; built against a helper build tree:
 *
 *   gcc -O2 -g -std=gnu11 -D_GNU_SOURCE -Ikring -Iuapi -Ihelper/src \
 *     -o micro micro.c helper/build/kring/libkring.a \
 *     helper/build/libgpuaes-helper.a -lcrypto -lpthread -ljson-c \
 *     -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lstdc++
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include "kring.h"
#include "kring_host.h"
#include "../helper/src/backend.h"

static volatile int done_n;
static void done(void *a, int e) { (void)a; if (e != -EINPROGRESS) __atomic_add_fetch(&done_n, 1, __ATOMIC_SEQ_CST); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

int main(int argc, char **argv)
{
	unsigned len = argc > 1 ? atoi(argv[1]) : 1024, n = argc > 2 ? atoi(argv[2]) : 200000;
	struct kring_host_config cfg; struct kring_host *h; struct kring_tfm *t; struct kring_req *r;
	uint8_t key[64], iv[16]; uint8_t *buf = malloc(len + 64);
	memset(key, 7, 64); key[40] = 1; memset(buf, 1, len + 64);
	if (kring_init()) return 1;
	kring_set_params(256, 2U << 20, 1000);
	memset(&cfg, 0, sizeof(cfg));
	cfg.ops = gpu_aes_backend_find("cpu"); cfg.backend.threads = 1;
	cfg.core.spin_us = 50; cfg.core.reapers = GPU_AES_CORE_AUTO_REAPERS;
	cfg.nr_queues = 1; cfg.queue_entries = 1024; cfg.nr_keys = 64; cfg.queue_data_size = 16 << 20;
	kring_consumer_thread();
	if (kring_host_start(&cfg, &h)) return 2;
	if (kring_tfm_new(GPU_AES_ALG_XTS, key, 64, &t)) return 3;
	r = kring_req_new(t);
	/* own cpu id */
	const char *modes[] = { "cpu", "auto" };
	const char *only = argc > 3 ? argv[3] : NULL;
	double sum[2] = {0, 0};
	for (int round = 0; round < 20; round++)
		for (int m = 0; m < 2; m++) {
			int mm = (round & 1) ? 1 - m : m;
			if (only && strcmp(only, modes[mm]))
				continue;
			kring_set_dispatch(modes[mm]);
			int64_t ring0 = kring_stat("ring_requests");
			double waits = 0, wmax = 0;
			double t0 = now();
			for (unsigned i = 0; i < n; i++) {
				memset(iv, 0, 16);
				kring_req_set(r, GPU_AES_DIR_ENCRYPT, buf, buf, len, 0, iv, KRING_MAY_BACKLOG, done, NULL);
				int ret = kring_submit(r);
				if (ret == -EINPROGRESS || ret == -EBUSY) { double w0 = now(); while (!__atomic_load_n(&done_n, __ATOMIC_SEQ_CST)) ; done_n = 0; w0 = now() - w0; waits += w0; if (w0 > wmax) wmax = w0; }
			}
			double dt = (now() - t0) / n * 1e9;
			if (round >= 2) sum[mm] += dt;
			printf("%s %.1f ns/req ring %lld wait %.1f us max %.1f us\n", modes[mm], dt, (long long)(kring_stat("ring_requests") - ring0), waits * 1e6, wmax * 1e6);
		}
	printf("mean cpu %.1f auto %.1f diff %.1f ns\n", sum[0] / 18, sum[1] / 18, (sum[1] - sum[0]) / 18);
	kring_req_free(r); kring_tfm_free(t); kring_host_stop(h); kring_exit();
	return 0;
}
