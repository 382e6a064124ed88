// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics.c - gpu-aesctl metrics: the counters, the status files and the
 * helper's status file in the Prometheus text exposition format (0.0.4),
 * for node_exporter's textfile collector (dist/systemd/gpu-aesctl-
 * metrics.{service,timer} write it every 15 s).
 *
 * Counters that split by algorithm or by fallback reason become one family
 * with an "alg" or "reason" label (the parts of a reason, fallback_policy_X,
 * a family of their own, gpu_aes_fallback_policy_requests_total, so that
 * each family adds up); the dispatch policy's policy_ring_X become
 * gpu_aes_policy_ring_requests_total{reason="X"}; the totals become
 * gpu_aes_requests_total and gpu_aes_bytes_total with a "path" label (ring
 * or cpu).  A counter this file does not know is still exported, as
 * gpu_aes_<name>_total.  The per-queue files become gauges with a "queue"
 * label.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/file_atomic.h"
#include "aesctl.h"

#define MAX_LABELS 4
/* Ends the label pairs of sample(): a null pointer of the right type. */
#define END ((const char *)0)

struct sample {
	const char *key[MAX_LABELS];	/* NULL-terminated unless full */
	char val[MAX_LABELS][256];	/* unescaped */
	char value[40];
};

struct family {
	char name[128];
	const char *type;	/* counter or gauge */
	char help[256];
	struct sample *s;
	size_t n;
};

struct fams {
	struct family *f;
	size_t n;
	int oom;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: gpu-aesctl metrics [--output FILE] [--json]\n"
"The counters and status in the Prometheus text format.  With --output the\n"
"file is replaced atomically (a temporary file in its directory, then\n"
"rename), for node_exporter's textfile collector.  Without the module it\n"
"still writes gpu_aes_module_loaded 0, and exits with status 3.\n");
}

static struct family *family(struct fams *fs, const char *name,
			     const char *type, const char *help)
{
	struct family *f;
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (strcmp(fs->f[i].name, name) == 0)
			return &fs->f[i];
	f = realloc(fs->f, (fs->n + 1) * sizeof(*f));
	if (!f) {
		fs->oom = 1;
		return NULL;
	}
	fs->f = f;
	f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->type = type;
	snprintf(f->help, sizeof(f->help), "%s", help);
	return f;
}

/*
 * One sample; after @value come label pairs "key", "value", ..., END (at
 * most MAX_LABELS).
 */
static void sample(struct fams *fs, const char *name, const char *type,
		   const char *help, const char *value, ...)
{
	struct family *f = family(fs, name, type, help);
	struct sample *s;
	const char *k;
	va_list ap;
	int i = 0;

	if (!f)
		return;
	s = realloc(f->s, (f->n + 1) * sizeof(*s));
	if (!s) {
		fs->oom = 1;
		return;
	}
	f->s = s;
	s = &f->s[f->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->value, sizeof(s->value), "%s", value);
	va_start(ap, value);
	/* clang-analyzer 14 misreads x86-64's va_start (see ../src/log.c). */
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	while (i < MAX_LABELS && (k = va_arg(ap, const char *))) {
		s->key[i] = k;
		snprintf(s->val[i], sizeof(s->val[i]), "%s",
			 va_arg(ap, const char *));
		i++;
	}
	va_end(ap);
}

static const char *num(char *buf, size_t len, long long v)
{
	snprintf(buf, len, "%lld", v);
	return buf;
}

/* A metric name from a sysfs file name: [a-zA-Z0-9_] only. */
static void metric_name(char *out, size_t len, const char *prefix,
			const char *name, const char *suffix)
{
	size_t o = 0, sl = strlen(suffix), nl;
	const char *p;

	o = (size_t)snprintf(out, len, "%s", prefix);
	for (p = name; *p && o + 1 < len; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9');

		out[o++] = *p;
		if (!ok)
			out[o - 1] = '_';
	}
	out[o] = 0;
	nl = strlen(out);
	if (nl >= sl && strcmp(out + nl - sl, suffix) == 0)
		return;
	snprintf(out + o, len - o, "%s", suffix);
}

static const struct {
	const char *name;
	const char *help;
} counter_help[] = {
	{ "backlogged", "MAY_BACKLOG requests answered -EBUSY and queued" },
	{ "timeouts", "Ring or backlog requests whose deadline passed (recomputed on the CPU)" },
	{ "rejected_completions", "Completion entries (or batches) from the helper that failed validation" },
	{ "late_completions", "Valid completions of requests that had timed out" },
	{ "helper_errors", "Completions with an error status (recomputed on the CPU)" },
	{ "helper_attaches", "Helpers that attached (successful SETUPs)" },
	{ "recomputed", "Ring or backlog requests replayed on the CPU" },
	{ "auth_failures", "GCM decryptions on the ring that ended in -EBADMSG" },
};

