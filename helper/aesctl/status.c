// SPDX-License-Identifier: GPL-2.0-only
/*
 * status.c - gpu-aesctl status: one report of the module, its parameters,
 * the helper (pid, backend, GPUs, ring), the algorithms and their lookups,
 * every counter with totals, and the problems, as text or JSON.
 */
#include <getopt.h>
#include <string.h>

#include "aesctl.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: gpu-aesctl status [--json]\n"
"Module version and parameters, the helper (pid, backend, GPUs with name,\n"
"memory and PCIe link, its queues: geometry, occupancy and stalls, in all\n"
"and per queue), the dispatch policy's mode and estimates, each algorithm's\n"
"driver and whether it wins its lookup in /proc/crypto, every counter with\n"
"totals, and problems in plain words.  --json gives the same as one JSON\n"
"object.\n");
}

/* Totals of the counters that split by algorithm or reason. */
struct totals {
	long long ring_req, ring_bytes, cpu_req, cpu_bytes;
};

static void totals(const struct state *s, struct totals *t)
{
	t->ring_req = kv_value(&s->stats, "ring_requests", 0);
	t->ring_bytes = kv_value(&s->stats, "ring_bytes", 0);
	t->cpu_req = kv_value(&s->stats, "fallback_requests", 0);
	t->cpu_bytes = kv_value(&s->stats, "fallback_bytes", 0);
}

static double attach_time(const struct state *s)
{
	return s->now - (s->uptime -
			 (double)kv_value(&s->status, "attached_since", 0));
}

/* ---- text ------------------------------------------------------------- */

/*
 * A GPU's compute capability, code path and code, where the status file
 * has them (a helper older than they are writes none).
 */
static void text_gpu_code(struct json_object *g)
{
	if (jstr(g, "cc", NULL))
		printf(", compute capability %s", jstr(g, "cc", ""));
	if (!jstr(g, "path", NULL))
		return;
	printf(", %s path (%s", jstr(g, "path", ""), jstr(g, "code", "?"));
	if (jbool(g, "jit", 0))
		printf(" from %s PTX, JIT-compiled", jstr(g, "ptx", "?"));
	printf(")");
}

/* What the helper's status file says: version, backend, GPUs, region. */
static void text_helper_file(const struct state *s, struct json_object *d)
{
	struct json_object *gpus = jget(d, "gpus");
	struct json_object *unusable = jget(d, "gpus_unusable");
	size_t nunusable = json_object_is_type(unusable, json_type_array) ?
		json_object_array_length(unusable) : 0;
	struct json_object *ring = jget(d, "ring");
	struct json_object *cnt = jget(d, "counters");
	size_t ngpus = json_object_is_type(gpus, json_type_array) ?
		json_object_array_length(gpus) : 0;
	long long threads = jint(d, "threads", 1);
	long long updated = jint(d, "updated", 0);
	char b[64];
	size_t i;

	printf("             gpu-aes-helper %s (ABI %lld), backend %s, %lld thread%s, spin %lld us\n",
	       jstr(d, "version", "?"), jint(d, "abi", 0),
	       jstr(d, "backend", "?"), threads, threads == 1 ? "" : "s",
	       jint(d, "spin_us", 0));
	if (updated > 0)
		printf("             status file %s, updated %s ago\n", s->hf.path,
		       fmt_age(b, sizeof(b), s->now - (double)updated));
	else
		printf("             status file %s, no update time\n",
		       s->hf.path);
	printf("             helper counters: %lld batches, %lld requests, %s, %lld invalid, %lld sleeps\n",
	       jint(cnt, "batches", 0), jint(cnt, "requests", 0),
	       fmt_bytes(b, sizeof(b), (double)jint(cnt, "bytes", 0)),
	       jint(cnt, "invalid", 0), jint(cnt, "sleeps", 0));
	if (jstr(d, "fallback", NULL))
		printf("             fell back to the %s backend: %s\n",
		       jstr(d, "backend", "?"), jstr(d, "fallback", ""));
	if (!ngpus)
		printf("GPUs:        none%s (%s backend)\n",
		       nunusable ? " used" : "", jstr(d, "backend", "?"));
	else
		printf("GPUs:        %zu\n", ngpus);
	for (i = 0; i < ngpus; i++) {
		struct json_object *g = json_object_array_get_idx(gpus, i);
		struct json_object *l = jget(g, "pcie");

		printf("  GPU %-7lld %s", jint(g, "id", -1),
		       jstr(g, "name", "?"));
		text_gpu_code(g);
		printf(", %s, PCI %s",
		       fmt_bytes(b, sizeof(b),
				 (double)jint(g, "memory_bytes", 0)),
		       jstr(g, "pci", "?"));
		if (json_object_is_type(l, json_type_object))
			printf(", PCIe gen %lld x%lld (max gen %lld x%lld)",
			       jint(l, "gen", 0), jint(l, "width", 0),
			       jint(l, "max_gen", 0),
			       jint(l, "max_width", 0));
		printf("\n");
	}
	for (i = 0; i < nunusable; i++) {
		struct json_object *g = json_object_array_get_idx(unusable, i);

		printf("  GPU %-7lld %s", jint(g, "id", -1),
		       jstr(g, "name", "?"));
		if (jstr(g, "cc", NULL))
			printf(", compute capability %s", jstr(g, "cc", ""));
		printf(": not used: %s\n", jstr(g, "reason", "?"));
	}
	if (ring)
		printf("Region:      %s, %s\n",
		       fmt_bytes(b, sizeof(b),
				 (double)jint(ring, "region_bytes", 0)),
		       jstr(ring, "pages", "?"));
}

