// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu-aes-bench - the product's benchmark, like `openssl speed`: raw GPU
 * kernels with data in GPU memory, the path a consumer gets (the kernel's
 * own request path, built in userspace by kring/, into the helper), the
 * dispatch policies side by side, and OpenSSL on one and on all cores in
 * the same run.  Prints a table, writes JSON; plot it with
 * bench/plot.py.
 */
#include "../uapi/gpu_aes.h"
#include "../helper/cuda/aes_gpu.h"
#include "bench.h"
#include "report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void usage(FILE *f)
{
	fprintf(f,
"usage: gpu-aes-bench [options]\n"
"  --raw            raw kernels, data resident in GPU memory\n"
"  --sweep          with --raw: time every launch shape first\n"
"  --shape 'V T B C'  with --raw: time this launch shape, not the default\n"
"                   (variant 0|1, threads 128|256|512, blocks per thread\n"
"                   1|2|4, CTAs per SM 1..8; the shape file's syntax)\n"
"  --helper         the path a consumer gets: the kernel's request path\n"
"                   (kring) into the helper, dispatch=ring, copies in and\n"
"                   out, with the copy floor next to it (two memcpys\n"
"                   on 1 and on all threads; on all, the same through\n"
"                   pinned memory and a GPU's copy engines too: copy-dma,\n"
"                   two buffers a thread, and copy-pipe, eight, copying\n"
"                   in as the module does: the copy-engine path's bound)\n"
"  --dispatch       dispatch=cpu, ring and auto on a mixed workload\n"
"                   (1..64 KiB), 1 to all threads submitting; run with\n"
"                   OPENSSL_ia32cap='~0x200000200000000' (or\n"
"                   '~0x200020200000000') for a host whose CPU AES is slow;\n"
"                   each point's verdicts: auto within 5 %% of the best\n"
"                   throughput and CPU per GB of the two, and of the\n"
"                   cheaper path's: from the medians, and paired (the\n"
"                   median of auto over the cheaper path in each round)\n"
"  --dispatch-algs LIST  the workloads of --dispatch and --decision:\n"
"                   cbc-enc, cbc-dec, xts, xts-dec, gcm, ctr (AES-128\n"
"                   CBC, AES-256 XTS, AES-128 GCM and CTR; default\n"
"                   cbc-enc,cbc-dec,xts,gcm for --dispatch, xts for\n"
"                   --decision)\n"
"  --decision       what gpu_aes's layer and auto add to a request the\n"
"                   CPU driver runs: one thread runs --req-sizes' smallest\n"
"                   one at a time, the CPU driver called directly (OpenSSL\n"
"                   with the IV it hands back, as the kernel's drivers do;\n"
"                   the consumer's request set up the same), then through\n"
"                   the module's path with dispatch=cpu and with auto,\n"
"                   taking turns for --seconds each, --repeat rounds;\n"
"                   prints the paired excess of each per request (e.g.\n"
"                   --decision --req-sizes 4096:4096 --seconds 0.05\n"
"                   --repeat 31)\n"
"  --repeat N       with --dispatch: rounds per point; a round runs the\n"
"                   three modes one after another, a slice of --seconds\n"
"                   each, on submitting threads that never stop, in\n"
"                   each of the six orders in turn; medians kept, and the\n"
"                   paired ratios' 95 %% intervals printed (odd, 1..63,\n"
"                   default 3); with --decision, rounds of the three modes\n"
"  --no-qd1         with --helper: deep-queue runs only\n"
"  --window N       with --helper: requests each thread keeps in flight\n"
"                   (1..%u; default 256, fewer for requests over 64 KiB:\n"
"                   as many as 16 MiB of buffers hold); by Little's law\n"
"                   requests/s is at most threads x N over the round trip\n"
"  --queue-data-mib N  with --helper, --dispatch and --decision: each\n"
"                   queue's data area, MiB (default %u; all queues\n"
"                   together at most %u); a request over a quarter of\n"
"                   it runs on the CPU, as in the module\n"
"  --cpu            OpenSSL EVP on 1 core and on all cores\n"
"  --pcie           pinned host<->GPU copy bandwidth (the link's bound),\n"
"                   each GPU of --gpus alone, then all of them at once\n"
"                   (default: all but --dispatch and --decision)\n"
"  --raw-sizes A:B  raw sizes, bytes, x4 steps (default 16384:1073741824)\n"
"  --req-sizes A:B  helper request sizes, x4 steps (default 512:1048576)\n"
"  --seconds S      time per measured point (default 1.0)\n"
"  --threads N      producer/CPU threads (default: all cores)\n"
"  --gpus LIST      GPUs for the helper path and --pcie, e.g. 0,1\n"
"                   (default all)\n"
"  --json FILE      write results as JSON (default out/bench.json)\n"
"  --help\n"
"environment:\n"
"  GPU_AES_BENCH_BACKEND=null|cpu  the helper's backend (default cuda);\n"
"                   null transforms nothing: the host path alone\n"
"  GPU_AES_BENCH_TRACE_DISPATCH=1  with --dispatch: auto's estimates\n"
"                   (dispatch/estimates) and the helper's published cost\n"
"                   before and after each of its runs, and its decisions\n",
		BENCH_QUEUE_ENTRIES, BENCH_QUEUE_DATA_MIB,
		(unsigned int)(GPU_AES_MAX_DATA >> 20));
}