static void counters(struct fams *fs, const struct state *s)
{
	char part[64], name[160], help[256];
	size_t i, j, pl;

	for (i = 0; i < s->stats.n; i++) {
		const struct kv *kv = &s->stats.v[i];

		if (!kv->numeric)
			continue;
		if (strcmp(kv->name, "ring_requests") == 0 ||
		    strcmp(kv->name, "fallback_requests") == 0) {
			sample(fs, "gpu_aes_requests_total", "counter",
			       "Requests by path: ring (to the helper) or cpu (the module's fallback at submission).",
			       kv->text, "path", kv->name[0] == 'r' ? "ring" : "cpu",
			       END);
		} else if (strcmp(kv->name, "ring_bytes") == 0 ||
			   strcmp(kv->name, "fallback_bytes") == 0) {
			sample(fs, "gpu_aes_bytes_total", "counter",
			       "Bytes of requests by path (gcm on the cpu path: text plus associated data).",
			       kv->text, "path", kv->name[0] == 'r' ? "ring" : "cpu",
			       END);
		} else if (counter_split(kv->name, "ring_", "_requests", part,
					 sizeof(part))) {
			sample(fs, "gpu_aes_ring_requests_total", "counter",
			       "Requests posted to the ring, by algorithm.",
			       kv->text, "alg", part, END);
		} else if (counter_split(kv->name, "ring_", "_bytes", part,
					 sizeof(part))) {
			sample(fs, "gpu_aes_ring_bytes_total", "counter",
			       "Bytes of requests posted to the ring, by algorithm.",
			       kv->text, "alg", part, END);
		} else if (counter_split(kv->name, "fallback_", "", part,
					 sizeof(part)) &&
			   (pl = reason_parent(&s->stats, part))) {
			snprintf(name, sizeof(name),
				 "gpu_aes_fallback_%.*s_requests_total", (int)pl,
				 part);
			snprintf(help, sizeof(help),
				 "Requests run on the CPU for the reason fallback_%.*s, by its part.",
				 (int)pl, part);
			sample(fs, name, "counter", help, kv->text, "reason",
			       part + pl + 1, END);
		} else if (counter_split(kv->name, "fallback_", "", part,
					 sizeof(part))) {
			sample(fs, "gpu_aes_fallback_requests_total", "counter",
			       "Requests run on the CPU at submission, by reason.",
			       kv->text, "reason", part, END);
		} else if (counter_split(kv->name, "policy_ring_", "", part,
					 sizeof(part))) {
			sample(fs, "gpu_aes_policy_ring_requests_total", "counter",
			       "Requests the dispatch policy sent to the ring, by reason.",
			       kv->text, "reason", part, END);
		} else {
			snprintf(help, sizeof(help),
				 "/sys/class/misc/gpu_aes/stats/%s", kv->name);
			for (j = 0; j < sizeof(counter_help) / sizeof(counter_help[0]); j++)
				if (strcmp(counter_help[j].name, kv->name) == 0)
					snprintf(help, sizeof(help), "%s (%s).",
						 counter_help[j].help, kv->name);
			metric_name(name, sizeof(name), "gpu_aes_", kv->name,
				    "_total");
			sample(fs, name, "counter", help, kv->text, END);
		}
	}
}

static const struct {
	const char *file;
	const char *metric;
	const char *help;
} status_map[] = {
	{ "attached", "gpu_aes_helper_attached", "1 while a helper is attached." },
	{ "stalled", "gpu_aes_ring_stalled_queues", "Queues on which the helper is stalled (their new requests run on the CPU)." },
	{ "queues", "gpu_aes_ring_queues", "Queues of the attached helper's region." },
	{ "queue_entries", "gpu_aes_ring_queue_entries", "Entries of each queue." },
	{ "queue_data_bytes", "gpu_aes_ring_queue_data_bytes", "Size of each queue's slice of the data area." },
	{ "entries", "gpu_aes_ring_entries", "Entries of all queues." },
	{ "keys", "gpu_aes_ring_key_slots", "Key table slots." },
	{ "keys_used", "gpu_aes_ring_key_slots_used", "Key table slots held by tfms." },
	{ "data_bytes", "gpu_aes_ring_data_bytes", "Size of the data area (all queues)." },
	{ "data_used", "gpu_aes_ring_data_used_bytes", "Data area bytes held by requests (all queues)." },
	{ "in_flight", "gpu_aes_ring_in_flight_requests", "Requests posted to the helper and not completed (all queues)." },
	{ "backlog", "gpu_aes_ring_backlog_requests", "Requests waiting in the backlogs (all queues)." },
	{ "helper_pid", NULL, NULL },
	{ "attached_since", NULL, NULL },
	{ "stalled_since", NULL, NULL },
};

