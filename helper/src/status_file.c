// SPDX-License-Identifier: GPL-2.0-only
/*
 * status_file.c - the helper's status file (see status_file.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "file_atomic.h"
#include "log.h"
#include "negotiate.h"
#include "status_file.h"

struct gpu_aes_status_file {
	char *path;
	struct gpu_aes_status_static st;
	struct gpu_aes_core *core;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* CLOCK_MONOTONIC */
	int stop;		/* under lock */
	int failing;		/* the last write failed (logged once) */
	/*
	 * The rendered document: 64 GPUs and a full estimates table,
	 * indented, stay well under it.
	 */
	char buf[128 * 1024];
};

/*
 * The document under construction.  json-c returns NULL from a failed
 * allocation; one anywhere fails the render rather than leave a field out.
 */
struct doc {
	int oom;
};

/* Adds @v to @o: under @key in an object, at the end of an array. */
static struct json_object *put(struct doc *d, struct json_object *o,
			       const char *key, struct json_object *v)
{
	int err;

	if (!o || !v) {
		d->oom = 1;
		json_object_put(v);
		return NULL;
	}
	err = json_object_is_type(o, json_type_array) ?
		json_object_array_add(o, v) : json_object_object_add(o, key, v);
	if (err) {
		d->oom = 1;
		json_object_put(v);
		return NULL;
	}
	return v;
}

static void put_null(struct doc *d, struct json_object *o, const char *key)
{
	if (!o || json_object_object_add(o, key, NULL))
		d->oom = 1;
}

static void put_str(struct doc *d, struct json_object *o, const char *key,
		    const char *s)
{
	put(d, o, key, json_object_new_string(s ? s : ""));
}

static void put_int(struct doc *d, struct json_object *o, const char *key,
		    int64_t v)
{
	put(d, o, key, json_object_new_int64(v));
}

static void put_u64(struct doc *d, struct json_object *o, const char *key,
		    uint64_t v)
{
	put(d, o, key, json_object_new_uint64(v));
}

/* First line of a sysfs file, newline stripped; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* "16.0 GT/s PCIe" (or "8 GT/s") -> PCIe generation, 0 if unknown. */
static int link_gen(const char *speed)
{
	static const struct {
		double gts;
		int gen;
	} gens[] = {
		{ 2.5, 1 }, { 5, 2 }, { 8, 3 }, { 16, 4 }, { 32, 5 }, { 64, 6 },
	};
	char *end;
	double v = strtod(speed, &end);
	size_t i;

	if (end == speed)
		return 0;
	for (i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
		if (v > gens[i].gts - 0.1 && v < gens[i].gts + 0.1)
			return gens[i].gen;
	return 0;
}

/* The link of the PCI device @pci, as "pcie": {...} or null. */
static void put_pcie(struct doc *d, struct json_object *o, const char *sysfs,
		     const char *pci)
{
	static const char *const files[] = {
		"current_link_speed", "current_link_width",
		"max_link_speed", "max_link_width",
	};
	struct json_object *l;
	char path[512], v[4][64];
	size_t i;

	for (i = 0; pci[0] && i < 4; i++) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s",
			 sysfs ? sysfs : "/sys", pci, files[i]);
		if (read_line(path, v[i], sizeof(v[i])))
			break;
	}
	if (!pci[0] || i < 4) {
		put_null(d, o, "pcie");
		return;
	}
	l = put(d, o, "pcie", json_object_new_object());
	put_int(d, l, "gen", link_gen(v[0]));
	put_int(d, l, "width", strtol(v[1], NULL, 10));
	put_int(d, l, "max_gen", link_gen(v[2]));
	put_int(d, l, "max_width", strtol(v[3], NULL, 10));
	put_str(d, l, "speed", v[0]);
}

/* The module's sysfs files (the module and its device share the name). */
#define DISPATCH_MODE	"/module/" GPU_AES_DEVICE_NAME "/parameters/dispatch"
#define DISPATCH_EST	"/class/misc/" GPU_AES_DEVICE_NAME "/dispatch/estimates"
/* Bounds on the estimates table: it has a row per algorithm and class. */
#define EST_MAX_COLS	16
#define EST_MAX_ROWS	128

/*
 * A table cell: "-" is null, a decimal number (no leading zero, within
 * int64) a number, anything else a string.
 */
