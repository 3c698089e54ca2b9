/* sm_gl.c: the genotype-likelihood reader common to every format: choosing
 * the format, filling blocks of sites, chromosome names, blocks' memory.
 * The formats live in sm_gl_beagle.c and sm_gl_vcf.c. */
#include "sm_gl.h"
#include "sm_gl_impl.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sm_commit.h"

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static sm_gl_format_t guess_format(const char *path)
{
  static const char *const vcf[] = {".vcf", ".vcf.gz", ".vcf.bgz", ".bcf"};
  for (size_t k = 0; k < sizeof vcf / sizeof vcf[0]; k++)
    if (ends_with(path, vcf[k]))
      return SM_GL_VCF;
  return SM_GL_BEAGLE;
}

sm_err_t sm_gl_format_parse(const char *s, sm_gl_format_t *fmt)
{
  if (!strcasecmp(s, "auto"))
    *fmt = SM_GL_AUTO;
  else if (!strcasecmp(s, "beagle"))
    *fmt = SM_GL_BEAGLE;
  else if (!strcasecmp(s, "vcf") || !strcasecmp(s, "bcf"))
    *fmt = SM_GL_VCF;
  else {
    sm_log_error("--input-format: unknown format '%s' (use auto, beagle or vcf)", s);
    return SM_EOPTION;
  }
  return SM_OK;
}

sm_err_t sm_gl_open(const char *path, sm_gl_format_t fmt, sm_gl_reader_t **rp)
{
  *rp = NULL;
  sm_gl_reader_t *r = calloc(1, sizeof *r);
  if (!r || !(r->path = strdup(path))) {
    free(r);
    sm_log_error("%s: out of memory", path);
    return SM_ENOMEM;
  }
  r->fmt = fmt == SM_GL_AUTO ? guess_format(path) : fmt;
  sm_err_t err = sm_check_not_dir(path, "give the BEAGLE or VCF file's path");
  if (!err)
    err = r->fmt == SM_GL_VCF ? sm_gl_vcf_open(r) : sm_gl_beagle_open(r);
  if (err) {
    sm_gl_close(r);
    return err;
  }
  *rp = r;
  return SM_OK;
}

void sm_gl_close(sm_gl_reader_t *r)
{
  if (!r)
    return;
  if (r->close)
    r->close(r);
  for (size_t k = 0; k < r->nchrom; k++)
    free(r->chroms[k]);
  free(r->chroms);
  free(r->path);
  free(r);
}

size_t sm_gl_nind(const sm_gl_reader_t *r)
{
  return r->nind;
}
const char *sm_gl_format_name(const sm_gl_reader_t *r)
{
  return r->fmt_name;
}
void sm_gl_get_stats(const sm_gl_reader_t *r, sm_gl_stats_t *st)
{
  *st = r->st;
}

const char *sm_gl_chrom(const sm_gl_reader_t *r, uint32_t id)
{
  return id < r->nchrom ? r->chroms[id] : "?";
}

/* Id of a chromosome name: the last one when equal (inputs are sorted),
 * else a new entry. */
static sm_err_t chrom_id(sm_gl_reader_t *r, const char *name, size_t len, uint32_t *id)
{
  if (r->nchrom) {
    const char *last = r->chroms[r->nchrom - 1];
    if (strlen(last) == len && memcmp(last, name, len) == 0) {
      *id = (uint32_t)(r->nchrom - 1);
      return SM_OK;
    }
  }
  if (r->nchrom == r->chrom_cap) {
    size_t cap = r->chrom_cap ? 2 * r->chrom_cap : 16;
    char **grown = realloc(r->chroms, cap * sizeof *grown);
    if (!grown)
      return SM_ENOMEM;
    r->chroms = grown;
    r->chrom_cap = cap;
  }
  char *s = malloc(len + 1);
  if (!s)
    return SM_ENOMEM;
  memcpy(s, name, len);
  s[len] = 0;
  r->chroms[r->nchrom] = s;
  *id = (uint32_t)r->nchrom++;
  return SM_OK;
}

static sm_err_t pool_add(sm_gl_sites_t *b, const char *s, size_t len, size_t *off)
{
  if (b->pool_len + len + 1 > b->pool_cap) {
    size_t cap = b->pool_cap ? 2 * b->pool_cap : 1024;
    while (cap < b->pool_len + len + 1)
      cap *= 2;
    char *grown = realloc(b->pool, cap);
    if (!grown)
      return SM_ENOMEM;
    b->pool = grown;
    b->pool_cap = cap;
  }
  *off = b->pool_len;
  memcpy(b->pool + b->pool_len, s, len);
  b->pool[b->pool_len + len] = 0;
  b->pool_len += len + 1;
  return SM_OK;
}

static sm_err_t sites_reserve(sm_gl_sites_t *b, size_t cap, size_t nind)
{
  if (b->cap >= cap && b->nind == nind && b->gl)
    return SM_OK;
  sm_gl_sites_free(b);
  b->cap = cap;
  b->nind = nind;
  b->gl = malloc((cap ? cap : 1) * 3 * (nind ? nind : 1) * sizeof *b->gl);
  b->chrom = malloc((cap ? cap : 1) * sizeof *b->chrom);
  b->pos = malloc((cap ? cap : 1) * sizeof *b->pos);
  b->allele = malloc((cap ? cap : 1) * 2 * sizeof *b->allele);
  if (!b->gl || !b->chrom || !b->pos || !b->allele) {
    sm_gl_sites_free(b);
    return SM_ENOMEM;
  }
  return SM_OK;
}

sm_err_t sm_gl_read(sm_gl_reader_t *r, size_t max, int keep, sm_gl_sites_t *b,
                    size_t *nread)
{
  *nread = 0;
  if (keep) {
    if (sites_reserve(b, max, r->nind)) {
      sm_log_error("%s: out of memory for a block of %zu sites x %zu individuals",
                   r->path, max, r->nind);
      return SM_ENOMEM;
    }
    b->n = 0;
    b->pool_len = 0;
  }
  while (*nread < max) {
    sm_gl_site_t site = {0};
    int eof = 0;
    double *row = keep ? b->gl + b->n * 3 * r->nind : NULL;
    sm_err_t err = r->next(r, keep, row, &site, &eof);
    if (err)
      return err;
    if (eof)
      break;
    ++*nread;
    r->st.sites++;
    if (!keep)
      continue;
    size_t s = b->n;
    if ((err = chrom_id(r, site.chrom, site.chrom_len, &b->chrom[s])) ||
        (err = pool_add(b, site.a1, site.a1_len, &b->allele[2 * s])) ||
        (err = pool_add(b, site.a2, site.a2_len, &b->allele[2 * s + 1]))) {
      sm_log_error("%s: out of memory for the site labels", r->path);
      return err;
    }
    b->pos[s] = site.pos;
    b->n++;
  }
  return SM_OK;
}

void sm_gl_sites_drop_gl(sm_gl_sites_t *b)
{
  free(b->gl);
  b->gl = NULL;
}

void sm_gl_sites_free(sm_gl_sites_t *b)
{
  free(b->gl);
  free(b->chrom);
  free(b->pos);
  free(b->allele);
  free(b->pool);
  memset(b, 0, sizeof *b);
}
