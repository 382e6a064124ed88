// SPDX-License-Identifier: GPL-2.0-only
/*
 * The helper's status file: the JSON document member for member (no GPU
 * and no module; a GPU whose PCIe link, and a module whose dispatch mode
 * and estimates, come from a fake sysfs), one top-level member per line,
 * string escaping, a buffer too small,
 * an estimates file that is not a table, the atomic replacement (mode
 * 0644, no temporary left), and the writer thread over a real core: stale
 * temporaries of a killed helper removed, the file rewritten every
 * interval, removed at stop.
 */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_cpu.h"
#include "file_atomic.h"
#include "harness.h"
#include "region.h"
#include "status_file.h"
#include "transport.h"

static const struct gpu_aes_core_stats cs = {
	.batches = 3, .requests = 40, .bytes = 81920, .invalid = 1, .sleeps = 7,
	.alg_requests = { 0, 30, 9, 0, 0 }, .alg_batches = { 0, 2, 1, 0, 0 },
};

static void base(struct gpu_aes_status_static *st)
{
	memset(st, 0, sizeof(*st));
	st->pid = 1234;
	st->started = 1700000000;
	st->version = "0.1.0";
	st->abi = 3;
	st->device = "/dev/gpu_aes";
	st->backend = "cpu";
	st->threads = 1;
	st->spin_us = 50;
	st->interval_s = 2;
	st->queues = 2;
	st->queue_entries = 1024;
	st->keys = 1024;
	st->queue_data_bytes = 4ULL << 20;
	st->data_bytes = 8ULL << 20;
	st->region_bytes = (8ULL << 20) + 1200128;
	st->pages = "transparent huge pages";
}

/* @text parsed by json-c (strict) into @v (NULL: null); 0 if it is JSON. */
static int parse(const char *text, struct json_object **v)
{
	struct json_tokener *tok = json_tokener_new();
	int err;

	*v = NULL;
	if (!tok)
		return -1;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	*v = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (json_tokener_get_error(tok) == json_tokener_continue)
		*v = json_tokener_parse_ex(tok, "", 1);
	err = json_tokener_get_error(tok) != json_tokener_success;
	json_tokener_free(tok);
	return err ? -1 : 0;
}

/* Same keys in the same order, in @a and @b and all objects below. */
static int same_order(struct json_object *a, struct json_object *b)
{
	struct lh_entry *x, *y;

	if (json_object_is_type(a, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(a); i++)
			if (!same_order(json_object_array_get_idx(a, i),
					json_object_array_get_idx(b, i)))
				return 0;
		return 1;
	}
	if (!json_object_is_type(a, json_type_object))
		return 1;
	x = json_object_get_object(a)->head;
	y = json_object_get_object(b)->head;
	for (; x && y; x = x->next, y = y->next)
		if (strcmp(x->k, y->k) != 0 ||
		    !same_order((struct json_object *)x->v,
				(struct json_object *)y->v))
			return 0;
	return !x && !y;
}

/*
 * The member at @path of the document @doc ("a/b": member b of member a;
 * "": the document) is the JSON @want: the same members in the same
 * order, the same values.
 */
static int json_same(const char *doc, const char *path, const char *want)
{
	struct json_object *got, *w = NULL, *m;
	char key[64];
	int same = 0;

	if (parse(doc, &got))
		return 0;
	m = got;
	while (*path) {
		size_t n = strcspn(path, "/");

		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		if (!json_object_object_get_ex(m, key, &m))
			goto out;
		path += n + (path[n] == '/');
	}
	/* json_object_equal() compares objects' members in any order. */
	same = !parse(want, &w) && json_object_equal(m, w) &&
	       same_order(m, w);
out:
	json_object_put(got);
	json_object_put(w);
	return same;
}

/* GPU @i of the document @doc is named @name. */
static int name_is(const char *doc, size_t i, const char *name)
{
	struct json_object *d, *gpus, *g, *n;
	int is = !parse(doc, &d) &&
		 json_object_object_get_ex(d, "gpus", &gpus) &&
		 (g = json_object_array_get_idx(gpus, i)) &&
		 json_object_object_get_ex(g, "name", &n) &&
		 strcmp(json_object_get_string(n), name) == 0;

	json_object_put(d);
	return is;
}