static void put_cell(struct doc *d, struct json_object *o, const char *key,
		     const char *v)
{
	const char *p = v;

	if (strcmp(v, "-") == 0) {
		put_null(d, o, key);
		return;
	}
	while (*p >= '0' && *p <= '9')
		p++;
	if (p != v && !*p && (v[0] != '0' || !v[1]) && p - v <= 18)
		put_int(d, o, key, strtoll(v, NULL, 10));
	else
		put_str(d, o, key, v);
}

/* A column name: [a-z0-9_]+, as the module writes them. */
static int col_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return 0;
	return 1;
}

/* Splits @line at blanks into at most @max words; returns how many. */
static int split(char *line, char **w, int max)
{
	char *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(line, " \t\n", &save); t && n < max;
	     t = strtok_r(NULL, " \t\n", &save))
		w[n++] = t;
	return t ? max + 1 : n;
}

/*
 * The dispatch estimates as an array of objects keyed by the header's
 * column names, or null when the file is missing or not such a table.
 */
static void put_estimates(struct doc *d, struct json_object *o,
			  const char *sysfs)
{
	char path[512], line[512], *col[EST_MAX_COLS], *w[EST_MAX_COLS];
	char names[EST_MAX_COLS][64];
	struct json_object *rows;
	int ncol, i, nrows = 0, bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s" DISPATCH_EST, sysfs ? sysfs : "/sys");
	f = fopen(path, "re");
	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		put_null(d, o, "estimates");
		return;
	}
	ncol = split(line, col, EST_MAX_COLS);
	for (i = 0; i < ncol && i < EST_MAX_COLS; i++) {
		bad |= !col_name_ok(col[i]) || strlen(col[i]) >= sizeof(names[0]);
		snprintf(names[i], sizeof(names[i]), "%s", col[i]);
	}
	bad |= ncol < 1 || ncol > EST_MAX_COLS;
	/* Built apart: a bad row makes the whole table null. */
	rows = json_object_new_array();
	if (!rows)
		d->oom = 1;
	while (rows && !bad && fgets(line, sizeof(line), f)) {
		if (split(line, w, EST_MAX_COLS) != ncol ||
		    ++nrows > EST_MAX_ROWS) {
			bad = 1;
			break;
		}
		struct json_object *row = put(d, rows, NULL,
					      json_object_new_object());

		for (i = 0; i < ncol; i++)
			put_cell(d, row, names[i], w[i]);
	}
	fclose(f);
	if (bad || !rows) {
		json_object_put(rows);
		put_null(d, o, "estimates");
	} else {
		put(d, o, "estimates", rows);
	}
}

/*
 * A GPU of "gpus" (the helper runs on it: its code path and the code it
 * runs) or of "gpus_unusable" (why not).  "cc" as nvidia-smi writes
 * compute_cap, null when unknown.
 */
static void put_gpu(struct doc *d, struct json_object *gpus,
		    const struct gpu_aes_gpu_info *g, const char *sysfs)
{
	struct json_object *o = put(d, gpus, NULL, json_object_new_object());
	char v[32];

	put_int(d, o, "id", g->id);
	put_str(d, o, "name", g->name);
	if (g->cc) {
		snprintf(v, sizeof(v), "%d.%d", g->cc / 10, g->cc % 10);
		put_str(d, o, "cc", v);
	} else {
		put_null(d, o, "cc");
	}
	put_u64(d, o, "memory_bytes", g->memory_bytes);
	put_str(d, o, "pci", g->pci);
	put_pcie(d, o, sysfs, g->pci);
	if (!g->usable) {
		put_str(d, o, "reason", g->reason);
		return;
	}
	put_str(d, o, "path", g->path);
	snprintf(v, sizeof(v), "sm_%d", g->code_sm);
	put_str(d, o, "code", v);
	snprintf(v, sizeof(v), "compute_%d", g->code_ptx);
	put_str(d, o, "ptx", v);
	put(d, o, "jit", json_object_new_boolean(g->jit));
}