/* The queues, in all and one line each (the queues directory's lists). */
static void text_ring(const struct state *s)
{
	static long long in[MAX_QUEUES], bl[MAX_QUEUES], used[MAX_QUEUES];
	static long long st[MAX_QUEUES], since[MAX_QUEUES];
	long long nq = kv_value(&s->status, "queues", 0);
	long long stalled = kv_value(&s->status, "stalled", 0);
	char a[64], b[64], t[64], age[64];
	int n, i;

	printf("Ring:        %lld queue%s of %lld entries and %s data, %lld key slots (%lld used)\n",
	       nq, nq == 1 ? "" : "s", kv_value(&s->status, "queue_entries", 0),
	       fmt_bytes(a, sizeof(a),
			 (double)kv_value(&s->status, "queue_data_bytes", 0)),
	       kv_value(&s->status, "keys", 0),
	       kv_value(&s->status, "keys_used", 0));
	if (stalled)
		snprintf(t, sizeof(t), "%lld of %lld queue%s STALLED", stalled,
			 nq, nq == 1 ? "" : "s");
	else
		snprintf(t, sizeof(t), "no queue stalled");
	printf("             in all: %lld in flight, %lld backlogged, %s of %s data in use, %s\n",
	       kv_value(&s->status, "in_flight", 0),
	       kv_value(&s->status, "backlog", 0),
	       fmt_bytes(a, sizeof(a), (double)kv_value(&s->status, "data_used", 0)),
	       fmt_bytes(b, sizeof(b), (double)kv_value(&s->status, "data_bytes", 0)),
	       t);
	n = kv_list(&s->queues, "in_flight", in, MAX_QUEUES);
	if (n <= 0 || kv_list(&s->queues, "backlog", bl, MAX_QUEUES) != n ||
	    kv_list(&s->queues, "data_used", used, MAX_QUEUES) != n ||
	    kv_list(&s->queues, "stalled", st, MAX_QUEUES) != n ||
	    kv_list(&s->queues, "stalled_since", since, MAX_QUEUES) != n)
		return;
	for (i = 0; i < n && i < MAX_QUEUES; i++) {
		printf("  queue %-5d %lld in flight, %lld backlogged, %s data in use",
		       i, in[i], bl[i], fmt_bytes(a, sizeof(a), (double)used[i]));
		if (st[i])
			printf(", STALLED since %s (%s ago)",
			       fmt_time(t, sizeof(t), s->now - (s->uptime -
								(double)since[i])),
			       fmt_age(age, sizeof(age), s->uptime -
				       (double)since[i]));
		printf("\n");
	}
}

