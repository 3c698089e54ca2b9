/* sm_gl_impl.h: what the genotype-likelihood readers (sm_gl_beagle.c,
 * sm_gl_vcf.c) share with sm_gl.c: the reader object and the calls a site
 * parser makes. Internal to the sm_gl module. */
#ifndef SM_GL_IMPL_H
#define SM_GL_IMPL_H

#include <stddef.h>

#include "sm_error.h"
#include "sm_gl_types.h"

/* One site from a format: where its labels go. */
typedef struct sm_gl_site {
  const char *chrom;
  size_t chrom_len;
  uint64_t pos;
  const char *a1, *a2;
  size_t a1_len, a2_len;
} sm_gl_site_t;

struct sm_gl_reader {
  char *path;
  sm_gl_format_t fmt;
  const char *fmt_name;
  size_t nind;
  sm_gl_stats_t st;
  /* Next site: with keep, 3 nind likelihoods into row and labels into
   * *site; returns SM_OK, or SM_OK with *eof set at the end. */
  sm_err_t (*next)(sm_gl_reader_t *r, int keep, double *row, sm_gl_site_t *site,
                   int *eof);
  void (*close)(sm_gl_reader_t *r);
  void *impl;
  /* chromosome names, one entry per run of equal names */
  char **chroms;
  size_t nchrom, chrom_cap;
};

/* Open functions of the formats: fill r->nind, next, close, impl. */
sm_err_t sm_gl_beagle_open(sm_gl_reader_t *r) SM_MUST_CHECK;
sm_err_t sm_gl_vcf_open(sm_gl_reader_t *r) SM_MUST_CHECK;

#endif
