/* sm_ccc_planes.h: bit planes of 2-bit genotype codes, shared by the CCC
 * popcount kernels (internal to codelets/cpu).
 * From codes (lo = bit 0, hi = bit 1 of each field):
 *   dense:  P1 = lo | hi (r >= 1), P2 = lo & hi (r == 2), r = P1 + P2
 *   sparse: P1 = lo (r >= 1 and present), P2 = lo & hi, M = lo | ~hi
 * P2 is a subset of P1, so sum r_x r_y = |P1&P1| + |(P1x&P2y) | (P2x&P1y)|
 * + 2 |P2&P2|: three popcounts instead of four. Planes hold 64 fields per
 * word (code word 2w in the even bits, 2w+1 in the odd bits); bits past nf
 * are zero. */
#ifndef SM_CCC_PLANES_H
#define SM_CCC_PLANES_H

#include <stdint.h>
#include <stdlib.h>

#define SM_EVEN64 0x5555555555555555ull
#define SM_POPC(x) ((uint32_t)__builtin_popcountll(x))

/* Clones of a kernel for the widest ISA the CPU reports (hardware popcount
 * at least), chosen when the program loads. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_POPC_CLONES __attribute__((target_clones("arch=x86-64-v4", "popcnt", "default")))
#else
#define SM_POPC_CLONES
#endif

typedef struct sm_planes {
  size_t nw;   /* plane words per vector */
  int np;      /* planes per vector: 2 dense (P1, P2), 3 sparse (P1, P2, M) */
  uint64_t *p; /* [v][plane][nw] */
} sm_planes_t;

/* The raw per-word pieces of one code word: lo/hi bits in even positions
 * and the mask of fields that exist. */
static inline void sm_code_bits(const uint64_t *row, size_t cw, size_t nf, uint64_t *lo,
                                uint64_t *hi, uint64_t *valid)
{
  size_t f0 = cw * 32, nfw = nf - f0 < 32 ? nf - f0 : 32;
  *lo = row[cw] & SM_EVEN64;
  *hi = (row[cw] >> 1) & SM_EVEN64;
  *valid = nfw == 32 ? SM_EVEN64 : (((uint64_t)1 << (2 * nfw)) - 1) & SM_EVEN64;
}

/* Pack nv rows of codes into planes; returns -1 when out of memory. */
static inline int sm_planes_pack(sm_planes_t *pl, size_t nv, size_t nf, const uint64_t *X,
                                 size_t ldx, int sparse)
{
  size_t ncw = (nf + 31) / 32;
  pl->nw = (ncw + 1) / 2;
  pl->np = sparse ? 3 : 2;
  pl->p = malloc((nv ? nv : 1) * (size_t)pl->np * (pl->nw ? pl->nw : 1) * sizeof(uint64_t));
  if (!pl->p)
    return -1;
  for (size_t v = 0; v < nv; v++) {
    const uint64_t *row = X + v * ldx;
    uint64_t *out = pl->p + v * (size_t)pl->np * pl->nw;
    for (size_t w = 0; w < pl->nw; w++) {
      uint64_t p1 = 0, p2 = 0, pm = 0;
      for (int half = 0; half < 2 && 2 * w + (size_t)half < ncw; half++) {
        uint64_t lo, hi, valid;
        sm_code_bits(row, 2 * w + (size_t)half, nf, &lo, &hi, &valid);
        p1 |= ((sparse ? lo : (lo | hi)) & valid) << half;
        p2 |= (lo & hi & valid) << half;
        pm |= ((lo | (~hi & SM_EVEN64)) & valid) << half;
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
  uint32_t s11 = 0, sx = 0, s22 = 0;
  for (size_t w = 0; w < nw; w++) {
    s11 += SM_POPC(a1[w] & b1[w]);
    sx += SM_POPC((a1[w] & b2[w]) | (a2[w] & b1[w]));
    s22 += SM_POPC(a2[w] & b2[w]);
  }
  return s11 + sx + 2 * s22;
}

/* Sparse moments of a pair: {rr, rm, mr, mm}. */
static inline void sm_planes_moments(size_t nw, const uint64_t *a1, const uint64_t *a2,
                                     const uint64_t *am, const uint64_t *b1,
                                     const uint64_t *b2, const uint64_t *bm, uint32_t c[4])
{
  uint32_t s11 = 0, sx = 0, s22 = 0, rm = 0, mr = 0, mm = 0;
  for (size_t w = 0; w < nw; w++) {
    s11 += SM_POPC(a1[w] & b1[w]);
    sx += SM_POPC((a1[w] & b2[w]) | (a2[w] & b1[w]));
    s22 += SM_POPC(a2[w] & b2[w]);
    rm += SM_POPC(a1[w] & bm[w]) + SM_POPC(a2[w] & bm[w]);
    mr += SM_POPC(am[w] & b1[w]) + SM_POPC(am[w] & b2[w]);
    mm += SM_POPC(am[w] & bm[w]);
  }
  c[0] = s11 + sx + 2 * s22;
  c[1] = rm;
  c[2] = mr;
  c[3] = mm;
}

#endif
