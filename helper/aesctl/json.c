// SPDX-License-Identifier: GPL-2.0-only
/*
 * json.c - the JSON gpu-aesctl needs: a strict recursive-descent reader
 * (for the helper's status file; depth and size bounded, anything odd is an
 * error, never a crash) and a writer (pretty or one line per document).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aesctl.h"

#define MAX_DEPTH 32

struct parser {
	const char *start, *p, *end;
	char *err;
	size_t errlen;
	int failed;
};

static void perr(struct parser *ps, const char *what)
{
	if (!ps->failed)
		snprintf(ps->err, ps->errlen, "%s at byte %ld", what,
			 (long)(ps->p - ps->start));
	ps->failed = 1;
}

static void ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int lit(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return 0;
	ps->p += n;
	return 1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Appends the UTF-8 of @cp. */
static size_t utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	o[0] = (char)(0xe0 | (cp >> 12));
	o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

static char *pstring(struct parser *ps)
{
	const char *s;
	char *out, *o;
	int i, h;

	if (ps->p >= ps->end || *ps->p != '"') {
		perr(ps, "expected a string");
		return NULL;
	}
	s = ++ps->p;
	while (ps->p < ps->end && *ps->p != '"') {
		if (*ps->p == '\\')
			ps->p++;
		ps->p++;
	}
	if (ps->p >= ps->end) {
		perr(ps, "unterminated string");
		return NULL;
	}
	/* Escapes only shrink (\uXXXX is 6 bytes, at most 3 in UTF-8). */
	out = malloc((size_t)(ps->p - s) + 1);
	if (!out) {
		perr(ps, "out of memory");
		return NULL;
	}
	for (o = out; s < ps->p; s++) {
		unsigned int cp = 0;

		if ((unsigned char)*s < 0x20) {
			perr(ps, "control character in a string");
			free(out);
			return NULL;
		}
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		switch (*++s) {
		case '"': case '\\': case '/':
			*o++ = *s;
			break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			for (i = 0; i < 4; i++) {
				h = s + 1 < ps->p ? hexval(*++s) : -1;
				if (h < 0) {
					perr(ps, "bad \\u escape");
					free(out);
					return NULL;
				}
				cp = cp << 4 | (unsigned int)h;
			}
			/* Surrogates are not worth a pair decoder here. */
			o += utf8(o, cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp);
			break;
		default:
			perr(ps, "bad escape");
			free(out);
			return NULL;
		}
	}
	*o = 0;
	ps->p++;
	return out;
}

static int pvalue(struct parser *ps, struct jval *v, int depth);

static int grow(struct jval *v, size_t *cap, int obj)
{
	size_t ncap = *cap ? *cap * 2 : 8;
	struct jval *kids;

	if (v->n < *cap)
		return 0;
	kids = realloc(v->kids, ncap * sizeof(*kids));
	if (!kids)
		return -1;
	v->kids = kids;
	if (obj) {
		char **keys = realloc(v->keys, ncap * sizeof(*keys));

		if (!keys)
			return -1;
		v->keys = keys;
	}
	*cap = ncap;
	return 0;
}

static int pcontainer(struct parser *ps, struct jval *v, int depth, int obj)
{
	size_t cap = 0;

	v->type = obj ? J_OBJ : J_ARR;
	ps->p++;
	ws(ps);
	if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
		ps->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		ws(ps);
		if (obj) {
			key = pstring(ps);
			if (!key)
				return -1;
			ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				perr(ps, "expected ':'");
				return -1;
			}
			ps->p++;
		}
		if (grow(v, &cap, obj)) {
			free(key);
			perr(ps, "out of memory");
			return -1;
		}
		memset(&v->kids[v->n], 0, sizeof(v->kids[0]));
		if (obj)
			v->keys[v->n] = key;
		v->n++;
		if (pvalue(ps, &v->kids[v->n - 1], depth + 1))
			return -1;
		ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
			ps->p++;
			return 0;
		}
		perr(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		return -1;
	}
}

static int pnumber(struct parser *ps, struct jval *v)
{
	const char *s = ps->p;
	char *end;
	size_t n;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
		perr(ps, "unexpected character");
		return -1;
	}
	while (ps->p < ps->end && strchr("0123456789+-.eE", *ps->p))
		ps->p++;
	n = (size_t)(ps->p - s);
	v->str = malloc(n + 1);
	if (!v->str) {
		perr(ps, "out of memory");
		return -1;
	}
	memcpy(v->str, s, n);
	v->str[n] = 0;
	v->num = strtod(v->str, &end);
	if (*end || !isfinite(v->num)) {
		perr(ps, "bad number");
		return -1;
	}
	v->type = J_NUM;
	return 0;
}