/* A JSON scalar as a table cell: null is "-", a number as written. */
static const char *cell(char *buf, size_t len, struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		snprintf(buf, len, "-");
		break;
	case json_type_string:
		snprintf(buf, len, "%s", json_object_get_string(v));
		break;
	case json_type_int:
	case json_type_double:
	case json_type_boolean:
		snprintf(buf, len, "%s", json_object_to_json_string_ext(v,
			 JSON_C_TO_STRING_PLAIN));
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
	return buf;
}

/*
 * The dispatch mode (a module parameter), what the helper publishes of
 * its cost and, from its status file, the module's estimates: a table
 * whose columns are the objects' keys, as the module names them.
 */
static void text_dispatch(const struct ctl *c, const struct state *s)
{
	struct json_object *d = jget(s->hf.doc, "dispatch");
	struct json_object *est = jget(d, "estimates");
	const struct kv *mode = kv_find(&s->params, "dispatch");
	struct json_object *first;
	const char *cols[16];
	char v[64];
	size_t i, k, nrows, ncols = 0;
	int w[16];

	printf("Dispatch:    %s", mode ? mode->text : "unknown (no dispatch parameter)");
	if (d && jint(d, "helper_cpu_ns_per_kib", 0) > 0)
		printf("; the helper says it costs %lld ns of CPU per KiB, at %lld MiB/s",
		       jint(d, "helper_cpu_ns_per_kib", 0),
		       jint(d, "helper_mib_per_s", 0));
	printf("\n");
	why_print(c, s);
	if (!json_object_is_type(est, json_type_array))
		return;
	nrows = json_object_array_length(est);
	first = json_object_array_get_idx(est, 0);
	if (!json_object_is_type(first, json_type_object))
		return;
	/* The first row's keys are the columns (16 at most). */
	json_object_object_foreach(first, key, val) {
		(void)val;
		if (ncols < 16)
			cols[ncols++] = key;
	}
	if (!ncols)
		return;
	for (k = 0; k < ncols; k++) {
		w[k] = (int)strlen(cols[k]);
		for (i = 0; i < nrows; i++) {
			int l = (int)strlen(cell(v, sizeof(v),
				jget(json_object_array_get_idx(est, i), cols[k])));

			if (l > w[k])
				w[k] = l;
		}
	}
	printf("  estimates (the helper's copy of dispatch/estimates):\n   ");
	for (k = 0; k < ncols; k++)
		printf(" %*s", w[k], cols[k]);
	printf("\n");
	for (i = 0; i < nrows; i++) {
		printf("   ");
		for (k = 0; k < ncols; k++)
			printf(" %*s", w[k], cell(v, sizeof(v),
				jget(json_object_array_get_idx(est, i), cols[k])));
		printf("\n");
	}
}

static void text_helper(const struct state *s)
{
	char t[64], a[64];

	if (!s->have_status) {
		printf("Helper:      unknown (the module has no status directory)\n");
		return;
	}
	if (!kv_value(&s->status, "attached", 0)) {
		printf("Helper:      not attached: every request runs on the CPU\n");
		return;
	}
	printf("Helper:      attached, pid %lld, since %s (%s ago)\n",
	       kv_value(&s->status, "helper_pid", 0),
	       fmt_time(t, sizeof(t), attach_time(s)),
	       fmt_age(a, sizeof(a), s->uptime -
		       (double)kv_value(&s->status, "attached_since", 0)));
	if (s->hf.doc)
		text_helper_file(s, s->hf.doc);
	else
		printf("             status file %s: %s\n", s->hf.path,
		       s->hf.error[0] ? s->hf.error : "missing");
	text_ring(s);
}

