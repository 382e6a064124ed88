// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu-aes-helper: attaches to /dev/gpu_aes and runs the kernel's AES
 * requests on a backend (cuda or cpu) until SIGTERM/SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#ifdef HAVE_CUDA
#include "../cuda/cuda_backend.h"
#endif
#include "core.h"
#include "guest_proto.h"
#include "log.h"
#include "negotiate.h"
#include "region.h"
#include "secret.h"
#include "status_file.h"
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
	const char *guest_port;		/* NULL: serve /dev/gpu_aes here */
	const char *guest_memory;
	unsigned long long guest_lowmem;
	const char *status_file;	/* "" for none */
	const char *backend;
	const char *gpus;
	const char *gpu_path;
	unsigned long queues;		/* 0: one per CPU, up to AUTO_QUEUES */
	unsigned long entries;
	unsigned long keys;
	unsigned long queue_data_mib;
	unsigned long spin_us;
	unsigned long threads;
	int verbose;
	int allow_core_dump;
};

/*
 * Queues when not asked: one per CPU up to this.  Beyond it CPUs share
 * queues (CPU c uses queue c % nr_queues), which costs them contention on
 * a queue's lock but saves each further queue's pinned data slice.
 */
#define AUTO_QUEUES	32U
#define DEFAULT_ENTRIES	1024U
#define DEFAULT_KEYS	1024U
/* 4 MiB: a queue must hold ring_max_bytes (1 MiB) four times over. */
#define DEFAULT_QUEUE_DATA_MIB	4U

static struct gpu_aes_core *volatile g_core;
static time_t g_started;
static volatile sig_atomic_t g_signal;
/* Readable once a signal asked us to stop: waits outside the core poll it. */
static int g_stop_fd = -1;

static void on_signal(int sig)
{
	struct gpu_aes_core *c = g_core;
	uint64_t one = 1;
	ssize_t n;

	g_signal = sig;
	if (c)
		gpu_aes_core_stop(c);
	n = write(g_stop_fd, &one, sizeof(one));
	(void)n;
}

