/* sm_synth.h: synthetic problems. Every entry is a pure function of its
 * global (vector, field) index and the seed, so any slice of the problem is
 * the same whatever the decomposition. The analytic problem's results are
 * known in closed form (sm_synth_expect2/3). */
#ifndef SM_SYNTH_H
#define SM_SYNTH_H

#include "sm_vectors.h"

typedef enum sm_synth_kind {
  SM_SYNTH_NONE = 0,
  SM_SYNTH_RANDOM,   /* czek: dyadic values k/1024 in [0,1) (sums are exact);
                        ccc: uniform codes 0,1,2 copies, missing at a rate */
  SM_SYNTH_ANALYTIC, /* closed-form results, checked in the run */
} sm_synth_kind_t;

typedef struct sm_synth {
  sm_synth_kind_t kind;
  sm_metric_t metric;
  size_t nv, nf; /* whole problem */
  uint64_t seed;
  double missing_rate; /* ccc: fraction of missing calls (random, analytic) */
} sm_synth_t;

/** Fill out with vectors [v0, v0+vcount) x fields [f0, f0+fcount) of the
 * problem (counts 0 = to the end). elem_size for czekanowski (4 or 8). */
sm_err_t sm_synth_make(const sm_synth_t *s, size_t elem_size, size_t v0, size_t vcount,
                       size_t f0, size_t fcount, sm_vectors_t *out) SM_MUST_CHECK;

/** Closed-form 2-way results of the analytic problem for the pair i < j:
 * czekanowski: n2, s_i, s_j; ccc: the 2x2 tallies t[4] and the vector sums
 * s1 (allele-1 count) and c (counted entries), dense or sparse. */
void sm_synth_expect_czek2(const sm_synth_t *s, size_t i, size_t j, double *n2,
                           double *si, double *sj);
void sm_synth_expect_ccc2(const sm_synth_t *s, int sparse, size_t i, size_t j,
                          uint64_t t[4], uint64_t s1[2], uint64_t c[2]);
/** Closed-form 3-way numerator n3(i,j,k) of the czekanowski problem. */
double sm_synth_expect_czek3_n3(const sm_synth_t *s, size_t i, size_t j, size_t k);
/** Closed-form CCC 3-way 2x2x2 tallies t[8] (index a*4+b*2+c). */
void sm_synth_expect_ccc3(const sm_synth_t *s, int sparse, size_t i, size_t j, size_t k,
                          uint64_t t[8]);
/** Per-vector CCC sums (allele-1 count, counted entries) of vector i. */
void sm_synth_expect_ccc_sums(const sm_synth_t *s, int sparse, size_t i, uint64_t *s1,
                              uint64_t *c);

#endif
