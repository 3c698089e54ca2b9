/* sm_maf_report.h: the summary of a `starmet maf` run: a JSON file beside
 * the output and a human-readable block on stdout (rank 0). */
#ifndef SM_MAF_REPORT_H
#define SM_MAF_REPORT_H

#include <stdio.h>

#include "sm_maf_options.h"
#include "sm_maf_em.h"
#include "sm_runtime.h"

/* What one rank did. */
typedef struct sm_maf_rank {
  uint64_t blocks, sites, computed;
  double t_saf;
  int nworkers;
} sm_maf_rank_t;

typedef struct sm_maf_report {
  const sm_maf_options_t *opt;
  const char *command, *status, *format;
  size_t nind, block_size;
  int nranks;
  uint64_t records, sites, computed, nodata, multiallelic, not_diploid;
  uint64_t with_missing; /* computed sites with an individual without data */
  uint64_t bins_total, bins_dropped;
  const sm_maf_em_t *em;      /* NULL when the EM did not run */
  const sm_maf_rank_t *ranks; /* nranks entries */
  const sm_runtime_stats_t *rt;
  double t_init, t_saf, t_em, t_output, t_total;
  const char *saf_path, *maf_path, *sfs_path; /* written files, or NULL */
} sm_maf_report_t;

/** Write the JSON summary (PATH.part, renamed when complete). */
sm_err_t sm_maf_report_json(const sm_maf_report_t *r, const char *path) SM_MUST_CHECK;

/** Print the human summary. */
void sm_maf_report_print(const sm_maf_report_t *r, FILE *f);

#endif
