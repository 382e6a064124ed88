// SPDX-License-Identifier: GPL-2.0-only
/*
 * status_file.c - the helper's status file (see status_file.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "file_atomic.h"
#include "log.h"
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
};

/* Appends to a fixed buffer; remembers overflow. */
struct out {
	char *buf;
	size_t len, pos;
	int over;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->over)
		return;
	va_start(ap, fmt);
	/* clang-analyzer 14 misreads x86-64's va_start (see log.c). */
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->pos) {
		o->over = 1;
		return;
	}
	o->pos += (size_t)n;
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void put_str(struct out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	put(o, "\"");
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			put(o, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			put(o, "\\u%04x", *p);
		else
			put(o, "%c", *p);
	}
	put(o, "\"");
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
static void put_pcie(struct out *o, const char *sysfs, const char *pci)
{
	static const char *const files[] = {
		"current_link_speed", "current_link_width",
		"max_link_speed", "max_link_width",
	};
	char path[512], v[4][64];
	size_t i;

	for (i = 0; pci[0] && i < 4; i++) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s",
			 sysfs ? sysfs : "/sys", pci, files[i]);
		if (read_line(path, v[i], sizeof(v[i])))
			break;
	}
	if (!pci[0] || i < 4) {
		put(o, "null");
		return;
	}
	put(o, "{\"gen\": %d, \"width\": %ld, \"max_gen\": %d, \"max_width\": %ld, \"speed\": ",
	    link_gen(v[0]), strtol(v[1], NULL, 10), link_gen(v[2]),
	    strtol(v[3], NULL, 10));
	put_str(o, v[0]);
	put(o, "}");
}

/* The module's sysfs files (the module and its device share the name). */
#define DISPATCH_MODE	"/module/" GPU_AES_DEVICE_NAME "/parameters/dispatch"
#define DISPATCH_EST	"/class/misc/" GPU_AES_DEVICE_NAME "/dispatch/estimates"
/* Bounds on the estimates table: it has a row per algorithm and class. */
#define EST_MAX_COLS	16
#define EST_MAX_ROWS	128

/* A table cell: "-" is null, a decimal number a number, else a string. */
static void put_cell(struct out *o, const char *v)
{
	const char *p = v;

	if (strcmp(v, "-") == 0) {
		put(o, "null");
		return;
	}
	while (*p >= '0' && *p <= '9')
		p++;
	if (p != v && !*p && (v[0] != '0' || !v[1]))
		put(o, "%s", v);
	else
		put_str(o, v);
}

/* A column name: [a-z0-9_]+, so it can be a JSON key as it is. */
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
static void put_estimates(struct out *o, const char *sysfs)
{
	char path[512], line[512], *col[EST_MAX_COLS], *w[EST_MAX_COLS];
	char names[EST_MAX_COLS][64];
	struct out row;
	char tmp[8192];
	int ncol, i, rows = 0, bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s" DISPATCH_EST, sysfs ? sysfs : "/sys");
	f = fopen(path, "re");
	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		put(o, "null");
		return;
	}
	ncol = split(line, col, EST_MAX_COLS);
	for (i = 0; i < ncol && i < EST_MAX_COLS; i++) {
		bad |= !col_name_ok(col[i]) || strlen(col[i]) >= sizeof(names[0]);
		snprintf(names[i], sizeof(names[i]), "%s", col[i]);
	}
	bad |= ncol < 1 || ncol > EST_MAX_COLS;
	/* Rows go to @tmp first: a bad one makes the whole table null. */
	row = (struct out){ tmp, sizeof(tmp), 0, 0 };
	put(&row, "[");
	while (!bad && fgets(line, sizeof(line), f)) {
		if (split(line, w, EST_MAX_COLS) != ncol || ++rows > EST_MAX_ROWS) {
			bad = 1;
			break;
		}
		put(&row, "%s\n      {", rows > 1 ? "," : "");
		for (i = 0; i < ncol; i++) {
			put(&row, "%s\"%s\": ", i ? ", " : "", names[i]);
			put_cell(&row, w[i]);
		}
		put(&row, "}");
	}
	put(&row, "%s]", rows ? "\n    " : "");
	fclose(f);
	if (bad || row.over)
		put(o, "null");
	else
		put(o, "%s", tmp);
}

