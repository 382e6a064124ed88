// SPDX-License-Identifier: GPL-2.0-only
/*
 * json.c - gpu-aesctl's JSON, done by json-c: the strict reading of the
 * helper's status file (the tokener's strict mode plus the checks it does
 * not make: UTF-8, control bytes, non-finite numbers; anything odd is an
 * error, never a crash) and short forms of json-c's calls for the
 * documents gpu-aesctl prints.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aesctl.h"

/* Deeper than any status file; json-c's own default is 32 too. */
#define MAX_DEPTH 32

/*
 * What json-c's strict mode lets through: NaN, Infinity and numbers too
 * large for a double (1e999).  Every value gpu-aesctl prints must be
 * JSON again, and a count that is infinite is garbage anyway.
 */
static int all_finite(struct json_object *v, int depth)
{
	size_t i, n;

	if (depth > MAX_DEPTH)
		return 0;
	switch (json_object_get_type(v)) {
	case json_type_double:
		return isfinite(json_object_get_double(v));
	case json_type_array:
		n = json_object_array_length(v);
		for (i = 0; i < n; i++)
			if (!all_finite(json_object_array_get_idx(v, i),
					depth + 1))
				return 0;
		return 1;
	case json_type_object: {
		json_object_object_foreach(v, key, member) {
			(void)key;
			if (!all_finite(member, depth + 1))
				return 0;
		}
		return 1;
	}
	default:
		return 1;
	}
}

/*
 * Length of the UTF-8 sequence at @s (RFC 3629: shortest form, no
 * surrogates, at most U+10FFFF), 0 if it is not one.  json-c's own check
 * (JSON_TOKENER_VALIDATE_UTF8, 0.15 on) takes overlong forms such as
 * C0 AF, which would reach the terminal and gpu-aesctl's own JSON.
 */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	unsigned int cp, min;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, min = 0x80, cp = s[0] & 0x1fU;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3, min = 0x800, cp = s[0] & 0x0fU;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, min = 0x10000, cp = s[0] & 0x07U;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fU);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int jparse(const char *text, size_t len, struct json_object **out,
	   char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *v;
	enum json_tokener_error e;
	size_t i, n, end;
	int in_str = 0;

	*out = NULL;
	/*
	 * What json-c's strict mode still takes: a raw control byte inside a
	 * string (JSON has them nowhere but as white space between tokens)
	 * and a member name in single quotes.  Only the quotes and escapes
	 * of strings are followed here, the tokener checks the rest.
	 */
	for (i = 0; i < len; i += n) {
		unsigned char c = (unsigned char)text[i];

		n = utf8_len((const unsigned char *)text + i, len - i);
		if (!n) {
			snprintf(err, errlen, "invalid UTF-8 at byte %zu", i);
			return -1;
		}
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			snprintf(err, errlen, "control character at byte %zu", i);
			return -1;
		}
		if (in_str && c == '\\' && i + 1 < len)
			n++;	/* an escaped byte: ASCII, or the tokener refuses it */
		else if (c == '"')
			in_str = !in_str;
		else if (!in_str && c == '\'') {
			snprintf(err, errlen, "single quote at byte %zu", i);
			return -1;
		}
	}
	if (len > (size_t)INT32_MAX) {
		snprintf(err, errlen, "too large");
		return -1;
	}
	tok = json_tokener_new_ex(MAX_DEPTH);
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	v = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	/*
	 * A value that may go on (a number, a literal) or one not finished:
	 * the end of the text, as a NUL byte, settles which.
	 */
	if (e == json_tokener_continue) {
		v = json_tokener_parse_ex(tok, "", 1);
		e = json_tokener_get_error(tok);
		end = len;
	}
	json_tokener_free(tok);
	if (e != json_tokener_success) {
		snprintf(err, errlen, "%s at byte %zu",
			 json_tokener_error_desc(e), end);
		return -1;
	}
	/* Strict mode has refused anything but white space after it. */
	if (!all_finite(v, 0)) {
		json_object_put(v);
		snprintf(err, errlen, "a number that is not finite");
		return -1;
	}
	*out = v;
	return 0;
}

struct json_object *jget(struct json_object *v, const char *key)
{
	struct json_object *m;

	if (!json_object_is_type(v, json_type_object) ||
	    !json_object_object_get_ex(v, key, &m))
		return NULL;
	return m;
}

long long jint(struct json_object *v, const char *key, long long def)
{
	struct json_object *m = key ? jget(v, key) : v;
	double d;

	if (json_object_is_type(m, json_type_int))
		return (long long)json_object_get_int64(m);
	if (!json_object_is_type(m, json_type_double))
		return def;
	d = json_object_get_double(m);
	return d < -9e18 || d > 9e18 ? def : (long long)d;
}

const char *jstr(struct json_object *v, const char *key, const char *def)
{
	struct json_object *m = jget(v, key);

	return json_object_is_type(m, json_type_string) ?
		json_object_get_string(m) : def;
}

int jbool(struct json_object *v, const char *key, int def)
{
	struct json_object *m = jget(v, key);

	return json_object_is_type(m, json_type_boolean) ?
		json_object_get_boolean(m) : def;
}

/* ---- building documents ------------------------------------------------ */

/* @v (a new reference, or NULL for null) into @parent, under @key. */
static struct json_object *put(struct json_object *parent, const char *key,
			       struct json_object *v)
{
	if (json_object_is_type(parent, json_type_array))
		json_object_array_add(parent, v);
	else
		json_object_object_add(parent, key, v);
	return v;
}

struct json_object *jo_obj(struct json_object *parent, const char *key)
{
	return put(parent, key, json_object_new_object());
}

struct json_object *jo_arr(struct json_object *parent, const char *key)
{
	return put(parent, key, json_object_new_array());
}

void jo_str(struct json_object *parent, const char *key, const char *s)
{
	put(parent, key, json_object_new_string(s ? s : ""));
}

void jo_int(struct json_object *parent, const char *key, long long v)
{
	put(parent, key, json_object_new_int64(v));
}

void jo_num(struct json_object *parent, const char *key, double v,
	    int decimals)
{
	char text[64];

	if (!isfinite(v)) {
		put(parent, key, NULL);
		return;
	}
	/* json-c prints a double with as many digits as it has; fix them. */
	snprintf(text, sizeof(text), "%.*f", decimals, v);
	put(parent, key, json_object_new_double_s(v, text));
}

void jo_bool(struct json_object *parent, const char *key, int v)
{
	put(parent, key, json_object_new_boolean(v != 0));
}

void jo_null(struct json_object *parent, const char *key)
{
	put(parent, key, NULL);
}

void jo_value(struct json_object *parent, const char *key,
	      struct json_object *v)
{
	put(parent, key, json_object_get(v));
}

int jo_print(FILE *f, struct json_object *doc, int pretty)
{
	/*
	 * Spaced as the hand-written writer did ("key": value), for the
	 * scripts that grep a line of top --json for "frame": N.
	 */
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE | JSON_C_TO_STRING_SPACED |
		    (pretty ? JSON_C_TO_STRING_PRETTY : 0);
	const char *text = json_object_to_json_string_ext(doc, flags);
	int ok = text && fputs(text, f) >= 0 && fputc('\n', f) != EOF &&
		 fflush(f) == 0;

	json_object_put(doc);
	return ok ? 0 : -1;
}
