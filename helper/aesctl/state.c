// SPDX-License-Identifier: GPL-2.0-only
/*
 * state.c - what gpu-aesctl reads: the module's version, parameters,
 * counters and status files (sysfs), /proc/crypto, /proc/uptime and the
 * helper's status file; and the problems they show, in plain words.
 * Everything is read-only; every path can be moved under --root (tests).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "aesctl.h"

#define MODULE_DIR	"/sys/module/gpu_aes"
#define STATS_DIR	"/sys/class/misc/gpu_aes/stats"
#define STATUS_DIR	"/sys/class/misc/gpu_aes/status"
#define QUEUES_DIR	"/sys/class/misc/gpu_aes/queues"
#define MAX_HELPER_FILE	(1 << 20)

void ctl_err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *ctl_path(const struct ctl *c, char *buf, size_t len,
		     const char *rel)
{
	snprintf(buf, len, "%s%s", c->root, rel);
	return buf;
}

/* First line of a file, newline stripped; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	buf[0] = 0;
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	if (ferror(f))
		err = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return err;
}

static int is_integer(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->name, ((const struct kv *)b)->name);
}

void kvlist_free(struct kvlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].text);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * Every readable file of @dir, sorted by name: -ENOENT if there is no such
 * directory.  New counters appear here without a change to gpu-aesctl.
 */
static int read_kvdir(const char *dir, struct kvlist *l)
{
	char path[2048], line[4096];
	struct dirent *e;
	size_t cap = 0;
	DIR *d;

	memset(l, 0, sizeof(*l));
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct kv *kv;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (read_line(path, line, sizeof(line)))
			continue;	/* unreadable (or a directory) */
		if (l->n == cap) {
			struct kv *v = realloc(l->v, (cap ? cap * 2 : 32) *
						      sizeof(*v));

			if (!v)
				break;
			l->v = v;
			cap = cap ? cap * 2 : 32;
		}
		kv = &l->v[l->n];
		kv->name = strdup(e->d_name);
		kv->text = strdup(line);
		if (!kv->name || !kv->text) {
			free(kv->name);
			free(kv->text);
			break;
		}
		kv->numeric = is_integer(line);
		kv->value = kv->numeric ? strtoll(line, NULL, 10) : 0;
		l->n++;
	}
	closedir(d);
	if (l->n)
		qsort(l->v, l->n, sizeof(l->v[0]), kv_cmp);
	return 0;
}

