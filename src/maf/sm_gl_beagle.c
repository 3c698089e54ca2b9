/* sm_gl_beagle.c: BEAGLE genotype-likelihood files (ANGSD -doGlf 2), plain
 * or gzip (zlib reads both; a gzip stream cut short is an error): a header
 * `marker allele1 allele2 Ind0 Ind0 Ind0 Ind1 ...` on the first line, then
 * per site `chrom_pos a1 a2` and 3 linear likelihoods per individual (0, 1,
 * 2 copies of allele 2). */
#include "sm_gl_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct beagle {
  gzFile f;
  char *line;
  size_t cap, lineno, ncol;
  int zerr; /* why next_line failed: zlib's code (Z_MEM_ERROR: the line), or
             * BEAGLE_NUL */
} beagle_t;

/* next_line's failure on a NUL byte: not text (and gzgets, which stops at
 * a newline only, would hand the line over cut at it) */
enum { BEAGLE_NUL = 1000 };

static int is_space(char c)
{
  return c == ' ' || c == '\t';
}

/* Next non-empty line into b->line (end of line removed); *eof set at the
 * end. SM_EIO, logged by the caller (read_failed), on a read error, a gzip
 * stream cut short, no memory for the line or a NUL byte in it: b->zerr
 * says which. */
static sm_err_t next_line(beagle_t *b, int *eof)
{
  *eof = 0;
  for (;;) {
    size_t len = 0;
    for (;;) {
      if (b->cap - len < 4096) {
        size_t cap = b->cap ? 2 * b->cap : 65536;
        char *grown = realloc(b->line, cap);
        if (!grown) {
          b->zerr = Z_MEM_ERROR;
          return SM_EIO;
        }
        b->line = grown;
        b->cap = cap;
      }
      const z_off_t at = gztell(b->f);
      if (!gzgets(b->f, b->line + len,
                  (int)(b->cap - len > INT32_MAX ? INT32_MAX : b->cap - len)))
        break;
      const size_t got = strlen(b->line + len);
      const z_off_t read = gztell(b->f) - at;
      if (at >= 0 && read >= 0 && (size_t)read != got) {
        b->zerr = BEAGLE_NUL;
        b->lineno++;
        return SM_EIO;
      }
      len += got;
      if (len && b->line[len - 1] == '\n')
        break;
    }
    /* a last line, or none: did the input end, or did reading fail? zlib
     * reports a gzip stream without its end (cut short in a deflate block,
     * or before its trailer) as Z_BUF_ERROR, having handed out all it could
     * decode: that is a truncated file, not its end */
    if (len == 0 || b->line[len - 1] != '\n') {
      gzerror(b->f, &b->zerr);
      if (b->zerr != Z_OK)
        return SM_EIO;
    }
    if (len == 0) {
      *eof = 1;
      return SM_OK;
    }
    b->lineno++;
    while (len && (b->line[len - 1] == '\n' || b->line[len - 1] == '\r'))
      b->line[--len] = 0;
    size_t k = 0;
    while (k < len && is_space(b->line[k]))
      k++;
    if (k < len)
      return SM_OK;
  }
}

/* Log why next_line failed: SM_EFORMAT for a gzip stream cut short or
 * damaged, SM_EIO for a read error, SM_ENOMEM. */
static sm_err_t read_failed(const sm_gl_reader_t *r, const beagle_t *b)
{
  if (b->zerr == Z_BUF_ERROR) {
    char where[64] = "before its first line";
    if (b->lineno)
      snprintf(where, sizeof where, "after line %zu", b->lineno);
    sm_log_error("%s: ends before the end of its gzip stream: the file is truncated (it "
                 "stops %s); copy or download it again",
                 r->path, where);
    return SM_EFORMAT;
  }
  if (b->zerr == BEAGLE_NUL) {
    sm_log_error("%s:%zu: a NUL byte: not a text file (BEAGLE files are text, plain or "
                 "gzip-compressed); check that this is the file meant",
                 r->path, b->lineno);
    return SM_EFORMAT;
  }
  if (b->zerr == Z_MEM_ERROR) {
    sm_log_error("%s:%zu: out of memory for the line", r->path, b->lineno + 1);
    return SM_ENOMEM;
  }
  int zerr;
  const char *msg = b->zerr == Z_ERRNO ? strerror(errno) : gzerror(b->f, &zerr);
  size_t n = strlen(r->path); /* zlib's message starts with the path */
  if (!strncmp(msg, r->path, n) && !strncmp(msg + n, ": ", 2))
    msg += n + 2;
  sm_log_error("%s: read error after line %zu (%s); the file is damaged", r->path,
               b->lineno, msg);
  return b->zerr == Z_ERRNO ? SM_EIO : SM_EFORMAT;
}