static void usage(FILE *f)
{
	unsigned int alg;

	fprintf(f, "Usage: gpu-aes-helper [OPTION]...\n"
		"Serve gpu_aes.ko's AES requests (");
	for (alg = 1; alg <= GPU_AES_ALG_MAX; alg++)
		fprintf(f, "%s%s(aes)", alg > 1 ? ", " : "",
			gpu_aes_alg_name((uint8_t)alg));
	fprintf(f, ")\nfrom userspace.\n");
	fprintf(f,
"\n"
"  -d, --device PATH    device to attach to (default /dev/gpu_aes)\n"
"  -b, --backend NAME   auto, cpu or cuda (default auto: cuda when built in\n"
"                       and a GPU is usable, else cpu)\n"
"  -q, --queues N       queue pairs, 1..%u (default: one per CPU, at most %u)\n"
"  -e, --entries N      entries per queue, power of two, %u..%u (default %u)\n"
"  -k, --keys N         key table slots, 1..%u (default %u)\n"
"  -m, --queue-data-mib N\n"
"                       data area per queue in MiB, %u..%llu in all\n"
"                       (default %u)\n"
"  -s, --spin-us N      busy-poll N microseconds before sleeping (default 50)\n"
"  -t, --threads N      cpu backend worker threads (default 1)\n"

"  -g, --gpus LIST      cuda backend: comma-separated device ids (default all)\n"
"      --gpu-path auto|portable\n"
"                       cuda backend's code path: tma on GPUs of compute\n"
"                       capability 9.0 and later and portable on the others\n"
"                       (auto), or portable on every GPU (default:\n"
"                       GPU_AES_CUDA_PATH, else auto)\n"
"      --guest-port PATH  serve the module of a qemu guest instead: PATH is\n"
"                       the unix socket of its virtio-serial port %s,\n"
"                       where gpu-aes-guest-agent runs (sessions are\n"
"                       served one after another until SIGTERM)\n"
"      --guest-memory FILE  the guest's RAM, shared (memory-backend-file\n"
"                       share=on, or /proc/PID/fd/N of its memfd)\n"
"      --guest-lowmem BYTES  guest RAM below 4 GiB (default: q35's split)\n"
"      --status-file PATH  status file for gpu-aesctl, rewritten every %u s\n"
"                       (default /run/gpu-aes/helper.json; '' for none)\n"
"      --allow-core-dump  stay dumpable once attached, for debugging (keys\n"
"                       are left out of core dumps either way)\n"
"  -v, --verbose        log debug messages too\n"
"  -V, --version        print the version and exit\n"
"  -h, --help           print this help and exit\n"
"\n"
"Logs go to stderr with <N> syslog priority prefixes (journald keeps them).\n"
"Exit status: 0 stopped by SIGTERM/SIGINT, 1 failure, 2 usage error,\n"
"3 device missing (module not loaded), 4 permission denied, 5 another helper\n"
"attached, 6 ABI version mismatch, 7 backend unavailable.\n",
		GPU_AES_MAX_QUEUES, AUTO_QUEUES, GPU_AES_MIN_ENTRIES,
		GPU_AES_MAX_ENTRIES, DEFAULT_ENTRIES, GPU_AES_MAX_KEYS,
		DEFAULT_KEYS, GPU_AES_MIN_QUEUE_DATA >> 20,
		(unsigned long long)(GPU_AES_MAX_DATA >> 20),
		DEFAULT_QUEUE_DATA_MIB, GPU_AES_GUEST_PORT_NAME,
		GPU_AES_STATUS_INTERVAL);
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

/*
 * The command line's sizes, checked by the ABI's own rule before the
 * kernel is asked; an automatic queue count is checked as one queue.
 */
static int geometry_ok(const struct options *o)
{
	struct gpu_aes_geometry g;
	unsigned long q = o->queues ? o->queues : 1;

	if (q > GPU_AES_MAX_QUEUES || o->entries > GPU_AES_MAX_ENTRIES ||
	    o->keys > GPU_AES_MAX_KEYS ||
	    o->queue_data_mib > (GPU_AES_MAX_DATA >> 20))
		return 0;
	return !gpu_aes_region_geometry((uint32_t)q, (uint32_t)o->entries,
					(uint32_t)o->keys,
					(uint64_t)o->queue_data_mib << 20, &g);
}

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "backend", required_argument, NULL, 'b' },
		{ "queues", required_argument, NULL, 'q' },
		{ "entries", required_argument, NULL, 'e' },
		{ "keys", required_argument, NULL, 'k' },
		{ "queue-data-mib", required_argument, NULL, 'm' },
		{ "spin-us", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "gpus", required_argument, NULL, 'g' },
		{ "gpu-path", required_argument, NULL, 'G' },
		{ "status-file", required_argument, NULL, 'S' },
		{ "guest-port", required_argument, NULL, 'P' },
		{ "guest-memory", required_argument, NULL, 'M' },
		{ "guest-lowmem", required_argument, NULL, 'L' },
		{ "allow-core-dump", no_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "d:b:q:e:k:m:s:t:g:vVh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			o->device = optarg;
			break;
		case 'b':
			o->backend = optarg;
			break;
		case 'q':
			bad |= parse_ulong("--queues", optarg, &o->queues);
			break;
		case 'e':
			bad |= parse_ulong("--entries", optarg, &o->entries);
			break;
		case 'k':
			bad |= parse_ulong("--keys", optarg, &o->keys);
			break;
		case 'm':
			bad |= parse_ulong("--queue-data-mib", optarg,
					   &o->queue_data_mib);
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
		case 'S':
			o->status_file = optarg;
			break;
		case 'G':
			o->gpu_path = optarg;
#ifdef HAVE_CUDA
			if (gpu_aes_cuda_path_forced(optarg) >= 0)
				break;
			fprintf(stderr, "gpu-aes-helper: --gpu-path: auto or portable, not '%s'\n",
				optarg);
#else
			fprintf(stderr, "gpu-aes-helper: --gpu-path: this build has no cuda backend\n");
#endif
			bad = 1;
			break;
		case 'P':
			o->guest_port = optarg;
			break;
		case 'M':
			o->guest_memory = optarg;
			break;
		case 'L': {
			unsigned long v;

			bad |= parse_ulong("--guest-lowmem", optarg, &v);
			o->guest_lowmem = v;
			break;
		}
		case 'C':
			o->allow_core_dump = 1;
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
	if (!bad && !o->guest_port != !o->guest_memory) {
		fprintf(stderr, "gpu-aes-helper: --guest-port and --guest-memory go together\n");
		bad = 1;
	}
	if (!bad && !geometry_ok(o)) {
		fprintf(stderr, "gpu-aes-helper: --queues must be in 1..%u, --entries a power of two in %u..%u, --keys in 1..%u, --queue-data-mib at least %u and --queues times --queue-data-mib at most %llu\n",
			GPU_AES_MAX_QUEUES, GPU_AES_MIN_ENTRIES,
			GPU_AES_MAX_ENTRIES, GPU_AES_MAX_KEYS,
			GPU_AES_MIN_QUEUE_DATA >> 20,
			(unsigned long long)(GPU_AES_MAX_DATA >> 20));
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
	return p == GPU_AES_PAGES_HUGETLB ? "hugetlb huge pages" :
	       p == GPU_AES_PAGES_THP ? "transparent huge pages" :
	       p == GPU_AES_PAGES_GUEST ? "the guest's RAM" : "base pages";
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

/*
 * --queues, or one per CPU of the module's kernel (so no two CPUs share a
 * queue) up to AUTO_QUEUES and what the data area can hold.
 */
static uint32_t pick_queues(const struct options *o,
			    const struct gpu_aes_info *info)
{
	uint64_t fit = GPU_AES_MAX_DATA / ((uint64_t)o->queue_data_mib << 20);
	uint32_t q;

	if (o->queues)
		return (uint32_t)o->queues;
	q = info->nr_cpus ? info->nr_cpus : 1;
	if (q > AUTO_QUEUES)
		q = AUTO_QUEUES;
	if (q > info->max_queues && info->max_queues)
		q = info->max_queues;
	if (q > fit)
		q = (uint32_t)fit;
	return q;
}

/*
 * The region's geometry for the module @info describes: EXIT_OK, or the
 * exit status for why not (logged).
 */
static int pick_geometry(const struct options *o,
			 const struct gpu_aes_info *info,
			 struct gpu_aes_geometry *geo)
{
	uint32_t queues = pick_queues(o, info);
	int err;

	err = gpu_aes_region_geometry(queues, (uint32_t)o->entries,
				      (uint32_t)o->keys,
				      (uint64_t)o->queue_data_mib << 20, geo);
	if (!err && geo->page_size != info->page_size) {
		/* Sections align to the kernel's page; ours is what we map. */
		log_err("the module's page size is %u bytes, this process's %u: a helper built for another page size?",
			info->page_size, geo->page_size);
		return EXIT_FAIL;
	}
	if (err) {
		log_err("%u queues of %lu MiB do not fit the ABI's %llu MiB data area: lower --queues or --queue-data-mib",
			queues, o->queue_data_mib,
			(unsigned long long)(GPU_AES_MAX_DATA >> 20));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The helper's CPU: every thread of this process, user and system. */
static uint64_t process_cpu_ns(void *arg)
{
	struct timespec ts;

	(void)arg;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The GPUs the cuda backend found at open, usable or not (backend.h),
 * and why the helper fell back to the cpu backend, if it did ("").
 */
static struct gpu_aes_gpu_report g_gpus;
static char g_fallback[256];

/* What the status file says of this helper; see status_file.h. */
static struct gpu_aes_status_file *
status_file_start(const struct options *o,
		  const struct gpu_aes_backend_ops *ops,
		  struct gpu_aes_core *core, const struct gpu_aes_region *r,
		  enum gpu_aes_region_pages pages, const char *what)
{
	static struct gpu_aes_status_static st;

	st.pid = (int)getpid();
	st.started = (long long)g_started;
	st.version = GPU_AES_HELPER_VERSION;
	st.abi = GPU_AES_ABI_VERSION;
	st.device = what;
	st.backend = ops->name;
	st.threads = o->threads ? (unsigned int)o->threads : 1;
	st.spin_us = (unsigned int)o->spin_us;
	st.interval_s = GPU_AES_STATUS_INTERVAL;
	st.queues = r->nr_queues;
	st.queue_entries = r->queue_entries;
	st.keys = r->nr_keys;
	st.queue_data_bytes = r->queue_data_size;
	st.data_bytes = r->data_size;
	st.region_bytes = r->size;
	st.pages = pages_name(pages);
	st.hdr = r->hdr;
	st.fallback = g_fallback[0] ? g_fallback : NULL;
	st.nr_gpus = g_gpus.nr;
	memcpy(st.gpus, g_gpus.gpus, g_gpus.nr * sizeof(st.gpus[0]));
	return gpu_aes_status_file_start(o->status_file, &st, core);
}

/*
 * Serves an attached region until a signal or the producer's end: the
 * backend and the core, the status file, the totals.  *lost gets the
 * transport's -errno when it ended serving (0 after a signal).  The
 * caller closes @t and releases @r.
 */
static int serve_attached(const struct options *o,
			  const struct gpu_aes_backend_ops *ops,
			  struct gpu_aes_region *r, struct gpu_aes_transport *t,
			  enum gpu_aes_region_pages pages, const char *what,
			  int *lost)
{
	struct gpu_aes_backend_config bcfg = {
		.gpus = o->gpus,
		.threads = (unsigned int)o->threads,
		.gpu_path = o->gpu_path,
		.report = &g_gpus,
	};
	struct gpu_aes_core_config ccfg = {
		.spin_us = (unsigned int)o->spin_us,
		.reapers = GPU_AES_CORE_AUTO_REAPERS,
		.cpu_ns = process_cpu_ns,
	};
	struct gpu_aes_backend *be = NULL;
	struct gpu_aes_core *core = NULL;
	struct gpu_aes_status_file *sf = NULL;
	struct gpu_aes_core_stats st;
	int err, status = EXIT_FAIL;
	unsigned int i;

	*lost = 0;
	/*
	 * Not dumpable from here on: the kernel writes no core, whatever the
	 * core limit, fs.suid_dumpable or core_pattern say.  Not before: until
	 * SETUP no key exists in this process (the kernel fills the key table
	 * only once attached), so a crash while opening the device or mapping
	 * the region still leaves a core to debug, with nothing secret in it.
	 * Right after, before the backend starts: from now on the key table
	 * can fill and every copy is made from it.  Keys are in MADV_DONTDUMP
	 * memory either way (secret.h); this also keeps out what that cannot
	 * cover (stacks, registers, request data in flight in a backend).
	 */
	if (!o->allow_core_dump && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		log_err("cannot clear the dumpable flag: %s", strerror(errno));
		return EXIT_FAIL;
	}
	err = ops->open(&bcfg, r, &be);
	if (err && !strcmp(o->backend, "auto") &&
	    ops != &gpu_aes_backend_cpu) {
		/* the same algorithms: the module was told the cuda ones */
		snprintf(g_fallback, sizeof(g_fallback), "%s backend: %s",
			 ops->name, g_gpus.why[0] ? g_gpus.why : strerror(-err));
		log_warn("%s: falling back to the cpu backend", g_fallback);
		ops = &gpu_aes_backend_cpu;
		err = ops->open(&bcfg, r, &be);
	}
	if (err) {
		log_err("backend %s failed to start: %s", ops->name,
			g_gpus.why[0] && ops != &gpu_aes_backend_cpu ?
			g_gpus.why : strerror(-err));
		return EXIT_BACKEND;
	}
	log_info("backend %s started (threads %lu, gpus %s)", ops->name,
		 o->threads ? o->threads : 1, o->gpus ? o->gpus : "all");
	err = gpu_aes_core_create(r, ops, be, t, &ccfg, &core);
	if (err) {
		log_err("cannot start the helper core: %s", strerror(-err));
		goto out;
	}
	g_core = core;
	if (g_signal)
		gpu_aes_core_stop(core);
	log_notice("serving %s with backend %s, spin %lu us", what,
		   ops->name, o->spin_us);
	if (o->status_file[0])
		sf = status_file_start(o, ops, core, r, pages, what);

	err = gpu_aes_core_run(core);
	g_core = NULL;
	gpu_aes_status_file_stop(sf);
	if (err) {
		*lost = err;
		if (err == -ECONNRESET)
			log_notice("stopping: the guest ended the session");
		else
			log_err("stopping: lost %s: %s", what, strerror(-err));
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
	for (i = 0; i < GPU_AES_ALG_MAX; i++)
		if (st.alg_requests[i])
			log_notice("totals %s: %llu requests in %llu batches",
				   gpu_aes_alg_name(i + 1),
				   (unsigned long long)st.alg_requests[i],
				   (unsigned long long)st.alg_batches[i]);
out:
	gpu_aes_core_destroy(core);
	ops->close(be);
	return status;
}

/* This machine's module, through /dev/gpu_aes. */
static int serve(const struct options *o, const struct gpu_aes_backend_ops *ops)
{
	struct gpu_aes_transport *t = NULL;
	enum gpu_aes_region_pages pages;
	struct gpu_aes_geometry geo;
	struct gpu_aes_region r;
	struct gpu_aes_info info;
	int err, lost, status;

	memset(&r, 0, sizeof(r));
	err = gpu_aes_transport_dev_info(o->device, &info);
	if (err)
		return exit_for_errno(-err);
	status = pick_geometry(o, &info, &geo);
	if (status != EXIT_OK)
		return status;
	err = gpu_aes_region_alloc(&geo, &r, &pages);
	if (err) {
		log_err("cannot allocate the shared region: %s", strerror(-err));
		return EXIT_FAIL;
	}
	log_info("region %zu bytes (%u queues of %u entries and %llu MiB data, %u key slots) on %s",
		 r.size, r.nr_queues, r.queue_entries,
		 (unsigned long long)(r.queue_data_size >> 20), r.nr_keys,
		 pages_name(pages));

	err = gpu_aes_transport_dev_open(o->device, &info, ops->algs, &r,
					 &t);
	if (err) {
		status = exit_for_errno(-err);
	} else {
		status = serve_attached(o, ops, &r, t, pages, o->device, &lost);
		/* Detaching makes the kernel finish what is left on its CPU path. */
		t->ops->close(t);
	}
	gpu_aes_region_free(&r);
	return status;
}

/* Sleeps @ms unless a signal comes first. */
static void pause_ms(int ms)
{
	struct pollfd pfd = { .fd = g_stop_fd, .events = POLLIN };

	poll(&pfd, 1, ms);
}

/*
 * A guest's module, through its agent (transport_guest.c): one session
 * after another on the same connection, until a signal.  A session the
 * guest ends or we refuse is followed by the next HELLO; qemu going away
 * by a reconnect.
 */
static int serve_guest(const struct options *o,
		       const struct gpu_aes_backend_ops *ops)
{
	struct gpu_aes_guest *g = NULL;
	int status = EXIT_OK, waiting = 0;
	char what[300];

	snprintf(what, sizeof(what), "guest %s", o->guest_port);
	while (!g_signal) {
		struct gpu_aes_transport *t = NULL;
		struct gpu_aes_geometry geo;
		struct gpu_aes_region r;
		struct gpu_aes_info info;
		int err, lost;

		if (!g) {
			err = gpu_aes_guest_connect(o->guest_port,
						    o->guest_memory,
						    o->guest_lowmem, &g);
			if (err == -ENOENT || err == -ECONNREFUSED) {
				if (!waiting++)
					log_info("waiting for qemu's socket %s",
						 o->guest_port);
				pause_ms(200);
				continue;
			}
			if (err) {
				log_err("cannot connect to %s: %s",
					o->guest_port, strerror(-err));
				return EXIT_FAIL;
			}
			waiting = 0;
		}
		err = gpu_aes_guest_hello(g, g_stop_fd, &info);
		if (err == -EINTR)
			break;
		if (err) {
			log_info("%s closed: %s", o->guest_port, strerror(-err));
			gpu_aes_guest_disconnect(g);
			g = NULL;
			continue;
		}
		err = gpu_aes_info_check(&info, "the guest's module");
		if (err || pick_geometry(o, &info, &geo) != EXIT_OK) {
			gpu_aes_guest_refuse(g, err ? err : -EINVAL);
			pause_ms(100);
			continue;
		}
		err = gpu_aes_transport_guest_open(g, g_stop_fd, &info,
						   ops->algs, &geo, &r, &t);
		if (err == -EINTR)
			break;
		if (err == -EPIPE) {
			gpu_aes_guest_disconnect(g);
			g = NULL;
			continue;
		}
		if (err) {
			/* A refused or abandoned session: the next HELLO. */
			pause_ms(100);
			continue;
		}
		log_info("region %zu bytes (%u queues of %u entries and %llu MiB data, %u key slots) in the guest's RAM",
			 r.size, r.nr_queues, r.queue_entries,
			 (unsigned long long)(r.queue_data_size >> 20),
			 r.nr_keys);
		status = serve_attached(o, ops, &r, t, GPU_AES_PAGES_GUEST,
					what, &lost);
		/* Unmaps, then tells the agent its pages are free. */
		t->ops->close(t);
		if (status == EXIT_BACKEND)
			break;
		/* The guest ending its session, or qemu its port, is no failure. */
		if (lost == -ECONNRESET || lost == -EPIPE)
			status = EXIT_OK;
		if (lost == -EPIPE) {
			gpu_aes_guest_disconnect(g);
			g = NULL;
		}
	}
	gpu_aes_guest_disconnect(g);
	return status;
}

int main(int argc, char **argv)
{
	struct options o = {
		.device = "/dev/" GPU_AES_DEVICE_NAME,
		.status_file = "/run/gpu-aes/helper.json",
		.backend = "auto",
		.entries = DEFAULT_ENTRIES,
		.keys = DEFAULT_KEYS,
		.queue_data_mib = DEFAULT_QUEUE_DATA_MIB,
		.spin_us = 50,
		.threads = 1,
	};
	const struct gpu_aes_backend_ops *ops;

	/* Before anything in OpenSSL allocates (secret.h). */
	if (gpu_aes_secret_openssl_init()) {
		fprintf(stderr, "gpu-aes-helper: OpenSSL allocated memory before main(): its key contexts could not be kept out of core dumps\n");
		return EXIT_FAIL;
	}
	g_started = time(NULL);
	if (parse(argc, argv, &o))
		return EXIT_USAGE;
	gpu_aes_log_level = o.verbose ? LOG_DEBUG : LOG_INFO;
	g_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g_stop_fd < 0 || setup_signals()) {
		log_err("cannot install signal handlers: %s", strerror(errno));
		return EXIT_FAIL;
	}
	log_info("gpu-aes-helper %s, ABI %u", GPU_AES_HELPER_VERSION,
		 GPU_AES_ABI_VERSION);
	ops = pick_backend(o.backend);
	if (!ops)
		return EXIT_BACKEND;
	log_info("backend %s chosen (asked for %s)", ops->name, o.backend);
	return o.guest_port ? serve_guest(&o, ops) : serve(&o, ops);
}