static void status_gauges(struct fams *fs, const struct state *s)
{
	char name[160], help[200], v[40];
	size_t i, j;
	long long since;

	for (i = 0; i < s->status.n; i++) {
		const struct kv *kv = &s->status.v[i];

		if (!kv->numeric)
			continue;
		for (j = 0; j < sizeof(status_map) / sizeof(status_map[0]); j++)
			if (strcmp(status_map[j].file, kv->name) == 0)
				break;
		if (j < sizeof(status_map) / sizeof(status_map[0])) {
			if (status_map[j].metric)
				sample(fs, status_map[j].metric, "gauge",
				       status_map[j].help, kv->text, END);
			continue;
		}
		metric_name(name, sizeof(name), "gpu_aes_status_", kv->name, "");
		snprintf(help, sizeof(help), "/sys/class/misc/gpu_aes/status/%s",
			 kv->name);
		sample(fs, name, "gauge", help, kv->text, END);
	}
	/* Times as Unix time, as Prometheus prefers. */
	since = kv_value(&s->status, "attached_since", 0);
	if (kv_value(&s->status, "attached", 0) && since) {
		snprintf(v, sizeof(v), "%.0f", s->now - (s->uptime - (double)since));
		sample(fs, "gpu_aes_helper_attach_time_seconds", "gauge",
		       "When the helper attached, Unix time.", v, END);
	}
	since = kv_value(&s->status, "stalled_since", 0);
	if (kv_value(&s->status, "stalled", 0) && since) {
		snprintf(v, sizeof(v), "%.0f", s->now - (s->uptime - (double)since));
		sample(fs, "gpu_aes_helper_stall_time_seconds", "gauge",
		       "When the oldest current stall began, Unix time.", v, END);
	}
}

static const struct {
	const char *file;
	const char *metric;
	const char *help;
} queue_map[] = {
	{ "in_flight", "gpu_aes_queue_in_flight_requests", "Requests posted to the helper on the queue and not completed." },
	{ "backlog", "gpu_aes_queue_backlog_requests", "Requests waiting in the queue's backlog." },
	{ "data_used", "gpu_aes_queue_data_used_bytes", "Bytes of the queue's data slice held by requests." },
	{ "stalled", "gpu_aes_queue_stalled", "1 while the helper is stalled on the queue." },
	{ "stalled_since", NULL, NULL },
};

/* The queues directory: one sample per queue, labelled by its number. */
static void queue_gauges(struct fams *fs, const struct state *s)
{
	static long long v[MAX_QUEUES], st[MAX_QUEUES];
	char name[160], help[200], val[40], q[16];
	size_t i, j;
	int n, k, ns;

	for (i = 0; i < s->queues.n; i++) {
		const struct kv *kv = &s->queues.v[i];
		const char *metric = NULL, *h = NULL;

		n = kv_list(&s->queues, kv->name, v, MAX_QUEUES);
		if (n < 0)
			continue;
		for (j = 0; j < sizeof(queue_map) / sizeof(queue_map[0]); j++)
			if (strcmp(queue_map[j].file, kv->name) == 0)
				break;
		if (j < sizeof(queue_map) / sizeof(queue_map[0])) {
			metric = queue_map[j].metric;
			h = queue_map[j].help;
			if (!metric)
				continue;
		} else {
			metric_name(name, sizeof(name), "gpu_aes_queue_",
				    kv->name, "");
			snprintf(help, sizeof(help),
				 "/sys/class/misc/gpu_aes/queues/%s", kv->name);
			metric = name;
			h = help;
		}
		for (k = 0; k < n && k < MAX_QUEUES; k++)
			sample(fs, metric, "gauge", h, num(val, sizeof(val), v[k]),
			       "queue", num(q, sizeof(q), k), END);
	}
	/* A stalled queue's stall as Unix time. */
	n = kv_list(&s->queues, "stalled_since", v, MAX_QUEUES);
	ns = kv_list(&s->queues, "stalled", st, MAX_QUEUES);
	for (k = 0; n == ns && k < n && k < MAX_QUEUES; k++) {
		if (!st[k] || !v[k])
			continue;
		snprintf(val, sizeof(val), "%.0f",
			 s->now - (s->uptime - (double)v[k]));
		sample(fs, "gpu_aes_queue_stall_time_seconds", "gauge",
		       "When the queue's current stall began, Unix time.", val,
		       "queue", num(q, sizeof(q), k), END);
	}
}

