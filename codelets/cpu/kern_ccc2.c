/* kern_ccc2.c: CCC 2-way moments of genotype pairs (plain reference loops,
 * and the bit-plane AND + popcount kernel) and the per-vector allele sums. */
#include <stdlib.h>
#include <string.h>

#include "sm_kern.h"

#define SM_EVEN 0x5555555555555555ull

/* Copies of allele 1 of code c (dense: code 10 counts as one copy). */
static inline unsigned gt_r(unsigned c, int sparse)
{
  static const unsigned r_dense[4] = {0, 1, 1, 2}, r_sparse[4] = {0, 1, 0, 2};
  return sparse ? r_sparse[c] : r_dense[c];
}

static inline unsigned gt_code(const uint64_t *row, size_t f)
{
  return (unsigned)(row[f / 32] >> (2 * (f % 32))) & 3u;
}

void sm_kern_ccc2_ref(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                      const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                      size_t ldc)
{
  const size_t nmom = SM_CCC2_NMOM(sparse);
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      uint32_t rr = 0, rm = 0, mr = 0, mm = 0;
      for (size_t q = 0; q < nf; q++) {
        unsigned ci = gt_code(A + i * lda, q), cj = gt_code(B + j * ldb, q);
        unsigned ri = gt_r(ci, sparse), rj = gt_r(cj, sparse);
        unsigned mi = !sparse || ci != 2, mj = !sparse || cj != 2;
        rr += ri * rj;
        rm += ri * mj;
        mr += mi * rj;
        mm += mi * mj;
      }
      uint32_t *c = C + (i * ldc + j) * nmom;
      c[0] = rr;
      if (sparse) {
        c[1] = rm;
        c[2] = mr;
        c[3] = mm;
      }
    }
}

/* Word at a time: lo/hi bits of the 32 codes of a word, pad bits zero. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "popcnt", "default")))
#endif
void sm_kern_sums_ccc(size_t nv, size_t nf, const uint64_t *X, size_t ldx,
                      int sparse, uint32_t *s)
{
  const size_t ncw = (nf + 31) / 32;
  for (size_t v = 0; v < nv; v++) {
    uint32_t s1 = 0, nmiss = 0;
    for (size_t w = 0; w < ncw; w++) {
      size_t nfw = nf - w * 32 < 32 ? nf - w * 32 : 32;
      uint64_t valid = nfw == 32 ? SM_EVEN : (((uint64_t)1 << (2 * nfw)) - 1) & SM_EVEN;
      uint64_t lo = X[v * ldx + w] & valid, hi = (X[v * ldx + w] >> 1) & valid;
      /* copies: dense 01, 10 -> 1, 11 -> 2; sparse 01 -> 1, 11 -> 2 */
      s1 += (uint32_t)__builtin_popcountll(sparse ? lo : lo | hi) +
            (uint32_t)__builtin_popcountll(lo & hi);
      nmiss += (uint32_t)__builtin_popcountll(hi & ~lo);
    }
    s[2 * v] = s1;
    s[2 * v + 1] = sparse ? (uint32_t)nf - nmiss : (uint32_t)nf;
  }
}

/* ---- bit planes
 * From 2-bit codes (lo = bit 0, hi = bit 1 of each field):
 *   dense:  P1 = lo | hi (r >= 1), P2 = lo & hi (r == 2), r = P1 + P2
 *   sparse: P1 = lo (r >= 1 and present), P2 = lo & hi, M = lo | ~hi
 * P2 is a subset of P1, so sum r_i r_j = |P1&P1| + |(P1i&P2j) | (P2i&P1j)|
 * + 2 |P2&P2|: three popcounts instead of four. Planes are packed 64 fields
 * per word (two code words: the first in the even bits, the second in the
 * odd bits), so a popcount covers 64 fields. */

typedef struct planes {
  size_t nw;       /* plane words per vector */
  uint64_t *p;     /* [v][plane][nw] */
  int np;          /* planes per vector: 2 dense, 3 sparse */
} planes_t;

