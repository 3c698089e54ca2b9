/* sm_json.c: the streaming JSON writer: separators, line layout, string
 * escaping, numbers. */
#include "sm_json.h"

#include <assert.h>
#include <math.h>

static void put_indent(FILE *f, int n)
{
  fputc('\n', f);
  for (int k = 0; k < n; k++)
    fputc(' ', f);
}

/* Bytes of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0. */
static int utf8_len(const unsigned char *p)
{
  const unsigned char c = p[0];
  int n;
  unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
  if (c >= 0xc2 && c <= 0xdf)
    n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    lo = c == 0xe0 ? 0xa0 : 0x80;
    hi = c == 0xed ? 0x9f : 0xbf;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    lo = c == 0xf0 ? 0x90 : 0x80;
    hi = c == 0xf4 ? 0x8f : 0xbf;
  } else
    return 0;
  if (p[1] < lo || p[1] > hi)
    return 0;
  for (int k = 2; k < n; k++)
    if (p[k] < 0x80 || p[k] > 0xbf) /* the NUL ending s stops here too */
      return 0;
  return n;
}

/* A JSON string: '"' and '\\' escaped, every control byte (below 0x20, and
 * 0x7f) as \u00XX, well-formed UTF-8 as it is; each byte of anything else
 * (a path or name in another encoding) becomes U+FFFD, written \ufffd, so
 * the file is always valid UTF-8 JSON. */
static void put_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    const unsigned char c = *p;
    int n = 1;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      fprintf(f, "\\u%04x", c);
    else if (c < 0x80)
      fputc(c, f);
    else if ((n = utf8_len(p)) > 0)
      fwrite(p, 1, (size_t)n, f);
    else {
      fputs("\\ufffd", f);
      n = 1;
    }
    p += n;
  }
  fputc('"', f);
}

/* What comes before an item of the innermost container: the comma, the
 * line break or space, then the member name. */
static void item(sm_json_t *j, const char *key)
{
  assert(j->depth > 0);
  int first = j->level[j->depth - 1].first;
  int indent = j->level[j->depth - 1].indent;
  if (!first)
    fputc(',', j->f);
  if (indent > 0)
    put_indent(j->f, indent);
  else if (!first && j->brk > 0)
    put_indent(j->f, j->brk);
  else if (!first)
    fputc(' ', j->f);
  j->brk = 0;
  j->level[j->depth - 1].first = 0;
  if (key) {
    put_string(j->f, key);
    fputs(": ", j->f);
  }
}

static void open_level(sm_json_t *j, char open, char close, int indent)
{
  assert(j->depth < SM_JSON_DEPTH);
  fputc(open, j->f);
  j->level[j->depth].close = close;
  j->level[j->depth].first = 1;
  j->level[j->depth].indent = indent;
  j->depth++;
}

void sm_json_begin(sm_json_t *j, FILE *f)
{
  j->f = f;
  j->depth = 0;
  j->brk = 0;
  open_level(j, '{', '}', 2);
}

void sm_json_end(sm_json_t *j)
{
  assert(j->depth == 1);
  fputs("\n}\n", j->f);
  j->depth = 0;
}

void sm_json_object(sm_json_t *j, const char *key, int indent)
{
  item(j, key);
  open_level(j, '{', '}', indent);
}

void sm_json_array(sm_json_t *j, const char *key, int indent)
{
  item(j, key);
  open_level(j, '[', ']', indent);
}

void sm_json_close(sm_json_t *j)
{
  assert(j->depth > 1);
  j->depth--;
  fputc(j->level[j->depth].close, j->f);
}

void sm_json_break(sm_json_t *j, int indent)
{
  j->brk = indent;
}

void sm_json_str(sm_json_t *j, const char *key, const char *s)
{
  item(j, key);
  if (s)
    put_string(j->f, s);
  else
    fputs("null", j->f);
}

void sm_json_int(sm_json_t *j, const char *key, long long x)
{
  item(j, key);
  fprintf(j->f, "%lld", x);
}

void sm_json_u64(sm_json_t *j, const char *key, unsigned long long x)
{
  item(j, key);
  fprintf(j->f, "%llu", x);
}

void sm_json_bool(sm_json_t *j, const char *key, int x)
{
  item(j, key);
  fputs(x ? "true" : "false", j->f);
}

void sm_json_fixed(sm_json_t *j, const char *key, int prec, double x)
{
  item(j, key);
  if (isfinite(x))
    fprintf(j->f, "%.*f", prec, x);
  else
    fputs("null", j->f);
}

void sm_json_real(sm_json_t *j, const char *key, int prec, double x)
{
  item(j, key);
  if (isfinite(x))
    fprintf(j->f, "%.*g", prec, x);
  else
    fputs("null", j->f);
}
