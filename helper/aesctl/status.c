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

/* What the helper's status file says: version, backend, GPUs, region. */
static void text_helper_file(const struct state *s, const struct jval *d)
{
	const struct jval *gpus = json_get(d, "gpus");
	const struct jval *ring = json_get(d, "ring");
	const struct jval *cnt = json_get(d, "counters");
	long long threads = json_int(d, "threads", 1);
	long long updated = json_int(d, "updated", 0);
	char b[64];
	size_t i;

	printf("             gpu-aes-helper %s (ABI %lld), backend %s, %lld thread%s, spin %lld us\n",
	       json_str(d, "version", "?"), json_int(d, "abi", 0),
	       json_str(d, "backend", "?"), threads, threads == 1 ? "" : "s",
	       json_int(d, "spin_us", 0));
	if (updated > 0)
		printf("             status file %s, updated %s ago\n", s->hf.path,
		       fmt_age(b, sizeof(b), s->now - (double)updated));
	else
		printf("             status file %s, no update time\n",
		       s->hf.path);
	printf("             helper counters: %lld batches, %lld requests, %s, %lld invalid, %lld sleeps\n",
	       json_int(cnt, "batches", 0), json_int(cnt, "requests", 0),
	       fmt_bytes(b, sizeof(b), (double)json_int(cnt, "bytes", 0)),
	       json_int(cnt, "invalid", 0), json_int(cnt, "sleeps", 0));
	if (!gpus || gpus->type != J_ARR || !gpus->n)
		printf("GPUs:        none (%s backend)\n",
		       json_str(d, "backend", "?"));
	else
		printf("GPUs:        %zu\n", gpus->n);
	for (i = 0; gpus && gpus->type == J_ARR && i < gpus->n; i++) {
		const struct jval *g = &gpus->kids[i];
		const struct jval *l = json_get(g, "pcie");

		printf("  GPU %-7lld %s, %s, PCI %s", json_int(g, "id", -1),
		       json_str(g, "name", "?"),
		       fmt_bytes(b, sizeof(b),
				 (double)json_int(g, "memory_bytes", 0)),
		       json_str(g, "pci", "?"));
		if (l && l->type == J_OBJ)
			printf(", PCIe gen %lld x%lld (max gen %lld x%lld)",
			       json_int(l, "gen", 0), json_int(l, "width", 0),
			       json_int(l, "max_gen", 0),
			       json_int(l, "max_width", 0));
		printf("\n");
	}
	if (ring)
		printf("Region:      %s, %s\n",
		       fmt_bytes(b, sizeof(b),
				 (double)json_int(ring, "region_bytes", 0)),
		       json_str(ring, "pages", "?"));
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

/* A JSON scalar as a table cell: null is "-". */
static const char *cell(char *buf, size_t len, const struct jval *v)
{
	if (!v || v->type == J_NULL)
		snprintf(buf, len, "-");
	else if (v->type == J_NUM || v->type == J_STR)
		snprintf(buf, len, "%s", v->str);
	else if (v->type == J_BOOL)
		snprintf(buf, len, "%s", v->b ? "true" : "false");
	else
		snprintf(buf, len, "?");
	return buf;
}

/*
 * The dispatch mode (a module parameter), what the helper publishes of
 * its cost and, from its status file, the module's estimates: a table
 * whose columns are the objects' keys, as the module names them.
 */
static void text_dispatch(const struct ctl *c, const struct state *s)
{
	const struct jval *d = s->hf.doc ? json_get(s->hf.doc, "dispatch") : NULL;
	const struct jval *est = json_get(d, "estimates");
	const struct kv *mode = kv_find(&s->params, "dispatch");
	const struct jval *first;
	char v[64];
	size_t i, k;
	int w[16];

	printf("Dispatch:    %s", mode ? mode->text : "unknown (no dispatch parameter)");
	if (d && json_int(d, "helper_cpu_ns_per_kib", 0) > 0)
		printf("; the helper says it costs %lld ns of CPU per KiB, at %lld MiB/s",
		       json_int(d, "helper_cpu_ns_per_kib", 0),
		       json_int(d, "helper_mib_per_s", 0));
	printf("\n");
	why_print(c, s);
	if (!est || est->type != J_ARR || !est->n ||
	    est->kids[0].type != J_OBJ || !est->kids[0].n)
		return;
	/* The first row's keys are the columns (16 at most). */
	first = &est->kids[0];
	for (k = 0; k < first->n && k < 16; k++) {
		w[k] = (int)strlen(first->keys[k]);
		for (i = 0; i < est->n; i++) {
			int l = (int)strlen(cell(v, sizeof(v),
				json_get(&est->kids[i], first->keys[k])));

			if (l > w[k])
				w[k] = l;
		}
	}
	printf("  estimates (the helper's copy of dispatch/estimates):\n   ");
	for (k = 0; k < first->n && k < 16; k++)
		printf(" %*s", w[k], first->keys[k]);
	printf("\n");
	for (i = 0; i < est->n; i++) {
		printf("   ");
		for (k = 0; k < first->n && k < 16; k++)
			printf(" %*s", w[k], cell(v, sizeof(v),
				json_get(&est->kids[i], first->keys[k])));
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
	n = counter_parts(&s->stats, "ring_", "_requests", algs_known, 4, NULL,
			  parts, 64);
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

static void json_kvs(struct jw *w, const char *key, const struct kvlist *l)
{
	size_t i;

	jw_begin_obj(w, key);
	for (i = 0; i < l->n; i++)
		if (l->v[i].numeric)
			jw_int(w, l->v[i].name, l->v[i].value);
		else
			jw_str(w, l->v[i].name, l->v[i].text);
	jw_end_obj(w);
}

/* The queues directory: each file a list, one value per queue. */
static void json_queues(struct jw *w, const char *key, const struct kvlist *l)
{
	static long long v[MAX_QUEUES];
	size_t i;
	int k;

	jw_begin_obj(w, key);
	for (i = 0; i < l->n; i++) {
		int n = kv_list(l, l->v[i].name, v, MAX_QUEUES);

		if (n < 0) {
			jw_str(w, l->v[i].name, l->v[i].text);
			continue;
		}
		jw_begin_arr(w, l->v[i].name);
		for (k = 0; k < n && k < MAX_QUEUES; k++)
			jw_int(w, NULL, v[k]);
		jw_end_arr(w);
	}
	jw_end_obj(w);
}

static void json_calg(struct jw *w, const char *key, const struct calg *a)
{
	if (!a) {
		jw_null(w, key);
		return;
	}
	jw_begin_obj(w, key);
	jw_str(w, "driver", a->driver);
	jw_str(w, "module", a->module);
	jw_int(w, "priority", a->priority);
	jw_end_obj(w);
}

static void json_status(const struct state *s)
{
	struct alg_view av[16];
	size_t i, n = state_algs(s, av, 16);
	long long attached = kv_value(&s->status, "attached", 0);
	char parts[64][64], name[96];
	struct totals t;
	struct jw w;
	int np;

	jw_init(&w, stdout, 1);
	jw_begin_obj(&w, NULL);

	jw_begin_obj(&w, "module");
	jw_bool(&w, "loaded", 1);
	jw_str(&w, "version", s->version);
	json_kvs(&w, "parameters", &s->params);
	jw_end_obj(&w);

	jw_begin_obj(&w, "helper");
	if (s->have_status)
		jw_bool(&w, "attached", (int)attached);
	else
		jw_null(&w, "attached");
	if (attached) {
		jw_int(&w, "pid", kv_value(&s->status, "helper_pid", 0));
		jw_int(&w, "attached_since",
		       kv_value(&s->status, "attached_since", 0));
		jw_num(&w, "attached_at", attach_time(s), 0);
	} else {
		jw_null(&w, "pid");
		jw_null(&w, "attached_since");
		jw_null(&w, "attached_at");
	}
	jw_begin_obj(&w, "status_file");
	jw_str(&w, "path", s->hf.path);
	jw_bool(&w, "present", s->hf.present);
	if (s->hf.error[0])
		jw_str(&w, "error", s->hf.error);
	else
		jw_null(&w, "error");
	jw_value(&w, "content", s->hf.doc);
	jw_end_obj(&w);
	jw_end_obj(&w);

	if (s->have_status) {
		json_kvs(&w, "status", &s->status);
		json_queues(&w, "queues", &s->queues);
	} else {
		jw_null(&w, "status");
		jw_null(&w, "queues");
	}

	jw_begin_arr(&w, "algorithms");
	for (i = 0; i < n; i++) {
		jw_begin_obj(&w, NULL);
		jw_str(&w, "name", av[i].ours->name);
		jw_str(&w, "driver", av[i].ours->driver);
		jw_str(&w, "type", av[i].ours->type);
		jw_int(&w, "priority", av[i].ours->priority);
		jw_str(&w, "selftest", av[i].ours->selftest);
		jw_int(&w, "refcnt", av[i].ours->refcnt);
		jw_bool(&w, "selected", av[i].winner == av[i].ours);
		json_calg(&w, "lookup", av[i].winner);
		json_calg(&w, "best_other", av[i].best_other);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);

	json_kvs(&w, "counters", &s->stats);

	totals(s, &t);
	jw_begin_obj(&w, "totals");
	jw_begin_obj(&w, "requests");
	jw_int(&w, "ring", t.ring_req);
	jw_int(&w, "cpu", t.cpu_req);
	jw_int(&w, "total", t.ring_req + t.cpu_req);
	jw_end_obj(&w);
	jw_begin_obj(&w, "bytes");
	jw_int(&w, "ring", t.ring_bytes);
	jw_int(&w, "cpu", t.cpu_bytes);
	jw_int(&w, "total", t.ring_bytes + t.cpu_bytes);
	jw_end_obj(&w);
	np = counter_parts(&s->stats, "ring_", "_requests", algs_known, 4,
			   NULL, parts, 64);
	jw_begin_obj(&w, "ring_by_algorithm");
	for (i = 0; i < (size_t)np; i++) {
		snprintf(name, sizeof(name), "ring_%.63s_requests", parts[i]);
		jw_int(&w, parts[i], kv_value(&s->stats, name, 0));
	}
	jw_end_obj(&w);
	np = fallback_reasons(&s->stats, 0, parts, 64);
	jw_begin_obj(&w, "cpu_by_reason");
	for (i = 0; i < (size_t)np; i++) {
		snprintf(name, sizeof(name), "fallback_%.63s", parts[i]);
		jw_int(&w, parts[i], kv_value(&s->stats, name, 0));
	}
	jw_end_obj(&w);
	/* policy_cost of policy: {"policy": {"cost": N}} */
	np = fallback_reasons(&s->stats, 1, parts, 64);
	jw_begin_obj(&w, "cpu_by_reason_part");
	for (i = 0; i < (size_t)np; i++) {
		size_t pl = reason_parent(&s->stats, parts[i]);
		char parent[64];

		snprintf(parent, sizeof(parent), "%.*s", (int)pl, parts[i]);
		if (i == 0 || strncmp(parts[i - 1], parent, pl) != 0 ||
		    parts[i - 1][pl] != '_') {
			if (i)
				jw_end_obj(&w);
			jw_begin_obj(&w, parent);
		}
		snprintf(name, sizeof(name), "fallback_%.63s", parts[i]);
		jw_int(&w, parts[i] + pl + 1, kv_value(&s->stats, name, 0));
	}
	if (np)
		jw_end_obj(&w);
	jw_end_obj(&w);
	np = counter_parts(&s->stats, "policy_ring_", "", policy_known, 5, NULL,
			   parts, 64);
	jw_begin_obj(&w, "ring_by_policy");
	for (i = 0; i < (size_t)np; i++) {
		snprintf(name, sizeof(name), "policy_ring_%.63s", parts[i]);
		jw_int(&w, parts[i], kv_value(&s->stats, name, 0));
	}
	jw_end_obj(&w);
	jw_end_obj(&w);

	jw_begin_arr(&w, "problems");
	for (i = 0; i < s->nproblems; i++) {
		jw_begin_obj(&w, NULL);
		jw_str(&w, "level", s->problems[i].level);
		jw_str(&w, "message", s->problems[i].text);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);

	jw_end_obj(&w);
	jw_done(&w);
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
