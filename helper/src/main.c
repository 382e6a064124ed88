// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu-aes-helper: attaches to /dev/gpu_aes and runs the kernel's AES
 * requests on a backend (cuda or cpu) until SIGTERM/SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "core.h"
#include "log.h"
#include "region.h"
#include "transport.h"

/* helper/Makefile passes dkms.conf's PACKAGE_VERSION, the one version. */
#ifndef GPU_AES_HELPER_VERSION
#define GPU_AES_HELPER_VERSION "unknown"
#endif

/* Exit statuses; docs/gpu-aes-helper.8 lists them too. */
enum {
	EXIT_OK = 0,		/* stopped by SIGTERM/SIGINT */
	EXIT_FAIL = 1,		/* runtime or other setup failure */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_NODEV = 3,		/* no device: module not loaded */
	EXIT_PERM = 4,		/* device not accessible: not root */
	EXIT_BUSY = 5,		/* another helper is attached */
	EXIT_ABI = 6,		/* module and helper ABI versions differ */
	EXIT_BACKEND = 7,	/* backend not built in or cannot run here */
};

struct options {
	const char *device;
	const char *backend;
	const char *gpus;
	unsigned long entries;
	unsigned long keys;
	unsigned long data_mib;
	unsigned long spin_us;
	unsigned long threads;
	int verbose;
};

static struct gpu_aes_core *volatile g_core;
static volatile sig_atomic_t g_signal;

static void on_signal(int sig)
{
	struct gpu_aes_core *c = g_core;

	g_signal = sig;
	if (c)
		gpu_aes_core_stop(c);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: gpu-aes-helper [OPTION]...\n"
"Serve gpu_aes.ko's AES requests (ecb(aes), ctr(aes), xts(aes), gcm(aes))\n"
"from userspace.\n"
"\n"
"  -d, --device PATH    device to attach to (default /dev/gpu_aes)\n"
"  -b, --backend NAME   auto, cpu or cuda (default auto: cuda when built in\n"
"                       and a GPU is usable, else cpu)\n"
"  -e, --entries N      ring entries, power of two, %u..%u (default 1024)\n"
"  -k, --keys N         key table slots, 1..%u (default 1024)\n"
"  -m, --data-mib N     data area in MiB, 1..%u (default 64)\n"
"  -s, --spin-us N      busy-poll N microseconds before sleeping (default 50)\n"
"  -t, --threads N      cpu backend worker threads (default 1)\n"
"  -g, --gpus LIST      cuda backend: comma-separated device ids (default all)\n"
"  -v, --verbose        log debug messages too\n"
"  -V, --version        print the version and exit\n"
"  -h, --help           print this help and exit\n"
"\n"
"Logs go to stderr with <N> syslog priority prefixes (journald keeps them).\n"
"Exit status: 0 stopped by SIGTERM/SIGINT, 1 failure, 2 usage error,\n"
"3 device missing (module not loaded), 4 permission denied, 5 another helper\n"
"attached, 6 ABI version mismatch, 7 backend unavailable.\n",
		GPU_AES_MIN_ENTRIES, GPU_AES_MAX_ENTRIES, GPU_AES_MAX_KEYS,
		GPU_AES_MAX_DATA >> 20);
}

static int parse_ulong(const char *opt, const char *s, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "gpu-aes-helper: %s: not a number: '%s'\n",
			opt, s);
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "backend", required_argument, NULL, 'b' },
		{ "entries", required_argument, NULL, 'e' },
		{ "keys", required_argument, NULL, 'k' },
		{ "data-mib", required_argument, NULL, 'm' },
		{ "spin-us", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "gpus", required_argument, NULL, 'g' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "d:b:e:k:m:s:t:g:vVh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			o->device = optarg;
			break;
		case 'b':
			o->backend = optarg;
			break;
		case 'e':
			bad |= parse_ulong("--entries", optarg, &o->entries);
			break;
		case 'k':
			bad |= parse_ulong("--keys", optarg, &o->keys);
			break;
		case 'm':
			bad |= parse_ulong("--data-mib", optarg, &o->data_mib);
			break;
		case 's':
			bad |= parse_ulong("--spin-us", optarg, &o->spin_us);
			break;
		case 't':
			bad |= parse_ulong("--threads", optarg, &o->threads);
			break;
		case 'g':
			o->gpus = optarg;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'V':
			printf("gpu-aes-helper %s (ABI %u)\n",
			       GPU_AES_HELPER_VERSION, GPU_AES_ABI_VERSION);
			exit(EXIT_OK);
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		default:
			bad = 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpu-aes-helper: unexpected argument '%s'\n",
			argv[optind]);
		bad = 1;
	}
	if (!bad && (o->entries > GPU_AES_MAX_ENTRIES ||
		     o->keys > GPU_AES_MAX_KEYS ||
		     o->data_mib > (GPU_AES_MAX_DATA >> 20) ||
		     gpu_aes_region_check((uint32_t)o->entries,
					  (uint32_t)o->keys,
					  (uint64_t)o->data_mib << 20))) {
		fprintf(stderr, "gpu-aes-helper: --entries must be a power of two in %u..%u, --keys in 1..%u, --data-mib in 1..%u\n",
			GPU_AES_MIN_ENTRIES, GPU_AES_MAX_ENTRIES,
			GPU_AES_MAX_KEYS, GPU_AES_MAX_DATA >> 20);
		bad = 1;
	}
	if (!bad && (o->spin_us > 1000000 || o->threads > 1024)) {
		fprintf(stderr, "gpu-aes-helper: --spin-us at most 1000000, --threads at most 1024\n");
		bad = 1;
	}
	if (bad) {
		fprintf(stderr, "Try 'gpu-aes-helper --help'.\n");
		return -1;
	}
	return 0;
}