const struct kv *kv_find(const struct kvlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

long long kv_value(const struct kvlist *l, const char *name, long long def)
{
	const struct kv *kv = kv_find(l, name);

	return kv && kv->numeric ? kv->value : def;
}

int kv_list(const struct kvlist *l, const char *name, long long *out,
	    int max)
{
	const struct kv *kv = kv_find(l, name);
	const char *p;
	char *end;
	int n = 0;

	if (!kv)
		return -1;
	for (p = kv->text;; p = end) {
		long long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (*p != '-' && (*p < '0' || *p > '9'))
			return -1;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (end == p || errno || (*end && *end != ' ' && *end != '\t'))
			return -1;
		if (n < max)
			out[n] = v;
		n++;
	}
}

int state_read_counters(const struct ctl *c, struct kvlist *stats,
			struct kvlist *status, struct kvlist *queues)
{
	char path[1024];
	int err;

	err = read_kvdir(ctl_path(c, path, sizeof(path), STATS_DIR), stats);
	if (status && !err)
		read_kvdir(ctl_path(c, path, sizeof(path), STATUS_DIR), status);
	if (queues && !err)
		read_kvdir(ctl_path(c, path, sizeof(path), QUEUES_DIR), queues);
	return err;
}

/* "name : value" blocks separated by empty lines. */
static void read_crypto(const struct ctl *c, struct state *s)
{
	char path[1024], line[512];
	struct calg cur;
	size_t cap = 0;
	int have = 0;
	FILE *f;

	f = fopen(ctl_path(c, path, sizeof(path), "/proc/crypto"), "re");
	if (!f)
		return;
	memset(&cur, 0, sizeof(cur));
	for (;;) {
		int eof = !fgets(line, sizeof(line), f);
		char *colon, *k, *v, *end;

		if (eof || line[0] == '\n') {
			if (have && s->nalgs == cap) {
				struct calg *a = realloc(s->algs,
					(cap ? cap * 2 : 64) * sizeof(*a));

				if (!a)
					break;
				s->algs = a;
				cap = cap ? cap * 2 : 64;
			}
			if (have)
				s->algs[s->nalgs++] = cur;
			memset(&cur, 0, sizeof(cur));
			have = 0;
			if (eof)
				break;
			continue;
		}
		line[strcspn(line, "\n")] = 0;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		k = line;
		v = colon + 1;
		end = colon;
		while (end > k && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = 0;
		while (*v == ' ')
			v++;
		have = 1;
		if (!strcmp(k, "name"))
			snprintf(cur.name, sizeof(cur.name), "%s", v);
		else if (!strcmp(k, "driver"))
			snprintf(cur.driver, sizeof(cur.driver), "%s", v);
		else if (!strcmp(k, "module"))
			snprintf(cur.module, sizeof(cur.module), "%s", v);
		else if (!strcmp(k, "type"))
			snprintf(cur.type, sizeof(cur.type), "%s", v);
		else if (!strcmp(k, "selftest"))
			snprintf(cur.selftest, sizeof(cur.selftest), "%s", v);
		else if (!strcmp(k, "internal"))
			snprintf(cur.internal, sizeof(cur.internal), "%s", v);
		else if (!strcmp(k, "priority"))
			cur.priority = (int)strtol(v, NULL, 10);
		else if (!strcmp(k, "refcnt"))
			cur.refcnt = (int)strtol(v, NULL, 10);
		else if (!strcmp(k, "ivsize"))
			cur.ivsize = (int)strtol(v, NULL, 10);
		else if (!strcmp(k, "max keysize"))
			cur.max_keysize = (int)strtol(v, NULL, 10);
	}
	fclose(f);
}

/*
 * The module's algorithms, in its order, and their CPU drivers: the two
 * words of each line of dispatch/cpu_drivers.  None when the module has
 * no such file.
 */
static void read_order(const struct ctl *c, struct state *s)
{
	char path[2048], line[256], word[16], driver[128];
	FILE *f = fopen(ctl_path(c, path, sizeof(path),
				 "/sys/class/misc/gpu_aes/dispatch/cpu_drivers"),
			"re");

	s->norder = 0;
	while (f && s->norder < 16 && fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%15s %127s", word, driver);

		if (n < 1)
			continue;
		snprintf(s->order[s->norder], sizeof(s->order[0]), "%s", word);
		snprintf(s->cpu_driver[s->norder], sizeof(s->cpu_driver[0]),
			 "%s", n == 2 ? driver : "-");
		s->norder++;
	}
	if (f)
		fclose(f);
}

void state_read_helper(const struct ctl *c, struct helper_file *hf)
{
	char *buf = NULL;
	struct stat sb;
	size_t n = 0;
	FILE *f;

	memset(hf, 0, sizeof(*hf));
	if (c->status_file)
		snprintf(hf->path, sizeof(hf->path), "%s", c->status_file);
	else
		ctl_path(c, hf->path, sizeof(hf->path), DEFAULT_STATUS_FILE);
	f = fopen(hf->path, "re");
	if (!f) {
		if (errno != ENOENT)
			snprintf(hf->error, sizeof(hf->error), "%s",
				 strerror(errno));
		return;
	}
	hf->present = 1;
	if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode)) {
		snprintf(hf->error, sizeof(hf->error), "not a regular file");
	} else if (sb.st_size > MAX_HELPER_FILE) {
		snprintf(hf->error, sizeof(hf->error), "larger than %d bytes",
			 MAX_HELPER_FILE);
	} else if (!(buf = malloc((size_t)sb.st_size + 1))) {
		snprintf(hf->error, sizeof(hf->error), "out of memory");
	} else {
		n = fread(buf, 1, (size_t)sb.st_size, f);
		if (ferror(f))
			snprintf(hf->error, sizeof(hf->error), "read error");
	}
	fclose(f);
	if (!hf->error[0]) {
		char err[120];

		if (jparse(buf, n, &hf->doc, err, sizeof(err)))
			snprintf(hf->error, sizeof(hf->error), "not JSON: %s",
				 err);
		else if (jint(hf->doc, "schema", 0) < 1 ||
			 jint(hf->doc, "pid", 0) < 1)
			snprintf(hf->error, sizeof(hf->error),
				 "not a gpu-aes-helper status file (no schema and pid)");
		if (hf->error[0]) {
			json_object_put(hf->doc);
			hf->doc = NULL;
		}
	}
	free(buf);
}