/* The helper's shape-file syntax, so a swept shape can be pasted back. */
static int parse_shape(const char *s, unsigned int sh[4])
{
	struct gpu_aes_shape shape;

	if (gpu_aes_shape_parse(s, &shape))
		return -1;
	sh[0] = shape.variant;
	sh[1] = shape.threads;
	sh[2] = shape.bpt;
	sh[3] = shape.ctas_per_sm;
	return 0;
}

static int parse_range(const char *s, size_t *a, size_t *b)
{
	char *end;

	*a = strtoull(s, &end, 0);
	if (*end != ':')
		return -1;
	*b = strtoull(end + 1, &end, 0);
	return (*end || *a == 0 || *b < *a) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "sweep", no_argument, NULL, 'w' },
		{ "no-qd1", no_argument, NULL, 'n' },
		{ "window", required_argument, NULL, 'W' },
		{ "queue-data-mib", required_argument, NULL, 'M' },
		{ "helper", no_argument, NULL, 'p' },
		{ "dispatch", no_argument, NULL, 'D' },
		{ "decision", no_argument, NULL, 'd' },
		{ "dispatch-algs", required_argument, NULL, 'A' },
		{ "cpu", no_argument, NULL, 'c' },
		{ "pcie", no_argument, NULL, 'e' },
		{ "shape", required_argument, NULL, 'S' },
		{ "raw-sizes", required_argument, NULL, 'R' },
		{ "req-sizes", required_argument, NULL, 'Q' },
		{ "seconds", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "gpus", required_argument, NULL, 'g' },
		{ "repeat", required_argument, NULL, 'N' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = { 16384, 1U << 30, 512, 1U << 20, 1.0, 0, NULL,
				0, { 0, 0, 0, 0 }, 1, 3, 0,
				BENCH_QUEUE_DATA_MIB, NULL };
	const char *json = "out/bench.json";
	int raw = 0, helper = 0, cpu = 0, pcie = 0, dispatch = 0, decision = 0;
	char *end;
	int c, err = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r': raw = 1; break;
		case 'w': o.sweep = 1; break;
		case 'n': o.qd1 = 0; break;
		case 'W':
			o.window = (unsigned int)strtoul(optarg, &end, 0);
			if (*end || !*optarg || o.window < 1 ||
			    o.window > BENCH_QUEUE_ENTRIES)
				goto bad;
			break;
		case 'M':
			o.queue_data_mib = (unsigned int)strtoul(optarg, &end,
								 0);
			if (*end || !*optarg || o.queue_data_mib < 1 ||
			    o.queue_data_mib > (GPU_AES_MAX_DATA >> 20))
				goto bad;
			break;
		case 'p': helper = 1; break;
		case 'D': dispatch = 1; break;
		case 'd': decision = 1; break;
		case 'A': o.works = optarg; break;
		case 'c': cpu = 1; break;
		case 'e': pcie = 1; break;
		case 'S':
			if (parse_shape(optarg, o.shape))
				goto bad;
			break;
		case 'R':
			if (parse_range(optarg, &o.raw_min, &o.raw_max))
				goto bad;
			break;
		case 'Q':
			if (parse_range(optarg, &o.req_min, &o.req_max))
				goto bad;
			break;
		case 's': o.seconds = atof(optarg); break;
		case 't': o.threads = (unsigned int)atoi(optarg); break;
		case 'g': o.gpus = optarg; break;
		case 'N': o.repeat = (unsigned int)atoi(optarg); break;
		case 'j': json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: goto bad;
		}
	}
	if (optind != argc || o.seconds <= 0 || (o.sweep && o.shape[1]) ||
	    o.repeat < 1 || o.repeat > BENCH_REPEAT_MAX || !(o.repeat & 1))
		goto bad;
	if (!raw && !helper && !cpu && !pcie && !dispatch && !decision)
		raw = helper = cpu = pcie = 1;
	bench_print_header();
	if (pcie && bench_pcie(&o)) {
		fprintf(stderr, "gpu-aes-bench: pcie copies failed\n");
		err = 1;
	}
	if (raw && bench_raw(&o)) {
		fprintf(stderr, "gpu-aes-bench: raw kernels failed\n");
		err = 1;
	}
	if (helper && bench_helper(&o)) {
		fprintf(stderr, "gpu-aes-bench: helper path failed\n");
		err = 1;
	}
	if (dispatch && bench_dispatch(&o)) {
		fprintf(stderr, "gpu-aes-bench: dispatch comparison failed\n");
		err = 1;
	}
	if (decision && bench_decision(&o)) {
		fprintf(stderr, "gpu-aes-bench: decision cost failed\n");
		err = 1;
	}
	if (cpu && bench_cpu(&o)) {
		fprintf(stderr, "gpu-aes-bench: openssl failed\n");
		err = 1;
	}
	bench_print_summary();
	if (bench_write_json(json)) {
		fprintf(stderr, "gpu-aes-bench: cannot write %s\n", json);
		err = 1;
	}
	return err;
bad:
	usage(stderr);
	return 2;
}
