/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aesctl.h - gpu-aesctl, the operator's tool: what the module and the
 * helper expose (sysfs, /proc/crypto, the helper's status file), read-only,
 * as a status report, a live view, Prometheus metrics and an AF_ALG
 * benchmark.  docs/gpu-aesctl.8 is the user's side of this file.
 */
#ifndef GPU_AESCTL_H
#define GPU_AESCTL_H

#include <getopt.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

#include "../../uapi/gpu_aes.h"

/* Exit statuses (docs/gpu-aesctl.8). */
enum {
	CTL_OK = 0,
	CTL_FAIL = 1,		/* a failure while running */
	CTL_USAGE = 2,		/* bad command line */
	CTL_NOMODULE = 3,	/* gpu_aes is not loaded */
};

#define PROG "gpu-aesctl"
#define DEFAULT_STATUS_FILE "/run/gpu-aes/helper.json"

/* Options every command takes. */
struct ctl {
	const char *root;	/* "" or a directory standing in for / */
	const char *status_file;/* the helper's, under root unless given */
	int json;
};

/* One line to stderr, "gpu-aesctl: ..." */
void ctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- json.c: json-c, strict on input ------------------------------------ */

/*
 * Parses @len bytes of @text: one JSON value, then only white space, in
 * json-c's strict mode and more (valid UTF-8, no control byte but tab, CR
 * and LF, every number finite), nested at most 32 deep.  0 with the value in
 * @out (NULL for null; json_object_put() it), or -1 with a short reason in
 * @err.
 */
int jparse(const char *text, size_t len, struct json_object **out,
	   char *err, size_t errlen);
/* The member @key of an object, NULL if absent or @v is not an object. */
struct json_object *jget(struct json_object *v, const char *key);
/*
 * Typed getters: the value, or @def when absent or of another type (a
 * number, for jint(); key NULL: @v itself).
 */
long long jint(struct json_object *v, const char *key, long long def);
const char *jstr(struct json_object *v, const char *key, const char *def);
int jbool(struct json_object *v, const char *key, int def);

/*
 * Building a document: each adds a value to @parent, under @key in an
 * object (key ignored in an array); jo_obj() and jo_arr() return the new
 * container.
 */
struct json_object *jo_obj(struct json_object *parent, const char *key);
struct json_object *jo_arr(struct json_object *parent, const char *key);
void jo_str(struct json_object *parent, const char *key, const char *s);
void jo_int(struct json_object *parent, const char *key, long long v);
/* With @decimals digits after the point; not finite: null. */
void jo_num(struct json_object *parent, const char *key, double v,
	    int decimals);
void jo_bool(struct json_object *parent, const char *key, int v);
void jo_null(struct json_object *parent, const char *key);
/* @v itself (a new reference), e.g. part of a parsed document. */
void jo_value(struct json_object *parent, const char *key,
	      struct json_object *v);
/*
 * Prints @doc and a newline, indented or on one line, and frees it; -1
 * if the write failed.
 */
int jo_print(FILE *f, struct json_object *doc, int pretty);

/* ---- state.c: everything gpu-aesctl reads --------------------------------- */

/* A file of a sysfs directory: its name and first line. */
struct kv {
	char *name;
	char *text;
	long long value;
	int numeric;		/* text is a decimal integer */
};

struct kvlist {
	struct kv *v;
	size_t n;
};

/* One /proc/crypto entry (the fields gpu-aesctl uses). */
struct calg {
	char name[128];
	char driver[128];
	char module[64];
	char type[32];
	char selftest[16];
	char internal[8];
	int priority;
	int refcnt;
	int ivsize;		/* bytes */
	int max_keysize;	/* bytes; skciphers only, else 0 */
};

/* The helper's status file. */
struct helper_file {
	char path[1024];
	int present;		/* exists and was read */
	char error[200];	/* why it could not be used, else "" */
	struct json_object *doc;	/* parsed, NULL unless usable */
};

struct problem {
	const char *level;	/* "error" or "warning" */
	char text[400];
};

#define MAX_PROBLEMS 32

struct state {
	int loaded;		/* /sys/module/gpu_aes exists */
	char version[64];
	struct kvlist params;	/* /sys/module/gpu_aes/parameters */
	struct kvlist stats;	/* /sys/class/misc/gpu_aes/stats */
	struct kvlist status;	/* /sys/class/misc/gpu_aes/status */
	int have_status;	/* the status directory exists */
	struct kvlist queues;	/* /sys/class/misc/gpu_aes/queues: lists */
	struct calg *algs;	/* /proc/crypto */
	size_t nalgs;
	/*
	 * The module's algorithms in its own order, their short names
	 * ("ecb", ...): the first column of dispatch/cpu_drivers.
	 */
	char order[16][16];
	size_t norder;
	/*
	 * The driver each of those runs on when it keeps a request on the
	 * CPU (the second column of dispatch/cpu_drivers; "-" until a tfm
	 * of it was made).
	 */
	char cpu_driver[16][128];
	double uptime;		/* /proc/uptime: CLOCK_BOOTTIME seconds */
	double now;		/* CLOCK_REALTIME seconds */
	struct helper_file hf;
	struct problem problems[MAX_PROBLEMS];
	size_t nproblems;
};

/* What state_read() reads besides the module's sysfs files. */
#define ST_CRYPTO	1U	/* /proc/crypto */
#define ST_HELPER	2U	/* the helper's status file */

/* root-relative path of a file, in @buf. */
const char *ctl_path(const struct ctl *c, char *buf, size_t len,
		     const char *rel);
/* Reads; returns CTL_OK, or CTL_NOMODULE with the message printed. */
int state_read(const struct ctl *c, struct state *s, unsigned int what);
void state_free(struct state *s);
/* Reads only the helper's status file (free hf->doc with json_object_put()). */
void state_read_helper(const struct ctl *c, struct helper_file *hf);
/*
 * Re-reads the counters (and, when not NULL, the status and per-queue
 * files) only, for top and bench.
 */
int state_read_counters(const struct ctl *c, struct kvlist *stats,
			struct kvlist *status, struct kvlist *queues);
void kvlist_free(struct kvlist *l);
const struct kv *kv_find(const struct kvlist *l, const char *name);
/* Value of @name in @l, or @def when absent or not numeric. */
long long kv_value(const struct kvlist *l, const char *name, long long def);
/*
 * A file of the queues directory: one integer per queue, separated by
 * blanks.  Fills @out with at most @max of them; returns how many there
 * are (more than @max: only @max read), or -1 when @name is absent or not
 * such a list.
 */
int kv_list(const struct kvlist *l, const char *name, long long *out,
	    int max);
/* Queues the module reports on: at most this many are shown. */
#define MAX_QUEUES 256

/* The gpu_aes drivers in /proc/crypto and who wins each lookup. */
struct alg_view {
	const struct calg *ours;	/* our entry */
	const struct calg *winner;	/* what a lookup by name returns */
	const struct calg *best_other;	/* the best non-gpu_aes driver */
};
size_t state_algs(const struct state *s, struct alg_view *out, size_t max);
/*
 * The best driver for @name (cra_name) that is neither gpu_aes's nor a
 * template instance built over one of them: what a lookup would get
 * without gpu_aes, the driver it displaced.
 */
const struct calg *state_best_other(const struct state *s, const char *name);
/*
 * The CPU driver of the module's algorithm @name ("xts(aes)") from
 * dispatch/cpu_drivers: NULL where the module does not list it or has
 * made no tfm of it yet.
 */
const char *state_cpu_driver(const struct state *s, const char *name);
const struct calg *state_find_driver(const struct state *s,
				     const char *driver);

/* Fills s->problems from what was read. */
void state_problems(struct state *s);

/* Parses a counter name "ring_<alg>_requests" etc.; see metrics.c. */
int counter_split(const char *name, const char *prefix, const char *suffix,
		  char *part, size_t len);

/*
 * The X of the counters "<prefix>X<suffix>" in @l (names in @skip left
 * out), the @known ones first in their order, the rest by name; returns
 * how many (at most @max).
 */
int counter_parts(const struct kvlist *l, const char *prefix,
		  const char *suffix, const char *const *known, int nknown,
		  const char *const *skip, char out[][64], int max);
/*
 * The modes' short names (the ABI's table: "ecb", "ctr", ...); the
 * fallback reasons; fallback_requests/_bytes, NULL.
 */
extern const char *const algs_known[GPU_AES_ALG_MAX];
extern const char *const reasons_known[8];
extern const char *const fallback_totals[3];
/* The dispatch policy's reasons (fallback_policy_X, policy_ring_X). */
extern const char *const policy_known[5];

/*
 * The fallback reasons in @l: the X of the counters fallback_X, totals
 * left out, known ones first.  A reason named after another and '_'
 * (policy_cost after policy) is a part of that one: with @sub 0 only the
 * others, which add up to fallback_requests; with @sub 1 only the parts.
 * Returns how many (at most @max).
 */
int fallback_reasons(const struct kvlist *l, int sub, char out[][64],
		     int max);
/* For a part (policy_cost), the length of its reason's name, else 0. */
size_t reason_parent(const struct kvlist *l, const char *reason);

/* "1.5 GiB", "512 B" ... */
const char *fmt_bytes(char *buf, size_t len, double v);
/* "3 min 2 s", "2 h 5 min" ... */
const char *fmt_age(char *buf, size_t len, double secs);
/* "2026-11-23 21:30:05" local time of a unix time. */
const char *fmt_time(char *buf, size_t len, double unix_s);

/* ---- the commands ----------------------------------------------------- */

/* ---- why.c: where dispatch=auto sends requests, and why ------------------ */

/*
 * Under dispatch=auto, the share of its decisions that went to the ring
 * and, per algorithm, the measured costs of both paths and the choice
 * they make (dispatch/estimates, dispatch/cpu_drivers), in words.
 */
void why_print(const struct ctl *c, const struct state *s);

int cmd_status(struct ctl *c, int argc, char **argv);
int cmd_top(struct ctl *c, int argc, char **argv);
int cmd_metrics(struct ctl *c, int argc, char **argv);
int cmd_bench(struct ctl *c, int argc, char **argv);

/* ---- options.c: the options every command takes ------------------------ */

/* The long options every command takes, for its option table. */
#define CTL_LONGOPTS							\
	{ "json", no_argument, NULL, 'j' },				\
	{ "root", required_argument, NULL, 'r' },			\
	{ "status-file", required_argument, NULL, 'S' },		\
	{ "help", no_argument, NULL, 'h' }

enum { CTL_OPTS_END = -1, CTL_OPTS_HELP = -2, CTL_OPTS_BAD = -3 };

/*
 * A command's getopt_long() loop (optstring starting with ':'), the common
 * options and every error handled here: returns the command's own next
 * option; at the end, CTL_OPTS_END if no operand follows.  CTL_OPTS_HELP:
 * @usage printed; CTL_OPTS_BAD: message printed.  The command then returns
 * ctl_opts_exit() of it.
 */
int ctl_getopt(struct ctl *c, int argc, char **argv, const char *optstring,
	       const struct option *longopts, void (*usage)(FILE *f));

static inline int ctl_opts_exit(int o)
{
	return o == CTL_OPTS_HELP ? CTL_OK : CTL_USAGE;
}

/*
 * Option parsing helpers: a number in [min, max] or an error message and
 * -1.
 */
int parse_double(const char *opt, const char *s, double min, double max,
		 double *out);
int parse_long(const char *opt, const char *s, long min, long max,
	       long *out);

#endif /* GPU_AESCTL_H */
