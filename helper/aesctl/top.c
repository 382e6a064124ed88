// SPDX-License-Identifier: GPL-2.0-only
/*
 * top.c - gpu-aesctl top (watch): requests/s and bytes/s per path (ring,
 * cpu) and per algorithm or fallback reason, and every other counter as a
 * rate, from the differences of the sysfs counters between two reads.
 *
 * On a terminal it redraws one screen (the alternate screen, cursor
 * hidden, keys read unbuffered) until q or Ctrl-C and then puts the
 * terminal back as it was; otherwise (--batch, --json, or stdout not a
 * terminal) it prints one frame per interval, for scripts.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "aesctl.h"

static volatile sig_atomic_t g_stop, g_winch;
static struct termios g_saved;
static int g_tty_mode;		/* terminal changed, to restore */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: gpu-aesctl top [-d SECONDS] [-n COUNT] [--batch] [--json]\n"
"Live rates from the module's counters: requests/s and bytes/s per path\n"
"(ring, cpu) and per algorithm and fallback reason, timeouts, rejections\n"
"and every other counter per second.\n"
"\n"
"  -d, --delay SECONDS  interval (default 1, 0.1 to 3600)\n"
"  -n, --count COUNT    stop after COUNT frames (default: until q/Ctrl-C)\n"
"  -b, --batch          plain frames, one per interval (also when standard\n"
"                       output is not a terminal)\n"
"  -j, --json           one JSON object per frame and line (implies --batch)\n"
"\n"
"On a terminal: q quits, Ctrl-C too; the terminal is restored either way.\n");
}

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		g_winch = 1;
	else
		g_stop = 1;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void tty_restore(void)
{
	if (!g_tty_mode)
		return;
	/* Cursor back, main screen back, then the line discipline. */
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved);
	g_tty_mode = 0;
}

static int tty_setup(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &g_saved))
		return -1;
	t = g_saved;
	/* Keys one at a time, not echoed; ^C still raises SIGINT. */
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
		return -1;
	g_tty_mode = 1;
	atexit(tty_restore);
	fputs("\033[?1049h\033[?25l\033[H\033[2J", stdout);
	fflush(stdout);
	return 0;
}

/* The terminal's size; 80x24 when it does not say. */
static void tty_size(int *cols, int *rows)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < 20 ||
	    ws.ws_row < 3) {
		*cols = 80;
		*rows = 24;
		return;
	}
	*cols = ws.ws_col;
	*rows = ws.ws_row;
}

/* One frame: the counters now and the differences since the last. */
struct frame {
	struct kvlist cur, prev, status, queues;
	double dt;
};

static long long delta(const struct frame *f, const char *name)
{
	long long now = kv_value(&f->cur, name, 0);
	long long was = kv_value(&f->prev, name, 0);

	/* A reloaded module starts from zero again. */
	return now >= was ? now - was : now;
}

static double rate(const struct frame *f, const char *name)
{
	return f->dt > 0 ? (double)delta(f, name) / f->dt : 0;
}

static const char *fmt_rate_bytes(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "B/s", "kB/s", "MB/s", "GB/s",
					    "TB/s" };
	int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

static const char *const events_known[] = {
	"timeouts", "rejected_completions", "recomputed", "late_completions",
	"helper_errors", "backlogged", "auth_failures", "helper_attaches",
};

/* Counters that are not requests/bytes of a path, algorithm or reason. */
static int is_event(const char *name)
{
	char p[64];

	return strcmp(name, "ring_requests") != 0 &&
	       strcmp(name, "ring_bytes") != 0 &&
	       !counter_split(name, "ring_", "_requests", p, sizeof(p)) &&
	       !counter_split(name, "ring_", "_bytes", p, sizeof(p)) &&
	       !counter_split(name, "fallback_", "", p, sizeof(p));
}

static int events(const struct kvlist *l, char out[][64], int max)
{
	static const char *const none[] = { NULL };
	char all[64][64];
	int n = counter_parts(l, "", "", events_known, 8, none, all, 64);
	int i, m = 0;

	for (i = 0; i < n && m < max; i++)
		if (is_event(all[i]))
			memcpy(out[m++], all[i], 64);
	return m;
}

/*
 * Text lines of a frame; on a terminal each is cut at the width, and lines
 * past the last row but one are dropped, so the screen never scrolls.
 */
struct screen {
	FILE *f;
	int cols;	/* 0: no cut */
	int rows;	/* 0: no limit */
	int tty;
	int n;		/* lines so far */
};