/*
 * What the helper publishes of its cost, and the module's dispatch
 * estimates as the helper's status file carries them: each <path>_ns_per_kib
 * column of a row (alg, bytes) a sample labelled path, and whether auto
 * chooses the ring there.
 */
static void dispatch(struct fams *fs, struct json_object *d)
{
	struct json_object *est = jget(d, "estimates");
	size_t i, nrows = json_object_is_type(est, json_type_array) ?
		json_object_array_length(est) : 0;
	char path[64];

	if (!json_object_is_type(d, json_type_object))
		return;
	if (jint(d, "helper_cpu_ns_per_kib", -1) >= 0) {
		char b[40];

		sample(fs, "gpu_aes_helper_cpu_ns_per_kib", "gauge",
		       "Host CPU per KiB the helper says serving costs it (0: not measured).",
		       num(b, sizeof(b), jint(d, "helper_cpu_ns_per_kib", 0)),
		       END);
		sample(fs, "gpu_aes_helper_mib_per_s", "gauge",
		       "The rate the helper says it sustains, MiB/s (0: not measured).",
		       num(b, sizeof(b), jint(d, "helper_mib_per_s", 0)), END);
	}
	for (i = 0; i < nrows; i++) {
		struct json_object *r = json_object_array_get_idx(est, i);
		const char *alg = jstr(r, "alg", NULL);
		char bytes[40];

		if (!alg || jint(r, "bytes", -1) < 0)
			continue;
		num(bytes, sizeof(bytes), jint(r, "bytes", 0));
		/* jstr() found "alg": @r is an object. */
		json_object_object_foreach(r, key, v) {
			if (!counter_split(key, "", "_ns_per_kib", path,
					   sizeof(path)) ||
			    (!json_object_is_type(v, json_type_int) &&
			     !json_object_is_type(v, json_type_double)))
				continue;
			/* The number as the file has it. */
			sample(fs, "gpu_aes_dispatch_cost_ns_per_kib", "gauge",
			       "The dispatch policy's estimate of a path's CPU per KiB, by algorithm and request size (dispatch/estimates).",
			       json_object_to_json_string_ext(v,
					JSON_C_TO_STRING_PLAIN),
			       "alg", alg, "bytes", bytes, "path", path, END);
		}
		if (jstr(r, "auto", NULL))
			sample(fs, "gpu_aes_dispatch_auto_ring", "gauge",
			       "1 where dispatch=auto would send a request to the ring, by algorithm and request size.",
			       strcmp(jstr(r, "auto", ""), "ring") == 0 ? "1" : "0",
			       "alg", alg, "bytes", bytes, END);
	}
}

