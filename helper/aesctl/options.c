// SPDX-License-Identifier: GPL-2.0-only
/*
 * options.c - the options every gpu-aesctl command takes after its name
 * (--json, --root, --status-file, --help), parsed with its own for each
 * command: apart from main.c, which calls the commands, so that the two
 * do not call each other.
 */
#include <getopt.h>

#include "aesctl.h"

/* What ctl_opt() did with one option. */
enum { CTL_OPT_OWN, CTL_OPT_DONE, CTL_OPT_HELP, CTL_OPT_BAD };

static int ctl_opt(struct ctl *c, int o, char **argv,
		   void (*cmd_usage)(FILE *f))
{
	switch (o) {
	case 'j':
		c->json = 1;
		return CTL_OPT_DONE;
	case 'r':
		c->root = optarg;
		return CTL_OPT_DONE;
	case 'S':
		c->status_file = optarg;
		return CTL_OPT_DONE;
	case 'h':
		cmd_usage(stdout);
		return CTL_OPT_HELP;
	case ':':
		ctl_err("%s: %s needs a value (see 'gpu-aesctl %s --help')",
			argv[0], argv[optind - 1], argv[0]);
		return CTL_OPT_BAD;
	case '?':
		if (optopt)
			ctl_err("%s: unknown option -%c (see 'gpu-aesctl %s --help')",
				argv[0], optopt, argv[0]);
		else
			ctl_err("%s: unknown option '%s' (see 'gpu-aesctl %s --help')",
				argv[0], argv[optind - 1], argv[0]);
		return CTL_OPT_BAD;
	default:
		return CTL_OPT_OWN;
	}
}

static int ctl_no_args(int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	ctl_err("%s: unexpected argument '%s' (see 'gpu-aesctl %s --help')",
		argv[0], argv[optind], argv[0]);
	return -1;
}

int ctl_getopt(struct ctl *c, int argc, char **argv, const char *optstring,
	       const struct option *longopts, void (*cmd_usage)(FILE *f))
{
	int o;

	while ((o = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		switch (ctl_opt(c, o, argv, cmd_usage)) {
		case CTL_OPT_DONE:
			continue;
		case CTL_OPT_HELP:
			return CTL_OPTS_HELP;
		case CTL_OPT_BAD:
			return CTL_OPTS_BAD;
		default:
			return o;
		}
	}
	return ctl_no_args(argc, argv) ? CTL_OPTS_BAD : CTL_OPTS_END;
}