static void line(struct screen *sc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void line(struct screen *sc, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (sc->rows && sc->n >= sc->rows - 1)
		return;
	sc->n++;
	if (sc->cols && (int)strlen(buf) > sc->cols)
		buf[sc->cols] = 0;
	fprintf(sc->f, "%s%s\n", buf, sc->tty ? "\033[K" : "");
}

static void row(struct screen *sc, const char *label, const struct frame *f,
		const char *req, const char *bytes)
{
	char b[32];

	b[0] = 0;
	if (bytes && kv_find(&f->cur, bytes))
		line(sc, "%-24s %12lld %12.1f %14lld %14s", label, delta(f, req),
		     rate(f, req), delta(f, bytes),
		     fmt_rate_bytes(b, sizeof(b), rate(f, bytes)));
	else
		line(sc, "%-24s %12lld %12.1f", label, delta(f, req), rate(f, req));
}

/* "12/1024 (1.2%)", or only the count when the size is not known. */
static const char *fill(char *buf, size_t len, const struct kvlist *l,
			const char *used, const char *size, int bytes)
{
	long long u = kv_value(l, used, 0), n = kv_value(l, size, 0);
	char a[24], b[24];

	if (bytes) {
		fmt_bytes(a, sizeof(a), (double)u);
		fmt_bytes(b, sizeof(b), (double)n);
	} else {
		snprintf(a, sizeof(a), "%lld", u);
		snprintf(b, sizeof(b), "%lld", n);
	}
	if (n > 0) {
		long long tenths = (long long)(1000.0 * (double)u / (double)n +
					       0.5);

		snprintf(buf, len, "%s/%s (%lld.%lld%%)", a, b, tenths / 10,
			 tenths % 10);
	} else {
		snprintf(buf, len, "%s", a);
	}
	return buf;
}

/*
 * How full the ring is now (not a rate): from the status files, by name,
 * so a module that reports more or fewer of them is shown as it is.
 */
static void fill_line(struct screen *sc, const struct frame *f)
{
	char e[80], d[80], k[80];

	line(sc, "ring: %s in flight, data %s, %lld backlogged, keys %s",
	     fill(e, sizeof(e), &f->status, "in_flight", "entries", 0),
	     fill(d, sizeof(d), &f->status, "data_used", "data_bytes", 1),
	     kv_value(&f->status, "backlog", 0),
	     fill(k, sizeof(k), &f->status, "keys_used", "keys", 0));
}

static void helper_line(struct screen *sc, const struct ctl *c,
			const struct frame *f)
{
	struct helper_file hf;

	if (!f->status.n) {
		line(sc, "helper: unknown (the module has no status directory)");
		return;
	}
	if (!kv_value(&f->status, "attached", 0)) {
		line(sc, "helper: NOT ATTACHED: every request runs on the CPU");
		return;
	}
	/* The backend comes from the helper's status file, if readable. */
	state_read_helper(c, &hf);
	line(sc, "helper: pid %lld, backend %s, %lld queue%s%s",
	     kv_value(&f->status, "helper_pid", 0),
	     hf.doc ? jstr(hf.doc, "backend", "?") : "? (no status file)",
	     kv_value(&f->status, "queues", 0),
	     kv_value(&f->status, "queues", 0) == 1 ? "" : "s",
	     kv_value(&f->status, "stalled", 0) ? ", STALLED" : "");
	json_object_put(hf.doc);
	fill_line(sc, f);
}

static void text_frame(struct screen *sc, const struct ctl *c,
		       const struct frame *f, long nr, long count)
{
	char names[64][64], label[96], t[64];
	struct timespec now;
	int i, n;

	clock_gettime(CLOCK_REALTIME, &now);
	fmt_time(t, sizeof(t), (double)now.tv_sec);
	if (count)
		line(sc, "gpu-aesctl top  %s  interval %.3f s  frame %ld/%ld", t,
		     f->dt, nr, count);
	else
		line(sc, "gpu-aesctl top  %s  interval %.3f s  frame %ld", t,
		     f->dt, nr);
	helper_line(sc, c, f);
	line(sc, "%-24s %12s %12s %14s %14s", "path / algorithm", "requests",
	     "req/s", "bytes", "throughput");
	row(sc, "ring", f, "ring_requests", "ring_bytes");
	n = counter_parts(&f->cur, "ring_", "_requests", algs_known,
			  GPU_AES_ALG_MAX, NULL, names, 64);
	for (i = 0; i < n; i++) {
		char req[96], bytes[96];

		snprintf(label, sizeof(label), "  %.63s", names[i]);
		snprintf(req, sizeof(req), "ring_%.63s_requests", names[i]);
		snprintf(bytes, sizeof(bytes), "ring_%.63s_bytes", names[i]);
		row(sc, label, f, req, bytes);
	}
	row(sc, "cpu (fallback)", f, "fallback_requests", "fallback_bytes");
	n = fallback_reasons(&f->cur, 0, names, 64);
	for (i = 0; i < n; i++) {
		char req[96], parts[64][64];
		int j, np = fallback_reasons(&f->cur, 1, parts, 64);
		size_t len = strlen(names[i]);

		snprintf(label, sizeof(label), "  %.63s", names[i]);
		snprintf(req, sizeof(req), "fallback_%.63s", names[i]);
		row(sc, label, f, req, NULL);
		/* Its parts (policy: policy_cost ...) under it. */
		for (j = 0; j < np; j++) {
			if (strncmp(parts[j], names[i], len) != 0 ||
			    parts[j][len] != '_' ||
			    reason_parent(&f->cur, parts[j]) != len)
				continue;
			snprintf(label, sizeof(label), "    %.63s", parts[j]);
			snprintf(req, sizeof(req), "fallback_%.63s", parts[j]);
			row(sc, label, f, req, NULL);
		}
	}
	{
		char b[32];
		long long dr = delta(f, "ring_requests") +
			       delta(f, "fallback_requests");
		long long db = delta(f, "ring_bytes") + delta(f, "fallback_bytes");

		line(sc, "%-24s %12lld %12.1f %14lld %14s", "total", dr,
		     f->dt > 0 ? (double)dr / f->dt : 0, db,
		     fmt_rate_bytes(b, sizeof(b),
				    f->dt > 0 ? (double)db / f->dt : 0));
	}
	line(sc, "%-24s %12s %12s", "events", "count", "per s");
	n = events(&f->cur, names, 64);
	for (i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "  %.63s", names[i]);
		row(sc, label, f, names[i], NULL);
	}
}

