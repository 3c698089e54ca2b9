/* sm_codelets_saf.h: the task-insertion interface of the `starmet maf`
 * codelets (codelet_saf.c, codelet_safem.c). The graph layer (src/) calls
 * these and never sees a codelet or a kernel. */
#ifndef SM_CODELETS_SAF_H
#define SM_CODELETS_SAF_H

#include <starpu.h>

#include "sm_kern_saf.h"

/* How a site block's SAF is computed. */
typedef enum sm_saf_method {
  SM_SAF_TREE = 0, /* GAMA's tree reduction (banded when band_tol > 0) */
  SM_SAF_REF,      /* the N-step iterative reference (exact) */
} sm_saf_method_t;

/* SAF of a block of sites. GL: matrix of nsites rows (ny) of 3 N linear
 * likelihoods (nx = 3 N); OUT: matrix of nsites rows of 2 N + 1 doubles;
 * INFO: vector of nsites sm_saf_site_t. tab: the log-factorial tables for
 * N, alive until the task has run. */
int sm_task_saf(starpu_data_handle_t GL, starpu_data_handle_t OUT,
                starpu_data_handle_t INFO, const sm_saf_tab_t *tab,
                sm_saf_method_t method, double band_tol, int prio);

/* One EM E-step on a block (sm_kern_safem): L (RW) the block's OUT matrix
 * (converted from log to linear when convert), INFO (R), PHI (R) vector of
 * 2 N + 1 doubles, PART (W) vector of 2 N + 3 doubles (gradient sums, sum
 * of ln Z, sites used), MAF (W) vector of nsites doubles. */
int sm_task_safem(starpu_data_handle_t L, starpu_data_handle_t INFO,
                  starpu_data_handle_t PHI, starpu_data_handle_t PART,
                  starpu_data_handle_t MAF, int convert, int prio);

#endif