/* "dispatch": the module's mode and estimates, the helper's figures. */
static void put_dispatch(struct doc *d, struct json_object *doc,
			 const struct gpu_aes_status_static *st,
			 const char *sysfs)
{
	struct json_object *o = put(d, doc, "dispatch",
				    json_object_new_object());
	char path[512], mode[64];

	snprintf(path, sizeof(path), "%s" DISPATCH_MODE, sysfs ? sysfs : "/sys");
	if (read_line(path, mode, sizeof(mode)) || !mode[0])
		put_null(d, o, "mode");
	else
		put_str(d, o, "mode", mode);
	if (st->hdr) {
		put_int(d, o, "helper_cpu_ns_per_kib",
			__atomic_load_n(&st->hdr->helper_cpu_ns_per_kib,
					__ATOMIC_RELAXED));
		put_int(d, o, "helper_mib_per_s",
			__atomic_load_n(&st->hdr->helper_mib_per_s,
					__ATOMIC_RELAXED));
	} else {
		put_null(d, o, "helper_cpu_ns_per_kib");
		put_null(d, o, "helper_mib_per_s");
	}
	put_estimates(d, o, sysfs);
}

static struct json_object *status_doc(struct doc *d,
				      const struct gpu_aes_status_static *st,
				      const struct gpu_aes_core_stats *cs,
				      long long now, const char *sysfs)
{
	struct json_object *doc = json_object_new_object(), *o, *gpus;
	unsigned int i;

	if (!doc) {
		d->oom = 1;
		return NULL;
	}
	put_int(d, doc, "schema", GPU_AES_STATUS_SCHEMA);
	put_int(d, doc, "pid", st->pid);
	put_str(d, doc, "version", st->version);
	put_int(d, doc, "abi", st->abi);
	put_str(d, doc, "backend", st->backend);
	put_str(d, doc, "device", st->device);
	put_int(d, doc, "started", st->started);
	put_int(d, doc, "updated", now);
	put_int(d, doc, "interval_s", st->interval_s);
	put_int(d, doc, "threads", st->threads);
	put_int(d, doc, "spin_us", st->spin_us);
	o = put(d, doc, "ring", json_object_new_object());
	put_int(d, o, "queues", st->queues);
	put_int(d, o, "queue_entries", st->queue_entries);
	put_int(d, o, "keys", st->keys);
	put_u64(d, o, "queue_data_bytes", st->queue_data_bytes);
	put_u64(d, o, "data_bytes", st->data_bytes);
	put_u64(d, o, "region_bytes", st->region_bytes);
	put_str(d, o, "pages", st->pages);
	if (st->fallback)
		put_str(d, doc, "fallback", st->fallback);
	else
		put_null(d, doc, "fallback");
	gpus = put(d, doc, "gpus", json_object_new_array());
	for (i = 0; i < st->nr_gpus; i++)
		if (st->gpus[i].usable)
			put_gpu(d, gpus, &st->gpus[i], sysfs);
	gpus = put(d, doc, "gpus_unusable", json_object_new_array());
	for (i = 0; i < st->nr_gpus; i++)
		if (!st->gpus[i].usable)
			put_gpu(d, gpus, &st->gpus[i], sysfs);
	put_dispatch(d, doc, st, sysfs);
	o = put(d, doc, "counters", json_object_new_object());
	put_u64(d, o, "batches", cs->batches);
	put_u64(d, o, "requests", cs->requests);
	put_u64(d, o, "bytes", cs->bytes);
	put_u64(d, o, "invalid", cs->invalid);
	put_u64(d, o, "sleeps", cs->sleeps);
	o = put(d, o, "algorithms", json_object_new_object());
	for (i = 1; i <= GPU_AES_ALG_MAX; i++) {
		struct json_object *a;

		a = put(d, o, gpu_aes_alg_name(i), json_object_new_object());
		put_u64(d, a, "requests", cs->alg_requests[i - 1]);
		put_u64(d, a, "batches", cs->alg_batches[i - 1]);
	}
	return doc;
}