static void json_frame(const struct frame *f, long nr)
{
	struct json_object *doc = json_object_new_object(), *o, *p, *a;
	struct timespec now;
	size_t i;

	clock_gettime(CLOCK_REALTIME, &now);
	jo_int(doc, "frame", nr);
	jo_num(doc, "time", (double)now.tv_sec + (double)now.tv_nsec / 1e9, 3);
	jo_num(doc, "interval_s", f->dt, 9);
	p = jo_obj(doc, "paths");
	o = jo_obj(p, "ring");
	jo_num(o, "requests_per_s", rate(f, "ring_requests"), 3);
	jo_num(o, "bytes_per_s", rate(f, "ring_bytes"), 3);
	o = jo_obj(p, "cpu");
	jo_num(o, "requests_per_s", rate(f, "fallback_requests"), 3);
	jo_num(o, "bytes_per_s", rate(f, "fallback_bytes"), 3);
	o = jo_obj(doc, "counters");
	for (i = 0; i < f->cur.n; i++)
		if (f->cur.v[i].numeric)
			jo_int(o, f->cur.v[i].name, f->cur.v[i].value);
	o = jo_obj(doc, "deltas");
	for (i = 0; i < f->cur.n; i++)
		if (f->cur.v[i].numeric)
			jo_int(o, f->cur.v[i].name, delta(f, f->cur.v[i].name));
	o = jo_obj(doc, "rates");
	for (i = 0; i < f->cur.n; i++)
		if (f->cur.v[i].numeric)
			jo_num(o, f->cur.v[i].name, rate(f, f->cur.v[i].name), 3);
	o = jo_obj(doc, "status");
	for (i = 0; i < f->status.n; i++)
		if (f->status.v[i].numeric)
			jo_int(o, f->status.v[i].name, f->status.v[i].value);
	/* Each per-queue file as a list, queue 0 first. */
	o = jo_obj(doc, "queues");
	for (i = 0; i < f->queues.n; i++) {
		static long long v[MAX_QUEUES];
		int n = kv_list(&f->queues, f->queues.v[i].name, v, MAX_QUEUES);
		int k;

		if (n < 0)
			continue;
		a = jo_arr(o, f->queues.v[i].name);
		for (k = 0; k < n && k < MAX_QUEUES; k++)
			jo_int(a, NULL, v[k]);
	}
	/* One line per frame; a failed write ends top through ferror(). */
	jo_print(stdout, doc, 0);
}