static int exit_for_errno(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return EXIT_NODEV;
	case EACCES:
	case EPERM:
		return EXIT_PERM;
	case EBUSY:
		return EXIT_BUSY;
	case EPROTO:
		return EXIT_ABI;
	default:
		return EXIT_FAIL;
	}
}

static int setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		return -1;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL);
}

static const char *pages_name(enum gpu_aes_region_pages p)
{
	return p == GPU_AES_PAGES_HUGETLB ? "hugetlb 2 MiB pages" :
	       p == GPU_AES_PAGES_THP ? "transparent huge pages" :
	       "4 KiB pages";
}

static const struct gpu_aes_backend_ops *pick_backend(const char *name)
{
	const struct gpu_aes_backend_ops *ops = gpu_aes_backend_select(name);

	if (!ops) {
		log_err("backend '%s' is not available in this build (built in: cpu%s)",
			name, gpu_aes_backend_find("cuda") ? ", cuda" : "");
		return NULL;
	}
	if (strcmp(name, "auto") != 0 && ops->probe()) {
		log_err("backend %s cannot run on this machine", ops->name);
		return NULL;
	}
	return ops;
}

static int serve(const struct options *o, const struct gpu_aes_backend_ops *ops)
{
	struct gpu_aes_backend_config bcfg = {
		.gpus = o->gpus,
		.threads = (unsigned int)o->threads,
	};
	struct gpu_aes_core_config ccfg = { .spin_us = (unsigned int)o->spin_us };
	struct gpu_aes_transport *t = NULL;
	struct gpu_aes_backend *be = NULL;
	struct gpu_aes_core *core = NULL;
	struct gpu_aes_core_stats st;
	enum gpu_aes_region_pages pages;
	struct gpu_aes_region r;
	int err, status = EXIT_FAIL;

	err = gpu_aes_region_alloc((uint32_t)o->entries, (uint32_t)o->keys,
				   (uint64_t)o->data_mib << 20, &r, &pages);
	if (err) {
		log_err("cannot allocate the shared region: %s", strerror(-err));
		return EXIT_FAIL;
	}
	log_info("region %zu bytes (%lu entries, %lu key slots, %lu MiB data) on %s",
		 r.size, o->entries, o->keys, o->data_mib, pages_name(pages));

	err = gpu_aes_transport_dev_open(o->device, &r, &t);
	if (err) {
		status = exit_for_errno(-err);
		goto out;
	}
	err = ops->open(&bcfg, &r, &be);
	if (err) {
		log_err("backend %s failed to start: %s", ops->name,
			strerror(-err));
		be = NULL;
		status = EXIT_BACKEND;
		goto out;
	}
	log_info("backend %s started (threads %lu, gpus %s)", ops->name,
		 o->threads ? o->threads : 1, o->gpus ? o->gpus : "all");
	err = gpu_aes_core_create(&r, ops, be, t, &ccfg, &core);
	if (err) {
		log_err("cannot start the helper core: %s", strerror(-err));
		goto out;
	}
	g_core = core;
	if (g_signal)
		gpu_aes_core_stop(core);
	log_notice("serving %s with backend %s, spin %lu us", o->device,
		   ops->name, o->spin_us);

	err = gpu_aes_core_run(core);
	g_core = NULL;
	if (err) {
		log_err("stopping: lost %s: %s", o->device, strerror(-err));
	} else {
		log_notice("stopping on %s", g_signal == SIGINT ? "SIGINT" :
			   "SIGTERM");
		status = EXIT_OK;
	}
	gpu_aes_core_get_stats(core, &st);
	log_notice("totals: %llu batches, %llu requests, %llu bytes, %llu invalid, %llu sleeps",
		   (unsigned long long)st.batches,
		   (unsigned long long)st.requests,
		   (unsigned long long)st.bytes,
		   (unsigned long long)st.invalid,
		   (unsigned long long)st.sleeps);
out:
	gpu_aes_core_destroy(core);
	if (be)
		ops->close(be);
	/* Detaching makes the kernel finish what is left on its CPU path. */
	if (t)
		t->ops->close(t);
	gpu_aes_region_free(&r);
	return status;
}

int main(int argc, char **argv)
{
	struct options o = {
		.device = "/dev/" GPU_AES_DEVICE_NAME,
		.backend = "auto",
		.entries = 1024,
		.keys = 1024,
		.data_mib = 64,
		.spin_us = 50,
		.threads = 1,
	};
	const struct gpu_aes_backend_ops *ops;

	if (parse(argc, argv, &o))
		return EXIT_USAGE;
	gpu_aes_log_level = o.verbose ? LOG_DEBUG : LOG_INFO;
	if (setup_signals()) {
		log_err("cannot install signal handlers: %s", strerror(errno));
		return EXIT_FAIL;
	}
	log_info("gpu-aes-helper %s, ABI %u", GPU_AES_HELPER_VERSION,
		 GPU_AES_ABI_VERSION);
	ops = pick_backend(o.backend);
	if (!ops)
		return EXIT_BACKEND;
	log_info("backend %s chosen (asked for %s)", ops->name, o.backend);
	return serve(&o, ops);
}
