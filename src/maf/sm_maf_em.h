/* sm_maf_em.h: a rank's blocks of sites in `starmet maf` (their data and
 * StarPU handles) and the site frequency spectrum EM over them: E-steps as
 * tasks, partial sums reduced per chunk of the input and then over every
 * rank in chunk order, so any number of ranks gives the same bits; the
 * updates between E-steps are sm_maf_fit's. */
#ifndef SM_MAF_EM_H
#define SM_MAF_EM_H

#include <starpu.h>

#include "sm_gl.h"
#include "sm_kern_saf.h"
#include "sm_maf_fit.h"

typedef struct sm_maf_block {
  uint64_t chunk;      /* the input chunk it belongs to (ranks own chunks) */
  sm_gl_sites_t sites; /* labels and likelihoods (dropped once computed) */
  double *saf;         /* n x nbins: SAF (ln), exp(SAF) after the first E-step */
  sm_saf_site_t *info; /* n */
  double *maf;         /* n posterior mean frequencies (EM) */
  double *maf_try;     /* n: the same at a point not yet accepted (EM only) */
  double *part;        /* nbins + 2: the block's E-step sums */
  starpu_data_handle_t h_gl, h_saf, h_info, h_maf, h_maf_try, h_part;
} sm_maf_block_t;

typedef struct sm_maf_em {
  int maxiter;          /* E-steps at most (--em-maxiter) */
  double tole;          /* --em-tole: sm_maf_fit's stopping rule */
  int fold;             /* the folded spectrum (--fold) */
  sm_maf_accel_t accel; /* --em-accel */
  /* results, the same on every rank */
  double *phi;      /* nbins, sums to 1: as written (folded: bins N + 1.. are 0) */
  double loglik;    /* sum over sites of ln sum_j q_j exp(saf_j), q the unfolded
                       spectrum (folded: symmetric) */
  double nsites;    /* sites in the EM */
  double change;    /* the last accepted iteration's change of loglik (NaN: none) */
  double gap_bound; /* the maximum is at most this above loglik */
  int iterations;   /* E-steps run (passes over the sites) */
  int rejected;     /* accelerated points refused (the log-likelihood dropped) */
  int converged;    /* the tolerance met before maxiter */
} sm_maf_em_t;

/** Run the EM over this rank's blocks (SAF computed, StarPU running);
 * every rank calls it. em->phi is allocated here (nbins). Leaves each
 * block's maf filled for the spectrum reported. */
sm_err_t sm_maf_em_run(sm_maf_block_t *blocks, size_t nblocks, size_t nbins,
                       sm_maf_em_t *em) SM_MUST_CHECK;

/** Sum vectors of len doubles, one per chunk, over every rank: ids holds
 * this rank's chunk ids (ascending), vec their vectors; out (len) gets the
 * sum taken in ascending chunk order, on every rank. */
sm_err_t sm_maf_reduce_chunks(const uint64_t *ids, const double *vec, size_t nmine,
                              size_t len, double *out) SM_MUST_CHECK;

#endif