static void text_algs(const struct state *s)
{
	struct alg_view av[16];
	size_t i, n = state_algs(s, av, 16);

	printf("\nAlgorithms (/proc/crypto):\n");
	if (!n) {
		printf("  none registered by gpu_aes\n");
		return;
	}
	printf("  %-10s %-13s %8s  %-8s %6s  %s\n", "name", "driver",
	       "priority", "selftest", "refcnt", "lookup by name gets");
	for (i = 0; i < n; i++) {
		const struct calg *o = av[i].ours, *w = av[i].winner;
		const struct calg *x = av[i].best_other;
		char look[256];

		if (w == o)
			snprintf(look, sizeof(look), "ours%s%s%s%d%s",
				 x ? " (next: " : "", x ? x->driver : "",
				 x ? ", " : "", x ? x->priority : 0, x ? ")" : "");
		else if (w)
			snprintf(look, sizeof(look), "%s (priority %d), not ours",
				 w->driver, w->priority);
		else
			snprintf(look, sizeof(look), "nothing usable");
		printf("  %-10s %-13s %8d  %-8s %6d  %s\n", o->name, o->driver,
		       o->priority, o->selftest, o->refcnt, look);
	}
	printf("\nCPU path (dispatch/cpu_drivers): where gpu_aes runs what it keeps on the CPU\n");
	printf("    %-10s %-24s %s\n", "name", "driver",
	       "the driver lookups got without gpu_aes");
	for (i = 0; i < n; i++) {
		const char *cpu = state_cpu_driver(s, av[i].ours->name);
		const struct calg *x = av[i].best_other;
		char same[200];

		if (!cpu)
			snprintf(same, sizeof(same), "unknown (no request yet)");
		else if (!x)
			snprintf(same, sizeof(same), "none in /proc/crypto");
		else if (!strcmp(cpu, x->driver))
			snprintf(same, sizeof(same), "yes, the same");
		else
			snprintf(same, sizeof(same), "NO: %s (priority %d)",
				 x->driver, x->priority);
		printf("    %-10s %-24s %s\n", av[i].ours->name,
		       cpu ? cpu : "-", same);
	}
}

static void text_counters(const struct state *s)
{
	char parts[64][64], name[96];
	struct totals t;
	size_t i;
	int n;

	totals(s, &t);
	printf("\nRequests since load:   %15s %15s %15s\n", "ring", "cpu",
	       "total");
	printf("  requests             %15lld %15lld %15lld\n", t.ring_req,
	       t.cpu_req, t.ring_req + t.cpu_req);
	printf("  bytes                %15lld %15lld %15lld\n", t.ring_bytes,
	       t.cpu_bytes, t.ring_bytes + t.cpu_bytes);
	n = counter_parts(&s->stats, "ring_", "_requests", algs_known,
			  GPU_AES_ALG_MAX, NULL, parts, 64);
	printf("  ring by algorithm:  ");
	for (i = 0; i < (size_t)n; i++) {
		snprintf(name, sizeof(name), "ring_%.63s_requests", parts[i]);
		printf(" %s %lld", parts[i], kv_value(&s->stats, name, 0));
	}
	printf("%s\n  cpu by reason:      ", n ? "" : " -");
	n = fallback_reasons(&s->stats, 0, parts, 64);
	for (i = 0; i < (size_t)n; i++) {
		snprintf(name, sizeof(name), "fallback_%.63s", parts[i]);
		printf(" %s %lld", parts[i], kv_value(&s->stats, name, 0));
	}
	printf("%s\n", n ? "" : " -");
	n = fallback_reasons(&s->stats, 1, parts, 64);
	if (n) {
		printf("    of which:        ");
		for (i = 0; i < (size_t)n; i++) {
			snprintf(name, sizeof(name), "fallback_%.63s", parts[i]);
			printf(" %s %lld", parts[i], kv_value(&s->stats, name, 0));
		}
		printf("\n");
	}
	n = counter_parts(&s->stats, "policy_ring_", "", policy_known, 5, NULL,
			  parts, 64);
	if (n) {
		printf("  ring by policy:     ");
		for (i = 0; i < (size_t)n; i++) {
			snprintf(name, sizeof(name), "policy_ring_%.63s",
				 parts[i]);
			printf(" %s %lld", parts[i], kv_value(&s->stats, name, 0));
		}
		printf("\n");
	}

	printf("\nCounters (/sys/class/misc/gpu_aes/stats/):\n");
	for (i = 0; i < s->stats.n; i++)
		printf("  %-28s %s\n", s->stats.v[i].name, s->stats.v[i].text);
}