TEST(status_file_render_cpu)
{
	static const char want[] =
		"{\n"
		"  \"schema\": 2,\n"
		"  \"pid\": 1234,\n"
		"  \"version\": \"0.1.0\",\n"
		"  \"abi\": 3,\n"
		"  \"backend\": \"cpu\",\n"
		"  \"device\": \"/dev/gpu_aes\",\n"
		"  \"started\": 1700000000,\n"
		"  \"updated\": 1700000042,\n"
		"  \"interval_s\": 2,\n"
		"  \"threads\": 1,\n"
		"  \"spin_us\": 50,\n"
		"  \"ring\": {\"queues\": 2, \"queue_entries\": 1024, \"keys\": 1024, \"queue_data_bytes\": 4194304, \"data_bytes\": 8388608, \"region_bytes\": 9588736, \"pages\": \"transparent huge pages\"},\n"
		"  \"fallback\": null,\n"
		"  \"gpus\": [],\n"
		"  \"gpus_unusable\": [],\n"
		"  \"dispatch\": {\"mode\": null, \"helper_cpu_ns_per_kib\": null, \"helper_mib_per_s\": null,\n"
		"    \"estimates\": null},\n"
		"  \"counters\": {\"batches\": 3, \"requests\": 40, \"bytes\": 81920, \"invalid\": 1, \"sleeps\": 7,\n"
		"    \"algorithms\": {\"ecb\": {\"requests\": 0, \"batches\": 0}, \"ctr\": {\"requests\": 30, \"batches\": 2},\n"
		"      \"xts\": {\"requests\": 9, \"batches\": 1}, \"gcm\": {\"requests\": 0, \"batches\": 0},\n"
		"      \"cbc\": {\"requests\": 0, \"batches\": 0},\n"
		"      \"xctr\": {\"requests\": 0, \"batches\": 0}}}\n"
		"}\n";
	struct gpu_aes_status_static st;
	char buf[4096];
	int n;

	base(&st);
	n = gpu_aes_status_render(buf, sizeof(buf), &st, &cs, 1700000042,
				  "/nonexistent");
	CHECK(n > 0);
	CHECK_EQ((size_t)n, strlen(buf));
	CHECK(json_same(buf, "", want));
	/* One member a line at the top, as a grep for a field expects. */
	CHECK(strncmp(buf, "{\n  \"schema\": 2,\n  \"pid\": 1234,\n", 31) == 0);
	CHECK(strcmp(buf + n - 3, "\n}\n") == 0);
	/* One byte short of the terminator: refused, never cut. */
	CHECK_EQ(gpu_aes_status_render(buf, (size_t)n, &st, &cs,
				       1700000042, "/nonexistent"), -1);
	CHECK_EQ(gpu_aes_status_render(buf, (size_t)n + 1, &st, &cs,
				       1700000042, "/nonexistent"), n);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* mkdir -p @root/@rel. */
static void mkdirs(const char *root, const char *rel)
{
	char path[2048];
	size_t i, n = (size_t)snprintf(path, sizeof(path), "%s/%s", root, rel);

	for (i = strlen(root) + 1; i <= n; i++) {
		if (path[i] != '/' && path[i])
			continue;
		path[i] = 0;
		mkdir(path, 0755);
		if (i < n)
			path[i] = '/';
	}
}

/* rm -r @dir (a fake sysfs: directories and regular files). */
static void remove_tree(const char *dir)
{
	char path[2048];
	struct dirent *e;
	struct stat sb;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!lstat(path, &sb) && S_ISDIR(sb.st_mode))
			remove_tree(path);
		else
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static const char *const link_files[] = {
	"current_link_speed", "current_link_width",
	"max_link_speed", "max_link_width",
};
static const char *const pci_dirs[] = {
	"bus", "bus/pci", "bus/pci/devices", "bus/pci/devices/0000:65:00.0",
};

/* GPU @g of the cuda backend's report, in use. */
static void usable(struct gpu_aes_gpu_info *g, int id, const char *name,
		   const char *path, int code_sm, int code_ptx, int jit)
{
	memset(g, 0, sizeof(*g));
	g->id = id;
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->cc = code_sm;
	g->usable = 1;
	snprintf(g->path, sizeof(g->path), "%s", path);
	g->code_sm = code_sm;
	g->code_ptx = code_ptx;
	g->jit = jit;
}

/* ... not in use, and why. */
static void unusable(struct gpu_aes_gpu_info *g, int id, const char *name,
		     int cc, const char *reason)
{
	memset(g, 0, sizeof(*g));
	g->id = id;
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->cc = cc;
	snprintf(g->reason, sizeof(g->reason), "%s", reason);
}

TEST(status_file_render_gpus)
{
	static const char *const link[] = {
		"16.0 GT/s PCIe\n", "8\n", "32.0 GT/s PCIe\n", "16\n",
	};
	struct gpu_aes_status_static st;
	char root[] = "/tmp/gpu-aes-status.XXXXXX", path[1024];
	char buf[8192];
	int i, n;

	CHECK(mkdtemp(root) != NULL);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, pci_dirs[i]);
		CHECK_EQ(mkdir(path, 0755), 0);
	}
	for (i = 0; i < 4; i++)
		put_file(path, link_files[i], link[i]);

	base(&st);
	st.backend = "cuda";
	usable(&st.gpus[0], 0, "NVIDIA \"H200\"\\\t", "tma", 90, 90, 0);
	st.gpus[0].memory_bytes = 150ULL << 30;
	snprintf(st.gpus[0].pci, sizeof(st.gpus[0].pci), "0000:65:00.0");
	/* not used, listed apart, between the two in use */
	unusable(&st.gpus[1], 1, "Tesla K80", 37,
		 "compute capability 3.7 is older than 7.5");
	usable(&st.gpus[2], 3, "NVIDIA H200", "portable", 90, 75, 1);
	st.gpus[2].memory_bytes = 1;
	snprintf(st.gpus[2].pci, sizeof(st.gpus[2].pci), "0000:99:00.0");
	st.nr_gpus = 3;
	n = gpu_aes_status_render(buf, sizeof(buf), &st, &cs, 5, root);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", root, pci_dirs[3],
			 link_files[i]);
		CHECK_EQ(unlink(path), 0);
	}
	for (i = 3; i >= 0; i--) {
		snprintf(path, sizeof(path), "%s/%s", root, pci_dirs[i]);
		CHECK_EQ(rmdir(path), 0);
	}
	CHECK_EQ(rmdir(root), 0);
	CHECK(n > 0);
	CHECK(json_same(buf, "gpus", "[\n"
		     "    {\"id\": 0, \"name\": \"NVIDIA \\\"H200\\\"\\\\\\u0009\", \"cc\": \"9.0\", \"memory_bytes\": 161061273600, \"pci\": \"0000:65:00.0\", "
		     "\"pcie\": {\"gen\": 4, \"width\": 8, \"max_gen\": 5, \"max_width\": 16, \"speed\": \"16.0 GT/s PCIe\"}, "
		     "\"path\": \"tma\", \"code\": \"sm_90\", \"ptx\": \"compute_90\", \"jit\": false},\n"
		     "    {\"id\": 3, \"name\": \"NVIDIA H200\", \"cc\": \"9.0\", \"memory_bytes\": 1, \"pci\": \"0000:99:00.0\", \"pcie\": null, "
		     "\"path\": \"portable\", \"code\": \"sm_90\", \"ptx\": \"compute_75\", \"jit\": true}\n"
		     "  ]"));
	CHECK(json_same(buf, "gpus_unusable", "[\n"
		     "    {\"id\": 1, \"name\": \"Tesla K80\", \"cc\": \"3.7\", \"memory_bytes\": 0, \"pci\": \"\", \"pcie\": null, "
		     "\"reason\": \"compute capability 3.7 is older than 7.5\"}\n"
		     "  ]"));
	CHECK(json_same(buf, "fallback", "null"));
	/* Quotes, a backslash and a control byte come back as they were. */
	CHECK(name_is(buf, 0, "NVIDIA \"H200\"\\\t"));
}

