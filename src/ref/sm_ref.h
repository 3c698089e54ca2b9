/* sm_ref.h: the reference implementation of every metric, 2-way and 3-way
 * (--compute-method ref): plain loops over the whole vector set, written
 * independently of the kernels and the task graph; every test compares the
 * fast path against it. Only the final formulas (sm_formulas.h) are shared,
 * as formulas live once. */
#ifndef SM_REF_H
#define SM_REF_H

#include "sm_sink.h"
#include "sm_vectors.h"

typedef struct sm_ref_opts {
  int way;    /* 2 or 3 */
  int sparse; /* ccc: sparse method */
  double ccc_mult, ccc_param;
  int form;     /* czekanowski 2-way: the value's form (SM_FORM_*, sm_formulas.h) */
  int zero_nan; /* czekanowski 2-way: a pair of two zero sums is NaN */
  const uint32_t *ld_win; /* 2-way LD windows: the pairs (i, j <= ld_win[i]) only */
} sm_ref_opts_t;

/** Compute every pair (way 2; in the windows when o->ld_win) or triple (way 3) of v and
 * hand the records, in canonical order (i < j [< k], entries ascending), to sm_sink_put.
 */
sm_err_t sm_ref_run(const sm_vectors_t *v, const sm_ref_opts_t *o,
                    sm_sink_t *sink) SM_MUST_CHECK;

#endif
