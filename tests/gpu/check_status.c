// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_status - what the helper's status file says of the GPUs, on a real
 * one: the cuda backend's report names every GPU it opened, with its
 * memory, a PCI address of the form sysfs uses, its compute capability
 * and the code path and code it runs (the TMA path from compute
 * capability 9.0 unless GPU_AES_CUDA_PATH=portable forces the other, as
 * gpu_aes_path_choose() decides), and the document
 * gpu_aes_status_render() makes from it (the PCIe link read from
 * /sys/bus/pci/devices/) is printed for a person to compare with
 * nvidia-smi.  Prints "N passed, M failed"; without a GPU prints SKIP and
 * exits 0.  Usage: check_status [gpus]
 */
#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../helper/cuda/cuda_backend.h"
#include "../../helper/cuda/gpu_path.h"
#include "../../helper/src/backend.h"
#include "../../helper/src/region.h"
#include "../../helper/src/status_file.h"

static int passed, failed;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (ok)
		passed++;
	else
		failed++;
}

static int pci_form(const char *s)
{
	unsigned int dom, bus, dev, fn;
	char end;

	return strlen(s) == 12 &&
	       sscanf(s, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &end) == 4;
}

int main(int argc, char **argv)
{
	const struct gpu_aes_backend_ops *ops = &gpu_aes_backend_cuda;
	static struct gpu_aes_gpu_report rep;
	struct gpu_aes_backend_config cfg = {
		.gpus = argc > 1 ? argv[1] : NULL, .report = &rep,
	};
	static struct gpu_aes_status_static st;
	const int forced = gpu_aes_cuda_path_forced(NULL) == 1;
	struct gpu_aes_core_stats cs = { 0 };
	struct json_object *doc, *gpus;
	struct gpu_aes_backend *be;
	struct gpu_aes_geometry geo;
	struct gpu_aes_region r;
	char buf[32768], what[512], path[512];
	struct stat sb;
	unsigned int i;
	int n;

	if (ops->probe() != 0) {
		printf("SKIP: check_status: no usable CUDA GPU here\n");
		return 0;
	}
	if (gpu_aes_region_geometry(1, 64, 16, GPU_AES_MIN_QUEUE_DATA, &geo) ||
	    gpu_aes_region_alloc(&geo, &r, NULL)) {
		printf("FAIL cannot allocate a region\n");
		return 1;
	}
	gpu_aes_region_init_hdr(&r);
	if (ops->open(&cfg, &r, &be)) {
		printf("FAIL cannot open the cuda backend\n");
		gpu_aes_region_free(&r);
		return 1;
	}
	st.nr_gpus = rep.nr;
	memcpy(st.gpus, rep.gpus, sizeof(st.gpus));
	snprintf(what, sizeof(what), "the report names %u GPU(s)", st.nr_gpus);
	check(st.nr_gpus >= 1, what);
	for (i = 0; i < st.nr_gpus; i++) {
		const struct gpu_aes_gpu_info *g = &st.gpus[i];
		/* the spec: TMA from 9.0, unless forced or the code is older */
		const char *want = g->cc >= 90 && !forced && g->code_ptx >= 90 ?
				   "tma" : "portable";

		snprintf(what, sizeof(what),
			 "GPU %d: name '%s', %llu bytes, PCI %s (dddd:bb:dd.f)",
			 g->id, g->name, (unsigned long long)g->memory_bytes,
			 g->pci);
		check(g->name[0] && isprint((unsigned char)g->name[0]) &&
		      g->memory_bytes >= (1ULL << 30) && pci_form(g->pci), what);
		snprintf(what, sizeof(what),
			 "GPU %d: compute capability %d.%d, %s path (%s wanted), code sm_%d from compute_%d%s",
			 g->id, g->cc / 10, g->cc % 10, g->path, want,
			 g->code_sm, g->code_ptx, g->jit ? ", JIT" : "");
		check(g->usable && g->cc >= GPU_AES_MIN_CC &&
		      !strcmp(g->path, want) && g->code_sm <= g->cc &&
		      g->code_sm / 10 == g->cc / 10 &&
		      g->code_ptx >= GPU_AES_MIN_CC && g->code_ptx <= g->code_sm,
		      what);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", g->pci);
		printf("     %s: %s\n", path,
		       stat(path, &sb) ? "absent here (pcie: null)" : "present");
	}
	st.pid = 1;
	st.version = "check";
	st.backend = ops->name;
	st.device = "-";
	st.pages = "-";
	st.interval_s = 2;
	n = gpu_aes_status_render(buf, sizeof(buf), &st, &cs, 0, NULL);
	doc = n > 0 ? json_tokener_parse(buf) : NULL;
	check(json_object_object_get_ex(doc, "gpus", &gpus) &&
	      json_object_is_type(gpus, json_type_array) &&
	      json_object_array_length(gpus) == st.nr_gpus &&
	      json_object_object_get_ex(json_object_array_get_idx(gpus, 0),
					"id", NULL),
	      "the status document lists them");
	{
		struct json_object *g0 = json_object_array_get_idx(gpus, 0);
		struct json_object *p = NULL;

		snprintf(what, sizeof(what),
			 "the document gives GPU %d's path, %s", st.gpus[0].id,
			 st.gpus[0].path);
		check(json_object_object_get_ex(g0, "path", &p) &&
		      !strcmp(json_object_get_string(p), st.gpus[0].path),
		      what);
	}
	json_object_put(doc);
	fputs(buf, stdout);
	ops->close(be);
	gpu_aes_region_free(&r);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