/*
 * auto found GPUs it cannot use: the cpu backend, why, and each GPU with
 * its reason (one whose properties CUDA would not give: no cc).
 */
TEST(status_file_render_fallback)
{
	struct gpu_aes_status_static st;
	char buf[8192];
	int n;

	base(&st);
	st.fallback = "cuda backend: no usable GPU";
	unusable(&st.gpus[0], 0, "NVIDIA L4", 89,
		 "no code for compute capability 8.9 in this build (it carries sm_90 compute_90)");
	unusable(&st.gpus[1], 1, "", 0, "cannot start on it: out of memory");
	st.nr_gpus = 2;
	n = gpu_aes_status_render(buf, sizeof(buf), &st, &cs, 5, "/nonexistent");
	CHECK(n > 0);
	CHECK(json_same(buf, "fallback", "\"cuda backend: no usable GPU\""));
	CHECK(json_same(buf, "gpus", "[]"));
	CHECK(json_same(buf, "gpus_unusable", "[\n"
		     "    {\"id\": 0, \"name\": \"NVIDIA L4\", \"cc\": \"8.9\", \"memory_bytes\": 0, \"pci\": \"\", \"pcie\": null, "
		     "\"reason\": \"no code for compute capability 8.9 in this build (it carries sm_90 compute_90)\"},\n"
		     "    {\"id\": 1, \"name\": \"\", \"cc\": null, \"memory_bytes\": 0, \"pci\": \"\", \"pcie\": null, "
		     "\"reason\": \"cannot start on it: out of memory\"}\n"
		     "  ]"));
}