static void helper_file(struct fams *fs, const struct state *s)
{
	struct json_object *d = s->hf.doc, *cnt, *gpus;
	static const char *const hc[][2] = {
		{ "batches", "Batches the helper handed to its backend." },
		{ "requests", "Requests the helper completed (invalid ones included)." },
		{ "bytes", "Bytes of valid requests the helper processed." },
		{ "invalid", "Requests the helper completed with -EINVAL." },
		{ "sleeps", "Times the helper slept in poll()." },
	};
	char name[96], b[40], id[16];
	size_t i, ngpus;

	sample(fs, "gpu_aes_helper_status_file_present", "gauge",
	       "1 when the helper's status file exists and parses.",
	       d ? "1" : "0", END);
	if (!d)
		return;
	sample(fs, "gpu_aes_helper_info", "gauge",
	       "The helper's version and backend (value 1).", "1", "version",
	       jstr(d, "version", ""), "backend", jstr(d, "backend", ""),
	       END);
	sample(fs, "gpu_aes_helper_status_updated_time_seconds", "gauge",
	       "When the helper last wrote its status file, Unix time.",
	       num(b, sizeof(b), jint(d, "updated", 0)), END);
	cnt = jget(d, "counters");
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "gpu_aes_helper_%s_total", hc[i][0]);
		sample(fs, name, "counter", hc[i][1],
		       num(b, sizeof(b), jint(cnt, hc[i][0], 0)), END);
	}
	dispatch(fs, jget(d, "dispatch"));
	gpus = jget(d, "gpus_unusable");
	sample(fs, "gpu_aes_gpus_unusable", "gauge",
	       "GPUs the helper found and cannot use (gpu-aesctl status says why).",
	       num(b, sizeof(b), json_object_is_type(gpus, json_type_array) ?
		   (long long)json_object_array_length(gpus) : 0), END);
	gpus = jget(d, "gpus");
	ngpus = json_object_is_type(gpus, json_type_array) ?
		json_object_array_length(gpus) : 0;
	sample(fs, "gpu_aes_gpus", "gauge", "GPUs the helper runs on.",
	       num(b, sizeof(b), (long long)ngpus), END);
	for (i = 0; i < ngpus; i++) {
		struct json_object *g = json_object_array_get_idx(gpus, i);
		struct json_object *l = jget(g, "pcie");

		num(id, sizeof(id), jint(g, "id", -1));
		sample(fs, "gpu_aes_gpu_info", "gauge",
		       "A GPU the helper runs on (value 1).", "1", "gpu", id,
		       "name", jstr(g, "name", ""), "pci",
		       jstr(g, "pci", ""), END);
		if (jstr(g, "path", NULL))
			sample(fs, "gpu_aes_gpu_code_info", "gauge",
			       "The GPU's compute capability, code path and the SASS it runs (value 1).",
			       "1", "gpu", id, "cc", jstr(g, "cc", ""), "path",
			       jstr(g, "path", ""), "code", jstr(g, "code", ""),
			       END);
		sample(fs, "gpu_aes_gpu_memory_bytes", "gauge",
		       "Device memory of the GPU.",
		       num(b, sizeof(b), jint(g, "memory_bytes", 0)), "gpu",
		       id, END);
		if (!json_object_is_type(l, json_type_object))
			continue;
		sample(fs, "gpu_aes_gpu_pcie_link_gen", "gauge",
		       "Current PCIe generation of the GPU's link.",
		       num(b, sizeof(b), jint(l, "gen", 0)), "gpu", id, END);
		sample(fs, "gpu_aes_gpu_pcie_link_width", "gauge",
		       "Current PCIe width of the GPU's link (lanes).",
		       num(b, sizeof(b), jint(l, "width", 0)), "gpu", id, END);
		sample(fs, "gpu_aes_gpu_pcie_link_max_gen", "gauge",
		       "Highest PCIe generation of the GPU's link.",
		       num(b, sizeof(b), jint(l, "max_gen", 0)), "gpu", id,
		       END);
		sample(fs, "gpu_aes_gpu_pcie_link_max_width", "gauge",
		       "Widest PCIe width of the GPU's link (lanes).",
		       num(b, sizeof(b), jint(l, "max_width", 0)), "gpu", id,
		       END);
	}
}

static void algorithms(struct fams *fs, const struct state *s)
{
	struct alg_view av[16];
	size_t i, n = state_algs(s, av, 16);
	char alg[64], b[40];

	for (i = 0; i < n; i++) {
		const struct calg *o = av[i].ours;

		snprintf(alg, sizeof(alg), "%.*s", (int)strcspn(o->name, "("),
			 o->name);
		sample(fs, "gpu_aes_algorithm_selected", "gauge",
		       "1 when a lookup of the algorithm by name gets gpu_aes's driver.",
		       av[i].winner == o ? "1" : "0", "alg", alg, "driver",
		       o->driver, END);
		sample(fs, "gpu_aes_algorithm_selftest_passed", "gauge",
		       "1 when the driver passed the crypto self-tests.",
		       strcmp(o->selftest, "passed") == 0 ? "1" : "0", "alg", alg,
		       "driver", o->driver, END);
		sample(fs, "gpu_aes_algorithm_refcnt", "gauge",
		       "Users of the driver (/proc/crypto refcnt).",
		       num(b, sizeof(b), o->refcnt), "alg", alg, "driver",
		       o->driver, END);
	}
}