int state_read(const struct ctl *c, struct state *s, unsigned int what)
{
	char path[1024], line[256];
	struct stat sb;
	struct timespec ts;

	memset(s, 0, sizeof(*s));
	ctl_path(c, path, sizeof(path), MODULE_DIR);
	if (stat(path, &sb) || !S_ISDIR(sb.st_mode)) {
		ctl_err("gpu_aes is not loaded (no %s): load it with 'modprobe gpu_aes'",
			path);
		return CTL_NOMODULE;
	}
	s->loaded = 1;
	if (read_line(ctl_path(c, path, sizeof(path), MODULE_DIR "/version"),
		      s->version, sizeof(s->version)))
		snprintf(s->version, sizeof(s->version), "unknown");
	read_kvdir(ctl_path(c, path, sizeof(path), MODULE_DIR "/parameters"),
		   &s->params);
	read_kvdir(ctl_path(c, path, sizeof(path), STATS_DIR), &s->stats);
	s->have_status = !read_kvdir(ctl_path(c, path, sizeof(path),
					      STATUS_DIR), &s->status);
	read_kvdir(ctl_path(c, path, sizeof(path), QUEUES_DIR), &s->queues);
	if (!read_line(ctl_path(c, path, sizeof(path), "/proc/uptime"), line,
		       sizeof(line)))
		s->uptime = strtod(line, NULL);
	clock_gettime(CLOCK_REALTIME, &ts);
	s->now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	read_order(c, s);
	if (what & ST_CRYPTO)
		read_crypto(c, s);
	if (what & ST_HELPER)
		state_read_helper(c, &s->hf);
	return CTL_OK;
}

void state_free(struct state *s)
{
	kvlist_free(&s->params);
	kvlist_free(&s->stats);
	kvlist_free(&s->status);
	kvlist_free(&s->queues);
	free(s->algs);
	json_object_put(s->hf.doc);
	memset(s, 0, sizeof(*s));
}

/* A lookup by name: the highest priority tested, non-internal entry. */
static int usable(const struct calg *a)
{
	return strcmp(a->selftest, "passed") == 0 &&
	       strcmp(a->internal, "yes") != 0;
}

static const struct calg *best(const struct state *s, const char *name,
			       int others_only)
{
	const struct calg *b = NULL;
	size_t i;

	for (i = 0; i < s->nalgs; i++) {
		const struct calg *a = &s->algs[i];

		if (strcmp(a->name, name) != 0 || !usable(a))
			continue;
		/* Ours, or an instance built over ours (xts(ecb-aes-gpu)). */
		if (others_only && (strcmp(a->module, "gpu_aes") == 0 ||
				    strstr(a->driver, "aes-gpu")))
			continue;
		/* Ties: the kernel keeps the first it meets, as here. */
		if (!b || a->priority > b->priority)
			b = a;
	}
	return b;
}

const struct calg *state_best_other(const struct state *s, const char *name)
{
	return best(s, name, 1);
}

const char *state_cpu_driver(const struct state *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->norder; i++) {
		size_t n = strlen(s->order[i]);

		if (!strncmp(name, s->order[i], n) &&
		    !strcmp(name + n, "(aes)"))
			return strcmp(s->cpu_driver[i], "-") ?
			       s->cpu_driver[i] : NULL;
	}
	return NULL;
}

const struct calg *state_find_driver(const struct state *s,
				     const char *driver)
{
	size_t i;

	for (i = 0; i < s->nalgs; i++)
		if (strcmp(s->algs[i].driver, driver) == 0)
			return &s->algs[i];
	return NULL;
}

/*
 * Where @name ("ecb(aes)") comes in the module's own order of its
 * algorithms; those it does not list come after, by name.
 */