int gpu_aes_status_render(char *buf, size_t len,
			  const struct gpu_aes_status_static *st,
			  const struct gpu_aes_core_stats *cs, long long now,
			  const char *sysfs)
{
	struct doc d = { 0 };
	struct json_object *doc = status_doc(&d, st, cs, now, sysfs);
	const char *text = NULL;
	size_t n = 0;
	int ret = -1;

	if (doc && !d.oom)
		text = json_object_to_json_string_length(doc,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	/* The text, a newline and the terminator, or nothing. */
	if (text && n + 2 <= len && n < INT_MAX) {
		memcpy(buf, text, n);
		buf[n] = '\n';
		buf[n + 1] = 0;
		ret = (int)n + 1;
	}
	json_object_put(doc);
	return ret;
}

static void status_update(struct gpu_aes_status_file *sf)
{
	struct gpu_aes_core_stats cs;
	int n, err;

	gpu_aes_core_get_stats(sf->core, &cs);
	n = gpu_aes_status_render(sf->buf, sizeof(sf->buf), &sf->st, &cs,
				  (long long)time(NULL), NULL);
	err = n < 0 ? -EOVERFLOW : gpu_aes_write_atomic(sf->path, sf->buf,
							  (size_t)n);
	if (err && !sf->failing)
		log_warn("cannot write the status file %s: %s (retrying every %u s)",
			 sf->path, strerror(-err), sf->st.interval_s);
	else if (!err && sf->failing)
		log_info("status file %s written again", sf->path);
	sf->failing = err != 0;
}

static void *status_thread(void *arg)
{
	struct gpu_aes_status_file *sf = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&sf->lock);
	for (;;) {
		next.tv_sec += sf->st.interval_s;
		while (!sf->stop &&
		       pthread_cond_timedwait(&sf->cond, &sf->lock, &next) !=
			       ETIMEDOUT)
			;
		if (sf->stop)
			break;
		pthread_mutex_unlock(&sf->lock);
		status_update(sf);
		pthread_mutex_lock(&sf->lock);
	}
	pthread_mutex_unlock(&sf->lock);
	return NULL;
}

/*
 * Temporary files a killed helper left behind (PATH.XXXXXX): only one
 * helper is attached at a time, so any there now are stale.
 */
static void remove_stale_temps(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t blen = strlen(base);
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	struct dirent *e;
	DIR *d;

	if (!dir)
		return;
	d = opendir(dir[0] ? dir : "/");
	while (d && (e = readdir(d))) {
		char *victim = NULL;

		if (strlen(e->d_name) != blen + 7 ||
		    strncmp(e->d_name, base, blen) != 0 || e->d_name[blen] != '.')
			continue;
		if (asprintf(&victim, "%s/%s", dir, e->d_name) >= 0)
			unlink(victim);
		free(victim);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* The file's directory (one level), as systemd's RuntimeDirectory= would. */
static void make_dir(const char *path)
{
	char *dir = strdup(path), *slash;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			log_debug("mkdir %s: %s", dir, strerror(errno));
	}
	free(dir);
}

struct gpu_aes_status_file *
gpu_aes_status_file_start(const char *path,
			  const struct gpu_aes_status_static *st,
			  struct gpu_aes_core *core)
{
	struct gpu_aes_status_file *sf = calloc(1, sizeof(*sf));
	pthread_condattr_t ca;

	if (!sf)
		return NULL;
	sf->path = strdup(path);
	if (!sf->path) {
		free(sf);
		return NULL;
	}
	sf->st = *st;
	if (!sf->st.interval_s)
		sf->st.interval_s = GPU_AES_STATUS_INTERVAL;
	sf->core = core;
	pthread_mutex_init(&sf->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sf->cond, &ca);
	pthread_condattr_destroy(&ca);
	make_dir(path);
	remove_stale_temps(path);
	status_update(sf);
	if (pthread_create(&sf->thread, NULL, status_thread, sf)) {
		log_warn("cannot start the status file thread: no %s", path);
		unlink(path);
		pthread_cond_destroy(&sf->cond);
		pthread_mutex_destroy(&sf->lock);
		free(sf->path);
		free(sf);
		return NULL;
	}
	return sf;
}

void gpu_aes_status_file_stop(struct gpu_aes_status_file *sf)
{
	if (!sf)
		return;
	pthread_mutex_lock(&sf->lock);
	sf->stop = 1;
	pthread_cond_signal(&sf->cond);
	pthread_mutex_unlock(&sf->lock);
	pthread_join(sf->thread, NULL);
	if (unlink(sf->path) && errno != ENOENT)
		log_debug("unlink %s: %s", sf->path, strerror(errno));
	pthread_cond_destroy(&sf->cond);
	pthread_mutex_destroy(&sf->lock);
	free(sf->path);
	free(sf);
}
