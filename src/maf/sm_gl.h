/* sm_gl.h: genotype-likelihood inputs of `starmet maf`, read as a stream
 * of sites, a block at a time: BEAGLE files (plain or gzip) and VCF/BCF
 * with FORMAT/GL (log10) or FORMAT/PL (phred) through htslib. Errors are
 * logged once, naming the file, the line or site and what to do. */
#ifndef SM_GL_H
#define SM_GL_H

#include <stddef.h>
#include <stdint.h>

#include "sm_error.h"
#include "sm_gl_types.h"

/* A block of sites. gl holds, per site, 3 linear likelihoods per
 * individual (0, 1, 2 copies of allele 2 / ALT); an individual without data
 * has three equal values (1, 1, 1). */
typedef struct sm_gl_sites {
  size_t n, cap, nind;
  double *gl;      /* cap rows of 3 nind (freed early by sm_gl_sites_drop_gl) */
  uint32_t *chrom; /* chromosome ids (sm_gl_chrom) */
  uint64_t *pos;   /* 1-based positions (BEAGLE marker without "_pos": 0) */
  size_t *allele;  /* 2 per site: offsets of allele 1 and 2 in pool */
  char *pool;
  size_t pool_len, pool_cap;
} sm_gl_sites_t;

/** Open path and read its header (BEAGLE header line; VCF header with a
 * FORMAT/GL or FORMAT/PL definition and at least one sample). */
sm_err_t sm_gl_open(const char *path, sm_gl_format_t fmt,
                    sm_gl_reader_t **r) SM_MUST_CHECK;

/** Close; accepts NULL. */
void sm_gl_close(sm_gl_reader_t *r);

size_t sm_gl_nind(const sm_gl_reader_t *r);
const char *sm_gl_format_name(const sm_gl_reader_t *r); /* "beagle", "vcf GL", ... */
const char *sm_gl_chrom(const sm_gl_reader_t *r, uint32_t id);
void sm_gl_get_stats(const sm_gl_reader_t *r, sm_gl_stats_t *st);

/** Read the next max sites. keep != 0: into b (reset first, grown to max);
 * keep == 0: skip them (only their shape is checked). *nread < max only at
 * the end of the input. */
sm_err_t sm_gl_read(sm_gl_reader_t *r, size_t max, int keep, sm_gl_sites_t *b,
                    size_t *nread) SM_MUST_CHECK;

/** Parse a format name: "auto", "beagle", "vcf" (or "bcf"). */
sm_err_t sm_gl_format_parse(const char *s, sm_gl_format_t *fmt) SM_MUST_CHECK;

/** Allele k (0 or 1) of site s. */
static inline const char *sm_gl_allele(const sm_gl_sites_t *b, size_t s, int k)
{
  return b->pool + b->allele[2 * s + (size_t)k];
}

/** Free the likelihoods of a block (its labels stay). */
void sm_gl_sites_drop_gl(sm_gl_sites_t *b);

/** Free a block; accepts a zeroed one. */
void sm_gl_sites_free(sm_gl_sites_t *b);

#endif