/*
 * Waits until @deadline (monotonic); on a terminal reads keys meanwhile.
 * Returns 1 to quit.
 */
static int wait_until(double deadline, int tty)
{
	for (;;) {
		double left = deadline - mono();
		struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
		char key;
		int ms, r;

		if (g_stop)
			return 1;
		if (left <= 0)
			return 0;
		ms = (int)ceil(left * 1000);
		if (!tty) {
			struct timespec ts = { (time_t)left,
				(long)((left - floor(left)) * 1e9) };

			nanosleep(&ts, NULL);	/* EINTR: g_stop is seen */
			continue;
		}
		r = poll(&p, 1, ms);
		if (r > 0 && read(STDIN_FILENO, &key, 1) == 1 &&
		    (key == 'q' || key == 'Q'))
			return 1;
		if (r > 0 && (p.revents & (POLLHUP | POLLERR)))
			return 1;
		if (g_winch)
			return 0;
	}
}

int cmd_top(struct ctl *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		CTL_LONGOPTS,
		{ "delay", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "batch", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa;
	struct frame f;
	struct state s;
	double interval = 1, start, next;
	long count = 0, nr = 0;
	int o, batch = 0, tty, rc = CTL_OK;

	while ((o = ctl_getopt(c, argc, argv, ":jhd:n:b", longopts,
				usage)) >= 0) {
		if (o == 'd' && parse_double("top: -d", optarg, 0.1, 3600,
					     &interval))
			return CTL_USAGE;
		if (o == 'n' && parse_long("top: -n", optarg, 1, 1000000000L,
					   &count))
			return CTL_USAGE;
		if (o == 'b')
			batch = 1;
	}
	if (o != CTL_OPTS_END)
		return ctl_opts_exit(o);
	rc = state_read(c, &s, 0);
	state_free(&s);
	if (rc)
		return rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* A write cut by ^C would lose the frame: restart it; poll() and
	 * nanosleep() still return early and see g_stop. */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);

	tty = !batch && !c->json && isatty(STDOUT_FILENO) &&
	      isatty(STDIN_FILENO);
	if (tty && tty_setup())
		tty = 0;

	memset(&f, 0, sizeof(f));
	if (state_read_counters(c, &f.prev, NULL, NULL)) {
		tty_restore();
		ctl_err("top: cannot read the counters");
		return CTL_FAIL;
	}
	start = mono();
	next = start;
	if (tty) {
		struct screen sc = { stdout, 0, 0, 1, 0 };

		tty_size(&sc.cols, &sc.rows);
		fputs("\033[H", stdout);
		line(&sc, "gpu-aesctl top: first rates in %.1f s (q quits)",
		     interval);
		fputs("\033[J", stdout);
		fflush(stdout);
	}
	for (;;) {
		double t;
		int stop;

		next += interval;
		while (!(stop = wait_until(next, tty)) && g_winch &&
		       mono() < next) {
			/* Resized: clear now, the next frame fits the size. */
			g_winch = 0;
			fputs("\033[2J", stdout);
			fflush(stdout);
		}
		if (stop)
			break;
		g_winch = 0;
		t = mono();
		if (state_read_counters(c, &f.cur, &f.status, &f.queues)) {
			tty_restore();
			ctl_err("top: gpu_aes was unloaded");
			rc = CTL_NOMODULE;
			break;
		}
		f.dt = t - start;
		start = t;
		nr++;
		if (c->json) {
			json_frame(&f, nr);
		} else {
			struct screen sc = { stdout, 0, 0, tty, 0 };

			if (tty) {
				tty_size(&sc.cols, &sc.rows);
				fputs("\033[H", stdout);
			}
			else if (nr > 1)
				fputc('\n', stdout);
			if (tty)	/* room for the last line */
				sc.rows -= 1;
			text_frame(&sc, c, &f, nr, count);
			if (tty)
				fputs("\033[Kq quits\033[K\033[J", stdout);
		}
		if (fflush(stdout) || ferror(stdout)) {
			rc = errno == EPIPE ? CTL_OK : CTL_FAIL;
			break;
		}
		kvlist_free(&f.prev);
		kvlist_free(&f.status);
		kvlist_free(&f.queues);
		f.prev = f.cur;
		memset(&f.cur, 0, sizeof(f.cur));
		if (count && nr >= count)
			break;
	}
	tty_restore();
	kvlist_free(&f.prev);
	kvlist_free(&f.cur);
	kvlist_free(&f.status);
	kvlist_free(&f.queues);
	return rc;
}
