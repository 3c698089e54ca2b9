/* sm_ccc_planes.h: bit planes of 2-bit genotype codes, shared by the CCC
 * popcount kernels (internal to codelets/cpu). The planes and the per-word
 * moments are sm_formulas.h's (sm_gt_planes, sm_ccc_rr_word); here they are
 * packed 64 fields per word (code word 2w in the even bits, 2w+1 in the odd
 * bits), so one popcount covers 64 fields; bits past nf are zero. */
#ifndef SM_CCC_PLANES_H
#define SM_CCC_PLANES_H

#include <stdint.h>
#include <stdlib.h>

#include "sm_formulas.h"

/* Clones of a kernel for the widest ISA the CPU reports (hardware popcount
 * at least), chosen when the program loads. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_POPC_CLONES                                                                   \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "popcnt", "default")))
#else
#define SM_POPC_CLONES
#endif

typedef struct sm_planes {
  size_t nw;   /* plane words per vector */
  int np;      /* planes per vector: 2 dense (P1, P2), 3 sparse (P1, P2, M) */
  uint64_t *p; /* [v][plane][nw] */
} sm_planes_t;

/* The raw per-word pieces of code word cw of a row of nf fields: lo/hi bits
 * in even positions and the mask of fields that exist. */
static inline void sm_code_bits(const uint64_t *row, size_t cw, size_t nf, uint64_t *lo,
                                uint64_t *hi, uint64_t *valid)
{
  sm_gt_bits(row[cw], nf - cw * 32, lo, hi, valid);
}

/* Pack nv rows of codes into planes; returns -1 when out of memory. */
static inline int sm_planes_pack(sm_planes_t *pl, size_t nv, size_t nf, const uint64_t *X,
                                 size_t ldx, int sparse)
{
  size_t ncw = (nf + 31) / 32;
  pl->nw = (ncw + 1) / 2;
  pl->np = sparse ? 3 : 2;
  pl->p =
      malloc((nv ? nv : 1) * (size_t)pl->np * (pl->nw ? pl->nw : 1) * sizeof(uint64_t));
  if (!pl->p)
    return -1;
  for (size_t v = 0; v < nv; v++) {
    const uint64_t *row = X + v * ldx;
    uint64_t *out = pl->p + v * (size_t)pl->np * pl->nw;
    for (size_t w = 0; w < pl->nw; w++) {
      uint64_t p1 = 0, p2 = 0, pm = 0;
      for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
        uint64_t lo, hi, valid, q1, q2, qm;
        sm_code_bits(row, 2 * w + (size_t)half, nf, &lo, &hi, &valid);
        sm_gt_planes(lo, hi, valid, sparse, &q1, &q2, &qm);
        p1 |= q1 << half;
        p2 |= q2 << half;
        pm |= qm << half;
      }
      out[w] = p1;
      out[pl->nw + w] = p2;
      if (sparse)
        out[2 * pl->nw + w] = pm;
    }
  }
  return 0;
}

/* Dense moment of a pair of packed vectors: sum r_x r_y. */
static inline uint32_t sm_planes_rr(size_t nw, const uint64_t *a1, const uint64_t *a2,
                                    const uint64_t *b1, const uint64_t *b2)
{
  uint32_t rr = 0;
  for (size_t w = 0; w < nw; w++)
    rr += sm_ccc_rr_word(a1[w], a2[w], b1[w], b2[w]);
  return rr;
}

/* Sparse moments of a pair: c = {rr, rm, mr, mm}. */
static inline void sm_planes_moments(size_t nw, const uint64_t *a1, const uint64_t *a2,
                                     const uint64_t *am, const uint64_t *b1,
                                     const uint64_t *b2, const uint64_t *bm,
                                     uint32_t c[4])
{
  uint32_t mom[4] = {0, 0, 0, 0};
  for (size_t w = 0; w < nw; w++)
    sm_ccc_moments_word(a1[w], a2[w], am[w], b1[w], b2[w], bm[w], mom);
  for (int x = 0; x < 4; x++)
    c[x] = mom[x];
}

#endif