static void text_status(const struct ctl *c, const struct state *s)
{
	size_t i;

	printf("Module:      gpu_aes %s\n", s->version);
	printf("Parameters: ");
	for (i = 0; i < s->params.n; i++)
		printf(" %s=%s", s->params.v[i].name, s->params.v[i].text);
	printf("%s\n", s->params.n ? "" : " -");
	text_helper(s);
	text_dispatch(c, s);
	text_algs(s);
	text_counters(s);
	printf("\nProblems:%s\n", s->nproblems ? "" : "    none");
	for (i = 0; i < s->nproblems; i++)
		printf("  %s: %s\n", s->problems[i].level, s->problems[i].text);
}

/* ---- JSON ------------------------------------------------------------- */

static void json_kvs(struct json_object *parent, const char *key,
		     const struct kvlist *l)
{
	struct json_object *o = jo_obj(parent, key);
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].numeric)
			jo_int(o, l->v[i].name, l->v[i].value);
		else
			jo_str(o, l->v[i].name, l->v[i].text);
}

/* The queues directory: each file a list, one value per queue. */
static void json_queues(struct json_object *parent, const char *key,
			const struct kvlist *l)
{
	static long long v[MAX_QUEUES];
	struct json_object *o = jo_obj(parent, key), *a;
	size_t i;
	int k;

	for (i = 0; i < l->n; i++) {
		int n = kv_list(l, l->v[i].name, v, MAX_QUEUES);

		if (n < 0) {
			jo_str(o, l->v[i].name, l->v[i].text);
			continue;
		}
		a = jo_arr(o, l->v[i].name);
		for (k = 0; k < n && k < MAX_QUEUES; k++)
			jo_int(a, NULL, v[k]);
	}
}

static void json_calg(struct json_object *parent, const char *key,
		      const struct calg *a)
{
	struct json_object *o;

	if (!a) {
		jo_null(parent, key);
		return;
	}
	o = jo_obj(parent, key);
	jo_str(o, "driver", a->driver);
	jo_str(o, "module", a->module);
	jo_int(o, "priority", a->priority);
}

