/* sm_gl_beagle.c: BEAGLE genotype-likelihood files (ANGSD -doGlf 2), plain
 * or gzip (zlib reads both): a header `marker allele1 allele2 Ind0 Ind0
 * Ind0 Ind1 ...`, then per site `chrom_pos a1 a2` and 3 linear likelihoods
 * per individual (0, 1, 2 copies of allele 2). */
#include "sm_gl_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct beagle {
  gzFile f;
  char *line;
  size_t cap, lineno, ncol;
} beagle_t;

static int is_space(char c)
{
  return c == ' ' || c == '\t';
}

/* Next non-empty line into b->line (end of line removed); *eof set at the
 * end. SM_EIO on a read error (or no memory for the line), logged by the
 * caller with errno. */
static sm_err_t next_line(beagle_t *b, int *eof)
{
  *eof = 0;
  for (;;) {
    size_t len = 0;
    for (;;) {
      if (b->cap - len < 4096) {
        size_t cap = b->cap ? 2 * b->cap : 65536;
        char *grown = realloc(b->line, cap);
        if (!grown)
          return SM_EIO;
        b->line = grown;
        b->cap = cap;
      }
      if (!gzgets(b->f, b->line + len,
                  (int)(b->cap - len > INT32_MAX ? INT32_MAX : b->cap - len)))
        break;
      len += strlen(b->line + len);
      if (len && b->line[len - 1] == '\n')
        break;
    }
    if (len == 0) {
      int zerr = 0;
      gzerror(b->f, &zerr);
      *eof = 1;
      return zerr == Z_OK || zerr == Z_BUF_ERROR ? SM_OK : SM_EIO;
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

/* Columns of a line, and where the first `keep` of them start / end. */
static size_t columns(const char *s, size_t keep, const char **start, size_t *len)
{
  size_t n = 0;
  while (*s) {
    while (is_space(*s))
      s++;
    if (!*s)
      break;
    const char *t = s;
    while (*s && !is_space(*s))
      s++;
    if (n < keep) {
      start[n] = t;
      len[n] = (size_t)(s - t);
    }
    n++;
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
  if (next_line(b, &at_end) != SM_OK) {
    sm_log_error("%s: read error after line %zu (%s); the file is damaged or truncated",
                 r->path, b->lineno, errno ? strerror(errno) : "corrupt gzip data");
    return SM_EIO;
  }
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
  if (next_line(b, &at_end) != SM_OK) {
    sm_log_error("%s: read error in the header (%s)", r->path,
                 errno ? strerror(errno) : "corrupt gzip data");
    return SM_EIO;
  }
  if (at_end) {
    sm_log_error("%s: empty file: a BEAGLE file starts with the header `marker allele1 "
                 "allele2 Ind0 Ind0 Ind0 ...`",
                 r->path);
    return SM_EDEGEN;
  }
  const char *first[1];
  size_t flen[1];
  b->ncol = columns(b->line, 1, first, flen);
  if (b->ncol < 6 || (b->ncol - 3) % 3 != 0) {
    sm_log_error("%s:%zu: the header has %zu columns; a BEAGLE header is `marker allele1 "
                 "allele2` then 3 columns per individual (Ind0 Ind0 Ind0 Ind1 ...)",
                 r->path, b->lineno, b->ncol);
    return SM_EFORMAT;
  }
  r->nind = (b->ncol - 3) / 3;
  return SM_OK;
}