static int pvalue(struct parser *ps, struct jval *v, int depth)
{
	if (depth > MAX_DEPTH) {
		perr(ps, "nested too deep");
		return -1;
	}
	ws(ps);
	if (ps->p >= ps->end) {
		perr(ps, "unexpected end");
		return -1;
	}
	switch (*ps->p) {
	case '{':
		return pcontainer(ps, v, depth, 1);
	case '[':
		return pcontainer(ps, v, depth, 0);
	case '"':
		v->type = J_STR;
		v->str = pstring(ps);
		return v->str ? 0 : -1;
	default:
		break;
	}
	if (lit(ps, "true") || lit(ps, "false")) {
		v->type = J_BOOL;
		v->b = ps->p[-1] == 'e' && ps->p[-2] == 'u';
		return 0;
	}
	if (lit(ps, "null")) {
		v->type = J_NULL;
		return 0;
	}
	return pnumber(ps, v);
}

static void jfree_kids(struct jval *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jfree_kids(&v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
}

void json_free(struct jval *v)
{
	if (!v)
		return;
	jfree_kids(v);
	free(v);
}

struct jval *json_parse(const char *text, size_t len, char *err,
			size_t errlen)
{
	struct parser ps = { text, text, text + len, err, errlen, 0 };
	struct jval *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!pvalue(&ps, v, 0)) {
		ws(&ps);
		if (ps.p != ps.end)
			perr(&ps, "trailing characters");
	}
	if (ps.failed) {
		json_free(v);
		return NULL;
	}
	return v;
}

const struct jval *json_get(const struct jval *v, const char *key)
{
	size_t i;

	if (!v || v->type != J_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->kids[i];
	return NULL;
}

long long json_int(const struct jval *v, const char *key, long long def)
{
	const struct jval *m = key ? json_get(v, key) : v;

	if (!m || m->type != J_NUM || m->num < -9e18 || m->num > 9e18)
		return def;
	return (long long)m->num;
}

const char *json_str(const struct jval *v, const char *key, const char *def)
{
	const struct jval *m = json_get(v, key);

	return m && m->type == J_STR ? m->str : def;
}

/* ---- writer ----------------------------------------------------------- */

void jw_init(struct jw *w, FILE *f, int pretty)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = pretty;
	w->first[0] = 1;
}

static void jw_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Separator, indentation and key before a value. */
static void jw_pre(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		fputs(w->pretty ? "," : ", ", w->f);
	w->first[w->depth] = 0;
	if (w->pretty && w->depth)
		fprintf(w->f, "\n%*s", 2 * w->depth, "");
	if (key) {
		jw_string(w->f, key);
		fputs(": ", w->f);
	}
}

static void jw_open(struct jw *w, const char *key, char c)
{
	jw_pre(w, key);
	fputc(c, w->f);
	if (w->depth < 63)
		w->depth++;
	w->first[w->depth] = 1;
}

static void jw_close(struct jw *w, char c)
{
	int empty = w->first[w->depth];

	if (w->depth)
		w->depth--;
	if (w->pretty && !empty)
		fprintf(w->f, "\n%*s", 2 * w->depth, "");
	fputc(c, w->f);
}

void jw_begin_obj(struct jw *w, const char *key)
{
	jw_open(w, key, '{');
}

void jw_end_obj(struct jw *w)
{
	jw_close(w, '}');
}

void jw_begin_arr(struct jw *w, const char *key)
{
	jw_open(w, key, '[');
}

void jw_end_arr(struct jw *w)
{
	jw_close(w, ']');
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_pre(w, key);
	jw_string(w->f, s);
}

void jw_int(struct jw *w, const char *key, long long v)
{
	jw_pre(w, key);
	fprintf(w->f, "%lld", v);
}

void jw_num(struct jw *w, const char *key, double v, int decimals)
{
	jw_pre(w, key);
	if (!isfinite(v))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.*f", decimals, v);
}

void jw_bool(struct jw *w, const char *key, int v)
{
	jw_pre(w, key);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w, const char *key)
{
	jw_pre(w, key);
	fputs("null", w->f);
}

void jw_value(struct jw *w, const char *key, const struct jval *v)
{
	size_t i;

	if (!v) {
		jw_null(w, key);
		return;
	}
	switch (v->type) {
	case J_NULL:
		jw_null(w, key);
		break;
	case J_BOOL:
		jw_bool(w, key, v->b);
		break;
	case J_NUM:
		jw_pre(w, key);
		fputs(v->str, w->f);
		break;
	case J_STR:
		jw_str(w, key, v->str);
		break;
	case J_ARR:
	case J_OBJ:
		jw_open(w, key, v->type == J_OBJ ? '{' : '[');
		for (i = 0; i < v->n; i++)
			jw_value(w, v->type == J_OBJ ? v->keys[i] : NULL,
				 &v->kids[i]);
		jw_close(w, v->type == J_OBJ ? '}' : ']');
		break;
	}
}

void jw_pre_raw(struct jw *w, const char *key, const char *raw)
{
	jw_pre(w, key);
	fputs(raw, w->f);
}

void jw_done(struct jw *w)
{
	fputc('\n', w->f);
	fflush(w->f);
}