/*
 * The module's dispatch mode and estimates, and the cost figures the
 * helper published in its region header: the estimates table becomes one
 * object per row keyed by the header line's names ("-" null, numbers
 * numbers).
 */
TEST(status_file_render_dispatch)
{
	static const char want[] =
		"{\"mode\": \"auto\", \"helper_cpu_ns_per_kib\": 812, \"helper_mib_per_s\": 2400,\n"
		"    \"estimates\": [\n"
		"      {\"alg\": \"ecb\", \"bytes\": 256, \"cpu_ns_per_kib\": 120, \"ring_ns_per_kib\": null, \"auto\": \"cpu\"},\n"
		"      {\"alg\": \"gcm\", \"bytes\": 1048576, \"cpu_ns_per_kib\": 300, \"ring_ns_per_kib\": 90, \"auto\": \"ring\"}\n"
		"    ]}";
	struct gpu_aes_region_hdr hdr;
	struct gpu_aes_status_static st;
	char root[] = "/tmp/gpu-aes-status.XXXXXX", dir[1024];
	char buf[8192];
	int n;

	CHECK(mkdtemp(root) != NULL);
	mkdirs(root, "module/gpu_aes/parameters");
	mkdirs(root, "class/misc/gpu_aes/dispatch");
	snprintf(dir, sizeof(dir), "%s/module/gpu_aes/parameters", root);
	put_file(dir, "dispatch", "auto\n");
	snprintf(dir, sizeof(dir), "%s/class/misc/gpu_aes/dispatch", root);
	put_file(dir, "estimates",
		 "alg bytes cpu_ns_per_kib ring_ns_per_kib auto\n"
		 "ecb 256 120 - cpu\n"
		 "gcm 1048576 300 90 ring\n");
	memset(&hdr, 0, sizeof(hdr));
	hdr.helper_cpu_ns_per_kib = 812;
	hdr.helper_mib_per_s = 2400;
	base(&st);
	st.hdr = &hdr;
	n = gpu_aes_status_render(buf, sizeof(buf), &st, &cs, 5, root);
	CHECK(n > 0);
	CHECK(json_same(buf, "dispatch", want));

	/* Not a table (a row of another width): null, the rest unchanged. */
	put_file(dir, "estimates",
		 "alg bytes cpu_ns_per_kib ring_ns_per_kib auto\n"
		 "ecb 256 120 - cpu extra\n");
	n = gpu_aes_status_render(buf, sizeof(buf), &st, &cs, 5, root);
	CHECK(n > 0);
	CHECK(json_same(buf, "dispatch", "{\"mode\": \"auto\", \"helper_cpu_ns_per_kib\": 812, \"helper_mib_per_s\": 2400, \"estimates\": null}"));
	/* A header that is not names: null too. */
	put_file(dir, "estimates", "alg \"bytes\"\necb 1\n");
	n = gpu_aes_status_render(buf, sizeof(buf), &st, &cs, 5, root);
	CHECK(n > 0 && json_same(buf, "dispatch/estimates", "null"));
	/* An empty table (no rows) is an empty array. */
	put_file(dir, "estimates", "alg bytes\n");
	n = gpu_aes_status_render(buf, sizeof(buf), &st, &cs, 5, root);
	CHECK(n > 0 && json_same(buf, "dispatch/estimates", "[]"));
	remove_tree(root);
	CHECK(access(root, F_OK) != 0);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

TEST(status_file_write_atomic)
{
	char dir[] = "/tmp/gpu-aes-status.XXXXXX", path[512], got[16] = "";
	struct stat sb;
	FILE *f;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/helper.json", dir);
	CHECK_EQ(gpu_aes_write_atomic(path, "first", 5), 0);
	CHECK_EQ(gpu_aes_write_atomic(path, "second", 6), 0);
	CHECK_EQ(stat(path, &sb), 0);
	CHECK_EQ(sb.st_mode & 07777, 0644);
	CHECK_EQ(count_entries(dir), 1);
	f = fopen(path, "r");
	CHECK(f != NULL);
	n = fread(got, 1, sizeof(got) - 1, f);
	fclose(f);
	CHECK_EQ(n, 6);
	CHECK(strcmp(got, "second") == 0);
	CHECK_EQ(unlink(path), 0);
	CHECK_EQ(rmdir(dir), 0);
	/* A missing directory: an error, nothing half-written anywhere. */
	CHECK_EQ(gpu_aes_write_atomic("/nonexistent/dir/helper.json", "x", 1),
		 -ENOENT);
}

static int no_reap(void *arg, uint32_t qid)
{
	(void)arg;
	(void)qid;
	return 0;
}

static void touch(const char *dir, const char *name)
{
	put_file(dir, name, "x");
}

static int exists(const char *dir, const char *name)
{
	char path[1024];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &sb) == 0;
}

