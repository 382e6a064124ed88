// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpu-aesctl: the operator's tool for gpu-aes (docs/gpu-aesctl.8).
 *
 *   gpu-aesctl [--root DIR] [--status-file PATH] COMMAND [--json] [...]
 *
 * status (the default), top (watch), metrics, bench.  It only reads what
 * the module and the helper expose; it needs no privileges (bench opens
 * AF_ALG sockets, as any user may).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "aesctl.h"

#ifndef GPU_AES_HELPER_VERSION
#define GPU_AES_HELPER_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
"Usage: gpu-aesctl [OPTION]... [COMMAND] [COMMAND OPTION]...\n"
"Report on gpu-aes: the gpu_aes module, its helper and their counters.\n"
"\n"
"Commands:\n"
"  status            module, parameters, helper, GPUs, queues, dispatch,\n"
"                    algorithms, counters and problems (the default)\n"
"  top, watch        live rates per algorithm and path, every second\n"
"  metrics           Prometheus text exposition of the counters\n"
"  bench             AF_ALG throughput of our drivers vs the best CPU driver\n"
"\n"
"Options (before or after the command):\n"
"  -j, --json              JSON instead of text\n"
"      --root DIR          read sys/, proc/ and run/ under DIR (for tests)\n"
"      --status-file PATH  the helper's status file\n"
"                          (default " DEFAULT_STATUS_FILE ")\n"
"  -V, --version           print the version and exit\n"
"  -h, --help              this text; 'gpu-aesctl COMMAND --help' for one\n"
"\n"
"Exit status: 0 done, 1 failure, 2 bad command line, 3 gpu_aes not loaded.\n"
"See gpu-aesctl(8).\n");
}

static const struct {
	const char *name;
	int (*fn)(struct ctl *c, int argc, char **argv);
} commands[] = {
	{ "status", cmd_status },
	{ "top", cmd_top },
	{ "watch", cmd_top },
	{ "metrics", cmd_metrics },
	{ "bench", cmd_bench },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, 'r' },
		{ "status-file", required_argument, NULL, 'S' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl c = { .root = "", .status_file = NULL, .json = 0 };
	size_t i;
	int o;

	/* Global options stop at the command ('+'). */
	opterr = 0;
	while ((o = getopt_long(argc, argv, "+jVh", longopts, NULL)) != -1) {
		switch (o) {
		case 'j':
			c.json = 1;
			break;
		case 'r':
			c.root = optarg;
			break;
		case 'S':
			c.status_file = optarg;
			break;
		case 'V':
			printf("gpu-aesctl %s\n", GPU_AES_HELPER_VERSION);
			return CTL_OK;
		case 'h':
			usage(stdout);
			return CTL_OK;
		default:
			if (optopt)
				ctl_err("option -%c: unknown or missing its value (see --help)",
					optopt);
			else
				ctl_err("unknown option '%s' (see --help)",
					argv[optind - 1]);
			return CTL_USAGE;
		}
	}
	/* 0, not 1: glibc then forgets the state of the parse above too. */
	if (optind == argc) {
		char *status_argv[] = { "status", NULL };

		optind = 0;
		return cmd_status(&c, 1, status_argv);
	}
	if (strcmp(argv[optind], "help") == 0) {
		usage(stdout);
		return CTL_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[optind], commands[i].name) == 0) {
			char **cargv = argv + optind;
			int cargc = argc - optind;

			optind = 0;
			opterr = 0;
			return commands[i].fn(&c, cargc, cargv);
		}
	ctl_err("unknown command '%s': status, top, metrics or bench (see --help)",
		argv[optind]);
	return CTL_USAGE;
}