/* Whether cell s (len bytes) is a number in decimal notation, as
 * likelihoods are written ([+-]digits[.digits][e[+-]digits], or starting
 * with the point); *digits_only set when it is an unsigned integer. */
static int is_decimal(const char *s, size_t len, int *digits_only)
{
  size_t k = 0, ndig = 0;
  if (k < len && (s[k] == '+' || s[k] == '-'))
    k++;
  while (k < len && isdigit((unsigned char)s[k]))
    k++, ndig++;
  *digits_only = ndig && ndig == len;
  if (k < len && s[k] == '.')
    for (k++; k < len && isdigit((unsigned char)s[k]); k++)
      ndig++;
  if (!ndig)
    return 0;
  if (k < len && (s[k] == 'e' || s[k] == 'E')) {
    if (++k < len && (s[k] == '+' || s[k] == '-'))
      k++;
    size_t e0 = k;
    while (k < len && isdigit((unsigned char)s[k]))
      k++;
    if (k == e0)
      return 0;
  }
  return k == len;
}

/* The cell at *p (blank-separated), its length in *n; *p moves past it.
 * NULL at the end of the line. */
static const char *next_cell(const char **p, size_t *n)
{
  const char *s = *p;
  while (is_space(*s))
    s++;
  if (!*s)
    return NULL;
  const char *t = s;
  while (*s && !is_space(*s))
    s++;
  *n = (size_t)(s - t);
  *p = s;
  return t;
}

/* Whether the first line is a site's line rather than the header: every
 * column from the 4th is a number, and they are not numeric sample names
 * (digits only, each individual's three alike, and with two individuals or
 * more not all individuals alike: a site without data writes equal
 * likelihoods everywhere). */
static int looks_like_data(const char *line)
{
  const char *p = line, *cell[3] = {0}, *ind0 = NULL, *t;
  size_t len[3] = {0}, ind0_len = 0, col = 0, n;
  int names = 1, all_alike = 1;
  for (; (t = next_cell(&p, &n)); col++) {
    if (col < 3)
      continue;
    const size_t k = (col - 3) % 3;
    int digits_only;
    if (!is_decimal(t, n, &digits_only))
      return 0; /* a name: a header */
    cell[k] = t;
    len[k] = n;
    names = names && digits_only;
    if (k == 2 && names) {
      names = len[0] == n && len[1] == n && !memcmp(cell[0], cell[2], n) &&
              !memcmp(cell[1], cell[2], n);
      if (!ind0)
        ind0 = cell[0], ind0_len = n;
      else if (ind0_len != n || memcmp(ind0, cell[0], n))
        all_alike = 0;
    }
  }
  if (col <= 3)
    return 0;
  return !(names && (col - 3) % 3 == 0 && (col == 6 || !all_alike));
}

/* Columns of a line, and where the first `keep` of them start / end. */
static size_t columns(const char *s, size_t keep, const char **start, size_t *len)
{
  size_t n = 0, l;
  for (const char *t; (t = next_cell(&s, &l)); n++)
    if (n < keep) {
      start[n] = t;
      len[n] = l;
    }
  return n;
}

static sm_err_t ragged(sm_gl_reader_t *r, beagle_t *b, size_t found)
{
  sm_log_error("%s:%zu: %zu columns where the header has %zu (marker, allele1, allele2 "
               "and 3 per individual for %zu individuals); the line is cut or has extra "
               "fields",
               r->path, b->lineno, found, b->ncol, r->nind);
  return SM_EFORMAT;
}