static int alg_order(const struct state *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->norder; i++) {
		size_t n = strlen(s->order[i]);
		if (!strncmp(name, s->order[i], n) && !strcmp(name + n, "(aes)"))
			return (int)i;
	}
	return (int)s->norder;
}

size_t state_algs(const struct state *s, struct alg_view *out, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < s->nalgs && n < max; i++) {
		const struct calg *a = &s->algs[i];

		if (strcmp(a->module, "gpu_aes") != 0)
			continue;
		out[n].ours = a;
		out[n].winner = best(s, a->name, 0);
		out[n].best_other = best(s, a->name, 1);
		n++;
	}
	/* The module's own order, then any it does not list by name. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0; j--) {
			const struct alg_view *x = &out[j - 1], *y = &out[j];
			int ox = alg_order(s, x->ours->name);
			int oy = alg_order(s, y->ours->name);
			struct alg_view t;

			if (ox < oy || (ox == oy && strcmp(x->ours->name,
							   y->ours->name) <= 0))
				break;
			t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

int counter_split(const char *name, const char *prefix, const char *suffix,
		  char *part, size_t len)
{
	size_t n = strlen(name), p = strlen(prefix), sf = strlen(suffix);

	if (n <= p + sf || strncmp(name, prefix, p) != 0 ||
	    strcmp(name + n - sf, suffix) != 0 || n - p - sf >= len)
		return 0;
	memcpy(part, name + p, n - p - sf);
	part[n - p - sf] = 0;
	return 1;
}

/* Where a part ranks among the known ones (then by name). */
static int part_rank(const char *part, const char *const *known, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(part, known[i]) == 0)
			return i;
	return n;
}

int counter_parts(const struct kvlist *l, const char *prefix,
		 const char *suffix, const char *const *known, int nknown,
		 const char *const *skip, char out[][64], int max)
{
	char part[64], t[64];
	int n = 0, i, j, k;
	size_t c;

	for (c = 0; c < l->n && n < max; c++) {
		int skipped = 0;

		for (k = 0; skip && skip[k]; k++)
			if (strcmp(l->v[c].name, skip[k]) == 0)
				skipped = 1;
		if (skipped || !counter_split(l->v[c].name, prefix, suffix,
					      part, sizeof(part)))
			continue;
		snprintf(out[n++], 64, "%s", part);
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0; j--) {
			int a = part_rank(out[j - 1], known, nknown);
			int b = part_rank(out[j], known, nknown);

			if (a < b || (a == b && strcmp(out[j - 1], out[j]) <= 0))
				break;
			memcpy(t, out[j], 64);
			memcpy(out[j], out[j - 1], 64);
			memcpy(out[j - 1], t, 64);
		}
	return n;
}

#define AESCTL_ALG_NAME_(ID, VAL, NAME, ...)	[(VAL) - 1] = #NAME,
const char *const algs_known[GPU_AES_ALG_MAX] = {
	GPU_AES_MODES(AESCTL_ALG_NAME_)
};
/* The order of the module's routing (kmod/README.md). */
const char *const reasons_known[] = {
	"no_helper", "small", "large", "no_backlog", "policy", "stalled",
	"no_key", "full",
};
const char *const fallback_totals[] = {
	"fallback_requests", "fallback_bytes", NULL,
};
const char *const policy_known[] = { "cost", "lone", "load", "forced",
				     "explore" };

/* Is @part "<another reason>_..."?  The other's length, else 0. */
static size_t parent_of(char all[][64], int n, const char *part)
{
	size_t longest = 0;
	int i;

	for (i = 0; i < n; i++) {
		size_t len = strlen(all[i]);

		if (len < strlen(part) && part[len] == '_' &&
		    strncmp(part, all[i], len) == 0 && len > longest)
			longest = len;
	}
	return longest;
}

int fallback_reasons(const struct kvlist *l, int sub, char out[][64],
		     int max)
{
	char all[64][64];
	int n = counter_parts(l, "fallback_", "", reasons_known, 8,
			      fallback_totals, all, 64);
	int i, m = 0;

	for (i = 0; i < n && m < max; i++)
		if (!parent_of(all, n, all[i]) == !sub)
			memcpy(out[m++], all[i], 64);
	return m;
}