static void json_status(const struct state *s)
{
	struct alg_view av[16];
	size_t i, n = state_algs(s, av, 16);
	long long attached = kv_value(&s->status, "attached", 0);
	char parts[64][64], name[96];
	struct json_object *doc = json_object_new_object();
	struct json_object *o, *h, *f, *a, *tot, *part = NULL;
	struct totals t;
	int np;

	o = jo_obj(doc, "module");
	jo_bool(o, "loaded", 1);
	jo_str(o, "version", s->version);
	json_kvs(o, "parameters", &s->params);

	h = jo_obj(doc, "helper");
	if (s->have_status)
		jo_bool(h, "attached", (int)attached);
	else
		jo_null(h, "attached");
	if (attached) {
		jo_int(h, "pid", kv_value(&s->status, "helper_pid", 0));
		jo_int(h, "attached_since",
		       kv_value(&s->status, "attached_since", 0));
		jo_num(h, "attached_at", attach_time(s), 0);
	} else {
		jo_null(h, "pid");
		jo_null(h, "attached_since");
		jo_null(h, "attached_at");
	}
	f = jo_obj(h, "status_file");
	jo_str(f, "path", s->hf.path);
	jo_bool(f, "present", s->hf.present);
	if (s->hf.error[0])
		jo_str(f, "error", s->hf.error);
	else
		jo_null(f, "error");
	jo_value(f, "content", s->hf.doc);

	if (s->have_status) {
		json_kvs(doc, "status", &s->status);
		json_queues(doc, "queues", &s->queues);
	} else {
		jo_null(doc, "status");
		jo_null(doc, "queues");
	}

	a = jo_arr(doc, "algorithms");
	for (i = 0; i < n; i++) {
		const char *cpu = state_cpu_driver(s, av[i].ours->name);

		o = jo_obj(a, NULL);
		jo_str(o, "name", av[i].ours->name);
		jo_str(o, "driver", av[i].ours->driver);
		jo_str(o, "type", av[i].ours->type);
		jo_int(o, "priority", av[i].ours->priority);
		jo_str(o, "selftest", av[i].ours->selftest);
		jo_int(o, "refcnt", av[i].ours->refcnt);
		jo_bool(o, "selected", av[i].winner == av[i].ours);
		json_calg(o, "lookup", av[i].winner);
		json_calg(o, "best_other", av[i].best_other);
		if (cpu)
			jo_str(o, "cpu_driver", cpu);
		else
			jo_null(o, "cpu_driver");
		if (cpu && av[i].best_other)
			jo_bool(o, "cpu_driver_displaced",
				!strcmp(cpu, av[i].best_other->driver));
		else
			jo_null(o, "cpu_driver_displaced");
	}

	json_kvs(doc, "counters", &s->stats);

	totals(s, &t);
	tot = jo_obj(doc, "totals");
	o = jo_obj(tot, "requests");
	jo_int(o, "ring", t.ring_req);
	jo_int(o, "cpu", t.cpu_req);
	jo_int(o, "total", t.ring_req + t.cpu_req);
	o = jo_obj(tot, "bytes");
	jo_int(o, "ring", t.ring_bytes);
	jo_int(o, "cpu", t.cpu_bytes);
	jo_int(o, "total", t.ring_bytes + t.cpu_bytes);
	np = counter_parts(&s->stats, "ring_", "_requests", algs_known,
			   GPU_AES_ALG_MAX, NULL, parts, 64);
	o = jo_obj(tot, "ring_by_algorithm");
	for (i = 0; i < (size_t)np; i++) {
		snprintf(name, sizeof(name), "ring_%.63s_requests", parts[i]);
		jo_int(o, parts[i], kv_value(&s->stats, name, 0));
	}
	np = fallback_reasons(&s->stats, 0, parts, 64);
	o = jo_obj(tot, "cpu_by_reason");
	for (i = 0; i < (size_t)np; i++) {
		snprintf(name, sizeof(name), "fallback_%.63s", parts[i]);
		jo_int(o, parts[i], kv_value(&s->stats, name, 0));
	}
	/* policy_cost of policy: {"policy": {"cost": N}} */
	np = fallback_reasons(&s->stats, 1, parts, 64);
	o = jo_obj(tot, "cpu_by_reason_part");
	for (i = 0; i < (size_t)np; i++) {
		size_t pl = reason_parent(&s->stats, parts[i]);
		char parent[64];

		snprintf(parent, sizeof(parent), "%.*s", (int)pl, parts[i]);
		if (i == 0 || strncmp(parts[i - 1], parent, pl) != 0 ||
		    parts[i - 1][pl] != '_')
			part = jo_obj(o, parent);
		snprintf(name, sizeof(name), "fallback_%.63s", parts[i]);
		jo_int(part, parts[i] + pl + 1, kv_value(&s->stats, name, 0));
	}
	np = counter_parts(&s->stats, "policy_ring_", "", policy_known, 5, NULL,
			   parts, 64);
	o = jo_obj(tot, "ring_by_policy");
	for (i = 0; i < (size_t)np; i++) {
		snprintf(name, sizeof(name), "policy_ring_%.63s", parts[i]);
		jo_int(o, parts[i], kv_value(&s->stats, name, 0));
	}

	a = jo_arr(doc, "problems");
	for (i = 0; i < s->nproblems; i++) {
		o = jo_obj(a, NULL);
		jo_str(o, "level", s->problems[i].level);
		jo_str(o, "message", s->problems[i].text);
	}
	/* A failed write shows in stdout's error flag, checked by the caller. */
	jo_print(stdout, doc, 1);
}

int cmd_status(struct ctl *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		CTL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct state s;
	int o, rc;

	/* No option of its own: anything ctl_getopt() returns ends the loop. */
	o = ctl_getopt(c, argc, argv, ":jh", longopts, usage);
	if (o != CTL_OPTS_END)
		return ctl_opts_exit(o);
	rc = state_read(c, &s, ST_CRYPTO | ST_HELPER);
	if (rc)
		return rc;
	state_problems(&s);
	if (c->json)
		json_status(&s);
	else
		text_status(c, &s);
	state_free(&s);
	if (fflush(stdout) || ferror(stdout)) {
		ctl_err("cannot write the report");
		return CTL_FAIL;
	}
	return CTL_OK;
}