TEST(status_file_thread)
{
	struct gpu_aes_core_config cfg = { .spin_us = 0 };
	struct gpu_aes_status_static st;
	struct gpu_aes_status_file *sf;
	struct gpu_aes_transport *t;
	struct gpu_aes_backend *be;
	struct gpu_aes_core *core;
	struct gpu_aes_geometry g;
	struct gpu_aes_region r;
	char dir[] = "/tmp/gpu-aes-status.XXXXXX", path[512];
	struct stat a, b;
	int i;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/helper.json", dir);
	/* A killed helper's temporaries, and files that are not. */
	touch(dir, "helper.json.a1B2c3");
	touch(dir, "helper.json.a1B2c34");
	touch(dir, "other.json.a1B2c3");
	CHECK_EQ(gpu_aes_region_geometry(1, 16, 4, GPU_AES_MIN_QUEUE_DATA, &g),
		 0);
	CHECK_EQ(gpu_aes_region_alloc(&g, &r, NULL), 0);
	gpu_aes_region_init_hdr(&r);
	CHECK_EQ(gpu_aes_backend_cpu.open(NULL, &r, &be), 0);
	CHECK_EQ(gpu_aes_transport_inproc_open(no_reap, NULL, &t), 0);
	CHECK_EQ(gpu_aes_core_create(&r, &gpu_aes_backend_cpu, be, t, &cfg,
				     &core), 0);
	base(&st);
	st.interval_s = 1;
	sf = gpu_aes_status_file_start(path, &st, core);
	CHECK(sf != NULL);
	CHECK_EQ(stat(path, &a), 0);
	CHECK_EQ(a.st_mode & 07777, 0644);
	CHECK(!exists(dir, "helper.json.a1B2c3"));
	CHECK(exists(dir, "helper.json.a1B2c34"));
	CHECK(exists(dir, "other.json.a1B2c3"));
	/*
	 * Rewritten after an interval (1 s): a new inode, from the rename.
	 * Waits at most 5 s, for a loaded machine.
	 */
	for (i = 0; i < 50; i++) {
		usleep(100 * 1000);
		CHECK_EQ(stat(path, &b), 0);
		if (b.st_ino != a.st_ino)
			break;
	}
	CHECK(a.st_ino != b.st_ino);
	gpu_aes_status_file_stop(sf);
	CHECK(!exists(dir, "helper.json"));
	gpu_aes_core_destroy(core);
	t->ops->close(t);
	gpu_aes_backend_cpu.close(be);
	gpu_aes_region_free(&r);
	snprintf(path, sizeof(path), "%s/helper.json.a1B2c34", dir);
	CHECK_EQ(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/other.json.a1B2c3", dir);
	CHECK_EQ(unlink(path), 0);
	CHECK_EQ(rmdir(dir), 0);
}