static int planes_pack(planes_t *pl, size_t nv, size_t nf, const uint64_t *X,
                       size_t ldx, int sparse)
{
  size_t ncw = (nf + 31) / 32; /* code words in use */
  pl->nw = (ncw + 1) / 2;
  pl->np = sparse ? 3 : 2;
  pl->p = malloc((nv ? nv : 1) * pl->np * (pl->nw ? pl->nw : 1) * sizeof(uint64_t));
  if (!pl->p)
    return -1;
  for (size_t v = 0; v < nv; v++) {
    const uint64_t *row = X + v * ldx;
    uint64_t *out = pl->p + v * pl->np * pl->nw;
    for (size_t w = 0; w < pl->nw; w++) {
      uint64_t p1 = 0, p2 = 0, pm = 0;
      for (int half = 0; half < 2; half++) {
        size_t cw = 2 * w + half;
        if (cw >= ncw)
          break;
        uint64_t lo = row[cw] & SM_EVEN, hi = (row[cw] >> 1) & SM_EVEN;
        /* fields of this code word that exist */
        size_t f0 = cw * 32, nfw = nf - f0 < 32 ? nf - f0 : 32;
        uint64_t valid = nfw == 32 ? SM_EVEN : (((uint64_t)1 << (2 * nfw)) - 1) & SM_EVEN;
        uint64_t q1 = sparse ? lo : (lo | hi);
        uint64_t q2 = lo & hi;
        uint64_t qm = (lo | (~hi & SM_EVEN)) & valid;
        p1 |= (q1 & valid) << half;
        p2 |= (q2 & valid) << half;
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

#define POPC(x) ((uint32_t)__builtin_popcountll(x))

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SM_POPC_TARGETS __attribute__((target_clones("arch=x86-64-v4", "popcnt", "default")))
#else
#define SM_POPC_TARGETS
#endif

SM_POPC_TARGETS
static void ccc2_pair_dense(size_t nw, const uint64_t *a, const uint64_t *b,
                            uint32_t *c)
{
  const uint64_t *a1 = a, *a2 = a + nw, *b1 = b, *b2 = b + nw;
  uint32_t s11 = 0, sx = 0, s22 = 0;
  for (size_t w = 0; w < nw; w++) {
    s11 += POPC(a1[w] & b1[w]);
    sx += POPC((a1[w] & b2[w]) | (a2[w] & b1[w]));
    s22 += POPC(a2[w] & b2[w]);
  }
  c[0] = s11 + sx + 2 * s22;
}

SM_POPC_TARGETS
static void ccc2_pair_sparse(size_t nw, const uint64_t *a, const uint64_t *b,
                             uint32_t *c)
{
  const uint64_t *a1 = a, *a2 = a + nw, *am = a + 2 * nw;
  const uint64_t *b1 = b, *b2 = b + nw, *bm = b + 2 * nw;
  uint32_t s11 = 0, sx = 0, s22 = 0, rm = 0, mr = 0, mm = 0;
  for (size_t w = 0; w < nw; w++) {
    s11 += POPC(a1[w] & b1[w]);
    sx += POPC((a1[w] & b2[w]) | (a2[w] & b1[w]));
    s22 += POPC(a2[w] & b2[w]);
    rm += POPC(a1[w] & bm[w]) + POPC(a2[w] & bm[w]);
    mr += POPC(am[w] & b1[w]) + POPC(am[w] & b2[w]);
    mm += POPC(am[w] & bm[w]);
  }
  c[0] = s11 + sx + 2 * s22;
  c[1] = rm;
  c[2] = mr;
  c[3] = mm;
}

void sm_kern_ccc2_popc(size_t m, size_t n, size_t nf, const uint64_t *A, size_t lda,
                       const uint64_t *B, size_t ldb, int sparse, uint32_t *C,
                       size_t ldc)
{
  planes_t pa, pb;
  if (planes_pack(&pa, m, nf, A, lda, sparse) != 0) {
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  if (planes_pack(&pb, n, nf, B, ldb, sparse) != 0) {
    free(pa.p);
    sm_kern_ccc2_ref(m, n, nf, A, lda, B, ldb, sparse, C, ldc);
    return;
  }
  const size_t nmom = SM_CCC2_NMOM(sparse);
  const size_t stride = (size_t)pa.np * pa.nw;
  /* tiles of rows x columns whose planes stay in L2 */
  const size_t TB = 32;
  for (size_t i0 = 0; i0 < m; i0 += TB)
    for (size_t j0 = 0; j0 < n; j0 += TB)
      for (size_t i = i0; i < m && i < i0 + TB; i++)
        for (size_t j = j0; j < n && j < j0 + TB; j++) {
          uint32_t *c = C + (i * ldc + j) * nmom;
          if (sparse)
            ccc2_pair_sparse(pa.nw, pa.p + i * stride, pb.p + j * stride, c);
          else
            ccc2_pair_dense(pa.nw, pa.p + i * stride, pb.p + j * stride, c);
        }
  free(pa.p);
  free(pb.p);
}