static sm_err_t beagle_next(sm_gl_reader_t *r, int keep, double *row, sm_gl_site_t *site,
                            int *eof)
{
  beagle_t *b = r->impl;
  int at_end;
  if (next_line(b, &at_end) != SM_OK)
    return read_failed(r, b);
  if (at_end) {
    *eof = 1;
    return SM_OK;
  }
  r->st.records++;
  const char *lab[3];
  size_t lablen[3];
  if (!keep) { /* a skipped site: only its shape */
    size_t n = columns(b->line, 0, lab, lablen);
    return n == b->ncol ? SM_OK : ragged(r, b, n);
  }
  char *p = b->line;
  size_t col = 0;
  for (; col < 3; col++) {
    while (is_space(*p))
      p++;
    if (!*p)
      return ragged(r, b, col);
    lab[col] = p;
    while (*p && !is_space(*p))
      p++;
    lablen[col] = (size_t)(p - lab[col]);
  }
  for (size_t k = 0; k < 3 * r->nind; k++, col++) {
    while (is_space(*p))
      p++;
    if (!*p)
      return ragged(r, b, col);
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || (*end && !is_space(*end))) {
      size_t len = strcspn(p, " \t");
      sm_log_error("%s:%zu: column %zu ('%.*s') is not a number; BEAGLE likelihoods are "
                   "linear numbers >= 0",
                   r->path, b->lineno, col + 1, (int)(len > 40 ? 40 : len), p);
      return SM_EFORMAT;
    }
    if (!isfinite(v) || v < 0) {
      sm_log_error(
          "%s:%zu: column %zu: %s likelihood %.*s; BEAGLE likelihoods are linear "
          "numbers >= 0 (log-scaled values need converting)",
          r->path, b->lineno, col + 1, v < 0 ? "negative" : "non-finite", (int)(end - p),
          p);
      return SM_EVALUE;
    }
    row[k] = v;
    p = end;
  }
  while (is_space(*p))
    p++;
  if (*p)
    return ragged(r, b, col + columns(p, 0, lab, lablen));
  /* marker "chrom_pos": the position follows the last underscore */
  const char *us = NULL;
  for (size_t k = 0; k < lablen[0]; k++)
    if (lab[0][k] == '_')
      us = lab[0] + k;
  site->chrom = lab[0];
  site->chrom_len = lablen[0];
  site->pos = 0;
  if (us && us + 1 < lab[0] + lablen[0]) {
    char *end;
    unsigned long long pos = strtoull(us + 1, &end, 10);
    if (end == lab[0] + lablen[0] && us[1] != '-' && us[1] != '+') {
      site->chrom_len = (size_t)(us - lab[0]);
      site->pos = pos;
    }
  }
  site->a1 = lab[1];
  site->a1_len = lablen[1];
  site->a2 = lab[2];
  site->a2_len = lablen[2];
  return SM_OK;
}

static void beagle_close(sm_gl_reader_t *r)
{
  beagle_t *b = r->impl;
  if (!b)
    return;
  if (b->f)
    gzclose(b->f);
  free(b->line);
  free(b);
  r->impl = NULL;
}

sm_err_t sm_gl_beagle_open(sm_gl_reader_t *r)
{
  beagle_t *b = calloc(1, sizeof *b);
  if (!b) {
    sm_log_error("%s: out of memory", r->path);
    return SM_ENOMEM;
  }
  r->impl = b;
  r->close = beagle_close;
  r->next = beagle_next;
  r->fmt_name = "beagle";
  errno = 0;
  if (!(b->f = gzopen(r->path, "rb"))) {
    sm_log_error("%s: cannot open: %s", r->path,
                 errno ? strerror(errno) : "out of memory");
    return SM_EIO;
  }
  gzbuffer(b->f, 1 << 17);
  int at_end;
  if (next_line(b, &at_end) != SM_OK)
    return read_failed(r, b);
  if (at_end) {
    sm_log_error("%s: empty file: a BEAGLE file starts with the header `marker allele1 "
                 "allele2 Ind0 Ind0 Ind0 ...`",
                 r->path);
    return SM_EDEGEN;
  }
  if (gzdirect(b->f) && b->line[0] == '\x1f' && !b->line[1]) {
    /* the first byte of gzip's magic only: zlib reads it as text */
    b->zerr = Z_BUF_ERROR;
    b->lineno = 0;
    return read_failed(r, b);
  }
  const char *first[1];
  size_t flen[1];
  b->ncol = columns(b->line, 1, first, flen);
  if (looks_like_data(b->line)) {
    sm_log_error(
        "%s:%zu: the first line is not a BEAGLE header: its columns 4 to %zu are "
        "numbers, as on a site's line (is the header missing?); a BEAGLE file "
        "starts with the header `marker allele1 allele2 Ind0 Ind0 Ind0 Ind1 ...` "
        "(each individual's name 3 times)",
        r->path, b->lineno, b->ncol);
    return SM_EFORMAT;
  }
  if (b->ncol < 6 || (b->ncol - 3) % 3 != 0) {
    sm_log_error("%s:%zu: the header has %zu columns; a BEAGLE header is `marker allele1 "
                 "allele2` then 3 columns per individual (Ind0 Ind0 Ind0 Ind1 ...)",
                 r->path, b->lineno, b->ncol);
    return SM_EFORMAT;
  }
  r->nind = (b->ncol - 3) / 3;
  return SM_OK;
}