/* "dispatch": the module's mode and estimates, the helper's figures. */
static void put_dispatch(struct out *o, const struct gpu_aes_status_static *st,
			 const char *sysfs)
{
	char path[512], mode[64];

	snprintf(path, sizeof(path), "%s" DISPATCH_MODE, sysfs ? sysfs : "/sys");
	put(o, "  \"dispatch\": {\"mode\": ");
	if (read_line(path, mode, sizeof(mode)) || !mode[0])
		put(o, "null");
	else
		put_str(o, mode);
	if (st->hdr)
		put(o, ", \"helper_cpu_ns_per_kib\": %u, \"helper_mib_per_s\": %u",
		    __atomic_load_n(&st->hdr->helper_cpu_ns_per_kib,
				    __ATOMIC_RELAXED),
		    __atomic_load_n(&st->hdr->helper_mib_per_s,
				    __ATOMIC_RELAXED));
	else
		put(o, ", \"helper_cpu_ns_per_kib\": null, \"helper_mib_per_s\": null");
	put(o, ",\n    \"estimates\": ");
	put_estimates(o, sysfs);
	put(o, "},\n");
}

int gpu_aes_status_render(char *buf, size_t len,
			  const struct gpu_aes_status_static *st,
			  const struct gpu_aes_core_stats *cs, long long now,
			  const char *sysfs)
{
	struct out o = { buf, len, 0, 0 };
	unsigned int i;

	if (!len)
		return -1;
	put(&o, "{\n  \"schema\": %d,\n  \"pid\": %d,\n  \"version\": ",
	    GPU_AES_STATUS_SCHEMA, st->pid);
	put_str(&o, st->version);
	put(&o, ",\n  \"abi\": %u,\n  \"backend\": ", st->abi);
	put_str(&o, st->backend);
	put(&o, ",\n  \"device\": ");
	put_str(&o, st->device);
	put(&o, ",\n  \"started\": %lld,\n  \"updated\": %lld,\n  \"interval_s\": %u,\n  \"threads\": %u,\n  \"spin_us\": %u,\n",
	    st->started, now, st->interval_s, st->threads, st->spin_us);
	put(&o, "  \"ring\": {\"queues\": %u, \"queue_entries\": %u, \"keys\": %u, \"queue_data_bytes\": %llu, \"data_bytes\": %llu, \"region_bytes\": %llu, \"pages\": ",
	    st->queues, st->queue_entries, st->keys,
	    (unsigned long long)st->queue_data_bytes,
	    (unsigned long long)st->data_bytes,
	    (unsigned long long)st->region_bytes);
	put_str(&o, st->pages);
	put(&o, "},\n  \"gpus\": [");
	for (i = 0; i < st->nr_gpus; i++) {
		const struct gpu_aes_gpu_info *g = &st->gpus[i];

		put(&o, "%s\n    {\"id\": %d, \"name\": ", i ? "," : "", g->id);
		put_str(&o, g->name);
		put(&o, ", \"memory_bytes\": %llu, \"pci\": ",
		    (unsigned long long)g->memory_bytes);
		put_str(&o, g->pci);
		put(&o, ", \"pcie\": ");
		put_pcie(&o, sysfs, g->pci);
		put(&o, "}");
	}
	put(&o, "%s],\n", st->nr_gpus ? "\n  " : "");
	put_dispatch(&o, st, sysfs);
	put(&o, "  \"counters\": {\"batches\": %llu, \"requests\": %llu, \"bytes\": %llu, \"invalid\": %llu, \"sleeps\": %llu}\n}\n",
	    (unsigned long long)cs->batches, (unsigned long long)cs->requests,
	    (unsigned long long)cs->bytes, (unsigned long long)cs->invalid,
	    (unsigned long long)cs->sleeps);
	return o.over ? -1 : (int)o.pos;
}

static void status_update(struct gpu_aes_status_file *sf)
{
	struct gpu_aes_core_stats cs;
	char buf[32768];
	int n, err;

	gpu_aes_core_get_stats(sf->core, &cs);
	n = gpu_aes_status_render(buf, sizeof(buf), &sf->st, &cs,
				  (long long)time(NULL), NULL);
	err = n < 0 ? -EOVERFLOW : gpu_aes_write_atomic(sf->path, buf,
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