size_t reason_parent(const struct kvlist *l, const char *reason)
{
	char all[64][64];
	int n = counter_parts(l, "fallback_", "", reasons_known, 8,
			      fallback_totals, all, 64);

	return parent_of(all, n, reason);
}

const char *fmt_bytes(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", v);
	else
		snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

const char *fmt_age(char *buf, size_t len, double secs)
{
	long long s = secs < 0 ? 0 : (long long)secs;

	if (s < 60)
		snprintf(buf, len, "%lld s", s);
	else if (s < 3600)
		snprintf(buf, len, "%lld min %lld s", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lld h %lld min", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%lld d %lld h", s / 86400, s % 86400 / 3600);
	return buf;
}

const char *fmt_time(char *buf, size_t len, double unix_s)
{
	time_t t = (time_t)unix_s;
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "?");
	return buf;
}

static void problem(struct state *s, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct state *s, const char *level, const char *fmt, ...)
{
	va_list ap;

	if (s->nproblems == MAX_PROBLEMS)
		return;
	s->problems[s->nproblems].level = level;
	va_start(ap, fmt);
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	vsnprintf(s->problems[s->nproblems].text,
		  sizeof(s->problems[0].text), fmt, ap);
	va_end(ap);
	s->nproblems++;
}

/* Problems of an attached helper's status file and GPUs. */
static void helper_problems(struct state *s, long long pid)
{
	const struct helper_file *hf = &s->hf;
	struct json_object *gpus, *unusable;
	long long fpid, updated, interval;
	const char *backend;
	char age[64];
	size_t i;

	if (!hf->present && !hf->error[0]) {
		problem(s, "warning",
			"helper status file missing (%s): backend and GPUs unknown",
			hf->path);
		return;
	}
	if (!hf->doc) {
		problem(s, "warning", "helper status file %s unusable: %s",
			hf->path, hf->error);
		return;
	}
	fpid = jint(hf->doc, "pid", 0);
	if (pid && fpid != pid)
		problem(s, "warning",
			"helper status file %s is from pid %lld, but the attached helper is pid %lld",
			hf->path, fpid, pid);
	updated = jint(hf->doc, "updated", 0);
	interval = jint(hf->doc, "interval_s", 2);
	if (updated <= 0)
		problem(s, "warning", "helper status file %s has no update time",
			hf->path);
	else if (s->now - (double)updated > 3.0 * (double)interval + 5)
		problem(s, "warning",
			"helper status file not updated for %s (every %lld s expected): is the helper hung?",
			fmt_age(age, sizeof(age), s->now - (double)updated),
			interval);
	backend = jstr(hf->doc, "backend", "?");
	gpus = jget(hf->doc, "gpus");
	unusable = jget(hf->doc, "gpus_unusable");
	if (jstr(hf->doc, "fallback", NULL))
		problem(s, "warning",
			"no usable GPU: the helper fell back to the %s backend (%s), AES runs on the CPU (OpenSSL) behind the ring",
			backend, jstr(hf->doc, "fallback", ""));
	else if (strcmp(backend, "cpu") == 0)
		problem(s, "warning",
			"no GPU: the helper runs the cpu backend, AES runs on the CPU (OpenSSL) behind the ring");
	else if (!json_object_is_type(gpus, json_type_array) ||
		 json_object_array_length(gpus) == 0)
		problem(s, "warning", "no GPU: the helper (backend %s) reports none",
			backend);
	for (i = 0; json_object_is_type(unusable, json_type_array) &&
		    i < json_object_array_length(unusable); i++) {
		struct json_object *g = json_object_array_get_idx(unusable, i);

		problem(s, "warning", "GPU %lld (%s) not used: %s",
			jint(g, "id", -1), jstr(g, "name", "?"),
			jstr(g, "reason", "?"));
	}
	for (i = 0; json_object_is_type(gpus, json_type_array) &&
		    i < json_object_array_length(gpus); i++) {
		struct json_object *g = json_object_array_get_idx(gpus, i);
		struct json_object *link = jget(g, "pcie");
		long long w = jint(link, "width", 0);
		long long mw = jint(link, "max_width", 0);

		if (w && mw && w < mw)
			problem(s, "warning",
				"GPU %lld (%s): PCIe link x%lld, narrower than its x%lld",
				jint(g, "id", -1), jstr(g, "pci", "?"), w, mw);
	}
}

