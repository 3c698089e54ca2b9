/* sm_gl_types.h: what the genotype-likelihood readers (sm_gl_impl.h)
 * share with the users of sm_gl.h: the formats, the reader and what it
 * counts. */
#ifndef SM_GL_TYPES_H
#define SM_GL_TYPES_H

#include <stdint.h>

typedef enum sm_gl_format {
  SM_GL_AUTO = 0, /* .vcf, .vcf.gz, .vcf.bgz, .bcf: VCF; anything else: BEAGLE */
  SM_GL_BEAGLE,   /* marker allele1 allele2 then 3 linear likelihoods per individual */
  SM_GL_VCF,      /* VCF/BCF, FORMAT/GL preferred, else FORMAT/PL */
} sm_gl_format_t;

/* What was read, for the summary. */
typedef struct sm_gl_stats {
  uint64_t records;      /* input records (lines, VCF records) */
  uint64_t sites;        /* sites handed out (records less those skipped) */
  uint64_t multiallelic; /* VCF: records not bi-allelic, skipped */
  uint64_t not_diploid;  /* VCF: sites whose GL/PL are not 3 values per sample
                            (kept as sites without data; counted where read) */
} sm_gl_stats_t;

typedef struct sm_gl_reader sm_gl_reader_t;

#endif
