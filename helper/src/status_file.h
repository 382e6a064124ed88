/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * status_file.h - the helper's read-only status file: one small JSON
 * document (schema in docs/gpu-aes-helper.8, STATUS FILE) written
 * atomically (a temporary file in the same directory, then rename) when
 * the helper has attached and then every few seconds, and removed when it
 * stops.  gpu-aesctl(8) reads it; nothing in the helper depends on it.
 */
#ifndef GPU_AES_HELPER_STATUS_FILE_H
#define GPU_AES_HELPER_STATUS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "core.h"

/*
 * 2: ABI v3's queues in "ring", and "dispatch".  Members added since
 * (each GPU's code path, "gpus_unusable", "fallback") leave it 2: a
 * reader of 2 finds what it knew where it was.
 */
#define GPU_AES_STATUS_SCHEMA	2
/* Seconds between rewrites. */
#define GPU_AES_STATUS_INTERVAL	2U

/* What does not change while the helper serves. */
struct gpu_aes_status_static {
	int pid;
	long long started;		/* unix seconds */
	const char *version;
	unsigned int abi;
	const char *device;
	const char *backend;
	unsigned int threads;
	unsigned int spin_us;
	unsigned int interval_s;
	uint32_t queues;
	uint32_t queue_entries;		/* per queue */
	uint32_t keys;
	uint64_t queue_data_bytes;	/* each queue's slice */
	uint64_t data_bytes;		/* all of them */
	uint64_t region_bytes;
	const char *pages;
	/*
	 * The region's header, for the cost figures the helper publishes in
	 * it for the module's dispatch policy (read at each rewrite); NULL:
	 * none.
	 */
	const struct gpu_aes_region_hdr *hdr;
	/* why the helper runs the cpu backend it was not asked for, or NULL */
	const char *fallback;
	/* the GPUs the cuda backend found, those it runs on and the others */
	unsigned int nr_gpus;
	struct gpu_aes_gpu_info gpus[GPU_AES_MAX_GPUS];
};

/*
 * The document for @st, the core counters @cs and the time @now (unix
 * seconds) into @buf, as json-c writes it indented, with a newline.  Read from sysfs (@sysfs, NULL: "/sys"): each GPU's
 * PCIe link (bus/pci/devices/<pci>/), the module's dispatch mode
 * (module/gpu_aes/parameters/dispatch) and its dispatch estimates
 * (class/misc/gpu_aes/dispatch/estimates, a table whose header line names
 * its columns).  Returns its length, or -1 if @len is too small (or
 * memory ran out).
 */
int gpu_aes_status_render(char *buf, size_t len,
			  const struct gpu_aes_status_static *st,
			  const struct gpu_aes_core_stats *cs, long long now,
			  const char *sysfs);

struct gpu_aes_status_file;

/*
 * Writes @path now (creating its directory, one level, if missing, and
 * removing the temporary files of a helper killed while writing) and
 * starts a thread that rewrites it every st->interval_s seconds with
 * @core's counters.  A file that cannot be written is logged once and
 * retried; the helper serves either way.  NULL only when out of memory or
 * threads.  @st is copied.
 */
struct gpu_aes_status_file *
gpu_aes_status_file_start(const char *path,
			  const struct gpu_aes_status_static *st,
			  struct gpu_aes_core *core);

/* Stops the thread and removes the file.  NULL is a no-op. */
void gpu_aes_status_file_stop(struct gpu_aes_status_file *sf);

#endif /* GPU_AES_HELPER_STATUS_FILE_H */