void state_problems(struct state *s)
{
	struct alg_view av[16];
	const struct kv *mode;
	size_t i, n;
	char t[64], age[64];
	long long v;

	s->nproblems = 0;
	if (!s->have_status) {
		problem(s, "warning",
			"the module has no status directory (older than gpu-aesctl): helper state unknown");
	} else if (!kv_value(&s->status, "attached", 0)) {
		problem(s, "warning",
			"helper not attached: every request runs on the CPU");
		if (s->hf.doc)
			problem(s, "warning",
				"stale helper status file %s (pid %lld is not attached)",
				s->hf.path, jint(s->hf.doc, "pid", 0));
	} else {
		v = kv_value(&s->status, "stalled", 0);
		if (v) {
			double since = (double)kv_value(&s->status,
							"stalled_since", 0);
			long long nq = kv_value(&s->status, "queues", 0);
			char of[64] = "";

			if (nq)
				snprintf(of, sizeof(of), " on %lld of %lld queue%s",
					 v, nq, nq == 1 ? "" : "s");
			problem(s, "error",
				"helper stalled%s since %s (%s ago): a request timed out and it has completed nothing there since; new requests there run on the CPU",
				of,
				fmt_time(t, sizeof(t), s->now - (s->uptime - since)),
				fmt_age(age, sizeof(age), s->uptime - since));
		}
		mode = kv_find(&s->params, "dispatch");
		if (mode && strcmp(mode->text, "cpu") == 0)
			problem(s, "warning",
				"dispatch=cpu: every request runs on the CPU, the helper gets none");
		helper_problems(s, kv_value(&s->status, "helper_pid", 0));
	}

	n = state_algs(s, av, 16);
	if (s->nalgs && !n)
		problem(s, "error", "no gpu_aes algorithm in /proc/crypto");
	for (i = 0; i < n; i++) {
		const struct calg *o = av[i].ours, *w = av[i].winner;
		const struct calg *x = av[i].best_other;
		const char *cpu = state_cpu_driver(s, o->name);

		if (strcmp(o->selftest, "passed") != 0)
			problem(s, "error", "%s: self-test %s: the crypto API does not use it",
				o->driver, o->selftest[0] ? o->selftest : "unknown");
		else if (w && w != o)
			problem(s, "warning",
				"%s: lookups get %s (priority %d), not %s (priority %d)",
				o->name, w->driver, w->priority, o->driver,
				o->priority);
		if (cpu && x && strcmp(cpu, x->driver) != 0)
			problem(s, "warning",
				"%s: requests gpu_aes keeps on the CPU run on %s, but without gpu_aes a lookup gets %s (priority %d): they cost more than before it was installed",
				o->name, cpu, x->driver, x->priority);
	}

	v = kv_value(&s->stats, "rejected_completions", 0);
	if (v > 0)
		problem(s, "error",
			"%lld completion%s from the helper failed validation since load (rejected_completions)",
			v, v == 1 ? "" : "s");
	v = kv_value(&s->stats, "helper_errors", 0);
	if (v > 0)
		problem(s, "warning",
			"%lld request%s failed in the helper and %s recomputed on the CPU since load (helper_errors)",
			v, v == 1 ? "" : "s", v == 1 ? "was" : "were");
	v = kv_value(&s->stats, "timeouts", 0);
	if (v > 0)
		problem(s, "warning",
			"%lld request%s timed out and %s recomputed on the CPU since load (timeouts)",
			v, v == 1 ? "" : "s", v == 1 ? "was" : "were");
}

int parse_double(const char *opt, const char *s, double min, double max,
		 double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || *out < min || *out > max) {
		ctl_err("%s: expected a number from %g to %g, got '%s'", opt,
			min, max, s);
		return -1;
	}
	return 0;
}

int parse_long(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno || end == s || *end || *out < min || *out > max) {
		ctl_err("%s: expected a whole number from %ld to %ld, got '%s'",
			opt, min, max, s);
		return -1;
	}
	return 0;
}
