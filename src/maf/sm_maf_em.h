/* sm_maf_em.h: a rank's blocks of sites in `starmet maf` (their data and
 * StarPU handles) and the site frequency spectrum EM over them: E-steps as
 * tasks, partial sums reduced per chunk of the input and then over every
 * rank in chunk order, so any number of ranks gives the same bits. */
#ifndef SM_MAF_EM_H
#define SM_MAF_EM_H

#include <starpu.h>

#include "sm_gl.h"
#include "sm_kern_saf.h"

typedef struct sm_maf_block {
  uint64_t chunk;      /* the input chunk it belongs to (ranks own chunks) */
  sm_gl_sites_t sites; /* labels and likelihoods (dropped once computed) */
  double *saf;         /* n x nbins: SAF (ln), exp(SAF) after the first E-step */
  sm_saf_site_t *info; /* n */
  double *maf;         /* n posterior mean frequencies (EM) */
  double *part;        /* nbins + 2: the block's E-step sums */
  starpu_data_handle_t h_gl, h_saf, h_info, h_maf, h_part;
} sm_maf_block_t;

typedef struct sm_maf_em {
  int maxiter;
  double tol;
  /* results, the same on every rank */
  double *phi;    /* nbins, sums to 1 */
  double loglik;  /* sum over sites of ln sum_j phi_j exp(saf_j) */
  double nsites;  /* sites in the EM */
  int iterations; /* E-steps done (SQUAREM: up to 3 per cycle) */
  int converged;  /* gain over a cycle below tol before maxiter */
} sm_maf_em_t;

/** Run the EM over this rank's blocks (SAF computed, StarPU running);
 * every rank calls it. em->phi is allocated here (nbins). Leaves each
 * block's maf filled for the final spectrum. */
sm_err_t sm_maf_em_run(sm_maf_block_t *blocks, size_t nblocks, size_t nbins,
                       sm_maf_em_t *em) SM_MUST_CHECK;

/** Sum vectors of len doubles, one per chunk, over every rank: ids holds
 * this rank's chunk ids (ascending), vec their vectors; out (len) gets the
 * sum taken in ascending chunk order, on every rank. */
sm_err_t sm_maf_reduce_chunks(const uint64_t *ids, const double *vec, size_t nmine,
                              size_t len, double *out) SM_MUST_CHECK;

#endif