static void collect(struct fams *fs, const struct state *s)
{
	size_t i;

	sample(fs, "gpu_aes_module_loaded", "gauge",
	       "1 when the gpu_aes module is loaded.", s ? "1" : "0", END);
	if (!s)
		return;
	sample(fs, "gpu_aes_module_info", "gauge",
	       "The module's version (value 1).", "1", "version", s->version,
	       END);
	for (i = 0; i < s->params.n; i++)
		if (s->params.v[i].numeric)
			sample(fs, "gpu_aes_parameter", "gauge",
			       "Numeric module parameters (/sys/module/gpu_aes/parameters).",
			       s->params.v[i].text, "name", s->params.v[i].name,
			       END);
		else
			sample(fs, "gpu_aes_parameter_info", "gauge",
			       "Other module parameters, such as dispatch (value 1).",
			       "1", "name", s->params.v[i].name, "value",
			       s->params.v[i].text, END);
	counters(fs, s);
	status_gauges(fs, s);
	queue_gauges(fs, s);
	helper_file(fs, s);
	algorithms(fs, s);
}

/* A label value in the text format: \\, \" and \n escaped. */
static void put_label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

static void write_text(FILE *f, const struct fams *fs)
{
	size_t i, j;
	int k;

	for (i = 0; i < fs->n; i++) {
		const struct family *fam = &fs->f[i];

		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help,
			fam->name, fam->type);
		for (j = 0; j < fam->n; j++) {
			const struct sample *sm = &fam->s[j];

			fputs(fam->name, f);
			for (k = 0; k < MAX_LABELS && sm->key[k]; k++) {
				fprintf(f, "%s%s=\"", k ? "," : "{", sm->key[k]);
				put_label(f, sm->val[k]);
				fputc('"', f);
			}
			fprintf(f, "%s %s\n", k ? "}" : "", sm->value);
		}
	}
}

static void write_json(FILE *f, const struct fams *fs)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *metrics = jo_arr(doc, "metrics");
	char err[64];
	size_t i, j;
	int k;

	for (i = 0; i < fs->n; i++) {
		const struct family *fam = &fs->f[i];
		struct json_object *fo = jo_obj(metrics, NULL), *samples;


		jo_str(fo, "name", fam->name);
		jo_str(fo, "type", fam->type);
		jo_str(fo, "help", fam->help);
		samples = jo_arr(fo, "samples");
		for (j = 0; j < fam->n; j++) {
			const struct sample *sm = &fam->s[j];
			struct json_object *so = jo_obj(samples, NULL);
			struct json_object *labels = jo_obj(so, "labels"), *v;

			for (k = 0; k < MAX_LABELS && sm->key[k]; k++)
				jo_str(labels, sm->key[k], sm->val[k]);
			/* A value is a JSON number as written (or null). */
			if (jparse(sm->value, strlen(sm->value), &v, err,
				   sizeof(err)) == 0 &&
			    (json_object_is_type(v, json_type_int) ||
			     json_object_is_type(v, json_type_double)))
				jo_value(so, "value", v);
			else
				jo_null(so, "value");
			json_object_put(v);
		}
	}
	/* A failed write shows in the stream's error flag. */
	jo_print(f, doc, 1);
}

static void fams_free(struct fams *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		free(fs->f[i].s);
	free(fs->f);
}

/* Writes to @path atomically (file_atomic.c); 0 or -errno. */
static int write_metrics_file(const char *path, const struct fams *fs,
			      int json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	if (json)
		write_json(f, fs);
	else
		write_text(f, fs);
	err = fclose(f) ? -ENOMEM : gpu_aes_write_atomic(path, text, len);
	free(text);
	return err;
}

int cmd_metrics(struct ctl *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		CTL_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	struct fams fs = { NULL, 0, 0 };
	struct state s;
	int o, rc, err;

	while ((o = ctl_getopt(c, argc, argv, ":jho:", longopts,
				usage)) >= 0) {
		output = optarg;	/* 'o' */
		if (!*output) {
			ctl_err("metrics: --output needs a file name");
			return CTL_USAGE;
		}
	}
	if (o != CTL_OPTS_END)
		return ctl_opts_exit(o);
	rc = state_read(c, &s, ST_CRYPTO | ST_HELPER);
	collect(&fs, rc ? NULL : &s);
	if (fs.oom) {
		ctl_err("metrics: out of memory");
		rc = CTL_FAIL;
	} else if (output) {
		err = write_metrics_file(output, &fs, c->json);
		if (err) {
			ctl_err("metrics: cannot write %s: %s", output,
				strerror(-err));
			rc = CTL_FAIL;
		}
	} else {
		if (c->json)
			write_json(stdout, &fs);
		else
			write_text(stdout, &fs);
		if (fflush(stdout) || ferror(stdout)) {
			ctl_err("metrics: cannot write to standard output");
			rc = CTL_FAIL;
		}
	}
	fams_free(&fs);
	state_free(&s);
	return rc;
}
